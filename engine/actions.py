"""Actions: small immutable values, one class per kind of move.

``seat`` is who acts (``CHANCE`` for the reshuffle of R4b). Sides are addressed by side
index (see :class:`~engine.rules.Seating`). Every action converts to and from plain
msgpack-friendly lists with :func:`action_to_data` / :func:`action_from_data`.
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple

#: ``seat`` of the chance action (the R4b reshuffle): no seat acts. (-1 on the wire.)
CHANCE: Final = -1


class Draw(NamedTuple):
    """Draw one card. ``source`` is ``"pile"`` or ``"discard"`` (R4a).

    ``card`` is the card drawn: required when the acting seat is the viewer of a
    seat's view (it was revealed to them), ``None`` for someone else's hidden draw,
    and filled in from the pile in a full-information state.
    """

    seat: int
    source: str = "pile"
    card: int | None = None


class Play(NamedTuple):
    """Play a card: distance, remedy or safety on your zone; a hazard on side ``target``."""

    seat: int
    card: int
    target: int | None = None


class Discard(NamedTuple):
    seat: int
    card: int


class CoupFourre(NamedTuple):
    """R9: answer a hazard with its safety, out of turn."""

    seat: int
    card: int


class FastRemedy(NamedTuple):
    """R10a: answer a hazard with its remedy, out of turn."""

    seat: int
    card: int


class Pass(NamedTuple):
    """Decline to answer a hazard (R9/R10a window)."""

    seat: int


class FastDiscard(NamedTuple):
    """R10b: discard several cards and draw back up to six, ending the turn."""

    seat: int
    cards: tuple[int, ...]


class Extend(NamedTuple):
    """R12: the side that reached 700 extends to 1000 (``True``) or ends the hand."""

    seat: int
    extend: bool


class Reshuffle(NamedTuple):
    """R4b (modern): the discard pile becomes the draw pile in ``order`` (top first).

    ``order`` is ``None`` in a seat's view, where the new order is hidden.
    """

    seat: int = CHANCE
    order: tuple[int, ...] | None = None


Action = Draw | Play | Discard | CoupFourre | FastRemedy | Pass | FastDiscard | Extend | Reshuffle

#: The classes of :data:`Action` (a bot's answer of any other type is not a move).
ACTION_TYPES: frozenset[type] = frozenset(
    (Draw, Play, Discard, CoupFourre, FastRemedy, Pass, FastDiscard, Extend, Reshuffle))

_TAGS: dict[type, str] = {
    Draw: "draw", Play: "play", Discard: "discard", CoupFourre: "coup", FastRemedy: "remedy",
    Pass: "pass", FastDiscard: "fastdiscard", Extend: "extend", Reshuffle: "reshuffle",
}
_CLASSES: dict[str, type] = {v: k for k, v in _TAGS.items()}


def action_to_data(action: Action) -> list[Any]:
    """``[tag, field, ...]`` with tuples as lists: msgpack- and JSON-friendly."""
    out: list[Any] = [_TAGS[type(action)]]
    for value in action:
        out.append(list(value) if isinstance(value, tuple) else value)
    return out


def action_from_data(data: Any) -> Action:
    """Inverse of :func:`action_to_data`; raises ``ValueError`` on anything malformed."""
    if not isinstance(data, (list, tuple)) or not data or not isinstance(data[0], str):
        raise ValueError(f"malformed action {data!r}")
    cls = _CLASSES.get(data[0])
    if cls is None:
        raise ValueError(f"unknown action kind {data[0]!r}")
    args = list(data[1:])
    if len(args) > len(cls._fields):  # type: ignore[attr-defined]
        raise ValueError(f"too many fields for {data[0]}: {data!r}")
    for i, value in enumerate(args):
        if isinstance(value, list):
            args[i] = tuple(value)
    try:
        action: Action = cls(*args)
    except TypeError as exc:
        raise ValueError(f"malformed {data[0]} action {data!r}: {exc}") from None
    _check_types(action)
    return action


def _check_types(action: Action) -> None:
    values: tuple[object, ...] = tuple(action)  # anything may come off the wire
    for name, value in zip(action._fields, values, strict=True):
        if name == "card" and value is None and isinstance(action, Draw):
            continue
        if name in ("seat", "card") and type(value) is not int:
            raise ValueError(f"{name} must be an integer in {action!r}")
        if name == "target" and value is not None and type(value) is not int:
            raise ValueError(f"target must be an integer in {action!r}")
        if name in ("cards", "order") and value is not None and not (
                isinstance(value, tuple) and all(type(c) is int for c in value)):
            raise ValueError(f"{name} must be a list of integers in {action!r}")
        if name == "source" and value not in ("pile", "discard"):
            raise ValueError(f"source must be pile or discard in {action!r}")
        if name == "extend" and type(value) is not bool:
            raise ValueError(f"extend must be true or false in {action!r}")
