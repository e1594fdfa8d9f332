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
fp      host key fingerprint (``XXXXX-XXXXX``, as the game prints it)
id      table id (hex, optional)
ck      the host's CURVE transport key (hex, optional)
pk      the host's signing key (hex, Ed25519), whose fingerprint ``fp`` is
seq     the announcement's number: the host's clock in microseconds when it
        signed it, larger at each update (decimal)
sig     Ed25519 signature by ``pk`` of every field above and the port
======  ==========================================================

A signed announcement (``pk``, ``seq``, ``sig``) cannot be made by another machine; it
can be copied, also to another address, and announced again later. A joiner's browser
that looks for a table (``wanted``) keeps a table whose fingerprint's key signed it over
copies left unsigned or signed earlier (:data:`MAX_WANTED`): copies announced before the
table filled the places and kept it out.

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

Every record is another machine's: a browser lists no loopback, unspecified,
multicast or reserved address (nor a link-local one, unless this host has one),
except when it browses on the loopback only; it never waits on the network on
its own thread (names that are not complete in zeroconf's cache are resolved by
a few resolver threads, a bounded number at a time, and a name that did not
resolve is not asked again for :data:`RETRY_AFTER` seconds); it lists at most
:data:`MAX_TABLES` tables and :data:`MAX_TABLES_PER_ADDRESS` per host address,
and counts the rest (:attr:`TableBrowser.ignored`); the changes waiting for its own thread
are bounded too (:data:`MAX_QUEUED`, :data:`CHANGES_PER_S`: zeroconf's threaded browser
queued them without bound under a flood).
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import enum
import ipaddress
import logging
import queue
import re
import socket
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from zeroconf import (
    EventLoopBlocked,
    InterfaceChoice,
    IPVersion,
    NonUniqueNameException,
    RecordUpdate,
    RecordUpdateListener,
    ServiceInfo,
    ServiceStateChange,
    Zeroconf,
)
from zeroconf.asyncio import AsyncServiceBrowser

from p2p.crypto.identity import fingerprint as key_fingerprint
from p2p.crypto.identity import verify_signature
from p2p.net._netutil import is_ipv4, local_ipv4_addresses
from p2p.net.budget import TokenBucket
from p2p.text import safe_text

__all__ = [
    "SERVICE_TYPE",
    "TableAnnouncement",
    "TableBrowser",
    "TableChange",
    "TableInfo",
    "announce_table",
    "browse_tables",
    "instance_matcher",
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
    #: every usable address of the record (at most MAX_ADDRESSES), first seen first: an
    #: address another machine adds later comes after the ones already listed
    addresses: tuple[str, ...]
    table_id: str = ""
    curve_key: bytes | None = None   # TXT "ck": the host's CURVE key (a hint, like fp)
    #: the announcement's number (TXT ``seq``) when the key of :attr:`fingerprint` signed
    #: it (TXT ``pk``, ``sig``): the table is that key's, or a copy of a record it made;
    #: None when unsigned or the signature does not hold
    signed_seq: int | None = None
    #: whether the record came under a service name its host gives it (announce_table:
    #: ``"NAME (FINGERP…)"`` from the record's own name and fingerprint, or its ``-2``,
    #: ``-3``): a copy of the record announced by another machine comes under another
    #: name (see TableBrowser._outranked)
    own_name: bool = False

    @property
    def endpoint(self) -> str:
        """Transport endpoint of the host (first address).  A browser never lists a table
        without an address (it would have to guess one)."""
        if not self.addresses:
            raise ValueError(f"the table {self.name!r} announced no address")
        return f"tcp://{self.addresses[0]}:{self.port}"

    @property
    def endpoints(self) -> tuple[str, ...]:
        """Every address as an endpoint, :attr:`endpoint` first: any machine on the LAN can
        add an address to a record, so a joiner tries each in turn (the handshake checks
        the host's key at each)."""
        return tuple(f"tcp://{a}:{self.port}" for a in self.addresses)


#: Zeroconf instances made by :func:`make_zeroconf` on loopback interfaces only: a browser
#: on one of them accepts loopback addresses in records (they come from this host).
_LOOPBACK_ZC: weakref.WeakSet[Zeroconf] = weakref.WeakSet()


def _loopback_only(interfaces: Interfaces) -> bool:
    if isinstance(interfaces, str):
        if interfaces in ("all", "default"):
            return False
        if interfaces == "loopback":
            return True
        interfaces = [interfaces]
    addrs = list(interfaces)
    return bool(addrs) and all(is_ipv4(a) and ipaddress.IPv4Address(a).is_loopback
                               for a in addrs)


def make_zeroconf(interfaces: Interfaces = "all") -> Zeroconf:
    """A Zeroconf instance on the chosen interfaces (see module docstring)."""
    zc = _make_zeroconf(interfaces)
    if _loopback_only(interfaces):
        _LOOPBACK_ZC.add(zc)
    return zc


def _make_zeroconf(interfaces: Interfaces) -> Zeroconf:
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


def _instance_name(name: str, fingerprint: str) -> str:
    """The service name announce_table gives a table called ``name`` hosted by the key of
    ``fingerprint``, when no other table has it."""
    return f"{_label(name, 40)} ({_label(fingerprint, 16)[:8] or '0'}).{SERVICE_TYPE}"


def _own_names(name: str, fingerprint: str) -> tuple[str, ...]:
    """The service names announce_table may give a table called ``name`` hosted by the key
    of ``fingerprint``: :func:`_instance_name`, then its ``-2`` and ``-3`` when another
    machine answered for the first (:data:`NAME_TRIES`). A host pushed to ``-2`` read as a
    copy under another name, and copies of its record were not outranked by it."""
    first = _instance_name(name, fingerprint)[:-len(SERVICE_TYPE) - 1]
    return tuple(f"{label}.{SERVICE_TYPE}" for label in
                 [first] + [f"{first}-{n}" for n in range(2, NAME_TRIES + 1)])


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


#: What a table's announcement signature is over, after this tag (domain separation).
_ANNOUNCE_TAG = b"millebornes/table-announcement/v1\x00"
#: The TXT fields a signature covers, in this order, then the port.
_SIGNED_FIELDS = ("v", "name", "rules", "taken", "free", "fp", "id", "ck", "pk", "seq")


def _signed_bytes(fields: dict[str, bytes], port: int) -> bytes:
    """The bytes an announcement's ``sig`` signs: each covered TXT value, as sent, length
    first (no value can pass for two), then the port."""
    out = [_ANNOUNCE_TAG]
    for key in _SIGNED_FIELDS:
        value = fields.get(key, b"")
        out.append(len(value).to_bytes(2, "big") + value)
    out.append(port.to_bytes(2, "big"))
    return b"".join(out)


def _signed_txt(txt: dict[str, str], port: int, public_key: bytes, seq: int,
                sign: Callable[[bytes], bytes]) -> dict[str, str]:
    """``txt`` with the host's key, the announcement's number and its signature."""
    out = {**txt, "pk": public_key.hex(), "seq": str(seq)}
    fields = {k: v.encode() for k, v in out.items()}
    out["sig"] = sign(_signed_bytes(fields, port)).hex()
    return out


def _raw_txt(props: dict[Any, Any]) -> dict[str, bytes]:
    """The TXT values as they came (bytes), by key: what a signature was made over."""
    out: dict[str, bytes] = {}
    for k, v in props.items():
        key = k.decode("utf-8", "replace") if isinstance(k, bytes) else str(k)
        out[key] = v if isinstance(v, bytes) else b"" if v is None else str(v).encode()
    return out


#: ``seq`` as a host writes it: its clock in microseconds (at most 20 digits)
_SEQ = re.compile(rb"[0-9]{1,20}")
_KEY_HEX = re.compile(rb"[0-9a-f]{64}")
_SIG_HEX = re.compile(rb"[0-9a-f]{128}")


def _signed_seq(raw: dict[str, bytes], port: int, fp: str) -> int | None:
    """The announcement's number if the key whose fingerprint is ``fp`` signed it, else
    None (no signature, another key's, or one that does not hold)."""
    pk, seq, sig = raw.get("pk", b""), raw.get("seq", b""), raw.get("sig", b"")
    if not (fp and _KEY_HEX.fullmatch(pk) and _SEQ.fullmatch(seq)
            and _SIG_HEX.fullmatch(sig)):
        return None
    key = bytes.fromhex(pk.decode())
    if key_fingerprint(key) != fp:
        return None
    if not verify_signature(key, bytes.fromhex(sig.decode()), _signed_bytes(raw, port)):
        return None
    return int(seq)


class Signer(Protocol):
    """What signs a table's announcement: the host's identity
    (:class:`p2p.crypto.identity.Identity`)."""

    public_key: bytes

    def sign(self, data: bytes) -> bytes: ...


class TableAnnouncement:
    """A registered table; keep it while the table is open in the lobby. With a
    ``signer`` (the host's identity, whose fingerprint ``fingerprint`` is) every record
    it announces is signed (TXT ``pk``, ``seq``, ``sig``)."""

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
        signer: Signer | None = None,
    ) -> None:
        if not 0 < port < 65536:
            raise ValueError("port must be 1..65535")
        if signer is not None and key_fingerprint(signer.public_key) != fingerprint:
            raise ValueError("the signer's key is not the one of the fingerprint announced")
        self._signer = signer
        self._seq = 0
        self._own_zc = zeroconf is None
        self._zc = zeroconf if zeroconf is not None else make_zeroconf(interfaces)
        self._lock = threading.Lock()
        self._name, self._rules, self._fp, self._table_id = name, rules, fingerprint, table_id
        self._taken, self._free = seats_taken, seats_free
        self._curve_key = curve_key
        self._addresses = _announce_addresses(interfaces, addresses)
        self._server = f"mb-{_label(fingerprint, 12) or 'host'}.local."
        self._port = port
        self._closed = False
        try:
            self._register([n[:-len(SERVICE_TYPE) - 1] for n in _own_names(name, fingerprint)])
        except Exception:
            if self._own_zc:
                self._zc.close()
            raise

    def _register(self, labels: list[str]) -> None:
        """Register the table under the first of ``labels`` no other machine answers for.
        zeroconf's own renaming (``allow_name_change``) went on as long as answers came: a
        machine answering every probe had it try 7,956 names, and the registration ended
        after 11.7 s in ``EventLoopBlocked``, a silent wait and an error without words."""
        for label in labels:
            self._instance = f"{label}.{SERVICE_TYPE}"
            self._info = self._make_info()
            try:
                self._zc.register_service(self._info)
                return
            except NonUniqueNameException:
                continue
            except EventLoopBlocked:
                raise OSError(f"zeroconf did not finish announcing the table as "
                              f"{safe_text(label, 60)!r} in time") from None
        raise OSError("another machine on the LAN answers for every name tried for the "
                      "table: " + ", ".join(repr(safe_text(x, 60)) for x in labels))

    def _make_info(self) -> ServiceInfo:
        txt = _txt(self._name, self._rules, self._taken, self._free, self._fp,
                   self._table_id, self._curve_key)
        if self._signer is not None:
            # the clock, not a count: a record this host signed earlier (another table's,
            # yesterday's) has a smaller number, whatever this process remembers
            self._seq = max(self._seq + 1, time.time_ns() // 1000)
            txt = _signed_txt(txt, self._port, self._signer.public_key, self._seq,
                              self._signer.sign)
        return ServiceInfo(
            SERVICE_TYPE,
            self._instance,
            addresses=[socket.inet_aton(a) for a in self._addresses],
            port=self._port,
            properties=txt,
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
    signer: Signer | None = None,
) -> TableAnnouncement:
    """Register a table on the LAN; returns the handle to update or withdraw it.
    ``curve_key``: the host's CURVE transport key, published as TXT ``ck`` (hex) so a
    joiner can open a CURVE connection without asking the key door. ``signer``: the
    host's identity, which signs every record (a joiner's browser keeps the table over
    copies of it announced before it)."""
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
        signer=signer,
    )


def _decode(props: dict[Any, Any]) -> dict[str, str]:
    return {k: v.decode("utf-8", "replace") for k, v in _raw_txt(props).items()}


def _to_int(text: str | None) -> int:
    t = (text or "0")[:4]
    return int(t) if t.isascii() and t.isdigit() else 0


def parse_service_info(
    info: ServiceInfo, *, loopback: bool = False, link_local: bool = False
) -> TableInfo | None:
    """TableInfo from a resolved ServiceInfo, or None if it is not one of ours (or has no
    usable address).  ``loopback``/``link_local``: accept those addresses (a browser on
    the loopback only, a host with a link-local address); addresses keep zeroconf's
    order."""
    if info.port is None:
        return None
    txt = _decode(info.properties or {})
    if txt.get("v") != TXT_VERSION:
        return None
    # every TXT field is another machine's text: sanitised here, once, for every screen
    addrs = tuple(a for a in info.parsed_addresses(IPVersion.V4Only)
                  if is_ipv4(a) and _usable(a, loopback=loopback, link_local=link_local))
    if not addrs or not 0 < int(info.port) < 65536:
        return None          # no address we could connect to: not a table we can join
    fp = txt.get("fp", "")
    fp = fp if _FP.fullmatch(fp) else ""
    table_id = txt.get("id", "")
    ck = txt.get("ck", "")
    return TableInfo(
        service_name=safe_text(str(info.name), 120),
        name=safe_text(txt.get("name", ""), 60, placeholder=""),
        rules=safe_text(txt.get("rules", ""), 120, placeholder=""),
        seats_taken=min(_to_int(txt.get("taken")), 99),
        seats_free=min(_to_int(txt.get("free")), 99),
        fingerprint=fp,
        port=int(info.port),
        addresses=addrs,
        table_id=table_id if _HEX_ID.fullmatch(table_id) else "",
        curve_key=bytes.fromhex(ck) if _CURVE_HEX.fullmatch(ck) else None,
        signed_seq=_signed_seq(_raw_txt(info.properties or {}), int(info.port), fp),
        own_name=str(info.name) in _own_names(txt.get("name", ""), fp),
    )


#: The fingerprint as p2p.crypto.identity.fingerprint makes it (base32, ``XXXXX-XXXXX``).
_FP = re.compile(r"[A-Z2-7]{5}-[A-Z2-7]{5}")
#: Names a table is announced under at most, ``NAME (FINGERP…)`` then ``…-2``, ``…-3``:
#: the first no other machine on the LAN answers for (a machine answering every probe
#: kept zeroconf renaming for 11.7 s).
NAME_TRIES = 3
#: A browser lists at most this many tables (a flood of announcements stays bounded).
MAX_TABLES = 256
#: ... and at most this many with the same (first) address: one machine cannot fill the
#: list.  Loopback addresses (a browser on the loopback only: this host) are not counted.
MAX_TABLES_PER_ADDRESS = 4
#: Valid tables left out by those limits are remembered (and listed when room is made),
#: up to this many; :attr:`TableBrowser.ignored` counts them.
MAX_IGNORED = 1024
#: Tables a joiner looks for (``wanted``) listed beyond those limits, at most: a flood of
#: made-up tables from made-up addresses filled the list first, and the one table the
#: player named was never seen (the join said no table was hosted).
MAX_WANTED = 16
#: A table keeps at most this many addresses (the first seen).
MAX_ADDRESSES = 8
#: Names resolved on the network (not complete in the cache) at most at once; the others
#: wait for their next record (zeroconf reports a name again when a record of it arrives).
MAX_RESOLVING = 16
#: Threads resolving those names (each waits at most the browser's resolve_timeout).
RESOLVERS = 4
#: A name that did not resolve is not asked on the network again for this long (seconds).
RETRY_AFTER = 30.0
#: Names remembered as not resolving (the oldest forgotten first).
MAX_FAILED = 1024
#: Names whose change waits for the browser's own thread, at most (a flood's oldest are
#: forgotten first: the next record of a name brings it back).
MAX_QUEUED = 256
#: For how long (seconds) after changes were last forgotten the browser keeps a listed
#: table whose look-up failed (see :meth:`TableBrowser._flooded`).
FLOODED_FOR = 10.0
#: How long (seconds) the browser waits for zeroconf's event loop to start or stop its
#: browser, and for its own thread to end.
LOOP_WAIT = 5.0
#: Changes zeroconf's loop hands over to the browser's thread, at most, before it sorts
#: them out (the oldest forgotten).
INBOX = 4096
#: Changes of names not listed that the browser's thread looks at per second, at most.
CHANGES_PER_S = 500.0
_HEX_ID = re.compile(r"[0-9a-f]{1,64}")
_CURVE_HEX = re.compile(r"[0-9a-f]{64}")
_THIS_NETWORK = ipaddress.IPv4Network("0.0.0.0/8")


def _usable(addr: str, *, loopback: bool = False, link_local: bool = False) -> bool:
    """An address a joiner may connect to.  A record announced by another machine with
    127.0.0.1 (or 169.254.169.254) would send the joiner to its own host."""
    ip = ipaddress.IPv4Address(addr)
    if ip.is_loopback:
        return loopback
    if ip.is_link_local:
        return link_local
    return not (ip.is_multicast or ip.is_unspecified or ip.is_reserved or ip in _THIS_NETWORK)


def _signed_over(name: str, old: TableInfo, table: TableInfo) -> bool:
    """Whether ``table``, a record of the service ``name``, describes it in place of
    ``old``, which its key signed: a record of that key signed as late or later, or one
    the key whose fingerprint the name carries signed (announce_table names an instance
    ``"NAME (FINGERP…)"``) when ``old``'s key is not that one. Numbers are compared with
    the same key's only: a record another machine's key signed, numbered 10^20 - 1, under
    a table's own name, had the host's own records (its clock) ignored for good."""
    if table.signed_seq is None or old.signed_seq is None:
        return False
    if table.fingerprint == old.fingerprint:
        return table.signed_seq >= old.signed_seq
    return (instance_matcher(fingerprint=table.fingerprint)(name)
            and not instance_matcher(fingerprint=old.fingerprint)(name))


def _first_seen_first(old: tuple[str, ...], new: tuple[str, ...]) -> tuple[str, ...]:
    """The addresses of ``new`` with those of ``old`` first, in their old order."""
    kept = [a for a in old if a in new]
    return tuple(kept + [a for a in new if a not in kept])[:MAX_ADDRESSES]


TableCallback = Callable[[TableChange, TableInfo], None]


class _Resolvers:
    """A few daemon threads running jobs (network look-ups); never the browser's thread.
    Daemon threads: a look-up still waiting when the program ends does not hold it."""

    def __init__(self, workers: int) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._workers = workers
        self._threads: list[threading.Thread] = []

    def submit(self, job: Callable[[], None]) -> None:
        if len(self._threads) < self._workers:
            t = threading.Thread(target=self._run, name="mb-discovery-resolve", daemon=True)
            self._threads.append(t)
            t.start()
        self._jobs.put(job)

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            try:
                job()
            except Exception:  # pragma: no cover - jobs catch their own errors
                log.exception("discovery resolver failed")

    def close(self) -> None:
        for _ in self._threads:
            self._jobs.put(None)


#: the DNS record type of a PTR (RFC 1035), which names a service instance
_PTR = 12


class _WantedSpotter(RecordUpdateListener):
    """Sees every record zeroconf receives, in its event loop and before its cache: a
    PTR naming a service the browser looks for is handed to the browser at once (never
    waiting: :meth:`TableBrowser._spot`). A flood of other announcements kept the
    ServiceBrowser's own queue of changes seconds long, and evicted the table's records
    from the cache before that queue reached them."""

    def __init__(self, browser: TableBrowser, wanted: Callable[[str], bool]) -> None:
        self._browser = weakref.ref(browser)
        self._wanted = wanted
        self._key = SERVICE_TYPE.lower()

    def async_update_records(self, zc: Zeroconf, now: float,
                             records: list[RecordUpdate]) -> None:
        for update in records:
            r = update.new
            # a PTR record (type 12, RFC 1035) naming a service of ours; by its type
            # number, as zeroconf exports no name for its record classes
            alias = getattr(r, "alias", None)
            if r.type == _PTR and isinstance(alias, str) and r.key == self._key \
                    and r.ttl > 0 and self._wanted(alias):
                browser = self._browser()
                if browser is not None:
                    browser._spot(alias)

    def async_update_records_complete(self) -> None:
        pass


#: the DNS record type of a TXT (RFC 1035), which carries a table's description
_TXT = 16


def _complete(info: ServiceInfo) -> bool:
    """Whether ``info`` has its SRV (port), TXT and address records: zeroconf's cache may
    give one without some of them (evicted by a flood), which is no answer yet."""
    return (info.port is not None and bool(info.text)
            and bool(info.parsed_addresses(IPVersion.V4Only)))


def _in_loop(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether this thread runs ``loop`` (waiting there on the loop would never end)."""
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


class _NewsSpotter(RecordUpdateListener):
    """Sees every record zeroconf receives, in its event loop and before its cache: a TXT
    record of a listed table (its seats, its name) is handed to the browser as it comes.
    A flood evicted the table's other records from the cache before the browser looked,
    and kept its look-ups from being answered: the news never reached the list. Its
    goodbye (TTL 0) asks the host whether the table is still there
    (:meth:`TableBrowser._check_gone`)."""

    def __init__(self, browser: TableBrowser) -> None:
        self._browser = weakref.ref(browser)

    def async_update_records(self, zc: Zeroconf, now: float,
                             records: list[RecordUpdate]) -> None:
        browser = self._browser()
        if browser is None:
            return
        for update in records:
            r = update.new
            if r.type != _TXT:
                continue
            name = browser._listed_keys.get(r.key)
            if name is not None and r.ttl <= 0:
                # its goodbye: the host is asked whether it still answers (zeroconf reports
                # no goodbye of a PTR another machine's goodbye already took from its
                # cache: the table stayed listed after its host closed)
                browser._queue_change(zc, SERVICE_TYPE, name, ServiceStateChange.Removed)
                continue
            text = getattr(r, "text", None)
            if name is not None and isinstance(text, bytes):
                browser._queue_news(name, text)

    def async_update_records_complete(self) -> None:
        pass


class TableBrowser:
    """Live view of the tables announced on the network.

    ``callback(change, table)`` runs on a discovery thread (zeroconf's browser thread or a
    resolver thread), one call at a time, in the order of the changes; keep it short
    (e.g. hand over to the UI with ``loop.call_soon_threadsafe``).

    :attr:`ignored` counts the valid tables not listed because of :data:`MAX_TABLES` or
    :data:`MAX_TABLES_PER_ADDRESS`."""

    #: None once closed (and on an object not made by __init__): names that are not in the
    #: cache are then ignored
    _resolvers: _Resolvers | None = None
    _wanted_names: Callable[[str], bool] | None = None
    _spotter: _WantedSpotter | None = None

    def __init__(
        self,
        callback: TableCallback | None = None,
        *,
        interfaces: Interfaces = "all",
        zeroconf: Zeroconf | None = None,
        resolve_timeout: float = 2.0,
        max_tables: int | None = None,
        max_per_address: int | None = None,
        wanted: Callable[[TableInfo], bool] | None = None,
        wanted_names: Callable[[str], bool] | None = None,
    ) -> None:
        """``wanted``: the tables this browser looks for (a joiner's ``--table NAME``):
        up to :data:`MAX_WANTED` of them are listed even beyond the limits, so a flood of
        other announcements cannot hide the one the player named. ``wanted_names``: the
        service names such a table may have (:func:`instance_matcher`): up to
        :data:`MAX_WANTED` of them are asked on the network by look-ups of their own, at
        each of their records, however busy the others are (a flood kept every look-up
        busy and evicted the table's records from zeroconf's cache as they came)."""
        self._callback = callback
        self._wanted = wanted
        self._wanted_names = wanted_names
        self._own_zc = zeroconf is None
        self._zc = zeroconf if zeroconf is not None else make_zeroconf(interfaces)
        # loopback addresses come from this host only when we listen on the loopback only
        self._loopback = self._zc in _LOOPBACK_ZC
        self._link_local = self._loopback or any(
            ipaddress.IPv4Address(a).is_link_local for a in local_ipv4_addresses())
        self._max_tables = MAX_TABLES if max_tables is None else max_tables
        self._max_per_address = (MAX_TABLES_PER_ADDRESS if max_per_address is None
                                 else max_per_address)
        self._tables: dict[str, TableInfo] = {}
        self._per_address: collections.Counter[str] = collections.Counter()
        self._ignored: collections.OrderedDict[str, TableInfo] = collections.OrderedDict()
        self._pending: dict[str, object] = {}          # name -> token of its look-up
        self._pending_wanted: set[str] = set()         # those of them asked as wanted
        self._pending_listed: set[str] = set()         # ... as listed (see _resolve_later)
        self._failed: collections.OrderedDict[str, float] = collections.OrderedDict()
        self._cond = threading.Condition()
        # one change (state and callback) at a time, whichever thread found it
        self._emit = threading.RLock()
        self._timeout_ms = int(resolve_timeout * 1000)
        self._closed = False
        self._said_full = self._said_busy = False
        self._resolvers = _Resolvers(RESOLVERS)
        self._wanted_resolvers = _Resolvers(RESOLVERS)
        self._listed_resolvers = _Resolvers(RESOLVERS)
        self._gone_resolvers = _Resolvers(RESOLVERS)
        #: listed tables whose goodbye came, their host being asked (see _check_gone)
        self._gone_asked: set[str] = set()
        self._spot_lock = threading.Lock()
        self._spotted: set[str] = set()     # wanted names waiting for a resolver thread
        self._spotter: _WantedSpotter | None = None
        if wanted_names is not None:
            self._spotter = _WantedSpotter(self, wanted_names)
            self._zc.add_listener(self._spotter, None)
        #: changes handed over by zeroconf's loop (see _queue_change), at most INBOX
        self._inbox: collections.deque[tuple[str, ServiceStateChange]] = \
            collections.deque(maxlen=INBOX)
        self._appended = self._taken = self._lost = 0
        self._wake = threading.Event()
        self._asleep = False
        #: changes of names waiting for the browser's thread (see _take_inbox)
        self._urgent: collections.OrderedDict[str, ServiceStateChange] = \
            collections.OrderedDict()
        self._changes: collections.OrderedDict[str, ServiceStateChange] = \
            collections.OrderedDict()
        #: listed tables' TXT records as they came (see _NewsSpotter), by name
        self._news: collections.OrderedDict[str, bytes] = collections.OrderedDict()
        #: the listed tables' names as zeroconf keys records (lower case)
        self._listed_keys: dict[str, str] = {}
        self._news_spotter = _NewsSpotter(self)
        self._zc.add_listener(self._news_spotter, None)
        #: changes forgotten because :data:`MAX_QUEUED` others were newer (a flood)
        self.forgotten = 0
        self._forgot_at = -FLOODED_FOR
        self._worker = threading.Thread(target=self._work, name="table-browser",
                                        daemon=True)
        self._worker.start()
        try:
            self._browser = self._start_browser()
        except BaseException:
            self._closed = True       # the thread ends; nothing else was started yet
            self._wake.set()
            if self._spotter is not None:
                self._zc.remove_listener(self._spotter)
            self._zc.remove_listener(self._news_spotter)
            if self._own_zc:
                self._zc.close()
            raise

    def _start_browser(self) -> AsyncServiceBrowser:
        """zeroconf's browser, in its event loop: its changes come to
        :meth:`_queue_change` there (zeroconf's threaded browser queued them without
        bound)."""
        handlers = [self._queue_change]

        async def start() -> AsyncServiceBrowser:
            return AsyncServiceBrowser(self._zc, SERVICE_TYPE, handlers=handlers)
        loop = self._zc.loop
        assert loop is not None
        if _in_loop(loop):
            return AsyncServiceBrowser(self._zc, SERVICE_TYPE, handlers=handlers)
        return asyncio.run_coroutine_threadsafe(start(), loop).result(LOOP_WAIT)

    @property
    def ignored(self) -> int:
        """How many valid tables are not listed because of the limits (one machine
        announcing many tables, or more than MAX_TABLES); at most MAX_IGNORED.  Takes no
        lock (a callback may read it)."""
        return len(self._ignored)

    def _on_change(
        self,
        zeroconf: Zeroconf,
        service_type: str,
        name: str,
        state_change: ServiceStateChange,
    ) -> None:
        if self._closed:
            return
        if state_change is ServiceStateChange.Removed:
            with self._emit:
                self._unpend(name)
                self._ignored.pop(name, None)
                if name in self._tables and self._resolvers is not None:
                    # a goodbye is any machine's packet: the host is asked first, once
                    # at a time (goodbyes sent as fast as a machine can send them queued
                    # look-ups as fast)
                    if name not in self._gone_asked:
                        self._gone_asked.add(name)
                        self._gone_resolvers.submit(
                            lambda: self._check_gone(zeroconf, service_type, name))
                    return
                self._drop(name)
            return
        try:
            # from the cache only (timeout 0): this thread never waits on the network
            info = zeroconf.get_service_info(service_type, name, timeout=0)
        except Exception:
            # the name is any machine's on the LAN: one clean line in the log
            log.exception("could not resolve %s", safe_text(name, 120))
            return
        if info is None or not _complete(info):
            # not in the cache, or without some of its records (a flood evicts them): asked
            # on the network, and a look-up under way goes on (one cancelled by such a
            # record missed the table a joiner named, 2 runs in 7 once this thread kept up
            # with a flood)
            self._resolve_later(zeroconf, service_type, name)
            return
        with self._emit:
            if self._closed:
                return
            self._unpend(name)   # a look-up under way is now out of date
            self._apply(name, info)

    def _queue_change(self, zeroconf: Zeroconf, service_type: str, name: str,
                      state_change: ServiceStateChange) -> None:
        """A change zeroconf found, in its event loop: appended to a bounded inbox (the
        oldest forgotten past :data:`INBOX`) for the browser's own thread, which sorts it
        out (:meth:`_take_inbox`); as little as can be done here, since every moment the
        loop spends is one it does not read packets. zeroconf's own browser thread queued
        every change without bound: a flood of 20,000 names (40,000 announcements a
        second) grew it by 7,000 a second (2 MB/s) and its changes ran ever further
        behind, so that records were evicted from the cache before they were looked at
        and no table was listed (hostile pass 8)."""
        self._inbox.append((name, state_change))
        self._appended += 1
        if self._asleep:
            self._asleep = False
            self._wake.set()

    def _take_inbox(self) -> None:
        """The browser's thread: the inbox into the changes waiting, one per name (the
        latest), a listed or wanted table's apart, at most :data:`MAX_QUEUED` of the
        others (the oldest forgotten)."""
        wanted = self._wanted_names
        taken = 0
        while True:
            try:
                name, change = self._inbox.popleft()
            except IndexError:
                break
            taken += 1
            urgent = (name in self._tables or (wanted is not None and wanted(name))) \
                and len(self._urgent) < self._max_tables + MAX_WANTED
            changes = self._urgent if urgent else self._changes
            changes.pop(name, None)
            changes[name] = change
            if not urgent and len(changes) > MAX_QUEUED:
                changes.popitem(last=False)
                self._forget(1)
        self._taken += taken
        lost = self._appended - self._taken - len(self._inbox)
        if lost > self._lost:                  # the inbox itself overflowed
            self._forget(lost - self._lost)
            self._lost = lost

    def _forget(self, n: int) -> None:
        self.forgotten += n
        self._forgot_at = time.monotonic()

    def _queue_news(self, name: str, text: bytes) -> None:
        """A listed table's new TXT record (zeroconf's event loop: never waits), for the
        browser's thread, before any other change."""
        if self._closed or len(self._news) >= self._max_tables + MAX_WANTED:
            return
        self._news[name] = text          # (one thread, the loop, writes; dict ops are atomic)
        if self._asleep:
            self._asleep = False
            self._wake.set()

    def _apply_news(self, name: str, text: bytes) -> None:
        """A listed table's description from its TXT record as it came, at the port and
        addresses listed (those come from the cache or a look-up, as before)."""
        with self._emit:
            old = self._tables.get(name)
            if self._closed or old is None:
                return
            try:
                info = ServiceInfo(SERVICE_TYPE, name, port=old.port, properties=text,
                                   parsed_addresses=list(old.addresses))
            except Exception:  # another machine's record: one clean line in the log
                log.info("ignoring a record of %s that does not parse",
                         safe_text(name, 120))
                return
            self._apply(name, info)

    def _flooded(self) -> bool:
        """Whether changes were forgotten in the last :data:`FLOODED_FOR` seconds (more
        came than :data:`MAX_QUEUED` waiting: a flood, not a LAN's few tables)."""
        return time.monotonic() - self._forgot_at < FLOODED_FOR

    def _work(self) -> None:
        """The browser's own thread: the changes the loop handed over, the listed tables'
        news first, then their changes, then the newest of the others (its records are the
        likeliest to be still in the cache), those at most :data:`CHANGES_PER_S` a
        second."""
        budget = TokenBucket(CHANGES_PER_S, CHANGES_PER_S)
        while not self._closed:
            self._take_inbox()
            news: tuple[str, bytes] | None = None
            change: ServiceStateChange | None = None
            name = ""
            if self._news:
                try:
                    name = next(iter(self._news))
                    news = (name, self._news.pop(name))
                except (StopIteration, KeyError, RuntimeError):  # the loop wrote meanwhile
                    continue
            elif self._urgent:
                name, change = self._urgent.popitem(last=False)
            elif self._changes and budget.take(time.monotonic()):
                name, change = self._changes.popitem(last=True)
            else:
                # nothing to do: woken by the next change; or only changes over the
                # budget: a pause until it refills, not woken by each new one (a flood
                # kept this thread taking its inbox one change at a time, and the loop
                # short of the interpreter's time to read packets)
                idle = not self._changes
                self._asleep = idle
                if not (idle and (self._inbox or self._news)):
                    self._wake.wait(1.0 if idle else 1 / CHANGES_PER_S)
                self._wake.clear()
                self._asleep = False
                continue
            try:
                if news is not None:
                    self._apply_news(*news)
                elif change is not None:
                    self._on_change(self._zc, SERVICE_TYPE, name, change)
            except Exception:  # a bug here must not stop the browsing
                log.exception("table browser failed on %s", safe_text(name, 120))

    def _unpend(self, name: str) -> None:
        self._pending.pop(name, None)
        self._pending_wanted.discard(name)
        self._pending_listed.discard(name)

    def _spot(self, name: str) -> None:
        """A record named ``name``, a wanted name, just came (zeroconf's event loop: never
        waits). Looked at on a wanted resolver thread, as the ServiceBrowser would, at
        most :data:`MAX_WANTED` names waiting at once."""
        with self._spot_lock:
            if self._closed or name in self._spotted or len(self._spotted) >= MAX_WANTED:
                return
            self._spotted.add(name)
        self._wanted_resolvers.submit(lambda: self._spotted_now(name))

    def _spotted_now(self, name: str) -> None:
        with self._spot_lock:
            self._spotted.discard(name)
        if not self._closed and name not in self._tables:
            self._on_change(self._zc, SERVICE_TYPE, name, ServiceStateChange.Added)

    def _resolve_later(self, zeroconf: Zeroconf, service_type: str, name: str) -> None:
        """Ask the network for a name the cache cannot complete, on a resolver thread."""
        resolvers = self._resolvers
        if resolvers is None:
            log.info("ignoring unresolvable or foreign service %s", safe_text(name, 120))
            return
        with self._emit:
            if self._closed or name in self._pending:
                return
            if self._wanted_names is not None and self._wanted_names(name):
                # the name of a table the player looks for: look-ups of its own, asked
                # again at each record however recently it failed (its records may be
                # evicted from zeroconf's cache as they come, by a flood of others)
                if len(self._pending_wanted) >= MAX_WANTED:
                    return
                self._pending_wanted.add(name)
                token = self._pending[name] = object()
                resolvers = self._wanted_resolvers
            elif name in self._tables:
                # a listed table's news (its seats): look-ups of their own too, however
                # busy the others are with a flood's names (hostile pass 8: a flood of
                # 20,000 names evicted the table's records from the cache as they came,
                # and its news never reached the list)
                if len(self._pending_listed) >= MAX_WANTED:
                    return
                self._pending_listed.add(name)
                token = self._pending[name] = object()
                resolvers = self._listed_resolvers
            else:
                failed = self._failed.get(name)
                if failed is not None and time.monotonic() - failed < RETRY_AFTER:
                    log.debug("not asking again yet for %s", safe_text(name, 120))
                    return
                if len(self._pending) - len(self._pending_wanted) - len(self._pending_listed) \
                        >= MAX_RESOLVING:
                    if not self._said_busy:
                        self._said_busy = True
                        log.info("%d names being resolved: ignoring %s (and others) until "
                                 "their next record", MAX_RESOLVING, safe_text(name, 60))
                    return
                token = self._pending[name] = object()
        resolvers.submit(lambda: self._resolve(zeroconf, service_type, name, token))

    def _lookup(self, zeroconf: Zeroconf, service_type: str,
                name: str) -> ServiceInfo | None:
        """The record of ``name``: zeroconf's cache, else asked on the network for at most
        the browser's resolve_timeout; None if nobody answered (or zeroconf failed)."""
        try:
            return zeroconf.get_service_info(service_type, name, timeout=self._timeout_ms)
        except Exception:
            if not self._closed:
                log.exception("could not resolve %s", safe_text(name, 120))
            return None

    def _check_gone(self, zeroconf: Zeroconf, service_type: str, name: str) -> None:
        """A listed table's goodbye came (a resolver thread of its own): the table is
        unlisted only if its host does not answer (the cache, else the network, at most
        the browser's resolve_timeout). A goodbye is any machine's packet, and the host's
        signature cannot cover it: one copied from the host's own PTR record, sent after
        each of its answers, unlisted a table its key signed until the browser's next
        query (3 s, then ever longer apart), and a lobby said it closed."""
        info = self._lookup(zeroconf, service_type, name)
        with self._emit:
            self._gone_asked.discard(name)
            if self._closed or name not in self._tables:
                return
            if info is not None and _complete(info):
                self._apply(name, info)
                return
            log.info("%s said goodbye and did not answer within %.1f s: removed",
                     safe_text(name, 120), self._timeout_ms / 1000)
            self._ignored.pop(name, None)
            self._drop(name)

    def _resolve(self, zeroconf: Zeroconf, service_type: str, name: str,
                 token: object) -> None:
        info = self._lookup(zeroconf, service_type, name)
        with self._emit:
            if self._closed or self._pending.get(name) is not token:
                return            # removed, closed, or answered from the cache meanwhile
            wanted = name in self._pending_wanted
            listed = name in self._pending_listed
            self._unpend(name)
            if info is not None:
                self._apply(name, info)
                return
            if wanted or (listed and self._flooded()):
                # a listed table stays listed while a flood may have kept its answer from
                # us (its records evicted, the host's loop and our socket busy): a flood
                # of 20,000 names unlisted a table whose seats had just changed
                log.info("%s did not resolve within %.1f s: asked again at its next "
                         "record", safe_text(name, 120), self._timeout_ms / 1000)
                return
            self._failed[name] = time.monotonic()
            self._failed.move_to_end(name)
            while len(self._failed) > MAX_FAILED:
                self._failed.popitem(last=False)
            log.info("%s did not resolve within %.1f s: not asked again for %d s",
                     safe_text(name, 120), self._timeout_ms / 1000, int(RETRY_AFTER))
            self._ignored.pop(name, None)
            self._drop(name)      # a listed table whose record is incomplete is gone

    def _apply(self, name: str, info: ServiceInfo) -> None:
        """A resolved record of ``name``: list, update, leave out or remove it (under
        ``_emit``)."""
        self._failed.pop(name, None)
        table = parse_service_info(info, loopback=self._loopback, link_local=self._link_local)
        old = self._tables.get(name)
        if table is None:
            self._ignored.pop(name, None)
            if old is not None:
                log.info("%s no longer describes a table: removed", safe_text(name, 120))
                self._drop(name)
            else:
                log.info("ignoring unresolvable or foreign service %s", safe_text(name, 120))
            return
        # zeroconf lists the newest address first: the first seen stay first
        addrs = _first_seen_first(old.addresses if old is not None else (),
                                  table.addresses[::-1])
        table = dataclasses.replace(table, addresses=addrs)
        if old == table:
            return
        if old is not None and old.signed_seq is not None \
                and not _signed_over(name, old, table):
            # a listed table its key signed is described by a newer record of that key
            # only: another machine's record for its name (unsigned, or a copy of an
            # earlier one) would make it one a copy may take the place of
            log.info("ignoring a record of %s not signed after the one listed",
                     safe_text(name, 120))
            return
        if not self._fits(name, table):
            victim = self._outranked(name, table)
            if victim is None:
                self._drop(name)
                self._ignore(name, table)
                return
            # the places of the tables looked for are full of copies announced before
            # this one, which its key signed later: a copy makes room (listed again
            # when there is room)
            left = self._tables[victim]
            self._drop(victim, relist=False)
            self._ignore(victim, left)
        self._ignored.pop(name, None)
        self._put(name, table, TableChange.ADDED if old is None else TableChange.UPDATED)

    def _outranked(self, name: str, table: TableInfo) -> str | None:
        """A listed table looked for that ``table`` (looked for too, and signed by the key
        of its fingerprint) takes the place of: an unsigned one, else one its key signed
        earlier (the oldest of them), else, when ``table`` comes under its own name (see
        :attr:`TableInfo.own_name`), a copy of the same record under another name; None
        if none. Copies of a table's record announced before it (unsigned, or copies of
        the host's earlier records, or of its current one) filled the :data:`MAX_WANTED`
        places first come and kept the table itself out."""
        seq = table.signed_seq
        if seq is None or self._wanted is None or not self._wanted(table):
            return None
        unsigned: str | None = None
        earlier: tuple[int, str] | None = None
        for n, t in self._tables.items():
            if n == name or not self._wanted(t):
                continue
            if t.signed_seq is None:
                unsigned = unsigned or n
            elif t.fingerprint == table.fingerprint and (
                    t.signed_seq < seq or (t.signed_seq == seq and table.own_name
                                           and not t.own_name)) and (
                    earlier is None or t.signed_seq < earlier[0]):
                earlier = (t.signed_seq, n)
        if unsigned is not None:
            return unsigned
        return earlier[1] if earlier is not None else None

    def _source(self, table: TableInfo) -> str | None:
        """The address a table counts against (None: not counted)."""
        a = table.addresses[0]
        return None if ipaddress.IPv4Address(a).is_loopback else a

    def _fits(self, name: str, table: TableInfo) -> bool:
        old = self._tables.get(name)
        if self._wanted is not None and self._wanted(table):
            # the table looked for: listed beyond the limits (a bounded number of them)
            return sum(1 for n, t in self._tables.items()
                       if n != name and self._wanted(t)) < MAX_WANTED
        others = len(self._tables) - (old is not None)
        if others >= self._max_tables:
            return False
        src = self._source(table)
        if src is None:
            return True
        same = self._per_address[src] - (old is not None and self._source(old) == src)
        return same < self._max_per_address

    def _ignore(self, name: str, table: TableInfo) -> None:
        self._ignored[name] = table
        self._ignored.move_to_end(name)
        while len(self._ignored) > MAX_IGNORED:
            self._ignored.popitem(last=False)
        if not self._said_full:
            self._said_full = True
            log.warning("too many tables (at most %d, %d per address): ignoring %s and "
                        "any more", self._max_tables, self._max_per_address,
                        safe_text(name, 60))
        else:
            log.debug("ignoring table %s (limits)", safe_text(name, 60))

    def _put(self, name: str, table: TableInfo, change: TableChange) -> None:
        with self._cond:
            old = self._tables.get(name)
            if old is not None and (src := self._source(old)) is not None:
                self._per_address[src] -= 1
            self._tables[name] = table
            self._listed_keys[name.lower()] = name
            if (src := self._source(table)) is not None:
                self._per_address[src] += 1
            self._cond.notify_all()
        self._tell(change, table)

    def _drop(self, name: str, relist: bool = True) -> None:
        """Unlist ``name`` if listed (REMOVED), then (``relist``) list what now fits of
        the left out."""
        with self._cond:
            table = self._tables.pop(name, None)
            if table is None:
                return
            self._listed_keys.pop(name.lower(), None)
            if (src := self._source(table)) is not None:
                self._per_address[src] -= 1
                if self._per_address[src] <= 0:
                    del self._per_address[src]
            self._cond.notify_all()
        self._tell(TableChange.REMOVED, table)
        if not relist:
            return
        for other, t in list(self._ignored.items()):
            if len(self._tables) >= self._max_tables:
                break
            if other != name and self._fits(other, t):
                del self._ignored[other]
                self._put(other, t, TableChange.ADDED)

    def _tell(self, change: TableChange, table: TableInfo) -> None:
        if self._callback is not None and not self._closed:
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
        self._wake.set()
        resolvers, self._resolvers = self._resolvers, None
        if resolvers is not None:
            resolvers.close()
            self._wanted_resolvers.close()
            self._listed_resolvers.close()
            self._gone_resolvers.close()
        if self._spotter is not None:
            self._zc.remove_listener(self._spotter)
        self._zc.remove_listener(self._news_spotter)
        loop = self._zc.loop
        if loop is not None and loop.is_running() and not _in_loop(loop):
            try:
                asyncio.run_coroutine_threadsafe(self._browser.async_cancel(),
                                                 loop).result(LOOP_WAIT)
            except Exception:  # zeroconf closed meanwhile: nothing left to cancel
                log.debug("table browser: zeroconf's browser not cancelled", exc_info=True)
        if threading.current_thread() is not self._worker:   # (a callback may close)
            self._worker.join(LOOP_WAIT)
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
    wanted: Callable[[TableInfo], bool] | None = None,
    wanted_names: Callable[[str], bool] | None = None,
) -> TableBrowser:
    """Start browsing; see :class:`TableBrowser`."""
    return TableBrowser(callback, interfaces=interfaces, zeroconf=zeroconf, wanted=wanted,
                        wanted_names=wanted_names)


def instance_matcher(*, name: str | None = None,
                     fingerprint: str | None = None) -> Callable[[str], bool]:
    """Whether a service name may be that of a table called ``name``, or hosted by the key
    of ``fingerprint`` (``XXXXX-XXXXX``): announce_table names an instance
    ``"<table name> (<fingerprint's first 8>)"``, and another table of that name adds
    ``-2`` or ``-3`` to it (:data:`NAME_TRIES`). Only a hint, to ask for such names
    first: what the record says is checked as usual."""
    head = f"{_label(name, 40)} (" if name is not None else None
    mark = f" ({_label(fingerprint, 16)[:8]})" if fingerprint is not None else None

    def match(service: str) -> bool:
        if not service.endswith("." + SERVICE_TYPE):
            return False
        label = service[:-len(SERVICE_TYPE) - 1]
        return ((head is None or label.startswith(head))
                and (mark is None or mark in label))
    return match
