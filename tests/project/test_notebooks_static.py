"""The teaching notebooks keep their contract without running them: stored without outputs,
no logic of their own (no function or class definitions, no lambdas), an opening that says what
the reader will learn, and two or three exercises each checked by
`betweencut.properties.teaching.exercises`.
CI executes them separately (`python -m pytest --nbmake notebooks/`)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


def notebook_cells(path: Path) -> list[dict[str, object]]:
    """The cells of the notebook at `path` (also read by `test_notebook_editions`)."""
    return json.loads(path.read_text(encoding="utf-8"))["cells"]  # type: ignore[no-any-return]


def cell_text(cell: dict[str, object]) -> str:
    """A cell's source as one string (stored as a list of lines or as one string)."""
    src = cell["source"]
    return "".join(src) if isinstance(src, list) else str(src)


def test_there_are_six_notebooks() -> None:
    assert len(NOTEBOOKS) == 6, [p.name for p in NOTEBOOKS]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_without_outputs(path: Path) -> None:
    for cell in notebook_cells(path):
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [] and cell.get("execution_count") is None


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_defines_no_logic(path: Path) -> None:
    for cell in notebook_cells(path):
        if cell["cell_type"] != "code":
            continue
        tree = ast.parse(cell_text(cell))
        defined = [type(n).__name__ for n in ast.walk(tree)
                   if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
                                 | ast.Lambda)]
        assert not defined, f"{path.name}: {defined} in\n{cell_text(cell)}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_opens_with_goals_and_ends_with_checked_exercises(path: Path) -> None:
    cells = notebook_cells(path)
    assert cells[0]["cell_type"] == "markdown"
    assert "What you will learn" in cell_text(cells[0])
    tail = []
    for cell in reversed(cells):
        if cell["cell_type"] != "code":
            break
        tail.append(cell_text(cell))
    checks = sum(s.count("exercises.check_") for s in tail)
    assert 2 <= len(tail) <= 3 and checks >= len(tail), tail
    assert all("Reference solution" in s for s in tail)
