"""Piecewise x^k e^(ax): exact closed-form integrals, checked against hand-derived closed forms
and (display only) against numerical quadrature; divergence is refused, never guessed."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from betweencut.errors import ParameterError
from betweencut.proofs.exact.arith import ExpPoly
from betweencut.proofs.exact.polyexp import Piecewise, PolyExp
from betweencut.proofs.laws.noisy_laws import (
    laplace_cdf,
    laplace_density,
    noisy_max_law,
    shared_answers_probability,
)

F = Fraction


def test_antiderivative_of_polynomial_factors_is_exact() -> None:
    f = PolyExp.exp(F(-1), 1, 2)  # x^2 e^-x
    prim = f.antiderivative()
    # ∫_0^∞ x^2 e^-x dx = 2
    assert prim.limit(1) - prim.at(F(0)) == ExpPoly.const(2)
    g = PolyExp.exp(0, 3, 1)  # 3x: antiderivative 3x^2/2
    assert g.antiderivative().at(F(2)) == ExpPoly.const(6)


def test_divergent_integral_is_refused() -> None:
    with pytest.raises(ParameterError):
        Piecewise.const(PolyExp.exp(F(1, 2))).integral()
    with pytest.raises(ParameterError):
        Piecewise.const(PolyExp.const(1)).integral()


def test_laplace_density_integrates_to_one_and_cdf_is_continuous() -> None:
    for scale in (F(1), F(3, 2), F(1, 3)):
        assert laplace_density(scale, F(2, 7)).integral() == ExpPoly.const(1)
        cdf = laplace_cdf(scale, F(5, 3))
        b = cdf.breaks[0]
        assert cdf.pieces[0].at(b) == cdf.pieces[1].at(b) == ExpPoly.const(F(1, 2))


def test_coinciding_exponents_give_the_closed_form_of_a_laplace_difference() -> None:
    # ν, ρ ~ Lap(1): P(ν - ρ >= 1) = 3/(4e) (density (1 + |x|) e^(-|x|) / 4): the integrand
    # e^(r)·e^(-r) has exponent 0, so a polynomial factor appears.
    assert shared_answers_probability(F(1), ((F(1), F(1), True),)) == ExpPoly.exp(-1, F(3, 4))
    # noisy max of (1, 0) with Lap(1): P(argmax = 0) = P(ν1 - ν0 < 1) = 1 - 3/(4e)
    law = noisy_max_law([F(1), F(0)], F(1))
    assert law[0] == ExpPoly.const(1) - ExpPoly.exp(-1, F(3, 4))
    assert law[0] + law[1] == ExpPoly.const(1)


def test_symmetry_and_totals_with_different_scales() -> None:
    assert shared_answers_probability(F(2), ((F(0), F(1), True),)) == ExpPoly.const(F(1, 2))
    answers = [(F(0), F(1), True), (F(1), F(1, 2), False), (F(-1), F(0), True)]
    total = ExpPoly()
    for bits in range(8):
        chosen = tuple((g, s, bool(bits >> i & 1)) for i, (g, s, _) in enumerate(answers))
        total = total + shared_answers_probability(F(3, 2), tuple(sorted(chosen)))
    assert total == ExpPoly.const(1)
    law = noisy_max_law([F(0), F(1), F(1), F(3, 2)], F(2, 3))
    assert sum(law[1:], law[0]) == ExpPoly.const(1)


def test_exact_integral_agrees_with_quadrature_display_only() -> None:
    g1, g2, s, b = F(1, 3), F(-1, 2), F(3, 4), F(2)
    exact = shared_answers_probability(b, ((g1, s, True), (g2, s, False)))

    def lap_cdf(y: float, scale: float) -> float:
        return 0.5 * mpmath.exp(y / scale) if y < 0 else 1 - 0.5 * mpmath.exp(-y / scale)

    def integrand(r: float) -> float:
        dens = mpmath.exp(-abs(r) / float(b)) / (2 * float(b))
        return dens * (1 - lap_cdf(float(g1) + r, float(s))) * lap_cdf(float(g2) + r, float(s))

    numeric = mpmath.quad(integrand, [-mpmath.inf, -1 / 3, 0, 1 / 2, mpmath.inf])
    lo, hi = exact.enclose(64)
    assert abs(float((lo + hi) / 2) - float(numeric)) < 1e-9
