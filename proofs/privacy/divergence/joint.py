"""Exact hockey-stick divergences of two enumerated output laws (the hockey-stick divergence).

For output laws `P`, `Q` and rational `ε` (so `e^ε` is the exact monomial `ExpPoly.exp(ε)`),

    δ_{P‖Q}(ε) = Σ_o (P(o) - e^ε·Q(o))_+ = P(S) - e^ε·Q(S),   S = {o : P(o) > e^ε·Q(o)},

and the divergence of a neighbouring pair is `δ(ε) = max(δ_{P‖Q}(ε), δ_{Q‖P}(ε))` (Def. 2.7 with
`(ε, δ)`: both directions, kept apart and combined by max). Every term's sign is decided by the
gate: first by certified rational enclosures of the factor bags, and only when those straddle 0
by the exact `ExpPoly` sign (which recognises an exact zero). `S` is the violating event a
refutation reports, with `P(S)` and `Q(S)` exact.

Outputs whose probability under each law is one factor bag (full transcripts: one answer
sequence each) are compared after cancelling the factors the two bags share: off the added
record's path both databases answer with the same law (Eq. 4), so only the at most `L` on-path
factors (Lemma 4.2) decide, and that decision is cached across outputs and databases.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache, partial

from betweencut.data.validate import positive_rational
from betweencut.errors import ParameterError
from betweencut.numbers.bisection import certified_bisect, halving
from betweencut.numbers.exact import as_rational
from betweencut.proofs.exact.arith import ExpPoly, sign
from betweencut.proofs.exact.boxes import FloatBox, box_exceeds, float_box, weighted_sum
from betweencut.proofs.laws.factors import Bag, bag_enclosure, bag_value, bags_value
from betweencut.proofs.verdict import Direction, checked_epsilon

__all__ = [
    "Grouped", "HockeyStick", "Joint", "Law", "PairCurve", "bag_exceeds", "bags_box",
    "divergence", "epsilon_for_delta", "hockey_stick",
]

Grouped = Mapping[Hashable, Counter[Bag]]
def _exceeds(
    p_box: FloatBox, q_box: FloatBox, eps: Fraction,
    exact_p: Callable[[], ExpPoly], exact_q: Callable[[], ExpPoly],
) -> bool:
    """`P > e^ε·Q`, by `box_exceeds` (a speed path), else by the exact `ExpPoly` sign: an
    undecided or underflowing comparison always goes to the exact sign."""
    decided = box_exceeds(p_box, q_box, eps)
    if decided is not None:
        return decided
    return sign(exact_p() - exact_q() * ExpPoly.exp(eps)) > 0


def _reduce(p: Bag, q: Bag) -> tuple[Bag, Bag]:
    """Cancel the factors the two bags share (common factors are positive)."""
    cp, cq = Counter(p), Counter(q)
    common = cp & cq
    return tuple(sorted((cp - common).elements())), tuple(sorted((cq - common).elements()))


@lru_cache(maxsize=1 << 18)
def bag_exceeds(p: Bag, q: Bag, eps: Fraction) -> bool:
    """`bag_value(p) > e^ε·bag_value(q)`, exactly, after cancelling the shared factors."""
    return _reduced_exceeds(*_reduce(p, q), eps)


@lru_cache(maxsize=1 << 16)
def _reduced_exceeds(p: Bag, q: Bag, eps: Fraction) -> bool:
    return _exceeds(_bag_box(p), _bag_box(q), eps, lambda: bag_value(p), lambda: bag_value(q))


@lru_cache(maxsize=1 << 16)
def _bag_box(bag: Bag) -> FloatBox:
    return float_box(bag_enclosure(bag))


class Law:
    """An enumerated output law: each output with the factor bags of its answer sequences;
    exact values and certified enclosures are computed once per output, on demand."""

    def __init__(self, bags: Grouped) -> None:
        self.bags = bags
        self._value: dict[Hashable, ExpPoly] = {}
        self._enc: dict[Hashable, FloatBox] = {}

    def single(self, o: Hashable) -> Bag | None:
        """The bag of `o` when exactly one answer sequence gives `o`."""
        bags = self.bags[o]
        if len(bags) == 1:
            bag, n = next(iter(bags.items()))
            return bag if n == 1 else None
        return None

    def value(self, o: Hashable) -> ExpPoly:
        found = self._value.get(o)
        if found is None:
            found = self._value[o] = bags_value(self.bags[o])
        return found

    def enclosure(self, o: Hashable) -> FloatBox:
        """Certified float bounds of `P(o)` (sums and products rounded outward)."""
        found = self._enc.get(o)
        if found is None:
            found = self._enc[o] = bags_box(self.bags[o].items())
        return found


def bags_box(bags: Iterable[tuple[Bag, int]]) -> FloatBox:
    """Certified float bounds of `Σ n·bag_value(bag)` (sums and products rounded outward)."""
    return weighted_sum((_bag_box(bag), n) for bag, n in bags)


@dataclass(frozen=True)
class HockeyStick:
    """`δ_{P‖Q}(ε) = P(S) - e^ε·Q(S)` with its violating event `S` (exact values); `event`
    gives the first few outputs of `S` (found on demand), `event_size` the number of outputs."""

    eps: Fraction
    delta: ExpPoly
    event_size: int
    p_event: ExpPoly
    q_event: ExpPoly
    direction: str
    shown: Callable[[], tuple[Hashable, ...]]

    @property
    def event(self) -> tuple[Hashable, ...]:
        return self.shown()


SHOWN = 4


class PairCurve:
    """The `δ(ε)` curve of one neighbouring pair (the literature's "privacy profile"; here a
    profile is a path's counts, `PathProfile`): `hockey_stick(ε, forward)` gives `δ_{P‖Q}(ε)`
    (forward) or `δ_{Q‖P}(ε)` exactly; `divergence(ε)` takes the larger."""

    def hockey_stick(self, eps: Fraction, forward: bool = True) -> HockeyStick:
        raise NotImplementedError

    def divergence(self, eps: Fraction) -> HockeyStick:
        """`δ(ε) = max(δ_{P‖Q}(ε), δ_{Q‖P}(ε))` (both directions), the larger one returned."""
        forward, backward = self.hockey_stick(eps, True), self.hockey_stick(eps, False)
        return forward if sign(forward.delta - backward.delta) >= 0 else backward


class Joint(PairCurve):
    """Two laws on one output space, grouped once for every `ε` and both directions.

    An output given by a single answer sequence under each law contributes through its pair of
    bags `(bag_P, bag_Q)` (`None` when impossible under that law); equal pairs are counted, not
    repeated, so a comparison is decided once per distinct pair. Other outputs (the Heavy set:
    many answer sequences each) are compared through their full exact values.
    """

    def __init__(self, p: Law, q: Law) -> None:
        self.p, self.q = p, q
        self.pairs: Counter[tuple[Bag | None, Bag | None]] = Counter()
        self.examples: dict[tuple[Bag | None, Bag | None], list[Hashable]] = {}
        self.multi: list[Hashable] = []
        for o in {**p.bags, **q.bags}:
            bp = p.single(o) if o in p.bags else None
            bq = q.single(o) if o in q.bags else None
            if (bp is None and o in p.bags) or (bq is None and o in q.bags):
                self.multi.append(o)
                continue
            key = (bp, bq)
            self.pairs[key] += 1
            shown = self.examples.setdefault(key, [])
            if len(shown) < SHOWN:
                shown.append(o)

    def hockey_stick(self, eps: Fraction, forward: bool = True) -> HockeyStick:
        """`δ_{P‖Q}(ε)` (`forward`) or `δ_{Q‖P}(ε)`, exactly, for rational `ε >= 0`."""
        eps = checked_epsilon(eps)
        p, q = (self.p, self.q) if forward else (self.q, self.p)
        in_p: Counter[Bag] = Counter()
        in_q: Counter[Bag] = Counter()
        keys: list[tuple[Bag | None, Bag | None]] = []
        event: list[Hashable] = []
        size = 0
        for key, n in self.pairs.items():
            x, y = key if forward else key[::-1]
            if x is None or (y is not None and not bag_exceeds(x, y, eps)):
                continue
            in_p[x] += n
            if y is not None:
                in_q[y] += n
            size += n
            if len(keys) < SHOWN:
                keys.append(key)
        for o in self.multi:
            if o not in p.bags:
                continue
            if o in q.bags and not _exceeds(p.enclosure(o), q.enclosure(o), eps,
                                            partial(p.value, o), partial(q.value, o)):
                continue
            in_p.update(p.bags[o])
            in_q.update(q.bags.get(o, Counter()))
            size += 1
            if len(event) < SHOWN:
                event.append(o)
        p_event, q_event = self.event_values(in_p, in_q)
        delta = p_event - q_event * ExpPoly.exp(eps)
        direction = Direction.of(forward)

        def shown() -> tuple[Hashable, ...]:
            found = [o for key in keys for o in self.examples.get(key, [])]
            return tuple((found + event)[:SHOWN])

        return HockeyStick(eps, delta, size, p_event, q_event, direction, shown)

    def event_values(self, in_p: Counter[Bag], in_q: Counter[Bag]
                     ) -> tuple[ExpPoly, ExpPoly]:
        """`P(S)` and `Q(S)` from the bags of the event's answer sequences, exactly (expanded:
        `divergence.factored.FactoredJoint` keeps them factored)."""
        return bags_value(in_p), bags_value(in_q)


def hockey_stick(p: Law, q: Law, eps: Fraction) -> HockeyStick:
    """`δ_{P‖Q}(ε) = Σ_o (P(o) - e^ε·Q(o))_+` exactly, for rational `ε >= 0`.

    Preconditions: `p`, `q` are enumerated laws (factor bags per output).
    Returns: the exact `δ`, the event `S = {o : P(o) > e^ε Q(o)}`, `P(S)` and `Q(S)`.
    """
    return Joint(p, q).hockey_stick(eps)


def divergence(p: Law, q: Law, eps: Fraction) -> HockeyStick:
    """`δ(ε) = max(δ_{P‖Q}(ε), δ_{Q‖P}(ε))` (both directions), the larger one returned."""
    return Joint(p, q).divergence(eps)


def epsilon_for_delta(
    joint: PairCurve, target: Fraction | ExpPoly, width: Fraction = Fraction(1, 1024),
    eps_max: Fraction = Fraction(64),
) -> tuple[Fraction, Fraction] | None:
    """The smallest `ε` with `δ(ε) <= target`, certified to an interval `(lo, hi]` of `width`.

    `δ(ε)` is non-increasing in `ε`; the answer is `(lo, hi)` with `δ(hi) <= target` and either
    `lo = hi = 0` (`δ(0) <= target`) or `δ(lo) > target`, both decided exactly (doubling to a
    bracket, then the package's one bisection, `certified_bisect`). Returns None if
    `δ(eps_max) > target` (no finite `ε` up to `eps_max`; e.g. an output possible under one
    database only, of probability above the target). `target` is a rational or an exact
    `ExpPoly` (e.g. a claim's `δ` such as `e^{-λ(R-1)}/2`), compared exactly either way.
    """
    exact: Fraction | ExpPoly = target if isinstance(target, ExpPoly) else as_rational(
        target, "target")
    if sign(exact) < 0:
        raise ParameterError("target", str(exact), "an exact delta >= 0")
    width = positive_rational(width, "width", " (the bracket's final width)")
    target = exact

    def ok(eps: Fraction) -> bool:
        return sign(joint.divergence(eps).delta - target) <= 0

    if ok(Fraction(0)):
        return Fraction(0), Fraction(0)
    lo, hi = Fraction(0), Fraction(1, 8)
    while not ok(hi):
        lo, hi = hi, hi * 2
        if hi > eps_max:
            return None
    hi, lo = certified_bisect(ok, hi, lo, halving(width))
    return lo, hi
