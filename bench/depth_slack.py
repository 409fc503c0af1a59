"""How much slack the accountants leave at depth (issue 13, "Show it"): for each point of the
accountant table of docs/benchmarks.md, the largest exact transcript δ(ε) found at depth
beside the paper's and the tight accountant's certified bounds at the same ε.

BetweenCut is calibrated by Theorem 5.5 (the paper), so ε = r·λ is a point of the audit's grid
(r = min(L, r0)); the single-leaf family C vs C + 1 across the whole band at τ = ceil(E) is
audited at that r by `betweencut.proofs.privacy.depth.depth_audit` (certified enclosures; exact
where they straddle), against the tight accountant's `delta_upper(ε)` for the same λ and R. Prints
one markdown row per point: the largest exact δ(ε) (a certified enclosure, shown to 4 digits), the
paper bound, the tight bound, and whether every row holds under the tight bound.

`--step S` (S > 0) replaces the whole band by a labelled *search* (the value found is still a
lower bound on the worst δ, each pair exact/certified as in the band): the grid C = 0, S, 2S, ...
over the band, every C within 2 of the guards' cuts and of the thresholds a and b, then a local
refinement around the three best C (a hill climb with steps S/2, S/4, ..., 1 on both sides).
The row says how many pairs were audited. `--points 0,1,2` picks points of POINTS.

Run: python bench/depth_slack.py [--heights 15,1023,...] [--step S] [--points 2]
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

from betweencut.data.tree import kary_tree
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.mechanism.calibration import calibrate
from betweencut.proofs.exact.arith import enclose
from betweencut.proofs.laws.tct import theorem_5_4_bound
from betweencut.proofs.privacy.accountants.accountant import accountant
from betweencut.proofs.privacy.depth.depth_audit import (
    audit_profiles,
    paper_bounds,
    single_leaf_band,
)
from betweencut.proofs.privacy.depth.paths import PathProfile
from betweencut.proofs.privacy.depth.transcript import ClaimedBound, DepthRow

POINTS = [(Fraction(1), Fraction(1, 20)), (Fraction(1), Fraction(1, 10**6)),
          (Fraction(1, 10), Fraction(1, 10**6))]
HEIGHTS = [15, 2**10 - 1, 2**20 - 1, 2**64 - 1]


def _show(x: object) -> str:
    _lo, hi = enclose(x, 64)  # type: ignore[arg-type]
    return f"{float(hi):.4g}"


def _worst_at(mechanism: BetweenCut, bounds: list[ClaimedBound], r: int,
              counts: list[int]) -> list[DepthRow]:
    h = mechanism.tree.height
    audit = audit_profiles(mechanism, [PathProfile.single_leaf(h, c) for c in counts], bounds)
    return [row for row in audit.rows if row.r == r]


def searched(mechanism: BetweenCut, bounds: list[ClaimedBound], r: int,
             step: int) -> tuple[list[DepthRow], int]:
    """The rows at `r` of the pairs the search audits (see the module docstring), and how many."""
    band = [p.counts[0] for p in single_leaf_band(mechanism)]
    lo, hi = band[0], band[-1]
    query = mechanism.count_query
    marks = [getattr(query, "lower_cut", lo), getattr(query, "upper_cut", hi),
             int(query.a // 1), -int(-query.b // 1)]
    todo = set(range(lo, hi + 1, step)) | {hi}
    todo |= {c for m in marks for c in range(m - 2, m + 3) if lo <= c <= hi}
    seen: dict[int, DepthRow] = {}

    def audit(counts: set[int]) -> None:
        new = sorted(c for c in counts if c not in seen and lo <= c <= hi)
        for row in _worst_at(mechanism, bounds, r, new):
            seen[row.profile.counts[0]] = row

    audit(todo)
    for start in sorted(seen, key=lambda c: seen[c].delta_hi, reverse=True)[:3]:
        best, d = start, step // 2
        while d >= 1:
            audit({best - d, best + d})
            moved = max((c for c in (best - d, best + d) if c in seen),
                        key=lambda c: seen[c].delta_hi, default=best)
            if seen[moved].delta_hi > seen[best].delta_hi:
                best = moved
            else:
                d //= 2
    return list(seen.values()), len(seen)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--heights", default=",".join(map(str, HEIGHTS)))
    parser.add_argument("--step", type=int, default=0, help="0: the whole band; S: search")
    parser.add_argument("--points", default=",".join(map(str, range(len(POINTS)))))
    args = parser.parse_args()
    points = [POINTS[int(i)] for i in args.points.split(",")]
    print("| h | (eps, delta) | r | worst exact delta(eps) at depth | paper bound | tight bound "
          "| all rows <= tight |")
    print("|---|---|---|---|---|---|---|")
    for h in (int(x) for x in args.heights.split(",")):
        for eps, delta in points:
            start = time.process_time()
            cal = calibrate(h, eps, delta)
            params = cal.params(cal.E.ceil())
            tight = accountant("tight", L=cal.L, lam=params.lam, R=params.R)
            eps = cal.r * params.lam
            bound = ClaimedBound.of(cal.r, eps, tight.delta_upper(eps))
            bounds = paper_bounds(cal.L, params)  # the audit decides every r; we read r only
            bounds[cal.r - 1] = bound
            mechanism = BetweenCut(kary_tree(2, h), params)
            if args.step > 0:
                at_r, pairs = searched(mechanism, bounds, cal.r, args.step)
                how = f"search, step {args.step}, {pairs} pairs"
            else:
                audit = audit_profiles(mechanism, single_leaf_band(mechanism), bounds)
                at_r = [row for row in audit.rows if row.r == cal.r]
                how = f"whole band, {len(at_r)} pairs"
            worst = max(at_r, key=lambda row: row.delta_hi)
            holds = all(row.holds for row in at_r)
            paper = theorem_5_4_bound(cal.L, params.lam, params.R, cal.r)
            name = f"2^{h.bit_length()} - 1" if h > 10**4 else str(h)
            print(f"| {name} | ({eps}, {delta}) | {cal.r} | "
                  f"[{float(worst.delta_lo):.4g}, {float(worst.delta_hi):.4g}] | {_show(paper)} | "
                  f"{float(bound.hi):.4g} | {holds} |   "
                  f"<!-- {how}, worst C = {worst.profile.counts[0]}, "
                  f"{time.process_time() - start:.1f} s CPU -->", flush=True)


if __name__ == "__main__":
    main()
