"""`betweencut audit corpus`: exact verdicts on the SVT corpus and report-noisy-max (issue 16).

Parsing and printing only: the work is `betweencut.audit_corpus`. One row per algorithm: its
claimed ε, whether the claim holds on every neighbouring pair audited (`|D| <= --size`, every
added record `z ∈ {0, 1, 2}^m`, moving query `i` by `z_i - 1`), the literature's verdict and
whether the exact one agrees; a refuted row carries its counterexample. Exit 0 when every row
agrees with the literature, 1 otherwise. `--mechanism MODULE:CALLABLE` audits your own
`run(q, test)` on the same pairs instead (exit 0 when its claimed ε holds on every pair
audited, 1 when refuted). `--queries M` sets m for every row that scales, `--neighbours` the
relation (each JSON row states both, as `queries` and `claim.neighbours`); with `--progress`,
long runs print public cost estimates and progress on stderr.
"""

from __future__ import annotations

import argparse
from fractions import Fraction

from betweencut.boundary.seal import sealing
from betweencut.cli._common import (
    UsageError,
    add_command,
    add_run_flags,
    add_strict_flag,
    positive_int,
    print_verdict,
    rational,
    report_time,
    tracker_of,
)
from betweencut.progress import tracking


def add_parser(groups: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = add_command(
        groups, "corpus",
        "Exact verdicts on the sparse-vector corpus (Lyu, Su, Li 2017) and report-noisy-max.",
        "betweencut audit corpus --json\n  betweencut audit corpus --name svt-alg4 --size 1\n"
        "  betweencut audit corpus --published",
    )
    p.add_argument("--size", type=positive_int("size", 0, 64), default=0, metavar="N",
                   help="audit every database of at most N records (default 0)")
    p.add_argument("--name", action="append", default=[], help="only this row (repeatable)")
    p.add_argument("--mechanism", metavar="MODULE:CALLABLE",
                   help="audit your own run(q, test) instead (q: the m query answers)")
    add_strict_flag(p)
    p.add_argument("--queries", type=positive_int("queries", 1, 256), metavar="M",
                   help="the number m of queries of every row that scales (default: each "
                        "row's own; with --mechanism: 2); past m = 6 every input is decided "
                        "at once by the proved reduction where it applies")
    p.add_argument("--neighbours", default="add-remove", metavar="RELATION",
                   help="add-remove (default), replace-one, or add-remove-bounded:N (a public "
                        "bound N on every database's size); every row states the one it used")
    p.add_argument("--method", choices=("auto", "listing", "reduction"), default="auto",
                   help="auto (default): list every pair up to m = 6, past that the reduction; "
                        "listing; reduction (every input at once, pure claims)")
    p.add_argument("--epsilon", type=rational("epsilon"),
                   help="with --mechanism: the claimed epsilon (default 1)")
    p.add_argument("--published", action="store_true",
                   help="the published privacy bugs instead: each bug as published (refuted) "
                        "and its fix (certified), citing its report; --name picks rows, --size "
                        "sets the tree rows' databases")
    p.add_argument("--first", action="store_true",
                   help="a refuted row stops at its first refuting pair (CI); by default it "
                        "goes on over every pair and reports the worst: the largest delta at "
                        "the claim and the largest eps at delta = 0, each with its pair")
    p.add_argument("--json", action="store_true", help="one JSON object")
    add_run_flags(p)
    p.set_defaults(handler=run, group="corpus")


@sealing
def run(args: argparse.Namespace) -> int:
    from betweencut.api import audit_corpus

    if args.mechanism is None and args.epsilon is not None:
        raise UsageError("--epsilon goes with --mechanism MODULE:CALLABLE (every row is "
                         "audited at its own claimed epsilon)")
    if args.mechanism is None and args.strict:
        raise UsageError("--strict goes with --mechanism MODULE:CALLABLE (the corpus rows are "
                         "the package's own code)")
    if args.published and (args.mechanism is not None or args.queries is not None
                           or args.method != "auto" or args.neighbours != "add-remove"):
        raise UsageError("--published states each row's own pairs and claim: no --mechanism, "
                         "--queries, --method or --neighbours")

    tracker = tracker_of(args, "audit corpus")
    with tracking(tracker):  # the estimates and progress lines: shown with --progress only
        verdict = audit_corpus(
            args.size, args.name, mechanism=args.mechanism, queries=args.queries,
            epsilon=Fraction(1) if args.epsilon is None else args.epsilon,
            neighbours=args.neighbours, method=args.method, progress=tracker,
            published=args.published, strict=args.strict, first=args.first)
    status = print_verdict(verdict, args.json)
    report_time(args, tracker)
    return status
