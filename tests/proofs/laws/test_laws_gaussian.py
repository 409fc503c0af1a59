"""Certified Gaussian laws: enclosures contain the true values (mpmath at 50 digits as the test's
oracle), sum to 1 where they must, keep exact zeros exact, and never decide a straddle."""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from betweencut.errors import ParameterError, Undecided
from betweencut.proofs.exact.arith import ExpPoly, sign
from betweencut.proofs.exact.enclosure import Enclosure
from betweencut.proofs.laws.continuous_gaussian import (
    analytic_gaussian_delta,
    flint_available,
    gaussian_noisy_max_law,
    normal_mass,
    shared_gaussian_answers,
)
from betweencut.proofs.laws.discrete_gaussian import DiscreteGaussian, cks_delta, tail_bound

needs_flint = pytest.mark.skipif(not flint_available(), reason="python-flint (fast extra)")


def _contains(x: Enclosure, value: mpmath.mpf, prec: int = 64) -> bool:
    lo, hi = x.enclose(prec)
    with mpmath.workdps(50):
        return mpmath.mpf(lo.numerator) / lo.denominator <= value <= (
            mpmath.mpf(hi.numerator) / hi.denominator)


def test_enclosure_arithmetic_sign_and_exact_facts() -> None:
    third = Enclosure.of(F(1, 3))
    assert sign(third - F(1, 4)) == 1 and sign(F(1, 4) - third) == -1
    assert (third - third).is_zero()  # the same computation: exactly 0
    assert sign(Enclosure.of(ExpPoly.exp(1)) - F(2718, 1000)) == 1
    straddle = Enclosure(lambda prec: (F(-1, 2**prec), F(1, 2**prec)), "x")
    with pytest.raises(Undecided):
        sign(straddle)
    assert sign(Enclosure(lambda prec: (F(0), F(0)), "a point")) == 0
    assert (Enclosure.zero() * straddle).is_zero()
    lo, hi = (third.positive_part() - F(1, 2)).positive_part().enclose(64)
    assert lo == hi == 0
    assert Enclosure.sum([third, third, F(1, 3)]).contains(F(1))
    with pytest.raises(Undecided):
        (third / straddle).enclose(64)


@needs_flint
def test_normal_masses_and_answers_contain_the_true_values() -> None:
    with mpmath.workdps(50):
        assert _contains(normal_mass(F(2), F(-1), F(3)), mpmath.ncdf(1.5) - mpmath.ncdf(-0.5))
        assert _contains(normal_mass(F(1), F(5), None), 1 - mpmath.ncdf(5))
        assert _contains(normal_mass(F(1), None, F(-7)), mpmath.ncdf(-7))
    assert normal_mass(F(1), F(2), F(1)).is_zero()
    # P(ν >= 1, ρ <= 0): ρ ~ N(0, 1), ν ~ N(0, 4): the integral of φ(r)·Φ(-(1 + r)/2) on r <= 0
    p = shared_gaussian_answers(F(1), ((F(1), F(2), True), (F(0), F(0), True)))
    with mpmath.workdps(50):
        want = mpmath.quad(lambda r: mpmath.npdf(r) * mpmath.ncdf(-(1 + r) / 2), [-mpmath.inf, 0])
    assert _contains(p, want)


@needs_flint
def test_shared_answers_of_every_sequence_sum_to_one() -> None:
    gaps = (F(0), F(1), F(-1))
    total = []
    for answers in ((a, b, c) for a in (0, 1) for b in (0, 1) for c in (0, 1)):
        total.append(shared_gaussian_answers(
            F(3, 2), tuple(sorted((g, F(2), bool(x)) for g, x in zip(gaps, answers, strict=True)))))
    assert Enclosure.sum(total).contains(F(1))
    law = gaussian_noisy_max_law((F(0), F(1), F(-1), F(1, 2)), F(1))
    assert Enclosure.sum(law).contains(F(1))
    assert law[1].enclose(64)[0] > law[3].enclose(64)[1]  # the largest count wins most
    with pytest.raises(ParameterError):
        gaussian_noisy_max_law((), F(1))


@needs_flint
def test_analytic_gaussian_delta_matches_the_formula_numerically() -> None:
    with mpmath.workdps(50):
        s, d, e = mpmath.mpf(3) / 2, mpmath.mpf(1), mpmath.mpf(1) / 3
        want = mpmath.ncdf(d / (2 * s) - e * s / d) - mpmath.exp(e) * mpmath.ncdf(
            -d / (2 * s) - e * s / d)
    assert _contains(analytic_gaussian_delta(F(1, 3), F(3, 2), F(1)), want)


def test_discrete_gaussian_normaliser_and_tails() -> None:
    law = DiscreteGaussian(F(9, 4))
    with mpmath.workdps(50):
        z = mpmath.nsum(lambda y: mpmath.exp(-y * y / mpmath.mpf(4.5)), [-mpmath.inf, mpmath.inf])
        tail = mpmath.nsum(lambda y: mpmath.exp(-y * y / mpmath.mpf(4.5)), [4, mpmath.inf])
        ratio, rest = tail / z, 1 - tail / z
    assert _contains(law.normaliser, z)
    assert _contains(law.upper_tail(F(7, 2)), ratio)
    assert _contains(law.upper_tail(F(-4)), rest)  # P(Y > -4) = 1 - P(Y >= 4)
    bound, _ = tail_bound(3, F(9, 4)).enclose(64)
    with mpmath.workdps(50):
        assert mpmath.mpf(bound.numerator) / bound.denominator >= tail  # an upper bound
    assert law.normaliser.width(128) < F(1, 2**100)


def test_cks_delta_at_zero_is_the_total_variation() -> None:
    """At ε = 0 the closed form is `P(Y > -1/2) - P(Y > 1/2) = P(Y = 0)` for `Δ = 1`."""
    law = DiscreteGaussian(F(2))
    gap = cks_delta(F(0), F(2), 1) - law.probability(0)
    lo, hi = gap.enclose(128)
    assert lo <= 0 <= hi and hi - lo < F(1, 2**100)
    with pytest.raises(ParameterError):
        cks_delta(F(1), F(2), 0)
    with pytest.raises(ParameterError):
        DiscreteGaussian(F(0))


def test_arb_bounds_round_a_ball_past_the_rational_size_outward() -> None:
    """A ball of about e^(-10^6) (or -e^(-10^6)) is enclosed by [0, 2^-65536] (or its mirror)
    instead of a rational with a million-digit denominator (which overflowed near e^(-10^24))."""
    from fractions import Fraction

    from betweencut.proofs.laws.continuous_gaussian import (
        arb_bounds,
        arb_precision,
        flint_available,
    )

    if not flint_available():
        pytest.skip("python-flint (fast extra)")
    with arb_precision(64) as flint:
        tiny = flint.arb(-(10**6)).exp()
        lo, hi = arb_bounds(tiny)
        assert lo == 0 < hi <= Fraction(1, 2**65536)
        lo, hi = arb_bounds(-tiny)
        assert -Fraction(1, 2**65536) <= lo < hi == 0
        lo, hi = arb_bounds(flint.arb(Fraction(1, 3).numerator) / 3)
        assert lo <= Fraction(1, 3) <= hi and hi - lo < Fraction(1, 2**60)
