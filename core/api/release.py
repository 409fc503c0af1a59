"""`calibrate` and `classify`: one private release, whatever counts the records (issue 22).

Every engine runs the same public checks (`betweencut.mechanism.classifier.plan`, before any record
is read), the same calibration (the accountant named) and returns the same `Classification`; the
memory engine counts in Python, DuckDB and Spark count at scale and hand the candidates to the
same exact stage.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from betweencut.errors import ParameterError
from betweencut.mechanism.calibration import AccountantKind, Calibration
from betweencut.mechanism.classifier import Classification, Diagnostics, Progress, plan
from betweencut.mechanism.classifier import classify as classify_leaves


def calibrate(height: object, epsilon: object, delta: object,
              accountant: str | AccountantKind = AccountantKind.PAPER) -> Calibration:
    """The calibration of `(h, ε, δ)`: Theorem 5.5's ("paper", the default) or the tight
    accountant's ("tight": the smallest margin `E` whose certified `δ(ε) <= δ`, never above
    Theorem 5.5's). `ParameterError` names what is out of range."""
    from betweencut.proofs.privacy.accountants import Chosen

    return Chosen.of(accountant).calibrate(height, epsilon, delta)


def classify(
    tree: object,
    source: Iterable[object] | str | os.PathLike[str] | None = None,
    *,
    tau: object,
    epsilon: object,
    delta: object,
    engine: str | None = None,
    accountant: str | AccountantKind = AccountantKind.PAPER,
    column: str | None = None,
    skip_null: bool = False,
    spark_master: str | None = None,
    seed: int | None = None,
    progress: Progress | None = None,
    glob: bool = False,
    max_candidates: int | None = None,
    engine_log: bool = False,
    field: Sequence[str] = (),
) -> Classification:
    """The Heavy set of `tree` for the records of `source`, `(ε, δ)`-DP (Theorem 5.5, or the
    tight accountant's certified bound) with the deterministic margin `E` (Theorem 5.6).

    `source`: the records as leaves of `tree` (an iterable), or a path to read (a text file,
    one record a line; a CSV or Parquet file with `column`; a directory; a glob), or None for
    the embedded Unicode dataset (its own tree: pass `betweencut.data.datasets.unicode_tree()`).
    `engine`: "memory" (Python), "duckdb" or "spark" (counting at scale; the `duckdb` and
    `spark` extras); default memory for records and text, duckdb for CSV and Parquet.
    A path is read as named (a file, or a directory's files in a stated public order); with
    `glob=True` it is a pattern (`betweencut.engines.sources`).
    `seed` makes a run reproducible and must not be used for a release.
    `max_candidates` (duckdb, spark): the candidate nodes the exact stage holds in memory, the
    rest on disk (a public budget: the same release either way, `betweencut.engines.candidates`);
    `engine_log` (spark): let Spark's Java log reach stderr.
    `field` (duckdb, spark, Parquet): the records are this path of fields into the struct
    `column` (`column` itself is always the column of that exact name, dots and all;
    `betweencut.engines.sources.record_column`).
    Raises `ParameterError` (a public parameter, before any record is read), `RecordError`
    (a record that does not fit the public tree, naming its line or row).
    """
    from betweencut.proofs.privacy.accountants import Chosen

    by = Chosen.of(accountant)  # the accountant's name read once, on this route
    t, _, _, _ = plan(tree, tau, epsilon, delta)  # every public check before reading records
    cal = by.calibrate(t.height, epsilon, delta)
    if source is None or not isinstance(source, str | os.PathLike):
        if engine not in (None, "memory") or column is not None or field:
            raise ParameterError("engine", engine, "memory for records given in Python (duckdb "
                                 "and spark read CSV or Parquet files; column goes with them)")
        if source is None:
            from betweencut.data.datasets import unicode_leaves

            source = unicode_leaves(t)
        return classify_leaves(t, source, tau=tau, epsilon=epsilon, delta=delta, seed=seed,
                               progress=progress, calibration=cal)
    from betweencut.engines.common import Source
    from betweencut.engines.select import choose_engine

    files = Source.of(str(Path(source)), column, skip_null=skip_null, pattern=glob,
                      field=field)
    chosen = choose_engine(engine, files, spark_master)
    if chosen == "memory":
        if max_candidates is not None or engine_log:
            raise ParameterError("engine", chosen, "duckdb or spark with max_candidates or "
                                 "engine_log (the memory engine has neither)")
        return _memory(t, files, tau, epsilon, delta, cal, seed, progress)
    return _engine(chosen, t, files, tau, cal, seed, spark_master, progress,
                   max_candidates=max_candidates, engine_log=engine_log)


def _memory(tree: Any, files: Any, tau: object, epsilon: object, delta: object,
            cal: Calibration, seed: int | None, progress: Progress | None) -> Classification:
    from dataclasses import replace

    from betweencut.data.records import parse_records
    from betweencut.data.validate import text_lines
    from betweencut.engines.memory import read_leaves

    if progress is not None:
        progress("reading the records")
    facts: dict[str, object] = {}
    if files.format == "text" and len(files.files) == 1:  # one file: the bounded line reader
        with open(files.files[0], "rb") as handle:
            leaves = parse_records(text_lines(handle, files.files[0]), tree)
    else:
        leaves, facts = read_leaves(files, tree)
    result = classify_leaves(tree, leaves, tau=tau, epsilon=epsilon, delta=delta, seed=seed,
                             progress=progress, calibration=cal)
    skipped = facts.get("null_records_skipped", 0)
    if skipped:
        more = {"null_records_skipped": skipped}
        result = replace(result, diagnostics=replace(result.diagnostics, more=more))
    return result


def _engine(engine: str, tree: Any, files: Any, tau: object, cal: Calibration,
            seed: int | None, spark_master: str | None, progress: Progress | None, *,
            max_candidates: int | None = None, engine_log: bool = False) -> Classification:
    """A counting engine's run: the engine counts, the exact stage labels the candidates."""
    from betweencut.engines.select import classify_source
    from betweencut.noise.bt_sampler import ExactSampler

    start = time.perf_counter()
    params = cal.params(tau)
    test = ExactSampler(seed)
    if progress is not None:
        progress(f"counting with {engine}")
    result = classify_source(engine, files, tree, params, test, spark_master=spark_master,
                             max_candidates=max_candidates, progress=progress,
                             engine_log=engine_log)
    facts = dict(result.diagnostics)
    records = facts.pop("records", 0)
    facts.pop("noisy_draws", None)
    diagnostics = Diagnostics(int(records), test.draws,  # type: ignore[call-overload]
                              time.perf_counter() - start, facts)
    return Classification(tree, result.heavy, cal, params,
                          f"{engine} counts, sparse (Appendix D) on the candidates",
                          test.seeded, diagnostics, cal.accountant)
