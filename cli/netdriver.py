"""The console's :class:`cli.driver.TableDriver` over a networked seat.

A :class:`p2p.table.Peer` plays the human's seat on the network; :class:`NetDriver` lets
the full-screen console and the line mode show it and take its moves exactly as they do
for :class:`cli.driver.LocalDriver`. It uses only the Peer's public read API (view,
legal, submit, waiting_on, progress, match_so_far, peers, drain_events, ...).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Collection, Sequence
from typing import Any

from engine import Action, Draw, IllegalAction
from engine.scoring import Match
from p2p.table import Peer, SessionEvent, TableStep, Waiting

from .bot_process import bot_move_time
from .driver import PeerStatus
from .i18n import N_, _
from .words import (
    PEER_STATES,
    agree_later_line,
    agreed_end_line,
    agreement_line,
    away_bot_line,
    away_line,
    back_again_line,
    back_at_table_line,
    back_but_paused_line,
    bot_failed_line,
    bot_thinking_line,
    broken_bot_line,
    cannot_agree_line,
    cannot_run_bot_line,
    dealing_line,
    describe,
    end_line,
    fell_behind_line,
    hand_start_line,
    late_move_line,
    left_short_wait_note,
    left_wait_line,
    limit_note,
    local_names,
    match_over_line,
    match_so_far_line,
    moved_line,
    no_agreement_line,
    no_bot_here_line,
    no_bot_silent_line,
    nothing_to_agree_line,
    others_gone_line,
    own_bot_away_line,
    own_bot_paused_line,
    own_takeover_line,
    pause_over_line,
    paused_on_bot_away_line,
    reply,
    seat_taken_line,
    silent_move_wait_line,
    silent_seat_line,
    silent_seat_plain_line,
    slow_bot_move_line,
    slow_note,
    slow_seat_line,
    stopped_bot_seat_line,
    stopped_line,
    table_paused_line,
    takeover_line,
    went_silent_bot_line,
    went_silent_line,
    you_names,
)

log = logging.getLogger("cli.netdriver")


#: What the table does between moves, in words (translated where shown), as a newcomer
#: can follow them: the three steps before the shuffle (each computer's hand key, its
#: commitments to its random value and to its shuffle) were said as the protocol names
#: them, "Publishing hand keys", "Committing to randomness", at each hand's start in the
#: line mode: what keys, what commitment? They are what the shuffle needs first, said so.
STEP_WORDS = {
    TableStep.KEYS: N_("getting ready to shuffle"),
    TableStep.RANDOM_COMMIT: N_("getting ready to shuffle"),
    TableStep.SHUFFLE_COMMIT: N_("getting ready to shuffle"),
    TableStep.SHUFFLE: N_("shuffling the deck"),
    TableStep.FIRST_PLAYER: N_("drawing the first player"),
    TableStep.DEAL: N_("dealing"),
    TableStep.RESHUFFLE: N_("reshuffling"),
    TableStep.REVEAL: N_("proving the deal was fair"),
}


#: The steps of a hand's set-up before its first move, and of a reshuffle of the discard
#: pile (said by its own event): :meth:`NetDriver.setting_up`.
SETUP_STEPS = frozenset({TableStep.KEYS, TableStep.RANDOM_COMMIT, TableStep.SHUFFLE_COMMIT,
                         TableStep.SHUFFLE, TableStep.FIRST_PLAYER, TableStep.DEAL,
                         TableStep.RESHUFFLE})


def event_words(names: Sequence[str], me: int, ev: SessionEvent) -> str:
    """A session event in the console's words (moves as :func:`cli.words.describe` says
    them, from seat ``me``'s view, with the names this seat shows); the peer's own text
    otherwise."""
    if ev.kind == "action" and ev.data.get("before") is not None:
        try:
            line = describe(ev.data["before"], ev.data["action"], ev.data["after"],
                            names, me, you=True)
            return line or ""
        except Exception:  # the words are a nicety; the structured event is the truth
            pass
    return ev.text


#: Seconds a bot's move takes before the screen says that it thinks, and for how long at
#: most (a built-in bot moves at once; a plug-in may take its 30 s)
BOT_THINKING_SAID_AFTER = 3.0
#: a seat's automatic steps, beyond their grace, said as slow from this many seconds in a
#: hand, or a tenth of the budget if less (an honest computer spends none:
#: docs/network.md, "slow-loris")
SLOW_SAID_AFTER = 1.0


def agreed_first(events: Sequence[SessionEvent]) -> list[SessionEvent]:
    """The events in their order, except that an agreed takeover is said before the deal
    of the hand it starts ("Hand 2: the players shuffle" came before "Agreed: hand 1 is
    left without a score", as if hand 2 began on its own)."""
    out = list(events)
    for ev in list(out):
        if ev.kind != "takeover":
            continue
        j = next((k for k, e in enumerate(out[:out.index(ev)]) if e.kind == "hand-start"
                  and int(e.data.get("hand", -1)) > int(ev.data.get("hand", 0))), None)
        if j is not None:
            out.remove(ev)
            out.insert(j, ev)
    return out


class NetDriver:
    """:class:`cli.driver.TableDriver` over a networked :class:`p2p.session.Peer` (the
    human's seat), for the full-screen console and ``cli.plain``.

    The peer's protocol moves on to the next hand by itself (keys, shuffle, deal need no
    decision); the driver keeps showing the finished hand until the console calls
    :meth:`next_hand`. ``step_others`` never blocks: it handles what has arrived.
    """

    def __init__(self, peer: Peer, lang: str | None = None, background: bool = False,
                 bots: Collection[int] = (),
                 bot_maker: Callable[[int], None] | None = None,
                 broken: Collection[int] = (),
                 bot_faults: Callable[[], list[tuple[int, str, str]]] | None = None) -> None:
        """``background``: a thread pumps the peer (the console then only reads it), so
        this seat's automatic entries (shares, shuffle) never wait for the screen.
        ``bots``: seats played by bots (shown as such). ``bot_faults``: this player's
        bots that failed since it was last asked, ``(seat, spec, words)`` (a plug-in's
        author learns it on the screen, as at an in-process table, not in the log alone)."""
        self.peer = peer
        self.bot_faults = bot_faults
        # the seats bots play: the host's and this player's, and those bots took by the
        # others' agreement (a resumed seat learns of those from its stored log, whose
        # events came before this driver)
        self.bots = set(bots) | {t.seat for t in getattr(peer, "takeovers", ())}
        #: this computer's bots whose copy could not be resumed: silent for good
        self.broken = set(broken)
        #: as the seat that runs a bot for a silent seat: prepares it (a new identity and
        #: node) and offers it to the peer, before this seat signs the takeover
        self.bot_maker = bot_maker
        self.seat = peer.me
        #: the level or bot the player chose for a bot's seat, by seat (the help names it)
        self.bot_levels: dict[int, str] = {}
        self.names = local_names(peer.names, peer.me)
        self.rules = peer.cfg.rules
        self.seating = peer.cfg.seating
        self.lang = lang
        self._events: list[str] = []
        #: the wait the table is in (seat, step, moves said so far) and since when: a
        #: bot's move that takes long is said, with its bound (see activity)
        self._wait: tuple[int, TableStep, int] | None = None
        self._wait_since = 0.0
        self._announced = -1                     # the hand whose start the log has said
        # the log's events from a hand after the one on screen, in order, said once the
        # console moves on to it: after that hand's "the cards are dealt" (the next hand's
        # moves came before it while the player read the scores), and for a watcher whose
        # console fell behind a fast table, each hand's deal, moves and end in turn (the
        # next hand's end had passed unseen, and no move was said again)
        self._ahead: list[SessionEvent] = []
        self._match_said: Match | None = None    # the match as of the last hand-end said
        # protocol hand number on screen: the peer's own (a resumed peer may be in the
        # middle of hand 2 — showing hand 1's end there was bug 8 of issue 11)
        self._shown_hand = peer.hand_no
        #: the hands a resumed peer had finished before its player left: said by their
        #: results only, with where the match stood (`resume` said hand 1's 130 moves
        #: again, move by move, though the player had seen them all)
        self._finished_before = peer.hand_no
        self._held: Any = None                   # final view of a finished hand
        #: moves the log has said, by hand: a move is said when its entry is applied, and
        #: the view moves on once its card is opened, a moment later (see behind_log)
        self._moves_said: dict[int, int] = {}
        self._held_scores: Any = None
        #: the hands whose end the log has said, at the move that ended them: the line
        #: mode said "Proving the deal was fair: waiting for Bo" before "Hand 1 over",
        #: which waited for that proof (the hand-end event) to be said
        self._ends_said: set[int] = set()
        # the hand on screen as last seen: a resumed peer's own, from its saved log (a
        # takeover read before any redraw held the next hand's cards under "Hand 1 over")
        self._last_view: Any = peer.view()
        self._seen = 0
        self._news = 0                           # the peer's news count last seen
        # each other seat's transport state as last said ("gone" or not), so that a player
        # who leaves is said when it happens (the pump thread and the console both look)
        self._silent_said: dict[int, bool] = {}
        #: the seats whose return the table's own event said ("The pause is over: Ben
        #: plays on"), since they were last seen gone: their transport's return is not
        #: said again ("Ben is connected again." came just after it)
        self._back_said: set[int] = set()
        # (hand, seat) of the seats whose slowness (past their budget of automatic steps)
        # was said: the table pauses at each of their steps, said once a hand
        self._slow_said: set[tuple[int, int]] = set()
        # this seat's draw from the pile whose card was not known yet when the draw was
        # applied (the others' locks come after it): said once the card is in the hand
        self._draw_unsaid: tuple[int, Any, Any] | None = None
        self._watch_lock = threading.Lock()
        self._watched_at = 0.0
        self._thread: threading.Thread | None = None
        self._leaving = threading.Event()
        if background:
            self._thread = threading.Thread(target=self._pump_forever, daemon=True,
                                            name=f"peer-{peer.me}")
            self._thread.start()

    def _pump_forever(self) -> None:
        # a table paused on a silent seat goes on pumping: the others' agreements arrive.
        # One look at where the match stands (Peer.state): "pump() or paused" read two
        # instants, and a pause lifted between them (the player's agreement, taken on
        # the console's thread) ended this thread while the match went on
        while not self._leaving.is_set():
            self.peer.pump(0.05)
            st = self.peer.state
            if st.over:
                break
            if st.paused:
                time.sleep(0.02)
            now = time.monotonic()
            if now - self._watched_at >= 0.25:
                self._watched_at = now
                self._watch_peers()
        if not self._leaving.is_set():
            self.peer.linger(1.0)      # late peers may still fetch the last entries

    def close(self) -> None:
        """Stop pumping (the player leaves, or the match is over)."""
        self._leaving.set()
        if self._thread is not None:
            self._thread.join(5)

    # ----- lifecycle ---------------------------------------------------------------------
    def wait_ready(self, timeout: float = 60.0, say: Callable[[str], None] | None = None,
                   quiet_for: float = 0.0) -> bool:
        """Pump until the first hand is dealt (the console needs a view to show);
        ``say`` hears what the table waits for each time it changes (the shuffle, a
        player who left), so the wait is never silent; ``quiet_for``: only a wait that
        lasts that many seconds (a host's screen said fourteen lines, "Publishing hand
        keys: waiting for Bot1 (up to 20 s)", "Committing to randomness: …", for a
        shuffle of two seconds: the caller says the set-up in one line)."""
        end = time.monotonic() + timeout
        last: str | None = None
        shown: str | None = None
        since = time.monotonic()
        while self.peer.view() is None and time.monotonic() < end:
            if say is not None:
                busy = self.activity()
                now = time.monotonic()
                if busy != last:
                    last, since = busy, now
                if busy and busy != shown and now - since >= quiet_for:
                    say(busy)
                    shown = busy
            if self._thread is not None:
                self._news = self.peer.wait_for_news(self._news, 0.05)
                if self.peer.stopped or self.peer.finished:
                    break
            elif not self.peer.pump(0.05):
                break
            self._collect()
        return self.peer.view() is not None

    @property
    def events(self) -> list[str]:
        """The log in words, up to what has happened (read at each redraw, so the last
        event shows even when nothing else asks the table)."""
        self._collect()
        return self._events

    @property
    def hand_no(self) -> int:
        return self._shown_hand + 1

    @hand_no.setter
    def hand_no(self, value: int) -> None:
        raise AttributeError("the hand number follows the network log")

    @property
    def match(self) -> Match:
        """The match as scored up to the hand on screen."""
        live = self.peer.match_so_far()
        if not self._ahead:
            return live
        if self._match_said is not None:
            return self._match_said       # the table has scored hands not said yet
        # no hand's end said yet (the hand on screen was voided, or a resumed console's
        # first): the hands scored before it, the voided ones taking no score (a watcher
        # behind the table read its live totals over hand 1 voided)
        voided = sum(1 for t in self.peer.takeovers if t.hand < self._shown_hand)
        return live._replace(hands=live.hands[:max(0, self._shown_hand - voided)])

    @match.setter
    def match(self, value: Match) -> None:
        raise AttributeError("the match follows the network log")

    # ----- the human seat ----------------------------------------------------------------
    def view(self) -> Any:
        if self._held is not None:
            return self._held
        v = self.peer.view()
        if v is None:
            return self._last_view
        self._last_view = v
        return v

    def behind_log(self) -> bool:
        """Whether the view is behind the moves the log has said for the hand on screen:
        a discard or a play is said as its entry comes, and the view takes it once its
        card is opened. The line mode read the view then and said "Bo's turn" just
        after "Bo discarded 100", when the turn was already this player's."""
        v = self.view()
        history = getattr(v, "history", None)
        return history is not None and \
            self._moves_said.get(self._shown_hand, 0) > len(history)

    def _current(self) -> bool:
        return self._held is None and self.peer.hand_no == self._shown_hand

    def legal(self) -> list[Action]:
        return self.peer.legal() if self._current() else []

    def my_move(self) -> bool:
        return self._current() and self.peer.needs_decision()

    def submit(self, action: Action) -> None:
        if not self._current():
            raise IllegalAction("R0", "the hand is over", action)
        self.peer.submit(action)
        self._collect()

    # ----- everyone else -----------------------------------------------------------------
    def _forced_draw(self) -> Action | None:
        """The human's draw when the pile is the only place to draw from (as LocalDriver)."""
        if not self.my_move():
            return None
        legal = self.peer.legal()
        if len(legal) == 1 and isinstance(legal[0], Draw):
            return legal[0]
        return None

    def others_pending(self) -> bool:
        if self.over or self._held is not None:
            return False
        return not self.my_move() or self._forced_draw() is not None

    def step_others(self, wait: float = 0.0) -> bool:
        forced = self._forced_draw()
        if forced is not None:
            self.peer.submit(forced)
        if self._thread is None:
            self.peer.pump(max(wait, 0.01))     # returns as soon as something arrives
        else:
            # the pump thread tells when the log moved (no polling delay on every turn)
            self._news = self.peer.wait_for_news(self._news, wait)
        self._collect()
        now = self.peer.entries_applied
        moved, self._seen = now != self._seen, now
        return moved

    def _collect(self) -> None:
        if self._thread is None:
            self._watch_peers()
        if self.bot_faults is not None:
            for seat, spec, words in self.bot_faults():
                if 0 <= seat < len(self.names):
                    self._events.append(bot_failed_line(self.names[seat], words, spec))
        self._take(agreed_first(self.peer.drain_events()))

    def _defers(self, ev: SessionEvent) -> bool:
        """Whether ``ev`` waits until the console moves on: it belongs to a hand after the
        one on screen, or follows an event that does (the order is kept). An agreement
        about the hand on screen never waits: it is what ends that hand."""
        hand = int(ev.data.get("hand", self._shown_hand))
        if ev.kind in ("takeover", "agreed-end") and hand <= self._shown_hand:
            return False
        if self._ahead:
            return True
        return ev.kind in ("action", "hand-start", "hand-end") and hand > self._shown_hand

    def _take(self, events: Sequence[SessionEvent]) -> None:
        """Put the log's events into words, as far as the hand on screen."""
        now = []
        for ev in events:
            if self._defers(ev):
                self._ahead.append(ev)
            else:
                now.append(ev)
        events = now
        # a resumed peer's backlog: the hands before this one, said first (the deal of the
        # hand in play was said above hand 1's moves, and hand 1's end not at all)
        # (and the hand's deal follows its shuffle, when the console moved on to it late)
        if not any(int(ev.data.get("hand", self._shown_hand)) < self._shown_hand
                   or (ev.kind == "hand-start" and ev.data.get("hand") == self._shown_hand)
                   for ev in events if ev.kind in ("action", "hand-start", "hand-end")):
            self._announce()
        self._say_draw()
        for ev in events:
            if self._draw_unsaid is not None and ev.kind in ("action", "hand-end") \
                    and int(ev.data.get("hand", -1)) == self._draw_unsaid[0] < self.peer.hand_no:
                # a draw of a past hand (a resumed peer's backlog): its card is in the hand
                # the next step starts from
                self._say_draw(ev.data.get("before") if ev.kind == "action"
                               else ev.data.get("final"))
            if ev.kind == "action":
                hand = int(ev.data.get("hand", self._shown_hand))
                if hand < self._finished_before:
                    self._announced = max(self._announced, hand)   # (its deal: not said)
                elif self._announced < hand < self._shown_hand \
                        and ev.data.get("before") is not None:
                    self._announced = hand        # a past hand of the backlog: its deal
                    before = ev.data["before"]
                    self._events.append(hand_start_line(
                        hand + 1, self._said_names(hand)[before.first_seat], before.target,
                        dealt=True))
                elif hand == self._shown_hand:
                    self._announce(ev.data.get("before"))
            if ev.kind == "takeover" and ev.data.get("hand") == self._shown_hand \
                    and self._held is None:
                # the hand was voided: hold its last view until the player moves on
                self._held = self._last_view if self._last_view is not None else self.view()
                self._held_scores = None
            if ev.kind == "takeover":
                self.bots.add(int(ev.data["seat"]))
            if ev.kind == "hand-end" and ev.data.get("hand") == self._shown_hand:
                final = ev.data.get("final")
                self._held = final if final is not None else (
                    self._last_view if self._last_view is not None else self.view())
                self._held_scores = ev.data.get("scores")
            if ev.kind == "hand-end" and isinstance(ev.data.get("match"), Match):
                self._match_said = ev.data["match"]
            if ev.kind == "action":
                h = int(ev.data.get("hand", self._shown_hand))
                self._moves_said[h] = self._moves_said.get(h, 0) + 1
            if ev.kind == "action" and ev.data.get("after") is not None:
                if ev.data.get("hand") == self._shown_hand and self._held is None:
                    self._last_view = ev.data["after"]
            past = ev.kind == "action" and \
                int(ev.data.get("hand", self._shown_hand)) < self._finished_before
            words = "" if past else self._words(ev)
            action = ev.data.get("action") if ev.kind == "action" and not past else None
            if not words and isinstance(action, Draw) and action.seat == self.seat \
                    and action.source == "pile" and ev.data.get("before") is not None:
                self._draw_unsaid = (int(ev.data.get("hand", self._shown_hand)),
                                     ev.data["before"], action)
            if words:
                self._events.append(words)
            end = self._end_at_move(ev)
            if end:
                self._events.append(end)
            if ev.kind == "hand-end" and int(ev.data.get("hand", -1)) \
                    == self._finished_before - 1 and isinstance(ev.data.get("match"), Match) \
                    and ev.data["match"].rules.match_target:
                # the last hand finished before the player left: where the match stands,
                # after that hand's end
                self._events.append(match_so_far_line(
                    ev.data["match"], self._said_names(self._finished_before - 1)))
        self._announce()
        self._say_draw()
        self._say_end()

    def _end_at_move(self, ev: SessionEvent) -> str:
        """How the hand ended, said just after the move that ended it ("" for any other
        event): the hand's result first, then what the table waits for (the proof that
        the deal was fair comes after the last move, and its end, the hand-end event,
        came after the wait for it was said)."""
        if ev.kind != "action":
            return ""
        before, after = ev.data.get("before"), ev.data.get("after")
        hand = int(ev.data.get("hand", self._shown_hand))
        if before is None or after is None or before.over or not after.over \
                or hand in self._ends_said:
            return ""
        self._ends_said.add(hand)
        return end_line(after, self._said_names(hand), hand + 1)

    def _say_end(self) -> None:
        """How the hand on screen ended, once its view is over and every move of it has
        been said (the view takes the last move once its card is opened, after the
        move's event): the table's proof that the deal was fair comes next, and the
        hand-end event after it."""
        hand = self._shown_hand
        if hand in self._ends_said or self._held is not None or self.peer.hand_no != hand:
            return
        view = self.peer.view()
        history = getattr(view, "history", None)
        if view is None or not view.over or history is None \
                or self._moves_said.get(hand, 0) < len(history):
            return
        self._ends_said.add(hand)
        self._events.append(end_line(view, self._said_names(hand), hand + 1))

    def _announce(self, before: Any = None) -> None:
        """Say the deal of the hand on screen once it is dealt: who plays first, as the
        in-process table and the replay say it. ``before``: a state of that hand, for a
        hand the table has already left (a watcher's console behind it)."""
        view = self.peer.view() if self.peer.hand_no == self._shown_hand else before
        if view is not None and self._held is None and self._announced != self._shown_hand:
            self._announced = self._shown_hand
            self._events.append(hand_start_line(
                self._shown_hand + 1, self._said_names(self._shown_hand)[view.first_seat],
                view.target, dealt=True))

    def _say_draw(self, after: Any = None) -> None:
        """"You drew 75." of a draw from the pile once its card is known (in modern rules
        the card comes after the draw is applied: the draw was never said, in the log or
        in line mode). ``after``: a state of the draw's hand after it (else the view)."""
        if self._draw_unsaid is None:
            return
        hand, before, action = self._draw_unsaid
        view = after if after is not None else self.peer.view()
        if (after is None and hand != self.peer.hand_no) or view is None:
            self._draw_unsaid = None
            return
        line = describe(before, action, view, self.names, self.seat, you=True)
        if line:
            self._draw_unsaid = None
            self._events.append(line)

    def _watch_peers(self) -> None:
        """Say when another seat's computer goes silent, and when it answers again: the
        board's row said "left", but nothing was said until the table waited for them
        (on the player's own turn the screen did not even redraw)."""
        if self.peer.finished or self.peer.stopped:
            return          # the end, or a stop, is said by its own line
        with self._watch_lock:
            for seat in range(self.peer.cfg.n):
                if seat == self.seat:
                    continue
                state = self.peer.peer_state(seat)
                if state in ("connecting", "unknown"):
                    continue
                gone = state == "gone"
                before = self._silent_said.get(seat)
                self._silent_said[seat] = gone
                if before is None or before == gone:
                    continue
                if gone:
                    self._back_said.discard(seat)
                elif seat in self._back_said:
                    self._back_said.discard(seat)       # "The pause is over" said it
                    continue
                if not gone and any(t.seat == seat for t in self.peer.takeovers):
                    # the bot the others agreed on has connected: the takeover's own line
                    # said it ("Bea is connected again" read as Bea coming back)
                    continue
                if gone and self.peer.quit_for_now(seat):
                    continue     # they said they quit: said then ("has gone silent" read
                    #              like a crash, seconds after "quit for now")
                if gone and self._waits_on(seat):
                    continue
                name = self.current_names()[seat]
                if gone and seat in self.bots:
                    # a bot's program, on the computer that runs it: not "they left"
                    self._events.append(went_silent_bot_line(
                        self._bot_name(seat), self.bot_runner_name(seat), self.step_limit))
                    continue
                self._events.append(went_silent_line(name, self.step_limit) if gone
                                    else back_again_line(name))

    def _waits_on(self, seat: int) -> bool:
        """Does the table wait for ``seat`` now? Its wait's own line then says it left, and
        for how long (:meth:`activity`): "Bo left … waiting up to 20 s" and then "Bo has
        gone silent … waits up to 20 s" said it twice."""
        waiting = self.peer.waiting_on()
        return waiting is not None and waiting.seat == seat

    def _words(self, ev: SessionEvent) -> str:
        """A session event in the console's words ("" for what is not worth a line)."""
        if ev.kind == "action":
            hand = int(ev.data.get("hand", self._shown_hand))
            names = self._names_in(hand)
            if names[self.seat] != self.names[self.seat] and ev.data.get("before") is not None:
                # this player's seat, played by the bot the others agreed on: its moves
                # are the bot's ("You discarded 75" was said of moves they never made)
                try:
                    return describe(ev.data["before"], ev.data["action"], ev.data["after"],
                                    names, self.seat, you=False) or ""
                except Exception:   # the words are a nicety; the event is the truth
                    return ev.text
            return event_words(names, self.seat, ev)
        if ev.kind == "hand-start":
            return dealing_line(int(ev.data.get("hand", 0)) + 1)
        if ev.kind == "hand-end":
            hand = int(ev.data.get("hand", 0))
            if hand in self._ends_said:
                return ""       # said at the move that ended it (:meth:`_end_at_move`)
            final = ev.data.get("final") if hand < self._shown_hand else self._held
            if final is not None and final.over:   # (a past hand: a resumed peer's backlog)
                return end_line(final, self._said_names(hand), hand + 1)
            return ""
        if ev.kind == "match-end":
            return match_over_line(self.match, self.said_names()) if self.peer.finished \
                else ""
        if ev.kind == "takeover":
            if int(ev.data["seat"]) == self.seat:
                # this player's own seat: "from hand 2, Ben's seat is played by a bot"
                # was said to Ben, of Ben
                return own_takeover_line(self.runner_name(int(ev.data["runner"])),
                                         int(ev.data["hand"]) + 2)
            return takeover_line(self.names[int(ev.data["seat"])],
                                 self.runner_name(int(ev.data["runner"])),
                                 int(ev.data["hand"]) + 2)
        if ev.kind == "agreed-end":
            return agreed_end_line(self.names[int(ev.data["seat"])], int(ev.data["hand"]) + 1,
                                   [self.names[int(x)] for x in ev.data.get("signers", ())])
        if ev.kind == "stopped":
            if self.peer.agreed_end is not None:
                return ""
            why = ev.data.get("why") or {}
            if isinstance(why, dict) and why.get("slow") and self._said_slow(why):
                return ""       # paused again on the same slow seat: said once a hand
            quit_seat = why.get("seat") if isinstance(why, dict) and why.get("away") else None
            if self.peer.paused and quit_seat == self.seat and self._taken(self.seat):
                return own_bot_paused_line(self.bot_runner_name(self.seat))
            if self.peer.paused and isinstance(quit_seat, int) and quit_seat in self.bots \
                    and quit_seat != self.seat:
                # a bot gone with the computer that runs it: that computer comes back
                return paused_on_bot_away_line(self._bot_name(quit_seat),
                                               self.bot_runner_name(quit_seat))
            if self.peer.paused or (isinstance(why, dict) and why.get("id") == "unresponsive"
                                    and not self.peer.finished):
                # a silent seat: the game waits for it, not over (said once the takeover
                # had resumed the table, the pause read "The match stopped")
                return table_paused_line(str(ev.data.get("reason", "")),
                                         ev.data.get("why"), self.current_names())
            return stopped_line(str(ev.data.get("reason", "")), ev.data.get("why"),
                                self.current_names())
        if ev.kind == "away":
            seat = int(ev.data["seat"])
            if seat == self.seat and self._taken(seat):
                # the bot the others agreed on for this player's seat left with the
                # computer that runs it: "Ann quit for now … until they come back" was
                # said on Ann's own screen, of Ann, who was watching
                return own_bot_away_line(self.bot_runner_name(seat))
            if seat in self.bots and seat != self.seat:
                # a bot left with the computer that runs it: its runner comes back, not it
                return away_bot_line(self._bot_name(seat), self.bot_runner_name(seat))
            return away_line(self.current_names()[seat])
        if ev.kind == "back":
            if ev.data.get("slow") and (self.peer.hand_no, int(ev.data["seat"])) in \
                    self._slow_said and self._slow_said_back(int(ev.data["seat"])):
                return ""       # the pause on a slow seat lifted again: said once a hand
            self._back_said.add(int(ev.data["seat"]))
            return pause_over_line(self.current_names()[int(ev.data["seat"])])
        if ev.kind == "status" and ev.data.get("status") == "moved" and ev.data.get("endpoint"):
            return moved_line(self.current_names()[int(ev.data["seat"])],
                              str(ev.data["endpoint"]).removeprefix("tcp://"))
        if ev.kind == "resumed":
            return back_at_table_line()
        if ev.kind == "behind":
            return fell_behind_line(float(ev.data.get("seconds", 0.0)))
        if ev.kind == "dropped":
            log.info("%s", ev.text)       # for whoever investigates, not for the board
        return ""

    def _said_slow(self, why: dict[str, Any]) -> bool:
        """Was the pause on this slow seat said in this hand already? (Marks it said.)"""
        key = (self.peer.hand_no, int(why.get("seat", -1)))
        said = key in self._slow_said
        self._slow_said.add(key)
        return said

    def _slow_said_back(self, seat: int) -> bool:
        """Was the end of a pause on slow ``seat`` said in this hand already? (Marks it.)"""
        key = (self.peer.hand_no, -1 - seat)
        said = key in self._slow_said
        self._slow_said.add(key)
        return said

    def slow_note(self, seat: int) -> str:
        """" NAME is slow: N s of automatic steps in this hand (limit M s)." after a wait
        for ``seat``'s automatic step, once it has been slow in this hand ("" else)."""
        spent, budget = self.peer.auto_time(seat)
        if budget is None or spent < min(SLOW_SAID_AFTER, budget / 10) or seat == self.seat:
            return ""
        return " " + slow_note(self.current_names()[seat], spent, budget)

    @property
    def hand_over(self) -> bool:
        st = self.peer.state      # one look: stopped and paused of the same instant
        return self._held is not None or (st.stopped is not None and not st.paused)

    @property
    def over(self) -> bool:
        """The match is over, and the console has come to its end (a watcher behind a
        fast table moves on hand by hand first)."""
        return self.peer.state.over and not self._ahead

    @property
    def ended_early(self) -> bool:
        st = self.peer.state
        return st.over and not st.finished and not self._ahead

    # ----- a silent seat: wait, a bot by agreement, or the end by agreement ----------------
    def silent(self) -> int | None:
        """The seat the table waits for in vain (it left, or its step timed out)."""
        if self.peer.state.over:
            return None
        if self.replaced() is not None:   # no seat of one's own: nothing to agree to
            return None
        return self.peer.silent_seat()

    def paused_on(self, below: bool = False) -> str | None:
        """Why no move can be made now, when the table is paused on another seat (its
        player left, or did not answer in time): the answer to a move typed meanwhile
        (:attr:`cli.commands.Context.paused`); None while the table is not paused.
        ``below``: the full screen's status line says under it what may be done (the
        whole sentence was cut there, "(all of it in the log)")."""
        silent = self.silent()
        if silent is None or silent == self.seat or not self.peer.paused:
            return None
        return reply("table-paused-below" if below else "table-paused",
                     name=self.current_names()[silent])

    def silent_is_back(self) -> bool:
        """The seat the table paused on is connected again (its move will lift the pause
        when it comes). A player who said they quit is not back until they answer again:
        their computer stays connected for a moment as it closes, and "Ben is connected
        again" said between "Ben quit for now" and "Ben left" read as a return."""
        silent = self.silent()
        return silent is not None and self.peer.peer_state(silent) == "connected" \
            and not self.peer.quit_for_now(silent)

    def held_by(self) -> int | None:
        """The silent seat the table is held on: paused on it, or a damaged bot of this
        computer (no wait brings it back). None while no seat is silent, or while one
        gone on its turn is still waited for (up to the limit the wait's own line says):
        its choices come once the table pauses, after "Paused: …" ("Bo stopped answering
        … type end" came first, and "Paused" 20 s later). One check for the pause's words
        and for the line mode's turn line, which it holds back."""
        silent = self.silent()
        if silent is None or (not self.peer.paused and silent not in self.broken):
            return None
        return silent

    def silent_words(self, plain: bool) -> str | None:
        """What the table paused on a silent seat says, and where an agreement about it
        stands (None: no seat is silent). ``plain``: the line mode's commands, else the
        full screen's keys. One place for both (the choice of sentence was written twice)."""
        silent = self.held_by()
        if silent is None:
            return None
        name = self.current_names()[silent]
        paused_why = self.peer.stop_why or {}
        if silent in self.broken:
            line = broken_bot_line(name, plain=plain)
        elif paused_why.get("slow") and paused_why.get("seat") == silent \
                and self.peer.peer_state(silent) != "gone":
            # past its budget of automatic steps: there and answering, only slowly (not
            # "left", nor "connected again"): the figures and the choices; once its
            # computer is gone too, it left (below), not "is slow: wait"
            spent, budget = self.peer.auto_time(silent)
            line = slow_seat_line(name, spent, budget or 0.0, plain=plain)
        elif self.silent_is_back():
            why = self.peer.stop_why or {}
            # paused on a player who never left (a move past the table's move limit):
            # "connected again" said they had
            late = why.get("id") == "unresponsive" and not why.get("gone") \
                and not why.get("away") and why.get("step") == "game.act"
            line = late_move_line(name, plain=plain) if late else \
                back_but_paused_line(name, plain=plain)
        elif self.bot_maker is None and silent in self.bots \
                and self.peer.bot_runner(silent) == self.seat:
            # a bot of this computer stopped, this seat would run the new one, and this
            # console can start none (play: its bots start with the match): "press b: a
            # bot takes the seat" was offered, and b could only be refused (hostile
            # pass 10)
            line = no_bot_silent_line(name, plain=plain)
        elif silent in self.bots and silent != self.seat:
            line = stopped_bot_seat_line(self._bot_name(silent),
                                         self.bot_runner_name(silent), plain=plain)
        else:
            line = silent_seat_plain_line(name) if plain else silent_seat_line(name)
        stuck = self.no_agreement(plain)
        if stuck is not None:
            return stuck   # b and e can do nothing more: not "press b", "waiting for Ann"
        status = self.agreement_status()
        return f"{line} {status}" if status else line

    def no_agreement(self, plain: bool) -> str | None:
        """Said when no agreement about the silent seat can hold where the table stands
        (the others chose differently, one choice each a hand): who chose what, and that
        the table waits for the silent seat alone. None while one still may."""
        silent = self.silent()
        if silent is None:
            return None
        gone = self._also_gone(silent)
        if gone:
            return others_gone_line(self.current_names()[silent],
                                    [self.current_names()[s] for s in gone], plain)
        possible = self.peer.agreements_open()
        if possible is None or possible:
            return None
        votes = self.peer.agreement()
        chose = {kind: [self.names[s] for s in sorted(v)
                        if s != silent and int(v[s]["seat"]) == silent]
                 for kind, v in votes.items()}
        return no_agreement_line(self.current_names()[silent], chose.get("side.takeover", []),
                                 chose.get("side.end", []), plain)

    def _also_gone(self, silent: int) -> list[int]:
        """The seats other than ``silent`` and this one whose computers are gone too (they
        quit, or the transport gave them up): every seat but the silent one signs an
        agreement, so none can hold while they are away (one that signed before it went
        counts: its record stands)."""
        signed = {s for v in self.peer.agreement().values() for s, body in v.items()
                  if int(body["seat"]) == silent}
        return [s for s in range(len(self.names)) if s not in (silent, self.seat)
                and s not in signed
                and (self.peer.quit_for_now(s) or self.peer.peer_state(s) == "gone")]

    def agree(self, choice: str, plain: bool = False) -> str:
        """This player's choice about the silent seat: ``bot`` or ``end``; the answer in
        words (where the agreement stands; ``plain``: in the line mode's commands)."""
        seat = self.silent()
        if seat is None:
            return nothing_to_agree_line()
        stuck = self.no_agreement(plain)
        if stuck is not None:
            return stuck        # nothing signed now could hold (a seat gone too, or split)
        # what was agreed before this signature: only one that takes effect now is said
        before = (len(getattr(self.peer, "takeovers", ())),
                  getattr(self.peer, "agreed_end", None))
        if choice == "bot":
            if self.peer.bot_runner(seat) == self.seat and self.bot_maker is not None:
                try:
                    self.bot_maker(seat)
                except (OSError, ValueError) as exc:   # no address, no port: nothing signed
                    return cannot_run_bot_line(str(exc))
            ok = self.peer.agree_bot(seat)
        else:
            ok = self.peer.agree_end(seat)
        self._collect()
        if ok:
            taken = self._agreement_taken(seat, *before)
            if taken is not None:
                # the line mode says the agreement's event next: said once, not twice
                return "" if plain else taken
            return self.no_agreement(plain) or self.agreement_status() or ""
        why = getattr(self.peer, "agreement_refused", None)
        if why == "ahead":
            return agree_later_line()
        if why in ("over", "not-due"):
            return nothing_to_agree_line()
        if why == "no-bot":
            return no_bot_here_line()
        return self.no_agreement(plain) or cannot_agree_line()

    def _agreement_taken(self, seat: int, takeovers_before: int,
                         end_before: object) -> str | None:
        """The agreement about ``seat`` that took effect as this player signed, in words:
        the last signature came meanwhile (a bot signs at once when the seat has been
        silent long enough): the status line was left empty, or said "waiting for nobody
        yet". Only one newer than what was agreed before (``takeovers_before`` of them,
        ``end_before``): a seat taken over twice had the first takeover said again."""
        end = getattr(self.peer, "agreed_end", None)
        if end is not None and end is not end_before and int(end.seat) == seat:
            return agreed_end_line(self.names[seat], int(end.hand) + 1,
                                   [self.names[int(x)] for x in end.signers])
        took = [t for t in list(getattr(self.peer, "takeovers", ()))[takeovers_before:]
                if int(t.seat) == seat]
        if took:
            return takeover_line(self.names[seat], self.runner_name(int(took[-1].runner)),
                                 int(took[-1].hand) + 2)
        return None

    def agreement_status(self) -> str | None:
        """Who agreed to what about the silent seat, and whom we wait for."""
        votes = self.peer.agreement()
        if not any(votes.values()):
            return None
        waits_for = self.peer.silent_seat()
        for kind, word in (("side.end", "end"), ("side.takeover", "bot")):
            v = votes.get(kind) or {}
            # who signed a record about which seat: the silent seat itself may sign one
            # naming another (hostile pass 9), and the first record read named the seat
            # of the line ("after Ann left", to Ann who plays) and every signer agreed
            named: dict[int, list[int]] = {}
            for signer, body in v.items():
                named.setdefault(int(body["seat"]), []).append(signer)
            if not named:
                continue
            silent = waits_for if waits_for in named else \
                max(named, key=lambda seat: len(named[seat]))
            agreed = [self.names[s] for s in sorted(named[silent])]
            waiting = [s for s in range(len(self.names))
                       if s != silent and s not in named[silent]]
            bots = any(self.is_bot(s) for s in waiting)
            return agreement_line(word, self.current_names()[silent], agreed,
                                  [self.names[s] for s in waiting],
                                  self.step_limit if bots else None)
        return None

    def next_hand(self) -> None:
        if not self.hand_over:
            raise ValueError(_("the hand is still in play"))
        if self.over:
            raise ValueError(_("the match is over"))
        # the last hand's board stays on screen until the next one is dealt (the
        # shuffle takes a moment; with no view the board could not be drawn at all)
        self._last_view = self._held if self._held is not None else self._last_view
        self._held = None
        self._held_scores = None
        self._shown_hand += 1
        ahead, self._ahead = self._ahead, []
        self._take(ahead)     # the hand moved on to may have been played, even ended
        self._collect()

    def last_scores(self) -> Any:
        return self._held_scores

    def table_hand(self) -> int:
        """The 1-based hand the table itself is at: past :attr:`hand_no` when this console
        is behind it (a watcher's, reading a hand's scores while the bots play on)."""
        return max(self.hand_no, self.peer.hand_no + 1)

    def behind(self) -> bool:
        """Has the table gone on past the hand on screen (its next hand begun, or events of
        a later hand already here)?"""
        return bool(self._ahead) or self.peer.hand_no > self._shown_hand

    def peers(self) -> list[PeerStatus]:
        """Each seat as the console shows it: you, a bot (of the host), or a peer with
        its connection ("left" once the transport gives it up)."""
        out = []
        for p in self.peer.peers():
            if p.seat == self.seat and self.replaced() is None:
                out.append(PeerStatus(p.seat, p.name, "you", "ready"))
                continue
            if p.seat == self.seat:
                # a bot took this seat by the others' agreement ("Binh (you)" was listed
                # while the bot played it): it is the bot's, run by another seat
                out.append(PeerStatus(p.seat, p.name, "bot", "connected"))
                continue
            state = {"gone": "left"}.get(p.status, p.status)
            if self.peer.finished and state in ("left", "slow"):
                state = "connected"   # the match is over: a player who went home has not "left"
            if p.writing and state == "connected":
                state = "thinking"
            out.append(PeerStatus(p.seat, p.name, "bot" if p.seat in self.bots else "peer",
                                  state))
        return out

    def replaced(self) -> tuple[int, int] | None:
        """``(hand, runner)`` when a bot took this player's seat by the others' agreement
        while they were away: the 1-based first hand the bot plays, the seat running it."""
        for t in self.peer.takeovers:
            if t.seat == self.seat:
                return t.hand + 2, t.runner
        return None

    def _names_in(self, hand: int) -> tuple[str, ...]:
        """Who played each seat in ``hand`` (0-based, the protocol's): a seat a bot took
        by agreement is that bot's from the hand after the voided one."""
        names = list(self.names)
        for t in self.peer.takeovers:
            if hand >= t.hand + 1:     # short: it is said in every move (the takeover's
                # own line names who runs it)
                names[t.seat] = _("%(name)s's bot") % {"name": self.names[t.seat]}
        return tuple(names)

    def _said_names(self, hand: int) -> tuple[str, ...]:
        """Who played each seat in ``hand``, as a sentence says it on this screen: this
        seat is "You" while its player plays it (not once a bot took it over)."""
        names = self._names_in(hand)
        return you_names(names, self.seat) if names[self.seat] == self.names[self.seat] \
            else names

    def said_names(self) -> tuple[str, ...]:
        """The names of the hand on screen as a sentence says them (:meth:`_said_names`)."""
        return self._said_names(self._shown_hand)

    def current_names(self) -> list[str]:
        """Who plays each seat now: a seat a bot took by agreement is that bot's (a bot's
        silence was said as its player's: "Bo left… waiting for Bo to come back", though
        Bo coming back could not help)."""
        names = list(self.names)
        for t in self.peer.takeovers:
            if t.seat != self.seat and self.hand_no >= t.hand + 2:
                names[t.seat] = _("%(name)s's bot (run by %(runner)s)") % {
                    "name": self.names[t.seat], "runner": self.runner_name(t.runner)}
        return names

    def _taken(self, seat: int) -> bool:
        """Whether a bot plays ``seat`` by the others' agreement now: its name ("Ben's
        bot (run by Ann)") says it is a bot, so a wait adds no "(a bot)" to it."""
        return any(t.seat == seat and self.hand_no >= t.hand + 2
                   for t in self.peer.takeovers)

    def _bot_name(self, seat: int) -> str:
        """A bot's seat as a sentence that says who runs it names it: "Bo's bot" for a
        seat a bot took by agreement (:meth:`current_names` adds its runner)."""
        for t in self.peer.takeovers:
            if t.seat == seat and self.hand_no >= t.hand + 2:
                return _("%(name)s's bot") % {"name": self.names[seat]}
        return self.names[seat]

    def bot_runner_name(self, seat: int) -> str:
        """Whose computer runs the bot of ``seat``: the runner agreed for a seat a bot
        took, else the host's (seat 0 hosts the table and starts its bots; in
        ``play``, this computer)."""
        runner = 0
        for t in self.peer.takeovers:
            if t.seat == seat and self.hand_no >= t.hand + 2:
                runner = t.runner
        return self.runner_name(runner)

    def runner_name(self, seat: int) -> str:
        """Who runs a bot that took a seat by agreement: "this computer" when it is this
        seat's ("a bot run by You" read as a name in the middle of a sentence)."""
        return _("this computer") if seat == self.seat else self.names[seat]

    @property
    def step_limit(self) -> float:
        """The limit on each protocol step (seconds), said with its waits: the one the
        peer keeps, so a wait says what the table will do."""
        return self.peer.step_limit

    @property
    def decision_limit(self) -> float | None:
        """The table's limit on a player's move (seconds); None: moves are untimed."""
        return self.peer.cfg.decision_limit

    def move_overdue(self) -> bool:
        """This player's own move went past the table's move limit (the others pause on
        it; this peer never times its own seat)."""
        if self.decision_limit is None or not self.my_move():
            return False
        left = self.peer.time_left()
        return left is not None and left[0] == self.seat and left[1] <= 0.0

    def next_hand_move(self) -> str | None:
        """This player's own move at the table's next hand while the screen still shows
        the last hand's end (until Enter): "running" on a table that times moves (its
        limit runs from the deal, not from Enter), "overdue" past it (the others' tables
        pause on it, and may give the seat to a bot); None otherwise. The screen said
        "Hand 1 over. Press Enter for hand 2." while the table paused on the player."""
        if self.decision_limit is None or self._current() or self.peer.state.over:
            return None
        if not self.peer.needs_decision():
            return None
        left = self.peer.time_left()
        if left is None or left[0] != self.seat:
            return None
        return "overdue" if left[1] <= 0.0 else "running"

    def setting_up(self) -> bool:
        """Whether the table is at a step of a hand's set-up (the shuffle and the deal,
        before a card is played) or of a reshuffle: the line mode says such a wait only
        once it lasts (:data:`cli.plain.SETUP_QUIET`)."""
        w = self.peer.waiting_on()
        return w is not None and w.step in SETUP_STEPS

    def _waited(self, w: Waiting) -> float:
        """Seconds the table has been in the wait ``w`` (the same seat and step, with no
        move said meanwhile), as this console has seen it."""
        key = (w.seat, w.step, len(self._events))
        now = time.monotonic()
        if key != self._wait:
            self._wait, self._wait_since = key, now
        return now - self._wait_since

    def is_bot(self, seat: int) -> bool:
        """Whether a bot plays ``seat`` (the host's, or one that took a seat by
        agreement): its move needs no time limit said."""
        return seat in self.bots

    def watching(self) -> str | None:
        """Why this player cannot move at all, in words, when a bot took their seat by the
        others' agreement while they were away (the same sentence as the full screen's);
        None while they play their own seat."""
        taken = self.replaced()
        if taken is None or self.over:
            return None
        return seat_taken_line(taken[0], self.names[taken[1]])

    def activity(self, plain: bool = False) -> str | None:
        """What the table waits for besides a move the view already explains; for a
        player whose seat a bot took, that they watch (their hand shows empty).
        ``plain``: in the line mode's words (its commands, not the full screen's keys)."""
        taken = self.replaced()
        if taken is not None and not self.over and self.hand_no >= taken[0]:
            line = seat_taken_line(taken[0], self.names[taken[1]])
            gone = self.peer.silent_seat()
            if gone is not None:         # the table waits, and this player cannot act
                # this seat's silence is the bot's: its runner's computer is gone
                who = self.names[taken[1]] if gone == self.seat else self.names[gone]
                if gone != self.seat and self.peer.peer_state(gone) != "gone" \
                        and not self.peer.quit_for_now(gone):
                    # there, but late past the table's move limit: "to come back
                    # (millebornes resume …)" was said of a player who never left
                    line += " " + _("The table waits for %(name)s, who took longer than "
                                    "the table's time for a move.") % {"name": who}
                else:
                    line += " " + _("The table waits for %(name)s to come back "
                                    "(millebornes resume on their computer).") % {
                                        "name": who}
            return line
        silent_words = self.silent_words(plain=False)
        if silent_words is not None:
            return silent_words
        names = self.current_names()
        st = self.peer.state      # the stop and its reason from one look
        if st.stopped:
            return stopped_line(st.stopped, st.why, names)
        w = self.peer.waiting_on()
        if w is None or self.over:
            return None
        who = names[w.seat]
        state = "" if w.seat == self.seat else self.peer.peer_state(w.seat)
        note = self.slow_note(w.seat) if w.step is not TableStep.MOVE else ""
        # a seat near or past its budget of automatic steps is given less than the step
        # limit: the wait says the limit it has (gone or not: "for up to 20 s" while the
        # pause came after the grace of a step was untrue)
        wait = self.peer.wait_limit() if w.step is not TableStep.MOVE else None
        seconds = round(wait, 1) if wait is not None and wait < self.step_limit \
            else self.step_limit
        if state == "gone":
            # a player who left is not also "slow" (both were said, one after the other):
            # left, and, where their steps' budget shortens the wait, why it is short
            short = ""
            if seconds < self.step_limit:       # shortened by the budget: say why
                spent, budget = self.peer.auto_time(w.seat)
                if budget is not None:
                    short = " " + left_short_wait_note(who, spent, budget)
            if w.seat in self.bots and w.seat != self.seat:
                # who runs it, as the slow bot's line says (:func:`slow_bot_move_line`)
                return left_wait_line(self._bot_name(w.seat), seconds, plain=plain,
                                      bot_runner=self.bot_runner_name(w.seat)) + short
            return left_wait_line(who, seconds, plain=plain) + short
        word = PEER_STATES.get(state)
        slow = f" ({_(word) if word else state})" if state not in ("", "connected") else ""
        limit = limit_note(seconds)
        if w.step is TableStep.MOVE:
            if not slow:
                if w.seat in self.bots and w.seat != self.seat and \
                        self._waited(w) >= BOT_THINKING_SAID_AFTER:
                    # a plug-in may think for its 30 s: "Bo's turn." alone, for that
                    # long, left a newcomer wondering whether the table had hung
                    return bot_thinking_line(who, bot_move_time(self.decision_limit),
                                             named_bot=self._taken(w.seat))
                return None
            if state == "slow" and w.seat in self.bots and w.seat != self.seat:
                # a bot's program, not "their computer"; its own time for the move (the
                # turn line's) beside the table's limit, said as two limits on one wait
                untimed = self.decision_limit is None
                return slow_bot_move_line(
                    self._bot_name(w.seat), self.bot_runner_name(w.seat),
                    bot_move_time(self.decision_limit),
                    self.peer.silence_limit() - self.step_limit if untimed else None,
                    self.step_limit if untimed else float(self.decision_limit or 0.0),
                    named_bot=self._taken(w.seat))
            if self.decision_limit is None and state in ("slow", "connecting", "unknown"):
                # an untimed move is timed once the computer is gone: said, with its bound
                # (a computer not heard from yet, as after a resume, is bound alike: "Waiting
                # for Ann (connecting) (no time limit)." came right before "Ann left …
                # for up to 20 s")
                return silent_move_wait_line(who, slow,
                                             self.peer.silence_limit() - self.step_limit,
                                             self.step_limit)
            return _("Waiting for %(name)s%(state)s %(limit)s.") % {
                "name": who, "state": slow, "limit": limit_note(self.decision_limit)}
        if w.step is TableStep.SHARE:
            if w.seat == self.seat:
                return None
            # every player takes part in each draw (the fair deck: a card is seen only
            # once each has opened their part of it), said in plain words: "to unlock
            # the next card" asked a newcomer which card, and what lock; not the
            # protocol's "decryption share" either. A bot's part is the bot's (in `play`
            # it runs on this computer: "Bo's computer" puzzled a newcomer)
            if w.seat in self.bots and self._taken(w.seat):
                # "Ben's bot (run by Ann)" says it is a bot: "(a bot)" after it said it twice
                return _("Waiting for %(name)s to help draw the next card%(state)s "
                         "%(limit)s: every player takes part in each draw, so that nobody "
                         "can peek at the deck.") % {
                             "name": who, "state": slow, "limit": limit} + note
            if w.seat in self.bots:
                return _("Waiting for %(name)s (a bot) to help draw the next card%(state)s "
                         "%(limit)s: every player takes part in each draw, so that nobody "
                         "can peek at the deck.") % {
                             "name": who, "state": slow, "limit": limit} + note
            return _("Waiting for %(name)s's computer to help draw the next card%(state)s "
                     "%(limit)s: every player's computer takes part in each draw, so that "
                     "nobody can peek at the deck.") % {
                         "name": who, "state": slow, "limit": limit} + note
        step = _(STEP_WORDS[w.step]) if w.step in STEP_WORDS else w.step.value
        if w.seat == self.seat:       # "waiting for Ann" on Ann's own screen read as a fault
            return _("%(step)s: this computer is working on it.") % {
                "step": step[:1].upper() + step[1:]}
        if w.seat in self.bots and who == self.names[w.seat]:
            # a wait on a bot says so, as the draw's does ("waiting for Bo (up to 20 s)"
            # beside "Waiting for Bo (a bot) to help draw"); its limit after it, not a
            # second parenthesis
            return _("%(step)s: waiting for %(name)s (a bot)%(state)s, up to %(seconds)s "
                     "s.") % {"step": step[:1].upper() + step[1:], "name": who,
                              "state": slow, "seconds": f"{seconds:g}"} + note
        if w.seat in self.bots and self._taken(w.seat):
            # "waiting for Ben's bot (run by Ann) (up to 20 s)": the limit said as the
            # other bots' is, not in a second parenthesis
            return _("%(step)s: waiting for %(name)s%(state)s, up to %(seconds)s s.") % {
                "step": step[:1].upper() + step[1:], "name": who, "state": slow,
                "seconds": f"{seconds:g}"} + note
        return _("%(step)s: waiting for %(name)s%(state)s %(limit)s.") % {
            "step": step[:1].upper() + step[1:], "name": who, "state": slow,
            "limit": limit} + note
