"""The one error the engine raises for a move the rules forbid."""

from __future__ import annotations


class IllegalAction(ValueError):
    """An action the rules forbid; ``rule`` is the RULES.md id that forbids it.

    The state the action was applied to is never changed (states are immutable).
    """

    def __init__(self, rule: str, message: str, action: object = None) -> None:
        self.rule = rule
        self.reason = message
        self.action = action
        super().__init__(f"{rule}: {message}")
