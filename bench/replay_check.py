"""The cost of replaying every run of a user's mechanism (issue 29, item 5).

`audit_mechanism` refuses a user's mechanism whose output is not a function of its noisy
answers (`betweencut.api.replay`): every run is run again on the answers it got and the two
outputs compared. Baseline measured in the same run: the same enumeration with the guard's
replay turned off. Two mechanisms: BetweenCut's run as a user's builder (the whole `Run`
compared, binary tree of height 3, `--lam 1/2 --R 2 --tau 2`), and a small function asking
three BT queries. Prints seconds (best of `--repeat`, interleaved) and the ratio.
Run: python bench/replay_check.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from betweencut.api.load import guarded
from betweencut.betweencut import BetweenCut
from betweencut.noisy_test import BTQuery
from betweencut.params import Params
from betweencut.proofs.privacy.enumeration.transcripts import enumerate_mechanism
from betweencut.tree import kary_tree

DATABASES = [(), ((0, 0),), ((0, 0), (1, 1)), ((0, 0),) * 3, ((0, 0), (0, 1), (1, 0))]


def small(db: Any, test: Any) -> Any:
    out = []
    for i in range(3):
        out.append(test(BTQuery(len(db) + i, 1, 3, Fraction(1, 2))))
    return tuple(out)


def seconds(run: Callable[[Any, Any], Any]) -> float:
    start = time.perf_counter()
    for db in DATABASES:
        enumerate_mechanism(lambda test, db=db: run(db, test), progress=False)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    built = BetweenCut(kary_tree(2, 3), Params.of(2, Fraction(1, 2), 2))
    print("2 cores shared with other jobs: compare the ratios, not the seconds")
    for name, run in (("BetweenCut builder, h = 3", built.run), ("3 BT queries", small)):
        plain = guarded(name, run, replay=False)
        checked = guarded(name, run, replay=True)
        best = {"plain": float("inf"), "replayed": float("inf")}
        for _ in range(args.repeat):
            best["plain"] = min(best["plain"], seconds(plain))
            best["replayed"] = min(best["replayed"], seconds(checked))
        print(f"{name}: without replay {best['plain']:.3f} s, with replay "
              f"{best['replayed']:.3f} s, ratio {best['replayed'] / best['plain']:.2f}")


if __name__ == "__main__":
    main()
