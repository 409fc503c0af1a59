"""What the kind check costs the fresh-noise enumeration (issue 16).

`BranchingTest.__call__` now asks `isinstance(query, BTQuery)` first, so that a mechanism asking
a shared-noise primitive raises `ForeignQuery` and the audit switches kind. This script
enumerates BetweenCut on the empty database of a complete binary tree (the real enumeration,
`enumerate_mechanism`), counts the noisy tests it answered, and times the same number of
`isinstance` checks on the same queries in the same run: the ratio is the share of the
enumeration's time the check takes.

Run: python bench/kind_check.py [--height 4] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

from betweencut.data.tree import kary_tree
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.mechanism.params import Params
from betweencut.noise.noisy_test import BTQuery, NoisyTest, Outcome
from betweencut.proofs.privacy.enumeration.transcripts import enumerate_mechanism


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--height", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    mechanism = BetweenCut(kary_tree(2, args.height),
                           Params.of(Fraction(2), Fraction(1, 2), Fraction(2)))
    asked: list[BTQuery] = []

    def run(test: NoisyTest) -> object:
        def recording(query: BTQuery) -> Outcome:
            asked.append(query)
            return test(query)

        return mechanism.run((), recording)

    best_enum = best_check = float("inf")
    for _ in range(args.repeat):
        asked.clear()
        start = time.perf_counter()
        enumerate_mechanism(run, progress=False)
        best_enum = min(best_enum, time.perf_counter() - start)
        start = time.perf_counter()
        hits = sum(1 for q in asked if isinstance(q, BTQuery))
        best_check = min(best_check, time.perf_counter() - start)
    print(f"binary tree h = {args.height}: {len(asked)} noisy tests answered in "
          f"{best_enum:.3f} s (best of {args.repeat})")
    print(f"  {hits} isinstance checks: {best_check * 1e3:.2f} ms = "
          f"{best_check / best_enum:.2%} of the enumeration")


if __name__ == "__main__":
    main()
