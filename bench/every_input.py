"""Every input at scale (issue 27, item 1): the reduction against the listing of every pair.

1. At `m = 6` (the largest listing the corpus runs by default): `audit_row` with
   `method="listing"` (every one of the 729 pairs `(∅, z)`) and with `method="reduction"`
   (every input at once, `every_input`), for Lyu et al.'s Alg. 1 (`c = 2`, the corpus's row)
   and report-noisy-max; printed: both times and the ratio reduction / listing, and that the
   verdicts agree.
2. At `m = 16` (43,046,721 pairs, never listed): the reduction's time for both rows.
3. One pair at `m = 256` (`D = ∅`, `z` moving the first 254 queries by +1 and the last two by
   -1): Alg. 1 with `c = 1` (the cutoff of the issue's measurement: `c = 2` has 33,000 answer
   sequences at this m) and report-noisy-max, both laws enumerated exactly and `δ(1)` decided.

Timings are wall seconds on a shared machine (2 cores, other jobs running; the load average is
printed): compare the ratios of one run, not absolute seconds across runs.

Run: python bench/every_input.py [--skip-pair]
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import replace
from fractions import Fraction

from betweencut.baselines import svt_corpus as sc
from betweencut.proofs.baselines.corpus_checks.corpus import CORPUS, audit_row
from betweencut.proofs.laws import noisy_laws
from betweencut.proofs.privacy.enumeration.shared_noise import QueryLawCache

ROWS = {row.name: row for row in CORPUS}


def cold() -> None:
    """Empty the exact laws' caches, so that neither method profits from the other's work."""
    for cached in (noisy_laws.shared_answers_probability, noisy_laws.comparison_given_rho,
                   noisy_laws._noisy_max_law):
        cached.cache_clear()


def timed(name: str, m: int, method: str) -> tuple[float, bool, str]:
    cold()
    start = time.perf_counter()
    result = audit_row(replace(ROWS[name], m=m), method=method)
    return time.perf_counter() - start, result.holds, result.verdict


def one_pair(kind: str, m: int) -> float:
    t = (Fraction(0),) * m

    def run(db: tuple[tuple[int, ...], ...], test: object) -> object:
        q = sc.query_answers(db, m)
        if kind == "noisy-max":
            return sc.noisy_max(q, Fraction(1), test)  # type: ignore[arg-type]
        return sc.svt_alg1(q, t, 1, Fraction(1), test)  # type: ignore[arg-type]

    cold()
    start = time.perf_counter()
    joint = QueryLawCache(run).make_joint((), (2,) * (m - 2) + (0, 0), "output")
    joint.divergence(Fraction(1))
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-pair", action="store_true", help="skip the m = 256 pairs")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f} (2 cores)")
    for name in ("svt-alg1", "noisy-max"):
        listed, held_l, verdict_l = timed(name, 6, "listing")
        reduced, held_r, verdict_r = timed(name, 6, "reduction")
        agree = (held_l, verdict_l) == (held_r, verdict_r)
        print(f"{name}, m = 6: listing {listed:.2f} s, reduction {reduced:.2f} s, ratio "
              f"reduction/listing {reduced / listed:.3f}; verdicts agree: {agree}")
    for name in ("svt-alg1", "noisy-max"):
        seconds, _, verdict = timed(name, 16, "reduction")
        print(f"{name}, m = 16, every input (3^16 pairs): {seconds:.2f} s, {verdict}")
    if not args.skip_pair:
        for kind in ("svt-alg1 (c = 1)", "noisy-max"):
            seconds = one_pair(kind.split()[0], 256)
            print(f"{kind}, m = 256, one pair: {seconds:.2f} s")
    print(f"load average at end: {os.getloadavg()[0]:.2f} (2 cores)")


if __name__ == "__main__":
    main()
