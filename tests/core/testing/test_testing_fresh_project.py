"""Issue 24, "What must be shown", outside this repository: a fresh virtual environment with only
betweencut (installed as the tutorial's step 1 says: the wheel a checkout builds, issue 36) and
pytest, a new project folder, and
the CI-gate tutorial run there as written (`tutorial_harness`): the snapshot is written under
`--privacy-snapshot-update`, the next run passes, doubling the Laplace rate fails (exit 1,
naming the pair and saying the curve exceeds the snapshot) with `assert_private`'s
counterexample, and the noiseless classifier fails `betweencut_privacy_check`. The tutorial is
run twice, in two new folders, with the same outcome. Slow (a venv and an install, about a
minute): `python -m pytest -m slow tests/core/testing/test_testing_fresh_project.py`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tutorial_harness import ROOT, Runner, blocks, run_tutorial

from betweencut.testing.snapshot import MAGIC


@pytest.mark.slow
@pytest.mark.privacy
def test_the_ci_gate_tutorial_in_a_fresh_venv(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bin_dir / "python"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "PYTEST", "HYPOTHESIS", "BETWEENCUT", "VIRTUAL_ENV"))}
    # the tutorial's install commands as written (step 1: build the wheel of a checkout into
    # the project's wheels/, install it), with `path/to/betweencut` a copy of this checkout
    checkout = tmp_path / "betweencut"
    shutil.copytree(ROOT, checkout, ignore=shutil.ignore_patterns(
        ".git", "build", "*.egg-info", "__pycache__", ".mypy_cache", ".ruff_cache",
        ".pytest_cache", ".hypothesis", "site"))
    first = tmp_path / "project1"
    first.mkdir()
    commands = [line for b in blocks() if b.lang == "bash" for line in b.body.splitlines()
                if line.startswith("python -m pip ")]
    assert len(commands) == 2, commands  # pip wheel, then pip install (issue 36 item 2)
    for command in commands:
        command = command.replace("path/to/betweencut", str(checkout))
        done = subprocess.run(["bash", "-c", command], cwd=first, check=False, timeout=1200,
                              env={**env, "PATH": f"{bin_dir}{os.pathsep}{env['PATH']}"},
                              capture_output=True, text=True)
        assert done.returncode == 0, (command, done.stderr[-2000:])
    listed = subprocess.run([str(python), "-m", "pip", "list", "--format=freeze"], check=True,
                            capture_output=True, text=True, env=env).stdout
    names = {line.split("==")[0].lower() for line in listed.splitlines()}
    assert "betweencut" in names and "pytest" in names
    version = next(line.split("==")[1] for line in listed.splitlines()
                   if line.lower().startswith("betweencut=="))

    def runner(project: Path) -> Runner:
        def run(argv: list[str]) -> tuple[int, str]:
            command = ([str(python), "-m", "pytest", "-p", "no:cacheprovider", *argv[1:]]
                       if argv[0] == "pytest" else [str(bin_dir / "betweencut"), *argv[1:]])
            done = subprocess.run(command, cwd=project, env=env, capture_output=True,
                                  text=True, check=False, timeout=900)
            return done.returncode, done.stdout + done.stderr

        return run

    outcomes = []
    for attempt in (1, 2):
        project = tmp_path / f"project{attempt}"
        project.mkdir(exist_ok=True)
        ran = run_tutorial(project, runner(project), f"betweencut {version}")
        snapshot = project / "__privacy_snapshots__" / "test_privacy" / \
            "test_flag_privacy_snapshot.txt"
        assert f"format: {MAGIC} 1" in snapshot.read_text(encoding="utf-8")
        outcomes.append((ran, snapshot.read_text(encoding="utf-8")))
    assert outcomes[0] == outcomes[1]  # the same commands, the same snapshot, twice
