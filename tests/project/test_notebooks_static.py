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


def _cells(path: Path) -> list[dict[str, object]]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]  # type: ignore[no-any-return]


def _source(cell: dict[str, object]) -> str:
    src = cell["source"]
    return "".join(src) if isinstance(src, list) else str(src)


def test_there_are_six_notebooks() -> None:
    assert len(NOTEBOOKS) == 6, [p.name for p in NOTEBOOKS]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_without_outputs(path: Path) -> None:
    for cell in _cells(path):
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [] and cell.get("execution_count") is None


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_defines_no_logic(path: Path) -> None:
    for cell in _cells(path):
        if cell["cell_type"] != "code":
            continue
        tree = ast.parse(_source(cell))
        defined = [type(n).__name__ for n in ast.walk(tree)
                   if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
                                 | ast.Lambda)]
        assert not defined, f"{path.name}: {defined} in\n{_source(cell)}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_opens_with_goals_and_ends_with_checked_exercises(path: Path) -> None:
    cells = _cells(path)
    assert cells[0]["cell_type"] == "markdown"
    assert "What you will learn" in _source(cells[0])
    tail = []
    for cell in reversed(cells):
        if cell["cell_type"] != "code":
            break
        tail.append(_source(cell))
    checks = sum(s.count("exercises.check_") for s in tail)
    assert 2 <= len(tail) <= 3 and checks >= len(tail), tail
    assert all("Reference solution" in s for s in tail)
