"""Issue 39, items 3 and 4: every way a command ends is one line on stderr at most, never a
traceback (`betweencut.cli._exits`).

Ctrl-C anywhere: one line and exit 130; a `KeyboardInterrupt` the user's code raises (no Ctrl-C):
exit 2 with one line; a closed stdout or a reader that went away: quiet, exit 141; an exception
group or an unexpected exception: exit 2 with one line. And the issue's command lines that ran
into a traceback or did not end: `--epsilon 1e-400`, a CSV row of 60,000 commas, `--height 4096`
on a few records, each answered or refused with one line.
"""

from __future__ import annotations

import io
import shutil
import signal
import subprocess
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from betweencut.cli import main

SCRIPT = shutil.which("betweencut") or "betweencut"
HANG_SECONDS = 300  # a guard on the clock: only a hang reaches it, however loaded the machine
RUN = ["--tau", "30", "--epsilon", "1", "--delta", "0.05"]
MECHANISMS = """
from fractions import Fraction
from betweencut.noise.noisy_test import BTQuery

SAVED = []


def query(db):
    return BTQuery(Fraction(len(db)), Fraction(1), Fraction(2), Fraction(1, 2))


def interrupts(db, test):
    raise KeyboardInterrupt


def exits(db, test):
    raise SystemExit(0)


def saves_its_test(db, test):
    if SAVED:
        SAVED[0](query(db))
    SAVED.append(test)
    return test(query(db))
"""


def _cli(*args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SCRIPT, *args], capture_output=True, text=True, check=False,
                          timeout=HANG_SECONDS, **kwargs)


def _one_line(done: subprocess.CompletedProcess[str], status: int, needle: str = "") -> None:
    assert done.returncode == status, (done.returncode, done.stderr)
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert needle in done.stderr, done.stderr


def test_ctrl_c_anywhere_is_one_line_and_exit_130() -> None:
    """SIGINT while the command waits on stdin (it could be anywhere: the handler is installed
    before the parser is built)."""
    child = subprocess.Popen([SCRIPT, "classify", "-", "--height", "3", *RUN],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    time.sleep(3)  # started and reading; if not yet, the signal still ends it with the line
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=HANG_SECONDS)
    assert child.returncode == 130, err
    assert err == "betweencut: interrupted\n" and out == ""


@pytest.fixture
def mechs(tmp_path: Path) -> Path:
    (tmp_path / "exitmechs.py").write_text(MECHANISMS, encoding="utf-8")
    return tmp_path


AUDIT = ["audit", "privacy", "--height", "3", "--exhaustive", "1", "--epsilon", "1", "--delta",
         "0", "--mechanism"]


def test_a_keyboard_interrupt_of_the_users_code_is_an_error(mechs: Path) -> None:
    _one_line(_cli(*AUDIT, "exitmechs:interrupts", cwd=mechs), 2, "KeyboardInterrupt")


def test_sys_exit_of_the_users_code_is_an_error(mechs: Path) -> None:
    done = _cli(*AUDIT, "exitmechs:exits", cwd=mechs)
    _one_line(done, 2)


def test_a_mechanism_that_saves_its_test_ends_in_a_verdict_or_one_line(mechs: Path) -> None:
    done = _cli(*AUDIT, "exitmechs:saves_its_test", cwd=mechs)
    assert "Traceback" not in done.stderr
    if done.returncode == 2:
        _one_line(done, 2)
    else:
        assert done.returncode in (0, 1, 3) and done.stderr == "", done.stderr


def test_a_closed_stdout_ends_quietly(tmp_path: Path) -> None:
    done = subprocess.run(["sh", "-c", f'exec "{SCRIPT}" calibrate --height 5 --epsilon 1 '
                                       '--delta 0.05 >&-'],
                          capture_output=True, text=True, check=False, timeout=HANG_SECONDS)
    assert done.returncode == 141 and done.stderr == "", done.stderr


def test_a_reader_that_goes_away_ends_quietly() -> None:
    """`betweencut audit | head -c 1`: the pipe closes while the report is written."""
    child = subprocess.Popen([SCRIPT, "calibrate", "--height", "5", "--epsilon", "1", "--delta",
                              "0.05"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()  # before the command writes: its first write is a broken pipe
    err = child.stderr.read()
    child.wait(timeout=HANG_SECONDS)
    assert child.returncode == 141 and err == b"", err


def _in_process(monkeypatch: pytest.MonkeyPatch, raised: BaseException,
                *extra: str) -> tuple[int, str]:
    def run(_args: Any) -> int:
        raise raised

    import betweencut.cli.calibrate as calibrate

    monkeypatch.setattr(calibrate, "run", run)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["calibrate", "--height", "5", "--epsilon", "1", "--delta", "0.05",
                       *extra])
    return status, err.getvalue()


@pytest.mark.parametrize("raised", [
    ExceptionGroup("two", [ValueError("one"), TypeError("two")]),
    BaseExceptionGroup("a kbd", [KeyboardInterrupt()]),
    RuntimeError("a bug\nof two lines"),
    MemoryError(),
    RecursionError("deep"),
    SystemExit(3),
    KeyboardInterrupt(),
])
def test_anything_unexpected_is_one_line_and_exit_2(monkeypatch: pytest.MonkeyPatch,
                                                    raised: BaseException) -> None:
    status, err = _in_process(monkeypatch, raised)
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("betweencut: error: "), err


def test_a_broken_pipe_in_a_group_is_quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    status, err = _in_process(monkeypatch, ExceptionGroup("g", [BrokenPipeError()]))
    assert status == 141 and err == ""


def test_main_puts_the_sigint_handler_back() -> None:
    before = signal.getsignal(signal.SIGINT)
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["--version"]) == 0
    assert signal.getsignal(signal.SIGINT) is before


# -- the command lines ---------------------------------------------------------------

def test_epsilon_1e_minus_400_is_refused_with_one_line() -> None:
    _one_line(_cli("classify", "--tau", "30", "--epsilon", "1e-400", "--delta", "0.05"), 2,
              "epsilon")


def test_a_csv_row_of_60000_commas_is_refused_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "commas.csv"
    path.write_text("rec\n" + "," * 60_000 + "\n", encoding="utf-8")
    for engine in ("memory", "duckdb"):
        _one_line(_cli("classify", str(path), "--height", "4", *RUN, "--engine", engine), 2,
                  "ragged")


def test_height_4096_on_a_few_records_answers(tmp_path: Path) -> None:
    path = tmp_path / "recs.txt"
    path.write_text("0/1\n1/0\n", encoding="utf-8")
    _one_line(_cli("classify", str(path), "--height", "4096", *RUN), 2, "tau")
    deep = tmp_path / "deep.txt"
    deep.write_text("/".join(["0"] * 4095) + "\n", encoding="utf-8")
    done = _cli("classify", str(deep), "--height", "4096", "--arity", "1", *RUN)
    assert done.returncode == 0 and "(4096 nodes)" in done.stdout and done.stderr == ""


@pytest.mark.spark
def test_a_master_spark_cannot_start_on_is_a_spark_master_error(tmp_path: Path) -> None:
    """Not 'could not be read' about the input file: the session is what failed."""
    pytest.importorskip("pyspark")
    path = tmp_path / "r.csv"
    path.write_text("rec\n0/1/1\n", encoding="utf-8")
    _one_line(_cli("classify", str(path), "--height", "4", *RUN, "--engine", "spark",
                   "--spark-master", "bogus"), 2, "spark-master")


@pytest.mark.spark
def test_spark_skip_null_on_a_csv_with_a_null_record_answers(tmp_path: Path) -> None:
    """Issue 39 item 3: it did not end in 200 s."""
    pytest.importorskip("pyspark")
    path = tmp_path / "r.csv"
    path.write_text('rec\n0/1/1\n""\n1/0/0\n', encoding="utf-8")
    done = _cli("classify", str(path), "--height", "4", *RUN, "--engine", "spark",
                "--skip-null", "--json")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert '"heavy": []' in done.stdout
