"""A peer's durable state for one table: the signed log, its own secrets, where peers are.

Layout of a table directory (``<data-dir>/<table-id-hex>/``, the data dir defaulting to
``$XDG_DATA_HOME/millebornes`` or ``~/.local/share/millebornes``)::

    table.msgpack    who I am at this table: header bytes, my seat, my port, peer endpoints
    transcript.mbt   every accepted entry in log order (a valid transcript; see below for fsync)
    secrets.log      my hand secrets and random seeds (mode 0600, fsynced per record):
                     ``{hand, deck, rand_seed}`` = ``HandProtocol.export_secrets()``

The ordering rules that make ``resume`` lose nothing (see docs/network.md, "Sessions"):

* my own secrets are appended to ``secrets.log`` *before* any entry that depends on them
  is signed and published;
* my own entry is appended to ``transcript.mbt`` *before* it is broadcast, so a restarted
  peer never signs a second, different entry for the same slot (that would be equivocation);
* entries of others are appended (handed to the OS) as they are accepted but fsynced in
  groups (group commit: at the latest with this seat's next own entry, or after a short
  delay); a kill -9 loses none of them, and anything a power cut loses is fetched again
  from any peer.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack

from p2p.transcript.envelope import Envelope
from p2p.transcript.file import Transcript, TranscriptHeader, TranscriptWriter

__all__ = ["Store", "StoredTable", "default_data_dir", "table_dir", "find_tables"]

META = "table.msgpack"
TRANSCRIPT = "transcript.mbt"
SECRETS = "secrets.log"


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "millebornes"


def table_dir(base: str | os.PathLike[str] | None, table_id: bytes) -> Path:
    return (Path(base) if base is not None else default_data_dir()) / table_id.hex()


def find_tables(base: str | os.PathLike[str] | None = None) -> list[Path]:
    """Table directories under a data dir, most recently changed first."""
    root = Path(base) if base is not None else default_data_dir()
    if not root.is_dir():
        return []
    out = [p for p in root.iterdir() if (p / META).is_file()]
    return sorted(out, key=lambda p: (p / TRANSCRIPT).stat().st_mtime
                  if (p / TRANSCRIPT).exists() else 0.0, reverse=True)


def _fsync_dir(d: Path) -> None:
    try:
        fd = os.open(d, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_atomic(path: Path, data: bytes, mode: int = 0o600) -> None:
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def _pack(v: Any) -> bytes:
    out = msgpack.packb(v, use_bin_type=True)
    assert isinstance(out, bytes)
    return out


@dataclass
class StoredTable:
    """What a table directory holds, read back for ``resume``."""

    path: Path
    header: TranscriptHeader
    seat: int
    port: int
    bind: str
    endpoints: dict[int, str]
    transcript: Transcript
    secrets: dict[int, dict[str, Any]] = field(default_factory=dict)   # hand -> last record
    extra: dict[str, Any] = field(default_factory=dict)
    torn_bytes: int = 0


class Store:
    """Appends a peer's accepted entries and secrets to its table directory."""

    def __init__(self, path: Path, writer: TranscriptWriter, meta: dict[str, Any]) -> None:
        self.path = path
        self.writer = writer
        self.meta = meta
        self._secrets = open(path / SECRETS, "ab")  # noqa: SIM115 - closed in close()
        os.chmod(path / SECRETS, 0o600)
        self._last_secret: dict[int, bytes] = {}
        self.entries_written = 0

    # ----- creating / opening ----------------------------------------------------------
    @classmethod
    def create(cls, base: str | os.PathLike[str] | None, header: TranscriptHeader, seat: int,
               *, port: int, bind: str = "127.0.0.1", endpoints: dict[int, str] | None = None,
               extra: dict[str, Any] | None = None) -> Store:
        """A fresh table directory (fails if the table already has one: use :meth:`open`)."""
        path = table_dir(base, header.table)
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        if (path / TRANSCRIPT).exists():
            raise FileExistsError(f"{path} already holds this table; resume it instead")
        meta = {"header": header.to_bytes(), "seat": seat, "port": port, "bind": bind,
                "endpoints": {str(k): v for k, v in (endpoints or {}).items()},
                "extra": dict(extra or {})}
        _write_atomic(path / META, _pack(meta))
        writer = TranscriptWriter(path / TRANSCRIPT, header)
        _fsync_dir(path)
        return cls(path, writer, meta)

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> tuple[Store, StoredTable]:
        """Reopen a table directory after a crash: a torn last entry is cut off."""
        p = Path(path)
        meta = read_meta(p)
        writer, transcript, cut = TranscriptWriter.resume(p / TRANSCRIPT)
        if transcript.header.to_bytes() != meta["header"]:
            writer.close()
            raise ValueError(f"{p}: transcript header does not match table.msgpack")
        st = StoredTable(p, transcript.header, int(meta["seat"]), int(meta["port"]),
                         str(meta.get("bind", "127.0.0.1")),
                         {int(k): str(v) for k, v in dict(meta.get("endpoints", {})).items()},
                         transcript, read_secrets(p), dict(meta.get("extra", {})), cut)
        store = cls(p, writer, meta)
        store.entries_written = len(transcript.entries)
        for h, rec in st.secrets.items():
            store._last_secret[h] = _pack(rec)
        return store, st

    # ----- writing -----------------------------------------------------------------------
    def append(self, env: Envelope, sync: bool = True) -> None:
        """One accepted entry, fsynced before returning unless ``sync`` is False (then it
        waits for :meth:`sync`: group commit of entries that can be fetched again)."""
        self.writer.append(env, sync)
        self.entries_written += 1

    def sync(self) -> None:
        """fsync the entries appended without ``sync`` (one fsync for all of them)."""
        self.writer.sync()

    @property
    def unsynced(self) -> int:
        """Entries written to the OS but not fsynced yet."""
        return self.writer.unsynced

    def save_secrets(self, hand: int, secrets: dict[str, Any]) -> bool:
        """Persist this hand's secrets (``HandProtocol.export_secrets()``: ``deck`` and
        ``rand_seed``) if they changed since last time (fsynced). Returns True when a
        record was written."""
        rec = {"hand": hand, **secrets}
        raw = _pack(rec)
        if self._last_secret.get(hand) == raw:
            return False
        self._secrets.write(raw)
        self._secrets.flush()
        os.fsync(self._secrets.fileno())
        self._last_secret[hand] = raw
        return True

    def rewrite(self, entries: list[Envelope]) -> None:
        """Replace the transcript by ``entries`` (after an abort voided the end of a hand's
        log): a new file is written and fsynced, then renamed over the old one."""
        path = self.path / TRANSCRIPT
        tmp = path.with_name(path.name + ".rewrite")
        if tmp.exists():
            tmp.unlink()
        w = TranscriptWriter(tmp, self.writer.header)
        for e in entries:
            w.append(e)
        w.close()
        self.writer.close()
        os.replace(tmp, path)
        _fsync_dir(self.path)
        self.writer, _t, _cut = TranscriptWriter.resume(path)
        self.entries_written = len(entries)

    def set_endpoints(self, endpoints: dict[int, str]) -> None:
        self.meta["endpoints"] = {str(k): v for k, v in endpoints.items()}
        _write_atomic(self.path / META, _pack(self.meta))

    @property
    def transcript_path(self) -> Path:
        return self.path / TRANSCRIPT

    def close(self) -> None:
        self.writer.sync()
        self.writer.close()
        self._secrets.close()


def read_meta(path: Path) -> dict[str, Any]:
    try:
        meta = msgpack.unpackb((path / META).read_bytes(), raw=False, strict_map_key=False)
    except FileNotFoundError:
        raise ValueError(f"{path} holds no table (no {META})") from None
    except Exception as exc:
        raise ValueError(f"{path / META} is unreadable: {exc}") from None
    if not isinstance(meta, dict) or not isinstance(meta.get("header"), bytes):
        raise ValueError(f"{path / META} is not a table record")
    return meta


def read_secrets(path: Path) -> dict[int, dict[str, Any]]:
    """hand -> the last complete secrets record (a torn last record is ignored: it was
    never followed by a publication)."""
    out: dict[int, dict[str, Any]] = {}
    f = path / SECRETS
    if not f.exists():
        return out
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
    unpacker.feed(f.read_bytes())
    try:
        for rec in unpacker:
            if isinstance(rec, dict) and isinstance(rec.get("hand"), int):
                out[rec["hand"]] = rec
    except Exception:  # a torn record at the end
        pass
    return out
