"""Where the search bot overrides the heuristic's first choice, by kind of move.

    PYTHONPATH=. python benchmarks/search_overrides.py HANDS [SPEC]

Plays ``HANDS`` classic 2-player hands of ``SPEC`` (default ``search``, seat 0) against the
heuristic and counts, over the searched decisions, the heuristic's first choice by kind
(D a discard, P+family a play, E an extension answer) and each (first choice, search's
choice) pair where they differ. This is how the discard-for-discard overrides (two thirds
of them) were found that led to ``discards=0``.
"""

from __future__ import annotations

import collections
import random
import sys
from typing import Any

import engine._bot_search as bs
from engine import CLASSIC, Discard, Extend, Play, Seating
from engine.bots import make_bot
from engine.cards import FAMILY_OF
from engine.simulate import play_hand

LOG: list[tuple[list[Any], int]] = []
_search = bs.SearchBot._search


def _logged(self: bs.SearchBot, view: Any, seat: int, shortlist: list[Any],
            started: float) -> Any:
    choice = _search(self, view, seat, shortlist, started)
    LOG.append((shortlist, shortlist.index(choice)))
    return choice


def desc(a: Any) -> str:
    if type(a) is Play:
        return f"P{FAMILY_OF[a.card].name[:3]}"
    if type(a) is Discard:
        return "D"
    if type(a) is Extend:
        return f"E{int(a.extend)}"
    return type(a).__name__


def main() -> int:
    bs.SearchBot._search = _logged  # type: ignore[method-assign]
    hands = int(sys.argv[1])
    spec = sys.argv[2] if len(sys.argv) > 2 else "search"
    bots = [make_bot(spec, 0), make_bot("heuristic", 1)]
    dealer = random.Random(5)
    for i in range(hands):
        play_hand(CLASSIC, Seating.solo(2), bots, dealer, i % 2)
    over = [(s, i) for s, i in LOG if i]
    print("searched", len(LOG), "overrides", len(over))
    print("first choices", dict(collections.Counter(desc(s[0]) for s, _ in LOG)))
    for pair, n in collections.Counter((desc(s[0]), desc(s[i])) for s, i in over).most_common():
        print(pair, n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
