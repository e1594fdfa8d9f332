"""The ``millebornes`` command: console, plain line mode, simulate, verify, bench."""

from .main import main

__all__ = ["main"]
