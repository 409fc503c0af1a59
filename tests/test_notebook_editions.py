"""The two editions of the teaching notebooks (issue 15): built from one source, the student
edition differs only in its exercise cells, and run as handed out, every exercise checker
rejects the empty answer `...` with a message that says what to write."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent.parent / "notebooks"
INSTRUCTOR = sorted(HERE.glob("*.ipynb"))


def _cells(path: Path) -> list[dict[str, object]]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]  # type: ignore[no-any-return]


def _source(cell: dict[str, object]) -> str:
    src = cell["source"]
    return "".join(src) if isinstance(src, list) else str(src)


def test_every_notebook_has_a_student_edition() -> None:
    assert INSTRUCTOR
    assert sorted(p.name for p in (HERE / "student").glob("*.ipynb")) == [
        p.name for p in INSTRUCTOR]


@pytest.mark.parametrize("path", INSTRUCTOR, ids=lambda p: p.name)
def test_editions_differ_only_in_the_answers(path: Path) -> None:
    teacher, student = _cells(path), _cells(HERE / "student" / path.name)
    assert len(teacher) == len(student)
    exercises = 0
    for t, s in zip(teacher, student, strict=True):
        if "# Reference solution" in _source(t):
            exercises += 1
            assert _source(s).startswith("# Exercise")
            answers = [line for line in _source(s).splitlines() if line.endswith(" = ...")]
            assert answers, _source(s)
            assert "Reference solution" not in _source(s)
            checks = [ln for ln in _source(t).splitlines() if "exercises.check_" in ln]
            assert checks == [ln for ln in _source(s).splitlines() if "exercises.check_" in ln]
        else:
            assert _source(t) == _source(s)
    assert exercises >= 2


@pytest.mark.parametrize("path", INSTRUCTOR, ids=lambda p: p.name)
def test_student_edition_checkers_ask_for_the_missing_answer(path: Path) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.read(HERE / "student" / path.name, as_version=4)
    nbclient.NotebookClient(nb, timeout=300, allow_errors=True, kernel_name="python3",
                            resources={"metadata": {"path": str(HERE)}}).execute()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.outputs if o.get("output_type") == "error"]
        if _source(cell).startswith("# Exercise"):
            assert len(errors) == 1, _source(cell)
            assert errors[0]["ename"] == "WrongAnswer"
            assert errors[0]["evalue"].startswith("no answer yet: replace ... in the cell with")
        else:
            assert not errors, (_source(cell), errors)


def test_committed_notebooks_are_what_build_py_writes() -> None:
    """Both editions in the repository equal `notebooks/build.py`'s output byte for byte (so a
    notebook is never edited by hand past its source, and a rebuild with no change rewrites
    nothing: the cell ids are stable)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("nb_build", HERE / "build.py")
    assert spec is not None and spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    stale = [
        str(build.EDITIONS[edition] / name)
        for name, cells in build.NOTEBOOKS.items() for edition in build.EDITIONS
        if (build.EDITIONS[edition] / name).read_text(encoding="utf-8")
        != build.render_notebook(name, cells, edition)
    ]
    assert stale == [], f"rebuild with python notebooks/build.py: {stale}"
