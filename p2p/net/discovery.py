"""LAN table discovery with DNS-SD over mDNS (python-zeroconf).

A host announces its table as a service of type ``_millebornes._tcp.local.``;
the SRV record carries the transport's port, the A records its addresses and
the TXT record the table's public description:

======  ==========================================================
key     value
======  ==========================================================
v       discovery record version (``1``)
name    table name (UTF-8, at most 60 bytes)
rules   rules preset and options, e.g. ``classic`` or ``modern;…``
taken   seats taken (decimal)
free    seats free (decimal)
fp      host key fingerprint (hex)
id      table id (hex, optional)
======  ==========================================================

The TXT record is updated (:meth:`TableAnnouncement.update_seats`) when seats
change and the service is unregistered (:meth:`TableAnnouncement.close`) when
the table starts or closes.  :class:`TableBrowser` keeps a live view of the
tables on the network and calls back on every change.

Interfaces: ``interfaces="all"`` (every interface, the default),
``"default"`` (zeroconf's choice), ``"loopback"`` (127.0.0.1 only — used by
the tests; Linux delivers multicast over ``lo`` to sockets on the same host)
or an explicit list of local IPv4 addresses.  Multicast does not cross VPNs and
routers: there, peers connect by address (``--peer HOST:PORT``) and this module
is simply not needed.  Discovery is a convenience, never trusted: everything it
reports (fingerprint included) is checked by the session's signed handshake.
"""

from __future__ import annotations

import enum
import ipaddress
import logging
import re
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from zeroconf import (
    InterfaceChoice,
    IPVersion,
    ServiceBrowser,
    ServiceInfo,
    ServiceStateChange,
    Zeroconf,
)

from p2p.net._netutil import is_ipv4, local_ipv4_addresses
from p2p.text import safe_text

__all__ = [
    "SERVICE_TYPE",
    "TableAnnouncement",
    "TableBrowser",
    "TableChange",
    "TableInfo",
    "announce_table",
    "browse_tables",
    "make_zeroconf",
]

log = logging.getLogger("p2p.discovery")

SERVICE_TYPE = "_millebornes._tcp.local."
TXT_VERSION = "1"
Interfaces = str | Sequence[str]


class TableChange(enum.Enum):
    ADDED = "added"
    UPDATED = "updated"
    REMOVED = "removed"


@dataclass(frozen=True)
class TableInfo:
    """One announced table, as seen by a browser."""

    service_name: str  # full DNS-SD instance name (unique key)
    name: str
    rules: str
    seats_taken: int
    seats_free: int
    fingerprint: str
    port: int
    addresses: tuple[str, ...]
    table_id: str = ""
    curve_key: bytes | None = None   # TXT "ck": the host's CURVE key (a hint, like fp)

    @property
    def endpoint(self) -> str:
        """Transport endpoint of the host (first address).  A browser never lists a table
        without an address (it would have to guess one)."""
        if not self.addresses:
            raise ValueError(f"the table {self.name!r} announced no address")
        return f"tcp://{self.addresses[0]}:{self.port}"

    @property
    def endpoints(self) -> list[str]:
        return [f"tcp://{a}:{self.port}" for a in self.addresses]


def make_zeroconf(interfaces: Interfaces = "all") -> Zeroconf:
    """A Zeroconf instance on the chosen interfaces (see module docstring)."""
    if isinstance(interfaces, str):
        if interfaces == "all":
            return Zeroconf(interfaces=InterfaceChoice.All, ip_version=IPVersion.V4Only)
        if interfaces == "default":
            return Zeroconf(interfaces=InterfaceChoice.Default, ip_version=IPVersion.V4Only)
        if interfaces == "loopback":
            return Zeroconf(interfaces=["127.0.0.1"], ip_version=IPVersion.V4Only)
        interfaces = [interfaces]
    addrs = list(interfaces)
    if not addrs or not all(is_ipv4(a) for a in addrs):
        raise ValueError(f"interfaces must be 'all', 'default', 'loopback' or IPv4s: {addrs}")
    return Zeroconf(interfaces=addrs, ip_version=IPVersion.V4Only)


def _announce_addresses(interfaces: Interfaces, addresses: Sequence[str] | None) -> list[str]:
    if addresses:
        return list(addresses)
    if interfaces == "loopback":
        return ["127.0.0.1"]
    if not isinstance(interfaces, str):
        return list(interfaces)
    return local_ipv4_addresses() or ["127.0.0.1"]


def _label(text: str, limit: int) -> str:
    """Something safe for a DNS label: no dots, no control characters, bounded bytes."""
    t = re.sub(r"[\x00-\x1f.\\]", "_", text).strip() or "table"
    b = t.encode()[:limit]
    return b.decode("utf-8", "ignore")


def _txt(
    name: str, rules: str, taken: int, free: int, fingerprint: str, table_id: str,
    curve_key: bytes | None = None,
) -> dict[str, str]:
    out = {
        "v": TXT_VERSION,
        "name": name.encode()[:60].decode("utf-8", "ignore"),
        "rules": rules[:200],
        "taken": str(int(taken)),
        "free": str(int(free)),
        "fp": fingerprint[:128],
        "id": table_id[:64],
    }
    if curve_key is not None:
        out["ck"] = curve_key.hex()
    return out


class TableAnnouncement:
    """A registered table; keep it while the table is open in the lobby."""

    def __init__(
        self,
        *,
        name: str,
        rules: str,
        seats_taken: int,
        seats_free: int,
        fingerprint: str,
        port: int,
        table_id: str = "",
        addresses: Sequence[str] | None = None,
        interfaces: Interfaces = "all",
        zeroconf: Zeroconf | None = None,
        curve_key: bytes | None = None,
    ) -> None:
        if not 0 < port < 65536:
            raise ValueError("port must be 1..65535")
        self._own_zc = zeroconf is None
        self._zc = zeroconf if zeroconf is not None else make_zeroconf(interfaces)
        self._lock = threading.Lock()
        self._name, self._rules, self._fp, self._table_id = name, rules, fingerprint, table_id
        self._taken, self._free = seats_taken, seats_free
        self._curve_key = curve_key
        self._addresses = _announce_addresses(interfaces, addresses)
        fp8 = _label(fingerprint, 16)[:8] or "0"
        self._instance = f"{_label(name, 40)} ({fp8}).{SERVICE_TYPE}"
        self._server = f"mb-{_label(fingerprint, 12) or 'host'}.local."
        self._port = port
        self._info = self._make_info()
        self._closed = False
        try:
            self._zc.register_service(self._info, allow_name_change=True)
        except Exception:
            if self._own_zc:
                self._zc.close()
            raise

    def _make_info(self) -> ServiceInfo:
        return ServiceInfo(
            SERVICE_TYPE,
            self._instance,
            addresses=[socket.inet_aton(a) for a in self._addresses],
            port=self._port,
            properties=_txt(
                self._name, self._rules, self._taken, self._free, self._fp, self._table_id,
                self._curve_key,
            ),
            server=self._server,
        )

    @property
    def service_name(self) -> str:
        return str(self._info.name)

    def update_seats(self, seats_taken: int, seats_free: int) -> None:
        """Re-announce the TXT record with the new seat counts."""
        with self._lock:
            if self._closed:
                return
            self._taken, self._free = seats_taken, seats_free
            self._instance = self._info.name  # keep any name change from probing
            self._info = self._make_info()
            self._zc.update_service(self._info)

    def close(self) -> None:
        """Unregister (the table started or closed).  Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        try:
            self._zc.unregister_service(self._info)
        finally:
            if self._own_zc:
                self._zc.close()

    def __enter__(self) -> TableAnnouncement:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def announce_table(
    *,
    name: str,
    rules: str,
    seats_taken: int,
    seats_free: int,
    fingerprint: str,
    port: int,
    table_id: str = "",
    addresses: Sequence[str] | None = None,
    interfaces: Interfaces = "all",
    zeroconf: Zeroconf | None = None,
    curve_key: bytes | None = None,
) -> TableAnnouncement:
    """Register a table on the LAN; returns the handle to update or withdraw it.
    ``curve_key``: the host's CURVE transport key, published as TXT ``ck`` (hex) so a
    joiner can open a CURVE connection without asking the key door."""
    return TableAnnouncement(
        name=name,
        rules=rules,
        seats_taken=seats_taken,
        seats_free=seats_free,
        fingerprint=fingerprint,
        port=port,
        table_id=table_id,
        addresses=addresses,
        interfaces=interfaces,
        zeroconf=zeroconf,
        curve_key=curve_key,
    )


def _decode(props: dict[Any, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in props.items():
        ks = k.decode("utf-8", "replace") if isinstance(k, bytes) else str(k)
        if v is None:
            vs = ""
        elif isinstance(v, bytes):
            vs = v.decode("utf-8", "replace")
        else:
            vs = str(v)
        out[ks] = vs
    return out


def _to_int(text: str | None) -> int:
    t = (text or "0")[:4]
    return int(t) if t.isascii() and t.isdigit() else 0


def parse_service_info(info: ServiceInfo) -> TableInfo | None:
    """TableInfo from a resolved ServiceInfo, or None if it is not one of ours."""
    if info.port is None:
        return None
    txt = _decode(info.properties or {})
    if txt.get("v") != TXT_VERSION:
        return None
    # every TXT field is another machine's text: sanitised here, once, for every screen
    addrs = tuple(a for a in info.parsed_addresses() if is_ipv4(a) and _usable(a))
    if not addrs or not 0 < int(info.port) < 65536:
        return None          # no address we could connect to: not a table we can join
    fp = txt.get("fp", "")
    table_id = txt.get("id", "")
    ck = txt.get("ck", "")
    return TableInfo(
        service_name=safe_text(str(info.name), 120),
        name=safe_text(txt.get("name", ""), 60, placeholder=""),
        rules=safe_text(txt.get("rules", ""), 120, placeholder=""),
        seats_taken=min(_to_int(txt.get("taken")), 99),
        seats_free=min(_to_int(txt.get("free")), 99),
        fingerprint=fp if _FP.fullmatch(fp) else "",
        port=int(info.port),
        addresses=addrs,
        table_id=table_id if _HEX_ID.fullmatch(table_id) else "",
        curve_key=bytes.fromhex(ck) if _CURVE_HEX.fullmatch(ck) else None,
    )


_FP = re.compile(r"[A-Z2-7]{5}-[A-Z2-7]{5}|[0-9a-f]{8,64}")
#: A browser lists at most this many tables (a flood of announcements stays bounded).
MAX_TABLES = 256
_HEX_ID = re.compile(r"[0-9a-f]{1,64}")
_CURVE_HEX = re.compile(r"[0-9a-f]{64}")


def _usable(addr: str) -> bool:
    ip = ipaddress.IPv4Address(addr)
    return not (ip.is_multicast or ip.is_unspecified or ip.is_reserved)


TableCallback = Callable[[TableChange, TableInfo], None]


class TableBrowser:
    """Live view of the tables announced on the network.

    ``callback(change, table)`` runs on zeroconf's browser thread; keep it short
    (e.g. hand over to the UI with ``loop.call_soon_threadsafe``)."""

    def __init__(
        self,
        callback: TableCallback | None = None,
        *,
        interfaces: Interfaces = "all",
        zeroconf: Zeroconf | None = None,
        resolve_timeout: float = 2.0,
    ) -> None:
        self._callback = callback
        self._own_zc = zeroconf is None
        self._zc = zeroconf if zeroconf is not None else make_zeroconf(interfaces)
        self._tables: dict[str, TableInfo] = {}
        self._cond = threading.Condition()
        self._timeout_ms = int(resolve_timeout * 1000)
        self._closed = False
        self._browser = ServiceBrowser(self._zc, SERVICE_TYPE, handlers=[self._on_change])

    def _on_change(
        self,
        zeroconf: Zeroconf,
        service_type: str,
        name: str,
        state_change: ServiceStateChange,
    ) -> None:
        if self._closed:
            return
        change: TableChange
        table: TableInfo | None
        if state_change is ServiceStateChange.Removed:
            with self._cond:
                table = self._tables.pop(name, None)
                self._cond.notify_all()
            change = TableChange.REMOVED
        else:
            try:
                info = zeroconf.get_service_info(service_type, name, timeout=self._timeout_ms)
            except Exception:
                # the name is any machine's on the LAN: one clean line in the log
                log.exception("could not resolve %s", safe_text(name, 120))
                return
            table = parse_service_info(info) if info is not None else None
            if table is None:
                log.info("ignoring unresolvable or foreign service %s", safe_text(name, 120))
                return
            with self._cond:
                if name not in self._tables and len(self._tables) >= MAX_TABLES:
                    log.warning("more than %d tables announced: ignoring %s", MAX_TABLES,
                                safe_text(name, 60))
                    return
                change = TableChange.UPDATED if name in self._tables else TableChange.ADDED
                self._tables[name] = table
                self._cond.notify_all()
        if table is not None and self._callback is not None:
            try:
                self._callback(change, table)
            except Exception:
                log.exception("table browser callback failed")

    def snapshot(self) -> list[TableInfo]:
        """The tables currently visible, sorted by name."""
        with self._cond:
            return sorted(self._tables.values(), key=lambda t: (t.name, t.service_name))

    def wait_for(
        self, predicate: Callable[[list[TableInfo]], bool], timeout: float
    ) -> list[TableInfo] | None:
        """Block until ``predicate(snapshot)`` holds; returns that snapshot or None."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                snap = sorted(self._tables.values(), key=lambda t: (t.name, t.service_name))
                if predicate(snap):
                    return snap
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(left)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._browser.cancel()
        if self._own_zc:
            self._zc.close()

    def __enter__(self) -> TableBrowser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def browse_tables(
    callback: TableCallback | None = None,
    *,
    interfaces: Interfaces = "all",
    zeroconf: Zeroconf | None = None,
) -> TableBrowser:
    """Start browsing; see :class:`TableBrowser`."""
    return TableBrowser(callback, interfaces=interfaces, zeroconf=zeroconf)
