"""The package as a user gets it: the wheel holds every package and data file, and CI runs
exactly the README's test command."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "p2p", "cli")


def _tracked_files() -> list[Path]:
    out = subprocess.run(["git", "ls-files", *PACKAGES], cwd=ROOT, capture_output=True,
                         text=True, check=False)
    if out.returncode != 0 or not out.stdout.strip():
        pytest.skip("not a git checkout")
    return [Path(line) for line in out.stdout.splitlines() if (ROOT / line).is_file()]


def test_every_source_folder_is_a_package() -> None:
    """setuptools' package discovery finds a folder only if it has an ``__init__.py``."""
    folders = {f.parent for f in _tracked_files() if f.suffix == ".py"}
    missing = sorted(str(d) for d in folders if not (ROOT / d / "__init__.py").exists())
    assert missing == []


@pytest.mark.slow    # 6 s: builds the wheel (the default run's 10-minute budget)
def test_wheel_holds_every_package_and_data_file(tmp_path: Path) -> None:
    src = tmp_path / "src"
    files = _tracked_files()
    for f in files + [Path("pyproject.toml"), Path("setup.py"), Path("README.md")]:
        (src / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / f, src / f)
    out = tmp_path / "dist"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
         "-w", str(out), str(src)], capture_output=True, text=True, timeout=300, check=False)
    assert build.returncode == 0, build.stderr[-2000:]
    wheels = list(out.glob("millebornes-*.whl"))
    assert len(wheels) == 1
    names = set(zipfile.ZipFile(wheels[0]).namelist())
    wanted = {f.as_posix() for f in files}
    assert sorted(wanted - names) == []
    if shutil.which("cc") or shutil.which("gcc"):  # the verifier's sums are compiled
        assert any(n.startswith("p2p/crypto/_msm.") and n.endswith(".so") for n in names)
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "millebornes = cli.main:console_script" in zipfile.ZipFile(wheels[0]).read(entry).decode()


def test_ci_runs_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    blocks = [b.split("```", 1)[0].strip() for b in readme.split("```sh\n")[1:]]
    test_command = next(b for b in blocks if "pytest" in b)
    assert test_command in ci.splitlines()


@pytest.mark.parametrize("module", ["cli", "cli.main"])
def test_the_command_runs_as_a_module_without_warnings(module: str) -> None:
    """``python -m cli.main`` once warned (RuntimeWarning) that the package had imported
    the module it was about to run; every way of starting the command must be silent."""
    done = subprocess.run([sys.executable, "-W", "error", "-m", module, "--help"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "usage" in done.stdout
    assert done.stderr == ""
