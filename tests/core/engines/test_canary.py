"""Issue 39, items 1 and 2: every engine reads exactly the named file and the named column.

* The canary test: in a directory holding a file whose name has `[`, `]`, `*`, `?`, `{` or `}`
  and canary files its name would match as a pattern (`a.csv`, `b.csv`), each engine given the
  named file opens nothing but it (a directory watch with inotify, `tests/inotify_watch.py`,
  which sees the engine's JVM or threads too) and releases the named file's Heavy set.
* `--column a.b` is the column named `a.b`, never the field `b` of a struct column `a`, on every
  engine (a column holding a struct is refused, naming its fields); the field has its own
  syntax, `--column a --field b`, on every engine that reads Parquet (DuckDB, Spark), and a
  field that is not there, a field of a column that is not a struct, and an engine without
  structs (memory) each exit 2 with one line naming `--field`.

Memory and DuckDB run in the default suite (each command in a fresh process); Spark's runs are
marked `spark` and share the test session's SparkSession (`tests/conftest.py`).
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from inotify_watch import Watch, available

from betweencut.cli import main

pytestmark = pytest.mark.skipif(not available(), reason="inotify is Linux's")
NAMES = ["[ab]", "?", "*", "{a,b}"]  # every one of [ ] * ? { }
CANARIES = ["a", "b"]
ARGS = ["--height", "4", "--tau", "20", "--epsilon", "1", "--delta", "0.05", "--seed", "1",
        "--json"]
HANG_SECONDS = 300  # a guard on the clock: only a hang reaches it


def _write(path: Path, records: list[str], fmt: str, header: str = "rec") -> None:
    if fmt == "csv":
        path.write_text(header + "\n" + "".join(r + "\n" for r in records), encoding="utf-8")
        return
    duckdb = pytest.importorskip("duckdb")
    values = " UNION ALL ".join(f"SELECT '{r}' AS \"{header}\"" for r in records)
    escaped = str(path).replace("'", "''")
    duckdb.connect().execute(f"COPY ({values}) TO '{escaped}' (FORMAT parquet)")


def _directory(tmp_path: Path, name: str, fmt: str) -> Path:
    """`name.fmt` with 40 records 0/0/0, and canaries a, b with 40 records 1/1/1 each."""
    d = tmp_path / f"d-{fmt}"
    d.mkdir(exist_ok=True)
    for canary in CANARIES:
        _write(d / f"{canary}.{fmt}", ["1/1/1"] * 40, fmt)
    named = d / f"{name}.{fmt}"
    _write(named, ["0/0/0"] * 40, fmt)
    return named


def _subprocess(*args: str) -> tuple[int, str, str]:
    done = subprocess.run([sys.executable, "-m", "betweencut", "classify", *args],
                          capture_output=True, text=True, check=False, timeout=HANG_SECONDS)
    return done.returncode, done.stdout, done.stderr


def _in_process(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["classify", *args])
    return status, out.getvalue(), err.getvalue()


def _canary(tmp_path: Path, engine: str, fmt: str, run: Any) -> None:
    for name in NAMES:
        named = _directory(tmp_path, name, fmt)
        with Watch(named.parent) as watch:
            status, out, err = run(str(named), "--engine", engine, *ARGS)
        assert status == 0, err
        assert watch.opened == [named.name], (name, watch.opened)
        heavy = json.loads(out)["heavy"]
        assert "/0/0/0" in heavy and not any(h.startswith("/1") for h in heavy), (name, heavy)
        named.unlink()


@pytest.mark.parametrize(("engine", "fmt"), [("memory", "csv"), ("duckdb", "csv"),
                                             ("duckdb", "parquet")])
def test_only_the_named_file_is_opened(tmp_path: Path, engine: str, fmt: str) -> None:
    if engine == "duckdb":
        pytest.importorskip("duckdb")
    _canary(tmp_path, engine, fmt, _subprocess)


@pytest.mark.spark
@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_spark_opens_only_the_named_file(tmp_path: Path, fmt: str, spark: Any) -> None:
    _canary(tmp_path, "spark", fmt, _in_process)


# -- the named column ---------------------------------------------------------------------------

def _dotted_parquet(path: Path) -> Path:
    """A column literally named `a.b` (records 0/0/0), a struct `a` whose field `b` holds 1/1/1
    and whose struct field `c` has a field `d` holding 0/1/1, and an integer column `x`:
    `--column a.b` must release the first, `--column a --field b` the second."""
    duckdb = pytest.importorskip("duckdb")
    duckdb.connect().execute(
        "COPY (SELECT '0/0/0' AS \"a.b\", {'b': '1/1/1', 'c': {'d': '0/1/1'}} AS a, "
        f"3 AS x FROM range(40)) TO '{path}' (FORMAT parquet)")
    return path


def _dotted_csv(path: Path) -> Path:
    path.write_text("a,a.b,b\n" + "1/1/1,0/0/0,1/1/1\n" * 40, encoding="utf-8")
    return path


def _named_column(run: Any, path: Path, engine: str) -> None:
    status, out, err = run(str(path), "--column", "a.b", "--engine", engine, *ARGS)
    assert status == 0, err
    heavy = json.loads(out)["heavy"]
    assert "/0/0/0" in heavy and not any(h.startswith("/1") for h in heavy), heavy


def _struct_field(run: Any, path: Path, engine: str) -> None:
    """`--column a --field b` is the struct's field (1/1/1), `--field c --field d` the nested
    one (0/1/1); `--column a.b` is still the literal column (0/0/0)."""
    _named_column(run, path, engine)
    for fields, leaf in ((["--field", "b"], "/1/1/1"), (["--field", "c", "--field", "d"],
                                                       "/0/1/1")):
        status, out, err = run(str(path), "--column", "a", *fields, "--engine", engine, *ARGS)
        assert status == 0, err
        heavy = json.loads(out)["heavy"]
        assert [h for h in heavy if h.count("/") == 3] == [leaf], (fields, heavy)
    refusals = [  # (flags, what the one line says)
        (["--column", "a", "--field", "z"], "--field z is not allowed: one of the fields of "
                                            "the struct a"),
        (["--column", "x", "--field", "b"], "--field b is not allowed: a field of a struct "
                                            "column; x"),
        (["--column", "a.b", "--field", "b"], "--field b is not allowed: a field of a struct "
                                              "column; a.b"),
        (["--column", "a", "--field", "c"], "--field c is not allowed"),
        (["--column", "a"], "--column a is not allowed: a column of paths or leaf numbers; a is "
                            "a struct: --field names one of its fields (b, c)"),
        (["--field", "b"], "--column is required"),
    ]
    for flags, needle in refusals:
        status, _, err = run(str(path), *flags, "--engine", engine, *ARGS)
        assert status == 2 and err.count("\n") == 1 and needle in err, (flags, err)


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_a_dotted_name_is_the_column_of_that_name_in_csv(tmp_path: Path, engine: str) -> None:
    _named_column(_subprocess, _dotted_csv(tmp_path / "t.csv"), engine)


def test_a_dotted_name_is_the_column_of_that_name_in_parquet(tmp_path: Path) -> None:
    path = _dotted_parquet(tmp_path / "t.parquet")
    _named_column(_in_process, path, "duckdb")
    for column in ("*", "`a.b`"):
        status, _, err = _subprocess(str(path), "--column", column, "--engine", "duckdb", *ARGS)
        assert status == 2 and err.count("\n") == 1 and ": a.b, a, x" in err, err


def test_a_struct_field_has_its_own_syntax_in_duckdb(tmp_path: Path) -> None:
    """`--column a --field b` on DuckDB, in the process (one fresh command checks the line)."""
    path = _dotted_parquet(tmp_path / "t.parquet")
    _struct_field(_in_process, path, "duckdb")
    status, _, err = _subprocess(str(path), "--column", "a", "--field", "z", *ARGS)
    assert status == 2 and err.count("\n") == 1 and "--field z" in err, err


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_a_field_without_a_struct_is_refused_naming_the_flag(tmp_path: Path,
                                                             engine: str) -> None:
    """A CSV column holds text (no fields); the memory engine reads no struct; text has no
    column: each exits 2 with one line naming `--field`."""
    csv_path = _dotted_csv(tmp_path / "t.csv")
    text = tmp_path / "t.txt"
    text.write_text("0/0/0\n", encoding="utf-8")
    parquet = _dotted_parquet(tmp_path / "t.parquet")
    cases = [(csv_path, ["--column", "a", "--engine", engine]),
             (text, ["--engine", "memory"]),
             (parquet, ["--column", "a", "--engine", "memory"])]
    for path, flags in cases:
        status, _, err = _in_process(str(path), *flags, "--field", "b", *ARGS)
        assert status == 2 and err.count("\n") == 1 and "--field b is not allowed" in err, \
            (path.name, flags, err)


@pytest.mark.spark
def test_spark_reads_the_dotted_column_not_the_struct_field(tmp_path: Path, spark: Any) -> None:
    _struct_field(_in_process, _dotted_parquet(tmp_path / "t.parquet"), "spark")
    _named_column(_in_process, _dotted_csv(tmp_path / "t.csv"), "spark")
    for column in ("*", "`a.b`"):
        status, _, err = _in_process(str(tmp_path / "t.parquet"), "--column", column,
                                     "--engine", "spark", *ARGS)
        assert status == 2 and err.count("\n") == 1 and ": a.b, a, x" in err, err
    status, _, err = _in_process(str(tmp_path / "t.csv"), "--column", "a", "--field", "b",
                                 "--engine", "spark", *ARGS)
    assert status == 2 and err.count("\n") == 1 and "--field b is not allowed" in err, err
