"""Every package folder ships: a regular install must contain what the editable one finds."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROOTS = {"betweencut": "core", "betweencut.proofs": "proofs", "betweencut.properties": "properties"}


def test_every_package_folder_is_listed_in_pyproject() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    found = set()
    for name, folder in ROOTS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            found.add(".".join([name, *rel.parts]))
    assert found <= listed, f"missing from [tool.setuptools] packages: {sorted(found - listed)}"
    for folder in ROOTS.values():
        assert (ROOT / folder / "py.typed").exists(), f"{folder}/py.typed"


def test_python_dash_m_runs_the_cli() -> None:
    import subprocess
    import sys

    for module in ("betweencut", "betweencut.cli"):
        done = subprocess.run(
            [sys.executable, "-m", module, "calibrate", "--height", "0", "--epsilon", "1",
             "--delta", "0.05"], capture_output=True, text=True, check=False,
        )
        assert done.returncode == 2 and "height" in done.stderr and "Traceback" not in done.stderr
