"""`betweencut audit corpus`: exact verdicts on the SVT corpus and report-noisy-max (issue 16).

One row per algorithm: its claimed ε, whether the claim holds on every neighbouring pair audited
(`|D| <= --size`, every added record `z ∈ {0, 1, 2}^m`, moving query `i` by `z_i - 1`), the
literature's verdict and whether the exact one agrees; a refuted row names the pair, the event
and the exact `P` and `Q`, and a row private at no ε its event with `Q = 0 < P` or its family of
growing loss. Exit 0 when every exact verdict agrees with the literature's (including the
refutations it predicts), 1 otherwise. `--mechanism MODULE:CALLABLE` audits your own
`run(q, test)` on the same pairs instead (exit 0 when its claimed ε holds on every pair audited,
1 when refuted).
"""

from __future__ import annotations

import argparse
import importlib
import json
from fractions import Fraction
from typing import Any

from betweencut.cli._common import (
    EXIT_OK,
    EXIT_REFUTED,
    UsageError,
    add_command,
    positive_int,
    rational,
)
from betweencut.errors import BetweenCutError


def add_parser(groups: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = add_command(
        groups, "corpus",
        "Exact verdicts on the sparse-vector corpus (Lyu, Su, Li 2017) and report-noisy-max.",
        "betweencut audit corpus --json\n  betweencut audit corpus --name svt-alg4 --size 1",
    )
    p.add_argument("--size", type=positive_int("size", 0), default=0, metavar="N",
                   help="audit every database of at most N records (default 0)")
    p.add_argument("--name", action="append", default=[], help="only this row (repeatable)")
    p.add_argument("--mechanism", metavar="MODULE:CALLABLE",
                   help="audit your own run(q, test) instead (q: the m query answers)")
    p.add_argument("--queries", type=positive_int("queries"), metavar="M",
                   help="with --mechanism: the number m of queries (default 2)")
    p.add_argument("--epsilon", type=rational("epsilon"),
                   help="with --mechanism: the claimed epsilon (default 1)")
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.set_defaults(handler=run, group="corpus")


def load(spec: str) -> Any:
    """`MODULE:CALLABLE` -> the callable (a bad name is a usage error, exit 2)."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise UsageError(f"--mechanism {spec!r}: expected MODULE:CALLABLE")
    try:
        found = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise UsageError(f"--mechanism {spec!r}: {exc}") from None
    if not callable(found):
        raise UsageError(f"--mechanism {spec!r} is not callable")
    return found


def run(args: argparse.Namespace) -> int:
    from betweencut.proofs.baselines.corpus import audit_corpus, audit_row, user_row

    if not args.mechanism:
        given = [f for f, v in (("--epsilon", args.epsilon), ("--queries", args.queries))
                 if v is not None]
        if given:  # every row is audited at its own claimed eps: the flag would be ignored
            raise UsageError(f"{', '.join(given)} go with --mechanism (the corpus rows are "
                             "audited at their own claimed epsilon)")
    if args.mechanism:
        queries = 2 if args.queries is None else args.queries
        eps = Fraction(1) if args.epsilon is None else args.epsilon
        row = user_row(args.mechanism, load(args.mechanism), queries, eps)
        try:
            results = [audit_row(row, args.size)]
        except BetweenCutError:
            raise
        except Exception as exc:  # the user's code failed: one line, exit 2, no traceback
            raise UsageError(f"--mechanism {args.mechanism}: {type(exc).__name__}: {exc}"
                             ) from None
    else:
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
        if "epsilon_at_delta_0" in r:
            print(f"    smallest eps at delta = 0 on this pair: {r['epsilon_at_delta_0']}")
    if args.mechanism:
        print("the claim holds on every pair audited" if status == EXIT_OK else "claim refuted")
    else:
        print(f"{sum(r['agrees'] for r in rows)} of {len(rows)} rows agree with the literature")
    return status
