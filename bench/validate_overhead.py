"""The cost of checking every record against the public tree at the API (issue 18).

`sparse_between_cut(tree, leaves, ...)` now checks each record (`betweencut.data.validate.
check_leaves`: a tuple of ints, within the arity at each depth, ending at a leaf) before it
encodes them. Baseline measured in the same run: the same call path without the check
(`Encoding.encode` then `sparse_between_cut_codes`). Prints the ratio for records with many
repeats (the check is done once per distinct record) and for all-distinct records.

Issue 29: every `BTQuery` converts and checks its fields at construction
(`betweencut.data.validate.exact_number`). Baseline measured in the same run: a copy of the query
class with only the two comparisons it made before. Prints the ratio per construction, and for
a whole release run (`sparse_between_cut` with the exact sampler) with the checking
`__post_init__` and with the old one swapped in, interleaved.
Run: python bench/validate_overhead.py [--n 200000]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

from betweencut.data.tree import Node, kary_tree
from betweencut.errors import ParameterError
from betweencut.mechanism.calibration import calibrate
from betweencut.mechanism.guarded_bt import GuardedBT
from betweencut.mechanism.sparse import Encoding, sparse_between_cut, sparse_between_cut_codes
from betweencut.noise.bt_sampler import ExactSampler
from betweencut.noise.noisy_test import BTQuery

HEIGHT = 20


@dataclass(frozen=True, slots=True)
class UncheckedQuery:
    """`BTQuery` as it was before issue 29: two comparisons, no conversion."""

    count: Fraction
    a: Fraction
    b: Fraction
    lam: Fraction
    node: object = None
    band: tuple[int, int] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.a > self.b:
            raise ParameterError("a", self.a, f"a <= b = {self.b}")
        if self.lam <= 0:
            raise ParameterError("lam", self.lam, "lam > 0")


def query_construction(n: int, repeats: int) -> None:
    cal = calibrate(HEIGHT, 1, "0.05")
    mech = GuardedBT.of(cal.E.ceil() + 10 - 1 / cal.lam, cal.E.ceil() + 10 + 1 / cal.lam,
                        cal.R, cal.lam)
    band = (mech.lower_cut, mech.upper_cut)
    counts = [Fraction(c) for c in range(band[0] + 1, band[1])] * (n // (band[1] - band[0]) + 1)
    counts = counts[:n]
    a, b, lam = mech.a, mech.b, mech.lam

    def unchecked() -> object:
        return [UncheckedQuery(c, a, b, lam, None, band) for c in counts]

    def checked() -> object:
        return [BTQuery(c, a, b, lam, None, band) for c in counts]

    base, with_check = best_of(unchecked, repeats), best_of(checked, repeats)
    print(f"BTQuery construction   n = {n}: checked / unchecked = {with_check / base:.2f} "
          f"({with_check:.3f} s / {base:.3f} s)")


def release_run(n: int, repeats: int) -> None:
    """The release hot path with the query check and with BTQuery's old `__post_init__`."""
    tree = kary_tree(2, HEIGHT)
    cal = calibrate(HEIGHT, 1, "0.05")
    params = cal.params(cal.E.ceil() + 10)
    rng = random.Random(2)
    leaves = [tuple(rng.randrange(2) for _ in range(HEIGHT - 1)) for _ in range(n // 10)]
    checked_init = BTQuery.__post_init__
    times = {"checked": [], "unchecked": []}
    for _ in range(repeats):
        for name, init in (("checked", checked_init), ("unchecked", UncheckedQuery.__post_init__)):
            BTQuery.__post_init__ = init  # type: ignore[method-assign]
            try:
                start = time.perf_counter()
                sparse_between_cut(tree, leaves, params, ExactSampler(1))
                times[name].append(time.perf_counter() - start)
            finally:
                BTQuery.__post_init__ = checked_init  # type: ignore[method-assign]
    base, with_check = statistics.median(times["unchecked"]), statistics.median(times["checked"])
    print(f"release run, queries   n = {n // 10}: checked / unchecked = {with_check / base:.2f} "
          f"({with_check:.3f} s / {base:.3f} s)")


def best_of(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    tree = kary_tree(2, HEIGHT)
    cal = calibrate(HEIGHT, 1, "0.05")
    params = cal.params(cal.E.ceil() + 10)
    encoding = Encoding.of(tree)
    rng = random.Random(1)
    hot = [tuple(rng.randrange(2) for _ in range(HEIGHT - 1)) for _ in range(64)]
    datasets: dict[str, list[Node]] = {
        "64 distinct records": [rng.choice(hot) for _ in range(args.n)],
        "all distinct records": [tuple(rng.randrange(2) for _ in range(HEIGHT - 1))
                                 for _ in range(args.n)],
    }
    for name, leaves in datasets.items():
        def unchecked(leaves: list[Node] = leaves) -> object:
            return sparse_between_cut_codes(encoding.encode(leaves), encoding, HEIGHT, params,
                                            ExactSampler(1))

        def checked(leaves: list[Node] = leaves) -> object:
            return sparse_between_cut(tree, leaves, params, ExactSampler(1))

        base = best_of(unchecked, args.repeats)
        with_check = best_of(checked, args.repeats)
        print(f"{name:<22} n = {args.n}: checked / unchecked = {with_check / base:.2f} "
              f"({with_check:.3f} s / {base:.3f} s)")
    query_construction(args.n, args.repeats)
    release_run(args.n, max(args.repeats, 5))


if __name__ == "__main__":
    main()
