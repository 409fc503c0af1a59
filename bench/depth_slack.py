"""How much slack the accountants leave at depth (issue 13, "Show it"): for each point of the
README's accountant table, the largest exact transcript δ(ε) found at depth beside the paper's
and the tight accountant's certified bounds at the same ε.

BetweenCut is calibrated by Theorem 5.5 (the paper), so ε = r·λ is a point of the audit's grid
(r = min(L, r0)); the single-leaf family C vs C + 1 across the whole band at τ = ceil(E) is
audited at that r by `betweencut.proofs.privacy.depth_audit` (certified enclosures; exact where
they straddle), against the tight accountant's `delta_upper(ε)` for the same λ and R. Prints one
markdown row per point: the largest exact δ(ε) (a certified enclosure, shown to 4 digits), the
paper bound, the tight bound, and whether every row holds under the tight bound.

Run: python bench/depth_slack.py [--heights 15,1023,...]
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

from betweencut.betweencut import BetweenCut
from betweencut.calibration import calibrate
from betweencut.proofs.exact.arith import enclose
from betweencut.proofs.laws.tct import theorem_5_4_bound
from betweencut.proofs.privacy.accountant import accountant
from betweencut.proofs.privacy.depth import ClaimedBound
from betweencut.proofs.privacy.depth_audit import (
    audit_profiles,
    paper_bounds,
    single_leaf_band,
)
from betweencut.tree import kary_tree

POINTS = [(Fraction(1), Fraction(1, 20)), (Fraction(1), Fraction(1, 10**6)),
          (Fraction(1, 10), Fraction(1, 10**6))]
HEIGHTS = [15, 2**10 - 1, 2**20 - 1, 2**64 - 1]


def _show(x: object) -> str:
    _lo, hi = enclose(x, 64)  # type: ignore[arg-type]
    return f"{float(hi):.4g}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--heights", default=",".join(map(str, HEIGHTS)))
    args = parser.parse_args()
    print("| h | (eps, delta) | r | worst exact delta(eps) at depth | paper bound | tight bound "
          "| all rows <= tight |")
    print("|---|---|---|---|---|---|---|")
    for h in (int(x) for x in args.heights.split(",")):
        for eps, delta in POINTS:
            start = time.process_time()
            cal = calibrate(h, eps, delta)
            params = cal.params(cal.E.ceil())
            tight = accountant("tight", L=cal.L, lam=params.lam, R=params.R)
            bound = ClaimedBound.of(cal.r, tight.delta_upper(cal.r * params.lam))
            bounds = paper_bounds(cal.L, params)  # the audit decides every r; we read r only
            bounds[cal.r - 1] = bound
            mechanism = BetweenCut(kary_tree(2, h), params)
            audit = audit_profiles(mechanism, single_leaf_band(mechanism), bounds)
            at_r = [row for row in audit.rows if row.r == cal.r]
            worst = max(at_r, key=lambda row: row.delta_hi)
            holds = all(row.holds for row in at_r)
            paper = theorem_5_4_bound(cal.L, params.lam, params.R, cal.r)
            name = f"2^{h.bit_length()} - 1" if h > 10**4 else str(h)
            print(f"| {name} | ({eps}, {delta}) | {cal.r} | "
                  f"[{float(worst.delta_lo):.4g}, {float(worst.delta_hi):.4g}] | {_show(paper)} | "
                  f"{float(bound.hi):.4g} | {holds} |   "
                  f"<!-- {time.process_time() - start:.1f} s CPU -->", flush=True)


if __name__ == "__main__":
    main()
