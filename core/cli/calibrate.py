"""`betweencut calibrate`: the numbers of Theorem 5.5 and 5.6 (parsing and printing only: the
work is `betweencut.calibrate`)."""

from __future__ import annotations

import argparse
import json

from betweencut.cli._common import add_accountant_flag, add_command, positive_int, rational
from betweencut.data.tree import MAX_CALIBRATION_HEIGHT


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = add_command(
        sub, "calibrate", "Theorem 5.5/5.6: L, r0, r, lambda, w, R and the margin E.",
        "betweencut calibrate --height 15 --epsilon 1 --delta 0.05 --json",
    )
    p.add_argument("--height", type=positive_int("height", 1, MAX_CALIBRATION_HEIGHT),
                   required=True,
                   help="public tree height h >= 1")
    p.add_argument("--epsilon", type=rational("epsilon"), required=True, help="0 < eps <= 1")
    p.add_argument("--delta", type=rational("delta"), required=True, help="0 < delta < 1/10")
    add_accountant_flag(p)
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from betweencut.api import calibrate

    cal = calibrate(args.height, args.epsilon, args.delta, args.accountant)
    if args.json:
        print(json.dumps(cal.as_json()))
        return 0
    print(cal.text())
    return 0
