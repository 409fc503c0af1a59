"""PrivTree's largest loss found per membership rule and database size: the table of
docs/benchmarks.md (issue 16), generated.

For each rule on `[0, 8)` (`ε = 1`, `θ = 0`) and each size `N`, the largest loss
`ln max_o P(o)/Q(o)` over the pairs `(D, D + z)`, both directions, with `|D| <= N`:

* a rule that partitions every box: the count DP (`worst_pair`), exact over *every* database
  of at most `N` points;
* any other rule: `pair_loss` (the reachable decomposition, exact per pair) over every database
  of at most `N` points when they can be listed (`exhaustive_pairs`), else over databases of
  copies of at most two distinct points, else of one (`multiplicity_pairs`); one pair per class
  of equal law.

Each cell's worst pair is then re-checked on the whole real `run`: `audit_pairs` with a
plain `LawCache` (direct enumeration) at the claim `(ε, 0)` must give the same verdict, and the
exact curve's `epsilon_at_delta(0)` must equal `ln` of the ratio exactly. Losses are printed as
certified enclosures rounded outward to 4 decimals; `> ε` is decided exactly.

Then the half-open rule on `[0, 16)` and on `[0, 4)²` at the largest size (count DP).

Run: python bench/privtree_loss_table.py [--sizes 1 2 3 10 100] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import math
import time
from fractions import Fraction
from typing import Any

from betweencut.baselines.privtree import PrivTree
from betweencut.proofs.baselines.privtree_checks.privtree_audit import (
    exhaustive_pairs,
    multiplicities,
    multiplicity_pairs,
    privtree_run,
)
from betweencut.proofs.baselines.privtree_checks.privtree_search import (
    Ratio,
    is_partition,
    pair_loss,
    privtree_rules,
    worst_pair,
)
from betweencut.proofs.exact.arith import ExpPoly, ExpRational, exact_str, sign
from betweencut.proofs.privacy.audit.pairs import audit_pairs
from betweencut.proofs.privacy.divergence.curve import LogOf
from betweencut.proofs.privacy.enumeration.cache import LawCache

LIST_CAP = 12000
RULE_TEXT = {"half-open": "half-open cells `lo <= x < hi`",
             "closed": "closed cells `lo <= x <= hi`"}


def search(mech: Any, size: int) -> tuple[Ratio, dict[Any, int], Any, str, int]:
    """The largest ratio, its database, `z`, the search used and how many pairs it covers
    (the count DP: every pair; a listing: one pair per class of equal law)."""
    if is_partition(mech):
        found = worst_pair(mech, size)
        return found.ratio, found.db, found.z, "all (DP)", found.pairs
    try:
        pairs, what = exhaustive_pairs(mech, size, LIST_CAP), "all (listed)"
    except ValueError:
        try:
            pairs = multiplicity_pairs(mech, size, 2, LIST_CAP * 4)
            what = "<= 2 points (copies)"
        except ValueError:
            pairs, what = multiplicity_pairs(mech, size, 1, LIST_CAP * 4), "1 point (copies)"
    best: tuple[Ratio, dict[Any, int], Any] | None = None
    for db, z in pairs:
        ratio = pair_loss(mech, multiplicities(db), z).worst()[0]
        if best is None or ratio.exceeds(best[0]):
            best = (ratio, multiplicities(db), z)
    if best is None:
        raise SystemExit("no pair")
    return (*best, what, len(pairs))


def recheck(mech: Any, ratio: Ratio, db: dict[Any, int], z: Any) -> bool:
    """The worst pair on the whole real run: same verdict, `epsilon_at_delta(0) = ln ratio`."""
    points = tuple(sorted(p for p, k in db.items() for _ in range(k)))
    cache = LawCache(privtree_run(mech))
    verdict = audit_pairs(cache.run, [(points, z)], [(mech.epsilon, 0)], cache=cache)
    above = ratio.exceeds(Ratio(ExpPoly.exp(mech.epsilon), ExpPoly.const(1)))
    at = verdict.epsilon_at_delta(0)
    return (verdict.holds == (not above) and at is not None
            and sign(at.x.num * ratio.den - ratio.num * at.x.den) == 0)


def enclosure(ratio: Ratio) -> tuple[Fraction, Fraction]:
    """Certified bounds of `ln(num/den)`, rounded outward to 4 decimals."""
    lo, hi = LogOf(ExpRational(ratio.num, ratio.den)).enclose()
    scale = 10_000
    return Fraction(math.floor(lo * scale), scale), Fraction(math.ceil(hi * scale), scale)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 2, 3, 10, 100])
    parser.add_argument("--json", help="write every cell with its exact ratio here")
    args = parser.parse_args()
    rules = privtree_rules()
    rows: list[dict[str, Any]] = []
    for name, mech in rules.items():
        for size in args.sizes:
            wall = time.perf_counter()
            ratio, db, z, what, pairs = search(mech, size)
            seconds = time.perf_counter() - wall
            lo, hi = enclosure(ratio)
            above = ratio.exceeds(Ratio(ExpPoly.exp(mech.epsilon), ExpPoly.const(1)))
            ok = recheck(mech, ratio, db, z)
            rows.append({"rule": name, "size": size, "search": what, "pairs": pairs,
                         "D": {"/".join(map(str, p)): k for p, k in db.items()},
                         "z": "/".join(map(str, z)), "loss": [str(lo), str(hi)],
                         "above_eps": above, "rechecked": ok, "seconds": round(seconds, 2),
                         "ratio_num": exact_str(ratio.num), "ratio_den": exact_str(ratio.den)})
            unit = "pairs" if "DP" in what else "classes"
            print(f"{name:>9} N={size:<4} {what:<20} {pairs:>14} {unit}  loss in "
                  f"[{float(lo):.4f}, {float(hi):.4f}]{' > eps' if above else ''}  D = "
                  f"{rows[-1]['D']}, z = {rows[-1]['z']}  re-checked on the real run: {ok}  "
                  f"({seconds:.1f} s)", flush=True)
    print()
    print("| membership rule | " + " | ".join(f"size ≤ {n}" for n in args.sizes)
          + " | worst pair (largest size) |")
    print("|---|" + "---|" * (len(args.sizes) + 1))
    for name in rules:
        cells = [r for r in rows if r["rule"] == name]
        shown = []
        for r in cells:
            lo, hi = (float(Fraction(x)) for x in r["loss"])
            text = f"[{lo:.4f}, {hi:.4f}]"
            shown.append((f"**{text} > ε**" if r["above_eps"] else text) + f" ({r['search']})")
        last = cells[-1]
        pair = ", ".join(f"{k} copies of {p}" for p, k in last["D"].items()) or "empty"
        print(f"| {RULE_TEXT[name]} | " + " | ".join(shown) + f" | `D` = {pair}, `z = "
              f"{last['z']}` |")
    print()
    for box in (((0, 16),), ((0, 4), (0, 4))):  # the half-open rule on other public boxes
        other = PrivTree.of(box, 1)
        size = max(args.sizes)
        ratio, db, z, what, pairs = search(other, size)
        lo, hi = enclosure(ratio)
        print(f"half-open on {box}, N = {size} ({what}): loss in [{float(lo):.4f}, "
              f"{float(hi):.4f}] at D = {db}, z = {z}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
