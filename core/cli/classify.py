"""`betweencut classify`: the private Heavy set of a public tree, released by the exact sampler."""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace

from betweencut.calibration import Calibration
from betweencut.classifier import Classification, Diagnostics, classify, plan
from betweencut.cli._accountant import add_accountant_flag, calibrate_with
from betweencut.cli._common import StatusLine, UsageError, add_command, positive_int, rational
from betweencut.cli.release import TERMS, print_diagnostics, print_release
from betweencut.datasets import UNICODE_HEIGHT, unicode_leaves, unicode_tree
from betweencut.engines.common import Source
from betweencut.engines.memory import read_leaves
from betweencut.engines.select import choose_engine, classify_source
from betweencut.records import parse_records
from betweencut.sampler import ExactSampler
from betweencut.tree import MAX_ARITY, Node, PublicTree, kary_tree, prefix_tree
from betweencut.validate import MAX_NUMBER_TEXT, MAX_RUN_HEIGHT, text_lines


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = add_command(
        sub, "classify",
        "Classify the nodes of a public tree as Heavy or Light with (eps, delta)-DP for adding "
        "or removing one record (Alg. 3, calibrated by Theorem 5.5). Stdout is the release: the "
        "Heavy set and public inputs only. With probability 1 every node with count >= tau + E "
        "is Heavy and every node with count <= tau - E is Light (Theorem 5.6). Terms: "
        + "; ".join(TERMS) + ".",
        "betweencut classify records.txt --height 4 --tau 25 --epsilon 1 --delta 0.05\n"
        "  betweencut classify --tau 30 --epsilon 1 --delta 0.05   (embedded Unicode dataset)",
    )
    p.add_argument("input", nargs="?", metavar="INPUT",
                   help="one record per line (a/b/c paths or 0/1/1 leaf indices; - for stdin); "
                        "omitted: the embedded Unicode dataset")
    p.add_argument("--tau", type=rational("tau"), required=True, help="public threshold tau >= 0")
    p.add_argument("--epsilon", type=rational("epsilon"), required=True, help="0 < eps <= 1")
    p.add_argument("--delta", type=rational("delta"), required=True, help="0 < delta < 1/10")
    p.add_argument("--height", type=positive_int("height", 1, MAX_RUN_HEIGHT),
                   help="public tree height h (required with INPUT: never read off the data)")
    tree = p.add_mutually_exclusive_group()
    tree.add_argument("--arity", type=positive_int("arity", 1, MAX_ARITY),
                      help="records are leaf indices of the complete k-ary tree (default k = 2)")
    tree.add_argument("--alphabet",
                      help="records are paths over this public comma-separated alphabet; "
                           "shorter records end in an end-of-record child")
    p.add_argument("--engine", choices=["memory", "duckdb", "spark"],
                   help="who counts: memory (Python; default for text), duckdb (default for CSV "
                        "and Parquet, out of core; betweencut[duckdb]) or spark "
                        "(betweencut[spark]); duckdb and spark need tau >= E")
    p.add_argument("--column",
                   help="the record column of a CSV or Parquet INPUT (a path a/b/c or leaf "
                        "indices 0/1/1; an integer column: leaf numbers of a k-ary tree)")
    p.add_argument("--skip-null", action="store_true",
                   help="skip null records (counted under --diagnostics) instead of refusing them")
    p.add_argument("--spark-master", metavar="URL",
                   help="with --engine spark: the cluster's master URL (default local[*])")
    p.add_argument("--max-candidates", metavar="N", type=positive_int("max-candidates", 0),
                   help="with --engine duckdb|spark: candidate nodes held in memory (default "
                        "50,000,000, about 25 bytes each); beyond them the exact stage reads "
                        "them from disk: slower, the same release, never a refusal")
    p.add_argument("--engine-log", action="store_true",
                   help="with --engine spark: let Spark's own (Java) log reach stderr at WARN "
                        "(silenced by default)")
    add_accountant_flag(p)
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.add_argument("--diagnostics", action="store_true",
                   help="also print the record count, noisy draws and time on stderr: NOT "
                        "differentially private, for the data holder only")
    p.add_argument("--progress", action="store_true",
                   help="progress on stderr, one line a stage or level, even when it is not a "
                        "terminal (public facts only; the elapsed time only with --diagnostics)")
    p.add_argument("--seed", type=positive_int("seed", 0, 2**63),
                   help="seed the sampler for a reproducible run (not for release: the default "
                        "draws from the operating system's CSPRNG)")
    p.set_defaults(handler=run)


def _public_tree(args: argparse.Namespace) -> PublicTree:
    """The public tree from the flags alone (never from the records)."""
    if args.input is None:
        if args.height not in (None, UNICODE_HEIGHT) or args.arity or args.alphabet:
            raise UsageError(
                "the embedded dataset has its own public tree (height 5); "
                "--height, --arity and --alphabet go with INPUT"
            )
        return unicode_tree()
    if args.height is None:
        raise UsageError(
            "--height is required with INPUT: the tree height is public and is never derived "
            "from the records (that would leak)"
        )
    if args.alphabet is not None:
        if len(args.alphabet) > MAX_NUMBER_TEXT * 1000:
            raise UsageError(f"--alphabet is longer than {MAX_NUMBER_TEXT * 1000} characters")
        return prefix_tree([s.strip() for s in args.alphabet.split(",") if s.strip()],
                           args.height)
    return kary_tree(args.arity or 2, args.height)


def _leaves(args: argparse.Namespace, tree: PublicTree) -> tuple[list[Node], int]:
    """The records, read with a bound on line length and checked to be UTF-8 (naming the line
    and byte offset) and leaves of the public tree (naming the line), and how many null records
    `--skip-null` skipped (a diagnostic)."""
    if args.input is None:
        return unicode_leaves(tree), 0
    if args.input == "-":
        return parse_records(text_lines(sys.stdin.buffer, "stdin"), tree), 0
    source = _source(args)
    if source is not None and (source.format != "text" or len(source.files) > 1):
        leaves, diagnostics = read_leaves(source, tree)  # CSV, or a directory or glob of text
        return leaves, int(str(diagnostics["null_records_skipped"]))
    with open(args.input, "rb") as handle:
        return parse_records(text_lines(handle, args.input), tree), 0


def _source(args: argparse.Namespace) -> Source | None:
    """The input files (issue 14), checked before any record is read; None for stdin or the
    embedded dataset."""
    if args.input in (None, "-"):
        if args.column is not None or args.engine not in (None, "memory"):
            raise UsageError("--column and --engine duckdb|spark go with a CSV or Parquet INPUT")
        return None
    return Source.of(args.input, args.column, skip_null=args.skip_null)


def _engine_run(args: argparse.Namespace, engine: str, tree: PublicTree, cal: Calibration,
                status: StatusLine) -> Classification:
    """A counting engine's run: the engine counts, the exact stage labels the candidates."""
    start = time.perf_counter()
    source = _source(args)
    if source is None:  # pragma: no cover - choose_engine refuses it
        raise UsageError("--engine duckdb|spark needs a CSV or Parquet INPUT")
    params = cal.params(args.tau)
    test = ExactSampler(args.seed)
    result = classify_source(engine, source, tree, params, test,
                             spark_master=args.spark_master,
                             max_candidates=args.max_candidates, progress=status,
                             engine_log=args.engine_log)
    diagnostics = Diagnostics(int(str(result.diagnostics["records"])), test.draws,
                              time.perf_counter() - start,
                              {k: v for k, v in result.diagnostics.items()
                               if k not in ("records", "noisy_draws")})
    return Classification(tree, result.heavy, cal, params,
                          f"{engine} counts, sparse (Appendix D) on the candidates",
                          test.seeded, diagnostics, cal.accountant)


def _counted(args: argparse.Namespace, engine: str, tree: PublicTree, cal: Calibration,
             status: StatusLine) -> Classification:
    """The run itself, by the chosen engine; `status` hears its stages."""
    if engine != "memory":
        status(f"counting with {engine}")
        return _engine_run(args, engine, tree, cal, status)
    status("reading the records")
    leaves, skipped = _leaves(args, tree)
    result = classify(tree, leaves, tau=args.tau, epsilon=args.epsilon, delta=args.delta,
                      seed=args.seed, progress=status, calibration=cal)
    if skipped:
        more = {"null_records_skipped": skipped}
        result = replace(result, diagnostics=replace(result.diagnostics, more=more))
    return result


def run(args: argparse.Namespace) -> int:
    tree = _public_tree(args)
    plan(tree, args.tau, args.epsilon, args.delta)  # every public check before reading records
    cal = calibrate_with(args.accountant, tree.height, args.epsilon, args.delta)
    engine = choose_engine(args.engine, _source(args), args.spark_master)
    if args.engine_log and engine != "spark":
        raise UsageError("--engine-log goes with --engine spark")
    status = StatusLine("classify", force=args.progress, elapsed=args.diagnostics)
    try:
        result = _counted(args, engine, tree, cal, status)
    finally:
        status.close()
    print_release(result, args.json, sys.stdout)
    if args.diagnostics:
        sys.stdout.flush()
        print_diagnostics(result, args.json, sys.stderr)
    return 0
