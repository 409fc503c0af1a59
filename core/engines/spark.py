"""The Spark engine (`betweencut[spark]`): prefix counts on a cluster, or locally in tests.

The same plan as the DuckDB engine (`betweencut.engines.duckdb`), written with Spark's column
functions: each record becomes its leaf code of the sparse `Encoding` (NULL if malformed, -1 if
null), the leaves are grouped, and each depth is grouped from the depth below; only the
candidates (count > floor(a - R), `betweencut.engines.common`) are collected to the driver. A
malformed record is found again and explained by the text reader's parser.

`master` is the cluster's master URL (`spark://host:7077`, `yarn`, `k8s://...`); by default
`local[*]`, or the session already running in this process.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from betweencut.engines.common import (
    WHITESPACE,
    Candidates,
    EngineResult,
    Source,
    SourceRecordError,
    TreeCodec,
    candidate_cut,
    classify_candidates,
    csv_rows,
    explain,
    null_record,
    require,
)
from betweencut.engines.sources import spark_frame, spark_name
from betweencut.errors import ParameterError
from betweencut.noisy_test import NoisyTest
from betweencut.params import Params

INTEGER_TYPES = {"ByteType", "ShortType", "IntegerType", "LongType"}


def session(master: str | None = None) -> Any:
    """The running SparkSession, or a new one (`master`, default `local[*]`, UI off)."""
    require("pyspark", "spark", "spark")
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None and master is None:
        return active
    builder = SparkSession.builder.appName("betweencut").master(master or "local[*]")
    builder = builder.config("spark.ui.enabled", "false")
    builder = builder.config("spark.ui.showConsoleProgress", "false")
    builder = builder.config("spark.sql.shuffle.partitions", "4" if master is None else "200")
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def read(spark: Any, source: Source) -> Any:
    """The files as named, in the one CSV dialect (`betweencut.engines.sources.spark_frame`)."""
    if source.format not in ("parquet", "csv"):
        raise ParameterError("engine", "spark", "CSV or Parquet input (text files: --engine "
                             "memory)")
    return spark_frame(spark, source.files, source.format, source.column)


def column_kind(frame: Any, source: Source, codec: TreeCodec) -> tuple[str, str]:
    """The record column and its kind (`string` or `integer`), from the schema alone."""
    names = list(frame.columns)
    column = source.column
    if column is None:
        if len(names) != 1:
            raise ParameterError("column", None, "one of the columns: " + ", ".join(names[:20]),
                                 "--column names the record column")
        column = names[0]
    if column not in names:
        raise ParameterError("column", column, "one of the columns: " + ", ".join(names[:20]))
    kind = type(frame.schema[column].dataType).__name__
    if kind == "StringType":
        return column, "string"
    if kind in INTEGER_TYPES and not codec.tree.end_of_record:
        return column, "integer"
    raise ParameterError("column", column, "a string column (paths), or an integer column "
                         "(leaf numbers of a k-ary tree)", f"it holds {kind}")


def code_column(codec: TreeCodec, kind: str, column: str) -> Any:
    """The record's leaf code: NULL if malformed, -1 if null (as `duckdb.code_sql`)."""
    from pyspark.sql import functions as F

    h, r = codec.height, codec.radix
    rec = F.col(spark_name(column))
    if kind == "integer":
        code = F.when((rec >= 0) & (rec < F.lit(codec.leaves)), rec.cast("long"))
        return F.when(rec.isNull(), F.lit(-1).cast("long")).otherwise(code)
    ws = F.lit(WHITESPACE)
    parts = F.split(F.trim(F.trim(rec, ws), F.lit("/")), "/")
    names = F.array(*[F.lit(n) for n in codec.names])

    def digit(x: Any) -> Any:
        position = F.array_position(names, F.trim(x, ws))
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
) -> EngineResult:
    """The Heavy set of `source`: Spark counts, the exact stage labels. Requires `tau >= E`."""
    start = time.perf_counter()
    cut = candidate_cut(params)
    spark = session(master)
    from pyspark.sql import functions as F

    frame = read(spark, source)
    column, kind = column_kind(frame, source, codec)
    r = codec.radix
    grouped = frame.select(code_column(codec, kind, column).alias("code")) \
        .groupBy("code").agg(F.count(F.lit(1)).alias("c")).persist()
    stats = grouped.agg(
        F.coalesce(F.sum(F.when(F.col("code").isNull(), F.col("c"))), F.lit(0)).alias("bad"),
        F.coalesce(F.sum(F.when(F.col("code") == -1, F.col("c"))), F.lit(0)).alias("null"),
        F.coalesce(F.sum(F.when(F.col("code") >= 0, F.col("c"))), F.lit(0)).alias("valid"),
    ).collect()[0]
    if stats["bad"] or (stats["null"] and not source.skip_null):
        grouped.unpersist()
        _raise_first_bad(spark, frame, source, codec, kind, column)
    # every depth's prefix of every distinct leaf, grouped once (one job: the per-depth chain of
    # the DuckDB engine costs one Spark job a depth)
    h = codec.height
    powers = ", ".join(f"{r ** i}L" for i in range(h))  # r^(h-1-depth) = powers[h - depth]
    prefixes = grouped.filter(F.col("code") >= 0).select(
        F.explode(F.sequence(F.lit(0), F.lit(h - 1))).alias("depth"), "code", "c",
    ).select("depth", F.expr(f"code div element_at(array({powers}), {h} - depth)").alias("code"),
             "c")
    counts = prefixes.groupBy("depth", "code").agg(F.sum("c").cast("long").alias("c"))
    keep = F.col("c") > cut
    if codec.tree.end_of_record:
        keep = keep & ((F.col("depth") == 0) | (F.col("code") % r != 0))
    rows = [(int(x["depth"]), int(x["code"]), int(x["c"]))
            for x in counts.filter(keep).collect()]
    grouped.unpersist()
    counted = time.perf_counter()
    table = np.array(rows, dtype=np.int64).reshape(-1, 3)
    cands = Candidates.from_rows(codec.height, table[:, 0], table[:, 1], table[:, 2])
    kwargs = {} if max_candidates is None else {"max_candidates": max_candidates}
    run = classify_candidates(cands, codec, params, test, **kwargs)  # type: ignore[arg-type]
    done = time.perf_counter()
    return EngineResult(run.heavy, {
        "engine": "spark", "records": int(stats["valid"]),
        "null_records_skipped": int(stats["null"]), "candidates": cands.size,
        "noisy_draws": run.noisy_calls, "seconds_counting": round(counted - start, 4),
        "seconds_exact_stage": round(done - counted, 4),
    })


def _raise_first_bad(spark: Any, frame: Any, source: Source, codec: TreeCodec, kind: str,
                     column: str) -> None:
    """Find the first malformed (or null) record in file order and raise its error."""
    from pyspark.sql import functions as F

    if source.format == "parquet":
        code = code_column(codec, kind, column)
        bad = code.isNull() if source.skip_null else (code.isNull() | (code == -1))
        for file in source.files:  # file order; rows within a file by their row index
            one = read(spark, Source((file,), "parquet", column, source.skip_null))
            hits = one.select(F.col("_metadata.row_index").alias("row"),
                              F.col(spark_name(column))) \
                .filter(bad).orderBy("row").limit(1).collect()
            if hits:
                number, value = int(hits[0]["row"]) + 1, hits[0][column]
                if value is None:
                    raise null_record(file, number)
                if kind == "integer":
                    codec.leaf_of_number(int(value), file, number)
                explain(codec.tree, file, number, str(value), source.skip_null)
                raise SourceRecordError(file, number, f"record {value!r} was refused by the "
                                        "engine")
    else:
        for file, number, value in csv_rows(Source(source.files, "csv", column,
                                                   source.skip_null)):
            explain(codec.tree, file, number, value, source.skip_null)
    raise SourceRecordError(source.files[0], 0, "the engine refused a record that the text "
                            "reader accepts")
