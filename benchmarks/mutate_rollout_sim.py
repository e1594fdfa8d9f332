"""Mutation check of the fast path's differential test (``tests/test_rollout_sim.py``).

    python benchmarks/mutate_rollout_sim.py [NAME ...]

Each entry changes one rule (or one step of the rollout policy) in
``engine/_rollout_sim.py`` and runs the test, which must fail ("CAUGHT"); the file is put
back afterwards. Left out because they change nothing reachable: ``_settle``'s
"and nothing can be reshuffled" before ending an exhausted hand (all hands are empty only
after a refused reshuffle, and nothing in between makes one possible), the
``extended_by`` test of R12 (the target is 1000 once extended), R7's check of a fast
remedy (R10a: the hazard just laid is the one in force, so its remedy always may go on it),
and ``>`` against ``>=`` between the policy's noisy float scores (they never tie).
"""

import subprocess
import sys

P = "engine/_rollout_sim.py"
orig = open(P).read()
MUTS = [  # (name, text, replacement)
 ("n200 R5c", "if self.n200[side] >= 2 and cap > 100:", "if self.n200[side] >= 3 and cap > 100:"),
 ("limit 50", "cap = 50 if self._limited(side) else _LONGEST", "cap = 75 if self._limited(side) else _LONGEST"),
 ("exact finish", "if left < _LONGEST and left < cap:", "if left < _LONGEST and left < cap - 25:"),
 ("roll ROW", "and _KIND[battle[-1]] != _ROLL)", ")"),
 ("roll not started", "return not self.started[side]\n        return in_force", "return True\n        return in_force"),
 ("stack", "return self.stack_hazards and in_force != k", "return self.stack_hazards"),
 ("attacker started", "return not self.attacker_started or self.started[side]", "return True"),
 ("speed limit twice", "return not self._limited(side)", "return True"),
 ("coup discard", "self.discard.append(hazard)", "pass"),
 ("coup pending", "self._next_turn(seat, _AFTER_COUP)", "self._next_turn(seat)"),
 ("safety extra turn", "self.pending = _TURN_START\n            self._settle()", "self.pending = _TURN_START\n            self._next_turn(seat + 1)"),
 ("extension", "if self.target < 1000 and self.extension and self.extended_by == NO_SIDE:", "if self.target < 1000 and self.extended_by == NO_SIDE:"),
 ("ext target", "self.target = 1000", "self.target = 900"),
 ("idle reshuffle", "self.idle_reshuffles < self.reshuffle_limit)", "self.idle_reshuffles <= self.reshuffle_limit)"),
 ("delayed action", "self.completed_after_exhaustion = completed_by != NO_SIDE and not self.pile", "self.completed_after_exhaustion = False"),
 ("discard draw", "if self.pending[0] == TURN_DRAW and self.draw_discard and self.discard:", "if self.draw_discard and self.discard:"),
 ("pile_drawn", "self.pile_drawn += 1", "pass"),
 ("turn limit", "if self.turns >= self.max_turns:", "if self.turns > self.max_turns:"),
 ("policy roll", "                    rand()\n                    continue  # a Roll", "                    continue  # a Roll"),
 ("policy dead", "keep = rand()  # a dead card", "keep = 0.0  # a dead card"),
 ("policy greed", "worst_keep > 60.0", "worst_keep > 50.0"),
 ("start rolling", "return _KIND[battle[-1]] == _ROLL if battle else self.start_rolling", "return _KIND[battle[-1]] == _ROLL if battle else False"),
 ("R10a order", "key=lambda s: (s - attacker) % n))", "key=lambda s: s))"),
 ("R10a turn", "self.turn_seat = self.attacker\n", "self.turn_seat = seat\n"),
 ("R10b refill", "need = HAND_SIZE - len(hand)", "need = HAND_SIZE - len(hand) - 1"),
 ("R10b then", "            self._next_turn(self.turn_seat + 1)\n        else:\n            self.phase = PLAY", "            self.phase = PLAY\n        else:\n            self.phase = PLAY"),
 ("ROW starts", "if _SAFE_BIT[card] == _ROW_BIT:\n                self.started[side] = True", "if False:\n                self.started[side] = True"),
]
only = sys.argv[1:]
try:
    for name, a, b in MUTS:
        if only and name not in only:
            continue
        assert orig.count(a) == 1, name
        open(P, "w").write(orig.replace(a, b))
        r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "tests/test_rollout_sim.py",
                            "-p", "no:cacheprovider"], capture_output=True, text=True)
        print(f"{name:<20} {'CAUGHT' if r.returncode else 'MISSED'}", flush=True)
finally:
    open(P, "w").write(orig)
