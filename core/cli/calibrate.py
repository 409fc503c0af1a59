"""`betweencut calibrate`: the numbers of Theorem 5.5 and 5.6 (parsing and printing only: the
work is `betweencut.calibrate`)."""

from __future__ import annotations

import argparse
import json

from betweencut.cli._common import add_accountant_flag, add_command, positive_int, rational
from betweencut.schemas import header
from betweencut.tree import MAX_CALIBRATION_HEIGHT


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
    data = cal.as_json()
    if args.json:
        print(json.dumps({**header("calibrate"), **data}))
        return 0
    how = "Theorem 5.5" if cal.accountant == "paper" else "tight-accountant"
    print(f"{how} calibration for h = {cal.height}, eps = {cal.epsilon}, delta = {cal.delta}")
    for key in ("L", "r0", "r"):
        print(f"  {key:<7} {data[key]}")
    for key in ("lambda", "w", "R", "E"):
        value = data[key] if isinstance(data[key], str) else f"{data[key]:.12g}"
        print(f"  {key:<7} {value:<22} = {data[key + '_exact']}")
    if cal.accountant == "tight":
        print("  lambda and R minimise E subject to the certified delta(eps) <= delta of the")
        print("  tight accountant (KOV, the GuardedBT envelope or Theorem 5.4, the smallest);")
        print("  L, r0 and r are Theorem 5.5's.")
    print("  E is the deterministic margin of Theorem 5.6: nodes with c >= tau + E are Heavy and")
    print("  nodes with c <= tau - E are Light, on every run.")
    return 0
