"""`betweencut classify`: the private Heavy set of a public tree, released by the exact sampler."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from betweencut.cli._common import (
    StatusLine,
    UsageError,
    add_accountant_flag,
    add_command,
    positive_int,
    rational,
)
from betweencut.cli.release import TERMS, print_diagnostics, print_release
from betweencut.data.datasets import UNICODE_HEIGHT, unicode_tree
from betweencut.data.records import parse_records
from betweencut.data.tree import MAX_ARITY, MAX_RUN_HEIGHT, PublicTree, kary_tree, prefix_tree
from betweencut.numbers.exact_text import MAX_NUMBER_TEXT


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
                   help="a file read as named (one record per line, a/b/c paths or 0/1/1 leaf "
                        "indices; or CSV, Parquet), a directory (its .txt, .csv, .parquet files "
                        "not starting with . or _, sorted by name), or - for stdin; omitted: "
                        "the embedded Unicode dataset. CSV: UTF-8, a header line naming the "
                        "columns exactly, comma-separated, fields quoted with \" (doubled "
                        "inside), one line per row of as many fields as the header, lines of "
                        "at most 65,536 bytes, no blank lines; an empty field is a null record")
    p.add_argument("--glob", action="store_true",
                   help="INPUT is a glob pattern (*, ?, [...]) naming the files to read; "
                        "without it INPUT is a path, whatever characters it holds")
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
                   help="the record column of a CSV or Parquet INPUT, named exactly (a.b is "
                        "the column named a.b, never a struct's field): a path a/b/c or leaf "
                        "indices 0/1/1; an integer column: leaf numbers of a k-ary tree")
    p.add_argument("--field", action="append", metavar="NAME",
                   help="with --column S of a Parquet INPUT (--engine duckdb or spark): the "
                        "records are the field NAME of the struct column S, named exactly; "
                        "repeat it for a path into nested structs (--column s --field b "
                        "--field c reads s's field b's field c)")
    p.add_argument("--skip-null", action="store_true",
                   help="skip null records (counted under --diagnostics) instead of refusing them")
    p.add_argument("--spark-master", metavar="URL",
                   help="with --engine spark: the cluster's master URL (default local[*])")
    p.add_argument("--max-candidates", metavar="N", type=positive_int("max-candidates", 0),
                   help="with --engine duckdb|spark: candidate nodes held in memory (default "
                        "50,000,000, about 25 bytes each); beyond them the exact stage reads "
                        "them from disk: slower, the same release, never a refusal")
    add_accountant_flag(p)
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.add_argument("--diagnostics", action="store_true",
                   help="also print the record count, noisy draws and time on stderr: NOT "
                        "differentially private, for the data holder only")
    p.add_argument("--progress", action="store_true",
                   help="progress on stderr, one line a stage or level, even when it is not a "
                        "terminal (public facts only; the elapsed time only with --diagnostics)")
    p.add_argument("--debug", action="store_true",
                   help="on an input error, also print the message of the library that "
                        "raised it (DuckDB, Spark, the csv module, the operating system); "
                        "with --engine spark, let Spark's own (Java) log reach stderr at WARN "
                        "(without --debug stderr holds only betweencut's lines)")
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


def run(args: argparse.Namespace) -> int:
    from betweencut.api import classify
    from betweencut.data.validate import text_lines
    from betweencut.mechanism.classifier import plan

    tree = _public_tree(args)
    if args.input in (None, "-") and (args.column is not None or args.field
                                      or args.engine not in (None, "memory")):
        raise UsageError("--column, --field and --engine duckdb|spark go with a CSV or Parquet "
                         "INPUT")
    if args.input in (None, "-") and args.glob:
        raise UsageError("--glob goes with an INPUT pattern")
    status = StatusLine("classify", force=args.progress, elapsed=args.diagnostics)
    source: Any = args.input
    if args.input == "-":
        plan(tree, args.tau, args.epsilon, args.delta)  # every public check before reading
        source = parse_records(text_lines(sys.stdin.buffer, "stdin"), tree)
    try:
        result = classify(tree, source, tau=args.tau, epsilon=args.epsilon, delta=args.delta,
                          engine=args.engine, accountant=args.accountant, column=args.column,
                          skip_null=args.skip_null, spark_master=args.spark_master,
                          seed=args.seed, progress=status, glob=args.glob,
                          max_candidates=args.max_candidates, field=args.field or (),
                          engine_log=args.debug and args.engine == "spark")
    finally:
        status.close()
    print_release(result, args.json, sys.stdout)
    if args.diagnostics:
        sys.stdout.flush()
        print_diagnostics(result, args.json, sys.stderr)
    return 0
