"""Laws of a released noisy value (`betweencut.noise.NoisyValue`) on two databases: the
hockey stick, the Rényi moment, KL and the largest log-ratio of one coordinate that moves.

A released value is `c + Y` on one database and `c' + Y` on the other (same noise law). Its
likelihood ratio takes infinitely many values, but the privacy quantities are finite sums or
closed forms (never a truncation):

* **discrete Laplace**, `P(Y = y) = κ·e^(-|y|/b)`, `κ = (1 - e^(-1/b))/(1 + e^(-1/b))`: with
  `m`, `M` the least and largest centres of every law compared, the ratio of any two mixtures
  of such laws is constant on `y <= m` and on `y >= M` (every component there is a multiple of
  `e^(y/b)`, resp. `e^(-y/b)`), so the line splits into the two tails and the integers between:
  finitely many regions, each an atom with exact masses (`dlap_regions`; a tail of
  `c + Y` is `P(Y <= -k) = e^(-k/b)/(1 + e^(-1/b))`, a geometric series in closed form). The
  hockey stick and the Rényi divergence of two laws equal those of their atoms (a region of
  constant ratio acts as one outcome);
* **continuous Laplace** (one moving coordinate, weights `p`, `q`, `u = |c - c'|/b`,
  `L = ln(p/q) - ε`): the ratio is monotone, so `δ = p - e^ε·q` for `L >= u`, `0` for
  `L <= -u`, and otherwise `δ = p - √(pq)·e^((ε - u)/2)`, the event's masses
  `P(S) = p - ½√(pq)·e^((ε - u)/2)` and `Q(S) = ½√(pq)·e^(-(ε + u)/2)`; the Rényi moment is
  Mironov's (CSF 2017, Prop. 6) `M(α) = α/(2α-1)·e^((α-1)u) + (α-1)/(2α-1)·e^(-αu)` (exact
  for every rational `α`), `KL = u + e^(-u) - 1`, the largest log-ratio `u`;
* **Gaussian** `N(0, σ²)` (`Δ = |c - c'|`): the ratio is monotone with threshold
  `y* = (c + c')/2 + σ²·L/Δ`, `δ = p·Φ(Δ/(2σ) + σL/Δ) - e^ε·q·Φ(-Δ/(2σ) + σL/Δ)` (Balle and
  Wang 2018, Theorem 8, weighted; enclosed with Arb); `M(α) = e^(α(α-1)Δ²/(2σ²))`,
  `KL = Δ²/(2σ²)`, the ratio unbounded;
* **discrete Gaussian** `N_Z(0, σ²)`: the event is `y <= Y*`, the integer found by exact
  comparisons, its masses tails of `N_Z` (`DiscreteGaussian`, certified); `M(α) =
  e^(α(α-1)Δ²/(2σ²))` exactly at integer `α` (the normaliser is shift-invariant) and at most
  that at every `α` (Canonne, Kamath, Steinke 2020, Prop. 5), `KL = Δ²/(2σ²)`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Union

from mpmath import iv

from betweencut.errors import ParameterError
from betweencut.noise.primitives import DISCRETE_GAUSSIAN, GAUSSIAN, LAPLACE
from betweencut.numbers.exact import iv_endpoints, iv_precision
from betweencut.proofs.exact.arith import ExpPoly, ExpRational, sign
from betweencut.proofs.exact.enclosure import (
    GUARD_BITS,
    Bounds,
    Enclosure,
    positive_excess,
    round_bounds,
)
from betweencut.proofs.exact.jets import Jet, interval
from betweencut.proofs.laws.discrete_gaussian import DiscreteGaussian

__all__ = ["HALF", "Region", "Shift", "Value", "dlap_regions", "exp_log_ratio", "sqrt_product"]

Value = Union[ExpRational, Enclosure]  # noqa: UP007
HALF = Fraction(1, 2)


def _ratio(x: ExpRational | ExpPoly | Fraction | int) -> ExpRational:
    return ExpRational.of(x)


def exp_log_ratio(p: ExpRational, q: ExpRational) -> Fraction | None:
    """The rational `r` with `p/q = e^r` exactly, if there is one (else None)."""
    ratio = _ratio(p) / _ratio(q)
    num, den = ratio.num, ratio.den
    if not num.terms or not den.terms:
        return None
    r = max(num.terms) - max(den.terms)
    return r if (num - den * ExpPoly.exp(r)).is_zero() else None


def sqrt_product(p: ExpRational, q: ExpRational) -> Value:
    """`√(p·q)`: exact when `p = q` or `p/q = e^r` with `r` rational, else enclosed."""
    if (p - q).is_zero():
        return p
    r = exp_log_ratio(p, q)
    if r is not None:
        return q * ExpPoly.exp(r / 2)
    product = p * q

    def at(prec: int) -> Bounds:
        lo, hi = product.enclose(prec + GUARD_BITS)
        with iv_precision(prec + 2 * GUARD_BITS):
            a, _ = iv_endpoints(iv.sqrt(interval(max(lo, Fraction(0)))))
            _, b = iv_endpoints(iv.sqrt(interval(hi)))
        return round_bounds(a, b, prec + GUARD_BITS)

    return Enclosure(at, f"sqrt(({p})*({q}))")


@dataclass(frozen=True)
class Region:
    """A region of the line where every discrete Laplace law compared has a constant ratio:
    `y <= at` (`kind` "below"), `y >= at` ("above"), the point `y = at` ("point"), or the
    whole line ("all": a single centre)."""

    kind: str
    at: int

    def text(self) -> str:
        return {"below": f"<= {self.at}", "above": f">= {self.at}", "all": "any"}.get(
            self.kind, f"= {self.at}")


def dlap_regions(b: Fraction, centres: Sequence[int]
                 ) -> list[tuple[Region, dict[int, ExpRational]]]:
    """The regions of `c + Y`, `Y ~` discrete Laplace(`b`), for every `c` in `centres`
    (module docstring), each with the exact mass of every `c + Y` in it."""
    low, high = min(centres), max(centres)
    if low == high:
        return [(Region("all", low), {low: ExpRational(ExpPoly.const(1))})]
    q = ExpPoly.exp(-1 / b)
    tail = 1 + q  # P(Y <= -k) = e^(-k/b) / (1 + e^(-1/b))
    kappa = ExpRational(1 - q, tail)
    distinct = sorted(set(centres))
    out = [(Region("below", low), {c: ExpRational(ExpPoly.exp(-(c - low) / b), tail)
                                   for c in distinct})]
    for y in range(low + 1, high):
        out.append((Region("point", y), {c: kappa * ExpPoly.exp(-abs(y - c) / b)
                                         for c in distinct}))
    out.append((Region("above", high), {c: ExpRational(ExpPoly.exp(-(high - c) / b), tail)
                                        for c in distinct}))
    return out


def _normal_cdf_bounds(x_lo: Fraction, x_hi: Fraction, prec: int) -> Bounds:
    """Bounds of `Φ(x)` for every `x` in `[x_lo, x_hi]` (Arb; `Φ` is increasing)."""
    from betweencut.proofs.laws.continuous_gaussian import arb_bounds, arb_precision

    with arb_precision(prec + 2 * GUARD_BITS) as flint:
        root2 = flint.arb(2).sqrt()

        def phi(x: Fraction) -> Any:
            return (-(flint.arb(x.numerator) / x.denominator) / root2).erfc() / 2

        lo, _ = arb_bounds(phi(x_lo))
        _, hi = arb_bounds(phi(x_hi))
    return round_bounds(max(lo, Fraction(0)), min(hi, Fraction(1)), prec + GUARD_BITS)


def _log_bounds(x: ExpRational, prec: int) -> Bounds:
    lo, hi = x.enclose(prec + GUARD_BITS)
    if lo <= 0:
        raise ParameterError("weight", str(x), "a positive weight (its logarithm)")
    with iv_precision(prec + 2 * GUARD_BITS):
        return iv_endpoints(iv.log(interval(lo)))[0], iv_endpoints(iv.log(interval(hi)))[1]


@dataclass(frozen=True)
class Shift:
    """One released coordinate, `c + Y` under the first law and `c2 + Y` under the second, `Y`
    of noise `kind` at `scale` (`betweencut.noise.Noise`), `c != c2`."""

    kind: str
    scale: Fraction
    c: Fraction
    c2: Fraction

    def __post_init__(self) -> None:
        if self.kind not in (LAPLACE, GAUSSIAN, DISCRETE_GAUSSIAN):
            raise ParameterError("kind", self.kind, "laplace, gaussian or discrete-gaussian "
                                 "(the discrete Laplace is split into regions)")
        if self.c == self.c2:
            raise ParameterError("c2", self.c2, f"a centre other than {self.c}")

    def swapped(self) -> Shift:
        return Shift(self.kind, self.scale, self.c2, self.c)

    @property
    def distance(self) -> Fraction:
        return abs(self.c - self.c2)

    @property
    def sigma2(self) -> Fraction:
        return self.scale if self.kind == DISCRETE_GAUSSIAN else self.scale**2

    def label(self) -> str:
        return f"{self.kind}(scale {self.scale}) centred {self.c} vs {self.c2}"

    # the hockey stick ------------------------------------------------------------------------
    def hockey(self, p: ExpRational, q: ExpRational, eps: Fraction) -> tuple[Value, Value, Value]:
        """`(δ, P(S), Q(S))` of `∫(p·f(y - c) - e^ε·q·f(y - c2))_+ dy` (module docstring)."""
        if self.kind == LAPLACE:
            return self._laplace(p, q, eps)
        if self.kind == GAUSSIAN:
            return self._gaussian(p, q, eps)
        return self._discrete_gaussian(p, q, eps)

    def _laplace(self, p: ExpRational, q: ExpRational, eps: Fraction
                 ) -> tuple[Value, Value, Value]:
        u = self.distance / self.scale
        grow = ExpPoly.exp(eps)
        if sign(p - q * ExpPoly.exp(eps + u)) >= 0:  # L >= u: the whole line
            return p - q * grow, p, q
        if sign(p - q * ExpPoly.exp(eps - u)) <= 0:  # L <= -u: nowhere
            zero = ExpRational(ExpPoly())
            return zero, zero, zero
        root = sqrt_product(p, q)
        if isinstance(root, ExpRational):
            return (p - root * ExpPoly.exp((eps - u) / 2),
                    p - root * ExpPoly.exp((eps - u) / 2, HALF),
                    root * ExpPoly.exp(-(eps + u) / 2, HALF))
        return (Enclosure.of(p) - root * ExpPoly.exp((eps - u) / 2),
                Enclosure.of(p) - root * ExpPoly.exp((eps - u) / 2, HALF),
                root * ExpPoly.exp(-(eps + u) / 2, HALF))

    def _gaussian(self, p: ExpRational, q: ExpRational, eps: Fraction
                  ) -> tuple[Value, Value, Value]:
        sigma, delta = self.scale, self.distance
        ratio = p / q

        def masses(prec: int) -> tuple[Bounds, Bounds]:
            l_lo, l_hi = _log_bounds(ratio, prec)
            shift_lo, shift_hi = sigma * (l_lo - eps) / delta, sigma * (l_hi - eps) / delta
            half = delta / (2 * sigma)
            return (_normal_cdf_bounds(half + shift_lo, half + shift_hi, prec),
                    _normal_cdf_bounds(-half + shift_lo, -half + shift_hi, prec))

        p_mass = Enclosure(lambda prec: masses(prec)[0], f"Phi(P side; {self.label()})")
        q_mass = Enclosure(lambda prec: masses(prec)[1], f"Phi(Q side; {self.label()})")
        p_event, q_event = p_mass * p, q_mass * q
        return positive_excess(p_event, q_event, eps), p_event, q_event

    def _discrete_gaussian(self, p: ExpRational, q: ExpRational, eps: Fraction
                           ) -> tuple[Value, Value, Value]:
        c, c2 = self.c, self.c2
        if c > c2:  # mirrored (y -> -y): N_Z is symmetric, the event's masses are the same
            c, c2 = -c, -c2
        delta, sigma2 = c2 - c, self.scale

        def inside(y: int) -> bool:  # ln(p/q) > ε + Δ(2y - c - c2)/(2σ²): y in the event
            return sign(p - q * ExpPoly.exp(eps + delta * (2 * y - c - c2) / (2 * sigma2))) > 0

        lo, hi = _log_bounds(p / q, 32)
        y = math.floor((c + c2) / 2 + sigma2 * ((lo + hi) / 2 - eps) / delta)
        while inside(y + 1):
            y += 1
        while not inside(y):
            y -= 1
        law = DiscreteGaussian(sigma2)
        # P(N_Z <= a) = P(N_Z > -a - 1) by symmetry; the event is c + Y <= y, resp. c2 + Y <= y
        p_event = law.upper_tail(-(y - c) - 1) * p
        q_event = law.upper_tail(-(y - c2) - 1) * q
        return positive_excess(p_event, q_event, eps), p_event, q_event

    # Rényi, KL and the largest log-ratio ---------------------------------------------------------
    def moment(self, alpha: Fraction) -> ExpPoly | None:
        """`M(α) = ∫ f(y - c)^α·f(y - c2)^(1-α) dy` exactly, or None where it is not exact (the
        discrete Gaussian at a non-integer `α`)."""
        if self.kind == LAPLACE:
            u = self.distance / self.scale
            return (ExpPoly.exp((alpha - 1) * u, alpha / (2 * alpha - 1))
                    + ExpPoly.exp(-alpha * u, (alpha - 1) / (2 * alpha - 1)))
        if self.kind == DISCRETE_GAUSSIAN and alpha.denominator != 1:
            return None
        return ExpPoly.exp(alpha * (alpha - 1) * self.distance**2 / (2 * self.sigma2))

    def moment_jet(self, a: Jet) -> Jet:
        """An upper bound `U(α) >= M(α)` on the jet `a`, with `U = M` wherever `M` is exact and
        `U(1) = M(1) = 1`, `U'(1) = M'(1) = KL`: Mironov's closed form (Laplace),
        `e^(α(α-1)ρ)` (the Gaussians; the discrete one's bound, CKS 2020, Prop. 5)."""
        if self.kind == LAPLACE:
            u = interval(self.distance / self.scale)
            mironov: Jet = (a / (2 * a - 1)) * ((a - 1) * u).exp() + (
                (a - 1) / (2 * a - 1)) * (-(a * u)).exp()
            return mironov
        gauss: Jet = (a * (a - 1) * interval(self.rho_bound())).exp()
        return gauss

    def rho_bound(self) -> Fraction:
        """`Δ²/(2σ²)`: `M(α) <= e^(α(α-1)·this)` (the Gaussian kinds; `ParameterError` for
        Laplace, whose log-ratio is bounded instead)."""
        if self.kind == LAPLACE:
            raise ParameterError("kind", self.kind, "a Gaussian kind")
        return self.distance**2 / (2 * self.sigma2)

    def kl(self) -> ExpPoly:
        """`KL(c + Y ‖ c2 + Y)`, exactly."""
        if self.kind == LAPLACE:
            u = self.distance / self.scale
            return ExpPoly.exp(-u) + (u - 1)
        return ExpPoly.const(self.rho_bound())

    def max_log_ratio(self) -> Fraction | None:
        """`sup_y ln(f(y - c)/f(y - c2))`: `|c - c2|/b` (Laplace), None (unbounded)."""
        return self.distance / self.scale if self.kind == LAPLACE else None
