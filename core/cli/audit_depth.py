"""`betweencut audit depth`: exact privacy profiles of deep trees by path grouping (issue 13).

For the public height `H` (any integer up to 2^64 - 1, any arity: only the added record's path
matters) and public parameters, it prints for each audited neighbouring pair and each
`r = 1..L` the exact `δ(rλ)` of the full transcript (answer sequences on the path grouped by
probability, `betweencut.proofs.privacy.depth.transcript`) beside the chosen accountant's bound;
with
`--on heavy`, of the released Heavy set instead (`betweencut.proofs.privacy.depth.heavy`). Without
`--count`: the single-leaf family (every `C` across the band), two-segment profiles and a
Hypothesis search over profiles; with `--count C`: the pair `C` vs `C + 1` (exact values for
every row). Every row carries the exact `delta_exact` (text with one common denominator, read
exactly by sympy; grammar in `betweencut.proofs.privacy.depth.exact_values`) and the certified
`delta_in`; family rows carry the bound as a float, the exact bounds listed once per `r` under
`bounds`.
Exit 0 all hold, 1 refuted, 2 bad usage, 3 undecided.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from betweencut.calibration import path_query_bound
from betweencut.cli._accountant import calibrate_with
from betweencut.cli._common import (
    EXIT_OK,
    EXIT_REFUTED,
    UsageError,
    add_command,
    positive_int,
    progress,
    rational,
)
from betweencut.params import Params

MAX_HEIGHT = (1 << 64) - 1
ACCOUNTANTS = ("paper", "tight")
ON = ("transcript", "heavy")


def add_parser(groups: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = add_command(
        groups, "depth",
        "Exact privacy profiles at any height (path grouping): single-leaf pairs C vs C + 1.",
        "betweencut audit depth --height 7 --lam 0.5 --R 2 --tau 4 --count 2 --json",
    )
    p.add_argument("--height", type=positive_int("height", 1, MAX_HEIGHT, "2^64 - 1"),
                   help="public tree height h (1 <= h <= 2^64 - 1)")
    p.add_argument("--lam", type=rational("lam"), help="lambda (0 < lambda <= 1)")
    p.add_argument("--R", type=rational("R"), dest="R", help="guard width R >= 1")
    p.add_argument("--epsilon", type=rational("epsilon"), help="calibrate (Theorem 5.5) to eps")
    p.add_argument("--delta", type=rational("delta"), help="... and delta")
    p.add_argument("--tau", type=rational("tau"), help="public threshold tau >= E")
    p.add_argument("--count", type=positive_int("count", 0), metavar="C",
                   help="only the pair: C records on one leaf vs C + 1")
    p.add_argument("--accountant", choices=ACCOUNTANTS, default="paper",
                   help="the bound (and, with --epsilon/--delta, the calibration): paper "
                        "(Theorem 5.4 / 5.5) or tight (the certified accountant)")
    p.add_argument("--on", choices=ON, default="transcript",
                   help="what is released: the full transcript (default) or the Heavy set "
                        "(its delta is at most the transcript's: post-processing)")
    p.add_argument("--search", type=positive_int("search", 0), default=20, metavar="N",
                   help="Hypothesis examples of the profile search (family mode; 0 = none)")
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.set_defaults(handler=run, group="depth")


def _setup(args: argparse.Namespace) -> tuple[Params, dict[str, Any]]:
    if args.height is None or args.tau is None:
        raise UsageError("audit depth needs --height and --tau")
    if args.height > MAX_HEIGHT:
        raise UsageError(f"height = {args.height} is not allowed: 1 <= height <= 2^64 - 1")
    manual = args.lam is not None or args.R is not None
    calibrated = args.epsilon is not None or args.delta is not None
    if manual == calibrated:
        raise UsageError("give either --lam and --R, or --epsilon and --delta")
    if manual:
        if args.lam is None or args.R is None:
            raise UsageError("--lam and --R go together")
        params = Params.of(args.tau, args.lam, args.R)
        info: dict[str, Any] = {}
    else:
        if args.epsilon is None or args.delta is None:
            raise UsageError("--epsilon and --delta go together")
        cal = calibrate_with(args.accountant, args.height, args.epsilon, args.delta)
        params = cal.params(args.tau)
        info = {"epsilon": str(cal.epsilon), "delta_promised": str(cal.delta), "r_cal": cal.r}
    if params.lam > 1:
        raise UsageError(f"lambda = {params.lam}: Theorem 5.4 needs 0 < lambda <= 1")
    if params.margin.compare(params.tau) > 0:
        raise UsageError(
            f"tau = {params.tau} is not allowed: tau >= E = {params.margin.exact_str()} "
            f"~ {params.margin.approx():.6g} (off-path nodes must be guarded Light)")
    return params, info


def _bounds(accountant: str, L: int, params: Params) -> list[Any]:
    from betweencut.proofs.privacy.depth.audit import paper_bounds
    from betweencut.proofs.privacy.depth.transcript import ClaimedBound

    if accountant == "paper":
        return paper_bounds(L, params)
    from betweencut.proofs.privacy.accountants.accountant import accountant

    tight = accountant("tight", L=L, lam=params.lam, R=params.R)
    return [ClaimedBound.of(r, r * params.lam, tight.delta_upper(r * params.lam))
            for r in range(1, L + 1)]


def _row(row: Any, bound_exact: bool = True, exact: bool = True) -> dict[str, Any]:
    from betweencut.proofs.exact.arith import exact_str

    single = row.profile.segments == 1
    out: dict[str, Any] = {"count": row.profile.counts[0]} if single else {
        "profile": [list(step) for step in row.profile.steps]}
    from betweencut.proofs.privacy.enumeration.transcripts import round_out

    lo, hi = round_out(row.delta_lo, row.delta_hi) if row.delta_hi else (row.delta_lo, row.delta_hi)
    out.update({
        "r": row.r, "eps": float(row.eps), "eps_exact": str(row.eps),
        "delta": float((lo + hi) / 2),  # display only
        "delta_exact": row.delta_exact_str() if exact else None,
        "delta_in": [str(lo), str(hi)],
        "bound": float((row.bound.lo + row.bound.hi) / 2),  # display only
        "holds": row.holds, "direction": row.direction,
    })
    if bound_exact:
        out["bound_exact"] = exact_str(row.bound.exact)
    return out


def _exact(x: Any) -> str:
    from betweencut.proofs.exact.arith import exact_str

    return exact_str(x)


def run(args: argparse.Namespace) -> int:
    from betweencut.betweencut import BetweenCut
    from betweencut.proofs.privacy.depth.audit import (
        audit_profiles,
        single_leaf_band,
        step_profiles,
    )
    from betweencut.proofs.privacy.depth.paths import PathProfile
    from betweencut.tree import kary_tree

    params, info = _setup(args)
    h = args.height
    L = path_query_bound(h)
    bounds = _bounds(args.accountant, L, params)
    mechanism = BetweenCut(kary_tree(2, h), params)
    single = args.count is not None
    if single:
        profiles = [PathProfile.single_leaf(h, args.count)]
    else:
        profiles = single_leaf_band(mechanism) + step_profiles(mechanism)

    def bar(items: list[Any]) -> Any:
        return progress(items, len(items), "profiles")

    head: dict[str, Any] = {
        "height": str(h), "L": L, "tau": str(params.tau), "lambda": str(params.lam),
        "R": params.R.exact_str(), "accountant": args.accountant, "on": args.on, **info}
    written = 0

    def write(rows: list[Any]) -> None:
        # streamed, one profile at a time: the rows' exact values are most of the output (tens
        # of MB at h = 2^64 - 1); each pair's values are dropped once written
        nonlocal written
        for row in rows:
            sys.stdout.write(("," if written else "") + json.dumps(_row(row, bound_exact=single)))
            written += 1
        for row in rows:
            row.forget()

    if args.json:
        sys.stdout.write(json.dumps(head)[:-1] + ', "rows": [')
    audit = audit_profiles(mechanism, profiles, bounds, exact=single,
                           skip_refused=not single, progress=bar, on=args.on,
                           each=write if args.json else None)
    searched: dict[str, Any] = {}
    if not single and args.search:
        from betweencut.proofs.privacy.depth.search import search_profiles

        found = search_profiles(mechanism, bounds, max_examples=args.search, on=args.on)
        audit.rows.extend(found.rows)
        if args.json:
            write(found.rows)
        searched = {"tried": found.tried}
    worst = audit.worst
    out: dict[str, Any] = {
        **head,
        "rows": [],
        "bounds": [{"r": b.r, "eps_exact": str(b.eps), "bound": float((b.lo + b.hi) / 2),
                    "bound_exact": _exact(b.exact)} for b in bounds],
        "worst": _row(worst) if worst is not None else None,
        "refused": [[p.describe(), why] for p, why in audit.refused],
        "holds": audit.holds,
    }
    if searched:
        out["search"] = searched
    if args.json:
        tail = {k: v for k, v in out.items() if k not in head and k != "rows"}
        sys.stdout.write("], " + json.dumps(tail)[1:] + "\n")
    else:
        out["rows"] = [_row(row, bound_exact=single, exact=False) for row in audit.rows]
        _print(out, single)
    sys.stdout.flush()
    return EXIT_OK if audit.holds else EXIT_REFUTED


def _print(out: dict[str, Any], single: bool) -> None:
    print(f"audit depth: h = {out['height']} (L = {out['L']}), tau = {out['tau']}, lambda = "
          f"{out['lambda']}, R = {out['R']}, accountant {out['accountant']}, on {out['on']}")
    shown = out["rows"] if single else [r for r in out["rows"] if not r["holds"]]
    print(f"  {'pair':>12} {'r':>3} {'eps':>8} {'delta(eps)':>12} {'bound':>12}  verdict")
    for row in shown:
        pair = f"C={row['count']}" if "count" in row else "profile"
        verdict = "holds" if row["holds"] else "REFUTED"
        print(f"  {pair:>12} {row['r']:>3} {row['eps']:>8.4g} {row['delta']:>12.6g} "
              f"{row['bound']:>12.6g}  {verdict}")
    w = out["worst"]
    if w is not None:
        pair = f"C={w['count']}" if "count" in w else f"profile {w['profile']}"
        print(f"  worst: {pair}, r = {w['r']}, delta = {w['delta']:.6g} vs bound "
              f"{w['bound']:.6g} ({'holds' if w['holds'] else 'REFUTED'})")
    print(f"  {len(out['rows'])} rows, {'all hold' if out['holds'] else 'REFUTED'}")


__all__ = ["add_parser", "run"]
