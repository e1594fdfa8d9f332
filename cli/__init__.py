"""The ``millebornes`` command: console, plain line mode, simulate, verify, bench."""

from typing import Any

__all__ = ["main"]


def __getattr__(name: str) -> Any:
    """``cli.main`` (the command's entry point), imported when first asked for: importing
    it with the package made ``python -m cli.main`` warn that the module it runs had
    already been imported, and made ``from cli import i18n`` load every verb."""
    if name == "main":
        from .main import main
        return main
    raise AttributeError(f"module 'cli' has no attribute {name!r}")
