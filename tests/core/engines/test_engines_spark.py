"""Issues 14 and 25: the Spark engine returns the sparse implementation's Heavy set and asks the
same noisy queries, on leaf-index and alphabet trees, CSV and Parquet, with one job or two (the
split forced on small trees); bad records name their file and row; neighbours straddling the
in-memory budget both release; Java's log stays off stderr; and a standalone cluster (a master
and two workers started with Spark's own `spark-class`) classifies through `--spark-master`
with DuckDB's Heavy set under one seed.

Marked `spark`: not in the default run; `.ci/run` runs them in their own step
(`python -m pytest -m spark tests/core/engines/test_engines_spark.py
tests/core/engines/test_engines_sources.py`), one
local SparkSession for them all (`spark`, tests/conftest.py), one cluster for the cluster
test: about 2 minutes on the shared 2-core machine."""

from __future__ import annotations

import json
import os
import random
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from fractions import Fraction as F
from pathlib import Path
from typing import Any

import pytest

from betweencut.data.tree import kary_tree, prefix_tree
from betweencut.engines.common import Source, SourceRecordError, TreeCodec
from betweencut.errors import ParameterError
from betweencut.mechanism.params import Params
from betweencut.noise.bt_sampler import ExactSampler
from betweencut.noise.noisy_test import RecordingTest
from betweencut.numbers.exact import LogReal

pytest.importorskip("pyspark")
pytest.importorskip("duckdb")  # the test files are written with DuckDB
from test_engines import (
    kary_records,
    prefix_records,
    reference,
    straddling_neighbours,
    write_csv,
    write_parquet,
)

spark_engine = pytest.importorskip("betweencut.engines.spark")
pytestmark = pytest.mark.spark


def _run(source: Source, tree: Any, params: Params, seed: int, **kwargs: Any
         ) -> tuple[Any, list[Any]]:
    test = RecordingTest(ExactSampler(seed))
    result = spark_engine.classify(source, TreeCodec.of(tree), params, test, **kwargs)
    return result.heavy, [q for q, _ in test.log]


@pytest.mark.parametrize(("groups", "leaves", "refine"),
                         [(1 << 16, 0, 1), (4, 1 << 18, 1), (4, 2, 9), (4, 0, 1), (2, 0, 1)],
                         ids=["one-job", "two-jobs-leaves-at-once", "deeper-prefixes-first",
                              "two-jobs-leaves-on-the-executors", "two-jobs-isin"])
def test_spark_equals_sparse_on_kary_and_prefix_trees(
        spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, groups: int,
        leaves: int, refine: int) -> None:
    monkeypatch.setattr(spark_engine, "SPLIT_GROUPS", groups)
    monkeypatch.setattr(spark_engine, "LEAVES_AT_ONCE", leaves)
    monkeypatch.setattr(spark_engine, "REFINE_GROUPS", refine)
    noisy = 0
    rng = random.Random(11)
    cases = [(kary_tree(3, 4), Params.of(4, F(1, 2), 1), kary_records(rng, 3, 4, 40)),
             (prefix_tree(list("abc"), 4), Params.of(4, F(1, 2), LogReal(F(1), F(1, 4), F(3))),
              prefix_records(rng, "abc", 4, 50))]
    for i, (tree, params, records) in enumerate(cases):
        paths = (write_csv(tmp_path / f"{i}.csv", list(records)),
                 write_parquet(tmp_path / f"{i}.parquet", list(records)))
        for seed in range(2):
            want, queries = reference(tree, records, params, seed)
            noisy += len(queries)
            for path in paths:
                assert _run(Source.of(str(path), "rec"), tree, params, seed) == (want, queries)
    assert noisy > 0


@pytest.mark.parametrize(("leaves", "refine", "first", "at_once"),
                         [(1 << 18, 1 << 16, 1 << 24, 0), (2, 12, 1 << 24, 0), (1 << 18, 12, 0, 0),
                          (0, 1, 1 << 24, 1 << 18), (0, 1, 1 << 24, 0)],
                         ids=["leaves-at-once", "deeper-prefixes-when-too-many-leaves",
                              "deeper-prefixes-past-REFINE_FIRST",
                              "executors-candidates-at-once", "executors-candidates-streamed"])
def test_spark_integer_leaves_two_jobs(spark: Any, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch, leaves: int,
                                       refine: int, first: int, at_once: int) -> None:
    """Leaf numbers of a binary tree of height 20: more than `SPLIT_GROUPS` leaves, so the
    engine's own split (depth 14) runs both jobs. The second job's leaf counts come at once;
    or (more than `LEAVES_AT_ONCE` = 2, or more records than `REFINE_FIRST` = 0) the prefixes
    of a deeper depth are counted first, at most 12 under the 3 chosen; or (none allowed at
    once, no deeper depth counted) they roll up on the executors, whose candidates come at once
    or a partition at a time, never more of them than `_Plan.deeper_bound` says."""
    monkeypatch.setattr(spark_engine, "LEAVES_AT_ONCE", leaves)
    monkeypatch.setattr(spark_engine, "REFINE_GROUPS", refine)
    monkeypatch.setattr(spark_engine, "REFINE_FIRST", first)
    monkeypatch.setattr(spark_engine, "FETCH_AT_ONCE", at_once)
    depths: list[int] = []
    bounds: list[int] = []
    rows: list[int] = []
    roll_up, bound, stream = (spark_engine._roll_up, spark_engine._Plan.deeper_bound,
                              spark_engine._stream)

    def record_depth(keys: Any, counts: Any, depth: int, *args: Any) -> tuple[list[int], int]:
        depths.append(depth)
        return roll_up(keys, counts, depth, *args)

    def record_bound(plan: Any, *args: Any) -> int:
        bounds.append(bound(plan, *args))
        return bounds[-1]

    def record_rows(fetched: Any, sink: Any) -> None:
        fetched = list(fetched)
        rows.append(len(fetched))
        stream(fetched, sink)

    monkeypatch.setattr(spark_engine, "_roll_up", record_depth)
    monkeypatch.setattr(spark_engine._Plan, "deeper_bound", record_bound)
    monkeypatch.setattr(spark_engine, "_stream", record_rows)
    monkeypatch.setattr(spark, "_betweencut_warm", True, raising=False)  # no warm-up here
    tree = kary_tree(2, 20)
    rng = random.Random(5)
    hot = [rng.randrange(2**14) * 32 for _ in range(3)]  # three depth-14 prefixes
    numbers = [rng.choice(hot) + (0 if rng.random() < 0.5 else rng.randrange(32))
               if rng.random() < 0.8 else rng.randrange(2**19) for _ in range(400)]
    codec = TreeCodec.of(tree)
    records = ["/".join(map(str, codec.leaf_of_number(v, "x", 1))) for v in numbers]
    path = write_parquet(tmp_path / "n.parquet", numbers, column="leaf")
    params = Params.of(60, F(1, 2), 1)
    for seed in range(2):
        assert _run(Source.of(str(path), "leaf"), tree, params, seed) \
            == reference(tree, records, params, seed)
    if leaves > 2 and first:  # each run: the histogram at 14, the leaves (19) up to 15
        assert depths == [14, 19] * 2 and not rows
    elif leaves:  # 3 chosen prefixes, at most 12 descendants: depth 16 first, then deeper
        assert depths[:2] == [14, 16] and depths == depths[:len(depths) // 2] * 2 and not rows
    else:
        assert depths == [14, 14] and len(rows) == len(bounds) == 2
        assert 0 < rows[0] <= bounds[0] and rows[0] == rows[1]


def test_spark_warm_up_runs_on_synthetic_leaves_of_the_column_s_own_name_and_type(
        spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In local mode an integer Parquet column warms up on synthetic leaf numbers (so the real
    jobs' plans are the warm-up's): same column name and type, valid leaves, the temporary files
    removed afterwards; the run that warms up this way releases the sparse Heavy set."""
    tree = kary_tree(2, 20)
    codec = TreeCodec.of(tree)
    rng = random.Random(8)
    numbers = [rng.choice([7, 7, 900, 2**18]) if rng.random() < 0.7 else rng.randrange(2**19)
               for _ in range(300)]
    source = Source.of(str(write_parquet(tmp_path / "w.parquet", numbers, column="leafno")),
                       "leafno")
    frame = spark_engine.read(spark, source)
    plan = spark_engine._Plan(codec, 10, *spark_engine.column_kind(frame, source, codec))
    with spark_engine._warm_up_records(spark, frame, source, plan) as (records, what):
        assert what == "synthetic leaf numbers"
        assert records.schema[plan.column].dataType == frame.schema[plan.column].dataType
        values = [row[0] for row in records.collect()]
        path = records.inputFiles()[0]
        assert len(values) == spark_engine.WARM_UP_RECORDS and len(set(values)) > 1000
        assert all(0 <= v < codec.leaves for v in values)
    assert not os.path.exists(path)
    monkeypatch.setattr(spark, "_betweencut_warm", False, raising=False)
    said: list[str] = []
    params = Params.of(40, F(1, 2), 1)
    records_text = ["/".join(map(str, codec.leaf_of_number(v, "x", 1))) for v in numbers]
    test = RecordingTest(ExactSampler(3))
    result = spark_engine.classify(source, codec, params, test, progress=said.append)
    assert (result.heavy, [q for q, _ in test.log]) == reference(tree, records_text, params, 3)
    assert "spark: warming up (both jobs' plans on synthetic leaf numbers)" in said


def test_spark_neighbours_straddling_the_budget_both_release(spark: Any, tmp_path: Path
                                                             ) -> None:
    tree = kary_tree(2, 7)
    params = Params.of(4, F(1, 2), 1)
    small, large, budget = straddling_neighbours(tree, params, 0)
    for i, records in enumerate((small, large)):
        path = write_parquet(tmp_path / f"{i}.parquet", list(records))
        test = RecordingTest(ExactSampler(0))
        result = spark_engine.classify(Source.of(str(path), "rec"), TreeCodec.of(tree), params,
                                       test, max_candidates=budget)
        want, queries = reference(tree, records, params, 0)
        assert result.heavy == want and [q for q, _ in test.log] == queries
        assert result.diagnostics["candidates_on_disk"] == i


def test_spark_second_job_filter_is_membership(spark: Any) -> None:
    """The second job's filter (`_among`: a bitmap literal, or `isin` past `SPLIT_GROUPS`)
    keeps exactly the prefixes in the chosen set, at the bitmap's word edges too."""
    rng = random.Random(3)
    for size in (1, 62, 63, 64, 127, 500, spark_engine.SPLIT_GROUPS,
                 spark_engine.SPLIT_GROUPS + 1):
        edges = sorted({0, 61, 62, 63, 125, 126, size - 1} & set(range(size)))
        for chosen in ([], [0], [size - 1], edges, sorted(rng.sample(range(size), min(size, 40)))):
            kept = spark.range(size).withColumnRenamed("id", "code") \
                .filter(spark_engine._among("code", chosen, size)).collect()
            assert sorted(row["code"] for row in kept) == chosen, (size, chosen)


def test_spark_names_file_and_row_of_a_bad_record(spark: Any, tmp_path: Path) -> None:
    tree = prefix_tree(list("ab"), 4)
    params = Params.of(5, F(1, 2), 1)
    path = write_parquet(tmp_path / "c.parquet", ["a", "a/b/a/b", "b"])
    with pytest.raises(SourceRecordError, match=r"c\.parquet, row 2: .*deeper"):
        spark_engine.classify(Source.of(str(path), "rec"), TreeCodec.of(tree), params)
    nulls = write_csv(tmp_path / "n.csv", ["a", None])
    with pytest.raises(SourceRecordError, match=r"n\.csv, row 2: null record"):
        spark_engine.classify(Source.of(str(nulls), "rec"), TreeCodec.of(tree), params)
    skipped = spark_engine.classify(Source.of(str(nulls), "rec", skip_null=True),
                                    TreeCodec.of(tree), params, ExactSampler(0))
    assert skipped.diagnostics["null_records_skipped"] == 1
    with pytest.raises(ParameterError, match="running Spark session"):
        spark_engine.session("spark://127.0.0.1:1")  # one session a process


# -- a standalone cluster -------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _spark_class() -> str:
    import pyspark

    return os.path.join(os.path.dirname(pyspark.__file__), "bin", "spark-class")


def _wait_for(log: Path, pattern: str, count: int, process: subprocess.Popen[bytes],
              seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if len(re.findall(pattern, log.read_text(errors="replace"))) >= count:
            return
        if process.poll() is not None:
            break
        time.sleep(1)
    raise AssertionError(f"{pattern!r} not seen {count} times in {log}:\n"
                         + log.read_text(errors="replace")[-3000:])


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A standalone master and two workers (one core each) on the loopback address, started
    with Spark's own launcher from the pyspark install; stopped (their process groups) after."""
    home = tmp_path_factory.mktemp("cluster")
    # The master and workers map the driver's class-data sharing archive too, where there is
    # one (same jars; a JVM that cannot use it starts without it, silently).
    sharing = spark_engine.spark_cds.driver_options(spark_engine.spark_home(), write=False)
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", SPARK_LOG_DIR=str(home),
               SPARK_WORKER_DIR=str(home / "work"),
               SPARK_DAEMON_JAVA_OPTS=f"{sharing} {os.environ.get('SPARK_DAEMON_JAVA_OPTS', '')}")
    port = _free_port()
    url = f"spark://127.0.0.1:{port}"
    started: list[subprocess.Popen[bytes]] = []

    def start(name: str, *argv: str) -> tuple[subprocess.Popen[bytes], Path]:
        log = home / f"{name}.log"
        with open(log, "wb") as out:
            process = subprocess.Popen([_spark_class(), *argv], env=env, stdout=out,
                                       stderr=subprocess.STDOUT, start_new_session=True)
        started.append(process)
        return process, log

    try:
        master, master_log = start("master", "org.apache.spark.deploy.master.Master",
                                   "--host", "127.0.0.1", "--port", str(port),
                                   "--webui-port", str(_free_port()))
        _wait_for(master_log, r"Starting Spark master at", 1, master, 180)
        for i in range(2):
            start(f"worker{i}", "org.apache.spark.deploy.worker.Worker", url, "--host",
                  "127.0.0.1", "--cores", "1", "--memory", "1g", "--webui-port",
                  str(_free_port()))
        _wait_for(master_log, r"Registering worker", 2, master, 180)
        yield url
    finally:
        for process in started:
            if process.poll() is None:
                os.killpg(process.pid, 15)
        for process in started:
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, 9)


def test_cluster_classifies_like_duckdb_and_keeps_java_off_stderr(
        cluster: str, tmp_path: Path) -> None:
    """`classify --engine spark --spark-master spark://...` on a master and two workers gives
    DuckDB's Heavy set under one seed (two jobs: 2^19 leaves); stdout is the release alone and
    stderr is empty (no Java log lines) unless asked for."""
    rng = random.Random(8)
    hot = [rng.randrange(2**19) for _ in range(4)]
    numbers = [rng.choice(hot) if rng.random() < 0.7 else rng.randrange(2**19)
               for _ in range(3000)]
    path = write_parquet(tmp_path / "leaves.parquet", numbers, column="leaf")
    argv = [sys.executable, "-m", "betweencut", "classify", str(path), "--column", "leaf",
            "--height", "20", "--tau", "150", "--epsilon", "1", "--delta", "0.05", "--seed",
            "3", "--json"]
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1")
    runs = {engine: subprocess.run([*argv, "--engine", engine, *more], capture_output=True,
                                   text=True, env=env, check=False, timeout=600)
            for engine, more in (("duckdb", []), ("spark", ["--spark-master", cluster]))}
    for engine, run in runs.items():
        assert run.returncode == 0, (engine, run.stderr[-3000:])
        assert run.stderr == "", (engine, run.stderr[-3000:])
    heavy = {engine: json.loads(run.stdout)["heavy"] for engine, run in runs.items()}
    assert heavy["spark"] == heavy["duckdb"] and len(heavy["duckdb"]) > 20
