"""Pure rendering for ``millebornes replay``: a verified game's steps, every player's cards shown.

:class:`ReplayModel` indexes the steps of :func:`p2p.audit.replay_steps` (where each hand
starts, the score of each finished hand, the match after it); the functions below turn
one step into :mod:`cli.render` lines. Nothing here does I/O or keeps a cursor: the
full-screen app and the plain mode (``cli.replay``) both call them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine import HandState, family
from engine.scoring import Match, SideScore, score_hand

from . import i18n, render
from .i18n import _, ngettext
from .render import Line, family_words
from .words import (
    card_name,
    end_line,
    local_names,
    match_over_line,
    replay_step_text,
    takeover_line,
    written_names,
    you_label,
)


class ReplayModel:
    """The steps of one verified game and what can be derived from them."""

    def __init__(self, steps: Sequence[Any], names: Sequence[str],
                 me: int | None = None,
                 takeovers: Sequence[dict[str, Any]] = ()) -> None:
        if not steps:
            raise ValueError("a replay needs at least one step")
        # kept as given: replay_steps' steps hold about one hand's states at a time
        self.steps = steps
        # a transcript of anyone's has no seat of this screen's: a player who chose the
        # name "You" is "You 1" (never the "You" form, never translated); in one of this
        # player's own games (``me``: their seat) their seat is "You", as at the table
        self.names = written_names(names) if me is None else local_names(names, me)
        #: the agreed takeovers (``GameReport.takeovers``): each voided a hand, which
        #: has no step here, and is said where the next hand is dealt
        self.takeovers = list(takeovers)
        self.hand_ids: list[int] = []          # transcript hand numbers, in order
        self.starts: list[int] = []            # index of each hand's first step
        for i, st in enumerate(self.steps):
            if not self.hand_ids or st.hand != self.hand_ids[-1]:
                self.hand_ids.append(st.hand)
                self.starts.append(i)
        first = self.steps[0].state
        match = Match(first.rules, first.seating, first.seat)
        self.scores: dict[int, tuple[SideScore, ...]] = {}   # hand position -> scores
        self.matches: dict[int, Match] = {}                  # hand position -> match after
        for k in range(len(self.starts)):
            last = self.steps[self.hand_end(k) - 1].state
            if last.over:
                self.scores[k] = score_hand(last)
                match = match.record(self.scores[k])
                self.matches[k] = match

    def __len__(self) -> int:
        return len(self.steps)

    @property
    def n_hands(self) -> int:
        return len(self.starts)

    def hand_end(self, k: int) -> int:
        """One past the last step of hand position ``k``."""
        return self.starts[k + 1] if k + 1 < len(self.starts) else len(self.steps)

    def hand_pos(self, i: int) -> int:
        """0-based position of the hand step ``i`` belongs to."""
        k = 0
        while k + 1 < len(self.starts) and self.starts[k + 1] <= i:
            k += 1
        return k

    def clamp(self, i: int) -> int:
        return max(0, min(len(self.steps) - 1, i))

    def next_hand(self, i: int) -> int:
        k = self.hand_pos(i)
        return self.starts[k + 1] if k + 1 < self.n_hands else len(self.steps) - 1

    def prev_hand(self, i: int) -> int:
        """The start of this hand, or of the previous one when already at the start."""
        k = self.hand_pos(i)
        if i > self.starts[k]:
            return self.starts[k]
        return self.starts[k - 1] if k > 0 else 0

    def state(self, i: int) -> HandState:
        return self.steps[i].state  # type: ignore[no-any-return]

    def before(self, i: int) -> HandState | None:
        """The state just before step ``i`` in the same hand (``None`` for a deal)."""
        if i == 0 or self.steps[i - 1].hand != self.steps[i].hand:
            return None
        return self.steps[i - 1].state  # type: ignore[no-any-return]

    def hand_no(self, i: int) -> int:
        """1-based number of the hand step ``i`` belongs to: the match's own numbering,
        as the game and ``verify`` said it (a hand left without a score by agreement is
        not replayed but keeps its number; counting only the shown hands, the replay
        called hand 2 "hand 1")."""
        return int(self.hand_ids[self.hand_pos(i)]) + 1

    def status(self, i: int) -> str:
        step = self.steps[i]
        return (_("hand %(hand)d/%(hands)d · step %(step)d/%(steps)d · entry %(entry)d")
                % {"hand": self.hand_no(i), "hands": int(self.hand_ids[-1]) + 1,
                   "step": i + 1, "steps": len(self.steps), "entry": step.index})

    def _takeover_lines(self, i: int) -> list[str]:
        """At the deal of a hand: the takeovers agreed since the previous shown hand."""
        k = self.hand_pos(i)
        if i != self.starts[k]:
            return []
        after = self.hand_ids[k - 1] if k > 0 else -1
        out = []
        for t in self.takeovers:
            seat, runner = t.get("seat"), t.get("runner")
            if (after < t.get("hand", -1) < self.hand_ids[k] and isinstance(seat, int)
                    and isinstance(runner, int)
                    and 0 <= seat < len(self.names) and 0 <= runner < len(self.names)):
                out.append(takeover_line(self.names[seat], self.names[runner],
                                         int(t["hand"]) + 2))
        return out

    def action_lines(self, i: int, lang: str | None = None) -> list[str]:
        """What step ``i`` did, in words; the end of the hand is said too."""
        out = self._takeover_lines(i)
        out.append(replay_step_text(self.before(i), self.steps[i].action, self.state(i),
                                    self.names, self.hand_no(i), lang))
        st = self.state(i)
        before = self.before(i)
        if st.over and (before is None or not before.over):
            out.append(end_line(st, self.names, self.hand_no(i)))
            k = self.hand_pos(i)
            if k + 1 == self.n_hands and k in self.matches and self.matches[k].over:
                out.append(match_over_line(self.matches[k], self.names))
        return out

    def log_lines(self, i: int, lang: str | None = None, last: int = 200) -> list[str]:
        """The hand's log up to step ``i``, oldest first (at most ``last`` steps)."""
        start = max(self.starts[self.hand_pos(i)], i - last + 1)
        out: list[str] = []
        for j in range(start, i + 1):
            out += self.action_lines(j, lang)
        return out

    def score_block(self, i: int, width: int = render.WIDTH,
                    verbose: bool = False) -> list[Line]:
        """At a hand's last step: its scores and the match so far; otherwise nothing.
        ``width``: the columns the scores fit in; ``verbose``: the match in sentences (the
        line mode's: its chart and bars broke apart at 40 columns)."""
        k = self.hand_pos(i)
        if i != self.hand_end(k) - 1 or k not in self.scores:
            return []
        match = self.matches[k]
        # what each bonus is for, under the sheet (on a small screen the zones give way)
        return (render.score_lines(self.scores[k], match, self.names, self.hand_no(i),
                                   width=width, notes=True)
                + render.match_lines(match, self.names, verbose=verbose))


def new_cards(before: HandState | None, after: HandState, seat: int) -> set[int]:
    """Cards in ``seat``'s hand after a step that were not there before it."""
    if before is None:
        return set()
    was, now = before.hands[seat], after.hands[seat]
    if isinstance(was, int) or isinstance(now, int):
        return set()
    return set(now) - set(was)


def all_hands_lines(state: HandState, names: Sequence[str], lang: str | None = None,
                    color: bool = True, verbose: bool = False, per_row: int = 4,
                    before: HandState | None = None) -> list[Line]:
    """Every seat's cards, face up, with its owner's name; a card just drawn is shown
    reversed, and ``▶`` marks who moves next. ``verbose``: one sentence per seat."""
    acting = set(state.actors())
    out: list[Line] = []
    words = family_words()
    for seat, name in enumerate(names):
        cards = render.hand_cards(state, seat)
        fresh = new_cards(before, state, seat)
        if verbose:
            held = i18n.join_list(card_name(c, lang) + f" ({words[family(c)]}"
                             + (_(", just drawn") if c in fresh else "") + ")"
                             for c in cards) or _("nothing")
            values = {"name": you_label(name), "cards": held, "n": len(cards)}
            if name == "You":
                text = (ngettext("You (to move) hold %(n)d card: %(cards)s.",
                                 "You (to move) hold %(n)d cards: %(cards)s.", len(cards))
                        if seat in acting else
                        ngettext("You hold %(n)d card: %(cards)s.",
                                 "You hold %(n)d cards: %(cards)s.", len(cards)))
            else:
                text = (ngettext("%(name)s (to move) holds %(n)d card: %(cards)s.",
                                 "%(name)s (to move) holds %(n)d cards: %(cards)s.", len(cards))
                        if seat in acting else
                        ngettext("%(name)s holds %(n)d card: %(cards)s.",
                                 "%(name)s holds %(n)d cards: %(cards)s.", len(cards)))
            wrapped = i18n.wrap(text % values, render.WIDTH - 4)
            out += [[("", ("  " if k == 0 else "    ") + w)] for k, w in enumerate(wrapped)]
            continue
        # "You" in the player's language, as the board above says it (fr "▶ You" below
        # "▶ Vous")
        label = f"{'▶ ' if seat in acting else '  '}{render._fit(you_label(name), 10).ljust(10)}"
        room = render.WIDTH - len(label)
        rows = [cards[j:j + per_row] for j in range(0, len(cards), per_row)] or [()]
        for r, row in enumerate(rows):
            line: Line = [("class:turn" if seat in acting and r == 0 else "",
                           label if r == 0 else " " * len(label))]
            if not row:
                line.append(("class:dim", " " + _("(no cards)")))
            names_ = [render.card_label(c, lang, color) for c in row]
            if len(rows) > 1:   # aligned columns
                sep = " "
                cells = [max(8, room // per_row - 1)] * len(row)
            else:               # one row: whole names when they fit, the longest cut first
                sep = "  "
                cells = [len(n) for n in names_]
                while cells and sum(cells) + len(sep) * len(cells) > room:
                    cells[cells.index(max(cells))] -= 1
            for c, cell in zip(row, cells, strict=True):
                # a name that does not fit is said by its short name, not cut mid-word
                text = i18n.pad(render.fitted_card_label(c, cell, lang, color), cell)
                style = render.card_class(c) + (" class:selected" if c in fresh else "")
                line += [("", sep), (style, text)]
            out.append(line)
    return out


def step_lines(model: ReplayModel, i: int, lang: str | None = None,
               width: int = render.WIDTH) -> list[Line]:
    """One step for the plain mode: where we are, what happened, the table in words,
    every hand, and the scores when the hand ends."""
    state = model.state(i)
    lines: list[Line] = [[("class:title", f"--- {model.status(i)} ---")]]
    for t in model.action_lines(i, lang):     # wrapped: a French step line is 83 cells
        lines += [[("class:log", ("* " if k == 0 else "  ") + w)]
                  for k, w in enumerate(i18n.wrap(t, render.WIDTH - 2))]
    lines += render.table_lines(state, model.names, None, model.hand_no(i), lang,
                                verbose=True)
    lines += all_hands_lines(state, model.names, lang, color=False, verbose=True,
                             before=model.before(i))
    if not state.over:
        lines += [[("class:prompt", w)] for w in i18n.wrap(
            render.waiting_text(state, -1, model.names, lang), render.WIDTH)]
    block = model.score_block(i, width, verbose=True)
    if block:
        lines.append([])
        lines += block
    return lines
