"""The exact privacy curve against bisection (issue 12): what `epsilon_at_delta` costs.

On every neighbouring pair `|D| <= 1` of the complete binary tree of height 3 (BetweenCut,
`tau = 2, lambda = 1/2, R = 1`), for the Heavy set and the transcript, the smallest `ε` with
`δ(ε) <= δ_target` is computed two ways from the same enumerated laws (enumeration is done once,
before either is timed):

* **curve**: `curve_of_laws(P, Q).epsilon_at_delta(δ)`: exact (`ln` of an exact number);
* **baseline, bisection**: `joint.epsilon_for_delta(Joint(P, Q), δ)` to width 2^-10, each
  step one exact hockey-stick evaluation (certified interval of width 1/1024, not exact).

Both are checked to agree (the exact value lies in the bisection's interval). Prints seconds
and the ratio curve / bisection.

Run: python bench/privacy_curve.py [--size 1] [--delta 1/20]
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

from betweencut.data.tree import kary_tree
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.mechanism.params import Params
from betweencut.proofs.privacy.divergence.curve import LogOf, curve_of_laws
from betweencut.proofs.privacy.divergence.joint import Joint, epsilon_for_delta
from betweencut.proofs.privacy.enumeration.cache import LawCache, neighbouring_pairs, with_record


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1)
    parser.add_argument("--delta", type=Fraction, default=Fraction(1, 20))
    args = parser.parse_args()
    tree = kary_tree(2, 3)
    mech = BetweenCut(tree, Params.of(2, Fraction(1, 2), 1))
    cache = LawCache(mech.run, {"heavy": lambda r: r.heavy,  # type: ignore[attr-defined]
                                "transcript": lambda r: r.transcript})  # type: ignore[attr-defined]
    pairs = list(neighbouring_pairs(sorted(tree.level(2)), args.size))
    for on in ("heavy", "transcript"):
        laws = [(cache.law(db, on), cache.law(with_record(db, z), on)) for db, z in pairs]
        start = time.perf_counter()
        exact = [curve_of_laws(p, q).epsilon_at_delta(args.delta) for p, q in laws]
        t_curve = time.perf_counter() - start
        start = time.perf_counter()
        bisected = [epsilon_for_delta(Joint(p, q), args.delta) for p, q in laws]
        t_bisect = time.perf_counter() - start
        for e, b in zip(exact, bisected, strict=True):
            if (e is None) != (b is None):
                raise SystemExit(f"disagree: {e} vs {b}")
            if e is not None and b is not None and not (
                e.compare(LogOf.rational(b[0])) >= 0 and e.compare(LogOf.rational(b[1])) <= 0
            ):
                raise SystemExit(f"exact {e} outside the bisection interval {b}")
        print(f"{on:>10}: {len(pairs)} pairs, curve {t_curve:.2f} s (exact), bisection "
              f"{t_bisect:.2f} s (width 1/1024): ratio curve/bisection = "
              f"{t_curve / t_bisect:.2f}")


if __name__ == "__main__":
    main()
