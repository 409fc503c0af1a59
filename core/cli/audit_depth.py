"""`betweencut audit depth`: exact privacy profiles of deep trees by path grouping (issue 13).

Parsing and printing only: the work is `betweencut.audit_depth`. For the public height `H` (any
integer up to 2^64 - 1, any arity: only the added record's path matters) and public parameters,
it decides for each audited neighbouring pair and each `r = 1..L` the exact `δ(rλ)` of the full
transcript (or, `--on heavy`, of the released Heavy set) against the chosen accountant's bound.
Without `--count`: the single-leaf family, two-segment profiles and a search over profiles;
with `--count C`: the pair `C` vs `C + 1`. With `--json` every row is written as it is decided
(its exact `delta_exact` included), then the verdict's other keys.
Exit 0 all hold, 1 refuted, 2 bad usage, 3 undecided.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from betweencut.boundary.seal import sealing
from betweencut.cli._common import (
    add_accountant_flag,
    add_command,
    add_run_flags,
    positive_int,
    rational,
    report_time,
    tracker_of,
)
from betweencut.progress import tracking

MAX_HEIGHT = (1 << 64) - 1


def add_parser(groups: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = add_command(
        groups, "depth",
        "Exact privacy profiles at any height (path grouping): single-leaf pairs C vs C + 1.",
        "betweencut audit depth --height 7 --lam 0.5 --R 2 --tau 4 --count 2 --json",
    )
    p.add_argument("--height", type=positive_int("height", 1, MAX_HEIGHT, "2^64 - 1"),
                   required=True, help="public tree height h (1 <= h <= 2^64 - 1)")
    p.add_argument("--lam", type=rational("lam"), help="lambda (0 < lambda <= 1)")
    p.add_argument("--R", type=rational("R"), dest="R", help="guard width R >= 1")
    p.add_argument("--epsilon", type=rational("epsilon"), help="calibrate (Theorem 5.5) to eps")
    p.add_argument("--delta", type=rational("delta"), help="... and delta")
    p.add_argument("--tau", type=rational("tau"), required=True,
                   help="public threshold tau >= E")
    p.add_argument("--count", type=positive_int("count", 0), metavar="C",
                   help="only the pair: C records on one leaf vs C + 1")
    add_accountant_flag(p)
    p.add_argument("--on", choices=("transcript", "heavy"), default="transcript",
                   help="what is released: the full transcript (default) or the Heavy set "
                        "(its delta is at most the transcript's: post-processing)")
    p.add_argument("--search", type=positive_int("search", 0, 10**6), default=20, metavar="N",
                   help="Hypothesis examples of the profile search (family mode; 0 = none)")
    p.add_argument("--json", action="store_true", help="one JSON object")
    add_run_flags(p)
    p.set_defaults(handler=run, group="depth")


@sealing
def run(args: argparse.Namespace) -> int:
    from betweencut.api import audit_depth
    from betweencut.proofs.verdict import StreamedVerdict

    # --json streams the rows, one pair at a time: their exact values are most of the output
    # (tens of MB at h = 2^64 - 1); each pair's values are dropped once written
    stream = StreamedVerdict(sys.stdout.write) if args.json else None
    tracker = tracker_of(args, "audit depth")

    def bar(items: list[Any]) -> Any:
        return tracker.items(items, len(items), "profile")

    with tracking(tracker):
        verdict = audit_depth(
            args.height, tau=args.tau, lam=args.lam, R=args.R, epsilon=args.epsilon,
            delta=args.delta, on=args.on, accountant=args.accountant, count=args.count,
            search=args.search if args.count is None else 0, progress=bar,
            each=None if stream is None else stream.rows)
    from betweencut.boundary.seal import check

    check()
    if stream is None:
        print(verdict.text())
    else:
        stream.close(verdict)
    sys.stdout.flush()
    report_time(args, tracker)
    return verdict.exit_status
