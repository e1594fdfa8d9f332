"""Pure rendering: a seat's view (+ names, language, colour flag) to lines of text.

A *line* is a list of prompt_toolkit style fragments ``(style, text)``; the full-screen
app shows them as they are, the plain mode joins the texts (:func:`plain`). Nothing here
does I/O or keeps state, so every function is unit-tested on constructed views.
Everything fits 80 columns.
"""

from __future__ import annotations

import functools
import inspect
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from engine import (
    Action,
    CoupFourre,
    Family,
    FastRemedy,
    HandState,
    Kind,
    Play,
    family,
    kind,
)
from engine.cards import DISTANCE_VALUE, SAFETIES
from engine.scoring import MODERN_COUP_FOURRE, MODERN_SAFETY, Match, SideScore
from engine.state import PLAY

from . import i18n
from .driver import PeerStatus
from .i18n import _, ngettext
from .words import (
    WIDTH,
    bonus_notes,
    card_name,
    match_so_far_line,
    rules_name,
    rules_short,
    side_labels,
    stuck_reason,
    waiting_text,
    with_you,
    wrap,
    you_label,
)

Fragment = tuple[str, str]
Line = list[Fragment]


def join_lines(lines: Sequence[Line]) -> list[Fragment]:
    """Lines as one run of fragments, newline-separated (what a text control shows)."""
    out: list[Fragment] = []
    for i, line in enumerate(lines):
        if i:
            out.append(("", "\n"))
        out.extend(line)
    return out


FAMILY_CLASS: dict[Family, str] = {
    Family.DISTANCE: "class:distance", Family.HAZARD: "class:hazard",
    Family.REMEDY: "class:remedy", Family.SAFETY: "class:safety",
}
FAMILY_WORD: dict[str, dict[Family, str]] = {
    "en": {Family.DISTANCE: "distance", Family.HAZARD: "hazard", Family.REMEDY: "remedy",
           Family.SAFETY: "safety"},
    "fr": {Family.DISTANCE: "distance", Family.HAZARD: "attaque", Family.REMEDY: "parade",
           Family.SAFETY: "botte"},
}
def family_words() -> dict[Family, str]:
    """Each family's word in the active language."""
    return {f: i18n.family_name(f) for f in Family}


FAMILY_LETTER: dict[Family, str] = {Family.DISTANCE: "D", Family.HAZARD: "H",
                                    Family.REMEDY: "R", Family.SAFETY: "S"}
SAFETY_ABBR: dict[str, dict[Kind, str]] = {
    "en": {Kind.RIGHT_OF_WAY: "RW", Kind.EXTRA_TANK: "ET", Kind.PUNCTURE_PROOF: "PP",
           Kind.DRIVING_ACE: "DA"},
    "fr": {Kind.RIGHT_OF_WAY: "VP", Kind.EXTRA_TANK: "CE", Kind.PUNCTURE_PROOF: "IN",
           Kind.DRIVING_ACE: "AV"},
}

#: Style rules by class. Colour carries meaning: hazards red, remedies green, safeties blue.
COLOR_RULES: dict[str, str] = {
    "hazard": "ansired bold", "remedy": "ansigreen bold", "safety": "ansiblue bold",
    "distance": "", "title": "bold", "you": "bold", "turn": "bold ansiyellow",
    "dim": "ansibrightblack", "bar": "ansicyan", "bar.empty": "ansibrightblack",
    "selected": "reverse", "playable": "bold", "status": "reverse", "error": "ansired bold",
    "prompt": "bold", "log": "", "help": "", "frame": "ansibrightblack",
    "target": "bold underline",
}
MONO_RULES: dict[str, str] = {
    "hazard": "", "remedy": "", "safety": "", "distance": "", "title": "bold", "you": "bold",
    "turn": "bold", "dim": "", "bar": "", "bar.empty": "", "selected": "reverse",
    "playable": "bold", "status": "reverse", "error": "bold", "prompt": "bold", "log": "",
    "help": "", "frame": "", "target": "bold underline",
}


def style_rules(color: bool) -> list[tuple[str, str]]:
    """Rules for ``prompt_toolkit.styles.Style``; without colour only bold/reverse remain."""
    return list((COLOR_RULES if color else MONO_RULES).items())


def plain(lines: Sequence[Line]) -> list[str]:
    """The text of each line, styles dropped."""
    return ["".join(t for _, t in line).rstrip() for line in lines]


F = TypeVar("F", bound=Callable[..., Any])


def in_language(fn: F) -> F:
    """Render in the ``lang`` argument's language when it is not the active one (callers
    that name a language per call; the console activates one for the whole process)."""
    params = list(inspect.signature(fn).parameters.values())
    names = [p.name for p in params]
    at = names.index("lang")            # found once: binding the signature on every call
    default = params[at].default        # cost a tenth of plain mode's rendering time
    if params[at].kind is inspect.Parameter.KEYWORD_ONLY:
        at = -1

    @functools.wraps(fn)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if "lang" in kwargs:
            lang = kwargs["lang"]
        elif 0 <= at < len(args):
            lang = args[at]
        else:
            lang = None if default is inspect.Parameter.empty else default
        if lang and lang != i18n.active().language and lang in i18n.LANGUAGES:
            with i18n.using(lang, i18n.active().bidi):
                return fn(*args, **kwargs)
        return fn(*args, **kwargs)
    return wrapped  # type: ignore[return-value]


def width(line: Line) -> int:
    """A line's width in terminal cells."""
    return sum(i18n.cells(t) for _, t in line)


def _fit(text: str, n: int) -> str:
    return i18n.fit(text, n)


def latest_first_fit(values: Sequence[int], room: int) -> str:
    """``values`` joined by ", " within ``room`` columns, the last ones kept: "…425,
    475, 1400" rather than "2400, 1500, 4…"."""
    for start in range(len(values)):
        text = ("…" if start else "") + i18n.join_list(str(v) for v in values[start:])
        if i18n.cells(text) <= room:
            return text
    return _fit(str(values[-1]), room) if values else ""


def _pad(text: str, n: int) -> str:
    return i18n.pad(text, n)


def _column(text: str, n: int) -> str:
    """``text`` in a column of the board ``n`` cells wide, at the column's start: the left
    in a language read left to right, the right in Uyghur, whose board line is laid out
    from the right as a whole (:func:`i18n.display_fragments`; padded flush right in
    logical order, as when each fragment was ordered on its own, its words came out at the
    column's far side)."""
    return i18n.pad(text, n)


def card_class(card: int) -> str:
    return FAMILY_CLASS[family(card)]


@in_language
def card_label(card: int, lang: str | None = None, color: bool = True) -> str:
    """A card's name; without colour the family letter goes first (``H Stop``)."""
    name = card_name(card, lang)
    return name if color else f"{FAMILY_LETTER[family(card)]} {name}"


@in_language
def fitted_card_label(card: int, room: int, lang: str | None = None,
                      color: bool = True) -> str:
    """:func:`card_label` within ``room`` cells: the printed name when it fits, else the
    language's short name (fr "Prioritaire": "Véhicule prior…" was cut mid-word), cut
    with "…" only when even that does not fit."""
    label = card_label(card, lang, color)
    if i18n.cells(label) <= room:
        return label
    short = i18n.short_card_name(card)
    return _fit(short if color else f"{FAMILY_LETTER[family(card)]} {short}", room)


# ----- the table ------------------------------------------------------------------------

def match_line(match: Match, names: Sequence[str]) -> Line:
    """The match so far in one line: "Match to 5000: You 300 · Bo 450"."""
    target = match.rules.match_target
    labels = side_labels(names, match.seating)
    totals = " · ".join(f"{_fit(labels[i], 16)} {t}" for i, t in enumerate(match.totals()))
    head = (_("Match to %(target)d: ") % {"target": target}) if target else _("Match: ")
    return [("class:dim", _fit(head + totals, WIDTH))]


@in_language
def header_line(view: HandState, hand_no: int = 1, lang: str | None = None) -> Line:
    top = view.discard[-1] if view.discard else None
    line: Line = [("class:title", "Mille Bornes"),
                  ("", " · " + _("%(rules)s · hand %(hand)d · pile %(pile)d · discard: ")
                   % {"rules": rules_short(view.rules.preset), "hand": hand_no,
                      "pile": view.pile_size()})]
    if top is None:
        line.append(("class:dim", _("empty")))
    else:
        room = WIDTH - width(line)
        line.append((card_class(top), fitted_card_label(top, max(4, room), lang)))
    return line


def progress_bar(km: int, target: int, cells: int = 20) -> Line:
    filled = 0 if target <= 0 else min(cells, km * cells // target)
    return [("", "["), ("class:bar", "#" * filled), ("class:bar.empty", "." * (cells - filled)),
            ("", "]")]


def distance_summary(distance: Sequence[int]) -> str:
    """``25×2 100×1``: how many distance cards of each value lie on a zone."""
    counts = Counter(DISTANCE_VALUE[kind(c)] for c in distance)
    return " ".join(f"{v}×{counts[v]}" for v in sorted(counts)) or _("no distance yet")


@in_language
def safeties_text(view: HandState, side: int, lang: str | None = None, short: bool = True) -> str:
    """Safeties of a side; ``*`` (short) or ``(coup fourré)`` marks a coup fourré."""
    zone = view.zones[side]
    out = []
    for c in zone.safeties:
        k = kind(c)
        name = i18n.safety_abbreviation(k) if short else card_name(c, lang)
        if c in zone.coups:
            name += "*" if short else " (" + i18n.rule_term("coup fourré") + ")"
        out.append(name)
    return (" " if short else ", ").join(out)


@in_language
def zone_lines(view: HandState, side: int, names: Sequence[str], seat: int | None,
               lang: str | None = None, verbose: bool = False,
               peers: Sequence[PeerStatus] | None = None, target: bool = False,
               width: int = WIDTH) -> list[Line]:
    """Two lines for one side; in verbose mode (plain, screen readers) sentences, within
    ``width`` columns.

    ``seat`` ``None``: nobody's side is "you" (a replay, a spectator). ``target``: the
    selected hazard would go on this side (``t`` chooses it): an arrow before its name,
    since "Target: Bo." alone left a newcomer looking for which row that was."""
    if verbose:
        return zone_sentences(view, side, names, seat, lang, peers, width)
    seating = view.seating
    seats = seating.seats_of(side)
    zone = view.zones[side]
    mine = seat is not None and view.side_of(seat) == side
    acting = set(view.actors())
    label = side_labels(names, seating)[side]
    if seat is not None and mine and names[seat] != "You":   # "You" says it already
        label = with_you(label) if seating.team_size == 1 else label + _(" (your side)")
    cards = "/".join(str(view.hand_size(s)) for s in seats)
    marker = "▶ " if acting & set(seats) else "  "
    battle = zone.battle[-1] if zone.battle else None
    speed = zone.speed[-1] if zone.speed else None
    off = [p.state for p in peers or () if p.seat in seats and p.state in ("offline", "left")]
    # a side whose player left says so in its cards column: after the last column the
    # word was cut off at 80 columns (a stray "le")
    count = ("class:error", " " + _column(_("left") if off[0] == "left" else _("offline"), 12)
             + " ") if off else \
        ("class:dim", " " + _column(_("%(cards)s cards") % {"cards": cards}, 12) + " ")
    if target:
        label = "→ " + label
    line1: Line = [("class:turn", marker),
                   ("class:target" if target else "class:you" if mine else "", _pad(label, 22)),
                   count,
                   ("", "│ ")]
    if battle is None and not zone.rolling(view.rules):
        line1.append(("class:dim", _column(_("not started") if not zone.started else "—",
                                           17)))
    elif battle is not None and zone.hazard_in_force() is not None:
        line1.append((card_class(battle), _column(card_name(battle, lang), 17)))
    else:
        # what counts is whether the side rolls: a cured hazard ("Stop" under Right of
        # Way) or a remedy on top ("Gasoline", still stopped in classic) read otherwise
        line1.append(("class:dim", _column(_("rolling") if zone.rolling(view.rules)
                                           else _("needs a Roll"), 17)))
    line1.append(("", " │ "))
    if speed is None or not zone.limited():   # End of Limit, or Right of Way: no limit
        line1.append(("class:dim", _column(_("no limit"), 17)))
    else:
        line1.append((card_class(speed), _column(card_name(speed, lang), 17)))
    km = f"{zone.km:>4}/{view.target}"
    line2: Line = [("", "  "), ("", km.ljust(9)), ("", " ")]
    line2 += progress_bar(zone.km, view.target, 14)
    safe = safeties_text(view, side, lang, short=True)
    used = " · " + _("200 km cards %(used)d/2") % {"used": zone.n200}
    summary = distance_summary(zone.distance)
    # the summary's column is 20 wide (the rows line up) and takes what the rest of the
    # line leaves when it needs more: "25×2 50×2 75×1 100×3 200×2" was cut to "100×…"
    room = WIDTH - sum(i18n.cells(t) for _s, t in line2) - 1 \
        - (i18n.cells(safe) + 1 if safe else 0)
    if i18n.cells(summary) > max(20, room - i18n.cells(used)) and zone.n200:
        used = ""         # "200×2" in the summary says it
    if used and max(20, i18n.cells(summary)) + i18n.cells(used) > room:
        # none of the 200s played, said last: the line ran past the screen's edge (84
        # cells in Uyghur with two safeties, every line of the board then cut by one)
        used = ""
    column = max(20, min(i18n.cells(summary), room - i18n.cells(used)))
    line2.append(("", " " + _pad(summary, max(1, min(column, room - i18n.cells(used))))))
    if used:
        line2.append(("class:dim", used))
    if safe:
        line2.append(("", " "))
        line2.append(("class:safety", safe))
    return [line1, line2]


def cured_hazard(view: HandState, side: int) -> bool:
    """Is the card on top of ``side``'s battle pile a hazard that its safety, now in
    play, cancelled (R8: it lies there without effect)?"""
    zone = view.zones[side]
    return bool(zone.battle) and family(zone.battle[-1]) is Family.HAZARD \
        and zone.hazard_in_force() is None


@in_language
def zone_sentences(view: HandState, side: int, names: Sequence[str], seat: int | None,
                   lang: str | None = None, peers: Sequence[PeerStatus] | None = None,
                   width: int = WIDTH) -> list[Line]:
    """One side in words, wrapped to ``width`` columns: for screen readers and scripts
    (wrapped at 80, then again by a narrower terminal, its lines came out ragged:
    "Battle:" / "not started. Speed:" / "no limit.")."""
    seating = view.seating
    seats = seating.seats_of(side)
    zone = view.zones[side]
    label = side_labels(names, seating)[side]
    mine = seat is not None and view.side_of(seat) == side
    if seat is not None and mine and names[seat] != "You":   # "You" says it already
        label = with_you(label) if seating.team_size == 1 else label + _(" (your side)")
    moving = bool(set(view.actors()) & set(seats))
    parts = [(_("%(side)s, to move:") if moving else _("%(side)s:")) % {"side": label}]
    parts.append(i18n.join_list(i18n.cards_count(view.hand_size(s))
                           # "You" in the player's language ("7 cartes (You)")
                           + (f" ({you_label(names[s])})" if len(seats) > 1 else "")
                           for s in seats) + ".")
    if peers and any(p.seat in seats and p.state in ("offline", "left") for p in peers):
        parts.append(_("Left the table (the game waits)."))
    if zone.battle and cured_hazard(view, side):
        values = {"card": card_name(zone.battle[-1], lang)}
        parts.append((_("Battle: rolling (the %(card)s on top has no effect: its safety is "
                        "out).") if zone.rolling(view.rules) else
                      _("Battle: a Roll is needed (the %(card)s on top has no effect: its "
                        "safety is out).")) % values)
    elif zone.battle and zone.hazard_in_force() is None and not zone.rolling(view.rules):
        # a remedy on top does not set a side rolling (classic): say what it still needs
        parts.append(_("Battle: %(card)s; a Roll is needed.")
                     % {"card": card_name(zone.battle[-1], lang)})
    elif zone.battle and kind(zone.battle[-1]) is Kind.ROLL:
        parts.append(_("Battle: rolling."))     # the board's word, not "Roll" beside it
    elif zone.battle and zone.hazard_in_force() is None:
        # a remedy that set the side rolling (modern): "Battle: Gasoline." did not say
        # the side may drive
        parts.append(_("Battle: rolling (%(card)s on top).")
                     % {"card": card_name(zone.battle[-1], lang)})
    elif zone.battle:
        parts.append(_("Battle: %(card)s.") % {"card": card_name(zone.battle[-1], lang)})
    elif zone.rolling(view.rules):
        # Right of Way with nothing on the pile: "Battle: empty" read as not started
        parts.append(_("Battle: rolling."))
    else:
        parts.append(_("Battle: empty.") if zone.started else _("Battle: not started."))
    limit = zone.speed and zone.limited()
    parts.append(_("Speed: %(card)s.") % {
        "card": card_name(zone.speed[-1], lang) if limit else _("no limit")})
    if zone.distance:
        dist = distance_summary(zone.distance).replace(" ", ", ")
        parts.append(_("%(km)d of %(target)d km (%(cards)s); 200s used %(used)d of 2.")
                     % {"km": zone.km, "target": view.target, "cards": dist,
                        "used": zone.n200})
    else:
        parts.append(_("0 of %(target)d km.") % {"target": view.target})
    if zone.safeties:
        parts.append(_("Safeties: %(cards)s.")
                     % {"cards": safeties_text(view, side, lang, short=False)})
    text = " ".join(parts)
    wrapped = ["  " + w for w in i18n.wrap(text, max(20, width - 4))]
    return [[("class:you" if i == 0 and mine else "", w if i == 0 else "  " + w)]
            for i, w in enumerate(wrapped)]


@in_language
def table_lines(view: HandState, names: Sequence[str], seat: int | None, hand_no: int = 1,
                lang: str | None = None, verbose: bool = False,
                peers: Sequence[PeerStatus] | None = None,
                target: int | None = None, width: int = WIDTH,
                match: Match | None = None) -> list[Line]:
    """The header, then every side, the human's side first (side 0 first when ``seat``
    is ``None``); ``target``: the side the selected hazard would go on, marked;
    ``width``: the columns verbose sentences are wrapped at; ``match`` (verbose): the
    match so far, said in the header once a hand of a match of several is scored (the
    full screen's second line says it; the line mode said it at a hand's end only)."""
    if verbose:
        top = card_name(view.discard[-1], lang) if view.discard else _("empty")
        head = (_("Hand %(hand)d, %(rules)s, trip %(target)d km. Draw pile: %(pile)s. "
                  "Discard pile: %(top)s.")
                % {"hand": hand_no, "rules": rules_name(view.rules.preset),
                   "target": view.target, "pile": i18n.cards_count(view.pile_size()),
                   "top": top})
        if match is not None and match.rules.match_target and match.hands:
            head += " " + match_so_far_line(match, names)
        lines = [[("class:title", w if i == 0 else "  " + w)]
                 for i, w in enumerate(i18n.wrap(head, max(20, width - 4)))]
    else:
        lines = [header_line(view, hand_no, lang)]
    n = view.seating.n_teams
    mine = 0 if seat is None else view.side_of(seat)
    for i in range(n):
        side = (mine + i) % n
        lines += zone_lines(view, side, names, seat, lang, verbose, peers,
                            target=side == target, width=width)
    return lines


# ----- the hand -------------------------------------------------------------------------

def playable_cards(view: HandState, legal: Sequence[Action]) -> set[int]:
    """Cards the human may play now. Only in the play phase: during a hazard's answer
    window nothing is marked, so the screen is the same whether or not a safety is held
    (R9)."""
    if view.phase != PLAY:
        return set()
    return {a.card for a in legal if isinstance(a, (Play, CoupFourre, FastRemedy))}


def hand_cards(view: HandState, seat: int) -> tuple[int, ...]:
    """The human's cards in the order they are numbered (1-based) everywhere."""
    h = view.hands[seat]
    return () if isinstance(h, int) else tuple(h)


@in_language
def hand_lines(view: HandState, seat: int, legal: Sequence[Action], lang: str | None = None,
               selected: int | None = None, color: bool = True, verbose: bool = False,
               per_row: int = 4, cards: Sequence[int] | None = None,
               fresh: int | None = None, width: int = WIDTH,
               taken: bool = False) -> list[Line]:
    """Numbered cards coloured by family; playable ones marked ``+`` after the name, the
    card just drawn (``fresh``) marked ``★`` after its number. Names get the room a wider
    screen (``width`` columns) gives: 15 cells at 80, the four cards of a row filling it
    (13 cut "Puncture-Pro…", sv "Punkteringsf…" there; "Puncture-Pro…" at 100 too before);
    a name that still does not fit is said by its short name (fr "Prioritaire").

    ``cards``: the hand in the order the console numbers it (default: the view's order).
    ``verbose`` (plain mode, screen readers) gives one card per line with its family
    in words. ``taken``: a bot plays the seat by the others' agreement and holds its
    cards, hidden from this player ("Your hand is empty." was said, the bot holding six).
    """
    cards = tuple(cards) if cards is not None else hand_cards(view, seat)
    can = playable_cards(view, legal)
    if not cards:
        if taken:
            return [[("class:dim", _("No cards here: a bot plays your seat and holds its "
                                     "cards."))]]
        return [[("class:dim", _("Your hand is empty."))]]
    if verbose:
        words = family_words()
        out: list[Line] = [[("class:title", _("Your hand:"))]]
        for i, c in enumerate(cards, 1):
            extra = _(", playable") if c in can else ""
            extra += _(", just drawn") if c == fresh else ""
            out.append([("", f"  {i}. "), (card_class(c), card_name(c, lang)),
                        ("class:dim", f" ({words[family(c)]}{extra})")])
        return out
    head: Line = [("class:title", _("Your hand"))]
    if can:
        head.append(("class:dim", "  " + _("(+ playable now)")))
    if fresh is not None and fresh in cards:
        head.append(("class:dim", "  " + _("(★ just drawn)")))
    out = [head]
    row: Line = []
    room = max(13, min(24, width // per_row - 5))
    for i, c in enumerate(cards, 1):
        mark = "+" if c in can else ""
        text = fitted_card_label(c, room, lang, color)
        sel = i - 1 == selected
        style = card_class(c) + (" class:selected" if sel else "")
        # the star and the name have a space between them ("7★Repairs" read as one word):
        # the room after the name gives the column back, the row's width stays
        star = "★ " if c == fresh else " "
        row += [("class:selected" if sel else "", f" {i}{star}"),
                (style, text), ("class:playable", mark.ljust(room + 3 - len(star)
                                                             - i18n.cells(text)))]
        if len(row) >= 3 * per_row:
            out.append(row)
            row = []
    if row:
        out.append(row)
    return out


# ----- scores ---------------------------------------------------------------------------

def score_lines(scores: Sequence[SideScore], match: Match, names: Sequence[str],
                hand_no: int, width: int = WIDTH, notes: bool = False) -> list[Line]:
    """The hand's points item by item, per side, with the match totals, within ``width``
    columns: on a narrow terminal (the line mode's, a replay's at 40) each item's name
    stands on a line of its own above its points (the rows were broken between their
    columns, each side's points under the item's name, unaligned). ``notes``: what each
    bonus shown is for, under the sheet (the line mode: the full screen's page has no
    room for it)."""
    labels = side_labels(names, match.seating)
    n = max(1, len(labels))
    room = (WIDTH - 24) // n
    # a side's column as wide as its name where the line has room (teams of three were
    # "Bo & Di & …" with half the line empty), 12 at least as it was
    colw = max(8, min(12, room), min(max(i18n.cells(lab) for lab in labels) + 1, room))
    title = _("Hand %(hand)d scores") % {"hand": hand_no}
    rows: list[tuple[str, list[object], str]] = []
    # R14 (modern): a safety played as a coup fourré scores 200 in the coups fourrés row
    # and nothing under Safeties; "Safeties 0" (or no Safeties row at all) beside a
    # safety on the table read as a safety scored nothing: the sheet says where it went
    cf_modern = match.rules.scoring == "modern" and any(s.coups_fourres for s in scores)
    for item in SideScore._fields:
        vals = [getattr(s, item) for s in scores]
        if any(vals) or (cf_modern and item == "safeties"):
            rows.append((i18n.score_item_name(item), vals, ""))
    rows.append((_("hand total"), [s.total for s in scores], "class:title"))
    rows.append((_("match total"), list(match.totals()), "class:title"))
    if 24 + colw * n <= width:
        head = 24
    else:
        # the names' column as wide as its longest name, the sides' as the rest allows
        head = max(i18n.cells(t) for t in [title, *(r[0] for r in rows)]) + 1
        colw = min(colw, (width - head) // n)
        if colw < 7:        # no room beside the names: each name above its points
            head, colw = width, max(7, min(12, width // n))
    # one fragment a column: a language read from the right lays the fragments out from
    # the right (:func:`cli.i18n.rtl.visual_fragments`), the first side's column next to
    # the items' names; a row's points as one fragment stayed left to right in Uyghur,
    # under the names ordered from the right ("400  1000" under "Bo & Di  سىز & Cy")
    cols: Line = [("class:title", i18n.pad(_fit(lab, colw - 1), colw, "right"))
                  for lab in labels]
    note: list[Line] = []
    if cf_modern:
        text = _("Modern rules: a safety played as a coup fourré scores %(points)s in the "
                 "%(row)s row, instead of %(safety)s under %(safeties)s.") % {
                     "points": MODERN_COUP_FOURRE, "safety": MODERN_SAFETY,
                     "row": i18n.score_item_name("coups_fourres"),
                     "safeties": i18n.score_item_name("safeties")}
        note = [[("class:dim", w)] for w in i18n.wrap(text, width)]
    if notes:
        for meaning in bonus_notes(scores):
            note += [[("class:dim", w)] for w in i18n.wrap(meaning, width)]
    if head + colw * n <= width:
        out: list[Line] = [[("class:title", _pad(title, head)), *cols]]
        for name, vals, style in rows:
            out.append([(style, _pad(name, head)),
                        *((style, str(v).rjust(colw)) for v in vals)])
        return out + note
    # too narrow for a name beside its points: each name above them, the sides' columns
    # named once under the title
    out = [[("class:title", title)], cols]
    for name, vals, style in rows:
        out.append([(style, name)])
        out.append([(style, str(v).rjust(colw)) for v in vals])
    return out + note


BLOCKS = " ▁▂▃▄▅▆▇█"


def sparkline(values: Sequence[int], top: int) -> str:
    if top <= 0:
        return BLOCKS[0] * len(values)
    return "".join(BLOCKS[max(1 if v > 0 else 0, min(8, round(8 * v / top)))] for v in values)


def match_lines(match: Match, names: Sequence[str], last: int = 12,
                verbose: bool = False) -> list[Line]:
    """Totals per side with a bar chart of the last hands (one block per hand) and a
    progress bar to the match target; ``verbose`` (plain mode, screen readers): each side
    in a sentence with every hand's points, wrapped (the chart cut them with "…")."""
    labels = side_labels(names, match.seating)
    hands = match.hands[-last:]
    top = max((s.total for h in hands for s in h), default=0)
    target = match.rules.match_target
    totals = match.totals()
    # counted, not numbered: a hand left without a score (a bot took a seat, R-agreement)
    # is a hand of the table but not of the score sheet ("Hand 2 scores" came above
    # "Match (hand 1, …)")
    n = len(match.hands)
    span = (_("no hand scored yet") if not n else
            ngettext("%(n)d hand scored", "%(n)d hands scored", n) % {"n": n})
    if target:
        title = _("Match (%(span)s, to %(target)d)") % {"span": span, "target": target}
    else:       # "Match (1 hand scored, one hand)" said the one hand twice
        title = _("Match of one hand") if n else _("Match of one hand (no score yet)")
    out: list[Line] = [[("class:title", title)]]
    winner = match.winner()
    if verbose:
        for side, label in enumerate(labels):
            points = i18n.join_list(str(h[side].total) for h in match.hands) or "—"
            text = (_("%(side)s: %(total)d points (hands: %(points)s); winner of the match.")
                    if side == winner else
                    _("%(side)s: %(total)d points (hands: %(points)s).")) % {
                "side": label, "total": totals[side], "points": points}
            out += [[("", w if i == 0 else "  " + w)]
                    for i, w in enumerate(wrap(text, WIDTH - 2))]
        return out
    for side, label in enumerate(labels):
        per_hand = [h[side].total for h in hands]
        line: Line = [("class:you" if side == winner else "", _pad(label, 14)),
                      ("class:bar", " " + sparkline(per_hand, top).ljust(last) + " "),
                      ("", f"{totals[side]:>6}")]
        if target:
            line.append(("", " "))
            line += progress_bar(totals[side], target, 16)
        wins = " " + _("wins") if side == winner else ""
        # the hands' points take what the line has left: "wins" is longer in some
        # languages (sv "vinner"), and the line must stay within the 80 columns; the
        # latest hands are kept, older ones give way ("2400, 1500, 425, 475…" had lost
        # the last hand's 1400)
        room = min(24, WIDTH - width(line) - 1 - i18n.cells(wins))
        if len(match.hands) > 1:    # one hand's points are the total: "550 […] 550"
            line.append(("class:dim", f" {latest_first_fit(per_hand[-5:], room)}"))
        if wins:
            line.append(("class:turn", wins))
        out.append(line)
    if n:
        # what the marks mean (a newcomer read "█ 1125" and "[#####.....]" with no key)
        legend = (_("%(bars)s one bar per hand, as tall as its points; %(progress)s the "
                    "way to %(target)d") if target else
                  _("%(bars)s one bar per hand, as tall as its points"))
        out.append([("class:dim", _fit(legend % {"bars": "▁▄█", "progress": "[#.]",
                                                 "target": target}, WIDTH))])
    return out


# ----- a whole screen (plain mode) --------------------------------------------------------

def nothing_to_play(view: HandState, seat: int, legal: Sequence[Action]) -> bool:
    """Whether it is ``seat``'s play and no card of its hand can be played (only a
    discard is left): both screens say so."""
    return (view.phase == PLAY and seat in view.actors() and bool(legal)
            and not any(isinstance(a, Play) for a in legal))


@in_language
def screen_lines(view: HandState, names: Sequence[str], seat: int, legal: Sequence[Action],
                 hand_no: int = 1, lang: str | None = None, verbose: bool = True,
                 prompt: bool = True, said: Sequence[str] | None = None,
                 width: int = WIDTH, watched: bool = False,
                 taken: bool = False, match: Match | None = None) -> list[Line]:
    """The table, the hand and what is expected: what the plain mode prints.
    ``prompt`` False: no line of what the seat is expected to do (a bot plays it: "c for
    a coup fourré" was said to a player who could only watch). ``said``: the names as
    the moves are said (a seat a bot took is "Ben's bot" there: the prompt under "Ben's
    bot played Stop on you" said "Ben played Stop on you"); ``names`` if None.
    ``width``: the columns its sentences are wrapped at (the terminal's). ``watched``: a
    bot plays the seat and its player watches (``play --plain --auto``): the prompt says
    what the bot decides, no keys ("c for a coup fourré" was said to the watcher).
    ``taken``: a bot took the seat by the others' agreement (:func:`hand_lines`);
    ``match``: the match so far (:func:`table_lines`)."""
    lines = table_lines(view, names, seat, hand_no, lang, verbose, width=width, match=match)
    lines += hand_lines(view, seat, legal, lang, color=False, verbose=verbose, taken=taken)
    if prompt:
        text = waiting_text(view, seat, said if said is not None else names, lang,
                            keys=False, watched=watched)
        if not watched and nothing_to_play(view, seat, legal):
            # the full screen says it on its status line; the line mode said "play or
            # discard a card" when no card could be played
            text += " " + _("No card can be played now: discard one.")
            # and why, when no distance can go down (no Roll yet, a hazard on the side)
            why = stuck_reason(view, seat, names)
            if why:
                text += " " + why
        lines += [[("class:prompt", w)] for w in wrap(text, width)]
    return lines


def safety_kinds() -> tuple[Kind, ...]:
    return SAFETIES
