"""The cost of refusing outside randomness while the user's code runs (issue 34).

`betweencut.boundary.sandbox.refusing` sets a profile function for the duration of every run
of a user's mechanism (`betweencut.api.load.in_user_code`). Baseline measured in the same
run: the same audits with `refusing` replaced by a block that does nothing. Three audits:
the README's `examples/my_mechanism.py:flag` (`audit_mechanism`, height 3, every database up
to 1 record), a user's subclass of BetweenCut changing nothing (binary tree of height 3,
`tau 2`, `lam 1/2`, `R 2`: the worst case, all of the package's run under the check) and
three BT queries (every database up to 2 records). The package's own mechanisms run
unchecked (nothing of the user's runs). Prints seconds (best of `--repeat`, interleaved) and
the ratio.
Run: python bench/outside_randomness.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import betweencut.boundary.sandbox as sandbox
from betweencut.api import audit_mechanism
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.noise.noisy_test import BTQuery

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
REAL = sandbox.refusing


@contextlib.contextmanager
def nothing() -> Iterator[None]:
    yield


class Mine(BetweenCut):
    """A user's builder that changes nothing: its run is BetweenCut's, under the check."""


def small(db: Any, test: Any) -> Any:
    return tuple(test(BTQuery(len(db) + i, 1, 3, Fraction(1, 2))) for i in range(3))


AUDITS: dict[str, Callable[[], Any]] = {
    "README my_mechanism:flag, h = 3, exhaustive 1": lambda: audit_mechanism(
        "my_mechanism:flag", exhaustive=1, height=3, epsilon=Fraction(1, 2), delta=0),
    "a user's BetweenCut subclass, h = 3, exhaustive 1": lambda: audit_mechanism(
        Mine, exhaustive=1, height=3, tau=2, lam=Fraction(1, 2),
        R=2, epsilon=2, delta=Fraction(1, 2)),
    "3 BT queries, exhaustive 2": lambda: audit_mechanism(
        small, exhaustive=2, height=3, epsilon=1, delta=0),
}


def seconds(audit: Callable[[], Any], refusing: Any) -> float:
    sandbox.refusing = refusing  # type: ignore[assignment]
    try:
        start = time.perf_counter()
        audit()
        return time.perf_counter() - start
    finally:
        sandbox.refusing = REAL


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print("2 cores shared with other jobs: compare the ratios, not the seconds")
    for name, audit in AUDITS.items():
        best = {"plain": float("inf"), "refusing": float("inf")}
        for _ in range(args.repeat):
            best["plain"] = min(best["plain"], seconds(audit, nothing))
            best["refusing"] = min(best["refusing"], seconds(audit, REAL))
        print(f"{name}: without the check {best['plain']:.3f} s, with it "
              f"{best['refusing']:.3f} s, ratio {best['refusing'] / best['plain']:.2f}")


if __name__ == "__main__":
    main()
