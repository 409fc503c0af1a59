"""Every install command the documentation shows runs as written (issue 36, item 2).

The fast test lists the `pip install` commands of the docs' command blocks (and of the CI-gate
workflow) and holds them equal to `DOCUMENTED`, the commands the slow tests run, so a command
added to the docs without a run here fails. The slow tests (marker `slow`; `.ci/run` runs them
explicitly) build the wheel of this checkout once and run the commands in fresh virtual
environments, as a reader would: `.` is the checkout, whose wheel is what pip builds from it
(`'.[notebooks]'` installs the wheel with that extra). The CI-gate tutorial's commands (a wheel
built with `pip wheel`, then installed from `wheels/`) run in
`tests/core/testing/test_testing_fresh_project.py`, which then runs the whole tutorial.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from docs_blocks import DOCS, ROOT, blocks_of

# Each documented install command (as written, the leading `$ ` dropped): where it runs.
DOCUMENTED = {
    "python -m pip install .": "test_getting_started_installs_in_a_fresh_venv",
    "python -m pip install '.[plot,duckdb]'": "test_getting_started_installs_in_a_fresh_venv",
    "python -m pip install . && betweencut audit": "test_getting_started_installs_in_a_fresh_venv",
    "python -m pip install '.[notebooks]'": "test_the_notebooks_extra_runs_the_documented_command",
    "python -m pip wheel --no-deps --wheel-dir wheels path/to/betweencut":
        "test_the_ci_gate_tutorial_in_a_fresh_venv",
    "python -m pip install wheels/betweencut-*.whl pytest":
        "test_the_ci_gate_tutorial_in_a_fresh_venv",
    # the developers' commands (README, CONTRIBUTING): .ci/run runs them itself
    "python -m pip install -e '.[dev]' --config-settings editable_mode=strict "
    "&& python -m pytest": ".ci/run",
}
SHELL = ("console", "bash", "sh", "shell")


def _commands(text: str) -> list[str]:
    return [m.group(1).strip() for m in re.finditer(
        r"^\s*(?:\$ |run: )?(python -m pip (?:install|wheel) .*?)(?:\s+#.*)?$", text, re.M)]


def documented() -> set[str]:
    """Every `python -m pip install|wheel` command of a command block of the docs and README,
    and of the CI-gate workflow."""
    found: set[str] = set()
    for page in [*sorted(DOCS.rglob("*.md")), ROOT / "README.md"]:
        for block in blocks_of(page):
            if block.lang in SHELL:
                found.update(_commands(block.text))
    found.update(_commands((DOCS / "tutorials" / "ci-gate-workflow.yml").read_text("utf-8")))
    return found


def test_every_documented_install_command_is_run_somewhere() -> None:
    assert documented() == set(DOCUMENTED)


# -- the slow part: fresh virtual environments ---------------------------------------------------
@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel pip builds from this checkout, built once (a copy without build/ and caches)."""
    source = tmp_path_factory.mktemp("source")
    shutil.copytree(ROOT, source / "betweencut", ignore=shutil.ignore_patterns(
        ".git", "build", "*.egg-info", "__pycache__", ".mypy_cache", ".ruff_cache",
        ".pytest_cache", ".hypothesis", "site"))
    out = tmp_path_factory.mktemp("wheels")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--wheel-dir",
                    str(out), str(source / "betweencut")], check=True, timeout=900,
                   capture_output=True)
    (built,) = out.glob("betweencut-*.whl")
    return built


def fresh_venv(where: Path) -> tuple[Path, dict[str, str]]:
    """A new virtual environment (no site packages) and an environment without this run's
    Python settings; returns its bin folder."""
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, timeout=600)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "PYTEST", "HYPOTHESIS", "BETWEENCUT", "VIRTUAL_ENV"))}
    bin_dir = where / ("Scripts" if os.name == "nt" else "bin")
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    return bin_dir, env


def run(command: str, cwd: Path, env: dict[str, str], timeout: int = 1500) -> str:
    done = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout, check=False)
    assert done.returncode == 0, (command, done.stdout[-2000:], done.stderr[-2000:])
    return done.stdout


def as_run(command: str, wheel: Path) -> str:
    """A documented command with `.` (the checkout) as the wheel pip builds from it."""
    return re.sub(r"(?<=install )'?\.(\[[a-z,]+\])?'?(?=\s|$)",
                  lambda m: f"'{wheel}{m.group(1) or ''}'", command)


@pytest.mark.slow
@pytest.mark.xdist_group("wheel")  # one worker builds the wheel, once
def test_getting_started_installs_in_a_fresh_venv(wheel: Path, tmp_path: Path) -> None:
    """docs/getting-started.md (and the README's first line): the core, then two extras."""
    bin_dir, env = fresh_venv(tmp_path / "venv")
    run(as_run("python -m pip install .", wheel), tmp_path, env)
    assert run("betweencut --version", tmp_path, env).startswith("betweencut ")
    run("betweencut audit calibration --json >/dev/null", tmp_path, env)
    run(as_run("python -m pip install '.[plot,duckdb]'", wheel), tmp_path, env)
    run("python -c 'import matplotlib, duckdb'", tmp_path, env)
    assert (bin_dir / "betweencut").exists()


@pytest.mark.slow
@pytest.mark.xdist_group("wheel")  # one worker builds the wheel, once
def test_the_notebooks_extra_runs_the_documented_command(wheel: Path, tmp_path: Path) -> None:
    """docs/tutorials/teaching.md: `pip install '.[notebooks]'`, then `python -m pytest --nbmake
    notebooks/` from the checkout; narrowed to the first notebook (CI's main run executes them
    all), which shows the extra holds what the command needs."""
    _, env = fresh_venv(tmp_path / "venv")
    run(as_run("python -m pip install '.[notebooks]'", wheel), tmp_path, env)
    listed = run("python -m pip list --format=freeze", tmp_path, env).lower()
    assert "jupyterlab" not in listed and "nbmake" in listed
    shutil.copytree(ROOT / "notebooks", tmp_path / "notebooks",
                    ignore=shutil.ignore_patterns("student", "__pycache__"))
    out = run("python -m pytest -p no:cacheprovider --nbmake notebooks/1_guarded_bt.ipynb",
              tmp_path, env)
    assert "1 passed" in out
