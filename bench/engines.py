"""Counting engines (issues 14, 25): DuckDB against its floor, Spark against DuckDB, DuckDB
against the memory engine on path strings; ratios from one run.

Data: N records in one Parquet file under /tmp (made by DuckDB itself, never in the repo), a
BIGINT column `leaf` of leaf numbers of the complete binary tree of height 32 (31 binary
digits): 60% uniform, 40% from 64 hot leaves with Zipf-like weights, so deep nodes get Heavy.

Floor: DuckDB's fastest query computing the same prefix counts (every depth's nodes with count
> floor(a - R)), without validation, diagnostics or the exact stage: the fastest, in the same
run, of the two-scan split plan the engine uses, the one-scan per-depth chain and (`--sets`)
GROUPING SETS over the leaf counts.
Engine: `betweencut.engines.duckdb.classify` end to end (schema check, validating scan, exact
stage with the exact sampler). Each measurement runs in its own process; peak RSS is that whole
process's (`ru_maxrss`). Goals: engine/floor <= 1.5, peak RSS < 4 GiB at 10^8 records.

Whole commands (`--spark N`): `betweencut classify` with `--engine duckdb` and `--engine spark`
(local mode, all cores) on the same N records, wall time of each process, the same seed; the
Spark run's `seconds_session` diagnostic is its JVM and session start-up. Goal (issue 25): Spark
minus start-up within 3x DuckDB, start-up at most 90 s, the same Heavy set.
Path strings (`--strings N`): N records `0/1/1/...` of the binary tree of height 16 in a CSV
(the same mix of uniform and hot leaves), `betweencut classify` with `--engine memory` and
`--engine duckdb`, wall time of each whole command. Goal: DuckDB no slower than memory.

Run: python bench/engines.py --records 10000000 --no-chain --spark 10000000 --strings 1000000
     python bench/engines.py --records 100000000 --no-chain --spark 100000000  (10^8: minutes)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from fractions import Fraction

from _common import data_path

HEIGHT = 32
STRING_HEIGHT = 16


def make_data(n: int) -> str:
    import duckdb

    path = data_path(f"leaves_{n}.parquet")
    if os.path.exists(path):
        return path
    con = duckdb.connect()
    leaves = 1 << (HEIGHT - 1)
    con.execute(f"""
        COPY (
            SELECT CASE WHEN (hash(i) % 1000) < 600 THEN (hash(i * 31 + 7) % {leaves})::BIGINT
                        ELSE (hash(least(63, floor(1.0 / pow(((hash(i * 17 + 3) % 1000000) + 1)
                                                   / 1000000.0, 2)) - 1)::BIGINT * 7919 + 17)
                              % {leaves})::BIGINT END AS leaf
            FROM range({n}) t(i)
        ) TO '{path}.part' (FORMAT parquet, ROW_GROUP_SIZE 1000000)
    """)
    os.rename(f"{path}.part", path)
    return path


def make_strings(n: int) -> str:
    """N path strings of the binary tree of height 16 (15 digits), one CSV column `path`."""
    import duckdb

    path = data_path(f"paths_{n}.csv")
    if os.path.exists(path):
        return path
    digits = STRING_HEIGHT - 1
    duckdb.connect().execute(f"""
        COPY (
            SELECT array_to_string(list_transform(range({digits - 1}, -1, -1),
                                                  lambda j: ((leaf >> j) & 1)::VARCHAR), '/')
                   AS path
            FROM (SELECT CASE WHEN (hash(i) % 1000) < 600
                              THEN (hash(i * 31 + 7) % {1 << digits})::BIGINT
                              ELSE (hash(least(63, floor(1.0 / pow(((hash(i * 17 + 3) % 1000000)
                                    + 1) / 1000000.0, 2)) - 1)::BIGINT * 7919 + 17)
                                    % {1 << digits})::BIGINT END AS leaf
                  FROM range({n}) t(i))
        ) TO '{path}.part' (FORMAT csv, HEADER true)
    """)
    os.rename(f"{path}.part", path)
    return path


def whole(engine: str, path: str, column: str, height: int, args: argparse.Namespace
          ) -> dict[str, object]:
    """`betweencut classify` in its own process: wall seconds, the Heavy set, diagnostics."""
    command = [sys.executable, "-m", "betweencut", "classify", path, "--engine", engine,
               "--column", column, "--height", str(height), "--tau", args.tau, "--epsilon", "1",
               "--delta", "1/20", "--seed", str(args.seed), "--json", "--diagnostics"]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - start
    diagnostics = json.loads(done.stderr.strip().splitlines()[-1])
    return {"seconds": seconds, "heavy_set": json.loads(done.stdout)["heavy"],
            "diagnostics": diagnostics}


def params(tau: str) -> object:
    from betweencut.mechanism.calibration import calibrate

    return calibrate(HEIGHT, Fraction(1), Fraction(1, 20)).params(Fraction(tau))


def child(args: argparse.Namespace) -> None:
    """One measurement in this process: prints JSON with seconds and peak RSS."""
    from betweencut.data.tree import kary_tree
    from betweencut.engines import duckdb as duck
    from betweencut.engines.common import Source, TreeCodec, candidate_cut
    from betweencut.noise.bt_sampler import ExactSampler

    p = params(args.tau)
    codec = TreeCodec.of(kary_tree(2, HEIGHT))
    source = Source.of(args.path, "leaf")
    out: dict[str, object] = {"what": args.child}
    start = time.perf_counter()
    if args.child == "spark_again":  # one process, one session, two runs: the second's pace
        from betweencut.engines import spark

        runs = [spark.classify(source, codec, p, ExactSampler(args.seed))  # type: ignore[arg-type]
                for _ in range(2)]
        out["heavy_set"] = [sorted(map(list, r.heavy)) for r in runs]
        out["diagnostics"] = [r.diagnostics for r in runs]
    elif args.child == "engine":
        result = duck.classify(source, codec, p, ExactSampler(args.seed),  # type: ignore[arg-type]
                               threads=args.threads or None, memory_limit=args.memory_limit)
        out["heavy"] = len(result.heavy)
        out["heavy_set"] = sorted(map(list, result.heavy))
        out["diagnostics"] = result.diagnostics
    else:
        cut = candidate_cut(p)  # type: ignore[arg-type]
        con = duck.connect(args.threads or None, args.memory_limit)
        reader = f"read_parquet('{args.path}')"
        if args.child in ("floor_chain", "floor_split"):
            query = duck.prefix_sql(codec, "leaf", "leaf", reader, cut, diagnostics=False,
                                    plan=args.child.removeprefix("floor_"))
        else:  # GROUPING SETS over the leaf counts
            sets = ", ".join(f"(d{d})" for d in range(HEIGHT))
            cols = ", ".join(f"code >> {HEIGHT - 1 - d} AS d{d}" for d in range(HEIGHT))
            query = (f"SELECT count(*) FROM (SELECT sum(c) AS s FROM (SELECT {cols}, c FROM "
                     f"(SELECT leaf AS code, count(*) AS c FROM {reader} GROUP BY 1)) "
                     f"GROUP BY GROUPING SETS ({sets}) HAVING sum(c) > {cut})")
        out["rows"] = len(con.execute(query).fetchall())
    out["seconds"] = time.perf_counter() - start
    out["peak_rss_gib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(json.dumps(out))


def measure(what: str, path: str, args: argparse.Namespace) -> dict[str, object]:
    command = [sys.executable, __file__, "--child", what, "--path", path, "--tau", args.tau,
               "--seed", str(args.seed), "--memory-limit", args.memory_limit]
    if args.threads:
        command += ["--threads", str(args.threads)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=10**7)
    parser.add_argument("--spark", type=int, default=0,
                        help="also run both whole commands, Spark and DuckDB, on this many records")
    parser.add_argument("--strings", type=int, default=0,
                        help="also run memory and DuckDB on this many path strings (CSV)")
    parser.add_argument("--tau", default="2000")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--memory-limit", default="3GB")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--sets", action="store_true", help="also try GROUPING SETS as a floor")
    parser.add_argument("--no-chain", action="store_true",
                        help="skip the one-scan chain floor (minutes at 10^8 records)")
    parser.add_argument("--child")
    parser.add_argument("--path")
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    print("2-core machine shared with other work: compare the ratios, not the seconds", flush=True)
    if args.records:
        floor_run(args.records, args)
    if args.spark:
        spark_run(args.spark, args)
    if args.strings:
        strings_run(args.strings, args)


def data(n: int, make: Callable[[int], str]) -> str:
    """`make(n)`'s data file, its size and the time to make or find it printed."""
    start = time.perf_counter()
    path = make(n)
    print(f"data: {n} records, {os.path.getsize(path) / 2**20:.0f} MiB "
          f"({time.perf_counter() - start:.1f} s to make or find)", flush=True)
    return path


def whole_runs(path: str, engines: tuple[str, str], column: str, height: int,
               args: argparse.Namespace, *, diagnostics: bool = False
               ) -> dict[str, list[dict[str, object]]]:
    """`args.repeats` rounds of each engine's whole command on `path`, each printed."""
    runs: dict[str, list[dict[str, object]]] = {}
    for _ in range(args.repeats):
        for engine in engines:
            r = whole(engine, path, column, height, args)
            runs.setdefault(engine, []).append(r)
            print(f"  {engine} whole command: {r['seconds']:.2f} s"
                  + (f", {r['diagnostics']}" if diagnostics else ""), flush=True)
    return runs


def floor_run(n: int, args: argparse.Namespace) -> None:
    """DuckDB's engine against its floor, in-process timings of the counting alone."""
    path = data(n, make_data)
    runs: dict[str, list[dict[str, object]]] = {}
    floors = ["floor_split"] + ([] if args.no_chain else ["floor_chain"]) \
        + (["floor_sets"] if args.sets else [])
    for _ in range(args.repeats):
        for what in [*floors, "engine"]:
            runs.setdefault(what, []).append(measure(what, path, args))
            r = runs[what][-1]
            print(f"  {what}: {r['seconds']:.2f} s, peak RSS {r['peak_rss_gib']:.2f} GiB"
                  + (f", {r['diagnostics']}" if "diagnostics" in r else ""), flush=True)

    def best(what: str) -> float:
        return min(float(str(r["seconds"])) for r in runs[what])

    floor = min(best(f) for f in floors)
    rss = max(float(str(r["peak_rss_gib"])) for r in runs["engine"])
    print(f"n = {n}: DuckDB/floor = engine {best('engine'):.2f} s / floor {floor:.2f} s = "
          f"{best('engine') / floor:.2f}x (goal <= 1.5x); engine peak RSS {rss:.2f} GiB "
          f"(goal < 4 GiB)", flush=True)


def spark_run(n: int, args: argparse.Namespace) -> None:
    """Whole commands: DuckDB and Spark (local mode) on the same Parquet file."""
    path = data(n, make_data)
    runs = whole_runs(path, ("duckdb", "spark"), "leaf", HEIGHT, args, diagnostics=True)
    duck = min(float(str(r["seconds"])) for r in runs["duckdb"])
    best = min(runs["spark"], key=lambda r: float(str(r["seconds"])))
    spark = float(str(best["seconds"]))
    startup = float(str(dict(best["diagnostics"])["seconds_session"]))  # type: ignore[call-overload]
    same = all(r["heavy_set"] == runs["duckdb"][0]["heavy_set"]
               for r in runs["duckdb"] + runs["spark"])
    print(f"n = {n}: Spark/DuckDB whole command = {spark:.2f} s / {duck:.2f} s = "
          f"{spark / duck:.2f}x; without Spark's JVM and session start-up ({startup:.1f} s, goal "
          f"<= 90 s): {(spark - startup) / duck:.2f}x (goal <= 3x); same Heavy set under seed "
          f"{args.seed}: {same}", flush=True)
    again = [measure("spark_again", path, args) for _ in range(args.repeats)]
    engine = [measure("engine", path, args) for _ in range(args.repeats)]
    second = min(float(d[1]["seconds_counting"]) for r in again  # type: ignore[index]
                 for d in [r["diagnostics"]])
    first = min(float(d[0]["seconds_counting"]) for r in again  # type: ignore[index]
                for d in [r["diagnostics"]])
    duck_in = min(float(str(r["seconds"])) for r in engine)
    print(f"n = {n}: in one process, Spark's counting on the session's first run {first:.2f} s, "
          f"on its second {second:.2f} s, against DuckDB's whole engine in process "
          f"{duck_in:.2f} s: {second / duck_in:.2f}x a run once the session is up; same Heavy "
          f"set: {all(h == engine[0]['heavy_set'] for r in again for h in r['heavy_set'])}",
          flush=True)


def strings_run(n: int, args: argparse.Namespace) -> None:
    """Whole commands: the memory engine and DuckDB on the same CSV of path strings."""
    path = data(n, make_strings)
    runs = whole_runs(path, ("memory", "duckdb"), "path", STRING_HEIGHT, args)
    memory, duck = (min(float(str(r["seconds"])) for r in runs[e]) for e in ("memory", "duckdb"))
    same = runs["memory"][0]["heavy_set"] == runs["duckdb"][0]["heavy_set"]
    print(f"strings n = {n}: DuckDB/memory whole command = {duck:.2f} s / {memory:.2f} s = "
          f"{duck / memory:.2f}x (goal <= 1x); same Heavy set: {same}", flush=True)


if __name__ == "__main__":
    main()
