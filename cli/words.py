"""Every sentence the game says about actions, events and results, for every screen.

The full-screen console, the line mode, the replay, ``verify``'s report and the log all
put a move, a hand's end or a match's end into words through this one module, so the
wording is the same everywhere and can be translated in one place later. Nothing here
does I/O or keeps state.
"""

from __future__ import annotations

import functools
import os
import re
import shlex
import sys
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import fields
from typing import TYPE_CHECKING, Any, TextIO

from engine import (
    Action,
    CoupFourre,
    Discard,
    Draw,
    Extend,
    FastDiscard,
    FastRemedy,
    HandState,
    IllegalAction,
    Kind,
    Pass,
    Play,
    Rules,
    Seating,
    kind,
)
from engine.cards import SAFETY_FOR
from engine.rules import PRESETS, RuleOptionError, parse_option, preset
from engine.scoring import Match, SideScore, hand_winner
from engine.state import DRAW, EXTEND, OVER, PLAY, RESHUFFLE, RESPOND
from p2p.audit import GameReport
from p2p.crypto.identity import IdentityError, fingerprint
from p2p.table.config import AUTO_BUDGET_STEPS, AUTO_GRACE_SHARE
from p2p.table.store import TRANSCRIPT, StoreDamaged
from p2p.text import safe_text, shown_key, shown_keys
from p2p.transcript.file import MAX_TRANSCRIPT_BYTES, TRANSCRIPT_VERSION

from . import i18n
from .bot_process import bot_move_time
from .i18n import N_, _, did_you_mean, ngettext, pgettext
from .program import as_typed, program_name

if TYPE_CHECKING:
    from p2p.crypto.known import KeyChange, KnownPlayers
    from p2p.table.lobby import LobbyState


def card_name(card: int, lang: str | None = None) -> str:
    """A card's name in the active language (``lang`` is kept for old callers; the
    language is the one ``cli.i18n`` has active)."""
    if lang and lang != i18n.active().language and lang in i18n.LANGUAGES:
        return i18n.card_name(card, _translator(lang))
    return i18n.card_name(card)


@functools.cache
def _translator(lang: str) -> i18n.Translator:
    return i18n.Translator(lang)


#: The one width every screen is laid out for.
WIDTH = 80

HELP = N_("""\
Keys (N = a card's number in your hand):
  1-7 or arrows  select a card      p  play it      d  discard it
  t  choose the opponent a hazard goes on (the target)
  space  draw from the pile
  c  coup fourré    n  let a hazard stand (pass)    y / n  answer a question
  ?  why the selected card can or cannot be played now
  Enter  next hand     : or /  type a command     Esc  back     h or F1  help
  q  leave (%(leave)s)
Commands: play N, play N on NAME, discard N, draw, draw discard, coup, pass,
  extend yes|no, why N (? N), next, help, quit.
Marks: + playable now; * a coup fourré; ★ the card you just drew.
  Safeties: RW Right of Way, ET Extra Tank, PP Puncture-Proof, DA Driving Ace.""")

#: What q does, in the help's keys: the game is kept for ``resume``, or (``play
#: --in-process``) not at all (the keys said "the game is saved and can be resumed" right
#: above "This game is not saved").
LEAVE_SAVED = N_("asks first; the game is saved and can be resumed")
LEAVE_NOT_SAVED = N_("asks first; the game is not saved")

#: The key of a draw from the discard pile, listed only where the rules allow one (it was
#: listed in classic rules, where it never applies).
DISCARD_KEY = N_("  g  take the top of the discard pile")

#: The game itself in a few lines, for a first game (help's second page, ``rules``):
#: a newcomer found keys in the help and nothing on what a Roll or a coup fourré is.
HOW_TO_PLAY = N_("""\
How to play, in brief:
  The first to cover the trip (700 or 1000 km: see the board's top line;
  exactly, in classic rules) ends the hand. Your turn: draw a card, then play
  one or discard one.
  Start with a Roll (green light), then play distance: 25 to 200 km, at most
  two 200s a hand.
  Hazards (red) go on an opponent: Stop, Speed Limit (then 25 and 50 only),
  Out of Gas, Flat Tire, Accident. Each is cured by its remedy (green) on
  your own side: Roll, End of Limit, Gasoline, Spare Tire, Repairs (in
  classic rules a Roll is needed after a remedy too).
  Safeties (blue) protect you for the rest of the hand and give another turn:
  Right of Way (Stop and Speed Limit; it also lets you roll), Extra Tank,
  Puncture-Proof, Driving Ace.
  Coup fourré: when a hazard hits you and you hold its safety, answer c at
  once: the hazard is undone, you score extra, and you play next.
  Points: distance, safeties, coups fourrés, and bonuses for the trip.
  ? (or why N) says why a card can or cannot be played now.""")

#: The words the reasons use, said where a newcomer looks (help's rules page, ``rules``):
#: "your zone shows Accident" and "O-attacker-started" were defined nowhere.
#: (It cited docs/rules.md, which an installed game does not have: the ids are said for
#: what they are, and ``?`` says the rule in words. "[O-name]: rule ids (O: an option)"
#: explained an id no reason shows: a reason names an option as ``--option help`` does.)
RULE_WORDS = N_("  A zone: a side's row on the board. [R5] after a reason: the id of its rule.")


#: Why every hazard asks for an answer (a newcomer pressed c with no safety in hand, and
#: asked why the question came at all).
ALWAYS_ASKED = N_("  Every hazard on you asks c or n, safety or not: the others learn nothing.")


def how_to_play() -> str:
    """The rules page: the game in brief, then the words its reasons use."""
    return _(HOW_TO_PLAY) + "\n" + _(ALWAYS_ASKED) + "\n" + _(RULE_WORDS)


HELP_COLOR = N_("Colours: hazards red, remedies green, safeties blue.")
HELP_MONO = N_("Letters before each card: D distance, H hazard, R remedy, S safety "
               "(no colours: NO_COLOR is set).")


PLAIN_HELP = N_("""\
Commands (N = a card's number as listed, or its name: play roll):
  play N           play card N on your side (distance, remedy, safety)
  play N on NAME   play hazard N on an opponent (a name prefix is enough)
  discard N        discard card N (a safety asks you to confirm)
  draw             draw from the pile;  draw discard: take the discard's top
  coup / pass      answer a hazard played on you: coup fourré, or let it stand
  extend yes|no    at 700 km: play on to 1000, or end the hand
  why N  (? N)     why card N can or cannot be played now
  next             deal the next hand;   help;   quit (it asks first)
  rules            how to play, in brief
Each card's family is said in brackets; "playable" marks what you can play now.""")


#: The line mode's help at a table with fast play (O-fast-play, R10b): several cards go
#: at once, a command the help listed nowhere.
FAST_DISCARD_HELP = N_("  discard N M…     fast play: discard several cards at once, then "
                       "draw back up")


#: The full screen's help at a table with fast play, after the rules and their options:
#: the command that discards several cards at once (R10b), beside "fast_play=yes".
FAST_PLAY_NOTE = N_("(fast play: discard N M… discards several cards at once, then you "
                    "draw back up)")


#: Said under the help when the game is kept nowhere (``play --in-process``).
NOT_SAVED = N_("This game is not saved: it runs in this process only (play --in-process), "
               "and leaving ends it.")


#: The keys of a network game's pause (said on the status line when a player left; the
#: help listed them nowhere). Two lines at 80 columns: at six players in three teams a
#: third pushed the teams line out of the French help.
NETWORK_KEYS = N_("b, e: if a player left a network game, b asks for a bot in their seat, "
                  "e for the end of the match (all must agree; the hand in play is not "
                  "scored).")


#: The log's keys (its window shows two or three lines at six players on 80×24).
LOG_KEYS = N_("  PgUp / PgDn  scroll the log of moves back and on")


def help_scroll_line(first: int, last: int, count: int) -> str:
    """The help on a screen too short for it: which of its lines show, and how to see
    the others (its last lines were cut with "…", out of reach)."""
    return _("Lines %(first)d to %(last)d of %(count)d: the arrows or PgUp and PgDn show "
             "the rest.") % {"first": first, "last": last, "count": count}


def rules_commands(text: str, draw_discard: bool = True, extension: bool = True) -> str:
    """A help's list of commands as the table's rules have them: "draw discard" left out
    where the discard pile is never drawn from (classic), "extend yes|no" where no trip
    is extended (modern rules, two teams): the line mode's help said "at 700 km: play on
    to 1000" at a table of 1000 km, and both helps offered "draw discard" to a classic
    player, who typed it and was refused. The commands are English in every language,
    found as typed (with Uyghur's commas and semicolons too)."""
    if not draw_discard:
        text = re.sub(r"[,،]\s*draw discard(?=[,،])", "", text)             # a list's item
        text = re.sub(r"\s*[;؛]\s+draw discard\b[^\n]*", "", text)         # a line's end
    if not extension:
        text = re.sub(r"(?m)^\s*extend yes\|no\s{2,}[^\n]*(\n|$)", "", text)  # its line
        text = re.sub(r"extend yes\|no[,،]\s*", "", text)
    return text


def help_text(color: bool, saved: bool = True, network: bool = False,
              log_keys: bool = True, draw_discard: bool = True,
              extension: bool = True) -> str:
    """The help, explaining colours or the letters that replace them (and, for a game kept
    nowhere, that leaving ends it: the keys' line says a game is saved; for a network
    game, the keys of a pause; ``log_keys``: the log's scrolling keys; ``draw_discard``:
    the rules let a player take the discard's top, so its key and command are listed;
    ``extension``: a trip may be extended, so ``extend`` is listed)."""
    keys = rules_commands(_(HELP) % {"leave": _(LEAVE_SAVED if saved else LEAVE_NOT_SAVED)},
                          draw_discard, extension).split("\n")
    if draw_discard:
        # beside "space  draw…" (the fourth line in every language) where it fits, as the
        # help was laid out before classic rules left it out: a line of its own pushed a
        # network table's rules out of an 80×24 help in French, Swedish and Uyghur
        draw = min(3, len(keys) - 1)
        side = keys[draw].rstrip() + "    " + _(DISCARD_KEY).strip()
        if i18n.cells(side) <= 76:
            keys[draw] = side
        else:
            keys.insert(draw + 1, _(DISCARD_KEY))
    return "\n".join(keys) + ("\n" + _(LOG_KEYS) if log_keys else "") + (
        "\n" + _(NETWORK_KEYS) if network else "") + "\n" + _(
        HELP_COLOR if color else HELP_MONO) + ("" if saved else "\n" + _(NOT_SAVED))


def or_list(items: Iterable[str]) -> str:
    """Choices joined by "or" in the player's language ("play 2 on Bo or play 2 on Di")."""
    # Translators: the separator between choices, with its spaces: "A or B or C".
    return _(" or ").join(items)


def you_label(name: str) -> str:
    """The human's default name "You" in the active language; any other name as is."""
    return _("You") if name == "You" else name


def with_you(name: str) -> str:
    """``name`` marked as this player's, " (you)", unless it says so already: the default
    "You", or a chosen name that is the marker's own word (`play --name you` showed "you
    (you)" on the board, in the help and in the list of players)."""
    marker = _(" (you)")
    if name == "You" or name.casefold() in ("you", marker.strip(" ()").casefold()):
        return name
    return name + marker


def you_names(names: Sequence[str], me: int) -> tuple[str, ...]:
    """The names as this seat's screen says them in a sentence: its own seat is "You",
    whatever name the player chose, as :func:`describe` says its moves (a network
    player read "You drew Roll." beside "Ann plays first" and "Match over: Ann wins")."""
    return tuple("You" if s == me else n for s, n in enumerate(names))


def local_names(names: Sequence[str], me: int) -> tuple[str, ...]:
    """The table's names as this seat shows them: another player who chose the name "You"
    keeps it with the seat's number ("You 2"), so that "You" (and its translation) on this
    screen only ever means this seat — "seat 2 (You) broke the rules" must not read as if
    the player at this screen were blamed. Names are compared as the screen shows them
    (:func:`p2p.text.shown_keys`): "You" with a combining grapheme joiner after it read
    as "You" ("broken by seat 2 (You)"); a name that shows as another seat's, or shows
    nothing (a crafted header: the lobby numbers them), keeps its seat's number too
    (hostile pass 22)."""
    keys = [shown_keys(n) for n in names]
    mine = keys[me] if 0 <= me < len(keys) else frozenset()
    you = shown_keys("You")

    def own(s: int, k: frozenset[tuple[str, str]]) -> bool:
        """The name of seat ``s`` shows as no name before it, as no "You" and not as nothing."""
        return (k.isdisjoint(you) and bool(shown_key(names[s])) and k.isdisjoint(mine)
                and all(k.isdisjoint(before) for before in keys[:s]))

    return tuple(n if s == me or own(s, k) else f"{n} {s + 1}"
                 for s, (n, k) in enumerate(zip(names, keys, strict=True)))


def written_names(names: Sequence[str]) -> tuple[str, ...]:
    """The table's names where no seat is this screen's (``verify``, ``replay``): every
    player who chose the name "You" keeps it with the seat's number ("You 1"), so that no
    sentence takes the "You" form or translates it ("Vous a commencé" about a stranger)."""
    return local_names(names, -1)


def changed_options(rules: Rules) -> str:
    """"fast_play=yes, attacker_started=yes": the options of ``rules`` that differ from its
    preset's, as ``--option`` writes them (the match target is said on its own)."""
    try:
        base = preset(rules.preset).to_dict()
    except (ValueError, KeyError):
        return ""
    out = []
    for name, value in rules.to_dict().items():
        if name in ("preset", "match_target") or base.get(name) == value:
            continue
        shown = ("yes" if value else "no") if isinstance(value, bool) else str(value)
        out.append(f"{name}={shown}")
    return i18n.join_list(out)


def rules_name(preset: str) -> str:
    """A rule preset in words ("classic rules")."""
    if preset == "classic":
        return i18n.rule_term("classic rules")
    if preset == "modern":
        return i18n.rule_term("modern rules")
    return _preset_text(preset)


def table_label(name: str) -> str:
    """A discovered table's announced name as the lists say it: quoted (it is another
    machine's text), or said to be missing when nothing of it can be shown (a name made
    only of invisible characters was listed as '', read as a bug)."""
    shown = safe_text(name, 40, placeholder="")
    return repr(shown) if shown else _("(a table without a name)")


def announced_rules(announced: str) -> str:
    """A table's rules as announced on the LAN (``classic;match_target=3000``) in words:
    the preset's name and the options the host changed ("classic rules (match_target=
    3000)"); the join's list of tables said them raw and cut, "classic;match_targe…"."""
    name, *options = announced.split(";")
    changed: list[str] = []
    for o in options:
        # another machine's text: only options this program could have written are said
        # (the field was shown as it came, and a record's own text could read ", host
        # [AAAAA-BBBBB]; join it with: millebornes join --peer ..." before the real key and
        # command: a friend's fingerprint on a stranger's table, hostile pass 26)
        try:
            option, value = parse_option(o)
            PRESETS["classic"].with_options(**{option: value})
        except (RuleOptionError, TypeError, ValueError):
            continue
        changed.append(f"{option}={_option_value(value)}")
    # (no preset's name, as one with none: "?")
    shown = rules_name(name if _ANNOUNCED_PRESET.fullmatch(name) else "")
    return shown + (f" ({i18n.join_list(changed)})" if changed else "")


#: A preset's name as a table's record may give it (``Rules``' own rule: a short word).
_ANNOUNCED_PRESET = re.compile(r"[A-Za-z0-9_-]{1,24}")


def rules_label(rules: Rules) -> str:
    """A table's rules as a lobby shows them before anyone agrees: the preset's name and,
    in ``--option`` syntax, every option that differs from that preset (a host could
    otherwise present other rules, e.g. ``max_turns=10``, under the name "classic")."""
    ref = PRESETS.get(rules.preset) if isinstance(rules.preset, str) else None
    ref = ref or PRESETS["classic"]
    changed = [f"{f.name}={_option_value(getattr(rules, f.name))}" for f in fields(Rules)
               if f.name != "preset" and getattr(rules, f.name) != getattr(ref, f.name)]
    name = rules_name(rules.preset)
    return f"{name} ({i18n.join_list(changed)})" if changed else name


def _option_value(value: object) -> str:
    # yes or no, as --option's help and changed_options write them (`games` listed
    # "start_rolling=true" where the player had typed yes)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return safe_text(str(value), 24)


def _preset_text(preset: object) -> str:
    """A preset this version does not know, as the table's header names it: another
    player's text (a host chooses it), so one short clean word on every screen."""
    return safe_text(preset, 24)


def seating_words(seating: Seating) -> str:
    """How a table's players form sides: "no teams", or teams as ``--teams`` writes them
    ("2x2"). The lobby, ``simulate`` and ``tournament`` said the engine's label "solo", a
    word no option and no help uses, in every language."""
    return _("no teams") if seating.team_size == 1 else seating.label()


def rules_short(preset: str) -> str:
    """A rule preset in one word, for the board's crowded first line."""
    if preset == "classic":
        # Translators: a rule set's name on its own, no noun beside it: the board's top
        # line ("Mille Bornes · classic · hand 1") and the games list's rules column (9
        # columns); it reads as the game's edition ("Mille Bornes classique"), not as an
        # adjective agreeing with "rules" (fr "classiques" read as a slip).
        return pgettext("preset", "classic")
    if preset == "modern":
        # Translators: as "classic": a rule set's name on its own, at most 9 columns.
        return pgettext("preset", "modern")
    return _preset_text(preset)


def says(subject: str, you: str, one: str, **values: object) -> str:
    """A sentence about ``subject``: the "You" form, or the form for a name (partners
    "Bo & Di" take it too); ``%(name)s`` is the subject."""
    text = you if subject == "You" else one
    return text % {"name": subject, **values}


def is_plural(subject: str) -> bool:
    """"You" and partners ("Bo & Di") take the plural verb."""
    return subject == "You" or " & " in subject


def verb(subject: str, singular: str, plural: str) -> str:
    """``subject`` followed by the verb in the right number: "Bo wins", "You win"."""
    return f"{subject} {plural if is_plural(subject) else singular}"


def side_names(names: Sequence[str], seating: Seating) -> tuple[str, ...]:
    """One label per side: a player's name, or partners joined with ``&``, as written
    (``"You"`` untranslated, so that sentences can pick their "you" form)."""
    return tuple(" & ".join(names[s] for s in seating.seats_of(side))
                 for side in range(seating.n_teams))


def side_labels(names: Sequence[str], seating: Seating) -> tuple[str, ...]:
    """One label per side as the screen shows it: :func:`side_names` with this seat's
    "You" in the player's language, partners too ("Vous & Cy")."""
    return tuple(" & ".join(you_label(names[s]) for s in seating.seats_of(side))
                 for side in range(seating.n_teams))


def wrap(text: str, width: int = WIDTH, indent: str = "") -> list[str]:
    """Words wrapped at spaces, never mid-word (unless one word is wider than a line);
    widths in terminal cells."""
    return [indent + w for w in i18n.wrap(text, max(1, width - i18n.cells(indent)))]


#: Between two columns of a key line ("select a card      p  play it"): three spaces or
#: more; a key and what it does are two apart.
_COLUMN_GAP = re.compile(r"( {3,})")


def key_lines(line: str, width: int) -> list[str]:
    """One line of the help laid out in ``width`` cells: as written when it fits; else its
    columns (a key and what it does, three spaces or more apart) go onto as many lines as
    they need, each at the line's indent, so that a key stays beside what it does (wrapped
    at spaces, a 60-column help ran them together: "select a card p play it d discard it");
    a line with no columns, or a column wider than a line, is wrapped at spaces."""
    if i18n.cells(line) <= width:
        return [line]
    indent = line[:len(line) - len(line.lstrip())]
    parts = _COLUMN_GAP.split(line.strip())
    out: list[str] = []
    current = indent + parts[0]
    for gap, column in zip(parts[1::2], parts[2::2], strict=True):
        if i18n.cells(current + gap + column) <= width:
            current += gap + column
        else:
            out.append(current)
            current = indent + column
    out.append(current)
    return [w for piece in out
            for w in ([piece] if i18n.cells(piece) <= width
                      else wrap(_items_whole(piece.strip(), width - i18n.cells(indent)),
                                width, indent))]


def _items_whole(text: str, width: int) -> str:
    """``text`` with each short item of its comma lists bound (:data:`i18n.NO_BREAK`), so
    that a line is broken between items only: a 60-column help read "draw, draw" at a
    line's end and "discard, coup, pass," under it, and "PP" above "Puncture-Proof". An
    item of more than five words is a clause of a sentence, and one wider than a line
    would be cut: both are left as they are."""
    return "".join(
        item.replace(" ", i18n.NO_BREAK)
        if item != ", " and item.count(" ") <= 4 and i18n.cells(item) + 1 <= width
        else item for item in re.split(r"(, )", text))


def command_help_lines(line: str, width: int) -> list[str]:
    """One line of a list of commands ("  play N   play card N on your side") in
    ``width`` cells: as written when it fits; else the command on its line and what it
    does under it, further in (laid out as columns, "play card N on your side" stood
    under "play N" as if it were a command too)."""
    if i18n.cells(line) <= width or not _COLUMN_GAP.search(line.strip()):
        return key_lines(line, width)
    indent = line[:len(line) - len(line.lstrip())]
    command, _gap, rest = _COLUMN_GAP.split(line.strip(), maxsplit=1)
    return [indent + command, *wrap(rest, width, indent + "    ")]


def paragraph(text: str, width: int = WIDTH) -> str:
    """``text`` wrapped at ``width`` (:data:`WIDTH` unless a caller knows the terminal's:
    ``i18n.terminal_width``) for the terminal, as one string to print (the lines said
    after the console closes: a long path stays readable in 80 columns)."""
    return "\n".join(i18n.display_paragraph(wrap(text, width)))


#: What each rule option does, for ``--option help`` (the engine's names and values are
#: what is typed; docs/rules.md has the rules they change).
RULE_OPTION_WORDS = {
    "draw_discard": N_("a player may draw the top card of the discard pile instead of the "
                       "draw pile"),
    "exhaustion": N_("when the draw pile is empty: play_out (play on without drawing) or "
                     "reshuffle (the discards become a new draw pile)"),
    "roll_after_remedy": N_("after a remedy or a safety cures a hazard, a Roll is needed "
                            "again to move"),
    "exact_finish": N_("no distance card may take a player past the trip (no: reaching it "
                       "or more ends the hand)"),
    "target": N_("the trip in km: 700 or 1000 (0: 1000 for two teams of partners, else "
                 "700)"),
    "extension": N_("a player who reaches exactly 700 km may extend the trip to 1000"),
    "remove_hazards": N_("with 2 or 3 players, 5 hazards are taken out of the deck"),
    "scoring": N_("how a hand is scored: classic or modern"),
    "match_target": N_("the points that win the match (0: a match of one hand)"),
    "stack_hazards": N_("a battle hazard may go on another one"),
    "attacker_started": N_("battle hazards only from a player who has started"),
    "start_rolling": N_("every player starts with a Roll already played"),
    "fast_play": N_("a hazard may be answered at once with its remedy, out of turn; a turn "
                    "may discard several cards and draw back up to 6"),
    "extension_official": N_("the extension scores 200 for its caller on success, else 200 "
                             "for each opponent"),
    "reshuffle_limit": N_("reshuffles allowed with no distance played since the one before "
                          "(after them, the hand is played out without drawing)"),
    "max_turns": N_("a hand ends after this many turns"),
}


def rule_options_text(classic: Mapping[str, Any], modern: Mapping[str, Any],
                      width: int) -> str:
    """``--option help``: every rule option, its value in each preset and what it does,
    wrapped at ``width`` (the refusal of a wrong option listed the names alone)."""
    def shown(value: Any) -> str:
        return ("yes" if value else "no") if isinstance(value, bool) else str(value)

    lines = wrap(_("Rule options: --option NAME=VALUE changes one (yes/no for those that "
                   "are on or off); the values of the two presets are shown."), width)
    for name, words in RULE_OPTION_WORDS.items():
        lines.append("")
        lines += wrap(_("%(name)s (classic: %(classic)s, modern: %(modern)s)") % {
            "name": name, "classic": shown(classic[name]), "modern": shown(modern[name])},
            width)
        lines += wrap(_(words), width, "    ")
    return "\n".join(i18n.display(line) for line in lines)


def report_width(stream: TextIO) -> int:
    """The columns a report or the line mode is laid out in on ``stream``: its terminal's
    width, at most :data:`WIDTH` (80 in a file or a pipe)."""
    return min(WIDTH, i18n.terminal_width(stream))


def say_paragraph(text: str, stream: TextIO, flush: bool = False) -> None:
    """Print ``text`` on ``stream`` wrapped at its width: a terminal's own, 80 columns for
    anything else (the lobby's and the host's sentences ran past a narrow terminal's
    edge and were cut mid-word)."""
    print(paragraph(text, i18n.terminal_width(stream)), file=stream, flush=flush)


def rule_last(text: str, side: str | None = None) -> str:
    """Plain words first, the rule id last: "R9: only the safety…" → "Only the safety… [R9]".

    The engine leads its explanations with rule ids (``R9: …``, with ``(or, R10, …)``
    inside); a first-time player needs the words first. ``side``: the name of the side a
    hazard was aimed at (:func:`reason_words`)."""
    ids: list[str] = []
    m = re.match(r"^\s*(R\d+[a-z]?)\s*:\s*", text)
    if m:
        ids.append(m.group(1))
        text = text[m.end():]
    def inner(mm: re.Match[str]) -> str:
        ids.append(mm.group(1))
        return ""
    text = re.sub(r",?\s*(R\d+[a-z]?)\s*,\s*", lambda mm: inner(mm) or " ", text)
    text = re.sub(r"\s+", " ", text).strip()
    text = text.replace("( ", "(").replace(" )", ")")
    text = reason_words(text, side)
    if text:
        text = text[0].upper() + text[1:]
    return text + (f" [{i18n.join_list(ids)}]" if ids else "")


def every_side_reason(reasons: Sequence[tuple[str, str]]) -> str:
    """Why a hazard aimed at no one goes on none of the opposing sides: ``reasons``, each
    side's name with the engine's reason about it (names put in), said once per reason
    with every side it is about ("Ben has not played a Roll yet …; the same goes for Cy"),
    the rule ids last. With three players, "play 3" (a hazard, no target) was answered
    with the reason about Ben alone, though Cy could not be attacked either."""
    groups: dict[str, list[str]] = {}
    for side, text in reasons:
        groups.setdefault(text, []).append(side)
    parts: list[str] = []
    ids: list[str] = []
    for text, sides in groups.items():
        said = rule_last(text, side=sides[0])
        about_side = len(sides) > 1 and said != rule_last(text, side=sides[1])
        tag = re.search(r" \[([^\]]*)\]$", said)
        if tag:
            said = said[:tag.start()]
            ids.extend(i for i in re.split(r"\s*[,،]\s*", tag[1]) if i and i not in ids)
        if about_side:
            # the others it is about named too (a reason about this player, as "you may
            # attack only once your own zone has started", is said once)
            said = _("%(reason)s; the same goes for %(names)s") % {
                "reason": said, "names": i18n.join_and(sides[1:])}
        parts.append(said)
    return "; ".join(parts) + (f" [{i18n.join_list(ids)}]" if ids else "")


#: The engine's refusal of a battle hazard on a zone with no Roll yet (R6 after R5a).
NOT_STARTED = N_("that zone has not started: no %(card)s has been played on it yet, and "
                 "%(card2)s is the only attack on a zone that has not started")

#: The engine's refusals of a hazard about the side it was aimed at (:data:`NAMED_REASONS`).
PROTECTED = N_("that zone has %(card)s, which protects it")
LIMITED = N_("that zone is already under a %(card)s")
TWO_HAZARDS = N_("that zone already shows %(card)s; two battle hazards may not be in force "
                 "together")
SAME_HAZARD = N_("that zone already shows %(card)s")
#: The engine's words for R7 under O-roll-after-remedy (classic, the default): "a remedy
#: is not enough under O-roll-after-remedy" read as jargon to a newcomer whose first
#: Gasoline did not get them moving; :data:`CLEARER_REASONS` says it in words.
REMEDY_NOT_ENOUGH = N_("your zone is not moving: play a %(card)s first (a remedy is not "
                       "enough under O-roll-after-remedy)")
#: The same when the hazard on top is one a safety cured (no remedy was played).
SAFETY_NOT_ENOUGH = N_("your zone is not moving: play a %(card)s first (a safety is not "
                       "enough under O-roll-after-remedy)")
NOT_MOVING = N_("a battle hazard needs the target zone to be moving (%(card)s is the only "
                "attack on a zone that is not)")
#: The engine's reasons that lead with an option's id ("O-attacker-started: you may
#: attack…"): a newcomer met "O-fast-play" and "O-attacker-started" nowhere else; the
#: console says each as the option's name and what it does, as ``--option help`` does
#: (:data:`CLEARER_REASONS`).
ATTACKER_STARTED = N_("O-attacker-started: you may attack only once your own zone has "
                      "started")
NO_FAST_REMEDY = N_("O-fast-play is off: no remedy out of turn")
NO_FAST_DISCARD = N_("O-fast-play is off: discard one card at a time")
#: The engine's refusal of distance under a hazard: "cure it" named no card, and a
#: newcomer asked with what (:data:`CLEARER_REASONS` names the remedy and the safety).
HAZARD_IN_FORCE = N_("your zone shows %(card)s: cure it before driving")
NO_DISCARD_DRAW = N_("O-draw-discard is off (or this is a replacement draw): draw from the "
                     "draw pile")
#: The table's refusals of a move (p2p's session): a network race, the move was legal on
#: screen a moment before. Said raw ("R0: that move is not legal now", in English in
#: every language), a newcomer could not tell what had gone wrong.
NOT_YOUR_MOVE = N_("it is not your move")
NOT_LEGAL_NOW = N_("that move is not legal now")
CATCHING_UP = N_("this computer is still getting back the moves its damaged copy lost from "
                 "the other players; wait")

#: The engine's reasons for refusing a move (English, card names filled in), each as a
#: message whose placeholders stand where the engine put a card name or a number; the
#: console matches the engine's text against these and says it in the player's language.
REASONS = (
    N_("%(card)s needs a %(card2)s showing on your zone"),
    N_("cure the %(card)s first (a %(card2)s only answers %(card3)s)"),
    N_("you are already rolling"),
    N_("you are already started; a %(card)s only answers a %(card2)s"),
    N_("%(card)s only cures %(card2)s, which is not showing"),
    PROTECTED,
    LIMITED,
    ATTACKER_STARTED,
    TWO_HAZARDS,
    SAME_HAZARD,
    NOT_MOVING,
    NOT_STARTED,
    N_("a hazard needs an opposing side as its target"),
    N_("a hazard goes on an opponent's zone, not your own side's"),
    N_("%(card)s goes on your own zone: name no target"),
    HAZARD_IN_FORCE,
    REMEDY_NOT_ENOUGH,
    SAFETY_NOT_ENOUGH,
    N_("your zone is not moving: play a %(card)s first"),
    N_("you need a %(card)s (or %(card2)s) before your first distance"),
    N_("under a %(card)s only 25 and 50 may be played"),
    N_("at most two 200 cards per zone per hand"),
    N_("%(value)s would take you past %(target)s (you are at %(km)s; the finish must be "
       "exact)"),
    N_("the hand is over"),
    N_("draw first: a turn starts with a draw"),
    N_("draw first"),
    N_("only the matching safety (or remedy) answers this hazard"),
    N_("play or discard a card now"),
    N_("decide first whether to extend the trip to 1000"),
    N_("the discard pile is empty"),
    N_("the coup fourre round is over"),
    N_("a coup fourre against %(card)s needs %(card2)s"),
    NO_FAST_REMEDY,
    N_("first every partner answers the coup fourre round"),
    N_("only %(card)s answers %(card2)s"),
    N_("answer the hazard first: pass, coup fourre or (R10) remedy"),
    NO_FAST_DISCARD,
    NO_DISCARD_DRAW,
    NOT_YOUR_MOVE,
    NOT_LEGAL_NOW,
    CATCHING_UP,
)


#: Reasons about the side a hazard was aimed at that the console says with its name ("that
#: zone has not started" did not say whose; "needs the target zone to be moving" said it
#: less): the engine's reason (one of :data:`REASONS`), then the words for one player and
#: for partners ("Bo & Di"), ``%(name)s`` the side's name.
NAMED_REASONS: dict[str, tuple[str, str]] = {
    # "That zone has Puncture-Proof" was said of "play 3 on Ann": a newcomer asked which
    # zone, and what a zone is
    PROTECTED: (
        N_("%(name)s has %(card)s, which protects them from this hazard"),
        N_("%(name)s have %(card)s, which protects them from this hazard")),
    LIMITED: (
        N_("%(name)s is already under a %(card)s"),
        N_("%(name)s are already under a %(card)s")),
    TWO_HAZARDS: (
        N_("%(name)s already has %(card)s in force; two battle hazards may not be in "
           "force together"),
        N_("%(name)s already have %(card)s in force; two battle hazards may not be in "
           "force together")),
    SAME_HAZARD: (
        N_("%(name)s already has %(card)s in force"),
        N_("%(name)s already have %(card)s in force")),
    NOT_MOVING: (
        N_("%(name)s is not moving: a battle hazard needs a moving target (%(card)s is "
           "the only attack on a player who is not)"),
        N_("%(name)s are not moving: a battle hazard needs a moving target (%(card)s is "
           "the only attack on a team that is not)")),
    NOT_STARTED: (
        N_("%(name)s has not played a %(card)s yet (%(card2)s is the only attack on a "
           "player who has not started)"),
        N_("%(name)s have not played a %(card)s yet (%(card2)s is the only attack on a "
           "team that has not started)")),
}


#: Reasons said in other words than the engine's, in every language (English too): the
#: rule id stays at the end, for whoever looks it up.
CLEARER_REASONS: dict[str, str] = {
    REMEDY_NOT_ENOUGH: N_("your zone is not moving: play a %(card)s first (with these "
                          "rules, a remedy alone does not get you moving again: option "
                          "roll_after_remedy)"),
    SAFETY_NOT_ENOUGH: N_("your zone is not moving: play a %(card)s first (with these "
                          "rules, a safety that cures a hazard does not get you moving "
                          "again: option roll_after_remedy)"),
    ATTACKER_STARTED: N_("you may attack only once your own zone has started (with these "
                         "rules, battle hazards come only from a player who has started: "
                         "option attacker_started)"),
    NO_FAST_REMEDY: N_("no remedy out of turn (with these rules, a hazard is not answered "
                       "at once with its remedy: option fast_play is off)"),
    NO_FAST_DISCARD: N_("discard one card at a time (with these rules, a turn discards a "
                        "single card: option fast_play is off)"),
    HAZARD_IN_FORCE: N_("your zone shows %(card)s: cure it with %(remedy)s (or play "
                        "%(safety)s) before driving"),
    NO_DISCARD_DRAW: N_("draw from the draw pile (the discard pile's top card may be taken "
                        "only at the start of a turn, and only where the rules allow it: "
                        "option draw_discard)"),
    NOT_YOUR_MOVE: N_("it is not your move any more (the table moved on a moment ago): "
                      "look at the table and whose turn it is"),
    NOT_LEGAL_NOW: N_("that move is no longer possible (the table changed a moment ago): "
                      "look at the table again"),
    CATCHING_UP: N_("this computer is still getting back, from the other players, moves "
                    "its damaged copy lost; wait a moment and try again"),
}


@functools.cache
def _reason_patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    out = []
    for template in REASONS:
        parts = re.split(r"(%\(\w+\)s)", template)
        rx = "".join(f"(?P<{p[2:-2]}>.+?)" if p.startswith("%(") else re.escape(p)
                     for p in parts)
        out.append((re.compile(f"^{rx}$"), template))
    return tuple(out)


def reason_words(text: str, side: str | None = None) -> str:
    """An engine reason in the active language (as it is when no message matches);
    ``side``: the name of the side the move was aimed at, for a reason said with it
    (:data:`NAMED_REASONS`)."""
    if i18n.active().language == "en" and side is None and not any(
            rx.match(text) for rx, t in _reason_patterns() if t in CLEARER_REASONS):
        return option_names(text)
    from engine.cards import NAMES_EN, REMEDY_FOR, SAFETY_FOR
    by_name = {v: k for k, v in NAMES_EN.items()}
    for rx, template in _reason_patterns():
        m = rx.match(text)
        if m:
            values = {k: (i18n.kind_name(by_name[v]) if v in by_name else v)
                      for k, v in m.groupdict().items()}
            hazard = by_name.get(m.groupdict().get("card", ""))
            if hazard is not None and hazard in REMEDY_FOR and hazard in SAFETY_FOR:
                # what cures the hazard a reason names ("cure it": with what?)
                values["remedy"] = i18n.kind_name(REMEDY_FOR[hazard])
                values["safety"] = i18n.kind_name(SAFETY_FOR[hazard])
            named = NAMED_REASONS.get(template) if side else None
            template = CLEARER_REASONS.get(template, template)
            if named is not None:
                template = named[1 if is_plural(str(side)) else 0]
                values["name"] = str(side)
            return option_names(_(template) % values)
    return option_names(text)


#: An option's id as the engine writes it in a reason ("O-fast-play").
_OPTION_ID = re.compile(r"\bO-([a-z]+(?:-[a-z]+)*)\b")


def option_names(text: str) -> str:
    """``text`` with every option id ("O-fast-play") said as ``--option help`` names the
    option ("option fast_play"). The reasons known to the console are reworded one by one
    (:data:`CLEARER_REASONS`); one the console does not know yet (a newer engine's) would
    have shown the raw id, met nowhere else by a newcomer."""
    return _OPTION_ID.sub(
        lambda m: _("option %(name)s") % {"name": m.group(1).replace("-", "_")}, text)


def refused_line(text: str, names: Sequence[str]) -> str:
    """A move the table refused (``str`` of an ``IllegalAction``: "R0: that move is not
    legal now"), said as every other refusal: in words, in the player's language, the rule
    id last. A network race refuses a move that was legal on screen a moment before; the
    engine's raw English reached the screen then. "R0" names no rule (the table's own
    refusals, not the game's): it is left out, a newcomer found no R0 in the rules."""
    return rule_last(with_names(re.sub(r"^\s*R0\s*:\s*", "", text), names))


def stuck_reason(view: HandState, seat: int, names: Sequence[str]) -> str | None:
    """Why none of ``seat``'s distance cards can be played (its side not moving: not
    started, or a hazard on it; or moving, but held back by the exact finish, a Speed
    Limit or the two 200s), as a sentence with its rule id; None when it holds no
    distance. Said after "Nothing to play": a newcomer's first hand opens
    with 25s and 100s and no Roll, and "discard a card" said nothing of why."""
    from engine import explain
    from engine.cards import DISTANCE_OF, FAMILY_OF, Family

    zone = view.zones[view.seating.side_of(seat)]
    held = view.hands[seat]
    if isinstance(held, int):
        return None
    distance = [c for c in held if FAMILY_OF[c] is Family.DISTANCE]
    if zone.moving(view.rules):
        # rolling, and still no distance goes down: the shortest one held says why (the
        # exact finish, a Speed Limit, the two 200s: what holds it back holds every longer
        # one back too). A newcomer at 950 of 1000 km with a 75 read only "discard one".
        distance = sorted(distance, key=lambda c: DISTANCE_OF[c])
    reason = explain(view, seat, distance[0]) if distance else None
    return sentence(rule_last(with_names(reason, names))) if reason else None


def with_names(text: str, names: Sequence[str]) -> str:
    """The engine speaks of "seat 2"; people have names."""

    def name(m: re.Match[str]) -> str:
        i = int(m.group(1))
        return names[i] if 0 <= i < len(names) else m.group(0)
    return re.sub(r"\bseat (\d+)", name, text)


# ----- moves ---------------------------------------------------------------------------

#: Said with the draw that empties the pile where the hand is played out without one
#: (R4b, classic: O-exhaustion play_out).
LAST_CARD = N_("That was the last card of the draw pile: from now on nobody draws; each "
               "turn, play or discard a card until a side completes the trip or nobody "
               "has a card left.")

#: Said with the draw that empties the pile where the discards are shuffled back (R4b,
#: modern) but no more now: no distance was played since the last reshuffle, and the
#: idle reshuffles allowed are used up.
LAST_RESHUFFLE_USED = N_("That was the last card of the draw pile, and the discards are "
                         "not shuffled into a new one: no distance was played since the "
                         "last reshuffle. Nobody draws until someone plays a distance "
                         "card; each turn, play or discard a card.")


def describe(before: HandState, action: Action, after: HandState, names: Sequence[str],
             viewer: int, lang: str | None = None, you: bool = False) -> str | None:
    """A log line for ``action`` as ``viewer`` may see it (others' draws stay hidden).

    ``you``: the viewer is the player at this screen, whose own moves are said "You …"
    whatever name it chose (a networked player read "Ann drew Roll." of herself, right
    above "You drew Roll (card 7…)"); a replay's viewer is only whose draw is shown."""
    if you and 0 <= viewer < len(names):
        names = [*names[:viewer], "You", *names[viewer + 1:]]

    def who(seat: int) -> str:
        return names[seat]

    def side(side_ix: int) -> str:
        return you_label(side_names(names, before.seating)[side_ix])

    if isinstance(action, Draw):
        if action.source == "discard":
            return says(who(action.seat), _("You took %(card)s from the discard pile."),
                        _("%(name)s took %(card)s from the discard pile."),
                        card=card_name(before.discard[-1], lang))
        # the last card of the pile, in rules that play the hand out without it (R4b):
        # the draws stopped with nothing said, and a newcomer waited for one
        emptied = before.pile_size() > 0 and after.pile_size() == 0
        last = _(LAST_CARD) if emptied and after.rules.exhaustion == "play_out" else None
        if emptied and after.rules.exhaustion == "reshuffle" and not after.progress \
                and after.idle_reshuffles >= after.rules.reshuffle_limit:
            # modern rules, the idle reshuffles used up: the draws stopped unsaid (R4b)
            last = _(LAST_RESHUFFLE_USED)
        if action.seat == viewer:
            card = drawn_card(before, after, viewer)
            if card is not None:
                line = says(who(action.seat), _("You drew %(card)s."),
                            _("%(name)s drew %(card)s."), card=card_name(card, lang))
                return line if last is None else line + " " + last
        return last  # a hidden draw of another seat is not worth a log line
    if isinstance(action, Play):
        name = card_name(action.card, lang)
        if action.target is not None and side_names(names, before.seating)[action.target] \
                == "You":
            return _("%(name)s played %(card)s on you.") % {"name": who(action.seat),
                                                            "card": name}
        if action.target is not None and "You" in side_names(
                names, before.seating)[action.target].split(" & "):
            # the viewer's team, as the prompt under it says ("on You & Cy" above "on your
            # side: c for a coup fourré")
            return _("%(name)s played %(card)s on your side.") % {"name": who(action.seat),
                                                                  "card": name}
        if action.target is not None:
            return says(who(action.seat), _("You played %(card)s on %(target)s."),
                        _("%(name)s played %(card)s on %(target)s."), card=name,
                        target=side(action.target))
        line = says(who(action.seat), _("You played %(card)s."), _("%(name)s played %(card)s."),
                    card=name)
        if after.seat == action.seat and after.phase in (DRAW, PLAY) \
                and before.seat == action.seat and _is_safety(action.card):
            # (PLAY: where the replacement draw is made at once, modern rules)
            line += " " + says(who(action.seat), _("A safety gives you another turn."),
                               _("A safety gives %(name)s another turn."))
        return line
    if isinstance(action, Discard):
        return says(who(action.seat), _("You discarded %(card)s."),
                    _("%(name)s discarded %(card)s."), card=card_name(action.card, lang))
    if isinstance(action, FastDiscard):
        # "and", as a sentence names several ("You discarded 25, 50 and drew back to six"
        # read as two actions); the draw after a comma, "then" (fr "75, 75 et 75 et
        # repioché" said "and" twice)
        cards = i18n.join_and(card_name(c, lang) for c in action.cards)
        return says(who(action.seat), _("You discarded %(cards)s, then drew back to six."),
                    _("%(name)s discarded %(cards)s, then drew back to six."), cards=cards)
    if isinstance(action, CoupFourre):
        return says(who(action.seat),
                    _("Coup fourré! You answered with %(card)s: you draw a card in its "
                      "place, then take the next turn."),
                    _("Coup fourré! %(name)s answered with %(card)s and takes the next "
                      "turn."), card=card_name(action.card, lang))
    if isinstance(action, FastRemedy):
        return says(who(action.seat), _("You answered at once with %(card)s."),
                    _("%(name)s answered at once with %(card)s."),
                    card=card_name(action.card, lang))
    if isinstance(action, Pass):
        # R9: another seat's pass says nothing (every hazard asks, safety or not: a pass
        # tells nobody what that seat holds); the viewer's own pass is said to them, as
        # replay says every pass (the live log said nothing when the player let a hazard
        # stand, and replay did)
        if action.seat != viewer:
            return None
        return says(who(action.seat), _("You let the hazard stand."),
                    _("%(name)s lets the hazard stand."))
    if isinstance(action, Extend):
        if action.extend:
            return says(who(action.seat), _("You extend the trip to 1000!"),
                        _("%(name)s extends the trip to 1000!"))
        return says(who(action.seat), _("You stop at %(km)d km."),
                    _("%(name)s stops at %(km)d km."), km=before.target)
    return _("The discard pile is shuffled into a new draw pile.")


def _is_safety(card: int) -> bool:
    from engine import Family, family
    return family(card) is Family.SAFETY


def drawn_card(before: HandState, after: HandState, seat: int) -> int | None:
    """The card ``seat`` just drew, if that seat's hand is visible in both views."""
    was, now = before.hands[seat], after.hands[seat]
    if isinstance(was, int) or isinstance(now, int):
        return None
    new = [c for c in now if c not in was]
    return new[0] if new else None


def replay_step_text(before: HandState | None, action: Action | None, after: HandState,
                     names: Sequence[str], hand_no: int, lang: str | None = None) -> str:
    """One step of a replay in words, as :func:`describe` says it to the seat that moved:
    with every hand shown, draws name their card and passes are said (the game is over:
    nothing is secret any more)."""
    if before is None or action is None:
        return hand_start_line(hand_no, names[after.seat], after.target, dealt=True)
    seat = getattr(action, "seat", 0)
    viewer = seat if isinstance(seat, int) and seat >= 0 else 0
    text = describe(before, action, after, names, viewer, lang)
    if text is None and isinstance(action, Draw):
        return says(names[action.seat], _("You drew a card."), _("%(name)s drew a card."))
    return text or f"{type(action).__name__}."


def hand_start_line(hand_no: int, first: str, target: int, dealt: bool = False) -> str:
    """``dealt``: say that the cards are dealt (a replay shows the deal as a step)."""
    values = {"hand": hand_no, "name": first, "target": target}
    if dealt:
        return says(first, _("Hand %(hand)d: the cards are dealt; you play first; the trip "
                             "is %(target)d km."),
                    _("Hand %(hand)d: the cards are dealt; %(name)s plays first; the trip "
                      "is %(target)d km."), **values)
    return says(first, _("Hand %(hand)d: you play first; the trip is %(target)d km."),
                _("Hand %(hand)d: %(name)s plays first; the trip is %(target)d km."), **values)


def end_line(state: HandState, names: Sequence[str], hand_no: int) -> str:
    """How a hand ended, in words."""
    sides = list(side_labels(names, state.seating))
    raw = side_names(names, state.seating)      # "You" untranslated: the verb agrees
    # a team's verb agrees with its names, as the match's line does: fr "Vous & Cy a
    # terminé le voyage" stood right above "Partie finie : Vous & Cy gagnent"
    players = state.seating.team_size
    if state.completed_by >= 0:
        if raw[state.completed_by] == "You":    # fr "Vous a terminé" read as a slip
            return _("Hand %(hand)d over: you completed the trip.") % {"hand": hand_no}
        return ngettext("Hand %(hand)d over: %(side)s completed the trip.",
                        "Hand %(hand)d over: %(side)s completed the trip.", players) % {
            "hand": hand_no, "side": sides[state.completed_by]}
    w = hand_winner(state)
    why = {"exhausted": _("every hand is empty"),
           "turn_limit": _("the turn limit was reached")}
    reason = why.get(state.end_reason, state.end_reason or _("no more moves"))
    if w >= 0 and raw[w] == "You":
        line = _("Hand %(hand)d over (%(reason)s): you got closest.") % {
            "hand": hand_no, "reason": reason}
    elif w >= 0:
        line = ngettext("Hand %(hand)d over (%(reason)s): %(side)s got closest.",
                        "Hand %(hand)d over (%(reason)s): %(side)s got closest.",
                        players) % {"hand": hand_no, "reason": reason, "side": sides[w]}
    else:
        line = _("Hand %(hand)d over (%(reason)s): nobody completed the trip.") % {
            "hand": hand_no, "reason": reason}
    unmet = unmet_extension_line(state, names)
    return f"{line} {unmet}" if unmet else line


def unmet_extension_line(state: HandState, names: Sequence[str]) -> str:
    """Why no trip was scored when a side had extended the trip and nobody got there
    (R12): a newcomer at 700 of 1000 km saw the hand end with "Bo got closest" and no
    trip in the scores, the extension said only once, many moves before."""
    caller = state.extended_by
    if state.completed_by >= 0 or not 0 <= caller < state.seating.n_teams:
        return ""
    you = side_names(names, state.seating)[caller] == "You"
    values = {"side": list(side_labels(names, state.seating))[caller], "km": state.target}
    if state.rules.extension_official:
        text = (_("You had extended the trip to %(km)d km and did not get there: every "
                  "other side scores 200.") if you else
                _("%(side)s had extended the trip to %(km)d km and did not get there: every "
                  "other side scores 200."))
    else:
        text = (_("You had extended the trip to %(km)d km and nobody got there: the trip "
                  "scores for no one.") if you else
                _("%(side)s had extended the trip to %(km)d km and nobody got there: the "
                  "trip scores for no one."))
    return text % values


def over_prefixes(hand_no: int) -> tuple[str, ...]:
    """How the lines saying that hand ``hand_no`` or the match is over begin, in the
    active language (the score screen picks them out of the log)."""
    out = []
    for template in (*(ngettext("Hand %(hand)d over: %(side)s completed the trip.",
                                "Hand %(hand)d over: %(side)s completed the trip.", n)
                       for n in (1, 2)),
                     _("Hand %(hand)d over: you completed the trip."),
                     *(ngettext("Hand %(hand)d over (%(reason)s): %(side)s got closest.",
                                "Hand %(hand)d over (%(reason)s): %(side)s got closest.", n)
                       for n in (1, 2)),
                     _("Hand %(hand)d over (%(reason)s): you got closest."),
                     _("Hand %(hand)d over (%(reason)s): nobody completed the trip."),
                     _("Match over: a tie, nobody wins."), _("Match over: you win."),
                     ngettext("Match over: %(name)s wins.", "Match over: %(name)s win.", 1)):
        head = template.replace("%(hand)d", str(hand_no)).split("%(")[0]
        if head.strip():
            out.append(head)
    return tuple(out)


def match_over_line(match: Match, names: Sequence[str], ended_early: bool = False) -> str:
    """"Match over: Bo & Di win." — or a tie; or no winner (``ended_early``: stopped
    before its end)."""
    if ended_early:
        return _("The match stopped before its end: no winner.")
    w = match.winner()
    if w < 0:
        return _("Match over: a tie, nobody wins.")
    who = side_names(names, match.seating)[w]
    if who == "You":
        return _("Match over: you win.")
    n = len(who.split(" & "))
    return ngettext("Match over: %(name)s wins.", "Match over: %(name)s win.", n) % {
        "name": " & ".join(you_label(w) for w in who.split(" & "))}


def totals_line(match: Match, names: Sequence[str]) -> str:
    """"Ann 550, Bo 1300" — the match totals by side."""
    labels = side_labels(names, match.seating)
    return i18n.join_list(f"{labels[i]} {t}" for i, t in enumerate(match.totals()))


def no_hand_scored_line(hand_no: int) -> str:
    """Said on leaving a match with no hand scored: in its first hand, "No hand was
    finished yet."; in a later one (``hand_no``, 1-based), those before it were left
    without a score by the players' agreement (a bot took a seat): "No hand was finished
    yet" was said to a player who had played hand 1 to its end."""
    if hand_no <= 1:
        return _("No hand was finished yet.")
    return ngettext("No hand was scored yet: hand %(last)d was left without a score.",
                    "No hand was scored yet: hands 1 to %(last)d were left without a "
                    "score.", hand_no - 1) % {"last": hand_no - 1}


def match_so_far_line(match: Match, names: Sequence[str]) -> str:
    """Where the match stands after the hands a resumed game had finished before its
    player left (said by their results only, not move by move)."""
    n = len(match.hands)
    return ngettext("The match so far (%(n)d hand played, to %(target)d points): "
                    "%(totals)s.",
                    "The match so far (%(n)d hands played, to %(target)d points): "
                    "%(totals)s.", n) % {
                        "n": n, "target": match.rules.match_target,
                        "totals": totals_line(match, names)}


def final_line(match: Match, names: Sequence[str], ended_early: bool = False) -> str:
    """The match's last line; ``ended_early``: stopped before its end (a cheat, an agreed
    end), which names no winner (it said "Winner: nobody (a tie)" after a cheat)."""
    if ended_early:
        return _("Scores when the match stopped: %(totals)s. No winner: the match did not "
                 "reach its end.") % {"totals": totals_line(match, names)}
    w = match.winner()
    winner = side_labels(names, match.seating)[w] if w >= 0 else _("nobody (a tie)")
    return _("Final scores: %(totals)s. Winner: %(winner)s.") % {
        "totals": totals_line(match, names), "winner": winner}


def command_for(action: Action, view: HandState, seat: int, names: Sequence[str],
                cards: Sequence[int] | None = None) -> str:
    """The command line that would make ``action`` for ``seat`` in ``view`` (to echo an
    automatic move, or to list the moves in line mode); cards by their number in
    ``cards`` (default: the view's order)."""
    held = view.hands[seat]
    if cards is None:
        cards = () if isinstance(held, int) else tuple(held)
    seating = view.seating

    def num(c: int) -> str:
        return str(list(cards).index(c) + 1) if c in cards else "?"

    if isinstance(action, Play):
        if action.target is not None:
            who = side_names(names, seating)[action.target].split(" & ")[0]
            return f"play {num(action.card)} on {who}"
        return f"play {num(action.card)}"
    if isinstance(action, Discard):
        return f"discard {num(action.card)}"
    if isinstance(action, FastDiscard):
        return "discard " + " ".join(num(c) for c in action.cards)
    if isinstance(action, Draw):
        return "draw discard" if action.source == "discard" else "draw"
    if isinstance(action, CoupFourre):
        return "coup"
    if isinstance(action, FastRemedy):
        return f"play {num(action.card)}"
    if isinstance(action, Pass):
        return "pass"
    if isinstance(action, Extend):
        return "extend yes" if action.extend else "extend no"
    return type(action).__name__.lower()


# ----- what the table waits for ---------------------------------------------------------

def waiting_text(view: HandState, seat: int, names: Sequence[str], lang: str | None = None,
                 keys: bool = True, bots: Collection[int] = (), watched: bool = False,
                 named_bots: Collection[int] = (), whole_turn: bool = False) -> str:
    """One sentence: whose move it is and what is expected, naming the keys.

    ``keys``: False in the line mode, which has no "p"/"d" keys (a card is named by
    number: "p" alone asked "play which card?" though the prompt offered it).

    When a hazard hits the human's side the sentence depends only on the attack, never on
    the human's hand (R9): "coup" and "pass" are always offered. ``bots``: the seats bots
    play (a bot reads no scores before its first draw). ``watched``: a bot plays ``seat``
    and its player only watches (``play --auto``): the seat's moves are said as the bot's,
    with no keys ("Your turn: draw a card (space…)" was shown to a watcher).
    ``named_bots``: the bots whose name alone does not say so: a wait on one says "Cy (a
    bot)", as the table's other waits on a bot do ("Waiting for Cy to answer the hazard"
    said nowhere that Cy was a program). ``whole_turn``: another's draw is said as their
    turn ("Ann's turn."), a line that stays true while they then choose a card (the line
    mode says a turn once: "Ann is drawing" stood there while Ann, her draw made and
    hidden, chose what to play).
    """
    if watched and seat >= 0:
        mine = _watched_text(view, seat, names, lang)
        if mine is not None:
            return mine
    if seat < 0:
        # a replay of one's own game: its player's seat is "You" in the language shown, as
        # the board says it ("You pioche.", "Au tour de You." under "Vous, à jouer")
        names = [you_label(n) for n in names]
    phase = view.phase
    if phase == OVER:
        return _("The hand is over.")
    if phase == RESHUFFLE:
        return _("Shuffling the discard pile into a new draw pile…")
    if phase == RESPOND:
        att = view.attack
        assert att is not None
        hazard = card_name(att.card, lang)
        waiting = att.waiting_for()
        if seat in waiting:
            values = {"name": names[att.attacker], "card": hazard}
            solo = view.seating.team_size == 1
            if att.stage == 2:
                # R10a, after the coup fourré's round: now a remedy may answer at once (the
                # first round offered "p plays the remedy" and then refused it)
                text = (_("%(name)s played %(card)s on you: p plays its remedy at once (fast "
                          "play), n to let it stand (pass).") if solo else
                        _("%(name)s played %(card)s on your side: p plays its remedy at once "
                          "(fast play), n to let it stand (pass)."))
            else:
                text = (_("%(name)s played %(card)s on you: c for a coup fourré, n to let it "
                          "stand (coup / pass).") if solo else
                        _("%(name)s played %(card)s on your side: c for a coup fourré, n to "
                          "let it stand (coup / pass)."))
                # which card c needs, said whatever the hand holds (the window looks the
                # same either way, R9): a newcomer asked "c for a coup fourré" with no
                # safety pressed c and was refused, or wondered why they were asked at all
                return text % values + " " + _("c needs the card %(safety)s in your "
                                               "hand.") % {
                    "safety": i18n.kind_name(SAFETY_FOR[kind(att.card)])}
            return text % values
        if seat < 0 and [names[s] for s in waiting] == [_("You")]:
            return _("Waiting for your answer to the %(card)s hazard.") % {"card": hazard}
        who = i18n.join_and(bot_label(names[s]) if s in named_bots else names[s]
                            for s in waiting)
        # the card inside the sentence: a limit said after it made "(Stop) (up to 30 s)"
        return _("Waiting for %(names)s to answer the %(card)s hazard.") % {
            "names": who, "card": hazard}
    actor = view.seat
    if phase == DRAW:
        if actor == seat:
            if view.rules.draw_discard and view.discard and view.pending \
                    and view.pending[0] == "turn":
                top = card_name(view.discard[-1], lang)
                return _("Your turn: draw (space; draw) or take %(card)s (g; draw "
                         "discard).") % {"card": top}
            if view.pending and view.pending[0] == "replacement":
                # after a coup fourré (R9), a remedy out of turn or a fast discard (R10):
                # two draws in a row puzzled a newcomer
                if "turn" in view.pending:
                    return _("Draw a card in place of your safety (space, or type draw); "
                             "then your turn: draw again and play.")
                return _("Draw a replacement card (space, or type draw).")
            return _("Your turn: draw a card (space, or type draw).")
        if seat >= 0 and actor not in bots and any(view.match_scores) and not view.discard \
                and not any(
                z.battle or z.speed or z.distance or z.safeties for z in view.zones):
            # a networked player draws first only once past the last hand's scores:
            # "Ann is drawing." stood for a minute while Ann read them (a replay, seat -1,
            # has no one reading: the sentence ran 100 cells past its 80 there)
            return _("%(name)s starts the hand: waiting for them to draw (they may still "
                     "be reading the last hand's scores).") % {"name": names[actor]}
        players = len(view.hands)
        if seat >= 0 and actor not in bots and any(view.match_scores) \
                and 1 < view.turns <= players \
                and (actor - view.first_seat) % players == view.turns - 1:
            # the first round of a later hand, this player's first turn in it: their
            # draw waits for them to leave the last hand's scores too ("Ben is drawing."
            # stood on Ann's screen while Ben read them, Ann having played first)
            return _("Waiting for %(name)s to draw for the first time this hand (they may "
                     "still be reading the last hand's scores).") % {"name": names[actor]}
        if seat < 0 and names[actor] == _("You"):
            return _("You are drawing.")       # a replay of one's own game: "You is drawing"
        if whole_turn:
            return _("%(name)s's turn.") % {"name": names[actor]}
        return _("%(name)s is drawing.") % {"name": names[actor]}
    if phase == EXTEND:
        if actor == seat:
            # what is at stake, said where it is decided (R12): a newcomer saw only "go
            # on or stop?"; two lines at most, so a message above never cuts the keys off
            if view.rules.extension_official:
                return _("%(km)d km! n (extend no): the hand ends, you score the trip. y "
                         "(extend yes): on to 1000; 200 more if you get there first, else "
                         "200 to each opponent.") % {"km": view.target}
            # the risk said too: a newcomer said yes, nobody made 1000, and the trip he
            # had made was scored for no one
            return _("%(km)d km! n (extend no): stop, you score the trip. y (extend yes): on "
                     "to 1000; the first there scores the trip +200; if no one gets there, "
                     "no one scores it.") % {
                "km": view.target}
        if seat < 0 and names[actor] == _("You"):
            return _("Waiting for your decision on the extension.")
        return _("Waiting for %(name)s to decide on the extension.") % {
            "name": bot_label(names[actor]) if actor in named_bots else names[actor]}
    if actor == seat:
        if not keys:
            return _("Your turn: play or discard a card (play N, discard N).")
        return _("Your turn: play or discard a card (p or d; play N, discard N).")
    if seat < 0 and names[actor] == _("You"):
        return _("Your turn.")                 # a replay of one's own game: "You's turn"
    return _("%(name)s's turn.") % {"name": names[actor]}


def _watched_text(view: HandState, seat: int, names: Sequence[str],
                  lang: str | None) -> str | None:
    """What the bot playing ``seat`` is doing, for its player who watches; None when the
    table waits for someone else (said as ever)."""
    phase = view.phase
    if phase == RESPOND:
        att = view.attack
        if att is None or seat not in att.waiting_for():
            return None
        text = (_("%(name)s played %(card)s on you: the bot playing your seat decides how "
                  "to answer.") if view.seating.team_size == 1 else
                _("%(name)s played %(card)s on your side: the bot playing your seat decides "
                  "how to answer."))
        return text % {"name": names[att.attacker], "card": card_name(att.card, lang)}
    if phase not in (DRAW, PLAY, EXTEND) or view.seat != seat:
        return None
    if phase == DRAW:
        return _("The bot playing your seat is drawing.")
    if phase == EXTEND:
        return _("%(km)d km! The bot playing your seat decides whether to go on to "
                 "1000.") % {"km": view.target}
    return _("The bot playing your seat is choosing a card to play or discard.")


# ----- scores ---------------------------------------------------------------------------

#: What each bonus row of the score sheet is for (R13, R12): "Safe trip 300" and "Shutout
#: 500" were explained nowhere (the line mode says them under its sheet, the full screen
#: in its log under the hand's result).
BONUS_NOTES = {
    "all_safeties": N_("%(row)s: one side played all four safeties."),
    "delayed_action": N_("%(row)s: the trip completed after the draw pile ran out."),
    "safe_trip": N_("%(row)s: the trip completed without a 200 km card."),
    "extension": N_("%(row)s: the bonus of a trip extended from 700 to 1000 km [R12]."),
    "shut_out": N_("%(row)s: the trip completed while an opponent covered no distance."),
}


def bonus_notes(scores: Sequence[SideScore]) -> list[str]:
    """What each bonus row a side scored in this hand is for, a sentence each, in the
    sheet's order (none when no bonus was scored)."""
    return [_(meaning) % {"row": i18n.score_item_name(item)}
            for item, meaning in BONUS_NOTES.items() if any(getattr(s, item) for s in scores)]


ITEM_WORDS = {
    "distance": "distance", "safeties": "safeties", "all_safeties": "all four safeties",
    "coups_fourres": "coups fourrés", "trip": "trip completed", "delayed_action": "delayed action",
    "safe_trip": "safe trip (no 200)", "extension": "extension", "shut_out": "shut-out",
}


# ----- saved games and their checks -----------------------------------------------------

class Command(str):
    """A command for the player to type, said whole on a line of its own by
    :func:`say_paragraphs`: wrapped like a sentence, it was cut at a space, and the two
    lines pasted into a shell as two commands (the first without its ``--data-dir``).
    The program is named as the player's shell will find it (:mod:`cli.program`)."""

    def __new__(cls, command: str) -> Command:
        return super().__new__(cls, as_typed(command))


def command_lines(command: str, width: int) -> list[str]:
    """``command`` indented under its sentence, in lines of at most ``width`` cells joined
    by the shell's line continuation (`` \\``), so that it pastes as one command; an
    option stays with its value where they fit together. A word longer than a line (a
    long path) is cut with a continuation inside it, the next piece from the first column
    (a shell joins the two; a quoted word is closed and opened again around the cut)."""
    words = [shlex.quote(w) for w in shlex.split(command)]
    units: list[str] = []
    for w in words:
        if units and units[-1].startswith("--") and " " not in units[-1] \
                and not w.startswith("--"):
            units[-1] += " " + w            # "--data-dir DIR" kept together
        else:
            units.append(w)
    room = width - 2                        # for the " \\" that continues a line
    # an option and its value too long for a line of their own are two units after all
    # (only such a pair: a quoted word's own space, "'/home/a/my games/…'", was cut there,
    # a backslash and a newline put inside the quotes, and the path pasted was another)
    units = [part for unit in units
             for part in ([unit] if i18n.cells("    " + unit) <= room
                          or not unit.startswith("--") else unit.split(" ", 1))]
    lines: list[str] = []
    line = "  "
    for unit in units:
        if i18n.cells("    " + unit) > room:
            if line.strip():
                lines.append(line + " \\")
            *whole, line = _cut_word(unit, "    ", width)
            lines += whole
        elif line.strip() and i18n.cells(line + " " + unit) > room:
            lines.append(line + " \\")
            line = "    " + unit
        else:
            line = line + unit if not line.strip() else line + " " + unit
    lines.append(line)
    return lines


def _cut_word(word: str, indent: str, width: int) -> list[str]:
    """``word`` (shell-quoted) in lines of at most ``width`` cells, each but the last
    ending in a backslash that a shell removes with the line end (a single-quoted word is
    closed before it and opened again after: ``'/a b/c'\\`` + ``'d'``); the first line
    after ``indent``, the others from the first column. A quoted word holding a quote
    stays whole (cut, it would not read back)."""
    quoted = len(word) >= 2 and word[0] == word[-1] == "'"
    body = word[1:-1] if quoted else word
    if quoted and "'" in body:
        return [indent + word]
    wrap = "'" if quoted else ""
    lines: list[str] = []
    prefix = indent
    while True:
        limit = width - i18n.cells(prefix) - 1 - 2 * len(wrap)    # 1: the backslash
        if i18n.cells(prefix + wrap + body + wrap) <= width - 2 or limit < 1:
            lines.append(prefix + wrap + body + wrap)
            return lines
        piece, used = "", 0
        for ch in body:
            if used + i18n.cells(ch) > limit:
                break
            piece, used = piece + ch, used + i18n.cells(ch)
        if piece == body:
            # the rest fits the line but not the room after it: cut before its last
            # character, never after it (an empty last piece left the next option glued
            # to the word: "…/g\\" then "--plain", a folder "…/g--plain" to a shell)
            piece = piece[:-1]
        if not piece:
            lines.append(prefix + wrap + body + wrap)
            return lines
        lines.append(prefix + wrap + piece + wrap + "\\")
        body, prefix = body[len(piece):], ""


def command_block(command: str, stream: TextIO | None = None) -> str:
    """``command`` on lines of its own after a sentence that ends an error (``\n`` and
    the lines :func:`command_lines` makes at ``stream``'s width, stderr's by default), for
    :func:`cli.main.say_error`, which keeps each line's indent: inside the sentence, a
    narrow terminal cut it ("`…/millebornes" / "play --data-dir …`")."""
    width = i18n.terminal_width(sys.stderr if stream is None else stream)
    return "\n" + "\n".join(command_lines(as_typed(command), width))


def say_paragraphs(parts: Sequence[str], stream: TextIO) -> None:
    """Sentences wrapped at the stream's width (:func:`say_paragraph`), each
    :class:`Command` under the sentence that introduces it, in lines that paste as one
    command (:func:`command_lines`)."""
    width = i18n.terminal_width(stream)
    for part in parts:
        if isinstance(part, Command):
            for line in command_lines(part, width):
                print(line, file=stream)
        else:
            say_paragraph(part, stream)


def saved_line(path: str, short_id: str | None, verify_flags: str = "",
               plain: bool = False) -> list[str]:
    """``verify_flags``: the ``--data-dir`` that finds the game by its id (without it, the
    command as shown said "no saved game has the id"); ``plain``: the game was played in
    the line mode, and is replayed in it. Sentences and commands in turn
    (:func:`say_paragraphs`)."""
    ref = (short_id + verify_flags) if short_id else shlex.quote(path)
    # the replay too: a newcomer who had just lost wanted to see the others' cards, and
    # read only how to verify
    return [_("The game is saved in %(path)s. Anyone can check it with:") % {"path": path},
            Command(f"millebornes verify {ref}"),
            _("Step through it again, every player's cards face up, with:"),
            Command(f"millebornes replay {ref}{' --plain' if plain else ''}")]


def fell_behind_line(seconds: float) -> str:
    """This computer's wait for a step the others already made (they signed entries of a
    later hand): it asks them again, for a while, before it stops for itself. Said when
    the wait starts (the status line's countdown for the seat ran out and started again,
    unexplained)."""
    return _("This computer fell behind the table: asking the others for what it missed "
             "(up to %(seconds)s s more).") % {"seconds": f"{seconds:g}"}


def back_at_table_line() -> str:
    """Where a resumed console's log turns from the game as this computer had kept it
    (said again) to what comes from the others."""
    return _("You are back at the table; catching up with the others.")


def resumed_line(short_id: str, hands_over: int = 1) -> str:
    """Said as ``resume`` starts: the log says the game so far again before what the
    others played meanwhile ("catching up with what the others played meanwhile", then a
    hand's hundred moves the player had seen, read as news): the hands finished before
    the player left by their results and the match's totals, the hand left in move by
    move. ``hands_over``: how many hands were over when the player left (none: the
    moves so far are all there is to say again, and "each hand already over" read as a
    hand missed)."""
    if not hands_over:
        return _("Game %(id)s resumed: catching up with what the others played meanwhile. "
                 "First the moves so far are said again, up to the line \"%(back)s\"; the "
                 "moves after it are new.") % {"id": short_id, "back": back_at_table_line()}
    return _("Game %(id)s resumed: catching up with what the others played meanwhile. "
             "First the game so far is said again: each hand already over by its result, "
             "then the match's totals, then the moves of the hand you left, up to the line "
             "\"%(back)s\"; the moves after it are new.") % {
                 "id": short_id, "back": back_at_table_line()}


def paused_line(short_id: str | None, resume_flags: str = "",
                verify_flags: str = "") -> list[str]:
    """``resume_flags``/``verify_flags``: the options that find this player's copy again
    (its ``--data-dir``, ``--identity``, ``--plain``): without them a second player on one
    account who typed the command as shown resumed the first player's seat. Sentences and
    commands in turn (:func:`say_paragraphs`)."""
    ref = f" {short_id}" if short_id else ""
    return [_("You left; the game is saved. Come back to it with:"),
            Command(f"millebornes resume{ref}{resume_flags}"),
            _("Check it so far with:"),
            Command(f"millebornes verify{ref}{verify_flags}")]


def auto_bot_left_line(bot: str, problem: str = "") -> str:
    """``resume`` of a game whose seat a bot played for this player (``--auto``,
    ``--auto-bot``), typed without the flag: the player plays it now, and may let the bot
    play on instead (the command under it). ``problem``: why that bot cannot be made now
    (a plug-in uninstalled): the command then names the built-in one."""
    if problem:
        return _("When you left, a bot (%(bot)s) played your seat; it cannot play now "
                 "(%(problem)s), so you play it yourself. To let the built-in bot play it "
                 "instead, leave (q) and come back with:") % {
            "bot": safe_text(bot, 60), "problem": safe_text(problem, 200)}
    if bot:
        return _("When you left, a bot (%(bot)s) played your seat; now you play it "
                 "yourself. To let the bot play on instead, leave (q) and come back with:") % {
            "bot": safe_text(bot, 60)}
    return _("When you left, a bot played your seat; now you play it yourself. To let the "
             "bot play on instead, leave (q) and come back with:")


def watcher_left_line(short_id: str | None, resume_flags: str = "",
                      verify_flags: str = "") -> list[str]:
    """:func:`paused_line` for a player whose seat a bot took by the others' agreement:
    what ``resume`` brings back is the match to watch, not a seat ("Come back to it with"
    sent them back to play a seat that was no longer theirs)."""
    ref = f" {short_id}" if short_id else ""
    return [_("You left the game you were watching (a bot plays your seat to the end of "
              "the match). Watch it again with:"),
            Command(f"millebornes resume{ref}{resume_flags}"),
            _("Check it so far with:"),
            Command(f"millebornes verify{ref}{verify_flags}")]


def leave_question(saved: bool, over: bool) -> str:
    """Asked before leaving, on every screen: what leaving costs (an unsaved game ends)."""
    if not saved:
        return _("Leave the game? It is not saved (play --in-process): leaving ends "
                 "it. y leave · n stay")
    if over:
        return _("Leave? The match is over. y leave · n stay")
    # no bare `millebornes resume` here: the line said as the player leaves carries the
    # flags that find this copy again (--data-dir, --identity, --plain)
    return _("Leave the game? It is saved; the command that brings you back is shown as "
             "you leave. y leave · n stay")


def left_wait_line(name: str, seconds: float, plain: bool = False,
                   bot_runner: str | None = None) -> str:
    """Another player left a network game: it is a pause, not an end, and the wait has
    its limit (``seconds``: the table's step limit; then the table pauses and offers a
    bot or the end). Who runs ``resume`` is said: a newcomer read it as theirs to run.
    ``plain``: the line mode, whose command is ``quit`` ("q leaves too" named the full
    screen's key there). ``bot_runner``: the seat is a bot whose program stopped, run by
    that computer ("Bo left" was said of a bot process that had died, as though a person
    had gone; "Bo (a bot)" without whose, where the slow bot's line names its runner)."""
    values = {"name": name, "seconds": f"{seconds:g}", "runner": bot_runner}
    if bot_runner is not None:
        return (_("%(name)s (a bot run by %(runner)s) stopped answering; the game is saved. "
                  "Waiting up to %(seconds)s s for it, then the table pauses; quit leaves "
                  "too, and you can resume later.") if plain else
                _("%(name)s (a bot run by %(runner)s) stopped answering; the game is saved. "
                  "Waiting up to %(seconds)s s for it, then the table pauses; q leaves too, "
                  "and you can resume later.")) % values
    if plain:
        return _("%(name)s left; the game is saved. Waiting for %(name)s to come back "
                 "(millebornes resume on their computer) for up to %(seconds)s s, then the "
                 "table pauses; quit leaves too, and you can resume later.") % values
    return _("%(name)s left; the game is saved. Waiting for %(name)s to come back "
             "(millebornes resume on their computer) for up to %(seconds)s s, then the "
             "table pauses; q leaves too, and you can resume later.") % values


def left_short_wait_note(name: str, spent: float, budget: float) -> str:
    """After :func:`left_wait_line` when the wait is shorter than the step limit: the
    seat's automatic steps have used up most of its time for the hand (said as that, not
    as "is slow", which read as though the player who had left were still there)."""
    return _("The wait is short: %(name)s's automatic steps have already taken %(spent)s s "
             "of this hand (limit %(budget)s s).") % {
                 "name": name, "spent": _seconds(spent), "budget": _seconds(budget)}


def went_silent_line(name: str, seconds: float) -> str:
    """Another player's computer stopped answering while the game did not need it yet
    (their turn had not come): said at once, not only once the table waits for them,
    with how long the table will wait once it does (it said "waits for them if they are
    not back by their turn" in their turn, and paused 25 s later unannounced)."""
    return _("%(name)s has gone silent (they left, or lost the connection); the game is "
             "saved. When the table needs %(name)s, it waits up to %(seconds)s s for them, "
             "then pauses.") % {"name": name, "seconds": f"{seconds:g}"}


def went_silent_bot_line(name: str, runner: str, seconds: float) -> str:
    """:func:`went_silent_line` of a bot: its program stopped answering, on the computer
    that runs it ("they left, or lost the connection … waits for them" was said of a
    bot)."""
    return _("%(name)s (a bot run by %(runner)s) has stopped answering; the game is saved. "
             "When the table needs %(name)s, it waits up to %(seconds)s s for it, then "
             "pauses.") % {"name": name, "runner": runner, "seconds": f"{seconds:g}"}


def away_line(name: str) -> str:
    """Another player quit on purpose (their computer said so): said at once, not as
    "has gone silent" some seconds later, which read like a crash."""
    return _("%(name)s quit for now; the game is saved. When the table needs %(name)s, it "
             "pauses until they come back (millebornes resume on their computer).") % {
                 "name": name}


def away_bot_line(name: str, runner: str) -> str:
    """A bot's seat quit with the computer that runs it (the host's bots leave with the
    host): "Bot1 quit for now … until they come back (millebornes resume on their
    computer)" read as a person who would type it."""
    return _("%(name)s (a bot run by %(runner)s) quit for now with the computer that runs "
             "it; the game is saved. When the table needs %(name)s, it pauses until "
             "%(runner)s comes back (millebornes resume).") % {"name": name, "runner": runner}


def own_bot_away_line(runner: str) -> str:
    """The bot the others agreed on for this player's seat quit with the computer that
    runs it (``runner``'s): said to the player watching it, not of them."""
    return _("The bot that plays your seat quit with %(runner)s's computer, which runs it; "
             "the game is saved. When the table needs your seat, it pauses until "
             "%(runner)s comes back (millebornes resume on their computer).") % {
                 "runner": runner}


def own_bot_paused_line(runner: str) -> str:
    """The table paused on this player's seat, whose bot left with ``runner``'s computer."""
    return _("Paused: the bot that plays your seat quit with %(runner)s's computer, which "
             "runs it; the table waits for %(runner)s to come back (millebornes resume on "
             "their computer).") % {"runner": runner}


def moved_line(name: str, address: str) -> str:
    """A seat proved it now listens at another address (it resumed from another network):
    the table reaches it there, and so does the next resume here."""
    return _("%(name)s is now at %(address)s; the table reaches them there.") % {
        "name": name, "address": address}


def move_limit_note(seconds: float) -> str:
    """A table whose moves are timed, as its lobby and the player's own turn say it."""
    return _("(each move: up to %(seconds)s s, then the table pauses)") % {
        "seconds": f"{seconds:g}"}


def silent_move_wait_line(name: str, state: str, gone: float, seconds: float) -> str:
    """A player whose computer went quiet (``state``: " (slow)") in their own move, which
    is untimed only while their computer answers: "(no time limit)" was said, and the
    table paused on its own. ``gone``: the transport's time to call a silent computer
    gone; ``seconds``: the table's step limit, the wait after it. Said as two figures, the
    second the one the next line ("Bo left … for up to 20 s") says: "pauses within 25 s"
    (their sum) read as disagreeing with it."""
    return _("Waiting for %(name)s%(state)s: after %(gone)s s of silence their computer "
             "counts as gone; then the table waits up to %(seconds)s s for them, and "
             "pauses.") % {"name": name, "state": state, "gone": f"{gone:g}",
                           "seconds": f"{seconds:g}"}


def slow_bot_move_line(name: str, runner: str, move: float, gone: float | None,
                       seconds: float, named_bot: bool = False) -> str:
    """A bot's move, its program slow to answer (the transport's " (slow)"): what it is
    (a bot, and whose computer runs it: "their computer" was said of a bot) and how its
    own time for a move (``move``, the turn line's "(up to 30 s)") stands beside the
    table's. ``gone``: an untimed table's time to call a silent program stopped, after
    which the table waits ``seconds`` (its step limit) and pauses; None: a table that
    times moves, which pauses ``seconds`` into the move. "up to 30 s" followed by "20 s"
    read as two figures for one wait."""
    values = {"name": name, "runner": runner, "move": f"{move:g}",
              "gone": f"{gone:g}" if gone is not None else "", "seconds": f"{seconds:g}"}
    if named_bot:
        # a seat a bot took ("Ben's bot"): "Ben's bot (a bot run by Ann…)" said it twice
        if gone is None:
            return _("Waiting for %(name)s (run by %(runner)s; slow to answer): its "
                     "%(move)s s for a move hold while its program answers; the table "
                     "pauses if the move has not come within %(seconds)s s.") % values
        return _("Waiting for %(name)s (run by %(runner)s; slow to answer): its %(move)s s "
                 "for a move hold while its program answers; after %(gone)s s of silence "
                 "it counts as stopped, and the table waits up to %(seconds)s s more for "
                 "it, then pauses.") % values
    if gone is None:
        return _("Waiting for %(name)s (a bot run by %(runner)s; slow to answer): its "
                 "%(move)s s for a move hold while its program answers; the table pauses if "
                 "the move has not come within %(seconds)s s.") % values
    return _("Waiting for %(name)s (a bot run by %(runner)s; slow to answer): its %(move)s s "
             "for a move hold while its program answers; after %(gone)s s of silence it "
             "counts as stopped, and the table waits up to %(seconds)s s more for it, then "
             "pauses.") % values


def back_again_line(name: str) -> str:
    return _("%(name)s is connected again.") % {"name": name}


def pause_over_line(name: str) -> str:
    """The table paused on a seat (its player quit for now, or its move was late) goes on:
    that seat has written again (nothing was said: the last line stayed "Paused: …
    waits for them to come back" while the game went on)."""
    return _("The pause is over: %(name)s plays on.") % {"name": name}


def silent_seat_line(name: str) -> str:
    """A seat fell silent in a network game (its player left, or its step passed the
    time limit): the choices of the others, by key, and what they cost (one key left the
    hand in play without a score, unannounced). Three status lines at 80 columns: a longer
    notice was cut off before what the keys cost. How long one may wait is said ("Wait for
    them (millebornes resume)" left a newcomer watching for a clock that never came)."""
    return _("%(name)s left; the game is saved. Wait (no time limit) for them to type "
             "millebornes resume, or press b: a bot takes the seat from the next hand, or e: "
             "end the match; either needs all here to agree and leaves this hand "
             "unscored.") % {"name": name}


def broken_bot_line(name: str, plain: bool) -> str:
    """The silent seat is a bot of this very computer whose copy of the game could not be
    resumed (the damage was said as ``resume`` started): waiting, or ``millebornes
    resume``, cannot bring it back; a new bot or the end can (by key, or by command)."""
    if plain:
        return _("%(name)s, a bot of this computer, cannot come back: its copy of the game "
                 "is damaged (see above). Type bot: a new bot takes the seat from the next "
                 "hand, or end: end the match; either needs everyone here to agree and "
                 "leaves this hand unscored.") % {"name": name}
    return _("%(name)s, a bot of this computer, cannot come back: its copy of the game is "
             "damaged. Press b: a new bot takes the seat from the next hand, or e: end the "
             "match; either needs everyone here to agree and leaves this hand "
             "unscored.") % {"name": name}


def bot_not_resumed_line(seat: int | None, reason: str) -> str:
    """A bot of this computer (the host's, or one that took a seat) whose copy of the game
    is damaged: said on the terminal as ``resume`` starts (only the log had it, and the
    table then waited for the bot as for a player who left)."""
    if seat is None:
        return _("A bot of this game could not be resumed on this computer: %(reason)s") % {
            "reason": reason}
    return _("The bot at seat %(seat)d could not be resumed on this computer: "
             "%(reason)s") % {"seat": seat, "reason": reason}


def back_but_paused_line(name: str, plain: bool) -> str:
    """The seat the table paused on is connected again, and the table goes on once its
    move arrives (its signed entry lifts the pause): "Jo left … press b" stayed on for as
    long as Jo took to move, inviting the others to replace a player who was back."""
    if plain:
        return _("%(name)s is connected again: the table goes on once their move arrives. "
                 "If it does not come, type bot: a bot takes the seat from the next hand, "
                 "or end: end the match.") % {"name": name}
    return _("%(name)s is connected again: the table goes on once their move arrives. If it "
             "does not come, press b: a bot takes the seat from the next hand, or e: end "
             "the match.") % {"name": name}


def slow_seat_line(name: str, spent: float, budget: float, plain: bool) -> str:
    """The table paused on a seat past its budget of automatic steps for the hand (its
    computer answers, but only just before each step's limit: slow-loris): the figures,
    and the choices (by command or by key). Its next step lifts the pause, until the
    next one."""
    values = {"name": name, "spent": _seconds(spent), "budget": _seconds(budget)}
    if plain:
        return _("%(name)s is slow: %(spent)s s of automatic steps in this hand (limit "
                 "%(budget)s s), so the table pauses at each of them. Wait, or type bot: a "
                 "bot takes the seat from the next hand, or end: end the match; either needs "
                 "everyone here to agree and leaves this hand unscored.") % values
    return _("%(name)s is slow: %(spent)s s of automatic steps in this hand (limit "
             "%(budget)s s), so the table pauses at each of them. Wait, or press b: a bot "
             "takes the seat from the next hand, or e: end the match; either needs everyone "
             "here to agree and leaves this hand unscored.") % values


def slow_note(name: str, spent: float, budget: float) -> str:
    """Said after a wait for a seat's automatic step once that seat has been slow in
    this hand: how much of its budget it spent (the table pauses on it past the limit)."""
    return _("%(name)s is slow: %(spent)s s of automatic steps in this hand (limit "
             "%(budget)s s).") % {"name": name, "spent": _seconds(spent),
                                  "budget": _seconds(budget)}


def _seconds(value: float) -> str:
    """Seconds as a wait says them: whole from 10 s on, else to a tenth ("0.4", "3")."""
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}".removesuffix(".0")


def late_move_line(name: str, plain: bool) -> str:
    """The table paused on a player who is there but took longer than the table's move
    limit (``host --move-limit``): not "connected again", they never left."""
    if plain:
        return _("%(name)s took longer than the table's time for a move: the table goes on "
                 "once their move arrives. If it does not come, type bot: a bot takes the "
                 "seat from the next hand, or end: end the match.") % {"name": name}
    return _("%(name)s took longer than the table's time for a move: the table goes on once "
             "their move arrives. If it does not come, press b: a bot takes the seat from "
             "the next hand, or e: end the match.") % {"name": name}


def overdue_move_line(seconds: float) -> str:
    """This player's own move went past the table's move limit: the others' tables have
    paused on them (nothing said it; the status still offered the full limit)."""
    return _("Your move is past the table's %(seconds)s s: the others may now give your "
             "seat to a bot or end the match. Play now to go on.") % {
                 "seconds": f"{seconds:g}"}


def silent_seat_plain_line(name: str) -> str:
    """The same choices in the line mode, by command."""
    return _("%(name)s left; the game is saved. Wait (no time limit) for them to type "
             "millebornes resume, or type bot: a bot takes the seat from the next hand, or "
             "end: end the match; either needs everyone here to agree and leaves this hand "
             "unscored.") % {"name": name}


def _names_list(names: Sequence[str]) -> str:
    return i18n.join_and(names) if names else _("nobody yet")


def agreement_line(kind: str, name: str, agreed: Sequence[str],
                   waiting: Sequence[str], bot_wait: float | None = None) -> str:
    """Where an agreement stands: who agreed, whom we wait for. ``bot_wait``: a bot is
    among them, and signs only once ``name`` has been silent that many seconds on its own
    computer (never on another's word): "waiting for Bot1" went on for half a minute with
    nothing said of when it would end."""
    values = {"name": name, "agreed": _names_list(agreed), "waiting": _names_list(waiting)}
    if kind == "bot":
        text = _("A bot for %(name)s's seat from the next hand: agreed by %(agreed)s; "
                 "waiting for %(waiting)s.") % values
    else:
        text = _("Ending the match after %(name)s left: agreed by %(agreed)s; waiting for "
                 "%(waiting)s.") % values
    if bot_wait is None:
        return text
    return text + " " + _("A bot agrees only once %(name)s has been silent for %(seconds)s s "
                          "on its own computer.") % {"name": name,
                                                     "seconds": f"{bot_wait:g}"}


def agreement_question(choice: str, name: str) -> str:
    """What b (``choice`` "bot") or e ("end") about ``name``'s silent seat would agree to,
    asked before it is signed: either leaves the hand in play without a score, for good
    (one stray key did it at once)."""
    if choice == "bot":
        return _("b again: a bot plays %(name)s's seat to the end of the match (%(name)s "
                 "cannot take it back) and this hand is left without a score. Esc: no.") % {
                     "name": name}
    return _("e again: the match ends here for everyone, without a winner, and this hand "
             "is left without a score. Esc: no.")


def takeover_line(name: str, runner: str, hand_no: int) -> str:
    """An agreed takeover (``hand_no``: 1-based, the first hand the bot plays)."""
    return _("Agreed: hand %(void)d is left without a score; from hand %(hand)d, "
             "%(name)s's seat is played by a bot run by %(runner)s.") % {
                 "void": hand_no - 1, "hand": hand_no, "name": name, "runner": runner}


def own_takeover_line(runner: str, hand_no: int) -> str:
    """An agreed takeover of this player's own seat, said to them (``hand_no``: 1-based,
    the first hand the bot plays)."""
    return _("Agreed: hand %(void)d is left without a score; from hand %(hand)d, your "
             "seat is played by a bot run by %(runner)s.") % {
                 "void": hand_no - 1, "hand": hand_no, "runner": runner}


def agreed_end_line(name: str, hand_no: int, signers: Sequence[str]) -> str:
    """An agreed end of the match: who signed it and whom they said had left (their word:
    the seat they name signed nothing, and may be the one reading this)."""
    return _("%(signers)s ended the match in hand %(hand)d, saying %(name)s had left.") % {
        "signers": i18n.join_and(signers), "hand": hand_no, "name": name}


def nothing_to_agree_line() -> str:
    return _("Nobody is missing at the table: there is nothing to agree on.")


def agree_later_line() -> str:
    """The others' records about the silent seat name a later point of the hand than this
    peer has reached (it lags, or one of them signed a point nobody reaches): "You
    already chose" was said though the player had not."""
    return _("The others signed at a later point of this hand than this computer has "
             "reached: once it gets there, choose again.")


def stopped_bot_seat_line(name: str, runner: str, plain: bool) -> str:
    """The table paused on a bot's seat whose program stopped, and a new bot can take it:
    the choices of :func:`silent_seat_line`, the bot said as a bot, with whose computer
    runs it, as the slow bot's line says ("Bo left … Wait for them (millebornes resume)"
    was said of a bot process that had died)."""
    values = {"name": name, "runner": runner}
    if plain:
        return _("%(name)s (a bot run by %(runner)s) stopped answering; the game is saved. "
                 "Wait for it, or type bot: a new bot takes the seat from the next hand, or "
                 "end: end the match; either needs everyone here to agree and leaves this "
                 "hand unscored.") % values
    return _("%(name)s (a bot run by %(runner)s) stopped answering; the game is saved. Wait "
             "for it, or press b: a new bot takes the seat from the next hand, or e: end "
             "the match; either needs everyone here to agree and leaves this hand "
             "unscored.") % values


def no_bot_silent_line(name: str, plain: bool) -> str:
    """The table paused on a seat this computer would run the bot for, where it can start
    none (``millebornes play``: a bot's own process stopped): the end of the match, or
    ``resume`` (which starts the game's bots again), never "a bot takes the seat"."""
    if plain:
        return _("%(name)s stopped answering; the game is saved. Type end: end the match "
                 "(this hand is left unscored), or leave (quit) and come back with "
                 "millebornes resume, which starts this game's bots again.") % {"name": name}
    return _("%(name)s stopped answering; the game is saved. Press e: end the match (this "
             "hand is left unscored), or leave (q) and come back with millebornes resume, "
             "which starts this game's bots again.") % {"name": name}


def no_bot_here_line() -> str:
    """This seat would run the bot for the silent seat, but this game cannot start one
    (``millebornes play``, whose bots start with the match, in child processes: one that
    died left its seat silent and "b" offered). "You already chose for this hand" was said
    though the player had not (hostile pass 10)."""
    return _("No new bot can be started for that seat in this game: nothing was agreed. "
             "End the match, or leave it and come back with millebornes resume, which "
             "starts this game's bots again.")


def cannot_agree_line() -> str:
    return _("You already chose for this hand (a bot or the end, not both); waiting for "
             "the others.")


def no_agreement_line(name: str, bot: Sequence[str], end: Sequence[str], plain: bool) -> str:
    """No agreement about ``name``'s silent seat can hold where the table stands: the
    remaining players chose differently (``bot``: who chose a bot, ``end``: the end),
    and each chooses once a hand. The line offering b and e went on, with "waiting for
    Ann" (who had chosen the other and could not sign) and "You already chose" at b or e:
    nobody was told that the table now waits for the silent seat alone, or how to go."""
    values = {"name": name, "bot": i18n.join_and(bot), "end": i18n.join_and(end)}
    if bot and end:
        text = _("%(bot)s chose a bot for %(name)s's seat and %(end)s the end; one "
                 "choice each a hand, so nothing can be agreed now: the table waits for "
                 "%(name)s to come back.") % values
    else:
        text = _("Nothing about %(name)s's seat can be agreed now (one choice each a "
                 "hand): the table waits for %(name)s to come back.") % values
    leave = _("Type quit to leave; the game is saved.") if plain else \
        _("Press q to leave; the game is saved.")
    return f"{text} {leave}"


def others_gone_line(name: str, gone: Sequence[str], plain: bool) -> str:
    """The table paused on ``name``'s seat while ``gone`` (other seats, not this one) are
    gone too: a bot or the end needs every seat but the silent one to sign, so neither
    can hold until they are back (the host's bots leave with the host). "Press b: a bot
    takes the seat" was offered, and b answered "waiting for Bot1" for good."""
    text = _("%(name)s left, and %(gone)s too: a bot or the end needs everyone else at the "
             "table to agree, so the table waits for them to come back (millebornes "
             "resume).") % {"name": name, "gone": i18n.join_and(gone)}
    leave = _("Type quit to leave; the game is saved.") if plain else \
        _("Press q to leave; the game is saved.")
    return f"{text} {leave}"


def limit_note(seconds: float | None) -> str:
    """How long a wait may last, said with it ("every wait has a limit and says so"):
    the table's own limit, or that a player's move has none (a newcomer waited for a
    friend's move wondering whether the table had hung)."""
    if seconds is None:
        return _("(no time limit)")
    return _("(up to %(seconds)s s)") % {"seconds": f"{seconds:g}"}


def bot_label(name: str) -> str:
    """A bot's name in a wait on it: "Cy (a bot)" (the waits said "Cy (a bot)" in one
    line and "Cy" alone in the next)."""
    return _("%(name)s (a bot)") % {"name": name}


def bot_thinking_line(name: str, seconds: float, named_bot: bool = False) -> str:
    """A bot's move that takes a while: it thinks, and moves within ``seconds`` (past
    them a built-in bot moves for it). ``named_bot``: ``name`` says it is a bot already
    ("Ben's bot (run by Ann)"), not said twice."""
    if named_bot:
        return _("%(name)s is thinking %(limit)s.") % {"name": name,
                                                      "limit": limit_note(seconds)}
    return _("%(name)s (a bot) is thinking %(limit)s.") % {"name": name,
                                                          "limit": limit_note(seconds)}


def turn_wait_line(text: str, seconds: float | None) -> str:
    """Whose turn it is, as the line mode says it when the turn passes to another player
    (the full screen's status line), with the table's limit on that player's move: inside
    the sentence, before its full stop ("Waiting for Cy to answer. (up to 30 s)" read as
    a slip)."""
    if text.endswith("."):
        return _("%(turn)s %(limit)s.") % {"turn": text[:-1], "limit": limit_note(seconds)}
    return _("%(turn)s %(limit)s") % {"turn": text, "limit": limit_note(seconds)}


def others_turn_line(text: str, move_limit: float | None, bots: bool) -> str:
    """Another player's turn (``text``: whose) with the time their move may take: the
    table's ``move_limit``, or a bot's own (``bots``: only bots are to move), said from
    the start ("Bo's turn." alone, then "(up to 30 s)" three seconds later, read as a
    wait without end). Both screens say it."""
    return turn_wait_line(text, bot_move_time(move_limit) if bots else move_limit)


def table_setup_line(seconds: float) -> str:
    """What `millebornes play` does before its first card shows, and how long it may take
    (the terminal stayed blank meanwhile)."""
    return _("Setting up the table: the bots start, then every seat shuffles and the "
             "cards are dealt (a few seconds, at most %(seconds)d s).") % {
                 "seconds": int(seconds)}


def deal_setup_line(quiet: float) -> str:
    """Said once before a networked table's first deal (``host``, ``join``, ``resume``):
    what the computers do meanwhile; a step that takes more than ``quiet`` seconds is
    named on its own line (each step was, at once: fourteen lines of "Publishing hand
    keys: waiting for Bot1 (up to 20 s)" and the like)."""
    return _("Setting up the hand: every seat shuffles the deck in turn, then the cards "
             "are dealt (a few seconds; a seat that takes more than %(seconds)s s is named, "
             "with how long the table waits for it).") % {"seconds": f"{quiet:g}"}


def lobby_wait_line(state: LobbyState, host: bool, mine: int | None = None) -> str | None:
    """A lobby where every seated player is ready but a seat is free: it waits for more
    players, with no time limit, and (to the host) how to fill a seat with a bot. Every
    seat taken and someone not ready: who the match waits for (``mine``: this screen's
    seat), a joiner waited at a full table with no word of why the match did not start
    (the seat lines only left "(ready)" off the host's). None while someone seated is not
    ready and a seat is free (the seat lines say it)."""
    free = len(state.free())
    unready = [info.name for info in state.seats if info is not None and not info.ready]
    me = state.seats[mine] if mine is not None and 0 <= mine < len(state.seats) else None
    if not free and unready:
        if me is not None and not me.ready:
            return _("Every seat is taken: type ready when you are (the match starts once "
                     "everyone seated is ready).")
        return ngettext("Every seat is taken: the match starts once %(names)s is ready "
                        "(no time limit).",
                        "Every seat is taken: the match starts once %(names)s are ready "
                        "(no time limit).", len(unready)) % {
            "names": i18n.join_and(safe_text(name) for name in unready)}
    if not free or unready:
        return None
    line = ngettext("Waiting for %(n)d more player to join (no time limit).",
                    "Waiting for %(n)d more players to join (no time limit).", free) % {
                        "n": free}
    if host:
        line += " " + _("To have a bot play a free seat instead: quit, then host again "
                        "with --bots N (type help for the commands).")
    return line


def start_wait_line(seconds: float) -> str:
    """A joiner at a full, ready table whose start has not come at once (an honest host
    starts in the same moment): the wait and its limit."""
    return _("Everyone is seated and ready: waiting for the host to start the match (up "
             "to %(seconds)d s more).") % {"seconds": max(1, round(seconds))}


def table_name_text(state: LobbyState) -> str:
    """The table's name as shown: the host's default ("Ann's table", made by the host's
    program in English) in the reader's language."""
    host = state.seats[0] if state.seats else None
    if host is not None and state.table_name == f"{host.name}'s table":
        return _("%(name)s's table") % {"name": host.name}
    return state.table_name


def seat_taken_line(hand_no: int, runner: str) -> str:
    """To a player back at a table where a bot took their seat while they were away."""
    # "to the end of the match": a player back at the table looked for a way to take
    # the seat back (there is none: the table agreed on the bot for the match)
    return _("A bot plays your seat from hand %(hand)d, run by %(runner)s: the others "
             "agreed, saying you had left. It keeps the seat to the end of the match; you "
             "are watching.") % {
        "hand": hand_no, "runner": runner}


def cannot_run_bot_line(reason: str) -> str:
    """This seat would run the bot but cannot (``reason``: already in the player's
    language); nothing was signed, the choice can be made again or be ``end``."""
    return _("A bot cannot run on this computer: %(reason)s. Nothing was agreed; type bot "
             "to try again, or end.") % {"reason": reason}


def store_damaged_line(exc: StoreDamaged) -> str:
    """This computer's damaged copy of a game in the player's language: which game and
    file, what is wrong (the store's own technical detail, in English), and what to do."""
    transcript = exc.path / TRANSCRIPT
    if exc.todo_id not in ("keep", "permissions", "update", "secrets-lost"):
        return str(exc)
    if exc.todo_id == "permissions":
        todo = _("check the permissions of %(path)s") % {"path": exc.path / exc.file}
    elif exc.todo_id == "update":
        todo = _("update millebornes, then resume again")
    elif exc.todo_id == "secrets-lost":
        todo = _("they exist nowhere else, so this seat cannot go on at this table (nothing "
                 "was sent; the others' time limit stops the match, blaming nobody); "
                 "`millebornes verify %(transcript)s` shows what was played") % {
                     "transcript": transcript}
    elif exc.file != TRANSCRIPT:
        todo = _("it cannot be resumed from this copy, which is left as it is; the other "
                 "players keep theirs (`millebornes verify %(transcript)s` shows what was "
                 "played)") % {"transcript": transcript}
    else:
        todo = _("it cannot be resumed from this copy, which is left as it is; the other "
                 "players keep theirs")
    what = {"missing": pgettext("file", "missing"),
            "folder": _("a folder where a file should be"),
            "unreadable": _("not readable by this account"),
            "too-large": _("too large (%(size)d bytes)") % {"size": exc.size},
            }.get(exc.what_id, exc.what)
    if exc.what_id == "rules" and exc.rule_fault is not None:
        what = _("its rules cannot be played: %(why)s") % {
            "why": rule_fault_text(exc.rule_fault[0], exc.rule_fault[1], exc.what)}
    return _("this computer's copy of game %(id)s is damaged (%(file)s: %(what)s): local "
             "damage, nobody cheated; %(todo)s") % {
                 "id": exc.path.name[:8], "file": exc.file, "what": what, "todo": todo}


def error_line(exc: BaseException) -> str:
    """An error that ends a verb, in words: the ones whose cause is known as data are said
    in the player's language, a system error in the system's own words inside ours; any
    other keeps its own message."""
    if isinstance(exc, StoreDamaged):
        return store_damaged_line(exc)
    if isinstance(exc, IdentityError) and exc.path is not None:
        return identity_error_text(exc)
    if isinstance(exc, RuleOptionError):
        return rule_fault_text(exc.why, exc.data, str(exc))
    if isinstance(exc, IllegalAction):
        # a move refused (a bot's, by the table, in a network race): in words, as the
        # player's own refusals are
        return refused_line(str(exc), ())
    if isinstance(exc, OSError) and exc.strerror:    # else our own words, already said
        return os_error_text(exc)
    return str(exc)


def identity_error_text(exc: IdentityError) -> str:
    """The player's key file cannot be used, in the player's language (p2p's English was
    shown under --lang fr), saying what to do."""
    path = _data(os.fsdecode(exc.path or ""), 200)
    if exc.why == "mode":
        return _("%(path)s, your key, can be read by other users (mode %(mode)s); it must be "
                 "0600: run chmod 600 %(path)s") % {"path": path, "mode": f"{exc.mode:04o}"}
    if exc.why == "size" and exc.size > 32:
        return _("%(path)s is not a key file (a key is 32 bytes, this file is longer): "
                 "restore it from a backup, or move it away and a new key is made (the "
                 "others then see a new player)") % {"path": path}
    if exc.why == "size":
        return _("%(path)s is not a key file (a key is 32 bytes, this file has %(size)d): "
                 "restore it from a backup, or move it away and a new key is made (the "
                 "others then see a new player)") % {"path": path, "size": exc.size}
    if exc.why == "not-a-file":
        return _("%(path)s is not a file: move it away and a new key is made there, or "
                 "give another with --identity FILE") % {"path": path}
    if exc.why == "system":
        return _('your key %(path)s cannot be used: the system says "%(error)s"') % {
            "path": path, "error": _data(exc.error, 200)}
    return str(exc)


def os_error_text(exc: OSError) -> str:
    """A system error: the system's own message (in the system's language, often English)
    framed in the player's, with the file it concerns."""
    error = _data(exc.strerror or exc, 200)
    if exc.filename is not None:
        return _('%(path)s: the system says "%(error)s"') % {
            "path": _data(os.fsdecode(exc.filename), 200), "error": error}
    return _('the system says "%(error)s"') % {"error": error}


def listen_again_line(bind: str, port: int, error: str) -> str:
    """``resume`` cannot listen again where the other players reach this seat: the port
    is taken, most often by this game still open in another terminal (p2p's English
    sentence reached every screen whole, and said only "close the program that uses
    it")."""
    return _('cannot listen on %(bind)s port %(port)d again (the other players reach this '
             'seat there): the system says "%(error)s". Is this game still open in another '
             'terminal? Close it (or the program that uses that port), then resume '
             'again.') % {"bind": _data(bind, 60), "port": port, "error": _data(error, 200)}


def detail_text(detail: object) -> str:
    """A technical detail (p2p's or the system's own English note), framed in the player's
    language: "(detail: ...)", one clean bounded line."""
    return _("(detail: %(detail)s)") % {"detail": _data(detail, 2 * _DATA_LEN)}


def _shown(value: object) -> str:
    """An option's value as Python writes it (``'maybe'``, ``5``), one short clean line; a
    value that cannot be written (an int of 5,000 digits) is ``…``."""
    try:
        return safe_text(repr(value), 40)
    except ValueError:
        return "…"


def rule_fault_text(why: str, data: Mapping[str, Any], fallback: str = "") -> str:
    """Why a rule set or a seating was refused (``engine.rules.RuleOptionError``'s id and
    data), in words: a bad ``--option``, a host's rules, a transcript header's. Option
    names and values stay as they are typed (``fast_play=yes``); ``fallback`` (the
    engine's English) for an id this version does not know or data that does not hold.
    Never raises: the data can be another player's."""
    fallback = _data(fallback) if fallback else "?"
    try:
        return _rule_fault_text(why, data, fallback)
    except (LookupError, TypeError, ValueError, AttributeError):
        return fallback


def _rule_fault_text(why: str, data: Mapping[str, Any], fallback: str) -> str:
    values = {"option": _data(data.get("option"), 40), "value": _shown(data.get("value"))}
    if why == "not-bool":
        return _("%(option)s must be yes or no (true/false), not %(value)s") % values
    if why == "not-int":
        return _("%(option)s must be a whole number, not %(value)s") % values
    if why == "not-str":
        return _("%(option)s must be a name, not %(value)s") % values
    if why == "preset-name":
        return _("preset must be a short name (letters, digits, - or _), not %(value)s") % values
    if why == "choice":
        first, second = (_data(c, 24) for c in data["choices"])
        return _("%(option)s must be %(first)s or %(second)s, not %(value)s") % {
            **values, "first": first, "second": second}
    if why == "target":
        return _("%(option)s must be 0 (automatic), 700 or 1000, not %(value)s") % {
            **values, "option": "target"}
    if why == "range":
        return _("%(option)s must be from %(low)d to %(high)d, not %(value)s") % {
            **values, "low": _number(data["low"]), "high": _number(data["high"])}
    if why == "unknown-options":
        names = [_data(n, 40) for n in data["options"]][:10]
        return ngettext("unknown rule option: %(options)s", "unknown rule options: %(options)s",
                        len(names)) % {"options": i18n.join_list(names)}
    if why == "unknown-preset":
        return _("unknown preset %(value)s; choose classic or modern") % values
    if why == "option-syntax":
        # a rule's name alone ("--option fast_play", as --option help lists it): the
        # way to write it, with the value a player most likely meant
        name = str(data["text"]).strip().lower().replace("-", "_")
        default = getattr(PRESETS["classic"], name, None) if name != "preset" else None
        if default is not None:
            value = "yes" if isinstance(default, bool) else (
                "700" if name == "target" else str(default))
            return _("option %(option)s must look like NAME=VALUE, e.g. %(example)s") % {
                "option": _shown(data["text"]), "example": f"{name}={value}"}
        return _("option %(option)s must look like NAME=VALUE") % {
            "option": _shown(data["text"])}
    if why == "unknown-option":
        # a typo ("fastplay"): the option it most likely meant, after the list
        return _("unknown rule option %(name)s; known: %(known)s (--option help says what "
                 "each does)") % {
            "name": _shown(data["option"]),
            "known": i18n.join_list(_data(n, 40) for n in data["known"])} + did_you_mean(
                str(data["option"]), [str(n) for n in data["known"]][:100])
    if why == "not-yes-no":
        return _("option %(option)s takes yes/no, not %(value)s") % values
    if why == "not-number":
        return _("option %(option)s takes a number, not %(value)s") % values
    if why == "players":
        return _("a table seats 2 to 6 players, not %(value)s") % values
    if why == "teams":
        return _("teams are 2x2 (4 players), 2x3 or 3x2 (6 players), not %(players)s players "
                 "in %(teams)s teams") % {"players": _shown(data["players"]),
                                          "teams": _shown(data["teams"])}
    return fallback


def key_change_line(change: KeyChange) -> str:
    """A known name with a key we have not seen for it: both fingerprints, and the two
    explanations only the player can choose between."""
    return _("Warning: %(name)s [%(key)s] has a key we have not seen for this name (known: "
             "%(known)s): a new machine, or someone else using the name.") % {
                 "name": safe_text(change.name), "key": fingerprint(change.key),
                 "known": i18n.join_list(fingerprint(k) for k in change.known)}


def known_problem_line(known: KnownPlayers) -> str | None:
    """Why the known-players file could not be read (None: it could, or there is none)."""
    if known.problem_id == "unreadable":
        return _("(cannot read %(path)s: %(error)s)") % {"path": known.path,
                                                          "error": known.problem_detail}
    if known.problem_id == "damaged":
        return _("(%(path)s was damaged (%(error)s); kept as .bad)") % {
            "path": known.path, "error": known.problem_detail}
    return f"({known.problem})" if known.problem else None


def lobby_seat_lines(state: LobbyState, me: int | None = None) -> list[str]:
    """The lobby's seats: who sits where (with key), free seats, bots, who is ready.
    ``me``: this screen's seat, whose default name "You" is said in the player's language
    (a French lobby said "place 0 : You"); another seat so named is "You N"."""
    teams = state.seating.n_teams != state.seating.n_players
    out = []
    shown = local_names([s.name if s is not None else "" for s in state.seats],
                        -1 if me is None else me)
    for i, s in enumerate(state.seats):
        seat = (_("seat %(seat)d, team %(team)d") % {"seat": i,
                                                     "team": state.seating.side_of(i) + 1}
                if teams else _("seat %(seat)d") % {"seat": i})
        if s is None:
            out.append(_("%(seat)s: free") % {"seat": seat})
            continue
        marks = [_(word) for word, on in ((PEER_STATES_BOT, s.bot), (PEER_STATES["ready"],
                                                                     s.ready)) if on]
        name = you_label(shown[i]) if i == me else shown[i]
        out.append(_("%(seat)s: %(name)s [%(key)s]") % {
            "seat": seat, "name": safe_text(name), "key": fingerprint(s.key)}
            + (f" ({i18n.join_list(marks)})" if marks else ""))
    return out


#: What each protocol check of p2p found wrong (the check's id, as ``verify``, a stop and
#: a complaint name it), in words; the id itself is shown beside them, in brackets, for a
#: bug report. An id this version does not know is shown alone.
CHECK_WORDS = {
    # the file and its entries
    "file-corrupt": N_("the file is damaged or cut short"),
    "unsupported-version": N_("a transcript of another version of the format"),
    "file-too-large": N_("a file too large for a transcript"),
    "file-unreadable": N_("a file that cannot be read"),
    "header": N_("the transcript's header (the table's rules and players) does not hold"),
    "unexpected-error": N_("the check itself failed on this file"),
    "unknown-author": N_("an entry signed by someone not seated at the table"),
    "bad-signature": N_("an entry whose signature does not verify"),
    "hand-order": N_("an entry out of the order of the hands"),
    "broken-link": N_("an entry that does not link to the log before it"),
    "replayed-seq": N_("an entry number used twice"),
    "duplicate": N_("the same entry twice"),
    "out-of-order": N_("an entry out of order"),
    "wrong-table": N_("an entry from another table"),
    "wrong-hand": N_("an entry for another hand"),
    "equivocation": N_("two different entries signed for one place in the log"),
    "malformed-body": N_("an entry that no honest player writes (malformed)"),
    "seat-mismatch": N_("a deck message written for another seat"),
    "seat-range": N_("a message for a seat that does not exist"),
    # the shuffle and the deal
    "key-proof": N_("a hand key that fails its proof"),
    "duplicate-key": N_("a hand key sent twice"),
    "joint-key": N_("a joint key that cannot encrypt"),
    "phase": N_("a step at the wrong point of the protocol"),
    "duplicate-commit": N_("a commitment sent twice"),
    "commit-missing": N_("a missing commitment"),
    "round": N_("a shuffle round that does not exist"),
    "pass-order": N_("a shuffle pass out of turn"),
    "pass-length": N_("a shuffle pass with cards missing"),
    "pass-points": N_("a shuffle pass with invalid cards"),
    "shuffle-proof": N_("a shuffle pass that fails its proof"),
    "pass-mismatch": N_("a shuffle pass other than its revealed seed gives"),
    "reshuffle-cards": N_("a reshuffle of other cards than the discard pile"),
    "position": N_("a card position that does not exist"),
    "position-reassigned": N_("a card position dealt twice"),
    "not-holder": N_("a decryption share for a card its sender must not open"),
    "duplicate-share": N_("a decryption share sent twice"),
    "recipient": N_("a decryption share for a seat that does not exist"),
    "share-proof": N_("a decryption share that fails its proof"),
    "share-point": N_("a malformed decryption share"),
    "share-mismatch": N_("a decryption share other than its revealed key gives"),
    "wrong-share": N_("a decryption share other than the one due"),
    "duplicate-card": N_("a card seen twice in one deck"),
    "wrong-card": N_("an opened card other than the one its move names"),
    "inconsistent-open": N_("an opened card that its shares do not give"),
    "open-mismatch": N_("an opened card other than the revealed deck holds"),
    "deal-incomplete": N_("a dealt card that does not decrypt"),
    "card-not-in-deck": N_("an opened card that is not in the deck"),
    "duplicate-reveal": N_("a hand's secrets revealed twice"),
    "reveal-key": N_("a revealed secret that does not match its hand key"),
    "reveal-seeds": N_("a reveal with the wrong number of shuffle seeds"),
    "reveal-commitment": N_("a revealed shuffle seed other than the one committed to"),
    "reveal-missing": N_("a hand's secrets never revealed"),
    "incomplete": N_("the transcript stops early"),
    "random-reveal": N_("a random value other than the one committed to"),
    # the moves
    "after-end": N_("an entry after the end"),
    "out-of-turn": N_("an entry out of turn"),
    "wrong-entry": N_("an entry of the wrong kind"),
    "wrong-round": N_("a step of the wrong round"),
    "card-not-held": N_("a card played by someone who does not hold it"),
    "malformed-action": N_("a malformed move"),
    "wrong-seat": N_("a move written for another seat"),
    "leaked-draw": N_("a draw from the pile that names its card"),
    "illegal-move": N_("a move the rules forbid"),
    # the table
    "unfounded-complaint": N_("a complaint without evidence"),
    "unresponsive": N_("a step not written within the table's time limit"),
}


def check_words(check: object) -> str:
    """A protocol check's id in words, the id in brackets ("a decryption share that fails
    its proof [share-proof]"); ``illegal-move R9`` carries the rule's id. An id this
    version does not know (the data can come from a file) is shown alone, clean."""
    text = _data(check, 60)
    if not isinstance(check, str):
        return text
    key = check.split(" ", 1)[0]
    return f"{_(CHECK_WORDS[key])} [{text}]" if key in CHECK_WORDS else text


#: The protocol's steps (an entry's kind, as a timeout or a transcript that stops names
#: it), in words: a noun without article, shown inside a sentence.
STEP_WORDS = {
    "deck.key": N_("hand key"),
    "deck.commit": N_("shuffle commitment"),
    "deck.pass": N_("shuffle pass"),
    "deck.reshuffle": N_("reshuffle pass"),
    "deck.share": N_("decryption share"),
    "deck.reveal": N_("end-of-hand reveal"),
    "game.act": N_("move"),
    "game.rcommit": N_("commitment to a random value"),
    "game.rreveal": N_("random value"),
    # a decryption share that shows a played or discarded card to everyone
    "open": N_("decryption share of a card shown to all"),
}


def step_words(step: object) -> str:
    """A protocol step in words (an unknown step as it is, one clean short line)."""
    if isinstance(step, str) and step in STEP_WORDS:
        return _(STEP_WORDS[step])
    return _data(step, 60)


#: The protocol's steps as a player at the table says them (the pause line's "its next
#: step (decryption share)" was jargon there): what the seat's computer had to do, as
#: the subject of "… did not come". ``verify`` names the steps as :data:`STEP_WORDS` does.
PLAYER_STEP_WORDS = {
    "deck.key": N_("its computer's part of the shuffle"),
    "deck.commit": N_("its computer's part of the shuffle"),
    "deck.pass": N_("its computer's part of the shuffle"),
    "deck.reshuffle": N_("its computer's part of the reshuffle"),
    "deck.share": N_("its computer's part in drawing the next card"),
    "deck.reveal": N_("its computer's part in checking the hand once it is over"),
    "game.act": N_("its move"),
    "game.rcommit": N_("its computer's part in choosing who plays first"),
    "game.rreveal": N_("its computer's part in choosing who plays first"),
    "open": N_("its computer's part in showing a played card to everyone"),
}


def player_step_words(step: object) -> str:
    """A protocol step as the subject of a sentence a player reads at the table ("its
    computer's part in drawing the next card"); an unknown step "its next step (…)"."""
    if isinstance(step, str) and step in PLAYER_STEP_WORDS:
        return _(PLAYER_STEP_WORDS[step])
    return _("its next step (%(step)s)") % {"step": _data(step, 60)}


#: How a hand ended (``HandState.end_reason``), as ``verify`` says "ended by ...".
END_WORDS = {"trip": N_("a completed trip"), "exhausted": N_("empty hands"),
             "turn_limit": N_("the turn limit")}


#: Longest piece of data (a peer's reason, a system error, an English fallback) put in a
#: sentence: a line of a screen, not a page.
_DATA_LEN = 300


def _data(value: object, max_len: int = _DATA_LEN) -> str:
    """A value carried as data into a sentence (a reason id's text, a check's name, an
    address): one clean line, whatever its type, ``?`` when there is nothing.  Peers'
    text is cleaned where it is received too; this is the last gate before a screen."""
    if value is None:
        return "?"
    return safe_text(value if isinstance(value, str) else str(value), max_len)


def _number(value: object, lo: int = 0, hi: int = 10**9) -> int:
    """A count or a number of seconds from data; ValueError when it is not a plain
    number within ``lo``..``hi`` (the caller then says its fallback)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"not a number: {type(value).__name__}")
    if value != value or not lo <= value <= hi:      # NaN, infinities, out of range
        raise ValueError("out of range")
    return round(value)


def _seat_of(value: object) -> int | None:
    """A seat number from data (a bool or a text is no seat)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def stop_reason(why: Mapping[str, Any] | None, names: Sequence[str],
                fallback: str = "") -> str:
    """Why the match stopped, from the replicated log's reason id and data
    (``ReplicatedLog.stop_why``): who, and what they did or failed to do. A reason without
    an id (or one this version does not know, or whose data does not hold) is
    ``fallback``, the log's English. Never raises, and every piece of data is one clean
    line: the board's loop says this while the match is shown."""
    fallback = _data(fallback, 2 * _DATA_LEN) if fallback else ""
    if not why or not isinstance(why, Mapping):
        return fallback
    try:
        return _stop_reason(why, names, fallback)
    except (LookupError, TypeError, ValueError, OverflowError):
        return fallback


def _stop_reason(why: Mapping[str, Any], names: Sequence[str], fallback: str) -> str:

    def seat(key: str = "seat") -> str:
        return seat_label(names, _seat_of(why.get(key)))

    kind = why.get("id")
    if kind == "catch-up-failed":
        return _("this computer's copy of the game was damaged and no other player sent the "
                 "missing entries within %(seconds)d s (the table's time limit); resume "
                 "again when they are back") % {"seconds": _number(why["seconds"])}
    if kind == "secrets-lost":
        # this seat's own secrets do not match what it published (its stored copy was
        # damaged or edited): nobody is named, and nothing more is sent
        return _("this computer's stored secrets (secrets.log) do not match what your seat "
                 "published (%(detail)s); they exist nowhere else, so your seat cannot go "
                 "on at this table (nothing was sent; the others' time limit stops the "
                 "match, blaming nobody)") % {"detail": _data(why.get("detail"))}
    if kind == "fell-behind":
        # the others moved on and their entries did not reach this computer: nobody is
        # named (the seat it waited for had signed further on, so it was not silent)
        return _("this computer fell behind the table: the other players moved on, and the "
                 "entries it missed did not arrive within %(seconds)d s; resume to catch "
                 "up") % {"seconds": _number(why["seconds"])}
    if kind == "unresponsive":
        if why.get("away"):
            # its player quit on purpose (a signed AWAY): no "unresponsive" about it
            return _("%(seat)s quit for now; the table waits for them to come back "
                     "(millebornes resume)") % {"seat": seat()}
        if why.get("slow"):
            # past its budget of automatic steps for the hand (a seat answering just
            # before every step's limit): said with the figures, never as a blame
            return _("%(seat)s is slow: its automatic steps kept this computer waiting "
                     "%(spent)d s in this hand, more than the table's limit of %(budget)d s; "
                     "the table pauses at each of them from now on") % {
                         "seat": seat(), "spent": _number(why["spent"]),
                         "budget": _number(why["budget"])}
        if why.get("step") == "game.act" and why.get("gone"):
            # a move has no time limit while its player's computer answers: this one's
            # stopped answering ("did not come within the table's time limit" read as if
            # moves were timed, which verify says they are not)
            return _("%(seat)s is unresponsive: its computer stopped answering, and its "
                     "move did not come") % {"seat": seat()}
        # the step in a player's words: "its next step (decryption share)" on the pause
        # line asked a newcomer what a share was (verify keeps the protocol's name)
        return _("%(seat)s is unresponsive: %(step)s did not come within the table's time "
                 "limit") % {"seat": seat(), "step": player_step_words(why.get("step"))}
    if kind == "abandoned":
        text = _data(why.get("text")) if why.get("text") else ""
        return (_("%(seat)s abandoned the match: %(text)s") % {"seat": seat(), "text": text}
                if text else _("%(seat)s abandoned the match") % {"seat": seat()})
    if kind == "agreed-end":
        s = _seat_of(why.get("seat"))
        name = (you_label(names[s]) if s is not None and 0 <= s < len(names)
                else _("nobody identified"))
        signers = [_agreement_name(names, x) for x in why.get("signers") or ()
                   if isinstance(x, int)]
        if not signers:
            return _("the match was ended by agreement in hand %(hand)d after %(name)s "
                     "left") % {"hand": _number(why["hand"]) + 1, "name": name}
        return _("the match was ended in hand %(hand)d by %(signers)s, saying %(name)s had "
                 "left") % {"hand": _number(why["hand"]) + 1, "name": name,
                            "signers": i18n.join_and(signers)}
    if kind == "unfounded-complaint":
        return _("%(seat)s complained without evidence") % {"seat": seat()}
    if kind == "valid-share-complaint":
        return _("%(seat)s complained about a valid share (unfounded complaint)") % {
            "seat": seat()}
    if kind == "equivocation":
        return _("%(seat)s signed two different entries for one slot (equivocation)") % {
            "seat": seat()}
    if kind == "protocol":
        by = _seat_of(why.get("by"))
        if by is not None and 0 <= by < len(names):
            return _("%(seat)s broke the rules of the protocol (%(check)s, shown by "
                     "%(name)s's complaint)") % {"seat": seat(),
                                                 "check": check_words(why.get("check")),
                                                 "name": you_label(names[by])}
        return _("%(seat)s broke the rules of the protocol (%(check)s)") % {
            "seat": seat(), "check": check_words(why.get("check"))}
    if kind == "malformed-share":
        return _("%(seat)s sent a malformed share") % {"seat": seat()}
    if kind == "broken-log":
        return _("%(seat)s broke the log (%(check)s)") % {"seat": seat(),
                                                          "check": check_words(why.get("check"))}
    if kind == "own-step-failed":
        return _("this computer could not write its own step (%(error)s); the game is "
                 "saved: millebornes resume continues it") % {"error": _data(why.get("error"))}
    if kind == "save-failed":
        return _("this computer could not save the game (%(error)s); free some space or fix "
                 "the folder, then millebornes resume") % {"error": _data(why.get("error"))}
    return fallback


def local_damage_text(why: Mapping[str, Any] | None, fallback: str = "") -> str:
    """What was found damaged in this seat's own stored copy on resume
    (``ReplicatedLog.local_damage_why``); ``fallback``: the log's English."""
    fallback = _data(fallback, 2 * _DATA_LEN) if fallback else ""
    if not why or not isinstance(why, Mapping):
        return fallback
    try:
        index, count = _number(why["index"]), _number(why["count"])
    except (LookupError, TypeError, ValueError):
        return fallback
    if index > count:
        return fallback
    rest = count - index
    return ngettext("stored entry %(index)d of %(count)d is damaged (%(check)s); the "
                    "%(rest)d entry from there is fetched again from the other peers",
                    "stored entry %(index)d of %(count)d is damaged (%(check)s); the "
                    "%(rest)d entries from there are fetched again from the other peers",
                    rest) % {"index": index, "count": count,
                             "check": check_words(why.get("check")), "rest": rest}


def peer_stop_reason(peer: Any) -> str:
    """Why ``peer`` (a ``p2p.table.Peer``) stopped, in words; "" when it did not."""
    if not peer.stopped:
        return ""
    rlog = getattr(peer, "rlog", None)
    return stop_reason(getattr(rlog, "stop_why", None), list(getattr(rlog, "names", ())),
                       str(peer.stopped))


def peer_stopped_line(peer: Any) -> str:
    """"the match stopped: …", or for an end the players agreed to its own sentence
    ("the match stopped: the match was ended in hand 1 by Cy…" said it twice)."""
    reason = peer_stop_reason(peer)
    why = getattr(getattr(peer, "rlog", None), "stop_why", None) or {}
    if why.get("id") == "agreed-end" and reason:
        return reason[0].upper() + reason[1:] + "."
    return _("the match stopped: %(reason)s") % {"reason": reason}


def peer_local_damage(peer: Any) -> str:
    """What ``peer`` found damaged in its own stored copy, in words; "" when nothing."""
    if not peer.local_damage:
        return ""
    return local_damage_text(getattr(getattr(peer, "rlog", None), "local_damage_why", None),
                             str(peer.local_damage))


#: A seated joiner's waits for the host that ran out (``LobbyError.why``), by the seconds
#: waited and the table's address.
_HOST_WAITS = {
    "host-gone": N_("the table at %(endpoint)s stopped answering: nothing from it for "
                    "%(seconds)d s (its player left, or its computer is gone)"),
    "no-start": N_("every seat at the table at %(endpoint)s was taken and every player "
                   "ready for %(seconds)d s, yet no start came from the host (its program "
                   "may be stuck, or it holds the table); you left it"),
}


def _flags(value: object) -> str:
    """Command-line options this program made (a leading space each), or ""."""
    return value if isinstance(value, str) else ""


def lobby_refusal(why: str, data: Mapping[str, Any], fallback: str) -> str:
    """Why the lobby turned us away (``LobbyError.why`` and ``data``), in words;
    ``fallback``: the lobby's English, for a reason without an id (or whose data does not
    hold). Much of the data is the host's (its own words, its version): each piece is one
    clean line, and nothing here raises."""
    fallback = _data(fallback, 2 * _DATA_LEN) if fallback else "?"
    if not isinstance(data, Mapping):
        data = {}
    if why == "table-full":
        return _("the table is full")
    if why == "started-without-you":
        return _("the table started without you")
    if why == "asked-to-leave":
        return _("the host asked you to leave")
    if why == "host-closed":
        return _("the host closed the table before the match started")
    if why == "transport-key-mismatch":
        return _("your transport key does not match your connection")
    if why in _HOST_WAITS:
        try:
            seconds = _number(data.get("seconds") or 0)
        except ValueError:
            return fallback
        return _(_HOST_WAITS[why]) % {"endpoint": _data(data.get("endpoint")),
                                      "seconds": seconds}
    if why == "transport-key-taken":
        return _("your transport key is already another seat's (one computer's key, two "
                 "players?)")
    if why in ("host-version", "version"):
        return _("the table speaks lobby protocol version %(host)s and this millebornes "
                 "speaks %(ours)s: both players need the same millebornes version") % {
                     "host": _data(data.get("host"), 20), "ours": _data(data.get("ours"), 20)}
    if why == "host-said":
        return _('"%(text)s" (its own words)') % {"text": _data(data.get("text"))}
    if why == "host-key-mismatch":
        # and what to do: a key mistyped in --peer said only "not joining"
        return _("the table at %(endpoint)s has key %(key)s, not the expected %(expected)s: "
                 "not joining (check the key in --peer: the host's screen shows its table's "
                 "key, and millebornes lobby lists it)") % {"endpoint": _data(data.get("endpoint")),
                                   "key": _data(data.get("key")),
                                   "expected": _data(data.get("expected"))}
    if why == "no-answer":
        try:
            seconds = _number(data.get("seconds") or 0)
        except ValueError:
            return fallback
        values = {"endpoint": _data(data.get("endpoint")), "seconds": seconds}
        if data.get("door"):
            # not only a started match: a table refusing connections (too many at once,
            # a flood) or another computer holding this player's id keeps it out too
            return _("the table at %(endpoint)s gave its key but did not let this computer "
                     "in within %(seconds)d s: its match may have started (a started table "
                     "takes no one new), or it is refusing connections for now (too many "
                     "at once); try again in a moment") % values
        return (_("no table answered at %(endpoint)s within %(seconds)d s with the announced "
                  "key: is the table still open? (check HOST:PORT)") if data.get("with_key")
                else _("no table answered at %(endpoint)s within %(seconds)d s: is the table "
                       "still open? (check HOST:PORT)")) % values
    if why == "invalid-message":
        if isinstance(data.get("rule"), str):    # the engine refuses the host's rules
            return _("the host's rules cannot be played: %(fault)s") % {
                "fault": rule_fault_text(data["rule"], data.get("rule_data") or {},
                                         _data(data.get("wrong")))}
        return _("the host sent an invalid message (%(wrong)s)") % {
            "wrong": _data(data.get("wrong"))}
    if why == "match-running":
        # each command on a line of its own, under the sentence (:func:`cli.main.say_error`
        # keeps a line's indent): inside it, a narrow terminal cut "…/millebornes" from
        # its "resume"
        return (_("the table at %(endpoint)s is playing a match where you have a seat. "
                  "Take your seat again with the first command below; the second lists "
                  "your saved games:") % {"endpoint": _data(data.get("endpoint"))}
                # with the options that find this player's copy (``resume``, ``games``:
                # :func:`cli.args.resume_flags`, given by ``join``): a bare "resume" looked
                # in the default folder, not the --data-dir the player joined with
                + command_block(f"millebornes resume{_flags(data.get('resume_flags'))}")
                + command_block(f"millebornes games{_flags(data.get('games_flags'))}"))
    if why == "unreadable-message":
        try:
            kib = _number(data.get("kib") or 0)
        except ValueError:
            return fallback
        return _("the host sent a message this program cannot read (not a signed lobby "
                 "message, or more than %(kib)d KiB)") % {"kib": kib}
    if why == "bad-start":
        return _("the host started another table than the one agreed: %(detail)s") % {
            "detail": _data(data.get("detail"))}
    if why == "two-fingerprints":
        return _("two fingerprints for the host: %(first)s and %(second)s") % {
            "first": _data(data.get("first")), "second": _data(data.get("second"))}
    return fallback


#: A staged cheat (``simulate --cheat``), by kind: what the cheating seat does.
CHEAT_WORDS = {
    "shuffle-drop": N_("%(seat)s drops a card from its shuffle pass."),
    "shuffle-substitute": N_("%(seat)s swaps a card of its shuffle pass for a fresh encryption "
                             "of a card of its choice."),
    "shuffle-duplicate": N_("%(seat)s copies one card of its shuffle pass over another."),
    "bad-shuffle-proof": N_("%(seat)s shuffles honestly but publishes a forged proof of "
                            "shuffle."),
    "bad-share": N_("%(seat)s sends a wrong decryption share for a card dealt to another "
                    "seat."),
    "card-not-held": N_("%(seat)s plays or discards a card it does not hold."),
    "equivocation": N_("%(seat)s signs two different entries for one place in the log."),
    "withheld-reveal": N_("%(seat)s never reveals its hand secrets after the hand."),
    "bad-reveal": N_("%(seat)s reveals a shuffle seed other than the one it committed to."),
}
#: How the table caught it, by the check that failed.
CAUGHT_AS = {
    "pass-length": N_("%(seat)s's shuffle pass has a card missing"),
    "shuffle-proof": N_("%(seat)s's shuffle pass fails its proof"),
    "share-proof": N_("%(seat)s's decryption share fails its proof"),
    "wrong-card": N_("%(seat)s's open shows another card than the one it names"),
    "card-not-held": N_("%(seat)s played a card it does not hold"),
    "equivocation": N_("%(seat)s signed two different entries for one place in the log"),
    "reveal-missing": N_("%(seat)s never revealed its hand secrets: the table times out on it"),
    "reveal-commitment": N_("%(seat)s's revealed shuffle seed is not the one it committed to"),
}
#: When, by protocol stage.
CAUGHT_WHEN = {"shuffle": N_("before the deal"), "deal": N_("during the deal"),
               "play": N_("during play"), "reveal": N_("at the end-of-hand reveal")}


def _cheat_verify_line(o: Any, who: Callable[[int], str]) -> str:
    """Where the demo's transcript is and what ``verify`` says of it, from its data."""
    if o.verify_ok:
        return _("transcript kept in %(path)s; verify: OK, a fair game") % {"path": o.transcript}
    if o.verify_blamed is not None and o.verify_check:
        where = (_("entry %(n)d") % {"n": o.verify_index} if o.verify_index is not None
                 else _("the end"))
        return _("transcript kept in %(path)s; verify: FAILED at %(where)s: %(check)s, "
                 "broken by %(seat)s") % {"path": o.transcript, "where": where,
                                          "check": check_words(o.verify_check),
                                          "seat": who(o.verify_blamed)}
    return _("transcript kept in %(path)s; verify: %(summary)s") % {
        "path": o.transcript, "summary": o.verify_summary}


def cheat_demo_lines(o: Any, names: Sequence[str], same: bool) -> list[str]:
    """``simulate --cheat``'s report (``o``: a ``p2p.table.memory.CheatOutcome``): who
    cheated and how, who caught it, when, and whether ``verify`` names the same seat."""
    def who(s: int) -> str:
        return _("seat %(seat)d (%(name)s)") % {"seat": s, "name": names[s]}

    out = [_(CHEAT_WORDS[o.kind]) % {"seat": who(o.cheater)}]
    if not o.caught:
        # the transcript is kept in this case too: say where, as below
        return out + [_("not caught: the match ended without the cheat taking place"),
                      _cheat_verify_line(o, who)]
    blamed = i18n.join_and(who(s) for s in o.blamed)
    if not o.blamed:
        # "nobody" as a subject: French "personne a été prise" was wrong
        how = _("nobody was blamed: %(check)s") % {"check": check_words(o.check)}
    elif o.check in CAUGHT_AS and len(o.blamed) == 1:
        how = _(CAUGHT_AS[o.check]) % {"seat": blamed}
    else:
        how = ngettext("%(seat)s was caught: %(check)s", "%(seat)s were caught: %(check)s",
                       len(o.blamed)) % {"seat": blamed, "check": check_words(o.check)}
    verdict = {"cheat": pgettext("verdict", "cheat"),
               "unresponsive": pgettext("verdict", "unresponsive")}.get(o.verdict, o.verdict)
    values = {"how": how, "hand": (o.hand or 0) + 1, "verdict": verdict,
              "when": _(CAUGHT_WHEN[o.stage]) if o.stage in CAUGHT_WHEN else ""}
    if o.verdict == "unresponsive":
        line = (_("caught: %(how)s, %(when)s (hand %(hand)d); verdict: %(verdict)s.")
                if values["when"] else
                _("caught: %(how)s (hand %(hand)d); verdict: %(verdict)s."))
    else:
        line = (_("caught at once: %(how)s, %(when)s (hand %(hand)d); verdict: %(verdict)s.")
                if values["when"] else
                _("caught at once: %(how)s (hand %(hand)d); verdict: %(verdict)s."))
    seats = i18n.join_and(who(s) for s in o.detected_by)
    # the protocol's own note, framed as verify frames its notes: an English sentence
    # after "détecté par …" read as if the French had stopped halfway
    detected = _("detected by %(seats)s") % {"seats": seats}
    out += [line % values,
            f"{detected} {detail_text(o.detail)}" if o.detail else detected,
            _cheat_verify_line(o, who),
            _("verify names the same seat.") if same else
            _("verify does NOT agree with the table!")]
    return out


#: Lobby errors that are the host's answer (the rest are found on this side: no answer,
#: a wrong key, a start other than agreed).
HOST_REFUSAL_IDS = frozenset({"table-full", "started-without-you", "asked-to-leave",
                              "transport-key-mismatch", "host-version", "host-said"})


def lobby_error_line(why: str, data: Mapping[str, Any], fallback: str) -> str:
    """A lobby error as ``join`` says it: "the host refused: …" only when the host did."""
    text = lobby_refusal(why, data, fallback)
    line = (_("the host refused: %(reason)s") % {"reason": text}
            if why in HOST_REFUSAL_IDS or not why else text)
    if why == "table-full":
        # and what now: the join ended there, no next step said
        prog = program_name()
        line += ". " + _("Every seat is taken: %(lobby)s lists the tables on the LAN; "
                         "%(host)s opens one of your own.") % {
            "lobby": f"{prog} lobby", "host": f"{prog} host"}
    elif why == "started-without-you":
        prog = program_name()
        line += ". " + _("Another table? %(lobby)s lists the tables on the LAN; %(host)s "
                         "opens one of your own.") % {
            "lobby": f"{prog} lobby", "host": f"{prog} host"}
    return line


def bot_failed_line(name: str, reason: str, bot: str = "") -> str:
    """A bot (perhaps someone's plug-in) did not make a legal move; a built-in bot plays
    its seat from then on. ``bot``: its name in --bots (which plug-in it was: the table's
    seat names alone did not say)."""
    if bot:
        return _("%(name)s's bot (%(bot)s) failed to move (%(reason)s); a built-in bot "
                 "plays for it from now on.") % {
            "name": you_label(name), "bot": safe_text(bot, 60),
            "reason": safe_text(reason, 200)}
    return _("%(name)s's bot failed to move (%(reason)s); a built-in bot plays for it from "
             "now on.") % {
        "name": you_label(name), "reason": safe_text(reason, 200)}


def own_bot_failed_line(reason: str, bot: str) -> str:
    """The bot that plays this player's own seat (``--auto-bot``, perhaps their plug-in)
    did not make a legal move; the heuristic plays the seat from then on ("You's bot"
    would be :func:`bot_failed_line`'s words)."""
    return _("Your bot (%(bot)s) failed to move (%(reason)s); a built-in bot plays your "
             "seat from now on.") % {"bot": safe_text(bot, 60),
                                     "reason": safe_text(reason, 200)}


def stopped_line(reason: str, why: Mapping[str, Any] | None = None,
                 names: Sequence[str] = ()) -> str:
    """The match stopped: ``why`` (the log's reason id and data) in words when given, else
    ``reason`` as the log said it."""
    reason = stop_reason(why, names, reason)
    return (_("The match stopped: %(reason)s.") % {"reason": reason} if reason
            else _("The match stopped."))


def table_paused_line(reason: str, why: Mapping[str, Any] | None = None,
                names: Sequence[str] = ()) -> str:
    """The table paused on a seat that did not answer in time: the match is not over (it
    goes on when the seat comes back, or with a bot, or ends, by agreement)."""
    reason = stop_reason(why, names, reason)
    return (_("Paused: %(reason)s.") % {"reason": reason} if reason else _("Paused."))


def paused_on_bot_away_line(name: str, runner: str) -> str:
    """The table paused on a bot that quit with the computer that runs it: its runner's
    return ends the pause ("Paused: seat 1 (Bot1) quit for now; the table waits for them
    to come back (millebornes resume)" read as a person who would type it)."""
    return _("Paused: %(name)s (a bot run by %(runner)s) quit with the computer that runs "
             "it; the table waits for %(runner)s to come back (millebornes resume).") % {
                 "name": name, "runner": runner}


def dealing_line(hand_no: int) -> str:
    return _("Hand %(hand)d: the players shuffle and deal the cards.") % {"hand": hand_no}


def level_of_bot(spec: str) -> str:
    """The level (``--bots easy|normal|hard|expert``) that stands for the bot ``spec``, or
    ``spec`` as typed (a plug-in, a bot with options of its own)."""
    from engine.bots import LEVELS, bot_name_key

    key = bot_name_key(spec.strip())
    return next((level for level, bot in LEVELS.items() if key in (level, bot)), spec)


def peer_label(name: str, kind: str, state: str, level: str | None = None) -> str:
    """A seat in the help's list: "Ben (you)", "Bo (bot)", "Ann (left)"; ``level``: the
    level or bot the player chose for that seat ("Cy (bot: expert)": `play --bots
    easy,expert` said "Bo (bot), Cy (bot)", and which one was the expert, nowhere)."""
    word = {"you": N_("you"), "bot": N_("bot")}.get(kind) if kind in ("you", "bot") else \
        PEER_STATES.get(state)
    if kind == "you" and name == "You":    # "You (you)"; fr "À cette table : You (vous)"
        return you_label(name)
    if kind == "you":                      # "you (you)"
        return with_you(name)
    if kind == "bot" and level:
        # a bot a level stands for is said by that level, as --bots lists them: the bot no
        # one chose was "Bo (bot: heuristic)", a word the newcomer had read nowhere
        level = level_of_bot(level)
        return _("%(name)s (bot: %(level)s)") % {"name": name, "level": level}
    return f"{name} ({_(word) if word else state})"


PEER_STATES_BOT = N_("bot")

#: A peer's state as the help lists it.
PEER_STATES = {"connected": N_("connected"), "offline": N_("offline"), "left": N_("left"),
               "waiting": N_("waiting"), "thinking": N_("thinking"), "ready": N_("ready"),
               # the transport's other states (shown raw in English under sv, fr, …)
               # "connecting": added, nothing heard from it yet ("Ann (connecting)" read as
               # if Ann were doing something)
               "connecting": N_("not connected yet"), "slow": N_("slow"), "unknown": N_("unknown")}


def side_label(names: Sequence[str], n_sides: int, side: int) -> str:
    """Partners sit alternately: seat ``s`` is on side ``s % n_sides``."""
    n = max(1, n_sides)
    return " & ".join(name for s, name in enumerate(names) if s % n == side)


def seat_label(names: Sequence[str], seat: int | None, as_written: bool = False) -> str:
    """"seat 2 (Bo)"; ``as_written``: the name as its player wrote it, even "You" (a
    report with no seat of this screen's, e.g. ``verify``)."""
    if seat is None or not 0 <= seat < len(names):
        return _("nobody identified")
    name = names[seat] if as_written else you_label(names[seat])
    return _("seat %(seat)d (%(name)s)") % {"seat": seat, "name": name}


def file_refusal(report: GameReport) -> str | None:
    """Why ``verify`` and ``replay`` cannot check a file at all, in words (they show it
    after the file's name and exit 2): not a transcript, a transcript of another format
    version (and what to do), too large, not readable; None when the report says what
    holds and where it breaks."""
    check, crypto = report.check, report.crypto
    if check == "file-corrupt" and crypto.offset == 0:
        # and what the verb takes instead: a newcomer gave it README.md
        return _("not a Mille Bornes transcript: give a game's transcript (a .mbt file) or "
                 "its short id from `%(games)s`") % {"games": as_typed("millebornes games")}
    if report.version_unsupported():
        v = crypto.version
        values = {"version": _data(v), "ours": TRANSCRIPT_VERSION}
        if isinstance(v, int) and v < TRANSCRIPT_VERSION:
            return _("a transcript written by an older version of millebornes (transcript "
                     "format %(version)s; this one reads format %(ours)d only): check it "
                     "with the version of millebornes that wrote it") % values
        return _("a transcript written by a newer version of millebornes (transcript "
                 "format %(version)s; this one reads format %(ours)d): update millebornes "
                 "to check it") % values
    if check == "file-too-large":
        return _("too large for a transcript: %(size)d bytes, more than any game writes "
                 "(%(limit)d at most); it was not read") % {
                     "size": crypto.file_size or 0, "limit": MAX_TRANSCRIPT_BYTES}
    if check == "file-unreadable":
        return _("cannot be read: %(error)s") % {"error": _data(report.detail, 200)}
    return None


def verify_lines(report: GameReport, me: int | None = None,
                 width: int = WIDTH) -> list[str]:
    """``verify``'s report in words: a fair game, a fair game so far, or where it breaks
    and whom it blames. Every line fits 80 columns. A transcript has no seat of this
    screen's: every name is shown as its player wrote it, and a player who kept the
    default name "You" is "You 1", as ``replay`` names that seat (a French report said
    "en attente de You", an English word in the sentence, never the "You" form).
    ``me``: this player's seat in one of their own saved games (found by its id), named
    as ``replay`` names it there: "You" in the player's language. ``width``: the
    columns the lines fit in (a narrower terminal's: at 60 the terminal cut them
    mid-word)."""
    names = written_names(report.names) if me is None else tuple(
        you_label(n) if s == me else n for s, n in enumerate(local_names(report.names, me)))
    sides = len(report.totals) or len(names)

    def wrap_at(text: str, indent: str = "") -> list[str]:
        return wrap(text, width, indent)

    def scores(values: Sequence[int]) -> str:
        # each score on the line of its name ("…; You 125, Bo" / "1300"), a team's names
        # on one line too ("ended by a completed trip; You &" / "Cy 1100, Bo & Di 650")
        return i18n.join_list(
            f"{side_label(names, sides, i).replace(' & ', nb + '&' + nb)}{nb}{v}"
            for i, v in enumerate(values))

    nb = i18n.NO_BREAK
    out: list[str] = []
    refused = file_refusal(report)
    if refused is not None:
        # nothing was checked: no entry, no seat, no "altered or damaged" verdict
        return wrap_at(_("This file was not checked: %(why)s.") % {"why": refused})
    if report.ok:
        out += wrap_at(ngettext("OK: a fair game. %(entries)d signed entries, %(hands)d hand: "
                             "every signature, link, commitment, shuffle, proof and move "
                             "checks out.",
                             "OK: a fair game. %(entries)d signed entries, %(hands)d hands: "
                             "every signature, link, commitment, shuffle, proof and move "
                             "checks out.", len(report.hands))
                    % {"entries": report.crypto.entries_checked, "hands": len(report.hands)})
    elif report.unfinished:
        values = {"hand": report.stopped_hand + 1, "entries": report.crypto.entries_checked,
                  "seat": seat_label(names, report.waiting_for, True),
                  # the check's id only where it says more than "the file stops here"
                  # ("move [incomplete]" read as a fault in a game saved on purpose)
                  "check": (step_words(report.waiting_step)
                            + ("" if report.check == "incomplete"
                               else f" [{_data(report.check, 60)}]")
                            if report.waiting_step else check_words(report.check))}
        named = report.waiting_for is not None and report.waiting_for < len(names)
        if named:
            values["name"] = names[report.waiting_for]  # type: ignore[index]
        yours = named and report.waiting_for == me   # one's own game, stopped at one's turn
        if not report.hands and yours:
            text = _("Fair so far; the match stopped in hand %(hand)d, waiting for you, "
                     "before any hand ended. %(entries)d signed entries: every signature, "
                     "link and move checks out; no shuffle was shown yet.")
        elif not report.hands:
            # no hand ended: no shuffle was shown yet ("every finished hand's shuffle"
            # checked out, of none, read as a claim)
            text = (_("Fair so far; the match stopped in hand %(hand)d, waiting for %(name)s, "
                      "before any hand ended. %(entries)d signed entries: every signature, "
                      "link and move checks out; no shuffle was shown yet.") if named else
                    _("Fair so far; the match stopped in hand %(hand)d, before any hand "
                      "ended. %(entries)d signed entries: every signature, link and move "
                      "checks out; no shuffle was shown yet."))
        elif yours:
            text = _("Fair so far; the match stopped in hand %(hand)d, waiting for you. "
                     "%(entries)d signed entries: every signature, link and move checks out, "
                     "and every finished hand's shuffle and cards.")
        elif named:
            # "waiting for", not "when Ann left": the file shows whose entry is missing,
            # not why (she may have left, or her connection, or another seat, failed)
            text = _("Fair so far; the match stopped in hand %(hand)d, waiting for %(name)s. "
                     "%(entries)d signed entries: every signature, link and move checks out, "
                     "and every finished hand's shuffle and cards.")
        else:
            text = _("Fair so far; the match stopped in hand %(hand)d. %(entries)d signed "
                     "entries: every signature, link and move checks out, and every finished "
                     "hand's shuffle and cards.")
        # what the file lacks, last: a move in a player's words ("The next entry, due from
        # seat 0 (You), is missing: move." to a player who had left at their turn); any
        # other step, or a file cut short otherwise, as the protocol names it
        if report.waiting_step == "game.act" and report.check == "incomplete" and named:
            values["seat_no"] = report.waiting_for
            text += " " + (_("(The file ends before your next move.)") if yours else
                           _("(The file ends before the next move of %(name)s, at seat "
                             "%(seat_no)d.)"))
        elif report.waiting_step == "game.act" and report.check == "unresponsive" and named:
            # the others signed that the move did not come ("move [unresponsive]" of a
            # player who had quit was the protocol's id, unexplained)
            values["seat_no"] = report.waiting_for
            text += " " + (_("(The file ends before your next move, which the other players "
                             "signed did not come: you left, or your computer stopped "
                             "answering. Nobody is blamed for it.)") if yours else
                           _("(The file ends before the next move of %(name)s, at seat "
                             "%(seat_no)d, which the other players signed did not come: "
                             "%(name)s left, or their computer stopped answering. Nobody is "
                             "blamed for it.)"))
        else:
            if yours:
                # "en attente de vous … (… attendue de la place 0 (Vous) …)": the player's
                # own seat in the "you" form the sentence before it uses
                values["seat"] = _("you (seat %(seat)d)") % {"seat": report.waiting_for}
            text += " " + _("(The next entry, due from %(seat)s, is missing: %(check)s.)")
        out += wrap_at(text % values)
    else:
        where = (_("entry %(n)d") % {"n": report.failed_index}
                 if report.failed_index is not None else
                 _("byte %(n)d") % {"n": report.crypto.offset}
                 if report.crypto.offset is not None else _("the end"))
        if report.check == "bad-signature" or report.blamed_seat is None:
            blame = (_("no player can be blamed: the file was altered or damaged")
                     if report.blamed_seat is None else
                     _("the entry claims to be from %(seat)s but is not signed by it: the "
                       "file was altered or forged")
                     % {"seat": seat_label(names, report.blamed_seat, True)})
        else:
            blame = _("broken by %(seat)s") % {"seat": seat_label(names, report.blamed_seat, True)}
        # the check's name and the detail can quote the file (a transcript from anyone)
        detail = _data(report.detail, 2 * _DATA_LEN) if report.detail else ""
        if report.detail_why == "rule-option" and isinstance(report.detail_data, Mapping):
            fault = report.detail_data
            detail = rule_fault_text(_data(fault.get("why")), fault.get("data") or {}, detail)
        out += wrap_at(_("FAILED at %(where)s: %(check)s — %(blame)s.")
                    % {"where": where, "check": check_words(report.check), "blame": blame}
                    + (" " + detail_text(detail) if detail else ""),
                    indent="")
        for t in report.takeovers:
            if t["seat"] == report.blamed_seat and t["runner"] == me:
                out += wrap_at(_("(from hand %(hand)d, that seat was played by a bot run by "
                                 "you)") % {"hand": t["hand"] + 2}, indent="")
            elif t["seat"] == report.blamed_seat:
                out += wrap_at(_("(from hand %(hand)d, that seat was played by a bot run by "
                              "%(runner)s)") % {"hand": t["hand"] + 2, "runner": (
                                  _agreement_name(names, t["runner"]))}, indent="")
    for h in report.hands:
        first = h.get("first_seat")
        end = h.get("end", "?")
        values = {"hand": h["hand"] + 1, "scores": scores(h["scores"]),
                  "turns": h.get("turns", 0),
                  "end": _(END_WORDS[end]) if end in END_WORDS else _data(end, 40)}
        known = isinstance(first, int) and first < len(names)
        if known:
            values["name"] = names[first]  # type: ignore[index]
        if known and first == me and "turns" in h:   # "Vous a commencé": the "you" form
            text = _("hand %(hand)d: you played first, %(turns)d turns, ended by %(end)s; "
                     "%(scores)s")
        elif known and first == me:
            text = _("hand %(hand)d: you played first, %(scores)s")
        elif known and "turns" in h:
            text = _("hand %(hand)d: %(name)s played first, %(turns)d turns, ended by "
                     "%(end)s; %(scores)s")
        elif known:
            text = _("hand %(hand)d: %(name)s played first, %(scores)s")
        elif "turns" in h:
            text = _("hand %(hand)d: %(turns)d turns, ended by %(end)s; %(scores)s")
        else:
            text = _("hand %(hand)d: %(scores)s")
        lines = i18n.wrap(text % values, width - 4)
        out += ["  " + lines[0]] + ["    " + w for w in lines[1:]]
    if report.totals:
        w = report.winner
        winner = side_label(names, sides, w) if report.complete and w >= 0 else \
            (_("nobody (a tie)") if report.complete else _("none yet"))
        out += ["  " + w for w in i18n.wrap(_("totals: %(scores)s; winner: %(winner)s")
                                            % {"scores": scores(report.totals),
                                               "winner": winner}, width - 2)]
    def signed(seats: Iterable[int]) -> str:
        # one's own seat among those who agreed is "you", last, as the report's other
        # sentences say it ("agreed by Ben" said of Ben's own screen read as another's)
        seats = list(seats)
        who = [_agreement_name(names, s) for s in seats if s != me]
        if me is not None and me in seats:
            who.append(pgettext("among those who agreed", "you"))
        return i18n.join_and(who)

    def agreed(seats: Iterable[int]) -> str:
        # the takeover's "(agreed by …)" is a phrase of its own, one's own agreement said
        # apart: French read "(accord de vous)" with "you" put in the names' place
        seats = list(seats)
        others = i18n.join_and(_agreement_name(names, s) for s in seats if s != me)
        # Translators: said in brackets after "a bot run by Ann" in a finished game's
        # report; %(signers)s names the players who agreed ("Ann and Cy"). The next two
        # say the reader's own agreement ("you"), alone or with others'.
        if me is None or me not in seats:
            return _("agreed by %(signers)s") % {"signers": others}
        if not others:
            return _("agreed by you")
        return _("agreed by %(others)s and you") % {"others": others}

    for t in report.takeovers:
        values = {"void": t["hand"] + 1, "hand": t["hand"] + 2,
                  "name": _agreement_name(names, t["seat"]),
                  "runner": _agreement_name(names, t["runner"]),
                  "agreed": agreed(t["signers"])}
        if t["seat"] == me:
            text = _("hand %(void)d was left without a score; from hand %(hand)d, your seat "
                     "was played by a bot run by %(runner)s (%(agreed)s)")
        elif t["runner"] == me:
            text = _("hand %(void)d was left without a score; from hand %(hand)d, %(name)s's "
                     "seat was played by a bot run by you (%(agreed)s)")
        else:
            text = _("hand %(void)d was left without a score; from hand %(hand)d, %(name)s's "
                     "seat was played by a bot run by %(runner)s (%(agreed)s)")
        out += ["  " + w for w in i18n.wrap(text % values, width - 2)]
    e = report.ended_by_agreement
    if e is not None:
        values = {"hand": e["hand"] + 1, "name": _agreement_name(names, e["seat"]),
                  "signers": signed(e["signers"])}
        text = (_("the match was ended in hand %(hand)d by %(signers)s, saying you had "
                  "left") if e["seat"] == me else
                _("the match was ended in hand %(hand)d by %(signers)s, saying %(name)s had "
                  "left"))
        out += ["  " + w for w in i18n.wrap(text % values, width - 2)]
    limits = limits_text(report)
    if limits:
        out += ["  " + w for w in i18n.wrap(_with_units(limits), width - 2)]
    budget = budget_text(report)
    if budget:
        out += ["  " + w for w in i18n.wrap(_with_units(budget), width - 2)]
    return out


#: A number and the "s" of its seconds, in any language's sentence
_SECONDS = re.compile(r"(\d) s\b")


def _with_units(text: str) -> str:
    """``text`` with each number kept on the line of its "s" (the French report read
    "60" / "s de plus en tout")."""
    return _SECONDS.sub("\\1" + i18n.NO_BREAK + "s", text)


def budget_text(report: GameReport) -> str:
    """The budget of a seat's automatic steps per hand, derived from the step limit (a
    seat past it was paused on, never blamed): said by ``verify`` with the limits."""
    if report.step_limit is None:
        return ""
    # what the steps are, and the rule in the present ("past that the table paused at each
    # of them" read as an account of this game, and "automatic steps" as nothing known)
    return _("a seat's automatic steps (all but its moves: shuffles, deals, reveals) may "
             "keep the table waiting %(grace)s s each, and %(budget)s s more in all in a "
             "hand; past that, the table pauses at each slow one (nobody is blamed for "
             "it)") % {
                 "budget": f"{AUTO_BUDGET_STEPS * report.step_limit:g}",
                 "grace": f"{round(AUTO_GRACE_SHARE * report.step_limit, 3):g}"}


def limits_text(report: GameReport) -> str:
    """The table's agreed time limits, as ``verify`` shows them ("" without a readable
    header: there are none to say)."""
    if report.step_limit is None:
        return ""
    values = {"step": f"{report.step_limit:g}",
              "move": f"{report.decision_limit:g}" if report.decision_limit is not None else ""}
    text = (_("time limits: %(step)s s per protocol step, %(move)s s per move") % values
            if report.decision_limit is not None else
            _("time limits: %(step)s s per protocol step, moves untimed") % values)
    if not report.limits_recorded:
        text += " " + _("(not recorded: this table's version's defaults)")
    return text


def _agreement_name(names: Sequence[str], seat: int) -> str:
    """A seat's name in an agreement's sentence; a number out of the table's range (a
    hostile transcript's) as the seat, in a sentence ("la place 7" in French, not the
    lobby label "place 7")."""
    if 0 <= seat < len(names):
        return names[seat]
    return pgettext("in a sentence", "seat %(seat)d") % {"seat": seat}


# ----- replies to commands (cli.commands) -----------------------------------------------

#: What the command language answers, by key; ``{}`` fields are filled by :func:`reply`.
REPLIES: dict[str, str] = {
    "own-side": N_("{word} is on your side: hazards go on an opponent"),
    "own-self": N_("a hazard goes on an opponent, not on you"),
    "nobody-called": N_("nobody at the table is called {word} (opponents: {opponents})"),
    "ambiguous": N_("{word} could be {choices}: type more of the name"),
    "hand-empty": N_("your hand is empty"),
    "not-a-number": N_("{word!r} is not a card number: use 1 to {n}"),
    # a word that names no card held: a card is its number or its name, as printed
    "names-no-card": N_("{word!r} is not the name of a card in your hand: type the card's "
                        "number (1 to {n}) or its name"),
    "no-such-card": N_("there is no card {n} in your hand (you hold {held})"),
    # a card typed by its name ("play roll", "play 200") that the hand does not hold
    "not-held": N_("you hold no {card}"),
    # a card typed alone, with no command before it ("3", "roll")
    "card-alone": N_("to play {card}, type play {n}; to discard it, discard {n}"),
    "can-play": N_("{card} can be played now."),
    "cannot-play": N_("{card} cannot be played now: {reason}"),
    "match-over": N_("the match is over: type quit to leave"),
    # "next" typed in the hand (a newcomer took it for "end my turn"): what to do now
    "hand-in-play": N_("the hand is still in play (next deals the next hand once it is "
                       "over): {hint}"),
    "nothing-to-confirm": N_("there is nothing to confirm"),
    "hand-over": N_("the hand is over: type next (or press Enter) for the next hand"),
    "why-which": N_("why which card? e.g. why 3"),
    "unknown-command": N_("unknown command {word!r}: type help for the list"),
    # a typo close to a command ("paly", "dicsard"): the command it most likely meant
    "did-you-mean": N_("unknown command {word!r}: did you mean {guess!r}?"),
    "not-your-move": N_("it is not your move: wait for the others"),
    # a move typed in another's turn is refused at once, naming whose turn it is (the line
    # mode kept it and played it later, against a hand that had changed meanwhile)
    "not-your-turn": N_("it is {name}'s turn: wait for your turn"),
    "draw-first": N_("draw first: type draw"),
    "answer-first": N_("answer the hazard first: c for a coup fourré or n to let it stand "
                    "(coup / pass)"),
    # the card first: on a full status line the end was cut ("(50 does n…")
    "answer-first-not-this": N_("{card} does not answer the hazard: answer it first, c for a "
                             "coup fourré or n to let it stand"),
    # the full screen's, whose status line says under it how to answer
    "answer-first-below": N_("answer the hazard first"),
    # the full screen draws with space ("type draw" named the line mode's way alone)
    "draw-first-below": N_("draw first: press space (or type draw)"),
    "answer-first-not-this-below": N_("{card} does not answer the hazard: answer it first"),
    # fast play's second round (R10a): the coup fourré's is over, the remedy may answer;
    # "c for a coup fourré" was said there, and p, as the prompt says, was refused
    "answer-remedy-first": N_("answer the hazard first: p plays its remedy or n to let it "
                              "stand (play / pass)"),
    "answer-remedy-not-this": N_("{card} does not answer the hazard: answer it first, p "
                                 "plays its remedy or n to let it stand"),
    "coup-round-over": N_("the coup fourré round is over: p plays the remedy at once or n "
                          "to let it stand"),
    "no-remedy": N_("no {remedy} to play now (the remedy for {hazard}): n lets it stand"),
    # the full screen's, whose status line says under it how to answer (one line)
    "coup-round-over-below": N_("the coup fourré round is over"),
    "no-remedy-below": N_("no {remedy} to play now (the remedy for {hazard})"),
    "decide-first": N_("decide first: extend yes or extend no"),
    "play-or-discard": N_("play or discard a card"),
    "play-which": N_("play which card? e.g. play 3"),
    "on-whom": N_("play {n} on whom? e.g. play {n} on {name} (opponents: {opponents})"),
    "say-whom": N_("say whom to attack with {card}: {options}"),
    "not-a-hazard": N_("{card} is not a hazard: it goes on your own side, type play {n}"),
    "discard-which": N_("discard which card? e.g. discard 5"),
    "each-once": N_("name each card once"),
    "one-at-a-time": N_("discard one card at a time (several at once needs the fast_play option)"),
    "cannot-discard": N_("you cannot discard {card} now"),
    "confirm-safety": N_("{cards} is a safety: it protects you for the whole hand and is worth "
                      "points. Discard it anyway? (yes/no)"),
    "drawn-already": N_("you have drawn already: play or discard a card"),
    "draw-where": N_("draw from where? draw or draw discard, not {word!r}"),
    "no-discard-draw": N_("these rules do not allow taking the discard pile: type draw"),
    "discard-empty": N_("the discard pile is empty: type draw"),
    "pile-only": N_("this draw must come from the draw pile: type draw"),
    "cannot-draw": N_("you cannot draw now"),
    "answer-in": N_("your side's answer is in: waiting for the others"),
    # a move typed while the table is paused on another seat (Ctx.paused)
    "table-paused": N_("the table is paused, waiting for {name}: no move can be made until "
                       "they are back, or the others agree to a bot for the seat or to end "
                       "the match"),
    "table-paused-below": N_("the table is paused, waiting for {name}: no move until then"),
    "no-hazard": N_("there is no hazard to answer now"),
    "no-hazard-hint": N_("there is no hazard to answer now: {hint}"),
    # short: the prompt below it already says "n to let it stand" (a longer line was cut
    # off on an 80-column screen just before the key to press)
    "no-coup": N_("no coup fourré: you hold no {safety} (the safety against {hazard})"),
    "no-extension": N_("there is no extension to decide now"),
    "extend-how": N_("extend yes (play on to 1000) or extend no (end the hand)?"),
    "kept": N_("Kept it: nothing discarded."),
    "unknown-key": N_("the key {name} does nothing here: press h for the keys"),
    "caps-lock": N_("the key {name} does nothing: the keys are lower case (is Caps Lock on?)"),
}


def sorry_line(reason: str, names: Sequence[str] | None = None) -> str:
    """A refused command: "Sorry: REASON." with one mark at the end ("play 1 on whom?"
    was said "…whom?."). ``names``: the players', for :func:`after_colon` (French
    "Désolé : La carte …" had its capital after the colon)."""
    reason = reason.rstrip()
    if names is not None:
        reason = after_colon(reason, names)
    text = _("Sorry: %(reason)s.") % {"reason": reason}
    if reason.endswith((".", "!", "?", "…")) and reason + "." in text:
        text = text.replace(reason + ".", reason, 1)
    return text


def sentence(text: str) -> str:
    """``text`` as a sentence: a capital first, one full stop last (never "..")."""
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def keys_by_label() -> dict[str, str]:
    """Keys by the label on the key, in the player's language (the French screen said
    "La touche Enter ne fait rien ici" where its help says Entrée). Backspace comes as
    Ctrl-H ("The key Ctrl-H does nothing here" to a player who had pressed Backspace)."""
    enter = pgettext("key", "Enter")
    return {"c-h": pgettext("key", "Backspace"), "enter": enter, "c-m": enter,
            "home": pgettext("key", "Home"), "end": pgettext("key", "End"),
            "delete": pgettext("key", "Delete"), "insert": pgettext("key", "Insert"),
            "escape": pgettext("key", "Esc")}


def key_name(key: str) -> str:
    """A key as a keyboard labels it: ``c-x`` is Ctrl-X, ``f5`` F5, ``A`` A."""
    if len(key) == 1:
        return safe_text(key, 4) if key.isprintable() else repr(key)
    labels = keys_by_label()
    if key in labels:
        return labels[key]
    for prefix, word in (("c-s-", "Ctrl-Shift-"), ("c-", "Ctrl-"), ("s-", "Shift-")):
        if key.startswith(prefix):
            return word + key_name(key[len(prefix):]).capitalize()
    return key.upper() if key[:1] == "f" and key[1:].isdigit() else key.capitalize()


def unknown_key_line(key: str, letters: str) -> str:
    """What a key that means nothing on the board says (it used to say nothing): an
    upper-case letter whose lower case is one of ``letters`` asks about Caps Lock."""
    if len(key) == 1 and key.isupper() and key.lower() in letters:
        return sentence(reply("caps-lock", name=key))
    return sentence(reply("unknown-key", name=key_name(key)))


def after_colon(text: str, names: Sequence[str]) -> str:
    """``text`` (a sentence of its own) as it goes on after a colon: in French with a
    small letter, unless it begins with a player's name ("… maintenant : il vous faut un
    Feu vert", "… : Bo n'a pas …"; it read "… maintenant : Il vous faut …"). Other
    languages keep it as it is (English writes a whole sentence after a colon with its
    capital)."""
    if i18n.active().language != "fr" or not text[:1].isupper():
        return text
    # a name is written as it is: a player's, or a card's ("Limite de vitesse est …")
    if any(n and text.startswith(n) for n in (*names, *(i18n.kind_name(k) for k in Kind))):
        return text
    return text[0].lower() + text[1:]


def reply(key: str, **values: object) -> str:
    """One answer of the command language, in words. A ``word`` is what the player
    typed: shown as a short single line without control or bidi characters."""
    if "word" in values:
        values["word"] = safe_text(str(values["word"]), 40)
    return _(REPLIES[key]).format(**values)
