"""An audit's projected cost against its measured time (issue 26: budgets stated up front).

`audit_mechanism` under a time budget projects its whole work before any
(`betweencut.proofs.privacy.enumeration.cost.audit_cost`) and refuses a job past the budget.
The projection is meant to err low on the time per unit of work (so that nothing that fits is
refused) and high on the comparisons counted (each at full width: "at most"). This script runs
audits of a few seconds to a minute with no budget to speak of, records the projection the
audit made (a tracker that keeps what it was asked to afford) and prints it beside the measured
time and their ratio (measured / projected: above 1 where the projection errs low). It also
measures the two rates the projection assumes, in the same run: a decode on the packed lattice
(digits a second, against `DECODE_RATE`) and the per-pair grouping of a shared outcome
tree (seconds per answer sequence, against `WEIGH_SECONDS`). The issue's two commands are only
projected (each runs for many minutes).

The machine is shared (2 cores, other jobs): the seconds depend on its load, the ratios less.
Run: python bench/audit_cost.py [--quick]
"""

from __future__ import annotations

import argparse
import contextlib
import random
import time
from fractions import Fraction
from typing import Any

from betweencut.api import audit_mechanism
from betweencut.progress import BudgetExceeded, Tracker, tracking
from betweencut.proofs.exact.packed import Lattice
from betweencut.proofs.privacy.enumeration import cost

BETWEENCUT = "betweencut.mechanism.betweencut:BetweenCut"
THEOREM = "theorem-5.4"  # the command line's claim for BetweenCut, calibrated too
H4_PAIR: dict[str, Any] = {"height": 4, "pairs": [("{0/0/0}", "0/0/0")]}
CASES: list[tuple[str, dict[str, Any], bool]] = [  # (what, audit_mechanism's arguments, quick)
    ("h = 3, lam 1/2, R 2, tau 2, |D| <= 2 (60 pairs)",
     {"height": 3, "lam": Fraction(1, 2), "R": 2, "tau": 2, "exhaustive": 2}, True),
    ("h = 4, lam 1/2, R 2, tau 2, |D| <= 1 (40 pairs)",
     {"height": 4, "lam": Fraction(1, 2), "R": 2, "tau": 2, "exhaustive": 1}, True),
    ("h = 4, one pair, calibrated eps 1, delta 0.05 (paper), tau 2",
     {**H4_PAIR, "epsilon": 1, "delta": Fraction(1, 20), "tau": 2, "claim": THEOREM}, True),
    ("h = 4, one pair, lam 1/300, R 1000, tau 1000",
     {**H4_PAIR, "lam": Fraction(1, 300), "R": 1000, "tau": 1000}, False),
    ("h = 3, lam 1/1000, R 1000, tau 1000, |D| <= 2 (60 pairs)",
     {"height": 3, "lam": Fraction(1, 1000), "R": 1000, "tau": 1000, "exhaustive": 2}, False),
    ("h = 4, lam 1/2, R 2, tau 2, |D| <= 2 (360 pairs)",
     {"height": 4, "lam": Fraction(1, 2), "R": 2, "tau": 2, "exhaustive": 2}, False),
]
ISSUE = [  # projected only
    ("issue 26: h = 4, lam 1/1000, R 1000, tau 1000, |D| <= 2",
     {"height": 4, "lam": Fraction(1, 1000), "R": 1000, "tau": 1000, "exhaustive": 2}),
    ("issue 29: h = 4, one pair, eps 1, delta 0.05 (tight), tau 2",
     {**H4_PAIR, "epsilon": 1, "delta": Fraction(1, 20), "tau": 2, "accountant": "tight",
      "claim": THEOREM}),
]


class Recording(Tracker):
    """Keeps the first projection of a whole audit it is asked to afford."""

    def __init__(self, budget: float) -> None:
        super().__init__(budget=budget)
        self.projected: tuple[float, str] | None = None

    def afford(self, seconds: float, what: str, advice: str | None = None) -> None:
        if self.projected is None and what.startswith("the audit ("):
            self.projected = (seconds, what)
        super().afford(seconds, what, advice)


def audit(arguments: dict[str, Any], budget: float) -> tuple[Recording, float, bool]:
    """The audit under `budget`: its tracker, its seconds, whether the budget stopped it."""
    tracker = Recording(budget)
    start = time.perf_counter()
    refused = True
    with tracking(tracker), contextlib.suppress(BudgetExceeded):
        audit_mechanism(BETWEENCUT, **arguments)
        refused = False
    return tracker, time.perf_counter() - start, refused


def decode_rate(bits: int = 1 << 19, width: int = 33) -> float:
    """Digits a second of `Lattice.decode` on a random value (best of 3)."""
    lattice = Lattice(1000, 1, -(bits // width), width)
    value = random.Random(0).getrandbits(bits)
    best = min(_timed(lambda: lattice.decode(value)) for _ in range(3))
    return bits / width / best


def weigh_seconds() -> float:
    """Seconds per answer sequence, pair and release of comparing pairs on a shared tree (its
    grouping, and decodes of a few thousand bits): binary h = 4, lam 1/2, R = tau = 2, the 40
    pairs `|D| <= 1` at Theorem 5.4's points on both releases, the tree enumerated before."""
    from betweencut.data.tree import kary_tree
    from betweencut.mechanism.params import Params
    from betweencut.proofs.privacy.audit.pairs import audit_pairs
    from betweencut.proofs.privacy.claims.setup import betweencut_cache, theorem_5_4_points
    from betweencut.proofs.privacy.enumeration.cache import neighbouring_pairs

    tree, params = kary_tree(2, 4), Params.of(2, Fraction(1, 2), 2)
    pairs = list(neighbouring_pairs(sorted(tree.level(3)), 1))
    points = theorem_5_4_points(tree, params)
    cache = betweencut_cache(tree, params)
    audit_pairs(cache.run, pairs[:1], points, on="transcript", cache=cache)  # the tree
    sequences = max(e.transcripts for e in cache.enumerations.values())
    took = sum(_timed(lambda on=on: audit_pairs(cache.run, pairs[1:], points, on=on,
                                                cache=cache))
               for on in ("transcript", "heavy"))
    return took / (2 * (len(pairs) - 1)) / sequences


def _timed(fn: Any) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only the audits of a few seconds")
    args = parser.parse_args()
    rate = decode_rate()
    weigh = weigh_seconds()
    print(f"decode: {rate:.3g} digits a second (DECODE_RATE {cost.DECODE_RATE:.3g}, "
          f"{cost.DECODE_RATE / rate:.1f}x); grouping: {weigh:.2g} s per answer sequence "
          f"(WEIGH_SECONDS {cost.WEIGH_SECONDS:.2g}, {weigh / cost.WEIGH_SECONDS:.1f}x)")
    print(f"{'audit':62} {'projected s':>11} {'measured s':>10} {'ratio':>6}")
    for what, arguments, quick in CASES:
        if args.quick and not quick:
            continue
        tracker, took, _ = audit(arguments, 1e6)
        projected = tracker.projected[0] if tracker.projected else float("nan")
        print(f"{what:62} {projected:11.1f} {took:10.1f} {took / projected:6.2f}")
    for what, arguments in ISSUE:
        tracker, took, refused = audit(arguments, 60)
        projected = tracker.projected[0] if tracker.projected else float("nan")
        print(f"{what:62} {projected:11.1f} {'refused' if refused else 'ran':>10} "
              f"(in {took:.1f} s, budget 60 s)")


if __name__ == "__main__":
    main()
