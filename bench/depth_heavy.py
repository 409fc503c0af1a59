"""The Heavy set at depth (issue 13): `audit depth --on heavy` vs the transcript, same job.

The job of `bench/depth.py`: BetweenCut calibrated to (eps, delta) = (1, 0.05) at h = 2^64 - 1
(Theorem 5.5, L = 64), tau = ceil(E), every single-leaf pair C vs C + 1 across the band, every
r = 1..L against Theorem 5.4's bound, decided by certified enclosures (exactly where they
straddle). Run once on the full transcript (baseline, `depth.profile_rows`) and once on the
released Heavy set (`depth_heavy.heavy_rows`), in the same process; printed: CPU seconds of each
and their ratio, and how much smaller the Heavy set's delta is than the transcript's at the
transcript's worst row (largest delta/bound), at the row of largest delta and at the Heavy set's
own worst row, and the largest absolute and relative reductions (certified enclosures, shown as
floats).

Run: python bench/depth_heavy.py [--height H] [--epsilon E] [--delta D]
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

from _common import add_depth_arguments, depth_job, depth_job_text

from betweencut.data.tree import kary_tree
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.proofs.privacy.depth.depth_audit import (
    audit_profiles,
    paper_bounds,
    single_leaf_band,
)
from betweencut.proofs.privacy.depth.transcript import DepthRow


def _show(row: DepthRow) -> str:
    return f"[{float(row.delta_lo):.9g}, {float(row.delta_hi):.9g}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_depth_arguments(parser)
    args = parser.parse_args()
    h = args.height
    cal, params = depth_job(args)
    print(f"{depth_job_text(cal)}, tau = ceil(E) = {params.tau}")
    mechanism = BetweenCut(kary_tree(2, h), params)
    profiles = single_leaf_band(mechanism)
    bounds = paper_bounds(cal.L, params)
    audits, seconds = {}, {}
    for on in ("transcript", "heavy"):
        cpu = time.process_time()
        audits[on] = audit_profiles(mechanism, profiles, bounds, on=on)
        seconds[on] = time.process_time() - cpu
        print(f"{on:>10}: {len(profiles)} pairs, {len(audits[on].rows)} rows, all hold: "
              f"{audits[on].holds}; {seconds[on]:.1f} s CPU")
    ratio = seconds["heavy"] / seconds["transcript"]
    print(f"ratio (heavy CPU / transcript CPU, same run): {ratio:.2f}")
    full, heavy = audits["transcript"].rows, audits["heavy"].rows
    pairs = list(zip(full, heavy, strict=True))
    worst = audits["transcript"].worst
    if worst is None:
        return
    i = full.index(worst)
    w_full, w_heavy = pairs[i]
    lo, hi = w_full.tightness()
    print(f"transcript's worst row: C = {w_full.profile.counts[0]}, r = {w_full.r}, delta/bound in "
          f"[{float(lo):.4f}, {float(hi):.4f}]: transcript delta {_show(w_full)}, Heavy set "
          f"delta {_show(w_heavy)}, heavy/transcript in "
          f"[{float(w_heavy.delta_lo / w_full.delta_hi):.9f}, "
          f"{float(w_heavy.delta_hi / w_full.delta_lo):.9f}]")
    big = max(range(len(pairs)), key=lambda k: pairs[k][0].delta_hi)
    b_full, b_heavy = pairs[big]
    print(f"largest transcript delta: C = {b_full.profile.counts[0]}, r = {b_full.r}: "
          f"{_show(b_full)} vs Heavy set {_show(b_heavy)}")
    hw = audits["heavy"].worst
    if hw is not None:
        lo, hi = hw.tightness()
        print(f"Heavy set's worst row: C = {hw.profile.counts[0]}, r = {hw.r}, delta/bound in "
              f"[{float(lo):.4f}, {float(hi):.4f}]")
    hw_full = pairs[heavy.index(hw)][0] if hw is not None else None
    if hw is not None and hw_full is not None:
        print(f"  there: Heavy set delta {_show(hw)}, transcript delta {_show(hw_full)}")
    gap = max(pairs, key=lambda p: p[0].delta_lo - p[1].delta_hi)
    print(f"largest absolute reduction (transcript - heavy, certified lower bound): "
          f"{float(gap[0].delta_lo - gap[1].delta_hi):.4g} at C = {gap[0].profile.counts[0]}, "
          f"r = {gap[0].r}: {_show(gap[0])} vs {_show(gap[1])}")
    floor = Fraction(1, 100)
    big_rows = [(fl, hv) for fl, hv in pairs if fl.delta_lo >= floor * fl.bound.lo > 0]
    if big_rows:
        fl, hv = max(big_rows, key=lambda p: 1 - p[1].delta_hi / p[0].delta_lo)
        print(f"largest relative reduction among rows with transcript delta >= 1% of the bound "
              f"(certified lower bound of 1 - heavy/transcript): "
              f"{float(1 - hv.delta_hi / fl.delta_lo):.4g} at C = {fl.profile.counts[0]}, "
              f"r = {fl.r}: {_show(fl)} vs {_show(hv)}")

if __name__ == "__main__":
    main()
