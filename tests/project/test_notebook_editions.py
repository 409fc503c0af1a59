"""The two editions of the teaching notebooks (issue 15): built from one source, the student
edition differs only in its exercise cells, and run as handed out, every exercise checker
rejects the empty answer `...` with a message that says what to write; answered as the text
asks, with the instructor's answers, every checker accepts (issue 26: notebook 3's exercise 3
held the answer in the checker call, so a student answering as asked met a TypeError)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest
from test_notebooks_static import cell_text, notebook_cells

HERE = Path(__file__).resolve().parents[2] / "notebooks"
INSTRUCTOR = sorted(HERE.glob("*.ipynb"))


def test_every_notebook_has_a_student_edition() -> None:
    assert INSTRUCTOR
    assert sorted(p.name for p in (HERE / "student").glob("*.ipynb")) == [
        p.name for p in INSTRUCTOR]


@pytest.mark.parametrize("path", INSTRUCTOR, ids=lambda p: p.name)
def test_editions_differ_only_in_the_answers(path: Path) -> None:
    teacher, student = notebook_cells(path), notebook_cells(HERE / "student" / path.name)
    assert len(teacher) == len(student)
    build = _build()
    exercises = 0
    for t, s in zip(teacher, student, strict=True):
        if "# Reference solution" in cell_text(t):
            exercises += 1
            assert cell_text(s).startswith("# Exercise")
            answers = [line for line in cell_text(s).splitlines() if line.endswith(" = ...")]
            assert answers, cell_text(s)
            assert "Reference solution" not in cell_text(s)
            checks = [ln for ln in cell_text(t).splitlines() if "exercises.check_" in ln]
            assert checks == [ln for ln in cell_text(s).splitlines() if "exercises.check_" in ln]
        else:  # the same text, but for what the exercises' cells hold (issue 36 item 8)
            assert cell_text(t).replace(build.INSTRUCTOR_NOTE, build.STUDENT_NOTE) == cell_text(s)
            assert "hold the\nreference solutions" not in cell_text(s)
    assert exercises >= 2


def _build() -> ModuleType:
    spec = importlib.util.spec_from_file_location("nb_build", HERE / "build.py")
    assert spec is not None and spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    return build


def _exercises(name: str) -> list[tuple[str, list[tuple[str, str]], str]]:
    """Each exercise of notebook `name` as (the text of the markdown cells before it, its
    (variable, reference answer) pairs, its checker calls), from `notebooks/build.py`."""
    found, text = [], ""
    for kind, cell in _build().NOTEBOOKS[name]:
        if kind == "md":
            text += "\n" + cell
        elif kind == "exercise":
            _, _, answers, checks = cell
            found.append((text, answers, checks))
    return found


def _answered(student_source: str, answers: list[tuple[str, str]]) -> str:
    """The student's exercise cell with each `name = ...` replaced by the instructor's answer."""
    lines = student_source.splitlines()
    for name, value in answers:
        assert lines.count(f"{name} = ...") == 1, (name, student_source)
        lines[lines.index(f"{name} = ...")] = f"{name} = {value}"
    return "\n".join(lines)


@pytest.mark.parametrize("path", INSTRUCTOR, ids=lambda p: p.name)
def test_every_exercise_calls_the_checker_its_text_names(path: Path) -> None:
    """Each checker call of an exercise cell is the call the exercise text tells the reader to
    make, verbatim, and passes every answer variable: the answer is the reader's to write."""
    exercises = _exercises(path.name)
    assert exercises
    for text, answers, checks in exercises:
        named = " ".join(text.split())
        calls = re.findall(r"exercises\.check_\w+\(.*\)", checks)
        assert calls, checks
        for call in calls:
            call = call.removesuffix(")") if call.count(")") > call.count("(") else call
            assert call in named, f"{path.name}: {call} is not what the text asks"
        for name, _ in answers:
            assert any(re.search(rf"\b{name}\b", call) for call in calls), (name, calls)


@pytest.mark.parametrize("path", INSTRUCTOR, ids=lambda p: p.name)
def test_student_edition_refuses_no_answer_and_accepts_the_instructors(path: Path) -> None:
    """The student edition runs as handed out: every checker refuses `...` with "no answer
    yet"; each exercise cell, run again right after with the instructor's answers written in
    place of `...`, is accepted (`correct: ...` from every checker call, no error)."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.read(HERE / "student" / path.name, as_version=4)
    answers = iter(_exercises(path.name))
    cells = []
    for cell in nb.cells:
        cells.append(cell)
        if cell.cell_type == "code" and cell_text(cell).startswith("# Exercise"):
            _, pairs, checks = next(answers)
            answered = nbformat.v4.new_code_cell(_answered(cell_text(cell), pairs))
            answered.metadata["answered"] = len(re.findall(r"exercises\.check_", checks))
            cells.append(answered)
    assert next(answers, None) is None
    nb.cells = cells
    nbclient.NotebookClient(nb, timeout=300, allow_errors=True, kernel_name="python3",
                            resources={"metadata": {"path": str(HERE)}}).execute()
    answered_cells = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.outputs if o.get("output_type") == "error"]
        if "answered" in cell.metadata:
            answered_cells += 1
            assert not errors, (cell_text(cell), errors)
            printed = "".join(o.get("text", "") for o in cell.outputs
                              if o.get("output_type") == "stream")
            assert printed.count("correct: ") == cell.metadata["answered"], (
                cell_text(cell), printed)
        elif cell_text(cell).startswith("# Exercise"):
            assert len(errors) == 1, cell_text(cell)
            assert errors[0]["ename"] == "WrongAnswer"
            assert errors[0]["evalue"].startswith("no answer yet: replace ... in the cell with")
        else:
            assert not errors, (cell_text(cell), errors)
    assert answered_cells >= 2


def test_committed_notebooks_are_what_build_py_writes() -> None:
    """Both editions in the repository equal `notebooks/build.py`'s output byte for byte (so a
    notebook is never edited by hand past its source, and a rebuild with no change rewrites
    nothing: the cell ids are stable)."""
    build = _build()
    stale = [
        str(build.EDITIONS[edition] / name)
        for name, cells in build.NOTEBOOKS.items() for edition in build.EDITIONS
        if (build.EDITIONS[edition] / name).read_text(encoding="utf-8")
        != build.render_notebook(name, cells, edition)
    ]
    assert stale == [], f"rebuild with python notebooks/build.py: {stale}"
