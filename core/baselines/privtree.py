"""PrivTree (Zhang, Xiao and Xie, SIGMOD 2016; FORMULAS.md, last section) over a public box.

A node `v` at depth `ℓ` holding `n_v` points has biased, clamped score
`b̂_v = max(n_v − δ_PT·ℓ, θ − δ_PT)` and is split iff `b̂_v + Lap(λ_PT) > θ`, with
`λ_PT = (2β − 1)/((β − 1)·ε)` (a *scale*) and `δ_PT = λ_PT·ln β`; else it is a leaf. The domain
box is public (bounds read off the data would break DP). Claim: `ε`-DP whatever the depth.

Replaceable parts: `split` (a `SplitRule`: public box -> child boxes, with its fanout `β`;
default: halve the widest side at its integer midpoint, fanout 2), `member` (which box a point
belongs to; default: half-open integer cells `lo <= x < hi` per axis). A box of one cell per axis
cannot be split (public: it depends on the box only) and is a leaf.

Exact representation. Every split decision is the two-outcome test `b̂ + Z > θ`, i.e. the
`BTQuery(count = b̂, a = b = θ, lam = 1/λ_PT)` answered by a `NoisyTest` (split iff `H`), so
the exact sampler releases it and the transcript enumeration checks it. `ln β` is irrational,
so `δ_PT` is taken as `λ_PT·ln_beta_upper` with a rational `ln_beta_upper >= ln β` (certified;
default the 20-bit rounding up of `ln β`): a larger depth penalty only decreases the privacy
loss in PrivTree's proof (its geometric series has ratio `e^{−δ_PT/λ_PT} <= 1/β`), and the
exact enumeration check (`betweencut.proofs.baselines.privtree_checks.privtree`) confirms the
claim on small domains.

Post-processing `min_bins`: while there are fewer leaves, split the leaf chosen by public
information only (the largest box, ties by position), without looking at the data.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from betweencut.boundary.seams import Seams
from betweencut.data.validate import positive_rational
from betweencut.errors import ParameterError
from betweencut.noise.bt_sampler import ExactSampler
from betweencut.noise.noisy_test import BTQuery, NoisyTest, Outcome
from betweencut.numbers.exact import LogReal, as_rational

Interval = tuple[int, int]  # [lo, hi) on one axis
Box = tuple[Interval, ...]  # one interval per dimension
Point = tuple[int, ...]


def box_of(*axes: Interval) -> Box:
    """A public box of 1 or 2 dimensions with integer bounds `lo < hi`."""
    if not 1 <= len(axes) <= 2:
        raise ParameterError("box", axes, "one or two axes")
    for lo, hi in axes:
        if not (isinstance(lo, int) and isinstance(hi, int) and lo < hi):
            raise ParameterError("box", axes, "integer bounds lo < hi on every axis")
    return tuple(axes)


def volume(box: Box) -> int:
    return math.prod(hi - lo for lo, hi in box)


@dataclass(frozen=True)
class SplitRule:
    """Public box -> its children (`fanout` of them), or `()` if the box cannot be split."""

    fanout: int
    children: Callable[[Box], tuple[Box, ...]]


def _midpoint_children(box: Box) -> tuple[Box, ...]:
    widths = [hi - lo for lo, hi in box]
    axis = max(range(len(box)), key=lambda i: (widths[i], -i))  # widest, first on ties
    lo, hi = box[axis]
    if hi - lo < 2:
        return ()
    mid = (lo + hi) // 2
    left = (*box[:axis], (lo, mid), *box[axis + 1:])
    right = (*box[:axis], (mid, hi), *box[axis + 1:])
    return (left, right)


MIDPOINT_SPLIT = SplitRule(2, _midpoint_children)


def cell_member(point: Point, box: Box) -> bool:
    """Half-open integer cells: `lo <= x < hi` on every axis."""
    return all(lo <= x < hi for x, (lo, hi) in zip(point, box, strict=True))


def ln_upper(beta: int, bits: int = 20) -> Fraction:
    """A rational `>= ln β`, certified: `⌈ln β · 2^bits⌉ / 2^bits`."""
    value = LogReal(Fraction(0), Fraction(1 << bits), Fraction(beta))
    return Fraction(value.ceil(), 1 << bits)


@dataclass(frozen=True)
class PrivTree:
    """Public parameters: the box, `ε`, `θ`, the split rule and membership rule, `min_bins`."""

    box: Box
    epsilon: Fraction
    theta: Fraction = Fraction(0)
    split: SplitRule = MIDPOINT_SPLIT
    member: Callable[[Point, Box], bool] = cell_member
    min_bins: int = 1
    ln_beta_upper: Fraction | None = None

    @staticmethod
    def of(box: Box, epsilon: object, theta: object = 0, *, split: SplitRule = MIDPOINT_SPLIT,
           member: Callable[[Point, Box], bool] = cell_member, min_bins: int = 1) -> PrivTree:
        eps = positive_rational(epsilon, "epsilon", text=True)
        if split.fanout < 2:
            raise ParameterError("fanout", split.fanout, "beta >= 2")
        if not isinstance(min_bins, int) or min_bins < 1:
            raise ParameterError("min_bins", min_bins, "an integer >= 1")
        return PrivTree(box_of(*box), eps, as_rational(theta, "theta"), split, member,
                        min_bins, ln_upper(split.fanout))

    @property
    def beta(self) -> int:
        return self.split.fanout

    @property
    def scale(self) -> Fraction:
        """`λ_PT = (2β − 1)/((β − 1)·ε)`, the Laplace scale."""
        return Fraction(2 * self.beta - 1, self.beta - 1) / self.epsilon

    @property
    def depth_penalty(self) -> Fraction:
        """`δ_PT = λ_PT·ln β`, with `ln β` rounded up to a certified rational."""
        ln_b = self.ln_beta_upper if self.ln_beta_upper is not None else ln_upper(self.beta)
        return self.scale * ln_b

    def score(self, n_points: int, depth: int) -> Fraction:
        """`b̂_v = max(n_v − δ_PT·ℓ, θ − δ_PT)`."""
        return max(n_points - self.depth_penalty * depth, self.theta - self.depth_penalty)

    def query(self, n_points: int, depth: int, box: Box) -> BTQuery:
        """The split test `b̂ + Lap(λ_PT) > θ` as a two-outcome BT call (split iff `H`)."""
        return BTQuery(self.score(n_points, depth), self.theta, self.theta, 1 / self.scale, box)

    def run(self, points: Sequence[Point], test: NoisyTest | None = None) -> frozenset[Box]:
        """The leaves of the released partition."""
        noisy = test if test is not None else ExactSampler()
        for pt in points:
            if not self.member(pt, self.box):
                raise ParameterError("point", pt, f"a point inside the public box {self.box}")
        leaves: list[Box] = []
        stack: list[tuple[Box, int, list[Point]]] = [(self.box, 0, list(points))]
        while stack:  # depth first, children in the split rule's order
            box, depth, inside = stack.pop()
            children = self.split.children(box)
            if not children:
                leaves.append(box)
                continue
            if noisy(self.query(len(inside), depth, box)) is not Outcome.H:
                leaves.append(box)
                continue
            for child in reversed(children):
                stack.append((child, depth + 1, [p for p in inside if self.member(p, child)]))
        return self.force_min_bins(leaves)

    def force_min_bins(self, leaves: list[Box]) -> frozenset[Box]:
        """Public post-processing: split the largest splittable leaf (ties: smallest position)
        until `min_bins` leaves exist or none can be split."""
        out = list(leaves)
        while len(out) < self.min_bins:
            splittable = [b for b in out if self.split.children(b)]
            if not splittable:
                break
            target = max(splittable, key=lambda b: (volume(b), tuple(-lo for lo, _ in b)))
            out.remove(target)
            out.extend(self.split.children(target))
        return frozenset(out)


# PrivTree's seams (`betweencut.boundary.seams`), snapshot when the class is defined: the run and
# its post-processing, the split test and the score it reads.
SEAMS = Seams.of(PrivTree, steps=("run", "force_min_bins", "query", "score", "scale",
                                  "depth_penalty", "beta"))
