"""The package's modules as the project tests see them: one list for the layer, cycle, name and
word tests (`tests/project/`)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# each source folder and the dotted package it is installed as (pyproject's package-dir)
FOLDERS = {
    "core": "betweencut", "proofs": "betweencut.proofs", "properties": "betweencut.properties",
}


def modules() -> dict[str, Path]:
    """Every module of the package, by dotted name (a package by its `__init__.py`)."""
    found = {}
    for folder, package in FOLDERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join([package, *parts])] = path
    return found
