"""Fuzz cases for the command line by family (issue 26, item 5; issue 39): tables (CSV and Parquet
through the memory engine and DuckDB; struct columns and `--field` paths), directories and globs,
user mechanisms (modules that raise, exit, return unreplayable outputs, call the debugger or
loop, audited under a budget), and the families of issue 39: `argv` (flag values that are huge,
tiny, malformed: `--epsilon 1e-400`, `--height 4096`), `shape` (file shapes: a row of tens of
thousands of commas, a wide header, random bytes, random Parquet footers), `injection` (a file
named with `[ ] * ? { }` beside canary files its name would match as a pattern: a directory
watch, `inotify_watch.py`, fails the case if anything but the named file is opened), and `spark`
(tables through the Spark engine; only with `--spark`, or the `spark`-marked test).

`cases(seed, n, workdir)` writes the files a case needs under `workdir` and returns `n` command
lines, drawn by a seeded `random.Random` (the same cases for the same seed). `run_case(argv)`
runs one in-process under a hang guard (`HANG_SECONDS`) and checks the contract: exit 0, 1 or 3
with its normal output, or 2 with one line on stderr, never a traceback, never a hang. How long
a case takes is measured, not asserted (principle 6: the machine is shared): the long run
reports the slowest case and how many took longer than the issue's `CASE_SECONDS`.

Run as a script, it is the long fuzz run (`-m slow` starts it in a subprocess whose address
space is capped at 2 GB, so that the peak memory of every case is measured and bounded):

    python tests/fuzz_families.py --n 3000 --seed 1 --workdir DIR [--spark]

and prints one JSON object: cases, the figures (`clean`, `tracebacks`, `hangs`, `over_2_gb`:
cases that ran out of memory under the cap, `wrong_exits`: any other break of the contract,
`opened_other_files`: injection cases that touched a canary), failures (each with its command
line and why), seconds, the slowest case, the cases past `CASE_SECONDS`, the peak RSS of the
process (an upper bound of every case's).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import resource
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

CASE_SECONDS = 10  # the bound on a command: measured and reported
HANG_SECONDS = 120  # in-process, on the clock: only a hang gets here on a loaded machine
FAMILIES = ("table", "directory", "glob", "mechanism", "corpus", "argv", "shape", "injection")
SPARK_FAMILIES = ("spark",)
PATTERN_NAMES = ["[ab]", "?", "*", "{a,b}", "a]", "[a", "*?", "{a}"]  # named files in `injection`

MECHANISMS = (Path(__file__).parent / "hostile_mechanisms.py").read_text(encoding="utf-8")
MECHANISM_NAMES = ["good", "raises", "exit7", "exit_text", "exit0", "base", "generator_exit",
                   "rand", "nan", "fresh", "generator", "bad_hash", "unhashable", "debugger",
                   "loop", "asks_forever", "wrong_query", "shared", "Builder", "BuilderExit",
                   "value", "missing", "not_callable_value"]
CORPUS_NAMES = ["corpus_good", "corpus_exit", "corpus_random", "good", "Builder", "value"]

RECORDS = ["0/0/0", "0/1/1", "1/1/0", "1/0/1", "0/0", "0/0/0/0", "2/0/0", "a/b/c", "", "0//1",
           "-1/0/0", "0/0/0 ", " 0/0/0", "0\\0\\0", "0/0/0\\", "\\", "é", "\x00", "0/1/1\r",
           "\"0/0/0\"", "0,0,0", "1e3", "00/0/0"]


def _field(rng: random.Random) -> str:
    value = rng.choice(RECORDS)
    if rng.random() < 0.15:
        value = '"' + value.replace('"', '""') + ',x"'
    return value


def _csv_bytes(rng: random.Random) -> bytes:
    header = rng.choice(["rec", "rec", "rec", " rec ", "\ufeffrec", "id,rec", "rec,rec",
                         "other", "", "\"rec\"", "rec\\"])
    lines = [header]
    columns = header.count(",") + 1
    for _ in range(rng.randint(0, 12)):
        row = [_field(rng) for _ in range(columns + rng.choice([0, 0, 0, 0, 1, -1]))]
        lines.append(",".join(row))
    if rng.random() < 0.1:
        lines.append("0/0/" + "1" * rng.choice([10, 70_000, 140_000]))
    if rng.random() < 0.1:
        lines.insert(rng.randint(1, len(lines)), "")
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    if rng.random() < 0.1:
        data += b"\n0/\xff/1\n"
    if rng.random() < 0.05:
        data = data.replace(b"\n", b"\r\n")
    return data


def _parquet(rng: random.Random, path: Path) -> None:
    kind = rng.choice(["text", "ints", "nulls", "other_column", "corrupt", "truncated",
                       "empty", "struct"])
    if kind == "corrupt":
        path.write_bytes(b"PAR1" + rng.randbytes(rng.randint(0, 64)))
        return
    import duckdb

    con = duckdb.connect()
    n = rng.randint(0, 30)
    leaves = ", ".join(f"('{rng.choice(RECORDS[:8])}')" for _ in range(n)) or "('0/0/0')"
    select = {
        "text": f"SELECT * FROM (VALUES {leaves}) t(rec)",
        "ints": f"SELECT (range % 8)::INTEGER AS rec FROM range({n})",
        "nulls": "SELECT CASE WHEN range % 3 = 0 THEN NULL ELSE '0/1/1' END AS rec "
                 f"FROM range({n})",
        "other_column": f"SELECT * FROM (VALUES {leaves}) t(other)",
        "truncated": f"SELECT * FROM (VALUES {leaves}) t(rec)",
        "empty": "SELECT '0/0/0' AS rec WHERE false",
        # a struct `rec` beside a column named `rec.rec`: --column rec.rec, --field rec, n
        "struct": "SELECT {'rec': '1/1/1', 'n': {'rec': (range % 8)::INTEGER}} AS rec, "
                  f"'0/0/0' AS \"rec.rec\" FROM range({n})",
    }[kind]
    con.execute(f"COPY ({select}) TO '{path}' (FORMAT parquet)")
    con.close()
    if kind == "truncated":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])


def _table(rng: random.Random, folder: Path, name: str) -> Path:
    if rng.random() < 0.6:
        path = folder / f"{name}.csv"
        path.write_bytes(_csv_bytes(rng))
    else:
        path = folder / f"{name}.parquet"
        _parquet(rng, path)
    return path


def _classify_tail(rng: random.Random) -> list[str]:
    argv = ["--height", rng.choice(["4", "4", "4", "3", "1", "0", "4097", "99999999999"]),
            "--tau", rng.choice(["20", "1", "0", "1e9", "-1"]),
            "--epsilon", rng.choice(["1", "1", "0.5", "0", "2"]),
            "--delta", rng.choice(["0.05", "0.05", "0.01", "1"]), "--seed", "1"]
    if rng.random() < 0.8:
        argv += ["--column", rng.choice(["rec", "rec", "rec", "id", "missing", "", "rec,id",
                                         "rec.rec"])]
    for _ in range(rng.choice([0, 0, 0, 0, 1, 1, 2])):  # a path into a struct column
        argv += ["--field", rng.choice(["rec", "n", "missing", "", "rec.rec"])]
    if rng.random() < 0.8:
        argv += ["--engine", rng.choice(["memory", "duckdb", "duckdb"])]
    for flag in ("--skip-null", "--json", "--progress", "--diagnostics", "--debug"):
        if rng.random() < 0.2:
            argv.append(flag)
    if rng.random() < 0.15:
        argv += ["--arity", rng.choice(["2", "3", "1", "0"])]
    return argv


ODD_NUMBERS = ["1e-400", "1e-60", "1e-50", "65536", "1e12", "1e400", "nan", "inf", "-0", "1/0",
               "0x10", "1_0", "\uff11", "1e", "", " 1", "1\n2", "9" * 5000, "1/3", "0.05"]


def _argv_case(rng: random.Random, folder: Path) -> list[str]:
    """Flag values off every range: numbers, heights, a few records."""
    recs = folder / "recs.txt"
    recs.write_text(rng.choice(["0/1\n1/0\n", "0/0/0\n" * 50, ""]), encoding="utf-8")
    number = lambda: rng.choice([*ODD_NUMBERS, "1", "0.05", "30"])  # noqa: E731
    command = rng.choice(["classify", "classify", "calibrate", "audit", "margins"])
    if command == "classify":
        argv = ["classify", *([str(recs)] if rng.random() < 0.6 else []),
                "--tau", number(), "--epsilon", number(), "--delta", number()]
        if rng.random() < 0.7:
            argv += ["--height", rng.choice(["4096", "4095", "4097", "64", "3", "1", "0"])]
        if rng.random() < 0.2:
            argv += ["--arity", rng.choice(["1", "2", "65536", "0"])]
        return [*argv, "--seed", "1"]
    if command == "calibrate":
        return ["calibrate", "--height", rng.choice(["4096", "5", "0", "1e9"]),
                "--epsilon", number(), "--delta", number()]
    if command == "margins":
        return ["margins", "--epsilon", number(), "--delta", number()]
    return ["audit", "privacy", "--height", rng.choice(["3", "2"]), "--tau", number(),
            "--epsilon", number(), "--delta", number(), "--exhaustive", "1", "--budget", "5"]


def _shape_case(rng: random.Random, folder: Path) -> list[str]:
    """Files of odd shapes: commas, wide headers, random bytes, random Parquet footers."""
    kind = rng.choice(["commas", "wide", "bytes", "footer", "footer", "issue40"])
    if kind == "commas":
        path = folder / "t.csv"
        path.write_text("rec\n" + "," * rng.choice([1, 1000, 60_000, 65_535, 70_000]) + "\n",
                        encoding="utf-8")
    elif kind == "wide":
        path = folder / "t.csv"
        columns = rng.choice([2, 100, 5000, 20_000])
        path.write_text(",".join(f"c{i}" for i in range(columns)) + "\n"
                        + ",".join("0/0/0" for _ in range(columns)) + "\n", encoding="utf-8")
    elif kind == "bytes":
        path = folder / rng.choice(["t.csv", "t.txt", "t.parquet"])
        path.write_bytes(rng.randbytes(rng.randint(0, 400)))
    else:
        path = folder / "t.parquet"
        footer = (b"\0" * 8 + b"\x19\xf7" + b"\x80" * 7 + b"\x02\0\x0b\0\0\0"
                  if kind == "issue40" else rng.randbytes(rng.randint(0, 200)))
        length = len(footer) if kind == "issue40" else rng.choice(
            [len(footer), len(footer), 0, 2**32 - 1])
        path.write_bytes(b"PAR1" + footer + length.to_bytes(4, "little") + b"PAR1")
    tail = _classify_tail(rng)
    return ["classify", str(path), *tail]


def _injection_case(rng: random.Random, folder: Path) -> list[str]:
    """A file named with pattern characters and canaries its name would match; see `Watch`."""
    fmt = rng.choice(["csv", "csv", "parquet"])
    d = folder / "inj"
    d.mkdir(exist_ok=True)
    for canary in ("a", "b", "ab", "x"):
        _write_table(d / f"{canary}.{fmt}", ["1/1/1"] * 40, fmt)
    named = d / f"{rng.choice(PATTERN_NAMES)}.{fmt}"
    _write_table(named, ["0/0/0"] * 40, fmt)
    engine = rng.choice(["memory", "duckdb", "duckdb"] if fmt == "csv" else ["duckdb"])
    return ["classify", str(named), "--height", "4", "--tau", "20", "--epsilon", "1",
            "--delta", "0.05", "--seed", "1", "--engine", engine, "--json"]


def _spark_case(rng: random.Random, folder: Path) -> list[str]:
    """Tables (and the injection directory) through the Spark engine."""
    if rng.random() < 0.3:
        argv = _injection_case(rng, folder)
        return [*argv[:-2], "spark", "--json"]
    argv = ["classify", str(_table(rng, folder, "t")), *_classify_tail(rng)]
    if "--engine" in argv:
        argv[argv.index("--engine") + 1] = "spark"
    else:
        argv += ["--engine", "spark"]
    return argv


def _write_table(path: Path, records: list[str], fmt: str) -> None:
    if fmt == "csv":
        path.write_text("rec\n" + "".join(r + "\n" for r in records), encoding="utf-8")
        return
    import duckdb

    escaped = str(path).replace("'", "''")
    duckdb.connect().execute(f"COPY (SELECT '{records[0]}' AS rec FROM range({len(records)})) "
                             f"TO '{escaped}' (FORMAT parquet)")


def _case(rng: random.Random, family: str, workdir: Path, k: int) -> list[str]:
    folder = workdir / f"c{k}"
    folder.mkdir(parents=True, exist_ok=True)
    if family == "argv":
        return _argv_case(rng, folder)
    if family == "shape":
        return _shape_case(rng, folder)
    if family == "injection":
        return _injection_case(rng, folder)
    if family == "spark":
        return _spark_case(rng, folder)
    if family == "table":
        return ["classify", str(_table(rng, folder, "t")), *_classify_tail(rng)]
    if family == "directory":
        data = folder / rng.choice(["data", "lit[1]", "*.csv", "sp ace"])
        data.mkdir(exist_ok=True)
        for i in range(rng.randint(0, 4)):
            _table(rng, data, rng.choice(["a", "b", "_hidden", ".dot", f"f{i}", "*", "q?"]))
        if rng.random() < 0.2:
            (data / "notes.txt").write_bytes(rng.choice([b"0/0/0\n1/1/1\n", b"\xff\xfe\n", b""]))
        if rng.random() < 0.1:
            (data / "sub").mkdir(exist_ok=True)
        return ["classify", str(data), *_classify_tail(rng)]
    if family == "glob":
        for i in range(rng.randint(0, 4)):
            _table(rng, folder, rng.choice(["a", "b", f"g{i}", "[x]", "*"]))
        pattern = rng.choice(["*.csv", "*.parquet", "[ab].csv", "g?.csv", "none*.csv", "*",
                              "[x].csv", "**/*.csv"])
        argv = ["classify", str(folder / pattern), *_classify_tail(rng)]
        return argv + (["--glob"] if rng.random() < 0.8 else [])
    module = f"fuzzmech{k}"
    (folder / f"{module}.py").write_text(MECHANISMS)
    if family == "corpus":
        argv = ["audit", "corpus", "--mechanism", f"{module}:{rng.choice(CORPUS_NAMES)}"]
        if rng.random() < 0.5:
            argv += ["--queries", rng.choice(["1", "2", "3", "0", "7"])]
        if rng.random() < 0.5:
            argv += ["--size", rng.choice(["0", "1", "2", "64"])]
        if rng.random() < 0.3:
            argv += ["--epsilon", rng.choice(["1", "1/2", "0", "-1"])]
        return argv + ["--budget", "5"] + (["--json"] if rng.random() < 0.3 else [])
    name = rng.choice(MECHANISM_NAMES)
    argv = ["audit", "privacy", "--mechanism", f"{module}:{name}",
            "--height", rng.choice(["3", "3", "2", "4", "16", "0"])]
    if name.startswith("Builder"):
        argv += ["--tau", rng.choice(["2", "0", "1000"])]
        argv += (["--lam", rng.choice(["1/2", "1", "1/1000", "2"]), "--R", "2"]
                 if rng.random() < 0.5 else [])
    if "--lam" not in argv or rng.random() < 0.3:
        argv += ["--epsilon", rng.choice(["1", "1/2", "0", "-1"]),
                 "--delta", rng.choice(["0", "0.05", "1"])]
    mode = rng.choice(["pair", "pair", "exhaustive", "search"])
    if mode == "pair":
        argv += ["--db", rng.choice(["0/0", "", "0/0,1/1", "0/0*2", "x", "0/5"]),
                 "--add", rng.choice(["0/1", "0/0", "1", "z"])]
    elif mode == "exhaustive":
        argv += ["--exhaustive", rng.choice(["0", "1", "2", "65"])]
    else:
        argv += ["--search", rng.choice(["1", "3"])]
    if rng.random() < 0.2:
        argv += ["--on", rng.choice(["output", "transcript", "heavy"])]
    for flag in ("--json", "--progress", "--diagnostics"):
        if rng.random() < 0.15:
            argv.append(flag)
    return [*argv, "--budget", "3"]


def cases(seed: int, n: int, workdir: Path, debugger: bool = True,
          families: tuple[str, ...] = FAMILIES) -> list[tuple[str, list[str], Path]]:
    """`n` cases `(family, argv, folder)`, the families in turn, drawn from `seed` (without the
    mechanism calling `pdb.set_trace()` unless `debugger`: pytest wraps the debugger)."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        family = families[k % len(families)]
        argv = _case(rng, family, workdir, k)
        if not debugger and any(a.endswith(":debugger") for a in argv):
            argv = [a.replace(":debugger", ":exit7") for a in argv]
        out.append((family, argv, workdir / f"c{k}"))
    return out


class Hang(Exception):
    pass


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    def alarm(signum: int, frame: Any) -> None:
        raise Hang(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def violation(argv: list[str], status: int, out: str, err: str) -> str | None:
    """Why a run breaks the contract, or None."""
    if "Traceback" in err or "Traceback" in out:
        return "a traceback"
    if status not in (0, 1, 2, 3):
        return f"exit {status}"
    if status == 2:
        lines = err.strip("\n").split("\n")
        asked = any(flag in argv for flag in ("--progress", "--debug", "--diagnostics"))
        errors = [line for line in lines if line.startswith("betweencut: ")
                  and not line.startswith("betweencut: debug: ")]
        if len(errors) != 1 or (len(lines) != 1 and not asked):
            return f"exit 2 with {len(lines)} lines on stderr"  # progress lines only if asked
        if len(errors[0]) > 600:
            return f"an error line of {len(errors[0])} characters"
    elif not out.strip():
        return f"exit {status} without output"
    return None


def run_case(argv: list[str], folder: Path, seconds: float = HANG_SECONDS
             ) -> tuple[str | None, float, str]:
    """Run `betweencut ARGV` in-process in `folder` (its working directory and first import
    path): (why it breaks the contract or None, seconds, stderr). An injection case (its INPUT
    in a folder `inj`) runs under a directory watch: opening any other entry breaks it, and so
    does a Heavy set holding a canary's node."""
    from betweencut.cli import main

    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    start = time.monotonic()
    os.chdir(folder)
    sys.path.insert(0, str(folder))
    watched = Path(argv[1]).parent if len(argv) > 1 and Path(argv[1]).parent.name == "inj" \
        else None
    watch = None
    try:
        with time_limit(seconds), redirect_stdout(out), redirect_stderr(err):
            try:
                if watched is not None:
                    from inotify_watch import Watch

                    with Watch(watched) as watch:
                        status = main(argv)
                else:
                    status = main(argv)
            except SystemExit as exc:
                status = int(exc.code or 0) if not isinstance(exc.code, str) else 1
    except Hang as exc:
        return str(exc), time.monotonic() - start, err.getvalue()
    finally:
        os.chdir(here)
        sys.path.remove(str(folder))
    took = time.monotonic() - start
    why = violation(argv, status, out.getvalue(), err.getvalue())
    if why is None and watch is not None:
        others = [name for name in watch.opened if name != Path(argv[1]).name]
        if others:
            why = f"opened other files: {others}"
        elif status != 0 or "/1/1/1" in out.getvalue() or "/0/0/0" not in out.getvalue():
            why = f"not the named file's Heavy set (exit {status})"
    return why, took, err.getvalue()


def figures(whys: list[str | None], errors: list[str]) -> dict[str, int]:
    """The issue's figures: cases, clean, tracebacks, hangs, over 2 GB (out of memory under the
    cap), opened other files, wrong exits (any other break of the contract)."""
    out = {"cases": len(whys), "clean": 0, "tracebacks": 0, "hangs": 0, "over_2_gb": 0,
           "opened_other_files": 0, "wrong_exits": 0}
    for why, err in zip(whys, errors, strict=True):
        if "MemoryError" in err or "out of memory" in err:  # the 2 GB cap was reached
            out["over_2_gb"] += 1
        elif why is None:
            out["clean"] += 1
        elif why == "a traceback":
            out["tracebacks"] += 1
        elif why.startswith("no answer"):
            out["hangs"] += 1
        elif why.startswith("opened other") or why.startswith("not the named"):
            out["opened_other_files"] += 1
        else:
            out["wrong_exits"] += 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description="the long fuzz run of the command line")
    parser.add_argument("--n", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--spark", action="store_true",
                        help="the Spark family only (pyspark and a Java runtime needed)")
    args = parser.parse_args()
    start = time.monotonic()
    drawn = cases(args.seed, args.n, Path(args.workdir),
                  families=SPARK_FAMILIES if args.spark else FAMILIES)
    whys: list[str | None] = []
    errors: list[str] = []
    failures: list[dict[str, Any]] = []
    slowest = (0.0, [""])
    over: list[dict[str, Any]] = []
    by_family: dict[str, int] = {}
    for family, argv, folder in drawn:
        why, took, err = run_case(argv, folder)
        whys.append(why)
        errors.append(err)
        by_family[family] = by_family.get(family, 0) + 1
        if took > slowest[0]:
            slowest = (took, argv)
        if took > CASE_SECONDS:
            over.append({"argv": argv, "seconds": round(took, 2)})
        if why is not None:
            failures.append({"argv": argv, "why": why, "stderr": err[-400:]})
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({**figures(whys, errors), "families": by_family, "failures": failures,
                      "seconds": round(time.monotonic() - start, 1),
                      "slowest": {"seconds": round(slowest[0], 2), "argv": slowest[1]},
                      f"over_{CASE_SECONDS:g}_s": over,
                      "peak_rss_mb": round(usage.ru_maxrss / 1024)}))


if __name__ == "__main__":
    main()
