"""Second-order jets over certified intervals: `f`, `f'` and `f''` enclosed on a whole interval.

A `Jet` is `(v, d1, d2)`, three mpmath `iv` intervals. Evaluating a formula on the jet
`Jet.variable(lo, hi)` (the variable `x ∈ [lo, hi]` with `x' = 1`, `x'' = 0`) with the rules
of differentiation (`(fg)' = f'g + fg'`, `exp(f)' = f'·exp(f)`, ...) applied in interval
arithmetic encloses, for every `x` in `[lo, hi]` at once, the value and both derivatives of the
formula at `x`: each rule is evaluated on intervals that contain the exact values at every
point, and interval arithmetic rounds outward. This is what makes a claim "for every `α` in
`[lo, hi]`" decidable on finitely many intervals (`betweencut.proofs.privacy.divergence.renyi`).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Union

from mpmath import iv

from betweencut.errors import ParameterError

__all__ = ["Jet", "interval"]

Scalar = Union[int, Fraction, Any]  # noqa: UP007  (an mpmath interval too)


def interval(x: Fraction | int | Any) -> Any:
    """An exact rational (or an interval) as an `iv` interval, rounded outward."""
    if isinstance(x, Fraction):
        return iv.mpf(x.numerator) / x.denominator
    if isinstance(x, int):
        return iv.mpf(x)
    return x


class Jet:
    """`(value, first derivative, second derivative)`, each an `iv` interval."""

    __slots__ = ("d1", "d2", "v")

    def __init__(self, v: Any, d1: Any = 0, d2: Any = 0) -> None:
        self.v, self.d1, self.d2 = interval(v), interval(d1), interval(d2)

    @staticmethod
    def variable(lo: Fraction, hi: Fraction) -> Jet:
        """The variable itself on `[lo, hi]`."""
        if hi < lo:
            raise ParameterError("interval", (lo, hi), "lo <= hi")
        return Jet(iv.mpf([interval(lo).a, interval(hi).b]), 1, 0)

    @staticmethod
    def of(x: Jet | Scalar) -> Jet:
        return x if isinstance(x, Jet) else Jet(x)

    def __add__(self, other: Jet | Scalar) -> Jet:
        o = Jet.of(other)
        return Jet(self.v + o.v, self.d1 + o.d1, self.d2 + o.d2)

    __radd__ = __add__

    def __neg__(self) -> Jet:
        return Jet(-self.v, -self.d1, -self.d2)

    def __sub__(self, other: Jet | Scalar) -> Jet:
        return self + (-Jet.of(other))

    def __rsub__(self, other: Jet | Scalar) -> Jet:
        return Jet.of(other) - self

    def __mul__(self, other: Jet | Scalar) -> Jet:
        o = Jet.of(other)
        return Jet(self.v * o.v, self.d1 * o.v + self.v * o.d1,
                   self.d2 * o.v + 2 * self.d1 * o.d1 + self.v * o.d2)

    __rmul__ = __mul__

    def reciprocal(self) -> Jet:
        """`1/f`: `-f'/f²`, `(2f'² - f·f'')/f³` (the interval of `f` must exclude 0)."""
        v = self.v
        if v.a <= 0 <= v.b:
            raise ParameterError("jet", str(v), "an interval that excludes 0 (a divisor)")
        inv = 1 / v
        return Jet(inv, -self.d1 * inv * inv, (2 * self.d1 * self.d1 - v * self.d2) * inv ** 3)

    def __truediv__(self, other: Jet | Scalar) -> Jet:
        return self * Jet.of(other).reciprocal()

    def __rtruediv__(self, other: Jet | Scalar) -> Jet:
        return Jet.of(other) * self.reciprocal()

    def exp(self) -> Jet:
        e = iv.exp(self.v)
        return Jet(e, self.d1 * e, (self.d2 + self.d1 * self.d1) * e)

    def log(self) -> Jet:
        """`ln f`: `f'/f`, `f''/f - (f'/f)²` (the interval of `f` must be positive)."""
        v = self.v
        if v.a <= 0:
            raise ParameterError("jet", str(v), "a positive interval (a logarithm)")
        r = self.d1 / v
        return Jet(iv.log(v), r, self.d2 / v - r * r)
