"""The command language shared by the full-screen app and the plain line mode.

``play 3``, ``play 3 on bo``, ``discard 5``, ``draw``, ``draw discard``, ``pass``, ``coup``,
``extend yes|no``, ``why 3`` / ``? 3``, ``help``, ``next``, ``quit``. Card numbers are
1-based positions in the hand as rendered (:func:`cli.render.hand_cards`). Commands are
resolved against the legal actions of the moment; anything wrong becomes one plain
sentence saying what was wrong.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import NamedTuple

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
    explain,
    family,
    kind,
)
from engine.cards import DISTANCE_VALUE, KIND_OF, REMEDY_FOR, SAFETY_FOR, Kind
from engine.state import DRAW, EXTEND, OVER, PLAY, RESPOND

from . import i18n
from .i18n import close_match, pgettext
from .render import hand_cards
from .words import (
    after_colon,
    card_name,
    every_side_reason,
    help_text,
    how_to_play,
    or_list,
    reply,
    rule_last,
    sentence,
    side_names,
    with_names,
)

VERBS = ("play", "discard", "draw", "pass", "coup", "extend", "why", "help", "rules", "next",
         "quit", "yes", "no")
ALIASES = {"h": "help", "q": "quit", "exit": "quit", "p": "play", "d": "discard",
           "c": "coup", "coup-fourre": "coup", "fourre": "coup", "n": "next",
           "explain": "why", "continue": "next"}


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
    lang: str | None = None
    hand_over: bool = False
    match_over: bool = False
    order: tuple[int, ...] | None = None     # the hand as numbered on screen
    #: why this seat cannot move at all (a bot plays it by the others' agreement): the
    #: answer to any move, before "your hand is empty" could be said of a hand it never held
    watching: str | None = None
    #: the screen says under every answer what the table waits for (the full screen's
    #: status line): an answer need not say again how to answer a hazard (said twice, it
    #: was cut with "(all of it in the log)" on an 80-column screen, in French)
    prompt_below: bool = False
    #: why no move can be made now though it is this player's turn: the table is paused on
    #: another seat (its player left, or did not answer in time); the answer to any move
    #: ("you cannot draw now" said nothing of why, and "draw first: press space" came to a
    #: player who had pressed it)
    paused: str | None = None


def numbered(ctx: Context) -> tuple[int, ...]:
    """The hand in the order its cards are numbered (the console's, else the view's)."""
    return ctx.order if ctx.order is not None else hand_cards(ctx.view, ctx.seat)


def resolve_target(ctx: Context, word: str) -> int | str:
    """A name prefix to an opponent side index, or an error sentence."""
    seating = ctx.view.seating
    mine = seating.side_of(ctx.seat)
    w = word.lower()
    if _means_me(ctx, w):
        return reply("own-self")
    sides = {seating.side_of(s) for s, n in enumerate(ctx.names)
             if n.lower().startswith(w) and seating.side_of(s) != mine}
    if not sides:
        if ctx.names[ctx.seat].lower().startswith(w):
            return reply("own-self")      # "You is on your side" was said to "on you"
        if any(n.lower().startswith(w) for s, n in enumerate(ctx.names)
               if seating.side_of(s) == mine):
            return reply("own-side", word=word)
        opp = [ctx.names[s] for s in range(seating.n_players) if seating.side_of(s) != mine]
        return reply("nobody-called", word=word, opponents=i18n.join_list(opp))
    if len(sides) > 1:
        labels = side_names(ctx.names, seating)
        return reply("ambiguous", word=word,
                     choices=or_list(labels[s] for s in sorted(sides)))
    return sides.pop()


#: Words a player uses for themself ("play 2 on me"), in the catalog languages: "nobody
#: at the table is called me (opponents: Bo, Di)" answered a newcomer's hazard on "me".
ME = ("me", "myself", "moi", "mig", "my", "tôi", "toi", "مەن")


def _means_me(ctx: Context, word: str) -> bool:
    """Does ``word`` (lower case) name the player: "me", or not another player's name?"""
    return word in ME and not any(n.lower() == word for i, n in enumerate(ctx.names)
                                  if i != ctx.seat)


def card_number(ctx: Context, word: str) -> int | str:
    """A 1-based card number to a card id, or an error sentence."""
    cards = numbered(ctx)
    if not cards:
        return reply("hand-empty")
    missing = _not_held(ctx, word)
    if missing is not None and not 1 <= (_typed_number(word) or 0) <= len(cards):
        return missing
    try:
        n = int(word)
    except ValueError:
        if len(_folded(word)) >= 3 and not any(ch.isdigit() for ch in word):
            # a word, not a slip of the keys: the start of the names of two cards held
            # ("play limit" with Speed Limit and End of Limit), or a name of no card held
            # ("play banana": "'banana' is not a card number" said nothing of names)
            typed = _folded(word)
            kinds = sorted({KIND_OF[c] for c in cards if _names(KIND_OF[c], typed, False)
                            or _names_later_word(KIND_OF[c], typed)})
            if len(kinds) > 1:
                return reply("ambiguous", word=word,
                             choices=or_list(i18n.kind_name(k) for k in kinds))
            return reply("names-no-card", word=word, n=len(cards))
        return reply("not-a-number", word=word, n=len(cards))
    if not 1 <= n <= len(cards):
        return reply("no-such-card", n=n, held=len(cards))
    return cards[n - 1]


def _folded(text: str) -> str:
    """A name as typed or printed, compared without case, accents or the kind of
    apostrophe ("feu VERT" is "Feu vert", "reparations" is "Réparations")."""
    decomposed = unicodedata.normalize("NFKD", text.casefold().replace("\u2019", "'"))
    return " ".join("".join(ch for ch in decomposed if not unicodedata.combining(ch)).split())


_NAMES: dict[tuple[str, Kind], frozenset[str]] = {}


def _names_of(k: Kind) -> frozenset[str]:
    """The names a player may type for a card kind: as printed and as shortened in the
    active language, and in English (every example in the help is English)."""
    key = (i18n.active().language, k)
    if key not in _NAMES:
        english = i18n.Translator("en")
        _NAMES[key] = frozenset(_folded(n) for n in (
            i18n.kind_name(k), i18n.short_kind_name(k), i18n.kind_name(k, english),
            i18n.short_kind_name(k, english)))
    return _NAMES[key]


_TYPED: dict[str, dict[str, str]] = {}


def typed_verbs() -> dict[str, str]:
    """The commands as a player may type them in the active language (folded, see
    :func:`_folded`), each to its English verb: a French newcomer typed "jouer 1" and
    "aide" and read "unknown command". The English ones work in every language."""
    lang = i18n.active().language
    if lang not in _TYPED:
        # Translators: each command as a player may type it in your language, besides the
        # English word (which always works): one word, no space. ("coup", for a coup
        # fourré, is the game's own word in every language.)
        words = {"play": pgettext("command", "play"),
                 "discard": pgettext("command", "discard"),
                 "draw": pgettext("command", "draw"),
                 "pass": pgettext("command", "pass"),
                 "extend": pgettext("command", "extend"),
                 "why": pgettext("command", "why"),
                 "help": pgettext("command", "help"),
                 "rules": pgettext("command", "rules"),
                 "next": pgettext("command", "next"),
                 "quit": pgettext("command", "quit"),
                 "yes": pgettext("command", "yes"),
                 "no": pgettext("command", "no"),
                 # the word before a name: play 3 on bo
                 "on": pgettext("command", "on")}
        typed: dict[str, str] = {}
        for verb, word in words.items():
            if not word.strip() or " " in word.strip():
                continue
            for key in (word.strip().casefold(), _folded(word)):
                # as typed, and without its accents where that is no English command
                # or the start of one (Vietnamese "có", yes, is not "co", coup)
                if key == verb or key == word.strip().casefold() or not (
                        key in ALIASES or any(v.startswith(key) for v in VERBS)):
                    typed.setdefault(key, verb)
        _TYPED[lang] = typed
    return _TYPED[lang]


def _typed(word: str) -> str | None:
    """The English command a word typed in the active language is (:func:`typed_verbs`),
    or None."""
    typed = typed_verbs()
    return typed.get(word.strip().casefold(), typed.get(_folded(word)))


def command_of(word: str) -> str:
    """The English command a first word typed stands for, as :func:`parse` reads it: the
    word in the active language ("jouer": play), a short form ("p", "?"), else the word
    itself (lower case). For the full screen's completion, which knew the English alone."""
    verb = word.lower()
    local = _typed(verb)
    if local is not None and local != "on":
        verb = local
    return "why" if verb == "?" else ALIASES.get(verb, verb)


def card_words(ctx: Context, args: Sequence[str], taken: Sequence[int] = ()) -> tuple[str, int]:
    """The card the words at the start of ``args`` name, as its number in the hand, and how
    many words named it: a newcomer types "play roll", "discard spare tire" or "play 200"
    (a 200 km card, not card 200), and was told "'roll' is not a card number". A number
    that can be a card's number is one; a name held twice is the first not in ``taken``
    (numbers already named). Anything else is left as typed (a card's name in all its
    words, else one word), for :func:`card_number` to answer."""
    cards = numbered(ctx)
    first = args[0]
    if 1 <= (_typed_number(first) or 0) <= len(cards):
        return first, 1
    spans = range(min(len(args), 4), 0, -1)
    # a name whole, then its start, then the start of a later word of it ("discard tire"
    # with a Spare Tire held, "play ace": "'tire' is not a card number")
    for exact in (True, False, None):
        for n in spans:
            typed = _folded(" ".join(args[:n]))
            if exact is not True and len(typed) < 3:
                continue
            fits = [i for i, c in enumerate(cards, 1) if (
                _names_later_word(KIND_OF[c], typed) if exact is None
                else _names(KIND_OF[c], typed, exact))]
            if len({KIND_OF[cards[i - 1]] for i in fits}) != 1:
                continue
            free = [i for i in fits if i not in taken]
            return str(free[0] if free else fits[0]), n
    for n in spans:
        # a card not held, named in words: all of them, to say "you hold no Extra Tank"
        if n > 1 and _not_held(ctx, " ".join(args[:n])) is not None:
            return " ".join(args[:n]), n
    return first, 1


def _typed_number(word: str) -> int | None:
    """The number ``word`` is, written in decimal digits (of any script, as ``int``
    reads them), at most 9 of them; else None. "²" passed ``str.isdigit`` and ``int``
    refused it, as it refuses 5,000 digits: a keypress raised ValueError."""
    return int(word) if word.isdecimal() and len(word) <= 9 else None


def _names(k: Kind, typed: str, exact: bool = True) -> bool:
    """Whether ``typed`` (folded) names card kind ``k``: a distance card by its km, any
    card by one of its names (:func:`_names_of`), whole or, not ``exact``, its start."""
    km = _typed_number(typed)
    if km is not None:
        return DISTANCE_VALUE.get(k) == km
    return any(name == typed if exact else name.startswith(typed) for name in _names_of(k))


def _names_later_word(k: Kind, typed: str) -> bool:
    """Whether ``typed`` (folded) is the start of a word after the first of one of card
    kind ``k``'s names, and of what follows it ("tire", "ace", "of way", "proof")."""
    if _typed_number(typed) is not None:
        return False
    for name in _names_of(k):
        words = re.split(r"[ \-]", name)
        if any(" ".join(words[i:]).startswith(typed) for i in range(1, len(words))):
            return True
    return False


def _numbers(ctx: Context, args: Sequence[str]) -> list[str]:
    """Every card ``args`` name, by number (``discard 25 stop``: each by :func:`card_words`,
    a card named twice held twice is two cards)."""
    out: list[str] = []
    rest = list(args)
    while rest:
        number, named = card_words(ctx, rest, [n for n in map(_typed_number, out) if n])
        out.append(number)
        rest = rest[named:]
    return out


def _not_held(ctx: Context, word: str) -> str | None:
    """The answer to a card named but not held ("you hold no Roll"), or None when ``word``
    names no card."""
    typed = _folded(word)
    for k in Kind:
        if _names(k, typed):
            return reply("not-held", card=i18n.kind_name(k), n=len(numbered(ctx)))
    return None


def _why(ctx: Context, card: int, target: int | None = None) -> str:
    name = card_name(card, ctx.lang)
    busy = _not_now(ctx) if ctx.view.phase != OVER else None
    if busy:
        # whose turn it is, in words (the engine's "It is Bo's move, not You's [R4]" was
        # said to "why 1" typed in another's turn, in English in every language)
        return reply("cannot-play", card=name, reason=after_colon(busy, ctx.names))
    reason = explain(ctx.view, ctx.seat, card, target)
    if reason is None:
        return reply("can-play", card=name)
    if ctx.prompt_below and ctx.view.phase == RESPOND:
        # a hazard to answer: the status line under this says how; the reason's words
        # ("Only the matching safety (or remedy) answers this hazard") were cut with
        # "(all of it in the log)" above it at 80 columns in four languages
        tag = re.search(r" \[R[^\]]*\]$", rule_last(reason))
        return reply("answer-first-not-this-below", card=name) + (tag[0] if tag else "")
    side: str | None = None
    seating = ctx.view.seating
    mine = seating.side_of(ctx.seat)
    others = [s for s in range(seating.n_teams) if s != mine]
    if family(card) is Family.HAZARD and target is None and len(others) > 1 \
            and ctx.view.phase == PLAY:
        # aimed at no one, with several opponents: why it goes on none of them, each
        # named (the reason about the first alone read as if the others could be hit)
        labels = side_names(ctx.names, seating)
        reasons = [(labels[s], with_names(explain(ctx.view, ctx.seat, card, s) or "",
                                          ctx.names)) for s in others]
        return reply("cannot-play", card=name,
                     reason=after_colon(every_side_reason(reasons), ctx.names))
    if family(card) is Family.HAZARD:
        # the side the reason is about, named in it ("Bo has not played a Roll yet"): the
        # one aimed at, else the first opposing side, whose reason explain gives
        aimed = target if target is not None else next(
            (s for s in range(seating.n_teams) if s != mine), None)
        if aimed is not None and aimed != mine and 0 <= aimed < seating.n_teams:
            side = side_names(ctx.names, seating)[aimed]
    return reply("cannot-play", card=name, reason=after_colon(
        rule_last(with_names(reason, ctx.names), side=side), ctx.names))


#: Answers to a yes/no question, in English and as players of the other languages type
#: them (French "o"/"oui" did nothing).
YES = ("y", "yes", "o", "oui", "j", "ja")
NO = ("n", "no", "non", "nej", "nee")


#: A card's number then p (play) or d (discard), as the board's keys are pressed.
_BOARD_KEYS = re.compile(r"(\d{1,2})([pd])")


def parse(text: str, ctx: Context, extra: Sequence[str] = ()) -> Outcome:
    """Resolve one command line against the current view and legal actions. ``extra``: the
    console's own commands besides these (the line mode's ``look``), for the "did you
    mean" of a typo."""
    words = text.strip().split()
    if not words:
        if ctx.hand_over and not ctx.match_over:
            return Outcome("next")
        return Outcome("none")
    verb, args = words[0].lower(), words[1:]
    if not args and (keys := _BOARD_KEYS.fullmatch(verb)) is not None:
        # the full screen's keys typed as a line ("3p": card 3, then p): the line mode
        # said "unknown command '3p'" to a player who had learnt them on the board
        verb, args = keys.group(2), [keys.group(1)]
    local = _typed(verb)
    if local is not None and local != "on":
        verb = local
    if verb == "?":
        verb = "why"
    elif verb.startswith("?"):
        verb, args = "why", [verb[1:], *args]
    if verb == "n" and ctx.view.phase == RESPOND and not ctx.hand_over:
        verb = "pass"      # the prompt says "n to let it stand": n is "next" elsewhere
    if ctx.view.phase == RESPOND and not ctx.hand_over and not args \
            and _yes_no(verb) is not None and ctx.view.attack is not None \
            and ctx.seat in ctx.view.attack.waiting_for():
        # "no" (non, nej) to "c for a coup fourré, n to let it stand" lets it stand; a
        # yes is no answer to it (a coup fourré is c): both said "nothing to confirm"
        if not _yes_no(verb):
            verb = "pass"
        else:
            return _err(_phase_hint(ctx))
    if verb == "g" and not args and ctx.view.phase == DRAW and not ctx.hand_over:
        verb, args = "draw", ["discard"]   # the prompt says "take X (g; draw discard)"
    if ctx.view.phase == EXTEND and not args and _yes_no(verb) is not None:
        # the prompt says "n (extend no) … y (extend yes)": a plain-mode player typed y
        verb, args = "extend", ["yes" if _yes_no(verb) else "no"]
    if not args and _yes_no(verb):
        verb = "yes"   # y (o, j) with no question open: said as yes is, not "unknown command"
    verb = ALIASES.get(verb, verb)
    matches = [v for v in VERBS if v.startswith(verb)] if len(verb) >= 2 else []
    if verb not in VERBS and len(matches) == 1:
        verb = matches[0]
    if verb == "help":
        return Outcome("help", help_text(True))
    if verb == "rules":
        return Outcome("rules", how_to_play())
    if verb == "quit":
        return Outcome("quit")
    if verb == "next":
        if ctx.match_over:
            return _err(reply("match-over"))
        if not ctx.hand_over:
            return _err(reply("hand-in-play", hint=_not_now(ctx) or _phase_hint(ctx)))
        return Outcome("next")
    if verb in ("yes", "no"):
        return _err(reply("nothing-to-confirm"))
    if verb in ("why", "play") and args:
        number, named = card_words(ctx, args)
        args = [number, *args[named:]]
    if verb == "discard":
        args = _numbers(ctx, args)
    if ctx.view.phase == OVER:
        if verb == "why" and args:
            c = card_number(ctx, args[0])
            return _err(c) if isinstance(c, str) else Outcome("message", sentence(_why(ctx, c)))
        if ctx.match_over:
            return _err(reply("match-over"))
        if ctx.watching:
            # a bot plays this seat: that is why, not that this hand is over (a watcher
            # catching up is answered at each hand's end)
            return _err(ctx.watching)
        return _err(reply("hand-over"))
    if verb == "why":
        if not args:
            return _err(reply("why-which"))
        c = card_number(ctx, args[0])
        if isinstance(c, str):
            return _err(c)
        target = None
        rest = args[1:]
        on = bool(rest) and (rest[0].lower() in ("on", "at", "sur", "to")
                             or _typed(rest[0]) == "on")
        if on:
            rest = rest[1:]
        if rest and (on or family(c) is Family.HAZARD):
            # "why 3 cy", as "play 3 cy" aims at Cy (the name was ignored without "on");
            # a name after a card that is no hazard is not read as a target unless "on"
            # says so ("why 5 bo" of a remedy was not to be "name no target")
            t = resolve_target(ctx, rest[0])
            if isinstance(t, str):
                return _err(t)
            target = t
        # a sentence, as an error says the same reason when p refuses the card (? said it
        # without its full stop)
        return Outcome("message", sentence(_why(ctx, c, target)))
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
    number, named = card_words(ctx, words)
    if 1 <= (_typed_number(number) or 0) <= len(numbered(ctx)):
        # a card alone, as the full screen's digits pick one ("3", "roll"): what to type,
        # once a card can be played or discarded at all ("to play Roll, type play 3" was
        # said with a hazard to answer, and "play 3" then refused)
        busy = _not_now(ctx) if ctx.view.phase != OVER else None
        if busy or ctx.view.phase in (DRAW, RESPOND, EXTEND):
            return _err(busy or _phase_hint(ctx))
        return _err(reply("card-alone", n=number,
                          card=card_name(numbered(ctx)[int(number) - 1], ctx.lang)))
    glued = re.fullmatch(r"(\D+?)(\d+)", words[0])
    if glued and command_of(glued[1]) in ("play", "discard", "why"):
        # the card's number glued to its command ("play3": did you mean 'play'?; "d3":
        # unknown command): the command as it is typed
        return _err(reply("did-you-mean", word=" ".join(words),
                          guess=" ".join([glued[1], glued[2], *words[1:]])))
    return _err(unknown_command(words[0], (*VERBS, *extra)))


#: The words that say the table and the hand again in the line mode (and Enter on one's
#: turn); the full screen, which always shows them, says where they are.
LOOK = ("look", "l", "board", "hand", "status")


def is_look(text: str) -> bool:
    """Whether ``text`` asks to see the table (:data:`LOOK`), whatever follows the word:
    "look at bo" was "unknown command 'look': did you mean 'look'?", "hand 3" an unknown
    command 'hand'."""
    words = text.strip().lower().split()
    return bool(words) and words[0] in LOOK


def unknown_command(word: str, known: Sequence[str]) -> str:
    """An unknown command in words: with the known command closest to it when there is
    one ("paly": did you mean 'play'?), else where the list is."""
    guess = close_match(word, known)
    if guess:
        return reply("did-you-mean", word=word, guess=guess)
    return reply("unknown-command", word=word)


def _not_now(ctx: Context) -> str | None:
    """Why the human cannot act at all now, or None: whose turn it is when one player's
    ("it is Ann's turn"), said before anything about the card typed."""
    if ctx.watching:
        return ctx.watching
    if ctx.paused:
        return ctx.paused
    actors = ctx.view.actors()
    if ctx.seat in actors:
        return None
    if len(actors) == 1 and 0 <= actors[0] < len(ctx.names):
        return reply("not-your-turn", name=ctx.names[actors[0]])
    return reply("not-your-move")


def _phase_hint(ctx: Context) -> str:
    phase = ctx.view.phase
    if phase == DRAW:
        return reply("draw-first-below" if ctx.prompt_below else "draw-first")
    if phase == RESPOND:
        if ctx.prompt_below:
            return reply("answer-first-below")
        return reply("answer-remedy-first" if _remedy_round(ctx) else "answer-first")
    if phase == EXTEND:
        return reply("decide-first")
    return reply("play-or-discard")


def _remedy_round(ctx: Context) -> bool:
    """Fast play's second round of answers to a hazard (R10a): its remedy may answer it
    now; the coup fourré's round is over."""
    att = ctx.view.attack
    return ctx.view.phase == RESPOND and att is not None and att.stage == 2


def _play_remedy(ctx: Context) -> Outcome:
    """"p" (play alone) in fast play's remedy round, as its prompt says: the remedy held,
    else why none can be played."""
    for a in ctx.legal:
        if isinstance(a, FastRemedy):
            return Outcome("action", action=a)
    att = ctx.view.attack
    assert att is not None
    hazard = kind(att.card)
    return _err(reply("no-remedy-below" if ctx.prompt_below else "no-remedy",
                      remedy=i18n.kind_name(REMEDY_FOR[hazard]),
                      hazard=i18n.kind_name(hazard)))


def _play(ctx: Context, args: list[str]) -> Outcome:
    busy = _not_now(ctx)
    if busy:
        return _err(busy)
    if not args and _remedy_round(ctx):
        return _play_remedy(ctx)
    if not args:
        # "play" alone while a card must be drawn (or a hazard answered) asked "which
        # card?", and the card named then was refused with the draw to make first
        return _err(reply("play-which") if ctx.view.phase == PLAY else _phase_hint(ctx))
    c = card_number(ctx, args[0])
    if isinstance(c, str):
        return _err(c)
    phase = ctx.view.phase
    name = card_name(c, ctx.lang)
    if phase == RESPOND:
        for a in ctx.legal:
            if isinstance(a, (FastRemedy,)) and a.card == c:
                return Outcome("action", action=a)
        if family(c) is Family.SAFETY:
            return _answer(ctx, "coup")
        return _err(reply("answer-first-not-this-below" if ctx.prompt_below
                          else "answer-remedy-not-this" if _remedy_round(ctx)
                          else "answer-first-not-this", card=name))
    if phase != PLAY:
        return _err(_phase_hint(ctx))
    target_word: str | None = None
    if len(args) >= 2:
        rest = args[1:]
        if rest[0].lower() in ("on", "at", "sur", "to") or _typed(rest[0]) == "on":
            rest = rest[1:]
        target_word = rest[0] if rest else None
    plays = [a for a in ctx.legal if isinstance(a, Play) and a.card == c]
    if len(args) >= 2 and target_word is None:
        # "play 1 on" said "play 1 on whom?" of a 25 (it goes on no one), and of a hazard
        # named no one to choose from
        if family(c) is not Family.HAZARD:
            return _err(reply("not-a-hazard", card=name, n=args[0]) if plays
                        else _why(ctx, c))
        seating = ctx.view.seating
        mine = seating.side_of(ctx.seat)
        opp = [ctx.names[s] for s in range(seating.n_players) if seating.side_of(s) != mine]
        return _err(reply("on-whom", n=args[0], name=opp[0], opponents=i18n.join_list(opp)))
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
        opts = or_list(f"play {args[0]} on {labels[a.target].split(' & ')[0]}"
                       for a in plays if a.target is not None)
        return _err(reply("say-whom", card=name, options=opts))
    if target_word is not None:
        # a name after a card that goes on one's own side: refused whatever it is (the
        # card was played, ignoring "on zz"), a name nobody has said as such
        t = resolve_target(ctx, target_word)
        if isinstance(t, str) and not _means_me(ctx, target_word.lower()) and not any(
                n.lower().startswith(target_word.lower()) for n in ctx.names):
            return _err(t)
        if plays:
            # the hint only where "play N" works; else why the card cannot be played
            return _err(reply("not-a-hazard", card=name, n=args[0]))
    if plays:
        return Outcome("action", action=plays[0])
    return _err(_why(ctx, c))


def _discard(ctx: Context, args: list[str]) -> Outcome:
    busy = _not_now(ctx)
    if busy:
        return _err(busy)
    if not args:
        # "play" alone while a card must be drawn (or a hazard answered) asked "which
        # card?", and the card named then was refused with the draw to make first
        return _err(reply("discard-which") if ctx.view.phase == PLAY else _phase_hint(ctx))
    cards = []
    for w in args:
        c = card_number(ctx, w)
        if isinstance(c, str):
            return _err(c)
        cards.append(c)
    if ctx.view.phase != PLAY:
        return _err(_phase_hint(ctx))
    if len(cards) > 1:
        if len(set(cards)) != len(cards):
            return _err(reply("each-once"))
        for a in ctx.legal:
            if isinstance(a, FastDiscard) and sorted(a.cards) == sorted(cards):
                return _confirm_safety(ctx, cards, a)
        return _err(reply("one-at-a-time"))
    for a in ctx.legal:
        if isinstance(a, Discard) and a.card == cards[0]:
            return _confirm_safety(ctx, cards, a)
    return _err(reply("cannot-discard", card=card_name(cards[0], ctx.lang)))


def _confirm_safety(ctx: Context, cards: list[int], action: Action) -> Outcome:
    safeties = [c for c in cards if family(c) is Family.SAFETY]
    if not safeties:
        return Outcome("action", action=action)
    names = i18n.join_list(card_name(c, ctx.lang) for c in safeties)
    return Outcome("confirm", reply("confirm-safety", cards=names), action)


def _draw(ctx: Context, args: list[str]) -> Outcome:
    busy = _not_now(ctx)
    if busy:
        return _err(busy)
    if ctx.view.phase != DRAW:
        if ctx.view.phase == PLAY:
            return _err(reply("drawn-already"))
        return _err(_phase_hint(ctx))
    source = "pile"
    if args:
        w = args[0].lower()
        if "discard".startswith(w) or _folded(w) == "defausse" \
                or _typed(w) == "discard":
            source = "discard"
        elif not ("pile".startswith(w) or w == "deck"):
            return _err(reply("draw-where", word=args[0]))
    for a in ctx.legal:
        if isinstance(a, Draw) and a.source == source:
            return Outcome("action", action=a)
    if source == "discard":
        if not ctx.view.rules.draw_discard:
            return _err(reply("no-discard-draw"))
        if not ctx.view.discard:
            return _err(reply("discard-empty"))
        return _err(reply("pile-only"))
    return _err(reply("cannot-draw"))


def _answer(ctx: Context, verb: str) -> Outcome:
    """R9: coup and pass are offered alike whether or not the safety is held; a coup
    without it is refused only after the same prompt."""
    busy = _not_now(ctx)
    if busy:
        if ctx.watching or ctx.paused:
            return _err(busy)
        if ctx.view.phase == RESPOND:
            return _err(reply("answer-in"))
        return _err(reply("no-hazard"))
    if ctx.view.phase != RESPOND:
        return _err(reply("no-hazard-hint", hint=_phase_hint(ctx)))
    if verb == "pass":
        return Outcome("action", action=Pass(ctx.seat))
    if _remedy_round(ctx):
        return _err(reply("coup-round-over-below" if ctx.prompt_below else "coup-round-over"))
    for a in ctx.legal:
        if isinstance(a, CoupFourre):
            return Outcome("action", action=a)
    att = ctx.view.attack
    assert att is not None
    hazard = kind(att.card)
    safety = i18n.kind_name(SAFETY_FOR[hazard])
    return _err(reply("no-coup", safety=safety, hazard=i18n.kind_name(hazard)))


def _extend(ctx: Context, args: list[str]) -> Outcome:
    busy = _not_now(ctx)
    if busy:
        return _err(busy)
    if ctx.view.phase != EXTEND:
        return _err(reply("no-extension"))
    answer = _yes_no(args[0]) if args else None
    if answer is None:
        return _err(reply("extend-how"))
    return Outcome("action", action=Extend(ctx.seat, answer))


def _yes_no(word: str) -> bool | None:
    """A yes or a no as typed (English, the usual short forms, the active language's),
    else None."""
    w = word.strip().lower()
    local = _typed(w)
    if w in YES or local == "yes":
        return True
    if w in NO or local == "no":
        return False
    return None


class Commander:
    """Command lines to outcomes, with the confirmation step before discarding a safety.
    ``extra``: the console's own commands (see :func:`parse`)."""

    def __init__(self, extra: Sequence[str] = ()) -> None:
        self.pending: Outcome | None = None
        self.extra = tuple(extra)

    def handle(self, text: str, ctx: Context) -> Outcome:
        if self.pending is not None:
            pending, self.pending = self.pending, None
            answer = _yes_no(text)
            if answer:
                return Outcome("action", action=pending.action)
            if answer is not None or not text.strip():
                return Outcome("message", reply("kept"))
        out = parse(text, ctx, self.extra)
        if out.kind == "confirm":
            self.pending = out
        return out
