"""The discrete Gaussian's law on the proof path: exact weights, a certified normaliser.

`N_Z(0, σ²)` (Canonne, Kamath, Steinke 2020, Def. 1) gives the integer `y` the probability

    P(y) = w(y) / Z,     w(y) = e^(-y²/(2σ²)),     Z = Σ_{z ∈ Z} w(z).

With a rational `σ²` every weight is an exact `ExpPoly` (a rational exponent), so finite sums of
weights, and every comparison between them, are exact. Only the infinite sums are enclosed:
for an integer `t >= 0`, `y = t + 1 + k` has `y² >= (t+1)² + 2k(t+1)`, so

    Σ_{y > t} w(y) <= e^(-(t+1)²/(2σ²)) / (1 - e^(-(t+1)/σ²))        (`tail_bound`, exact),

a geometric series. At `prec` bits the sums are cut at `T = cutoff(σ², prec)`, where the tail
bound is below `2^-(prec+8)`: `Z ∈ [S_T, S_T + 2·tail_bound(T)]`, `S_T = Σ_{|y| <= T} w(y)`,
and a tail `P(Y > a)` is its finite part plus the tail bound on the upper side. Those are
`Enclosure`s; no float is formed. Needs no python-flint (`ExpPoly.enclose` is mpmath intervals).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

from betweencut.data.validate import positive_rational
from betweencut.errors import ParameterError
from betweencut.proofs.exact.arith import ExpPoly, ExpRational
from betweencut.proofs.exact.enclosure import GUARD_BITS, Bounds, Enclosure, round_bounds
from betweencut.proofs.verdict import checked_epsilon

__all__ = ["DiscreteGaussian", "cks_delta", "cutoff", "tail_bound", "weight"]


def _sigma2(sigma2: object) -> Fraction:
    return positive_rational(sigma2, "sigma2", " (the variance sigma^2)")


def weight(y: int, sigma2: Fraction) -> ExpPoly:
    """`e^(-y²/(2σ²))`, exactly."""
    return ExpPoly.exp(Fraction(-y * y) / (2 * sigma2))


def tail_bound(t: int, sigma2: Fraction) -> ExpRational:
    """An exact upper bound on `Σ_{y > t} e^(-y²/(2σ²))` for an integer `t >= 0` (the module
    doc's geometric series)."""
    if t < 0:
        raise ParameterError("t", t, "an integer t >= 0")
    first = ExpPoly.exp(-Fraction((t + 1) ** 2) / (2 * sigma2))
    return first / (1 - ExpPoly.exp(-Fraction(t + 1) / sigma2))


def cutoff(sigma2: Fraction, prec: int) -> int:
    """The `T` used at `prec` bits: `(T + 1)² >= 2σ²·(prec + 8)`, so the first term of the tail
    is at most `e^-(prec+8) < 2^-(prec+8)` (and the geometric factor stays near 1)."""
    need = 2 * sigma2 * (prec + 8)
    root = math.isqrt(math.ceil(need))
    return max(root, 1)


@lru_cache(maxsize=256)
def _weights_from(start: int, stop: int, sigma2: Fraction) -> ExpPoly:
    """`Σ_{start <= y <= stop} w(y)`, exactly."""
    out = ExpPoly()
    for y in range(start, stop + 1):
        out = out + weight(y, sigma2)
    return out


def _bounds(x: ExpPoly | ExpRational, prec: int) -> Bounds:
    return x.enclose(prec + GUARD_BITS)


class DiscreteGaussian:
    """The law of `N_Z(0, σ²)`, rational `σ² > 0`: exact weights, enclosed probabilities."""

    def __init__(self, sigma2: Fraction) -> None:
        self.sigma2 = _sigma2(sigma2)
        self.normaliser = Enclosure(self._normaliser, f"Z(sigma^2 = {self.sigma2})")

    def _normaliser(self, prec: int) -> Bounds:
        t = cutoff(self.sigma2, prec)
        lo, hi = _bounds(1 + 2 * _weights_from(1, t, self.sigma2), prec)
        _, tail = _bounds(tail_bound(t, self.sigma2), prec)
        return round_bounds(lo, hi + 2 * tail, prec + GUARD_BITS)

    def weight(self, y: int) -> ExpPoly:
        return weight(y, self.sigma2)

    def probability(self, y: int) -> Enclosure:
        """`P(Y = y) = w(y)/Z`."""
        return Enclosure.of(self.weight(y)) / self.normaliser

    def _weight_from(self, start: int, prec: int) -> Bounds:
        """Bounds of `Σ_{y >= start} w(y)` for `start >= 1`."""
        t = max(cutoff(self.sigma2, prec), start - 1)
        lo, hi = _bounds(_weights_from(start, t, self.sigma2), prec)
        _, tail = _bounds(tail_bound(t, self.sigma2), prec)
        return lo, hi + tail

    def upper_tail(self, a: Fraction) -> Enclosure:
        """`P(Y > a)` for a rational `a`: the weights of `y >= ⌊a⌋ + 1` over `Z` (by symmetry
        `1 - Σ_{y >= -⌊a⌋} w(y)/Z` when `⌊a⌋ + 1 <= 0`)."""
        start = math.floor(Fraction(a)) + 1
        if start >= 1:
            part = Enclosure(lambda prec: self._weight_from(start, prec),
                             f"sum of w(y), y >= {start}")
            return part / self.normaliser
        part = Enclosure(lambda prec: self._weight_from(1 - start, prec),
                         f"sum of w(y), y >= {1 - start}")
        return 1 - part / self.normaliser


def cks_delta(eps: Fraction, sigma2: Fraction, sensitivity: int) -> Enclosure:
    """Canonne, Kamath and Steinke 2020, Theorem 7: adding `N_Z(0, σ²)` to an integer query of
    sensitivity `Δ` is `(ε, δ)`-DP, tightly, for
    `δ = P(Y > εσ²/Δ - Δ/2) - e^ε·P(Y > εσ²/Δ + Δ/2)`, `Y ~ N_Z(0, σ²)` (enclosed here)."""
    if isinstance(sensitivity, bool) or not isinstance(sensitivity, int) or sensitivity < 1:
        raise ParameterError("sensitivity", sensitivity, "an integer sensitivity >= 1")
    eps = checked_epsilon(eps)
    law = DiscreteGaussian(sigma2)
    centre = Fraction(eps) * law.sigma2 / sensitivity
    half = Fraction(sensitivity, 2)
    return law.upper_tail(centre - half) - law.upper_tail(centre + half) * ExpPoly.exp(eps)
