"""Privacy at depth (issue 13, Part 1): `audit depth` on the single-leaf family at h = 2^64 - 1.

The job: BetweenCut calibrated to (eps, delta) = (1, 0.05) at h = 2^64 - 1 (Theorem 5.5,
L = 64), tau = ceil(E), every single-leaf pair C vs C + 1 with C from floor(a - R) - 1 to
ceil(b + R), every r = 1..L against Theorem 5.4's bound (the paper accountant), decided by
certified enclosures (exactly where they straddle). Goal: under 60 s wall.

Timing: wall and CPU seconds (on a shared machine wall time includes other jobs; the goal is
met when either is under 60 s on an unloaded machine, where the two agree). Baseline, measured in
the same run, in CPU seconds: full enumeration of the real code (Alg. 3 through
`ReplayTest`, `betweencut.proofs.privacy.enumeration.transcripts`) of one single-leaf pair on the
longest chain `kary_tree(1, h0)` it finishes in a few seconds, timed per answer sequence. The depth
job covers 2·(2h + 1) answer sequences per pair (both databases), so the ratio printed is
(enumeration seconds per answer sequence) / (depth seconds per answer sequence covered), and the
time full enumeration would need for the same job.

Run: python bench/depth.py [--height H] [--epsilon E] [--delta D] [--baseline-height H0]
"""

from __future__ import annotations

import argparse
import time

from _common import add_depth_arguments, depth_job, depth_job_text

from betweencut.data.tree import kary_tree
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.mechanism.params import Params
from betweencut.proofs.privacy.claims.setup import PROJECTIONS
from betweencut.proofs.privacy.depth.depth_audit import (
    audit_profiles,
    paper_bounds,
    single_leaf_band,
)
from betweencut.proofs.privacy.depth.paths import PathProfile
from betweencut.proofs.privacy.divergence.joint import Joint
from betweencut.proofs.privacy.enumeration.cache import LawCache

GOAL_SECONDS = 60.0


def baseline(h0: int, params: Params) -> tuple[float, int]:
    """CPU seconds and answer sequences of full enumeration of one pair on the chain of height
    h0 (every r decided, as the depth job does)."""
    tree = kary_tree(1, h0)
    mechanism = BetweenCut(tree, params)
    count = mechanism.count_query.upper_cut - 2  # type: ignore[attr-defined]
    db, z = PathProfile.single_leaf(h0, count).database()
    start = time.process_time()
    cache = LawCache(lambda d, t: mechanism.run(d, t), PROJECTIONS)
    joint = Joint(cache.law(db, "transcript"), cache.law(tuple(sorted((*db, z))), "transcript"))
    for r in range(1, h0.bit_length() + 1):
        joint.divergence(r * params.lam)
    return time.process_time() - start, cache.transcripts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_depth_arguments(parser)
    parser.add_argument("--baseline-height", type=int, default=31)
    args = parser.parse_args()
    h = args.height
    cal, params = depth_job(args)
    print(f"{depth_job_text(cal)}, tau = ceil(E) = {params.tau}")

    base_s, base_sequences = baseline(args.baseline_height, params)
    per_sequence = base_s / base_sequences
    print(f"baseline: full enumeration, chain h0 = {args.baseline_height}, one pair: "
          f"{base_sequences} answer sequences in {base_s:.2f} s CPU "
          f"({per_sequence * 1e6:.0f} us each)")

    wall, cpu = time.perf_counter(), time.process_time()
    mechanism = BetweenCut(kary_tree(2, h), params)
    profiles = single_leaf_band(mechanism)
    audit = audit_profiles(mechanism, profiles, paper_bounds(cal.L, params))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    covered = len(profiles) * 2 * (2 * h + 1)
    worst = audit.worst
    print(f"depth: {len(profiles)} pairs (C = {profiles[0].counts[0]}..{profiles[-1].counts[0]}), "
          f"{len(audit.rows)} rows, all hold: {audit.holds}; {wall:.1f} s wall, {cpu:.1f} s CPU "
          f"(goal < {GOAL_SECONDS:.0f} s: wall {'met' if wall < GOAL_SECONDS else 'missed'}, "
          f"CPU {'met' if cpu < GOAL_SECONDS else 'missed'})")
    if worst is not None:
        lo, hi = worst.tightness()
        print(f"worst: C = {worst.profile.counts[0]}, r = {worst.r}, delta/bound in "
              f"[{float(lo):.4f}, {float(hi):.4f}] ({worst.direction})")
    ratio = per_sequence / (cpu / covered)
    print(f"answer sequences covered: {covered:.3e}; ratio (enumeration CPU s/sequence over "
          f"depth CPU s/sequence): {ratio:.3e}; full enumeration would need "
          f"{per_sequence * covered:.3e} CPU s")
    print("(wall time counts other jobs on a shared machine; CPU time is this process's own)")


if __name__ == "__main__":
    main()
