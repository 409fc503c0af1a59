"""A pair's hockey stick from factored law values: no product of factors is expanded.

The exact divergence (`joint.Joint`) decides which outputs are in the violating event `S` by
comparing their two bags (shared factors cancelled, certified enclosures first, the exact sign
when they straddle), then expands `P(S) = Σ_bags n·Π factors` and `Q(S)` as `ExpPoly`s. A bag
of `k` distinct two-term factors expands to up to `2^k` terms: on a deep PrivTree path (`T_z`
of 80 boxes, `[0, 2^40)`) that expansion, not the search, is the audit's cost (issue 35,
item 5). `FactoredJoint` decides the event exactly as `Joint` does (the same `bag_exceeds`)
and keeps `P(S)` and `Q(S)` factored: each is a certified real (`Enclosure`, `factored_sum`)
whose bounds at `prec` bits are sums of products of the factors' own certified enclosures
(`ExpPoly.enclose`, every product and sum rounded outward), refined by the package's one sign
gate (`betweencut.numbers.exact.certified_sign`: 64, 128, ... bits up to the cap, `Undecided` only
there). An empty event is the exact 0, and a divergence whose two directions are exact is decided
exactly; otherwise `δ(ε)` is the certified maximum of the two directions (`components`' rule).
The verdict states such a `δ` as an enclosure (`verdict.certified`). Tested against `Joint`
on small PrivTree domains, both cells: the exact `δ`, `P(S)` and `Q(S)` lie in the
enclosures, and the events are the same.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from functools import lru_cache
from typing import cast

from betweencut.proofs.exact.arith import ExpPoly, sign
from betweencut.proofs.exact.enclosure import GUARD_BITS, Bounds, Enclosure, round_bounds
from betweencut.proofs.laws.factors import Bag, factor_value
from betweencut.proofs.privacy.divergence.joint import HockeyStick, Joint

__all__ = ["FactoredJoint", "factor_bounds", "factored_sum"]


@lru_cache(maxsize=1 << 14)
def factor_bounds(fid: int, prec: int) -> Bounds:
    """Certified bounds of one factor (a probability: the lower end clipped at 0)."""
    lo, hi = factor_value(fid).enclose(prec)
    return max(lo, Fraction(0)), min(hi, Fraction(1))


def _bag_bounds(bag: Bag, prec: int) -> Bounds:
    """Certified bounds of `Π factors` of one bag, rounded outward at each step."""
    bits = prec + GUARD_BITS + len(bag).bit_length()
    lo, hi = Fraction(1), Fraction(1)
    for fid, power in Counter(bag).items():
        f_lo, f_hi = factor_bounds(fid, bits)
        lo, hi = round_bounds(lo * f_lo**power, hi * f_hi**power, bits)
    return lo, hi


def factored_sum(bags: Counter[Bag], label: str = "a factored probability") -> Enclosure:
    """`Σ n·Π factors(bag)` over `bags` as a certified real (exactly 0 when empty): its bounds
    at `prec` bits are the sums of the bags' certified products (no product expanded)."""
    items = [(bag, n) for bag, n in bags.items() if n]
    if not items:
        return Enclosure.zero()

    def at(prec: int) -> Bounds:
        lo = hi = Fraction(0)
        for bag, n in items:
            b_lo, b_hi = _bag_bounds(bag, prec)
            lo, hi = lo + n * b_lo, hi + n * b_hi
        return round_bounds(lo, hi, prec + GUARD_BITS)

    return Enclosure(at, label, key=("factored", tuple(sorted(items))))


class FactoredJoint(Joint):
    """`Joint` with `P(S)`, `Q(S)` and `δ` kept factored (module doc): the event is decided
    exactly, its probabilities are certified enclosures (an empty event: the exact 0)."""

    def event_values(self, in_p: Counter[Bag], in_q: Counter[Bag]
                     ) -> tuple[ExpPoly, ExpPoly]:
        """`P(S)`, `Q(S)` factored (`factored_sum`; typed as the exact values they stand for:
        an `Enclosure` offers the same arithmetic, `enclose`, the gate's sign and `str`)."""
        if not +in_p and not +in_q:
            return ExpPoly.const(0), ExpPoly.const(0)
        return (cast(ExpPoly, factored_sum(in_p, "P(S)")),
                cast(ExpPoly, factored_sum(in_q, "Q(S)")))

    def divergence(self, eps: Fraction) -> HockeyStick:
        """`max(δ_{P‖Q}(ε), δ_{Q‖P}(ε))`: exactly when both are exact (empty events), else the
        certified maximum of the two (the event shown: the larger lower bound's direction)."""
        forward, backward = self.hockey_stick(eps, True), self.hockey_stick(eps, False)
        if isinstance(forward.delta, ExpPoly) and isinstance(backward.delta, ExpPoly):
            return forward if sign(forward.delta - backward.delta) >= 0 else backward
        f_delta, b_delta = Enclosure.of(forward.delta), Enclosure.of(backward.delta)
        larger = forward if f_delta.enclose(64)[0] >= b_delta.enclose(64)[0] else backward
        return HockeyStick(eps, cast(ExpPoly, f_delta.maximum(b_delta)), larger.event_size,
                           larger.p_event, larger.q_event, larger.direction, larger.shown)
