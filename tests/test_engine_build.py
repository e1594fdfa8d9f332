"""The optional compiled engine (mypyc, see setup.py) and its pure-Python fallback.

The whole test suite runs on whichever build is imported. With ``MILLEBORNES_MYPYC=1`` in the
environment these tests insist that the compiled modules are the ones in use, and check that
the pure-Python source beside them still replays the golden games to the same digests.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: The modules setup.py compiles.
COMPILED = ("actions", "cards", "errors", "rules", "state", "legality", "game", "scoring",
            "position", "simulate", "_rollout_policy", "_rollout_sim")
WANT_COMPILED = os.environ.get("MILLEBORNES_MYPYC") == "1"


def _is_compiled(name: str) -> bool:
    module = importlib.import_module(f"engine.{name}")
    return not (module.__file__ or "").endswith(".py")


def test_the_compiled_build_is_in_use_when_asked_for():
    if not WANT_COMPILED:
        pytest.skip("pure-Python run (MILLEBORNES_MYPYC=1 asks for the compiled engine)")
    assert [name for name in COMPILED if not _is_compiled(name)] == []


def test_the_pure_python_source_replays_the_golden_games():
    if not any(_is_compiled(name) for name in COMPILED):
        pytest.skip("the engine in use is the pure-Python source: the golden tests cover it")
    work = Path(os.environ.get("TMPDIR", "/tmp")) / f"engine-pure-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    try:
        shutil.copytree(ROOT / "engine", work / "engine",
                        ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
        script = (
            "import json, sys\n"
            "import engine as e\n"
            "from engine.simulate import replay_hand\n"
            "assert e.game.__file__.endswith('.py'), e.game.__file__\n"
            "out = {}\n"
            "for path in sys.argv[1:]:\n"
            "    d = json.load(open(path))\n"
            "    final = replay_hand(e.Rules.from_dict(d['rules']), e.Seating(*d['seating']),\n"
            "                        d['deck_order'], d['first_seat'],\n"
            "                        [e.action_from_data(a) for a in d['actions']])\n"
            "    out[path] = final.digest()\n"
            "print(json.dumps(out))\n")
        golden = sorted(str(p) for p in (ROOT / "tests" / "golden").glob("*.json"))
        run = subprocess.run([sys.executable, "-c", script, *golden], cwd=work,
                             env={**os.environ, "PYTHONPATH": str(work)}, capture_output=True,
                             text=True, timeout=120, check=True)
        digests = json.loads(run.stdout)
        for path in golden:
            assert digests[path] == json.loads(Path(path).read_text())["final_digest"], path
    finally:
        shutil.rmtree(work, ignore_errors=True)
