"""Issue 39, item 3: each odd command line the issue names exits 2 with one line, or answers,
as a fresh command (`tests/odd_commands.py`, shared with `bench/odd_command_lines.py`, which
measures the wall seconds against `betweencut --version`).

Each runs through the console script (`odd_commands.run`: address space capped at 2 GB, but for
Spark's JVM) with a hang guard of minutes on the clock, not a timing assertion (the machine is
shared); the Spark case is marked `spark`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from odd_commands import CASES, Case, check, run

HANG_SECONDS = 300.0  # only a hang reaches it, however loaded the machine


def _params() -> list[object]:
    return [pytest.param(case, id=case.name, marks=[pytest.mark.spark] if case.spark else [])
            for case in CASES]


@pytest.mark.parametrize("case", _params())
def test_odd_command_line_exits_2_with_one_line_or_answers(case: Case, tmp_path: Path) -> None:
    if case.spark:
        pytest.importorskip("pyspark")
    if "duckdb" in case.name:
        pytest.importorskip("duckdb")
    argv = case.write(tmp_path)
    ran = run(case, argv, str(tmp_path), HANG_SECONDS)
    assert not ran.killed, ("no answer", argv)
    assert check(case, ran.status, ran.out, ran.err) is None, (
        check(case, ran.status, ran.out, ran.err), argv, ran.status, ran.err[-600:])


def test_the_check_rejects_a_second_line_and_a_traceback() -> None:
    """The contract's check against wrong inputs: two lines, a traceback, a wrong status, a
    line without the case's word, an answer with stderr."""
    case = CASES[0]
    assert check(case, 2, "", "betweencut: error: --epsilon 1e-400 is not allowed\n") is None
    assert check(case, 2, "", "betweencut: error: --epsilon\nmore\n") is not None
    assert check(case, 2, "", "Traceback (most recent call last):\n") is not None
    assert check(case, 1, "out", "") is not None
    assert check(case, 2, "", "betweencut: error: something else\n") is not None
    answers = next(c for c in CASES if 0 in c.exits)
    assert check(answers, 0, "release\n", "a log line\n") is not None
    assert check(answers, 0, "", "") is not None
