"""Players met before: their keys, remembered by name, so a changed key is noticed.

Names are free text anyone can pick, keys are not: when "Bob" shows up with another key
than the Bob we played with, that is either Bob on a new machine or somebody pretending,
and only the player can tell, so we say so (with both fingerprints) and never decide
silently.  The file is ``$XDG_CONFIG_HOME/millebornes/known_players`` (mode 0600), a small
msgpack map ``{name: [key, ...]}`` in the order the names were last met (at 1,000 names
the one met longest ago makes room); a damaged file is set aside, never a traceback.
"""

from __future__ import annotations

import errno
import logging
import os
import stat
from dataclasses import dataclass
from pathlib import Path

import msgpack

from p2p.crypto.identity import default_identity_path, fingerprint
from p2p.files import write_own
from p2p.text import shown_keys

__all__ = ["KeyChange", "KnownPlayers", "default_known_path"]

log = logging.getLogger("p2p.known")

_MAX_NAMES = 1000
_MAX_KEYS_PER_NAME = 8


#: The largest file :data:`_MAX_NAMES` names with their keys make, with room to spare.
_MAX_FILE = 1 << 20


def _read_bounded(path: Path) -> bytes | None:
    """The file's bytes, at most one more than :data:`_MAX_FILE` (so a huge file is never
    read whole); None for something other than a regular file (a FIFO would block the
    start of ``join`` and ``host`` for good; opened without waiting, it is not read)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as f:
        mode = os.fstat(f.fileno()).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(mode):
            return None
        return f.read(_MAX_FILE + 1)


def default_known_path() -> Path:
    return default_identity_path().with_name("known_players")


@dataclass(frozen=True)
class KeyChange:
    """A name met before with other keys only, as data: a console says it in the player's
    language (nothing here depends on one); :meth:`english` is the text for logs."""

    name: str
    key: bytes
    known: tuple[bytes, ...]

    def english(self) -> str:
        return (f"{self.name} [{fingerprint(self.key)}] has a key we have not seen for this "
                f"name (known: {', '.join(fingerprint(k) for k in self.known)}): a new "
                f"machine, or someone else using the name")


class KnownPlayers:
    """The players this identity has met, by name.

    Why an existing file could not be read is ``problem`` (English, for logs) and, as data
    for a console's words, ``problem_id`` (``unreadable``: ``problem_detail`` is the
    system's reason; ``damaged``: ``problem_detail`` is the error's type, the file is kept
    as ``.bad``)."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_known_path()
        self.keys: dict[str, list[bytes]] = {}
        self._shown: dict[str, frozenset[tuple[str, str]]] = {}
        self._reordered = False               # a name met again: the order to write
        self.problem: str | None = None       # why an existing file could not be read
        self.problem_id: str | None = None
        self.problem_detail = ""
        try:
            raw = _read_bounded(self.path)
        except FileNotFoundError:
            return
        except OSError as exc:
            self.problem_id, self.problem_detail = "unreadable", str(exc.strerror or exc)
            self.problem = f"cannot read {self.path}: {self.problem_detail}"
            return
        try:
            if raw is None:        # a FIFO, a device: kept aside like any damaged file
                raise ValueError("not a regular file")
            if len(raw) > _MAX_FILE:
                raise ValueError("too large")
            v = msgpack.unpackb(raw, raw=False, max_bin_len=32, max_str_len=256,
                                max_array_len=_MAX_NAMES * _MAX_KEYS_PER_NAME,
                                max_map_len=_MAX_NAMES, max_ext_len=0)
            if not isinstance(v, dict):
                raise ValueError("not a map")
            for name, keys in v.items():
                if (isinstance(name, str) and isinstance(keys, list)
                        and all(isinstance(k, bytes) and len(k) == 32 for k in keys)):
                    self.keys[name] = keys[-_MAX_KEYS_PER_NAME:]
        except Exception as exc:   # a damaged file: keep it aside, start afresh
            self.problem_id, self.problem_detail = "damaged", type(exc).__name__
            self.problem = f"{self.path} was damaged ({self.problem_detail}); kept as .bad"
            try:
                os.replace(self.path, self.path.with_name(self.path.name + ".bad"))
            except OSError:
                pass
            self.keys = {}

    def observe(self, name: str, key: bytes) -> str | None:
        """:meth:`meet`, the warning in English (logs, scripts)."""
        change = self.meet(name, key)
        return change.english() if change is not None else None

    def meet(self, name: str, key: bytes) -> KeyChange | None:
        """Remember that ``name`` came with ``key``; a :class:`KeyChange` when this name was
        known with other keys only (None: first meeting, or a key we know). A name is
        known as a screen shows it (:func:`~p2p.text.shown_keys`): someone else named "Bob"
        and a variation selector, shown "Bob", was a name never met (hostile pass 22)."""
        same = self._shown_keys(name)
        seen = [k for n, keys in self.keys.items() if not same.isdisjoint(self._shown_keys(n))
                for k in keys]
        known = self.keys.pop(name, None)
        if key in seen:
            if known is not None:
                # met again: the most recent of the file, written by :meth:`save_order`
                # (a whole file written at each of a table's players was 15 writes)
                self.keys[name] = known
                self._reordered = True
            return None
        warning = KeyChange(name, key, tuple(dict.fromkeys(seen))) if seen else None
        while len(self.keys) >= _MAX_NAMES:
            # the name met longest ago makes room: a full file stored no new name at all,
            # so a new friend's changed key went unsaid for good (a hostile host fills it
            # in some 67 tables of 16; hostile pass 24); a friend met since stays
            oldest = next(iter(self.keys))
            del self.keys[oldest]
            self._shown.pop(oldest, None)
        self.keys[name] = ([*known, key] if known else [key])[-_MAX_KEYS_PER_NAME:]
        self._save()
        return warning

    def _shown_keys(self, name: str) -> frozenset[tuple[str, str]]:
        """:func:`~p2p.text.shown_keys` of ``name``, worked out once for this file: each
        meeting compared the new name with every name of the file afresh, and a file of
        1,000 names that each grow 18-fold in NFKC ("ﷺ") took 0.5 s a meeting, 7.7 s
        before a match of 16 started (its peer not yet made: the others waited for its
        keys; hostile pass 24)."""
        got = self._shown.get(name)
        if got is None:
            got = self._shown[name] = shown_keys(name)
        return got

    def save_order(self) -> None:
        """Write the order names were met in, if a meeting changed only that (once a
        table, after its players are met)."""
        if self._reordered:
            self._save()

    def _save(self) -> None:
        self._reordered = False
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            # a file of its own: a named pipe left under the temporary name held a
            # match's start for ever (waiting for a reader), a link was written through
            # (hostile pass 22)
            write_own(self.path, msgpack.packb(self.keys, use_bin_type=True))
        except OSError as exc:
            log.warning("cannot save known players to %s: %s", self.path, exc)
