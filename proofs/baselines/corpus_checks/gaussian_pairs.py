"""The privacy profiles of the two Gaussian pairs, enclosed through the package's hockey stick.

**The continuous pair** `P = N(0, σ²)`, `Q = N(Δ, σ²)` (the Gaussian mechanism on a query of
sensitivity `Δ`). Its output is continuous; `GaussianGridPair` audits the real mechanism
released on a public grid of step `h` (`baselines.svt_corpus.gaussian_on_grid`, written against
the shared-noise primitives and enumerated by `enumeration.gaussian_noise`), so each cell `C`
gets its certified probabilities `P(C)`, `Q(C)`. Then, for each direction,

* lower bound: `Σ_C (P(C) - e^ε·Q(C))_+ <= δ(ε)` (the hockey stick of the grid's laws,
  `CertifiedJoint`: releasing the cell is a post-processing);
* upper bound: on `C`, `∫_C (p - e^ε·q)_+ = ∫_C q·(L - e^ε)_+` with `L = p/q`, whose logarithm
  `ln L(x)` is affine in `x` and exact at rational `x` (`laws.gaussian.gaussian_log_ratio`):
  the term is exactly `P(C) - e^ε·Q(C)` when `inf_C ln L >= ε`, exactly 0 when
  `sup_C ln L <= ε`, and at most `min(P(C), Q(C)·(e^(sup_C ln L) - e^ε))` on the one cell where
  `L` crosses `e^ε` (`P(C)` on an unbounded cell).

The two differ only on the crossing cell, by `O(h²)`. So `δ(ε)` is enclosed with no formula for
it: the check against Balle and Wang's closed form compares two independent computations.

**The discrete pair** `N_Z(0, σ²)`, `N_Z(Δ, σ²)`, integer `Δ`: both laws share `Z`, so on the
window `[min(0, Δ) - T, max(0, Δ) + T]` the hockey stick of the exact weights `w(y)`,
`w(y - Δ)` is exact (`shared_noise.ExactJoint`, every sign decided exactly); divided by the
enclosed `Z` it bounds `δ(ε)` from below, and adding the mass outside the window
(`<= 2·tail_bound(T)/Z`) bounds it from above. Exact: the windowed hockey stick; certified:
`Z` and the tail.
"""

from __future__ import annotations

from collections.abc import Hashable
from fractions import Fraction

from betweencut.baselines.svt_corpus import Grid, gaussian_on_grid
from betweencut.boundary.encoding import release_of
from betweencut.data.validate import positive_rational
from betweencut.errors import ParameterError
from betweencut.proofs.exact.arith import ExpPoly
from betweencut.proofs.exact.enclosure import GUARD_BITS, Bounds, Enclosure, round_bounds
from betweencut.proofs.laws.continuous_gaussian import gaussian_log_ratio
from betweencut.proofs.laws.discrete_gaussian import DiscreteGaussian, cutoff, tail_bound, weight
from betweencut.proofs.privacy.enumeration.gaussian_noise import (
    CertifiedJoint,
    Probability,
    enumerate_certified,
)
from betweencut.proofs.privacy.enumeration.shared_noise import ExactJoint
from betweencut.proofs.verdict import checked_epsilon

__all__ = ["GaussianGridPair", "discrete_gaussian_delta"]

STEPS_PER_SIGMA = 256
REACH_SIGMAS = 12


class GaussianGridPair:
    """`δ(ε)` of `(N(0, σ²), N(Δ, σ²))` enclosed from the Gaussian mechanism on a grid of step
    `σ/steps` over `[min(0, Δ) - reach·σ, max(0, Δ) + reach·σ]` (see the module doc)."""

    def __init__(self, sigma: Fraction, sensitivity: Fraction, steps: int = STEPS_PER_SIGMA,
                 reach: int = REACH_SIGMAS) -> None:
        self.sigma = positive_rational(sigma, "sigma", " (the standard deviation)")
        self.shift = Fraction(sensitivity)
        if self.shift == 0:
            raise ParameterError("sensitivity", sensitivity, "a rational sensitivity != 0")
        if not isinstance(steps, int) or steps < 1 or not isinstance(reach, int) or reach < 1:
            raise ParameterError("(steps, reach)", (steps, reach), "positive integers")
        start = min(Fraction(0), self.shift) - reach * self.sigma
        stop = max(Fraction(0), self.shift) + reach * self.sigma
        grid = Grid.uniform(start, stop, self.sigma / steps)
        # the binary search has exactly one answer sequence per cell; the limit leaves room for
        # the enumeration's estimate of that number (random walks), which may come out above it
        self.grid, sig, limit = grid.points, self.sigma, 2 * (len(grid.points) + 1)
        self.p = enumerate_certified(lambda test: gaussian_on_grid(Fraction(0), grid, sig, test),
                                     limit).values
        self.q = enumerate_certified(lambda test: gaussian_on_grid(self.shift, grid, sig, test),
                                     limit).values
        self.joint = CertifiedJoint(self.p, self.q)

    def _cell_log_ratio(self, j: int, forward: bool) -> tuple[Fraction | None, Fraction | None]:
        """`(inf, sup)` of `ln(p/q)` on cell `j` (None: -∞, +∞), `p` the law the direction
        starts from; `ln(p/q)` is affine with slope `(μ_p - μ_q)/σ²`, so both are at the ends."""
        mu_p, mu_q = (Fraction(0), self.shift) if forward else (self.shift, Fraction(0))
        left = self.grid[j - 1] if j > 0 else None
        right = self.grid[j] if j < len(self.grid) else None
        values = [gaussian_log_ratio(end, mu_p, mu_q, self.sigma)
                  for end in (left, right) if end is not None]
        inf: Fraction | None = min(values)
        sup: Fraction | None = max(values)
        rising = mu_p > mu_q
        if left is None:
            inf, sup = (None, sup) if rising else (inf, None)
        if right is None:
            inf, sup = (inf, None) if rising else (None, sup)
        return inf, sup

    def _upper(self, eps: Fraction, forward: bool) -> Enclosure:
        p, q = (self.p, self.q) if forward else (self.q, self.p)
        grow = ExpPoly.exp(eps)
        grow_node = Enclosure.of(grow)  # one node: its bounds are computed once per precision
        terms: list[Probability] = []
        for j in range(len(self.grid) + 1):
            key = release_of(j)  # the laws key the cell index by its release
            pc, qc = p.get(key, ExpPoly()), q.get(key, ExpPoly())
            inf, sup = self._cell_log_ratio(j, forward)
            if sup is not None and sup <= eps:
                continue
            if inf is not None and inf >= eps:
                terms.append(Enclosure.of(pc) - Enclosure.of(qc) * grow_node)
            elif sup is None:
                terms.append(pc)
            else:
                terms.append(Enclosure.of(pc).minimum(
                    Enclosure.of(qc) * (ExpPoly.exp(sup) - grow)))
        return Enclosure.sum(terms, f"upper bound of delta({eps})")

    def delta(self, eps: Fraction) -> Enclosure:
        """`δ(ε) = max(δ_{P‖Q}(ε), δ_{Q‖P}(ε))` enclosed: the grid's hockey stick below, the
        likelihood-ratio bound above."""
        eps = checked_epsilon(eps)
        lower = self.joint.divergence(eps).delta
        upper = self._upper(eps, True).maximum(self._upper(eps, False))

        def at(prec: int) -> Bounds:
            return lower.enclose(prec)[0], upper.enclose(prec)[1]

        return Enclosure(at, f"delta({eps}) of N(0, {self.sigma}^2) vs N({self.shift}, ...)")


def discrete_gaussian_delta(eps: Fraction, sigma2: Fraction, sensitivity: int) -> Enclosure:
    """`δ(ε)` of `(N_Z(0, σ²), N_Z(Δ, σ²))`, integer `Δ != 0`: the exact windowed hockey stick
    over the enclosed `Z`, plus the mass outside the window on the upper side."""
    law = DiscreteGaussian(sigma2)
    if isinstance(sensitivity, bool) or not isinstance(sensitivity, int) or sensitivity == 0:
        raise ParameterError("sensitivity", sensitivity, "a non-zero integer")
    eps = checked_epsilon(eps)

    def at(prec: int) -> Bounds:
        t = cutoff(law.sigma2, prec)
        window = range(min(0, sensitivity) - t, max(0, sensitivity) + t + 1)
        p: dict[Hashable, ExpPoly] = {y: weight(y, law.sigma2) for y in window}
        q: dict[Hashable, ExpPoly] = {y: weight(y - sensitivity, law.sigma2) for y in window}
        windowed = ExactJoint(p, q).divergence(eps).delta  # exact, unnormalised
        d_lo, d_hi = windowed.enclose(prec + GUARD_BITS)
        z_lo, z_hi = law.normaliser.enclose(prec)
        _, tail = tail_bound(t, law.sigma2).enclose(prec + GUARD_BITS)
        return round_bounds(d_lo / z_hi, (d_hi + 2 * tail) / z_lo, prec + GUARD_BITS)

    return Enclosure(at, f"delta({eps}) of N_Z(0, {law.sigma2}) vs N_Z({sensitivity}, ...)")
