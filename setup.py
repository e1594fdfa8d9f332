"""Compiled parts: the verifier's multi-scalar multiplication (C, built when a compiler is there)
and an optional build of the rules engine with mypyc.

``MILLEBORNES_MYPYC=1 python setup.py build_ext --inplace`` (mypy, which ships mypyc, and a C
compiler needed) puts a compiled module beside each engine module below; Python then imports
the compiled one, and deleting the ``.so`` files (``git clean -fX engine``) falls back to the
pure-Python source. Same source, same behaviour, same tests: see README, Development.
Everything else (package list, dependencies) is in pyproject.toml.
"""

import os

from setuptools import Extension, setup

#: The engine modules that are compiled: all but the bots, which are a plug-in point (the
#: search bot's rollout simulator and its policy tables are none: they are compiled).
COMPILED = ["actions", "cards", "errors", "rules", "state", "legality", "game", "scoring",
            "position", "simulate", "_rollout_policy", "_rollout_sim"]

#: The verifier's variable-time multi-scalar multiplication (p2p/crypto/_msm.c). Optional: if
#: no C compiler is there, the install goes on and p2p.crypto.group falls back to libsodium
#: (same results, slower checks).
ext_modules = [Extension("p2p.crypto._msm", ["p2p/crypto/_msm.c"], optional=True,
                         extra_compile_args=["-O2"])]
if os.environ.get("MILLEBORNES_MYPYC") == "1":
    from mypyc.build import mypycify

    # The group's shared library goes inside the package (engine/engine__mypyc*.so): at
    # the repository's top (group "engine") it was found only with the top on sys.path,
    # so with an editable install `millebornes` run from another folder, and every bot
    # in a process of its own, failed to import the engine.
    ext_modules += mypycify([f"engine/{name}.py" for name in COMPILED], opt_level="3",
                           group_name="engine.engine")

setup(ext_modules=ext_modules)
