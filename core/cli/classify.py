"""`betweencut classify`: the private Heavy set of a public tree, released by the exact sampler."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from betweencut.betweencut import DENSE_NODE_LIMIT, between_cut
from betweencut.cli._accountant import add_accountant_flag, calibrate_with
from betweencut.cli._common import UsageError, add_command, positive_int, rational
from betweencut.datasets import UNICODE_HEIGHT, unicode_leaves, unicode_tree
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
    add_accountant_flag(p)
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
    if args.alphabet is not None:
        tree = prefix_tree([s.strip() for s in args.alphabet.split(",") if s.strip()], args.height)
    else:
        tree = kary_tree(args.arity or 2, args.height)
    if args.input == "-":
        return tree, parse_records(sys.stdin, tree)
    with open(args.input, encoding="utf-8") as handle:
        return tree, parse_records(handle, tree)


def run(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    tree, leaves = _public_tree(args)
    cal = calibrate_with(args.accountant, tree.height, args.epsilon, args.delta)
    params = cal.params(args.tau)
    test = ExactSampler(args.seed)
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
    seconds = time.perf_counter() - start
    names = [tree.name(u) for u in sorted(heavy, key=lambda u: (len(u), u))]
    data: dict[str, Any] = {
        "heavy": names, "records": len(leaves), "tree": tree.description,
        "tau": str(params.tau), "implementation": implementation,
        "calibration": cal.as_json(), "E": cal.E.approx(), "E_exact": cal.E.exact_str(),
        "noisy_draws": test.draws, "seeded": test.seeded, "seconds": round(seconds, 4),
    }
    if args.json:
        print(json.dumps(data))
        return 0
    print(f"tree: {tree.description}; records: {len(leaves)}; implementation: {implementation}")
    print(f"calibration ({cal.accountant} accountant): L = {cal.L}, r = {cal.r}, "
          f"lambda = {cal.lam}, w = {cal.w}, R = {cal.R.exact_str()} ~ {cal.R.approx():.6g}")
    print(f"margin E = {cal.E.exact_str()} ~ {cal.E.approx():.6g} (Theorem 5.6): every node with "
          f"count >= tau + E is Heavy, every node with count <= tau - E is Light")
    print(f"Heavy nodes ({len(names)}):")
    for name in names:
        print(f"  {name}")
    print(f"{test.draws} noisy draws{' (seeded: not for release)' if test.seeded else ''}; "
          f"{seconds:.3f} s")
    return 0
