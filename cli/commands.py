"""The command language shared by the full-screen app and the plain line mode.

``play 3``, ``play 3 on bo``, ``discard 5``, ``draw``, ``draw discard``, ``pass``, ``coup``,
``extend yes|no``, ``why 3`` / ``? 3``, ``help``, ``next``, ``quit``. Card numbers are
1-based positions in the hand as rendered (:func:`cli.render.hand_cards`). Commands are
resolved against the legal actions of the moment; anything wrong becomes one plain
sentence saying what was wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from engine import (
    Action,
    CoupFourre,
    Discard,
    Draw,
    Extend,
    Family,
    FastDiscard,
    FastRemedy,
    HandState,
    Pass,
    Play,
    card_name,
    explain,
    family,
    kind,
    kind_name,
)
from engine.cards import SAFETY_FOR
from engine.state import DRAW, EXTEND, OVER, PLAY, RESPOND

from .render import hand_cards
from .words import help_text, rule_last, side_names, with_names

VERBS = ("play", "discard", "draw", "pass", "coup", "extend", "why", "help", "next", "quit",
         "yes", "no")


class Outcome(NamedTuple):
    """What a command line resolved to.

    ``kind``: ``action`` (submit ``action``), ``confirm`` (ask ``text``; ``yes`` submits
    ``action``), ``message`` (show ``text``), ``help``, ``next``, ``quit``, ``error``
    (show ``text``, nothing happened), ``none`` (empty line).
    """

    kind: str
    text: str = ""
    action: Action | None = None


def _err(text: str) -> Outcome:
    return Outcome("error", text)


class Context(NamedTuple):
    view: HandState
    seat: int
    legal: Sequence[Action]
    names: Sequence[str]
    lang: str = "en"
    hand_over: bool = False
    match_over: bool = False
    order: tuple[int, ...] | None = None     # the hand as numbered on screen


def numbered(ctx: Context) -> tuple[int, ...]:
    """The hand in the order its cards are numbered (the console's, else the view's)."""
    return ctx.order if ctx.order is not None else hand_cards(ctx.view, ctx.seat)


def resolve_target(ctx: Context, word: str) -> int | str:
    """A name prefix to an opponent side index, or an error sentence."""
    seating = ctx.view.seating
    mine = seating.side_of(ctx.seat)
    w = word.lower()
    sides = {seating.side_of(s) for s, n in enumerate(ctx.names)
             if n.lower().startswith(w) and seating.side_of(s) != mine}
    if not sides:
        if any(n.lower().startswith(w) for s, n in enumerate(ctx.names)
               if seating.side_of(s) == mine):
            return f"{word} is on your side: hazards go on an opponent"
        opp = [ctx.names[s] for s in range(seating.n_players) if seating.side_of(s) != mine]
        return f"nobody at the table is called {word} (opponents: {', '.join(opp)})"
    if len(sides) > 1:
        labels = side_names(ctx.names, seating)
        return f"{word} could be " + " or ".join(labels[s] for s in sorted(sides)) + \
            ": type more of the name"
    return sides.pop()


def card_number(ctx: Context, word: str) -> int | str:
    """A 1-based card number to a card id, or an error sentence."""
    cards = numbered(ctx)
    if not cards:
        return "your hand is empty"
    try:
        n = int(word)
    except ValueError:
        return f"{word!r} is not a card number: use 1 to {len(cards)}"
    if not 1 <= n <= len(cards):
        return f"there is no card {n} in your hand (you hold {len(cards)})"
    return cards[n - 1]


def _why(ctx: Context, card: int, target: int | None = None) -> str:
    name = card_name(card, ctx.lang)
    reason = explain(ctx.view, ctx.seat, card, target)
    if reason is None:
        return f"{name} can be played now."
    return f"{name} cannot be played now: {rule_last(with_names(reason, ctx.names))}"


def parse(text: str, ctx: Context) -> Outcome:
    """Resolve one command line against the current view and legal actions."""
    words = text.strip().split()
    if not words:
        if ctx.hand_over and not ctx.match_over:
            return Outcome("next")
        return Outcome("none")
    verb, args = words[0].lower(), words[1:]
    if verb == "?":
        verb = "why"
    elif verb.startswith("?"):
        verb, args = "why", [verb[1:], *args]
    aliases = {"h": "help", "q": "quit", "exit": "quit", "p": "play", "d": "discard",
               "c": "coup", "coup-fourre": "coup", "fourre": "coup", "n": "next",
               "explain": "why", "continue": "next"}
    verb = aliases.get(verb, verb)
    matches = [v for v in VERBS if v.startswith(verb)] if len(verb) >= 2 else []
    if verb not in VERBS and len(matches) == 1:
        verb = matches[0]
    if verb == "help":
        return Outcome("help", help_text(True))
    if verb == "quit":
        return Outcome("quit")
    if verb == "next":
        if ctx.match_over:
            return _err("the match is over: type quit to leave")
        if not ctx.hand_over:
            return _err("the hand is still in play")
        return Outcome("next")
    if verb in ("yes", "no"):
        return _err("there is nothing to confirm")
    if ctx.view.phase == OVER:
        if verb == "why" and args:
            c = card_number(ctx, args[0])
            return _err(c) if isinstance(c, str) else Outcome("message", _why(ctx, c))
        if ctx.match_over:
            return _err("the match is over: type quit to leave")
        return _err("the hand is over: type next (or press Enter) for the next hand")
    if verb == "why":
        if not args:
            return _err("why which card? e.g. why 3")
        c = card_number(ctx, args[0])
        if isinstance(c, str):
            return _err(c)
        target = None
        if len(args) >= 3 and args[1].lower() == "on":
            t = resolve_target(ctx, args[2])
            if isinstance(t, str):
                return _err(t)
            target = t
        return Outcome("message", _why(ctx, c, target))
    if verb == "play":
        return _play(ctx, args)
    if verb == "discard":
        return _discard(ctx, args)
    if verb == "draw":
        return _draw(ctx, args)
    if verb in ("pass", "coup"):
        return _answer(ctx, verb)
    if verb == "extend":
        return _extend(ctx, args)
    return _err(f"unknown command {words[0]!r}: type help for the list")


def _not_now(ctx: Context) -> str | None:
    """Why the human cannot act at all now, or None."""
    if ctx.seat in ctx.view.actors():
        return None
    return "it is not your move: wait for the others"


def _phase_hint(ctx: Context) -> str:
    phase = ctx.view.phase
    if phase == DRAW:
        return "draw first: type draw"
    if phase == RESPOND:
        return "answer the hazard first: c for a coup fourré or n to let it stand (coup / pass)"
    if phase == EXTEND:
        return "decide first: extend yes or extend no"
    return "play or discard a card"


def _play(ctx: Context, args: list[str]) -> Outcome:
    if not args:
        return _err("play which card? e.g. play 3")
    c = card_number(ctx, args[0])
    if isinstance(c, str):
        return _err(c)
    busy = _not_now(ctx)
    if busy:
        return _err(busy)
    phase = ctx.view.phase
    name = card_name(c, ctx.lang)
    if phase == RESPOND:
        for a in ctx.legal:
            if isinstance(a, (FastRemedy,)) and a.card == c:
                return Outcome("action", action=a)
        if family(c) is Family.SAFETY:
            return _answer(ctx, "coup")
        return _err(f"answer the hazard first: c for a coup fourré or n to let it stand ({name} does not answer it)")
    if phase != PLAY:
        return _err(_phase_hint(ctx))
    target_word: str | None = None
    if len(args) >= 2:
        rest = args[1:]
        if rest[0].lower() in ("on", "at", "sur", "to"):
            rest = rest[1:]
        if not rest:
            return _err(f"play {args[0]} on whom?")
        target_word = rest[0]
    plays = [a for a in ctx.legal if isinstance(a, Play) and a.card == c]
    if family(c) is Family.HAZARD:
        if target_word is not None:
            t = resolve_target(ctx, target_word)
            if isinstance(t, str):
                return _err(t)
            for a in plays:
                if a.target == t:
                    return Outcome("action", action=a)
            return _err(_why(ctx, c, t))
        if not plays:
            return _err(_why(ctx, c))
        if len(plays) == 1:
            return Outcome("action", action=plays[0])
        labels = side_names(ctx.names, ctx.view.seating)
        opts = " or ".join(f"play {args[0]} on {labels[a.target].split(' & ')[0]}"
                           for a in plays if a.target is not None)
        return _err(f"say whom to attack with {name}: {opts}")
    if target_word is not None:
        return _err(f"{name} is not a hazard: it goes on your own side, type play {args[0]}")
    if plays:
        return Outcome("action", action=plays[0])
    return _err(_why(ctx, c))


def _discard(ctx: Context, args: list[str]) -> Outcome:
    if not args:
        return _err("discard which card? e.g. discard 5")
    cards = []
    for w in args:
        c = card_number(ctx, w)
        if isinstance(c, str):
            return _err(c)
        cards.append(c)
    busy = _not_now(ctx)
    if busy:
        return _err(busy)
    if ctx.view.phase != PLAY:
        return _err(_phase_hint(ctx))
    if len(cards) > 1:
        if len(set(cards)) != len(cards):
            return _err("name each card once")
        for a in ctx.legal:
            if isinstance(a, FastDiscard) and sorted(a.cards) == sorted(cards):
                return _confirm_safety(ctx, cards, a)
        return _err("discard one card at a time (several at once needs the fast_play option)")
    for a in ctx.legal:
        if isinstance(a, Discard) and a.card == cards[0]:
            return _confirm_safety(ctx, cards, a)
    return _err(f"you cannot discard {card_name(cards[0], ctx.lang)} now")


def _confirm_safety(ctx: Context, cards: list[int], action: Action) -> Outcome:
    safeties = [c for c in cards if family(c) is Family.SAFETY]
    if not safeties:
        return Outcome("action", action=action)
    names = ", ".join(card_name(c, ctx.lang) for c in safeties)
    return Outcome("confirm", f"{names} is a safety: it protects you for the whole hand and "
                              "is worth points. Discard it anyway? (yes/no)", action)


def _draw(ctx: Context, args: list[str]) -> Outcome:
    busy = _not_now(ctx)
    if busy:
        return _err(busy)
    if ctx.view.phase != DRAW:
        if ctx.view.phase == PLAY:
            return _err("you have drawn already: play or discard a card")
        return _err(_phase_hint(ctx))
    source = "pile"
    if args:
        w = args[0].lower()
        if "discard".startswith(w) or w == "defausse":
            source = "discard"
        elif not ("pile".startswith(w) or w == "deck"):
            return _err(f"draw from where? draw or draw discard, not {args[0]!r}")
    for a in ctx.legal:
        if isinstance(a, Draw) and a.source == source:
            return Outcome("action", action=a)
    if source == "discard":
        if not ctx.view.rules.draw_discard:
            return _err("these rules do not allow taking the discard pile: type draw")
        if not ctx.view.discard:
            return _err("the discard pile is empty: type draw")
        return _err("this draw must come from the draw pile: type draw")
    return _err("you cannot draw now")


def _answer(ctx: Context, verb: str) -> Outcome:
    """R9: coup and pass are offered alike whether or not the safety is held; a coup
    without it is refused only after the same prompt."""
    busy = _not_now(ctx)
    if busy:
        if ctx.view.phase == RESPOND:
            return _err("your side's answer is in: waiting for the others")
        return _err("there is no hazard to answer now")
    if ctx.view.phase != RESPOND:
        return _err(f"there is no hazard to answer now: {_phase_hint(ctx)}")
    if verb == "pass":
        return Outcome("action", action=Pass(ctx.seat))
    for a in ctx.legal:
        if isinstance(a, CoupFourre):
            return Outcome("action", action=a)
    att = ctx.view.attack
    assert att is not None
    hazard = kind(att.card)
    safety = kind_name(SAFETY_FOR[hazard], ctx.lang)
    return _err(f"you hold no {safety}, the safety against {kind_name(hazard, ctx.lang)}: "
                "no coup fourré. Type pass.")


def _extend(ctx: Context, args: list[str]) -> Outcome:
    busy = _not_now(ctx)
    if busy:
        return _err(busy)
    if ctx.view.phase != EXTEND:
        return _err("there is no extension to decide now")
    if not args or args[0].lower() not in ("yes", "y", "no", "n", "oui", "non"):
        return _err("extend yes (play on to 1000) or extend no (end the hand)?")
    return Outcome("action", action=Extend(ctx.seat, args[0].lower() in ("yes", "y", "oui")))


class Commander:
    """Command lines to outcomes, with the confirmation step before discarding a safety."""

    def __init__(self) -> None:
        self.pending: Outcome | None = None

    def handle(self, text: str, ctx: Context) -> Outcome:
        if self.pending is not None:
            pending, self.pending = self.pending, None
            w = text.strip().lower()
            if w in ("y", "yes", "oui"):
                return Outcome("action", action=pending.action)
            if w in ("", "n", "no", "non"):
                return Outcome("message", "Kept it: nothing discarded.")
        out = parse(text, ctx)
        if out.kind == "confirm":
            self.pending = out
        return out


# ----- completion -----------------------------------------------------------------------

class CommandCompleter(Completer):
    """Completes verbs, card numbers (with the card's name) and opponents' names."""

    def __init__(self, context: Callable[[], Context | None]) -> None:
        self.context = context

    def get_completions(self, document: Document,
                        complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        words = text.split()
        if text.endswith(" ") or not words:
            words.append("")
        current = words[-1]
        ctx = self.context()
        if len(words) == 1:
            for v in VERBS:
                if v.startswith(current.lower()):
                    yield Completion(v, -len(current))
            return
        verb = words[0].lower()
        cards = numbered(ctx) if ctx else ()
        if verb in ("play", "discard", "why", "?") and len(words) == 2:
            for i, c in enumerate(cards, 1):
                if str(i).startswith(current):
                    yield Completion(str(i), -len(current),
                                     display_meta=card_name(c, ctx.lang if ctx else "en"))
            return
        if verb == "play" and len(words) == 3 and "on".startswith(current.lower()):
            yield Completion("on", -len(current))
            return
        if verb == "play" and len(words) == 4 and ctx is not None:
            mine = ctx.view.seating.side_of(ctx.seat)
            for s, n in enumerate(ctx.names):
                if ctx.view.seating.side_of(s) != mine and n.lower().startswith(current.lower()):
                    yield Completion(n, -len(current))
            return
        if verb == "draw" and len(words) == 2:
            for w in ("pile", "discard"):
                if w.startswith(current.lower()):
                    yield Completion(w, -len(current))
            return
        if verb == "extend" and len(words) == 2:
            for w in ("yes", "no"):
                if w.startswith(current.lower()):
                    yield Completion(w, -len(current))
