"""Fuzzing the command line and the API (issue 18): bad input exits 2 with one line, anything
else exits 0 or 1; never a traceback, never a hang.

Hypothesis draws argv (numbers that are huge, tiny, malformed, with newlines; sizes past every
limit), file contents (random bytes, records off the tree, endless lines) and API arguments,
with a bounded, derandomised budget (the same examples on every run). The command line runs
in-process (`betweencut.cli.main`; an interval timer turns a hang into a failure) for speed;
the issue's named cases run once more through the console script in a subprocess with a
timeout (`-m slow`), and a handful of them in the default run.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from fractions import Fraction
from typing import Any

import pytest
from fuzz_families import time_limit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from betweencut.cli import main
from betweencut.data.tree import kary_tree
from betweencut.errors import BetweenCutError
from betweencut.mechanism.betweencut import between_cut
from betweencut.mechanism.calibration import calibrate
from betweencut.mechanism.sparse import sparse_between_cut

CASE_SECONDS = 120  # one in-process run: a hang guard, not a timing (the machine is shared)
FUZZ = settings(max_examples=40, derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with time_limit(CASE_SECONDS), redirect_stdout(out), redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as exc:  # --help
            status = int(exc.code or 0)
    return status, out.getvalue(), err.getvalue()


def assert_contract(argv: list[str], status: int, out: str, err: str) -> None:
    """Exit 2 with exactly one line on stderr for bad input; 0 or 1 (or 3, undecided) else."""
    assert "Traceback" not in err and "Traceback" not in out, (argv, err)
    assert status in (0, 1, 2, 3), (argv, status)
    if status == 2:
        lines = err.strip("\n").split("\n")
        assert len(lines) == 1 and lines[0].startswith("betweencut: "), (argv, err)
        assert len(lines[0]) <= 600, (argv, len(lines[0]))


NUMBERS = st.one_of(
    st.sampled_from([
        "1", "0", "-1", "0.05", "1/20", "30", "1e999999999", "1e-400", "1e-30", "1e-10000",
        "1e-100000", "1e400", "1e100", "nan", "inf", "-inf", "1/0", "0x10", "1_0", " 1 ",
        "0.0\n5", "9" * 5000, "", "1e", "½", "1e-1000", "2/3", "0.1", "1000000000",
    ]),
    st.integers(-10**40, 10**40).map(str),
    st.fractions(max_denominator=10**6).map(str),
    st.text(max_size=6),
)
INTS = st.one_of(
    st.sampled_from(["1", "2", "3", "4", "0", "-5", "12", "50", "1000", "1000000000",
                     "9" * 5000, "1.5", "", "x", "65537", "4097"]),
    st.integers(-5, 70).map(str),
)
FLAGS: dict[str, dict[str, st.SearchStrategy[str]]] = {
    "calibrate": {"--height": INTS, "--epsilon": NUMBERS, "--delta": NUMBERS},
    "classify": {"--tau": NUMBERS, "--epsilon": NUMBERS, "--delta": NUMBERS, "--height": INTS,
                 "--arity": INTS, "--alphabet": st.sampled_from(["a,b", "", ",", "a/b", "⊣", "a"]),
                 "--seed": INTS},
    "margins": {"--epsilon": NUMBERS, "--delta": NUMBERS, "--beta": NUMBERS, "--arity": INTS,
                "--heights": st.sampled_from(["3,15", "0", "1,2,x", "9" * 5000, "", "2"]),
                "--tau": NUMBERS, "--ghazi-M": NUMBERS,
                "--max-log2-height": st.sampled_from(["1", "3", "0", "1000000", "x"]),
                "--plot": st.sampled_from(["m.xyz", "m", "m.PNG.bak"])},
    "audit privacy": {"--arity": INTS, "--height": INTS, "--lam": NUMBERS, "--R": NUMBERS,
                      "--tau": NUMBERS, "--epsilon": NUMBERS, "--delta": NUMBERS,
                      "--db": st.sampled_from(["0/0,0/1", "", "0/5", "x", "0/0," * 40]),
                      "--add": st.sampled_from(["0/0", "0", "0/0/0/0", "z"]),
                      "--exhaustive": INTS},
}
VALID = {
    "calibrate": ["--height", "15", "--epsilon", "1", "--delta", "0.05"],
    "classify": ["--height", "4", "--tau", "1", "--epsilon", "1", "--delta", "0.05"],
    "margins": ["--epsilon", "1", "--delta", "0.05", "--max-log2-height", "3"],
    "audit privacy": ["--arity", "2", "--height", "3", "--lam", "1/2", "--R", "2", "--tau", "2",
                      "--db", "0/0", "--add", "0/1"],
}
FILES = st.one_of(
    st.binary(max_size=64),
    st.lists(st.sampled_from(["0/0/0", "1/1/1", "0/1", "0/0/0/0", "2/0/0", "a/b", "", "0//1",
                              "-1/0/0", "0/0/0\r", "\xff"]), max_size=8).map(
        lambda lines: "\n".join(lines).encode("utf-8", "surrogateescape")),
)


@st.composite
def argvs(draw: st.DrawFn, command: str) -> list[str]:
    """A valid command line with some flags replaced by drawn values (and sometimes junk)."""
    argv = list(VALID[command])
    for flag, values in FLAGS[command].items():
        if draw(st.integers(0, 3)) == 0:
            value = draw(values)
            if flag in argv:
                argv[argv.index(flag) + 1] = value
            else:
                argv += [flag, value]
    if draw(st.integers(0, 9)) == 0:
        argv.append(draw(st.sampled_from(["--bogus", "-", "extra", "--json", "--height"])))
    return [*command.split(), *argv]


@pytest.mark.parametrize("command", sorted(VALID))
def test_fuzz_cli_argv_exits_0_1_or_2_with_one_line(command: str) -> None:
    workdir = tempfile.mkdtemp()

    @FUZZ
    @given(argv=argvs(command), contents=FILES)
    def probe(argv: list[str], contents: bytes) -> None:
        if command == "classify":
            path = os.path.join(workdir, "records.txt")
            with open(path, "wb") as handle:
                handle.write(contents)
            argv = [argv[0], path, *argv[1:]]
        argv = [os.path.join(workdir, a) if a.startswith("m.") or a == "m" else a for a in argv]
        status, out, err = run_cli(argv)
        assert_contract(argv, status, out, err)

    try:
        probe()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


ODD_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=True),
    st.text(max_size=4), st.fractions(max_denominator=5),
    st.sampled_from(["1e999999999", "0.05", Fraction(1, 10**2000), 10**5000, [1], (0, 0, 0)]),
)
ODD_RECORDS = st.lists(st.one_of(
    st.tuples(st.integers(-2, 3), st.integers(-2, 3), st.integers(-2, 3)),
    st.tuples(st.integers(0, 1)), st.just(()), st.text(max_size=3), st.floats(),
    st.tuples(st.floats(), st.integers(0, 1), st.integers(0, 1)), st.none(),
), max_size=6)


@FUZZ
@given(tau=ODD_VALUES, eps=ODD_VALUES, delta=ODD_VALUES, records=ODD_RECORDS,
       sparse=st.booleans())
def test_fuzz_api_raises_only_the_packages_errors(
        tau: object, eps: object, delta: object, records: list[object], sparse: bool) -> None:
    """`calibrate`, `Params` and both implementations on odd arguments: a result or a
    `BetweenCutError`, never another exception type, never a hang."""
    tree = kary_tree(2, 4)
    with time_limit(CASE_SECONDS):
        try:
            cal = calibrate(4, eps, delta)
            params = cal.params(tau)
            run = sparse_between_cut if sparse else between_cut
            run(tree, records, params)  # type: ignore[operator, arg-type]
        except BetweenCutError:
            pass


needs_script = pytest.mark.skipif(shutil.which("betweencut") is None,
                                  reason="the betweencut console script is not installed")
NAMED = [  # the measured crashes and hangs
    "calibrate --height 15 --epsilon 1 --delta 1e-10000",
    "margins --epsilon 1 --delta 0.05 --ghazi-M 1e-10000",
    "calibrate --height 15 --epsilon 1e-400 --delta 0.05",
    "audit privacy --arity 2 --height 3 --lam 0.5 --R 1e400 --tau 2 --db 0/0 --add 0/1",
    "audit privacy --arity 2 --height 3 --lam 1e-30 --R 2 --tau 2 --db 0/0 --add 0/1",
    "classify {f} --height 4 --tau 1 --epsilon 1 --delta 0.05 --arity 1000000000",
    "audit privacy --arity 2 --height 3 --lam 0.5 --R 2 --tau 2 --exhaustive 1000",
    "audit privacy --arity 50 --height 3 --lam 0.5 --R 2 --tau 2 --exhaustive 2",
    "classify /dev/zero --height 4 --tau 1 --epsilon 1 --delta 0.05",
    "margins --epsilon 1 --delta 0.05 --plot {d}/m.xyz",
    "classify {f} --height 4 --tau 1e100 --epsilon 1 --delta 0.05",
    "classify {f} --height 4 --tau 1 --epsilon 1e-30 --delta 0.05",
    "classify {f} --height 4 --tau 1 --epsilon 1 --delta 1e-100000",
    "classify {f} --height 4 --tau 1 --epsilon 1e999999999 --delta 0.05",
    "classify {e} --height 1000000000 --tau 1000 --epsilon 1 --delta 0.05",
    "audit privacy --arity 12 --height 3 --lam 0.5 --R 2 --tau 2 --db 0/0 --add 0/1",
    "margins --epsilon 1 --delta 0.05 --max-log2-height 1000000",
    "classify {b} --height 4 --tau 1 --epsilon 1 --delta 0.05",
    # found after the fuzz run: extreme margins parameters (float overflow, a long scan)
    "margins --epsilon 1 --delta 0.05 --max-log2-height 3 --tau 1e-400 --json",
    "margins --epsilon 1 --delta 0.05 --max-log2-height 3 --ghazi-M 1e400",
    "margins --epsilon 1e-1000 --delta 0.05 --max-log2-height 3",
    "margins --epsilon 1 --delta 1e-1000 --max-log2-height 3",
]


def _named_argv(case: str, workdir: str) -> list[str]:
    paths = {"f": "leaves.txt", "e": "empty.txt", "b": "bad.txt"}
    with open(os.path.join(workdir, "leaves.txt"), "w", encoding="utf-8") as handle:
        handle.write("0/0/0\n0/0/1\n0/0/1\n1/1/0\n")
    with open(os.path.join(workdir, "empty.txt"), "w", encoding="utf-8"):
        pass
    with open(os.path.join(workdir, "bad.txt"), "wb") as handle:
        handle.write(b"0/0/0\n0/\xff/1\n")
    return case.format(d=workdir, **{k: os.path.join(workdir, v) for k, v in paths.items()}
                       ).split()


@pytest.mark.parametrize("case", NAMED)
def test_named_cases_in_process(case: str, tmp_path: Any) -> None:
    argv = _named_argv(case, str(tmp_path))
    status, out, err = run_cli(argv)
    assert_contract(argv, status, out, err)


def _script(argv: list[str]) -> None:
    done = subprocess.run(["betweencut", *argv], capture_output=True, text=True, timeout=60,
                          check=False, errors="replace")
    assert_contract(argv, done.returncode, done.stdout, done.stderr)


@needs_script
@pytest.mark.parametrize("case", [NAMED[0], NAMED[8], NAMED[15]])
def test_named_cases_through_the_console_script(case: str, tmp_path: Any) -> None:
    _script(_named_argv(case, str(tmp_path)))


@needs_script
@pytest.mark.slow
@pytest.mark.parametrize("case", NAMED)
def test_every_named_case_through_the_console_script(case: str, tmp_path: Any) -> None:
    _script(_named_argv(case, str(tmp_path)))


# -- issue 26, item 5: tables, directories, globs and user mechanisms -----------------------

FAMILY_CASES = 100  # in the default run (20 per family), in-process, 10 s each at most
LONG_CASES = 3000  # the slow run, in a subprocess capped at 2 GB


def test_fuzz_families_in_process(tmp_path: Any) -> None:
    """Tables (CSV, Parquet; memory and DuckDB), directories, globs and user mechanisms
    (`tests/fuzz_families.py`): every case exits 0/1/3 with its output or 2 with one line, no
    hang (the time each takes is measured by the long run, not asserted here)."""
    pytest.importorskip("duckdb")
    from fuzz_families import cases, run_case

    failures = []
    for family, argv, folder in cases(0, FAMILY_CASES, tmp_path, debugger=False):
        why, _, err = run_case(argv, folder)
        if why is not None:
            failures.append((family, argv, why, err[-300:]))
    assert not failures, failures[:5]


@needs_script
@pytest.mark.parametrize("k", range(5))
def test_fuzz_families_through_the_console_script_in_time_and_memory(k: int,
                                                                      tmp_path: Any) -> None:
    """One case of each family in a subprocess: the contract, under 2 GB (its peak RSS read
    from the kernel, its address space capped), no hang."""
    pytest.importorskip("duckdb")
    from cli_runs import run_script
    from fuzz_families import cases

    _, argv, folder = cases(5, 5, tmp_path)[k]
    run_script(argv, cwd=str(folder)).contract()


@pytest.mark.slow
def test_fuzz_families_long_run(tmp_path: Any) -> None:
    """At least 3,000 cases, run by `tests/fuzz_families.py` in a subprocess whose address
    space is capped at 2 GB (its peak RSS bounds every case's): no failure."""
    pytest.importorskip("duckdb")
    import json
    import resource
    import sys

    from cli_runs import MEMORY_LIMIT

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    tests = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))
    script = os.path.join(tests, "fuzz_families.py")
    done = subprocess.run([sys.executable, script, "--n", str(LONG_CASES), "--seed", "1",
                           "--workdir", str(tmp_path)], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, preexec_fn=cap, check=False,
                          timeout=LONG_CASES * 12)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    print(json.dumps({k: v for k, v in report.items() if k != "failures"}))
    assert report["cases"] >= 3000
    assert report["failures"] == [], report["failures"][:5]
    assert report["peak_rss_mb"] < MEMORY_LIMIT >> 20


def test_the_injection_check_catches_a_canary_opened(tmp_path: Any) -> None:
    """The directory watch is tested against a wrong input: with `--glob`, `[ab].csv` is a
    pattern that reads the canaries `a.csv` and `b.csv`, which the check must report."""
    pytest.importorskip("duckdb")
    from fuzz_families import run_case
    from inotify_watch import available

    if not available():
        pytest.skip("inotify is Linux's")
    d = tmp_path / "inj"
    d.mkdir()
    for name, record in (("a", "1/1/1"), ("b", "1/1/1"), ("[ab]", "0/0/0")):
        (d / f"{name}.csv").write_text("rec\n" + f"{record}\n" * 40, encoding="utf-8")
    argv = ["classify", str(d / "[ab].csv"), "--height", "4", "--tau", "20", "--epsilon", "1",
            "--delta", "0.05", "--seed", "1", "--json"]
    assert run_case(argv, tmp_path)[0] is None
    why = run_case([*argv, "--glob"], tmp_path)[0]
    assert why is not None and why.startswith("opened other files"), why


@pytest.mark.spark
def test_fuzz_spark_family_in_process(tmp_path: Any, spark: Any) -> None:
    """A few Spark sources (tables, the injection directory) through the shared session: the
    contract, and nothing but the named file opened. The long run: `python
    tests/fuzz_families.py --spark --n 200 --seed 1 --workdir DIR`."""
    pytest.importorskip("duckdb")
    from fuzz_families import SPARK_FAMILIES, cases, run_case

    failures = []
    for family, argv, folder in cases(0, 12, tmp_path, families=SPARK_FAMILIES):
        why, _, err = run_case(argv, folder)
        if why is not None:
            failures.append((family, argv, why, err[-300:]))
    assert not failures, failures[:5]
