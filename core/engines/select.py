"""Which engine reads an input, and one entry point that runs the counting engines."""

from __future__ import annotations

from importlib.util import find_spec

from betweencut.data.tree import PublicTree
from betweencut.engines.candidates import check_max_candidates
from betweencut.engines.common import ENGINES, EngineResult, Progress, Source, TreeCodec
from betweencut.engines.sources import reading
from betweencut.errors import MissingExtra, ParameterError
from betweencut.mechanism.params import Params
from betweencut.noise.noisy_test import NoisyTest


def choose_engine(engine: str | None, source: Source | None,
                  spark_master: str | None = None) -> str:
    """`engine` if it can read `source`, else the default: memory for text (and the embedded
    dataset or stdin, `source` None), duckdb for CSV and Parquet. Checked before any record is
    read."""
    if engine is not None and engine not in ENGINES:
        raise ParameterError("engine", engine, ", ".join(ENGINES))
    kind = "text" if source is None else source.format
    chosen = engine or ("memory" if kind == "text" else "duckdb")
    if chosen == "memory" and source is not None and source.field:
        raise ParameterError("field", source.field[0], "with --engine duckdb or spark (the "
                             "memory engine reads no struct column: Parquet is read by duckdb "
                             "or spark)")
    if chosen == "memory" and kind == "parquet":
        raise ParameterError("engine", chosen, "duckdb or spark for Parquet input")
    if chosen != "memory" and kind == "text":
        raise ParameterError("engine", chosen, "memory for text input (one record a line); "
                             "duckdb and spark read CSV or Parquet files")
    if engine is None and chosen == "duckdb" and kind == "csv" and find_spec("duckdb") is None:
        raise MissingExtra("duckdb", "reading a CSV file with the default engine (DuckDB)",
                           "or --engine memory (engine='memory') reads it in Python")
    if spark_master is not None and chosen != "spark":
        raise ParameterError("spark-master", spark_master, "only with --engine spark")
    return chosen


def classify_source(
    engine: str,
    source: Source,
    tree: PublicTree,
    params: Params,
    test: NoisyTest | None = None,
    *,
    spark_master: str | None = None,
    max_candidates: int | None = None,
    progress: Progress | None = None,
    engine_log: bool = False,
) -> EngineResult:
    """The Heavy set of `source` through a counting engine (`duckdb` or `spark`).

    `max_candidates` (default `DEFAULT_MAX_CANDIDATES`) is how many candidate nodes the exact
    stage holds in memory; beyond it they are kept on disk: a public budget that changes the
    time and memory of a run, never whether it releases (`betweencut.engines.candidates`).
    `progress(message)` hears the stages and depths, public facts only. `engine_log` lets the
    engine's own log (Spark's Java logging, at WARN) reach stderr; by default it is silenced."""
    max_candidates = check_max_candidates(max_candidates)
    codec = TreeCodec.of(tree)
    with reading(source.files, engine):  # a dependency's error, in the package's words
        if engine == "duckdb":
            from betweencut.engines import duckdb

            return duckdb.classify(source, codec, params, test, max_candidates=max_candidates,
                                   progress=progress)
        if engine == "spark":
            from betweencut.engines import spark

            return spark.classify(source, codec, params, test, master=spark_master,
                                  max_candidates=max_candidates, progress=progress,
                                  log=engine_log)
    raise ParameterError("engine", engine, "duckdb or spark (memory reads with read_leaves)")
