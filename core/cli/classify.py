"""`betweencut classify`: the private Heavy set of a public tree, released by the exact sampler."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from betweencut.betweencut import DENSE_NODE_LIMIT, between_cut
from betweencut.calibration import Calibration, calibrate
from betweencut.cli._common import UsageError, add_command, positive_int, rational
from betweencut.datasets import UNICODE_HEIGHT, unicode_leaves, unicode_tree
from betweencut.engines.common import Source
from betweencut.engines.memory import read_leaves
from betweencut.engines.select import choose_engine, classify_source
from betweencut.params import Params
from betweencut.records import parse_records
from betweencut.sampler import ExactSampler
from betweencut.sparse import sparse_between_cut
from betweencut.tree import Node, PublicTree, kary_tree, prefix_tree


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = add_command(
        sub, "classify",
        "Classify the nodes of a public tree as Heavy or Light with (eps, delta)-DP "
        "(Alg. 3, calibrated by Theorem 5.5).",
        "betweencut classify records.txt --height 4 --tau 25 --epsilon 1 --delta 0.05\n"
        "  betweencut classify --tau 30 --epsilon 1 --delta 0.05   (embedded Unicode dataset)",
    )
    p.add_argument("input", nargs="?", metavar="INPUT",
                   help="one record per line (a/b/c paths or 0/1/1 leaf indices; - for stdin); "
                        "omitted: the embedded Unicode dataset")
    p.add_argument("--tau", type=rational("tau"), required=True, help="public threshold tau >= 0")
    p.add_argument("--epsilon", type=rational("epsilon"), required=True, help="0 < eps <= 1")
    p.add_argument("--delta", type=rational("delta"), required=True, help="0 < delta < 1/10")
    p.add_argument("--height", type=positive_int("height"),
                   help="public tree height h (required with INPUT: never read off the data)")
    tree = p.add_mutually_exclusive_group()
    tree.add_argument("--arity", type=positive_int("arity"),
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
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.add_argument("--seed", type=int,
                   help="seed the sampler for a reproducible run (not for release: the default "
                        "draws from the operating system's CSPRNG)")
    p.set_defaults(handler=run)


def _public_tree(args: argparse.Namespace) -> tuple[PublicTree, list[Node]]:
    if args.input is None:
        if args.height not in (None, UNICODE_HEIGHT) or args.arity or args.alphabet:
            raise UsageError(
                "the embedded dataset has its own public tree (height 5); "
                "--height, --arity and --alphabet go with INPUT"
            )
        tree = unicode_tree()
        return tree, unicode_leaves(tree)
    if args.height is None:
        raise UsageError(
            "--height is required with INPUT: the tree height is public and is never derived "
            "from the records (that would leak)"
        )
    tree = _stated_tree(args)
    if args.input == "-":
        return tree, parse_records(sys.stdin, tree)
    source = _source(args)
    if source is None:  # pragma: no cover - handled above
        raise UsageError("INPUT is required here")
    leaves, diagnostics = read_leaves(source, tree)
    if getattr(args, "diagnostics", False):
        print(f"diagnostics: {json.dumps(diagnostics)}", file=sys.stderr)
    return tree, leaves


def _stated_tree(args: argparse.Namespace) -> PublicTree:
    if args.alphabet is not None:
        return prefix_tree([s.strip() for s in args.alphabet.split(",") if s.strip()],
                           args.height)
    return kary_tree(args.arity or 2, args.height)


def _source(args: argparse.Namespace) -> Source | None:
    if args.input in (None, "-"):
        if args.column is not None or args.engine not in (None, "memory"):
            raise UsageError("--column and --engine duckdb|spark go with a CSV or Parquet INPUT")
        return None
    return Source.of(args.input, args.column, skip_null=args.skip_null)


def _engine_heavy(args: argparse.Namespace, engine: str, test: ExactSampler
                  ) -> tuple[PublicTree, frozenset[Node], int, Calibration]:
    """A counting engine's run (issue 14): the tree, Heavy set, records, calibration."""
    source = _source(args)
    if source is None or args.height is None:
        raise UsageError("--height is required with INPUT: the tree height is public and is "
                         "never derived from the records (that would leak)")
    tree = _stated_tree(args)
    cal = calibrate(tree.height, args.epsilon, args.delta)
    result = classify_source(engine, source, tree, cal.params(args.tau), test,
                             spark_master=args.spark_master)
    if getattr(args, "diagnostics", False):
        print(f"diagnostics: {json.dumps(result.diagnostics)}", file=sys.stderr)
    return tree, result.heavy, int(str(result.diagnostics["records"])), cal


def _memory_heavy(tree: PublicTree, leaves: list[Node], params: Params, cal: Calibration,
                  test: ExactSampler) -> tuple[str, frozenset[Node]]:
    if cal.E.compare(params.tau) <= 0:
        implementation = "sparse (Appendix D, tau >= E)"
        heavy = sparse_between_cut(tree, leaves, params, test).heavy
    else:
        if tree.size(limit=DENSE_NODE_LIMIT) > DENSE_NODE_LIMIT:
            raise UsageError(
                f"tau = {params.tau} < E = {cal.E.approx():.6g}, so only the dense algorithm "
                f"applies, and this public tree has more than {DENSE_NODE_LIMIT} nodes: raise "
                "--tau to at least E (sparse) or use a smaller public tree"
            )
        implementation = "dense (Alg. 3, tau < E)"
        heavy = between_cut(tree, leaves, params, test).heavy
    return implementation, frozenset(heavy)


def run(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    test = ExactSampler(args.seed)
    engine = choose_engine(args.engine, _source(args), args.spark_master)
    if engine != "memory":
        tree, heavy, records, cal = _engine_heavy(args, engine, test)
        params = cal.params(args.tau)
        implementation = f"{engine} counts, sparse (Appendix D) on the candidates"
    else:
        tree, leaves = _public_tree(args)
        cal = calibrate(tree.height, args.epsilon, args.delta)
        params = cal.params(args.tau)
        records = len(leaves)
        implementation, heavy = _memory_heavy(tree, leaves, params, cal, test)
    seconds = time.perf_counter() - start
    names = [tree.name(u) for u in sorted(heavy, key=lambda u: (len(u), u))]
    data: dict[str, Any] = {
        "heavy": names, "records": records, "tree": tree.description,
        "tau": str(params.tau), "implementation": implementation,
        "calibration": cal.as_json(), "E": cal.E.approx(), "E_exact": cal.E.exact_str(),
        "noisy_draws": test.draws, "seeded": test.seeded, "seconds": round(seconds, 4),
    }
    if args.json:
        print(json.dumps(data))
        return 0
    print(f"tree: {tree.description}; records: {records}; implementation: {implementation}")
    print(f"calibration (Theorem 5.5): L = {cal.L}, r = {cal.r}, lambda = {cal.lam}, "
          f"w = {cal.w}, R = {cal.R.exact_str()} ~ {cal.R.approx():.6g}")
    print(f"margin E = {cal.E.exact_str()} ~ {cal.E.approx():.6g} (Theorem 5.6): every node with "
          f"count >= tau + E is Heavy, every node with count <= tau - E is Light")
    print(f"Heavy nodes ({len(names)}):")
    for name in names:
        print(f"  {name}")
    print(f"{test.draws} noisy draws{' (seeded: not for release)' if test.seeded else ''}; "
          f"{seconds:.3f} s")
    return 0
