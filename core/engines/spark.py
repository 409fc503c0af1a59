"""The Spark engine (`betweencut[spark]`): prefix counts on a cluster, or in local mode.

The DuckDB engine's plan (`betweencut.engines.duckdb`), with the DataFrame API so that Spark's
optimiser and adaptive execution run it. Each record becomes its leaf code of the sparse
`Encoding` (NULL if malformed, -1 if null). Two jobs, whatever the height:

1. every record's prefix at a public depth `D` (`split_depth`: at most `SPLIT_GROUPS` possible
   nodes) is counted, with the numbers of malformed, null and valid records; that small
   histogram comes to the driver, which rolls it up to the root (numpy) and keeps the depths
   `0..D` candidates (count > floor(a - R), `betweencut.engines.common`);
2. only the valid records under a depth-`D` candidate are read again (for an integer column
   straight from the column, without the first job's cases for null and malformed records,
   which have refused the run by then), kept by a filter on a set of public size (a bitmap
   literal of the chosen prefixes, `_among`: the cut is applied before the shuffle) and
   grouped by leaf. Those leaf counts come to the driver, which rolls them up to depth `D+1`
   (`_roll_up`, numpy) as it did the first job's histogram, when there are at most
   `LEAVES_AT_ONCE` (a public number: the driver asks for one more and looks). With more, or
   past `REFINE_FIRST` records under the chosen prefixes, the prefixes of a deeper depth are
   counted first (at most `REFINE_GROUPS` groups), rolled up to `D+1` the same way, and the
   second job is asked again under their candidates. Where no deeper depth fits, the leaf
   counts roll up on the executors: exploded to (depth, prefix) for the deeper depths,
   hash-partitioned by depth, summed there, the candidates kept and sorted within each
   partition, and only they are handed to the driver's `CandidateSink` (at once when
   `_Plan.deeper_bound` allows at most `FETCH_AT_ONCE`, else a partition at a time). The
   driver holds at most `LEAVES_AT_ONCE` leaf counts, `REFINE_GROUPS` prefix counts, or one
   partition of candidates. The executors' roll-up costs two more shuffles of a row a leaf and
   depth: 212 s where counting deeper prefixes first takes 8 s (bench/engines.py's 10^7
   records at `tau = 400`, 6*10^6 leaves under the candidates).

A session this module starts runs with ANSI arithmetic off (`session`; a session the process
already has is used as it is): our sums of counts cannot overflow and none of our expressions
divides by zero or indexes out of bounds, and ANSI's checked additions cost about half of the
first job's time in local mode. In local mode it also keeps one shuffle partition a core
after every shuffle, where adaptive execution would put our few rows on one core.

Exact for every candidate: a candidate below `D` has count > cut, so its depth-`D` ancestor does
too and all its records are in the second job (and so on at each deeper depth it counts
first). A tree of at most `SPLIT_GROUPS` leaves needs the first job only. A malformed record
is found again and explained by the text reader's parser.

`master` is the cluster's master URL (`spark://host:7077`, `yarn`, `k8s://...`); by default
`local[*]`. One SparkSession serves the whole process (`session`). Spark's Java log stays off
the user's stderr unless asked for (`log=True`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from betweencut.engines import spark_cds
from betweencut.engines.candidates import CandidateSink
from betweencut.engines.common import (
    WHITESPACE,
    EngineResult,
    IntArray,
    Progress,
    Source,
    TreeCodec,
    candidate_cut,
    column_index,
    refuse_in_text,
    refuse_record,
    require,
    silent,
    split_depth,
)
from betweencut.engines.sources import spark_frame, spark_name, spark_value
from betweencut.engines.spark_cds import spark_home
from betweencut.errors import BetweenCutError, ParameterError
from betweencut.mechanism.params import Params
from betweencut.noise.noisy_test import NoisyTest

INTEGER_TYPES = {"ByteType", "ShortType", "IntegerType", "LongType"}
# The first job's groups at most (tests lower it to force two jobs). Spark's hash aggregation
# of 10^7 records takes about twice as long into 2^16 groups as into 2^14 (bench/engines.py's
# data, measured on the shared 2-core machine); the second job's filter keeps it small.
SPLIT_GROUPS = 1 << 14
WARM_UP_RECORDS = 1 << 18
# The second job (the module docstring): up to LEAVES_AT_ONCE leaf counts come to the driver at
# once (4 MiB as numpy, tens of MB as rows), a third less time than the executors' roll-up on
# bench/engines.py's 10^7 records; the executors' roll-up, the last resort, sends its candidates
# at once when `_Plan.deeper_bound` allows at most FETCH_AT_ONCE, else a partition at a time.
LEAVES_AT_ONCE = 1 << 18
FETCH_AT_ONCE = 1 << 18
REFINE_GROUPS = 1 << 16
# Past this many records under the chosen prefixes their leaf grouping may spill (as many groups
# as records): the deeper prefixes (at most REFINE_GROUPS groups) are counted first instead.
# On bench/engines.py's 10^8 records every depth-14 prefix is chosen, 6*10^7 leaves.
REFINE_FIRST = 1 << 24
# The driver's JVM compiles with C1 only: half the start-up and a faster first run than C2's
# tiers, measured on the shared 2-core machine (bench/engines.py); a long-lived session that
# counts again and again runs faster under C2, which SPARK_SUBMIT_OPTS=-XX:TieredStopAtLevel=4
# gives (the user's own options come later and win).
DRIVER_JAVA_OPTIONS = "-XX:TieredStopAtLevel=1"


def session(master: str | None = None, *, log: bool = False) -> Any:
    """The process's SparkSession: the running one (if `master` is None or its own), else a new
    one on `master` (default `local[*]`), UI off.

    The driver's JVM writes its log (and the JVM's own warnings) to its stderr, and could write
    to stdout, where the release goes: it is started with both on the null device, or with
    `log` both on our stderr, for its whole life (the first session of a process decides).
    Errors still reach the user, as the Python exception Spark raises.

    The driver's JVM maps the installation's class-data sharing archive when there is one
    (`betweencut.engines.spark_cds`, made once by `python -m betweencut.engines.spark_cds`):
    the session then starts in about half the time (`bench/spark_startup.py`). A command never
    writes one itself: a JVM recording its classes ran the first command in 18 s, not 10."""
    require("pyspark", "spark", "spark")
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        running = active.sparkContext.master
        if master is not None and master != running:
            raise ParameterError("spark-master", master, f"the master of this process's running "
                                 f"Spark session ({running}), or stop that session first")
        return active
    builder = SparkSession.builder.appName("betweencut").master(master or "local[*]")
    builder = builder.config("spark.ui.enabled", "false")
    builder = builder.config("spark.ui.showConsoleProgress", "false")
    # Our sums of counts cannot overflow a long (fewer than 2^63 records) and our expressions
    # neither divide by zero nor index out of bounds: ANSI's checked arithmetic only slows the
    # aggregations (a boxed closure a row: half of the first job's time, measured in local mode).
    builder = builder.config("spark.sql.ansi.enabled", "false")
    if master is None or master.startswith("local"):  # one shuffle partition a core, all kept
        cores = (master or "local[*]").removeprefix("local").strip("[]").split(",")[0]
        builder = builder.config("spark.sql.shuffle.partitions",
                                 cores if cores.isdigit() else str(os.cpu_count() or 2))
        # After a shuffle our rows are few (prefix counts, leaf counts under the candidates):
        # adaptive execution would coalesce them into one partition, a task on one core, where
        # the second job's roll-up then ran (bench/engines.py: a fifth of the second job).
        builder = builder.config("spark.sql.adaptive.coalescePartitions.enabled", "false")
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    sink = os.dup(2) if log else os.open(os.devnull, os.O_WRONLY)
    from pyspark import SparkContext

    # Only a JVM started here takes options (a stopped session's JVM stays up in the process;
    # PYSPARK_GATEWAY_PORT names one started by a parent process): an archive asked of no JVM
    # would never be written.
    launches = SparkContext._gateway is None and "PYSPARK_GATEWAY_PORT" not in os.environ
    write = os.environ.get("BETWEENCUT_SPARK_CDS") == "write" and not log  # spark_cds.prepare
    sharing = spark_cds.driver_options(spark_home(), write=write) if launches else ""
    environment = {"SPARK_SUBMIT_OPTS": f"{DRIVER_JAVA_OPTIONS} {sharing} "
                                        f"{os.environ.get('SPARK_SUBMIT_OPTS', '')}"}
    if master is None or master.startswith("local"):  # local mode: the loopback address only
        environment["SPARK_LOCAL_IP"] = os.environ.get("SPARK_LOCAL_IP", "127.0.0.1")
    before = {key: os.environ.get(key) for key in environment}
    os.environ.update(environment)
    try:  # the JVM inherits file descriptors 1 and 2 (and the environment) from pyspark's start
        os.dup2(sink, 1)
        os.dup2(sink, 2)
        return builder.getOrCreate()
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, sink):
            os.close(fd)
        for key, value in before.items():
            if value is None:
                del os.environ[key]
            else:
                os.environ[key] = value


def read(spark: Any, source: Source) -> Any:
    """The files as named, in the one CSV dialect (`betweencut.engines.sources.spark_frame`)."""
    if source.format not in ("parquet", "csv"):
        raise ParameterError("engine", "spark", "CSV or Parquet input (text files: --engine "
                             "memory)")
    return spark_frame(spark, source.files, source.format, source.column, source.field)


def column_kind(frame: Any, source: Source, codec: TreeCodec) -> tuple[str, str]:
    """The record column and its kind (`string` or `integer`), from the schema alone."""
    names = list(frame.columns)
    column = names[column_index(names, source.column, source.files[0])]
    data_type = frame.schema[column].dataType
    for name in source.field:  # resolved from the footers already (`sources.record_column`)
        data_type = data_type[name].dataType
    kind = type(data_type).__name__
    if kind == "StringType":
        return column, "string"
    if kind in INTEGER_TYPES and not codec.tree.end_of_record:
        return column, "integer"
    raise ParameterError("column", column, "a string column (paths), or an integer column "
                         "(leaf numbers of a k-ary tree)", f"it holds {kind}")


def code_column(codec: TreeCodec, kind: str, column: str, field: Sequence[str] = ()) -> Any:
    """The record's leaf code: NULL if malformed, -1 if null (as `duckdb.code_sql`); the record
    is the column, or the field path `field` into it (`sources.spark_value`)."""
    from pyspark.sql import functions as F

    h, r = codec.height, codec.radix
    rec = spark_value(column, field)
    if kind == "integer":
        code = F.when((rec >= 0) & (rec < F.lit(codec.leaves)), rec.cast("long"))
        return F.when(rec.isNull(), F.lit(-1).cast("long")).otherwise(code)
    ws = F.lit(WHITESPACE)
    parts = F.split(F.trim(F.trim(rec, ws), F.lit("/")), "/")
    names = F.array(*[F.lit(n) for n in codec.names])

    clean = all(name == name.strip(WHITESPACE) for name in codec.names)

    def digit(x: Any) -> Any:  # looked up as it is, trimmed only if that fails (as duckdb's)
        position = F.array_position(names, F.trim(x, ws))
        if clean:
            position = F.coalesce(F.nullif(F.array_position(names, x), F.lit(0)), position)
        return F.when(position > 0, position + (codec.first_digit - 1))

    reduced = F.aggregate(F.transform(parts, digit), F.lit(0).cast("long"),
                          lambda acc, x: acc * r + x)
    size = F.size(parts)
    if codec.tree.end_of_record:
        powers = F.array(*[F.lit(r ** i).cast("long") for i in range(h)])
        body = F.when(size == h - 1, reduced).when(
            size < h - 1, (reduced * r + 1) * F.element_at(powers, (h - 1) - size))
    else:
        body = F.when(size == h - 1, reduced)
    return F.when(rec.isNull(), F.lit(-1).cast("long")).otherwise(body)


def classify(
    source: Source,
    codec: TreeCodec,
    params: Params,
    test: NoisyTest | None = None,
    *,
    master: str | None = None,
    max_candidates: int | None = None,
    progress: Progress | None = None,
    log: bool = False,
) -> EngineResult:
    """The Heavy set of `source`: Spark counts (the module docstring's two jobs), the exact
    stage labels (`betweencut.engines.candidates`). Requires `tau >= E`. `progress(message)`
    hears the stages (public facts only).

    The first run of a session first sends `WARM_UP_RECORDS` records through both jobs' plans
    (class loading, code generation and the JVM's compilation of the hot loops: a fixed cost of
    start-up, counted with the session's in the `seconds_session` diagnostic, that the first run
    would otherwise pay on its records)."""
    say = progress if progress is not None else silent
    start = time.perf_counter()
    cut = candidate_cut(params)
    say("spark: starting the session")
    try:
        spark = session(master, log=log)
    except BetweenCutError:
        raise
    except Exception as exc:  # no session: the master or the Java runtime, not the input file
        error = ParameterError(
            "spark-master", master or "local[*]", "a master Spark can start a session on "
            "(local, local[N], spark://HOST:PORT) and a Java runtime it can launch",
            "the session did not start; --debug shows Spark's message")
        error.detail = f"{type(exc).__name__}: {exc}"  # type: ignore[attr-defined]
        raise error from exc
    frame = read(spark, source)
    plan = _Plan(codec, cut, *column_kind(frame, source, codec), field=source.field)
    if not getattr(spark, "_betweencut_warm", False):
        with _warm_up_records(spark, frame, source, plan) as (records, what):
            say(f"spark: warming up (both jobs' plans on {what})")
            plan.warm_up(records)
        spark._betweencut_warm = True
    started = time.perf_counter()
    codes = plan.codes(frame)
    if plan.kind == "string":
        codes = codes.persist()
    say(f"spark: counting the prefixes of depth {plan.split}")
    hist = plan.histogram(codes)
    stats = {k: int(hist[hist[:, 0] == k, 1].sum()) for k in (-2, -1)}
    records = int(hist[hist[:, 0] >= 0, 1].sum())
    if stats[-2] or (stats[-1] and not source.skip_null):
        codes.unpersist()
        _raise_first_bad(spark, frame, source, codec, plan.kind, plan.column)
    h = codec.height
    with CandidateSink(h, max_candidates) as sink:
        valid = hist[hist[:, 0] >= 0]
        chosen, under = _roll_up(valid[:, 0], valid[:, 1], plan.split, codec, cut, sink)
        if plan.split < h - 1:  # said whether or not a candidate calls for the job (issue 40)
            say(f"spark: counting the prefixes of depths {plan.split + 1} to {h - 1} under the "
                f"candidates of depth {plan.split}")
        if plan.split < h - 1 and chosen:
            plan.second_job(plan.valid(frame, codes), chosen, under, sink)
        codes.unpersist()
        counted = time.perf_counter()
        run, found = sink.exact_stage(codec, params, test, say)
        done = time.perf_counter()
        return EngineResult(run.heavy, {
            "engine": "spark", "records": records, "null_records_skipped": stats[-1],
            **found, "seconds_session": round(started - start, 4),
            "seconds_counting": round(counted - started, 4),
            "seconds_exact_stage": round(done - counted, 4),
        })


@contextlib.contextmanager
def _warm_up_records(spark: Any, frame: Any, source: Source, plan: _Plan
                     ) -> Iterator[tuple[Any, str]]:
    """The records the warm-up runs on: for an integer column of Parquet files in local mode,
    `WARM_UP_RECORDS` synthetic leaf numbers written to a private temporary directory in the
    column's own name and type, so that the real jobs' plans are the warm-up's, their code
    generated and compiled already (the first real run about a quarter of a second faster on
    bench/engines.py's 10^7 records); otherwise the first `WARM_UP_RECORDS` records (a limit
    changes the plans: less of the warm-up carries over)."""
    if source.format != "parquet" or plan.kind != "integer" or plan.field \
            or not spark.sparkContext.master.startswith("local"):
        yield frame.limit(WARM_UP_RECORDS), "the first records"
        return
    from pyspark.sql import functions as F

    kind = frame.schema[plan.column].dataType
    largest = {"ByteType": 1 << 7, "ShortType": 1 << 15, "IntegerType": 1 << 31}
    bound = min(plan.codec.leaves, largest.get(type(kind).__name__, plan.codec.leaves))
    directory = tempfile.mkdtemp(prefix="betweencut-warm-up-")
    try:
        path = os.path.join(directory, "leaves.parquet")
        spark.range(0, WARM_UP_RECORDS, 1, 2) \
            .select((F.col("id") * 2654435761 % bound).cast(kind).alias(plan.column)) \
            .write.parquet(path)
        yield spark.read.parquet(path), "synthetic leaf numbers"
    finally:
        shutil.rmtree(directory, ignore_errors=True)


class _Plan:
    """The two jobs of the module docstring for one tree, cut and record column."""

    def __init__(self, codec: TreeCodec, cut: int, column: str, kind: str,
                 field: Sequence[str] = ()) -> None:
        self.codec, self.cut, self.column, self.kind = codec, cut, column, kind
        self.field = tuple(field)  # the path of struct fields into `column`, if any
        h = codec.height
        self.split = min(split_depth(codec, SPLIT_GROUPS), h - 1)
        self.top = codec.radix ** (h - 1 - self.split)  # code div top: the prefix at `split`

    def codes(self, records: Any) -> Any:
        """The leaf codes `code` of `records`, with their weights `w` for text records (each
        distinct text encoded once)."""
        from pyspark.sql import functions as F

        if self.kind == "string":
            texts = records.groupBy(spark_value(self.column, self.field).alias("rec")) \
                .agg(F.count(F.lit(1)).alias("w"))
            return texts.select(code_column(self.codec, self.kind, "rec").alias("code"), "w")
        return records.select(code_column(self.codec, self.kind, self.column, self.field)
                              .alias("code"))

    def weight(self) -> Any:
        from pyspark.sql import functions as F

        return F.sum("w").cast("long") if self.kind == "string" else F.count(F.lit(1))

    def histogram(self, codes: Any) -> IntArray:
        """The first job: rows (prefix at `split`, count), with -2 for the malformed records
        and -1 for the null ones."""
        from pyspark.sql import functions as F

        code = F.col("code")
        key = F.when(code.isNull(), F.lit(-2)).when(code < 0, F.lit(-1)) \
            .otherwise(F.expr(f"code div {self.top}")).alias("p")
        rows = codes.groupBy(key).agg(self.weight().alias("c")).collect()
        return _pairs(rows)

    def valid(self, records: Any, codes: Any) -> Any:
        """The valid records' codes (with their weights for text records): for an integer
        column straight from `records`, without the first job's cases for null and malformed
        records (the first job has refused those runs already)."""
        from pyspark.sql import functions as F

        if self.kind == "string":
            return codes.filter(F.col("code") >= 0)
        rec = spark_value(self.column, self.field)
        return records.filter((rec >= 0) & (rec < F.lit(self.codec.leaves))) \
            .select(rec.cast("long").alias("code"))

    def second_job(self, valid: Any, chosen: list[int], under: int, sink: CandidateSink
                   ) -> None:
        """The candidates of depths `split+1..h-1` into the sink, from the valid records under
        the prefixes `chosen` (`under` records). Their leaf counts, when at most
        `LEAVES_AT_ONCE` (the driver asks for one more and looks), come to the driver and roll
        up there (`_roll_up`). Else (or at once past `REFINE_FIRST` records, where the leaf
        grouping asked for may itself hold as many groups) the prefixes of a deeper depth are
        counted first, as the first job did (the deepest where the chosen prefixes have at
        most `REFINE_GROUPS` descendants), and the same is asked under their candidates. Where
        no depth is deeper, the leaf counts roll up on the executors (`deeper`) and only the
        candidates come."""
        from pyspark.sql import functions as F

        h, r, codec, cut = self.codec.height, self.codec.radix, self.codec, self.cut
        depth = self.split
        while chosen and depth < h - 1:
            under_chosen = valid.filter(_among(f"code div {r ** (h - 1 - depth)}", chosen,
                                               r ** depth))
            leaves = under_chosen.groupBy("code").agg(self.weight().alias("c"))
            finer = depth
            while finer < h - 1 and len(chosen) * r ** (finer + 1 - depth) <= REFINE_GROUPS:
                finer += 1
            if under <= REFINE_FIRST or finer == depth:
                rows = leaves.limit(LEAVES_AT_ONCE + 1).collect()
                if len(rows) <= LEAVES_AT_ONCE:
                    counted = _pairs(rows)
                    _roll_up(counted[:, 0], counted[:, 1], h - 1, codec, cut, sink, depth + 1)
                    return
            if finer == depth:
                deeper = self.deeper(leaves, depth)
                at_once = self.deeper_bound(depth, len(chosen), under) <= FETCH_AT_ONCE
                _stream(deeper.collect() if at_once else deeper.toLocalIterator(), sink)
                return
            prefix = F.expr(f"code div {r ** (h - 1 - finer)}").alias("p")
            rows = under_chosen.groupBy(prefix).agg(self.weight().alias("c")).collect()
            counted = _pairs(rows)
            chosen, under = _roll_up(counted[:, 0], counted[:, 1], finer, codec, cut, sink,
                                     depth + 1)
            depth = finer

    def deeper(self, leaves: Any, depth: int) -> Any:
        """The candidates (depth, code, c) of depths `depth+1..h-1` from the leaf counts, on the
        executors (every leaf exploded to its prefixes there): each depth whole in one partition
        and sorted there."""
        from pyspark.sql import functions as F

        h, r = self.codec.height, self.codec.radix
        powers = ", ".join(f"{r ** i}L" for i in range(h))  # r^(h-1-depth)
        deeper = leaves.select(F.explode(F.sequence(F.lit(depth + 1), F.lit(h - 1)))
                               .alias("depth"), "code", "c") \
            .select("depth", F.expr(f"code div element_at(array({powers}), {h} - depth)")
                    .alias("code"), "c") \
            .repartition("depth").groupBy("depth", "code").agg(F.sum("c").cast("long").alias("c"))
        keep = F.col("c") > self.cut
        if self.codec.tree.end_of_record:
            keep = keep & (F.col("code") % r != 0)
        return deeper.filter(keep).sortWithinPartitions("depth", "code")

    def deeper_bound(self, depth: int, chosen: int, records: int) -> int:
        """At most this many rows from `deeper`: at each depth below `depth`, no more nodes
        than the `chosen` prefixes have there, nor than `records` (theirs) allow above the
        cut."""
        r, per_depth = self.codec.radix, records // (self.cut + 1)
        return sum(min(chosen * r ** (d - depth), per_depth)
                   for d in range(depth + 1, self.codec.height))

    def warm_up(self, records: Any) -> None:
        """Both jobs on `records`, the answers thrown away (only the JVM keeps something: its
        compiled code). The second job runs under the first job's 64 largest prefixes."""
        codes = self.codes(records)
        hist = self.histogram(codes)
        valid = hist[hist[:, 0] >= 0]
        chosen = [int(p) for p in valid[np.argsort(-valid[:, 1], kind="stable")[:64], 0]]
        if self.split < self.codec.height - 1 and chosen:
            with CandidateSink(self.codec.height) as sink:
                self.second_job(self.valid(records, codes), chosen, 0, sink)


def _among(prefix: str, chosen: list[int], size: int) -> Any:
    """`prefix` (SQL of a long in `0..size-1`) is in `chosen`: looked up in a bitmap literal (63
    bits a word, so every word is a positive long) when `size <= SPLIT_GROUPS` (every tree whose
    root has at most that many children), else Spark's `isin` (a hash set of boxed longs: a
    third of the second job's scan, measured in local mode, which the bitmap's shifts avoid)."""
    from pyspark.sql import functions as F

    if size > SPLIT_GROUPS:
        return F.expr(prefix).isin(chosen)
    words = [0] * -(-size // 63)
    for p in chosen:
        words[p // 63] |= 1 << (p % 63)
    bitmap = f"array({', '.join(f'{w}L' for w in words)})"
    return F.expr(f"shiftright(element_at({bitmap}, CAST(({prefix}) div 63 AS INT) + 1), "
                  f"CAST(({prefix}) % 63 AS INT)) % 2 = 1")


def _roll_up(keys: IntArray, counts: IntArray, depth: int, codec: TreeCodec, cut: int,
             sink: CandidateSink, stop: int = 0) -> tuple[list[int], int]:
    """The candidates of depths `stop..depth` from the counts of the prefixes at `depth` (all
    of their records), into the sink; returns the prefixes at `depth` with a count above the
    cut (those the next job reads under) and their number of records."""
    r = codec.radix
    order = np.argsort(keys, kind="stable")
    keys, counts = keys[order], counts[order]
    above = counts > cut
    chosen, under = [int(k) for k in keys[above]], int(counts[above].sum())
    for d in range(depth, stop - 1, -1):
        keep = counts > cut
        if codec.tree.end_of_record and d > 0:
            keep &= keys % r != 0  # a record that ended above: carried up, not a node
        sink.add(d, keys[keep], counts[keep])
        if d > stop and keys.size:
            keys, first = np.unique(keys // r, return_index=True)
            counts = np.add.reduceat(counts, first)
    return chosen, under


def _pairs(rows: list[Any]) -> IntArray:
    """Spark's rows (key, count) as an array of two columns."""
    return np.array([(key, c) for key, c in rows], np.int64).reshape(-1, 2)


def _stream(rows: Iterable[Any], sink: CandidateSink, chunk: int = 1 << 16) -> None:
    """Rows (depth, code, c), each depth's rows together and in code order, into the sink a
    chunk at a time."""
    depth, codes, counts = -1, list[int](), list[int]()
    for row in rows:
        d = int(row["depth"])
        if d != depth or len(codes) >= chunk:
            if codes:
                sink.add(depth, np.array(codes, np.int64), np.array(counts, np.int64))
            depth, codes, counts = d, [], []
        codes.append(int(row["code"]))
        counts.append(int(row["c"]))
    if codes:
        sink.add(depth, np.array(codes, np.int64), np.array(counts, np.int64))


def _raise_first_bad(spark: Any, frame: Any, source: Source, codec: TreeCodec, kind: str,
                     column: str) -> None:
    """Find the first malformed (or null) record in file order and raise its error."""
    from pyspark.sql import functions as F

    if source.format == "parquet":
        code = code_column(codec, kind, column, source.field)
        bad = code.isNull() if source.skip_null else (code.isNull() | (code == -1))
        for file in source.files:  # file order; rows within a file by their row index
            one = read(spark, Source((file,), "parquet", column, source.skip_null,
                                     source.field))
            hits = one.select(F.col("_metadata.row_index").alias("row"),
                              F.col(spark_name(column))) \
                .filter(bad).orderBy("row").limit(1).collect()
            if hits:
                value = hits[0][column]
                for name in source.field:  # down the struct to the record
                    value = None if value is None else value[name]
                refuse_record(codec, source, kind, file, int(hits[0]["row"]) + 1, value)
    refuse_in_text(codec, source, column)
