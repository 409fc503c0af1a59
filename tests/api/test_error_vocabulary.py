"""Errors in the user's words (issue 36, item 4): each names the argument as it was typed
(command line: `--delta`; library: `delta=`) and what is allowed, on one line.

One table, run both ways where both exist: the library's exception text, and the command
line's one stderr line (exit 2, no traceback).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

import betweencut
from betweencut.cli import main
from betweencut.errors import BetweenCutError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FLAG = ["--mechanism", "my_mechanism:flag", "--exhaustive", "1"]

# (what, library call, its message must contain, CLI argv or None, its line must contain)
CASES: list[tuple[str, Callable[[], Any], tuple[str, ...], list[str] | None, tuple[str, ...]]] = [
    ("a claim without delta",
     lambda: betweencut.audit_mechanism("my_mechanism:flag", exhaustive=1, height=3, epsilon=1),
     ("delta= is required", "epsilon= and delta="),
     ["audit", "privacy", *FLAG, "--height", "3", "--epsilon", "1"],
     ("--delta is required", "--epsilon and --delta")),
    ("a claim without epsilon",
     lambda: betweencut.audit_mechanism("my_mechanism:flag", exhaustive=1, height=3, delta=0),
     ("epsilon= is required",),
     ["audit", "privacy", *FLAG, "--height", "3", "--delta", "0"],
     ("--epsilon is required",)),
    ("a PrivTree claim without delta",
     lambda: betweencut.audit_mechanism("my_privtree:privtree_closed", exhaustive=1,
                                        epsilon=1),
     ("delta= is required",),
     ["audit", "privacy", "--mechanism", "my_privtree:privtree_closed", "--exhaustive", "1",
      "--epsilon", "1"],
     ("--delta is required",)),
    ("no public tree",
     lambda: betweencut.audit_mechanism("my_mechanism:flag", exhaustive=1, epsilon=1, delta=0),
     ("height= is required", "height= and arity=", "tree="),
     ["audit", "privacy", *FLAG, "--epsilon", "1", "--delta", "0"],
     ("--height is required", "--height and --arity")),
    ("a height given as text",
     lambda: betweencut.calibrate("15", 1, "0.05"),
     ("height='15' is not allowed", "an integer h >= 1"), None, ()),
    ("epsilon out of Theorem 5.5's range",
     lambda: betweencut.calibrate(3, 2, "0.05"),
     ("epsilon=2 is not allowed", "0 < epsilon <= 1"),
     ["calibrate", "--height", "3", "--epsilon", "2", "--delta", "0.05"],
     ("--epsilon 2 is not allowed", "0 < epsilon <= 1")),
    ("a mechanism that is not callable",
     lambda: betweencut.audit_mechanism(42, exhaustive=1, height=3, epsilon=1, delta=0),
     ("mechanism=42 is not allowed", "not callable", "'module:callable'"), None, ()),
    ("a flag value argparse reads",
     lambda: betweencut.calibrate(0, 1, "0.05"),
     ("height=0 is not allowed",),
     ["calibrate", "--height", "0", "--epsilon", "1", "--delta", "0.05"],
     ("argument --height: 0 is not allowed",)),
]


def _cli(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as exc:
            status = int(exc.code or 0)
    return status, err.getvalue()


@pytest.mark.parametrize(("what", "call", "library", "argv", "cli"), CASES,
                         ids=[case[0] for case in CASES])
def test_each_error_names_the_argument_as_typed(
        what: str, call: Callable[[], Any], library: tuple[str, ...], argv: list[str] | None,
        cli: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLES))
    monkeypatch.chdir(EXAMPLES)
    with pytest.raises(BetweenCutError) as caught:
        call()
    for part in library:
        assert part in str(caught.value), (what, str(caught.value))
    if argv is None:
        return
    status, err = _cli(argv)
    lines = err.splitlines()
    assert status == 2 and len(lines) == 1 and "Traceback" not in err, err
    for part in cli:
        assert part in lines[0], (what, lines[0])
    assert "tree=" not in lines[0]  # the library's own remark stays in the library


def test_a_csv_without_duckdb_names_the_memory_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from betweencut.engines.common import Source
    from betweencut.engines.select import choose_engine
    from betweencut.errors import MissingExtra

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "duckdb" else real(name, *a))
    import betweencut.engines.select as select

    monkeypatch.setattr(select, "find_spec", importlib.util.find_spec)
    csv = Source(("r.csv",), "csv", "rec")
    with pytest.raises(MissingExtra, match=r"betweencut\[duckdb\].*--engine memory"):
        choose_engine(None, csv)
    assert choose_engine("memory", csv) == "memory"


def test_mechanism_given_as_a_file_path_from_another_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--mechanism path/to/file.py:f` loads that file (issue 36 item 6), wherever it is run."""
    source = (EXAMPLES / "my_mechanism.py").read_text("utf-8")
    mine = tmp_path / "far" / "mine_wayin.py"
    mine.parent.mkdir()
    mine.write_text(source, "utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    argv = ["audit", "privacy", "--mechanism", f"{mine}:flag", "--height", "3",
            "--exhaustive", "1", "--epsilon", "1/2", "--delta", "0"]
    status, err = _cli(argv)
    assert status == 0, err
    status, err = _cli([*argv[:3], f"{tmp_path}/none.py:flag", *argv[4:]])
    assert status == 2 and "no such file" in err and "--mechanism" in err

