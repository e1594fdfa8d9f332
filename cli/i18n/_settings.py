"""Which language a player sees, and how right-to-left text is sent to the terminal.

Order of precedence, first found wins:

1. ``--lang CODE`` on the command line (and ``--bidi``);
2. the player's config file, ``language = "sv"`` (and ``bidi = "terminal"``);
3. the locale environment, as gettext reads it: ``LANGUAGE`` (a colon-separated list), then
   ``LC_ALL``, ``LC_MESSAGES``, ``LANG``; ``C`` or ``POSIX`` there means English;
4. English.

The config file is per player: it sits beside the player's identity key, in
``$XDG_CONFIG_HOME/millebornes/config.toml`` (``~/.config/millebornes/config.toml``), or
wherever ``MILLEBORNES_CONFIG`` points (two players sharing one account each keep their own).
A file that is missing is normal; a file that is unreadable, too big, not a regular file (a
named pipe or a device is never read: it could block every command), not TOML or holds an
unknown value is reported in ``Settings.problems`` and otherwise ignored, never a traceback.
Nothing here goes on the wire or into a transcript: each peer shows its own language.
"""

from __future__ import annotations

import os
import stat
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

#: Language codes offered, with each language's own name (shown in ``--lang`` help).
LANGUAGES: dict[str, str] = {
    "en": "English",
    "fr": "Français",
    "sv": "Svenska",
    "vi": "Tiếng Việt",
    "af": "Afrikaans",
    "ug": "ئۇيغۇرچە",
    "ug-Latn": "Uyghurche",
}
DEFAULT_LANGUAGE = "en"
#: ``shape``: the game shapes and orders right-to-left text itself (most terminals);
#: ``terminal``: the text goes out in logical order for a terminal that does its own bidi.
BIDI_MODES = ("shape", "terminal")
ENV_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
CONFIG_ENV = "MILLEBORNES_CONFIG"
#: A config file is a few lines; anything bigger is not ours and is not read whole.
MAX_CONFIG_BYTES = 64 * 1024


@dataclass(frozen=True)
class Settings:
    language: str = DEFAULT_LANGUAGE
    bidi: str = "shape"
    #: Where the language came from: "option", "config", "environment" or "default".
    source: str = "default"
    problems: tuple[str, ...] = field(default=())


def normalize_language(code: str) -> str | None:
    """A supported language code for a user's or locale's spelling of one, else None.

    Accepts ``sv``, ``sv_SE.UTF-8``, ``vi-VN``, ``fr_CA@euro``, ``ug_CN``; ``ug-Latn``,
    ``ug_Latn``, ``ug@latin`` and ``ug_CN@latin`` are Latin-script Uyghur."""
    raw = code.strip()
    if not raw or len(raw) > 64:
        return None
    base, _, modifier = raw.partition("@")
    base = base.split(".", 1)[0].replace("_", "-")
    parts = [p for p in base.split("-") if p]
    if not parts:
        return None
    lang = parts[0].lower()
    if lang == "ug" and (modifier.lower() == "latin" or any(p.lower() == "latn" for p in parts)):
        return "ug-Latn"
    return lang if lang in LANGUAGES else None


def from_environment(environ: Mapping[str, str]) -> str | None:
    """The first supported language the locale variables name, gettext's order; None if they
    name none (or the C locale)."""
    for name in ENV_VARIABLES:
        value = environ.get(name, "")
        for item in value.split(":"):
            if item.split(".", 1)[0] in ("C", "POSIX"):
                return None
            found = normalize_language(item)
            if found:
                return found
    return None


def config_path(environ: Mapping[str, str]) -> Path:
    """The player's config file (it need not exist)."""
    explicit = environ.get(CONFIG_ENV)
    if explicit:
        return Path(explicit)
    base = environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "millebornes" / "config.toml"


class _NotRegular(OSError):
    """The config path names a folder, a named pipe, a device: never read (reading one
    can wait forever or never end)."""


def _kind(mode: int) -> str:
    return ("a folder" if stat.S_ISDIR(mode) else "a named pipe" if stat.S_ISFIFO(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a special file")


def _read_regular(path: Path) -> bytes:
    """At most ``MAX_CONFIG_BYTES + 1`` bytes of a regular file; :class:`_NotRegular` for
    anything else, checked before opening and on what was opened (without waiting)."""
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise _NotRegular(_kind(mode))
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise _NotRegular(_kind(mode))
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read(MAX_CONFIG_BYTES + 1)
    finally:
        os.close(fd)


def read_config(path: Path) -> tuple[dict[str, str], list[str]]:
    """The ``language`` and ``bidi`` keys of a config file, and what was wrong with it."""
    try:
        raw = _read_regular(path)
    except FileNotFoundError:
        return {}, []
    except _NotRegular as exc:
        return {}, [f"{path}: not a regular file ({exc})"]
    except OSError as exc:
        return {}, [f"{path}: {exc.strerror or exc}"]
    if len(raw) > MAX_CONFIG_BYTES:
        return {}, [f"{path}: larger than {MAX_CONFIG_BYTES} bytes"]
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return {}, [f"{path}: not a TOML file ({exc})"]
    except RecursionError:
        # arrays or tables nested some thousands deep: tomllib recurses (every command
        # stopped with "unexpected error: RecursionError", hostile pass 16)
        return {}, [f"{path}: not a TOML file (nested too deeply)"]
    found: dict[str, str] = {}
    problems: list[str] = []
    language = data.get("language")
    if language is not None:
        code = normalize_language(language) if isinstance(language, str) else None
        if code is None:
            problems.append(f"{path}: unknown language {language!r} "
                            f"(one of {', '.join(LANGUAGES)})")
        else:
            found["language"] = code
    bidi = data.get("bidi")
    if bidi is not None:
        if bidi in BIDI_MODES:
            found["bidi"] = str(bidi)
        else:
            problems.append(f"{path}: bidi must be one of {', '.join(BIDI_MODES)}, not {bidi!r}")
    return found, problems


def resolve(option: str | None = None, bidi_option: str | None = None,
            environ: Mapping[str, str] | None = None,
            config: Path | None = None) -> Settings:
    """The settings in force. ``option`` and ``bidi_option`` are the command-line values
    (None when not given); an unknown ``--lang`` raises ValueError (the command line is the
    one place where a typo should stop the program rather than fall back)."""
    env = os.environ if environ is None else environ
    found, problems = read_config(config if config is not None else config_path(env))
    bidi = bidi_option or found.get("bidi", "shape")
    if bidi not in BIDI_MODES:
        raise ValueError(f"--bidi must be one of {', '.join(BIDI_MODES)}, not {bidi!r}")
    if option is not None:
        code = normalize_language(option)
        if code is None:
            raise ValueError(f"unknown language {option!r}: choose one of {', '.join(LANGUAGES)}")
        return Settings(code, bidi, "option", tuple(problems))
    if "language" in found:
        return Settings(found["language"], bidi, "config", tuple(problems))
    code = from_environment(env)
    if code is not None:
        return Settings(code, bidi, "environment", tuple(problems))
    return Settings(DEFAULT_LANGUAGE, bidi, "default", tuple(problems))
