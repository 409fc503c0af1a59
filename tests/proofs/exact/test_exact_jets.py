"""Interval jets (`proofs.exact.jets`): on a whole interval of `x` they enclose the value and
both derivatives of a formula at every point of it, against the derivatives written out here
(mpmath at points of the interval); a jet asked to divide by, or take the log of, an interval
containing 0 refuses."""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from betweencut.errors import ParameterError
from betweencut.numbers.exact import iv_endpoints, iv_precision
from betweencut.proofs.exact.jets import Jet


def formula(x: Jet) -> Jet:
    """`f(x) = ln(x/(2x - 1)·e^(x - 1) + 3) - x²`."""
    return ((x / (2 * x - 1)) * (x - 1).exp() + 3).log() - x * x


def derivatives(x: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf]:
    def f(t: mpmath.mpf) -> mpmath.mpf:
        return mpmath.log(t / (2 * t - 1) * mpmath.exp(t - 1) + 3) - t * t

    return f(x), mpmath.diff(f, x), mpmath.diff(f, x, 2)


@pytest.mark.parametrize(("lo", "hi"), [(F(1), F(9, 8)), (F(3, 2), F(2)), (F(5), F(5))])
def test_a_jet_encloses_value_and_derivatives_on_the_whole_interval(lo: F, hi: F) -> None:
    mpmath.mp.dps = 40
    with iv_precision(96):
        jet = formula(Jet.variable(lo, hi))
        bounds = [iv_endpoints(part) for part in (jet.v, jet.d1, jet.d2)]
    for k in range(5):
        x = lo + (hi - lo) * k / 4
        point = derivatives(mpmath.mpf(x.numerator) / x.denominator)
        for (a, b), exact in zip(bounds, point, strict=True):
            assert float(a) - 1e-20 <= float(exact) <= float(b) + 1e-20


def test_a_jet_refuses_a_divisor_or_a_logarithm_across_zero() -> None:
    with iv_precision(64):
        x = Jet.variable(F(-1), F(1))
        with pytest.raises(ParameterError):
            _ = 1 / x
        with pytest.raises(ParameterError):
            x.log()
