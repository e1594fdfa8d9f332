"""The house rules of imports, read from the source with ``ast`` (nothing is imported).

* ``engine`` imports nothing of ``p2p`` or ``cli``; ``p2p`` nothing of ``cli``.
* No import cycle inside a package (module-level imports: a function-local import
  is not a way to dodge one, and there is none to dodge).
* Nothing imports another package's underscore module (``_x`` is private to its package).
* ``import p2p.audit`` (what ``millebornes verify`` needs) loads neither ZeroMQ nor zeroconf.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "p2p", "cli")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def imports_of(name: str, path: Path, module_level_only: bool) -> set[str]:
    """Absolute names of the modules ``name`` imports (``from a import b`` counts as
    ``a.b`` when that is a module, else ``a``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_pkg = path.name == "__init__.py"
    known = modules()
    out: set[str] = set()
    nodes = tree.body if module_level_only else list(ast.walk(tree))
    if module_level_only:   # also imports under a module-level if/try
        nodes = [n for top in tree.body for n in ast.walk(top)
                 if not isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    for node in nodes:
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base if is_pkg else base[:-1]
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for a in node.names:
                sub = f"{target}.{a.name}"
                out.add(sub if sub in known else target)
    return out


def package_of(mod: str) -> str:
    return mod.split(".")[0]


def test_layering() -> None:
    bad = []
    for name, path in modules().items():
        pkg = package_of(name)
        for imp in imports_of(name, path, module_level_only=False):
            top = package_of(imp)
            if pkg == "engine" and top in ("p2p", "cli"):
                bad.append(f"{name} imports {imp}")
            if pkg == "p2p" and top == "cli":
                bad.append(f"{name} imports {imp}")
    assert not bad, bad


def test_no_underscore_module_imported_from_another_package() -> None:
    bad = []
    for name, path in modules().items():
        for imp in imports_of(name, path, module_level_only=False):
            if package_of(imp) not in PACKAGES:
                continue        # a third-party library's private modules are its business
            parts = imp.split(".")
            for i, part in enumerate(parts):
                if part.startswith("_") and not part.startswith("__"):
                    owner = ".".join(parts[:i])          # the package the module is in
                    if not (name == owner or name.startswith(owner + ".")):
                        bad.append(f"{name} imports {imp}")
                    break
    assert not bad, bad


def test_tests_import_no_underscore_module() -> None:
    bad = []
    for path in sorted((ROOT / "tests").glob("*.py")):
        for imp in imports_of("tests." + path.stem, path, module_level_only=False):
            if package_of(imp) in PACKAGES and any(
                    p.startswith("_") and not p.startswith("__") for p in imp.split(".")):
                bad.append(f"tests/{path.name} imports {imp}")
    assert not bad, bad


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycle_inside_a_package(package: str) -> None:
    mods = {n: p for n, p in modules().items() if package_of(n) == package}
    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        deps = {i for i in imports_of(name, path, module_level_only=True) if i in mods}
        # a package's __init__ re-exports its modules: importing a module through its
        # package is not a cycle with that package's own __init__
        graph[name] = {d for d in deps if d != name and not name.startswith(d + ".")}
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


#: Function-local imports of a sibling made on purpose, with why. They still count as
#: edges in the cycle check below.
LAZY_IMPORTS = {
    ("cli.console", "cli.app"):
        "the full screen's prompt_toolkit takes 0.1-0.4 s to import (more with a cold disk "
        "cache): the line mode and every other verb start without it",
    ("cli", "cli.main"):
        "the package's entry point is imported when asked for: imported with the package, "
        "`python -m cli.main` warned that the module it runs was already imported",
}


def _local_imports(name: str, path: Path) -> list[tuple[str, int]]:
    """(imported cli module, line) of every function-local import in a cli module."""
    out = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for top in tree.body:
        if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for node in ast.walk(top):
                if isinstance(node, ast.ImportFrom) and (
                        node.level or (node.module or "").startswith("cli")):
                    base = name.rsplit(".", node.level)[0] if node.level else ""
                    target = ".".join(x for x in (base, node.module or "") if x)
                    out.append((target, node.lineno))
    return out


def test_cli_has_no_function_local_import_of_its_own_modules() -> None:
    """A function-local import of a sibling module is how cycles were hidden; the few made
    on purpose are listed, with why, and must not close a cycle."""
    bad = []
    graph: dict[str, set[str]] = {}
    for name, path in modules().items():
        if package_of(name) != "cli":
            continue
        graph[name] = {i for i in imports_of(name, path, module_level_only=True)
                       if package_of(i) == "cli" and i != name}
        for target, line in _local_imports(name, path):
            if (name, target) in LAZY_IMPORTS:
                graph[name].add(target)
            else:
                bad.append(f"{name}: line {line}")
    assert not bad, bad
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_cli_reads_a_peer_only_through_its_read_api() -> None:
    """Issue 8: the console never reaches into protocol internals — no ``.rlog``, and no
    ``peer.log`` / ``peer.match`` (the Peer offers typed reads: scores, what the table
    waits for, ``log_so_far``, ``stop_why``…)."""
    bad = []
    for name, path in modules().items():
        if package_of(name) != "cli":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Attribute):
                continue
            inner = node.value
            if node.attr == "rlog" or (
                    node.attr in ("log", "match") and isinstance(inner, ast.Attribute)
                    and inner.attr == "peer"):
                bad.append(f"{name}: line {node.lineno}: .{node.attr}")
    assert not bad, bad


def test_cycle_finder_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_verify_loads_neither_zmq_nor_zeroconf() -> None:
    code = ("import sys, p2p.audit; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('zmq', 'zeroconf')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_verify_verb_loads_neither_zmq_nor_the_console() -> None:
    """``millebornes verify`` starts fast: its module loads neither ZeroMQ, zeroconf nor
    prompt_toolkit (the console)."""
    code = ("import sys, cli.verify; print(sorted({m.split('.')[0] for m in sys.modules "
            "if m.split('.')[0] in ('zmq', 'zeroconf', 'prompt_toolkit')}))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_the_line_mode_starts_without_prompt_toolkit() -> None:
    """``play --plain`` (and every verb that is not the full screen) must not pay for
    prompt_toolkit's import: see LAZY_IMPORTS."""
    code = ("import sys\n"
            "import cli.main, cli.play, cli.host, cli.join, cli.plain, cli.seats, cli.verify\n"
            "print(sorted(m for m in sys.modules if m.startswith('prompt_toolkit')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parent.parent)
    assert out.stdout.strip() == "[]", out.stdout[:300]
