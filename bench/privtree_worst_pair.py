"""PrivTree's worst pair (issue 16): the count DP and the reachable decomposition against the
baselines they replace, measured in the same run.

1. `pair_loss` (reachable decomposition, exact) against direct enumeration of the real `run`
   on the same pairs (1-D, 8 cells, every database of at most one point): time ratio, and the
   two maxima are checked equal.
2. `worst_pair` (dynamic programme over the counts on `z`'s path, every database of at most `N`
   points) against `pair_loss` on every database of at most `N` points one by one (the baseline,
   timed for the small `N` it can reach): time ratio, maxima checked equal.
3. `worst_pair` alone at N = 100 (about 2.8·10^12 pairs), wall and CPU seconds.

Run: python bench/privtree_worst_pair.py [--size 3]
"""

from __future__ import annotations

import argparse
import itertools
import time

from betweencut.proofs.baselines.privtree_checks.privtree import domain_points
from betweencut.proofs.baselines.privtree_checks.privtree_search import (
    Ratio,
    pair_loss,
    privtree_rules,
    worst_pair,
)
from betweencut.proofs.exact.arith import sign
from betweencut.proofs.privacy.enumeration.transcripts import enumerate_mechanism


def timed(fn):  # type: ignore[no-untyped-def]
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def best_of(ratios):  # type: ignore[no-untyped-def]
    best = None
    for r in ratios:
        if best is None or r.exceeds(best):
            best = r
    return best


def direct(mech, points, z):  # type: ignore[no-untyped-def]
    p = enumerate_mechanism(lambda t: mech.run(list(points), t)).law(lambda o: o)
    q = enumerate_mechanism(lambda t: mech.run([*points, z], t)).law(lambda o: o)
    return best_of(Ratio(a, b) for o in set(p) | set(q) for a, b in ((p[o], q[o]), (q[o], p[o])))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=3, help="N for the one-by-one baseline")
    args = parser.parse_args()
    mech = privtree_rules()["half-open"]
    cells = domain_points(mech)
    small = [((), z) for z in cells] + [((p,), z) for p in cells for z in cells]

    slow, slow_wall, slow_cpu = timed(lambda: best_of(direct(mech, d, z) for d, z in small))
    fast, fast_wall, fast_cpu = timed(lambda: best_of(
        pair_loss(mech, {p: d.count(p) for p in d}, z).worst()[0] for d, z in small))
    same = sign(slow.num * fast.den - fast.num * slow.den) == 0
    print(f"1. {len(small)} pairs: direct enumeration {slow_wall:.2f} s wall "
          f"({slow_cpu:.2f} CPU), reachable decomposition {fast_wall:.2f} s "
          f"({fast_cpu:.2f} CPU): ratio {slow_cpu / max(fast_cpu, 1e-9):.1f}x CPU, "
          f"maxima equal: {same}")

    dbs = [db for n in range(args.size + 1)
           for db in itertools.combinations_with_replacement(cells, n)]
    base, b_wall, b_cpu = timed(lambda: best_of(
        pair_loss(mech, {p: d.count(p) for p in d}, z).worst()[0] for d in dbs for z in cells))
    dp, d_wall, d_cpu = timed(lambda: worst_pair(mech, args.size))
    same = sign(base.num * dp.ratio.den - dp.ratio.num * base.den) == 0
    print(f"2. N = {args.size}: {len(dbs) * len(cells)} pairs one by one {b_wall:.2f} s wall "
          f"({b_cpu:.2f} CPU), count DP {d_wall:.2f} s ({d_cpu:.2f} CPU): ratio "
          f"{b_cpu / max(d_cpu, 1e-9):.1f}x CPU, maxima equal: {same}")

    big, w, c = timed(lambda: worst_pair(mech, 100))
    lo, hi = big.ratio.loss_bounds()
    print(f"3. N = 100: {big.pairs} pairs by the count DP in {w:.2f} s wall ({c:.2f} CPU); "
          f"largest loss in [{lo:.6f}, {hi:.6f}] at D = {big.db}, z = {big.z}")


if __name__ == "__main__":
    main()
