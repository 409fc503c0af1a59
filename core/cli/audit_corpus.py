"""`betweencut audit corpus`: exact verdicts on the SVT corpus and report-noisy-max (issue 16).

One row per algorithm: its claimed ε, whether the claim holds on every neighbouring pair audited
(`|D| <= --size`, every added record `z ∈ {0, 1, 2}^m`, moving query `i` by `z_i - 1`), the
literature's verdict and whether the exact one agrees; a refuted row names the pair, the event
and the exact `P` and `Q`, and a row private at no ε its event with `Q = 0 < P` or its family of
growing loss. Exit 0 when every
exact verdict agrees with the literature's (including the refutations it predicts), 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from betweencut.cli._common import EXIT_OK, EXIT_REFUTED, add_command, positive_int


def add_parser(groups: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = add_command(
        groups, "corpus",
        "Exact verdicts on the sparse-vector corpus (Lyu, Su, Li 2017) and report-noisy-max.",
        "betweencut audit corpus --json\n  betweencut audit corpus --name svt-alg4 --size 1",
    )
    p.add_argument("--size", type=positive_int("size", 0), default=0, metavar="N",
                   help="audit every database of at most N records (default 0)")
    p.add_argument("--name", action="append", default=[], help="only this row (repeatable)")
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.set_defaults(handler=run, group="corpus")


def run(args: argparse.Namespace) -> int:
    from betweencut.proofs.baselines.corpus import audit_corpus

    results = audit_corpus(args.size, tuple(args.name))
    rows: list[dict[str, Any]] = [r.as_json() for r in results]
    status = EXIT_OK if all(r.agrees for r in results) else EXIT_REFUTED
    if args.json:
        print(json.dumps({"rows": rows, "agrees": status == EXIT_OK, "size": args.size},
                         default=str))
        return status
    width = max(len(r["name"]) for r in rows)
    print(f"{'name':<{width}}  eps  holds  agrees  verdict (literature)")
    for r in rows:
        print(f"{r['name']:<{width}}  {r['claimed_eps']:<3}  {r['holds']!s:<5}  "
              f"{r['agrees']!s:<6}  {r['verdict']} ({r['literature']})")
        shown = r.get("infinite_loss") or r.get("counterexample")
        if shown:
            keys = [k for k in shown if k.startswith(("D", "event", "P_"))]
            moved = shown.get("moves") or r.get("moves")
            print(f"    moves {moved}: " + ", ".join(f"{k} = {shown[k]}" for k in keys))
        for member in r.get("loss_family", {}).get("members", []):
            print(f"    t = {member['t']}: moves {member['moves']}, event {member['event']}, "
                  f"loss in {member['loss_approx']}")
    print(f"{sum(r['agrees'] for r in rows)} of {len(rows)} rows agree with the literature")
    return status
