"""Gaussian shared-noise audits (issue 27, item 2): how far one pair and every input reach.

For `m` queries, one pair of Zhu and Wang's Gaussian SVT (`c = 1`, `σ_ρ = 1/2`, `σ_ν = 1`) and
of Gaussian report-noisy-max (`σ = 3/2`): the laws of `D = ∅` and `D + z` (moves
`(+1, -1, +1, ...)`) enumerated and their certified `δ(ε)` at 64 bits; the baseline, timed in
the same run, is the same pair of the Laplace algorithm (Lyu et al.'s Alg. 1 with `c = 1`;
report-noisy-max `Lap(2/ε)`), exact. Printed: seconds and the ratio Gaussian / Laplace. Then
every input of the corpus rows (`D = ∅`, every `z ∈ {0, 1, 2}^m`) for small `m`.

Timings are wall seconds on a shared machine (2 cores, other jobs running): compare the ratios
of one run, not absolute seconds across runs.

Run: python bench/gaussian_audit.py [--queries 4 8 16 32] [--every 2 3]
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections.abc import Callable, Hashable
from fractions import Fraction

from betweencut.baselines import svt_corpus as sc
from betweencut.noise.noisy_queries import QueryTest
from betweencut.proofs.exact.enclosure import Enclosure
from betweencut.proofs.privacy.enumeration.gaussian_noise import GaussianLawCache
from betweencut.proofs.privacy.enumeration.shared_noise import QueryLawCache

Run = Callable[[tuple[Fraction, ...], QueryTest], Hashable]
EPS = Fraction(1)


def _mechanism(run: Run, m: int) -> Callable[[tuple[tuple[int, ...], ...], QueryTest], Hashable]:
    return lambda db, test: run(sc.query_answers(db, m), test)


def one_pair(run: Run, m: int, gaussian: bool) -> tuple[float, str]:
    """Seconds to enumerate both laws of one pair and decide `δ(1)`; and `δ(1)` shown."""
    z = tuple(2 if i % 2 == 0 else 0 for i in range(m))
    start = time.perf_counter()
    mech = _mechanism(run, m)
    cache = GaussianLawCache(mech) if gaussian else QueryLawCache(mech)
    delta = Enclosure.of(cache.make_joint((), z, "output").divergence(EPS).delta)
    delta.enclose(64)
    return time.perf_counter() - start, str(delta)


def every_input(run: Run, m: int) -> float:
    mech = _mechanism(run, m)
    cache = GaussianLawCache(mech)
    start = time.perf_counter()
    for z in itertools.product((0, 1, 2), repeat=m):
        cache.make_joint((), z, "output").divergence(EPS).delta.enclose(64)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, nargs="*", default=[4, 8, 16, 32])
    parser.add_argument("--every", type=int, nargs="*", default=[2, 3, 4])
    args = parser.parse_args()
    t = (Fraction(0),) * max([*args.queries, *args.every, 1])

    def gsvt(q: tuple[Fraction, ...], test: QueryTest) -> Hashable:
        return sc.gaussian_svt(q, t[:len(q)], Fraction(1, 2), Fraction(1), test)

    def lsvt(q: tuple[Fraction, ...], test: QueryTest) -> Hashable:
        return sc.svt_alg1(q, t[:len(q)], 1, EPS, test)

    def gmax(q: tuple[Fraction, ...], test: QueryTest) -> Hashable:
        return sc.gaussian_noisy_max(q, Fraction(3, 2), test)

    def lmax(q: tuple[Fraction, ...], test: QueryTest) -> Hashable:
        return sc.noisy_max(q, EPS, test)

    print("one pair, D empty, moves (+1, -1, ...), delta(1) at 64 bits "
          "(shared 2-core machine: read the ratios)")
    print(f"{'mechanism':<12} {'m':>4} {'gaussian s':>11} {'laplace s':>10} {'ratio':>7}  "
          "delta(1) of the Gaussian pair")
    for name, g, lap in (("svt c=1", gsvt, lsvt), ("noisy max", gmax, lmax)):
        for m in args.queries:
            g_s, shown = one_pair(g, m, True)
            l_s, _ = one_pair(lap, m, False)
            print(f"{name:<12} {m:>4} {g_s:>11.2f} {l_s:>10.2f} {g_s / l_s:>7.1f}  {shown}")
    print("every input (D empty, every z in {0,1,2}^m), Gaussian")
    for name, g in (("svt c=1", gsvt), ("noisy max", gmax)):
        for m in args.every:
            print(f"{name:<12} m = {m}: {3 ** m} pairs, {every_input(g, m):.2f} s")


if __name__ == "__main__":
    main()
