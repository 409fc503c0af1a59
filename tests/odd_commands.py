"""The odd command lines of issue 39, item 3, each a fresh command (shared by
`tests/core/cli/test_odd_command_lines.py` and `bench/odd_command_lines.py`).

Each case writes the files it needs under a folder and returns its argv (without the console
script) and what it must end in: the exit statuses allowed and a word of its one line on
stderr (exit 2), or an answer with an empty stderr (exit 0, 1 or 3). Cases marked `spark` need
pyspark and a Java runtime.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cli_runs import HANG_SECONDS, Ran, run_script

MECHANISMS = """
from fractions import Fraction
from betweencut.noise.noisy_test import BTQuery

SAVED = []


def query(db):
    return BTQuery(Fraction(len(db)), Fraction(1), Fraction(2), Fraction(1, 2))


def good(db, test):
    return test(query(db))


def interrupts(db, test):
    raise KeyboardInterrupt


def saves_its_test(db, test):
    if SAVED:
        SAVED[0](query(db))
    SAVED.append(test)
    return test(query(db))
"""
RUN = ["--tau", "30", "--epsilon", "1", "--delta", "0.05"]
AUDIT = ["audit", "privacy", "--height", "3", "--exhaustive", "1", "--delta", "0",
         "--mechanism"]


@dataclass(frozen=True)
class Case:
    """One command line of the issue: `write(folder)` writes its files and returns its argv."""

    name: str
    write: Callable[[Path], list[str]]
    exits: tuple[int, ...]  # the statuses allowed: 2 with one line, else an answer
    needle: str = ""  # a word of the one line (exit 2)
    spark: bool = False


def _mechanisms(folder: Path) -> None:
    (folder / "oddmechs.py").write_text(MECHANISMS, encoding="utf-8")


def _commas(folder: Path, engine: str) -> list[str]:
    path = folder / "commas.csv"
    path.write_text("rec\n" + "," * 60_000 + "\n", encoding="utf-8")
    return ["classify", str(path), "--height", "4", *RUN, "--engine", engine]


def _few_records(folder: Path) -> list[str]:
    path = folder / "recs.txt"
    path.write_text("0/1\n1/0\n", encoding="utf-8")
    return ["classify", str(path), "--height", "4096", *RUN]


def _audit(folder: Path, mechanism: str, *more: str) -> list[str]:
    _mechanisms(folder)
    return [*AUDIT, f"oddmechs:{mechanism}", *more]


def _null_record(folder: Path) -> list[str]:
    path = folder / "nulls.csv"
    path.write_text('rec\n0/1/1\n""\n1/0/0\n', encoding="utf-8")
    return ["classify", str(path), "--height", "4", *RUN, "--engine", "spark", "--skip-null",
            "--json"]


CASES = [
    Case("classify --epsilon 1e-400 (embedded data)",
         lambda _: ["classify", "--tau", "30", "--epsilon", "1e-400", "--delta", "0.05"],
         (2,), "--epsilon"),
    Case("audit privacy --epsilon 65536 (a user's mechanism)",
         lambda d: _audit(d, "good", "--epsilon", "65536"), (0, 1, 2, 3), ""),
    Case("audit privacy: a mechanism that saves its test and calls it later",
         lambda d: _audit(d, "saves_its_test", "--epsilon", "1"), (0, 1, 2, 3), ""),
    Case("audit privacy: a KeyboardInterrupt raised by the user's code",
         lambda d: _audit(d, "interrupts", "--epsilon", "1"), (2,), "KeyboardInterrupt"),
    Case("classify a CSV row of 60,000 commas (memory)", lambda d: _commas(d, "memory"),
         (2,), "ragged"),
    Case("classify a CSV row of 60,000 commas (duckdb)", lambda d: _commas(d, "duckdb"),
         (2,), "ragged"),
    Case("classify recs.txt --height 4096 on a few records", _few_records, (2,), "--tau"),
    Case("classify --engine spark --skip-null on a CSV with a null record", _null_record,
         (0,), "", spark=True),
]
BASELINE = ["--version"]


def check(case: Case, status: int, out: str, err: str) -> str | None:
    """None if the command kept its contract, else why not: exit 2 with one line holding the
    case's word, or an allowed answer with its output and nothing on stderr."""
    if "Traceback" in err or "Traceback" in out:
        return "a traceback"
    if status not in case.exits:
        return f"exit {status}, not one of {case.exits}"
    if status == 2:
        if err.count("\n") != 1 or not err.startswith("betweencut: "):
            return f"{err.count(chr(10))} lines on stderr, not one"
        return None if case.needle in err else f"the line does not say {case.needle!r}"
    if err:
        return "an answer with something on stderr"
    return None if out.strip() else "an answer with no output"


def run(case: Case, argv: list[str], cwd: str, timeout: float = HANG_SECONDS) -> Ran:
    """The case as a fresh command: through `cli_runs.run_script` (2 GB cap, peak RSS), or for
    a Spark case a plain subprocess without the cap (its peak RSS not measured: 0), killed with
    its process group past `timeout` seconds on the clock (a hang)."""
    if not case.spark:
        return run_script(argv, cwd=cwd, timeout=timeout)
    script = shutil.which("betweencut")
    command = [script] if script else [sys.executable, "-m", "betweencut.cli"]
    start = time.monotonic()
    proc = subprocess.Popen([*command, *argv], cwd=cwd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    killed = False
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        killed = True
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
    return Ran(argv, proc.returncode, out, err, time.monotonic() - start, 0.0, 0.0, killed)
