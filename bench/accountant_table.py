"""The accountants' table (docs/benchmarks.md, "Accountants").

For h in {15, 2^10 - 1, 2^20 - 1, 2^64 - 1} and (eps, delta) in {(1, 0.05), (1, 1e-6),
(0.1, 1e-6)}: the margin E of Theorem 5.5's calibration (paper), the margin E of the tight
calibration (`betweencut.proofs.privacy.accountants.tight_calibration.calibrate_tight`: lambda and R
chosen so that the CERTIFIED tight accountant gives delta(eps) <= delta), and their ratio. E values
are certified enclosures (80 bits) rounded outward to 4 decimals; the ratio column is the certified
interval [E_tight_lo / E_paper_hi, E_tight_hi / E_paper_lo]. Each row's tight calibration is
re-checked by `check_tight_calibration`.

Speed: the time of the tight calibration (float search + exact certification) against the
paper's calibration measured in the same run (a ratio; the baseline is Theorem 5.5's closed form).

Run: python bench/accountant_table.py [--markdown]
"""

from __future__ import annotations

import argparse
import math
import time
from fractions import Fraction

from betweencut.mechanism.calibration import calibrate
from betweencut.proofs.privacy.accountants.tight_calibration import (
    calibrate_tight,
    check_tight_calibration,
)

HEIGHTS = [(15, "15"), (2**10 - 1, "2^10 - 1"), (2**20 - 1, "2^20 - 1"), (2**64 - 1, "2^64 - 1")]
BUDGETS = [(Fraction(1), Fraction(1, 20), "1, 0.05"), (Fraction(1), Fraction(1, 10**6), "1, 1e-6"),
           (Fraction(1, 10), Fraction(1, 10**6), "0.1, 1e-6")]


def _down(x: Fraction) -> str:
    return f"{math.floor(x * 10**4) / 10**4:.4f}"


def _up(x: Fraction) -> str:
    return f"{math.ceil(x * 10**4) / 10**4:.4f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print the table only (Markdown)")
    args = parser.parse_args()
    rows = []
    t_paper = t_tight = 0.0
    for h, h_name in HEIGHTS:
        for eps, delta, budget in BUDGETS:
            start = time.perf_counter()
            paper = calibrate(h, eps, delta)
            paper.E.bounds(80)
            t_paper += time.perf_counter() - start
            start = time.perf_counter()
            tight = calibrate_tight(h, eps, delta)
            t_tight += time.perf_counter() - start
            check_tight_calibration(tight)
            p_lo, p_hi = paper.E.bounds(80)
            t_lo, t_hi = tight.E.bounds(80)
            rows.append((h_name, paper.L, budget, p_lo, p_hi, t_lo, t_hi, tight.lam))
    print("| h | L | (eps, delta) | E paper | E tight | E tight / E paper | lambda (tight) |")
    print("|---|---|---|---|---|---|---|")
    for h_name, L, budget, p_lo, p_hi, t_lo, t_hi, lam in rows:
        ratio = f"[{_down(t_lo / p_hi)}, {_up(t_hi / p_lo)}]"
        print(f"| {h_name} | {L} | ({budget}) | {_down(p_lo)} | {_up(t_hi)} | {ratio} | {lam} |")
    if not args.markdown:
        print(f"\ncalibration time: paper {t_paper:.3f} s, tight {t_tight:.3f} s "
              f"(ratio tight/paper {t_tight / max(t_paper, 1e-9):.0f}x) for {len(rows)} points")


if __name__ == "__main__":
    main()
