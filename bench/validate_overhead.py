"""The cost of checking every record against the public tree at the API (issue 18).

`sparse_between_cut(tree, leaves, ...)` now checks each record (`betweencut.validate.
check_leaves`: a tuple of ints, within the arity at each depth, ending at a leaf) before it
encodes them. Baseline measured in the same run: the same call path without the check
(`Encoding.encode` then `sparse_between_cut_codes`). Prints the ratio for records with many
repeats (the check is done once per distinct record) and for all-distinct records.
Run: python bench/validate_overhead.py [--n 200000]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from betweencut.calibration import calibrate
from betweencut.sampler import ExactSampler
from betweencut.sparse import Encoding, sparse_between_cut, sparse_between_cut_codes
from betweencut.tree import Node, kary_tree

HEIGHT = 20


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


if __name__ == "__main__":
    main()
