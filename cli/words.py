"""Every sentence the game says about actions, events and results, for every screen.

The full-screen console, the line mode, the replay, ``verify``'s report and the log all
put a move, a hand's end or a match's end into words through this one module, so the
wording is the same everywhere and can be translated in one place later. Nothing here
does I/O or keeps state.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from engine import (
    Action,
    CoupFourre,
    Discard,
    Draw,
    Extend,
    FastDiscard,
    FastRemedy,
    HandState,
    Pass,
    Play,
    Seating,
    card_name,
)
from engine.scoring import Match, hand_winner
from engine.state import DRAW, EXTEND, OVER, RESHUFFLE, RESPOND
from p2p.audit import GameReport

#: The one width every screen is laid out for.
WIDTH = 80

HELP = """\
Keys (N = a card's number in your hand):
  1-9 or arrows  select a card      p  play it      d  discard it
  t  choose the opponent a hazard goes on (the target)
  space  draw from the pile         g  take the top of the discard pile
  c  coup fourré    n  let a hazard stand (pass)    y / n  answer a question
  ?  why the selected card can or cannot be played now
  Enter  next hand     : or /  type a command     Esc  back     h or F1  help
  q  leave (asks first; the game is saved and can be resumed)
Commands: play N, play N on NAME, discard N, draw, draw discard, coup, pass,
  extend yes|no, why N (? N), next, help, quit.
Marks: + playable now; * a coup fourré; ★ the card you just drew.
  Safeties: RW Right of Way, ET Extra Tank, PP Puncture-Proof, DA Driving Ace."""

HELP_COLOR = "Colours: hazards red, remedies green, safeties blue."
HELP_MONO = ("Letters before each card: D distance, H hazard, R remedy, S safety "
             "(no colours: NO_COLOR is set).")


PLAIN_HELP = """\
Commands (N = a card's number in your hand, as listed):
  play N           play card N on your side (distance, remedy, safety)
  play N on NAME   play hazard N on an opponent (a name prefix is enough)
  discard N        discard card N (a safety asks you to confirm)
  draw             draw from the pile;  draw discard: take the discard's top
  coup / pass      answer a hazard played on you: coup fourré, or let it stand
  extend yes|no    at 700 km: play on to 1000, or end the hand
  why N  (? N)     why card N can or cannot be played now
  next             deal the next hand;   help;   quit (the game is saved)
Each card's family is said in brackets; "playable" marks what you can play now."""


def help_text(color: bool) -> str:
    """The help, explaining colours or the letters that replace them."""
    return HELP + "\n" + (HELP_COLOR if color else HELP_MONO)


def is_plural(subject: str) -> bool:
    """"You" and partners ("Bo & Di") take the plural verb."""
    return subject == "You" or " & " in subject


def verb(subject: str, singular: str, plural: str) -> str:
    """``subject`` followed by the verb in the right number: "Bo wins", "You win"."""
    return f"{subject} {plural if is_plural(subject) else singular}"


def side_names(names: Sequence[str], seating: Seating) -> tuple[str, ...]:
    """One label per side: a player's name, or partners joined with ``&``."""
    return tuple(" & ".join(names[s] for s in seating.seats_of(side))
                 for side in range(seating.n_teams))


def wrap(text: str, width: int = WIDTH, indent: str = "") -> list[str]:
    """Words wrapped at spaces, never mid-word (unless one word is wider than a line)."""
    return textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=indent,
                         break_long_words=True, break_on_hyphens=False) or [""]


def rule_last(text: str) -> str:
    """Plain words first, the rule id last: "R9: only the safety…" → "Only the safety… [R9]".

    The engine leads its explanations with rule ids (``R9: …``, with ``(or, R10, …)``
    inside); a first-time player needs the words first."""
    import re
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
    if text:
        text = text[0].upper() + text[1:]
    return text + (f" [{', '.join(ids)}]" if ids else "")


def with_names(text: str, names: Sequence[str]) -> str:
    """The engine speaks of "seat 2"; people have names."""
    import re

    def name(m: re.Match[str]) -> str:
        i = int(m.group(1))
        return names[i] if 0 <= i < len(names) else m.group(0)
    return re.sub(r"\bseat (\d+)", name, text)


# ----- moves ---------------------------------------------------------------------------

def describe(before: HandState, action: Action, after: HandState, names: Sequence[str],
             viewer: int, lang: str = "en") -> str | None:
    """A log line for ``action`` as ``viewer`` may see it (others' draws stay hidden)."""
    def who(seat: int) -> str:
        return names[seat]

    def side(side_ix: int) -> str:
        return side_names(names, before.seating)[side_ix]

    if isinstance(action, Draw):
        if action.source == "discard":
            return f"{who(action.seat)} took {card_name(before.discard[-1], lang)} " \
                   "from the discard pile."
        if action.seat == viewer:
            card = drawn_card(before, after, viewer)
            if card is not None:
                return f"{who(action.seat)} drew {card_name(card, lang)}."
        return None  # a hidden draw of another seat is not worth a log line
    if isinstance(action, Play):
        name = card_name(action.card, lang)
        if action.target is not None:
            return f"{who(action.seat)} played {name} on {side(action.target)}."
        line = f"{who(action.seat)} played {name}."
        if after.seat == action.seat and after.phase == DRAW and before.seat == action.seat \
                and _is_safety(action.card):
            line += f" A safety gives {who(action.seat).replace('You', 'you')} another turn."
        return line
    if isinstance(action, Discard):
        return f"{who(action.seat)} discarded {card_name(action.card, lang)}."
    if isinstance(action, FastDiscard):
        cards = ", ".join(card_name(c, lang) for c in action.cards)
        return f"{who(action.seat)} discarded {cards} and drew back to six."
    if isinstance(action, CoupFourre):
        return (f"Coup fourré! {who(action.seat)} answered with "
                f"{card_name(action.card, lang)} and takes the next turn.")
    if isinstance(action, FastRemedy):
        return f"{who(action.seat)} answered at once with {card_name(action.card, lang)}."
    if isinstance(action, Pass):
        return None  # R9: who passed says nothing, and says it for everyone alike
    if isinstance(action, Extend):
        if action.extend:
            return f"{verb(who(action.seat), 'extends', 'extend')} the trip to 1000!"
        return f"{verb(who(action.seat), 'stops', 'stop')} at {before.target} km."
    return "The discard pile is shuffled into a new draw pile."


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
                     names: Sequence[str], hand_no: int, lang: str = "en") -> str:
    """One step of a replay in words. With every hand shown, draws name their card and
    passes are said (the game is over: nothing is secret any more)."""
    if before is None or action is None:
        return hand_start_line(hand_no, names[after.seat], after.target, dealt=True)
    if isinstance(action, Pass):
        return f"{verb(names[action.seat], 'lets', 'let')} the hazard stand."
    seat = getattr(action, "seat", 0)
    viewer = seat if isinstance(seat, int) and seat >= 0 else 0
    text = describe(before, action, after, names, viewer, lang)
    if text is None and isinstance(action, Draw):
        return f"{names[action.seat]} drew a card."
    return text or f"{type(action).__name__}."


def hand_start_line(hand_no: int, first: str, target: int, dealt: bool = False) -> str:
    """``dealt``: say that the cards are dealt (a replay shows the deal as a step)."""
    return (f"Hand {hand_no}: {'the cards are dealt; ' if dealt else ''}"
            f"{verb(first, 'plays', 'play')} first; the trip is {target} km.")


def end_line(state: HandState, names: Sequence[str], hand_no: int) -> str:
    """How a hand ended, in words."""
    sides = side_names(names, state.seating)
    if state.completed_by >= 0:
        return f"Hand {hand_no} over: {sides[state.completed_by]} completed the trip."
    w = hand_winner(state)
    why = {"exhausted": "every hand is empty", "turn_limit": "the turn limit was reached"}
    reason = why.get(state.end_reason, state.end_reason or "no more moves")
    if w >= 0:
        return f"Hand {hand_no} over ({reason}): {sides[w]} got closest."
    return f"Hand {hand_no} over ({reason}): nobody completed the trip."


def match_over_line(match: Match, names: Sequence[str]) -> str:
    """"Match over: Bo & Di win." — or a tie."""
    w = match.winner()
    if w < 0:
        return "Match over: a tie, nobody wins."
    who = side_names(names, match.seating)[w]
    return f"Match over: {verb(who, 'wins', 'win')}."


def totals_line(match: Match, names: Sequence[str]) -> str:
    """"Ann 550, Bo 1300" — the match totals by side."""
    labels = side_names(names, match.seating)
    return ", ".join(f"{labels[i]} {t}" for i, t in enumerate(match.totals()))


def final_line(match: Match, names: Sequence[str]) -> str:
    w = match.winner()
    winner = side_names(names, match.seating)[w] if w >= 0 else "nobody (a tie)"
    return f"Final scores: {totals_line(match, names)}. Winner: {winner}."


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

def waiting_text(view: HandState, seat: int, names: Sequence[str], lang: str = "en") -> str:
    """One sentence: whose move it is and what is expected, naming the keys.

    When a hazard hits the human's side the sentence depends only on the attack, never on
    the human's hand (R9): "coup" and "pass" are always offered.
    """
    phase = view.phase
    if phase == OVER:
        return "The hand is over."
    if phase == RESHUFFLE:
        return "Shuffling the discard pile into a new draw pile…"
    if phase == RESPOND:
        att = view.attack
        assert att is not None
        hazard = card_name(att.card, lang)
        waiting = att.waiting_for()
        if seat in waiting:
            victim = "you" if view.seating.team_size == 1 else "your side"
            also = ", or p plays the remedy" if view.rules.fast_play else ""
            return (f"{names[att.attacker]} played {hazard} on {victim}: "
                    f"c for a coup fourré, n to let it stand (coup / pass){also}.")
        who = " and ".join(names[s] for s in waiting)
        return f"Waiting for {who} to answer the hazard ({hazard})."
    actor = view.seat
    if phase == DRAW:
        if actor == seat:
            if view.rules.draw_discard and view.discard and view.pending \
                    and view.pending[0] == "turn":
                top = card_name(view.discard[-1], lang)
                return f"Your turn: draw (space; draw) or take {top} (g; draw discard)."
            return "Your turn: draw a card (space, or type draw)."
        return f"{names[actor]} is drawing."
    if phase == EXTEND:
        if actor == seat:
            return (f"You reached {view.target} km: go on to 1000 (y, extend yes) "
                    "or stop (n, extend no)?")
        return f"Waiting for {names[actor]} to decide on the extension."
    if actor == seat:
        return "Your turn: play or discard a card (p or d; play N, discard N)."
    return f"{names[actor]}'s turn."


# ----- scores ---------------------------------------------------------------------------

ITEM_WORDS = {
    "distance": "distance", "safeties": "safeties", "all_safeties": "all four safeties",
    "coups_fourres": "coups fourrés", "trip": "trip completed", "delayed_action": "delayed action",
    "safe_trip": "safe trip (no 200)", "extension": "extension", "shut_out": "shut-out",
}


# ----- saved games and their checks -----------------------------------------------------

def saved_line(path: str, short_id: str | None) -> str:
    ref = short_id or path
    return (f"The game is saved in {path}. Anyone can check it with: "
            f"millebornes verify {ref}")


def paused_line(short_id: str | None) -> str:
    ref = f" {short_id}" if short_id else ""
    return (f"You left; the game is saved. Come back to it with: millebornes resume{ref} "
            f"(millebornes verify{ref} checks it so far)")


def left_wait_line(name: str) -> str:
    """Another player left a network game: it is a pause, not an end."""
    return (f"{name} left; the game is saved. Waiting for {name} to come back "
            "(millebornes resume); q leaves too, and you can resume later.")


def stopped_line(reason: str) -> str:
    return f"The match stopped: {reason}." if reason else "The match stopped."


def hand_in_play_line(hand_no: int, target: int) -> str:
    return f"Hand {hand_no}: the cards are dealt; the trip is {target} km."


def dealing_line(hand_no: int) -> str:
    return f"Hand {hand_no}: the players shuffle and deal the cards."


def peer_label(name: str, kind: str, state: str) -> str:
    """A seat in the help's list: "Ben (you)", "Bo (bot)", "Ann (left)"."""
    if kind in ("you", "bot"):
        return f"{name} ({kind})"
    return f"{name} ({state})"


def side_label(names: Sequence[str], n_sides: int, side: int) -> str:
    """Partners sit alternately: seat ``s`` is on side ``s % n_sides``."""
    n = max(1, n_sides)
    return " & ".join(name for s, name in enumerate(names) if s % n == side)


def seat_label(names: Sequence[str], seat: int | None) -> str:
    if seat is None or not 0 <= seat < len(names):
        return "nobody identified"
    return f"seat {seat} ({names[seat]})"


def verify_lines(report: GameReport) -> list[str]:
    """``verify``'s report in words: a fair game, a fair game so far, or where it breaks
    and whom it blames. Every line fits 80 columns."""
    names = report.names
    sides = len(report.totals) or len(names)

    def scores(values: Sequence[int]) -> str:
        return ", ".join(f"{side_label(names, sides, i)} {v}" for i, v in enumerate(values))

    out: list[str] = []
    if report.ok:
        out += wrap(f"OK: a fair game. {report.crypto.entries_checked} signed entries, "
                    f"{len(report.hands)} hand(s): every signature, link, commitment, "
                    "shuffle, proof and move checks out.")
    elif report.unfinished:
        stopped = report.stopped_hand + 1
        who = (f" when {names[report.waiting_for]} left"
               if report.waiting_for is not None and report.waiting_for < len(names) else "")
        out += wrap(f"Fair so far; the match stopped in hand {stopped}{who}. "
                    f"{report.crypto.entries_checked} signed entries: every signature, link "
                    "and move checks out, and every finished hand's shuffle and cards. "
                    f"(The next entry, due from {seat_label(names, report.waiting_for)}, "
                    f"is missing: {report.check}.)")
    else:
        where = (f"entry {report.failed_index}" if report.failed_index is not None else
                 f"byte {report.crypto.offset}" if report.crypto.offset is not None
                 else "the end")
        if report.check == "bad-signature" or report.blamed_seat is None:
            blame = ("no player can be blamed: the file was altered or damaged"
                     if report.blamed_seat is None else
                     f"the entry claims to be from {seat_label(names, report.blamed_seat)} "
                     "but is not signed by it: the file was altered or forged")
        else:
            blame = f"broken by {seat_label(names, report.blamed_seat)}"
        out += wrap(f"FAILED at {where}: check '{report.check}' — {blame}"
                    + (f". {report.detail}" if report.detail else "."), indent="")
    for h in report.hands:
        first = h.get("first_seat")
        head = f"  hand {h['hand'] + 1}: "
        if isinstance(first, int) and first < len(names):
            head += f"{names[first]} played first, "
        if "turns" in h:
            head += f"{h['turns']} turns, ended by {h.get('end', '?')}; "
        out += textwrap.wrap(head + scores(h["scores"]), WIDTH, subsequent_indent="    ")
    if report.totals:
        w = report.winner
        winner = side_label(names, sides, w) if report.complete and w >= 0 else \
            ("nobody (a tie)" if report.complete else "none yet")
        out.append(f"  totals: {scores(report.totals)}; winner: {winner}")
    if report.limits:
        out += textwrap.wrap(f"  time limits: {report.limits}", WIDTH, subsequent_indent="    ")
    return out


# ----- replies to commands (cli.commands) -----------------------------------------------

#: What the command language answers, by key; ``{}`` fields are filled by :func:`reply`.
REPLIES: dict[str, str] = {
    "own-side": "{word} is on your side: hazards go on an opponent",
    "nobody-called": "nobody at the table is called {word} (opponents: {opponents})",
    "ambiguous": "{word} could be {choices}: type more of the name",
    "hand-empty": "your hand is empty",
    "not-a-number": "{word!r} is not a card number: use 1 to {n}",
    "no-such-card": "there is no card {n} in your hand (you hold {held})",
    "can-play": "{card} can be played now.",
    "cannot-play": "{card} cannot be played now: {reason}",
    "match-over": "the match is over: type quit to leave",
    "hand-in-play": "the hand is still in play",
    "nothing-to-confirm": "there is nothing to confirm",
    "hand-over": "the hand is over: type next (or press Enter) for the next hand",
    "why-which": "why which card? e.g. why 3",
    "unknown-command": "unknown command {word!r}: type help for the list",
    "not-your-move": "it is not your move: wait for the others",
    "draw-first": "draw first: type draw",
    "answer-first": "answer the hazard first: c for a coup fourré or n to let it stand "
                    "(coup / pass)",
    "answer-first-not-this": "answer the hazard first: c for a coup fourré or n to let it "
                             "stand ({card} does not answer it)",
    "decide-first": "decide first: extend yes or extend no",
    "play-or-discard": "play or discard a card",
    "play-which": "play which card? e.g. play 3",
    "on-whom": "play {n} on whom?",
    "say-whom": "say whom to attack with {card}: {options}",
    "not-a-hazard": "{card} is not a hazard: it goes on your own side, type play {n}",
    "discard-which": "discard which card? e.g. discard 5",
    "each-once": "name each card once",
    "one-at-a-time": "discard one card at a time (several at once needs the fast_play option)",
    "cannot-discard": "you cannot discard {card} now",
    "confirm-safety": "{cards} is a safety: it protects you for the whole hand and is worth "
                      "points. Discard it anyway? (yes/no)",
    "drawn-already": "you have drawn already: play or discard a card",
    "draw-where": "draw from where? draw or draw discard, not {word!r}",
    "no-discard-draw": "these rules do not allow taking the discard pile: type draw",
    "discard-empty": "the discard pile is empty: type draw",
    "pile-only": "this draw must come from the draw pile: type draw",
    "cannot-draw": "you cannot draw now",
    "answer-in": "your side's answer is in: waiting for the others",
    "no-hazard": "there is no hazard to answer now",
    "no-hazard-hint": "there is no hazard to answer now: {hint}",
    "no-coup": "you hold no {safety}, the safety against {hazard}: no coup fourré. "
               "Type pass.",
    "no-extension": "there is no extension to decide now",
    "extend-how": "extend yes (play on to 1000) or extend no (end the hand)?",
    "kept": "Kept it: nothing discarded.",
}


def reply(key: str, **values: object) -> str:
    """One answer of the command language, in words."""
    return REPLIES[key].format(**values)
