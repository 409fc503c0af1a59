"""The field's laws (`proofs.laws.field_laws`, `proofs.laws.released`) against computations
written here: permute-and-flip summed over every order of the candidates, the discrete Laplace
regions against sums over a window plus geometric tails, the continuous closed forms against
mpmath quadrature (floats never decide: every comparison below is of certified enclosures or
exact values), and a wrong law (a region mass halved) that the checks reject.
"""

from __future__ import annotations

import itertools
from fractions import Fraction as F
from itertools import permutations

import mpmath
import pytest

from betweencut.noise import (
    Bernoulli,
    BernoulliExp,
    ExponentialMechanism,
    KaryRandomizedResponse,
    PermuteAndFlip,
    RandomizedResponse,
    UniformChoice,
    UniformPermutation,
)
from betweencut.proofs.exact.arith import ExpPoly, ExpRational
from betweencut.proofs.laws.field_laws import finite_law
from betweencut.proofs.laws.released import Shift, dlap_regions, sqrt_product

ONE = ExpRational(ExpPoly.const(1))


def brute_permute_and_flip(scores: tuple[F, ...], scale: F) -> list[ExpPoly]:
    """`P(i)`: every order of the candidates, each kept in turn with `e^((s - max)/scale)`."""
    top = max(scores)
    keep = [ExpPoly.exp((s - top) / scale) for s in scores]
    n = len(scores)
    out = [ExpPoly() for _ in scores]
    orders = list(permutations(range(n)))
    for order in orders:
        rest = ExpPoly.const(F(1, len(orders)))
        for i in order:
            out[i] = out[i] + rest * keep[i]
            rest = rest * (1 - keep[i])
    return out


@pytest.mark.parametrize("scores", [(F(0), F(0)), (F(1), F(-1)), (F(1), F(0), F(-2), F(1, 2))])
def test_permute_and_flip_law_is_the_sum_over_every_order(scores: tuple[F, ...]) -> None:
    law = finite_law(PermuteAndFlip(scores, F(1)))
    brute = brute_permute_and_flip(scores, F(1))
    assert all((law[i] - brute[i]).is_zero() for i in range(len(scores)))


@pytest.mark.parametrize("query", [
    Bernoulli(F(2, 7)), BernoulliExp(F(3, 2)), UniformChoice(5), UniformPermutation(3),
    ExponentialMechanism((F(1), F(3), F(-2)), F(2)), PermuteAndFlip((F(2), F(0)), F(1, 2)),
    RandomizedResponse(False, F(1, 3)), KaryRandomizedResponse(2, 4, F(2)),
])
def test_every_finite_law_sums_to_exactly_one(query: object) -> None:
    total = ExpRational(ExpPoly())
    for p in finite_law(query).values():
        total = total + p
    assert (total - 1).is_zero()


def test_exponential_mechanism_and_randomized_response_closed_forms() -> None:
    em = finite_law(ExponentialMechanism((F(1), F(-1)), F(1)))
    assert (em[1] - ExpRational(ExpPoly.exp(-1), ExpPoly.exp(1) + ExpPoly.exp(-1))).is_zero()
    rr = finite_law(KaryRandomizedResponse(0, 3, F(1)))
    assert (rr[0] / rr[1] - ExpPoly.exp(1)).is_zero()


def _window_mass(b: F, centre: int, low: int, high: int) -> ExpPoly:
    """`Σ_{low <= y <= high} e^(-|y - c|/b)` (unnormalised), summed term by term."""
    out = ExpPoly()
    for y in range(low, high + 1):
        out = out + ExpPoly.exp(-F(abs(y - centre)) / b)
    return out


@pytest.mark.parametrize(("b", "centres"), [(F(1), [0, 2]), (F(1, 2), [-1, 1, 3]),
                                            (F(3), [5, 4])])
def test_discrete_laplace_regions_are_window_sums_plus_geometric_tails(
        b: F, centres: list[int]) -> None:
    q = ExpPoly.exp(-1 / b)
    normaliser = ExpRational(1 + q, 1 - q)  # Σ_y e^(-|y|/b) = (1 + q)/(1 - q)
    regions = dlap_regions(b, centres)
    low, high = min(centres), max(centres)
    for region, masses in regions:
        for c in set(centres):
            if region.kind == "point":
                expected = ExpRational(_window_mass(b, c, region.at, region.at)) / normaliser
            elif region.kind == "below":  # the tail y <= low: a geometric series below low
                tail = ExpRational(ExpPoly.exp(-F(c - low) / b), 1 - q)
                expected = tail / normaliser
            else:
                tail = ExpRational(ExpPoly.exp(-F(high - c) / b), 1 - q)
                expected = tail / normaliser
            assert (masses[c] - expected).is_zero(), (region, c)
    for c in set(centres):  # the regions partition the line
        total = ExpRational(ExpPoly())
        for _, masses in regions:
            total = total + masses[c]
        assert (total - 1).is_zero()
    halved = regions[0][1][centres[0]] * F(1, 2)  # a wrong region mass is seen as wrong
    assert not (halved - regions[0][1][centres[0]]).is_zero()


def _quad(f: object, a: object, b: object) -> mpmath.mpf:
    return mpmath.quad(f, [a, b])  # type: ignore[no-any-return]


@pytest.mark.parametrize(("c", "c2", "eps", "p", "q"), [
    (0, 1, F(0), 1, 1), (0, 2, F(1, 2), 1, 1), (1, 0, F(1), 1, 1),
    (0, 1, F(1, 4), F(1, 3), F(2, 3)),
])
def test_laplace_hockey_stick_matches_quadrature(c: int, c2: int, eps: F, p: F, q: F) -> None:
    mpmath.mp.dps = 40
    shift = Shift("laplace", F(1), F(c), F(c2))
    pe, qe = ExpRational(ExpPoly.const(p)), ExpRational(ExpPoly.const(q))
    delta, _, _ = shift.hockey(pe, qe, eps)
    lo, hi = (delta.enclose(80) if hasattr(delta, "enclose") else (delta, delta))

    def integrand(y: mpmath.mpf) -> mpmath.mpf:
        f = mpmath.mpf(F(p).numerator) / F(p).denominator * mpmath.exp(-abs(y - c)) / 2
        g = mpmath.mpf(F(q).numerator) / F(q).denominator * mpmath.exp(-abs(y - c2)) / 2
        return max(f - mpmath.e ** (mpmath.mpf(eps.numerator) / eps.denominator) * g, 0)

    ystar = (c + c2 + mpmath.log(mpmath.mpf(F(p).numerator) * F(q).denominator / (
        F(p).denominator * F(q).numerator)) - mpmath.mpf(eps.numerator) / eps.denominator) / 2
    points = sorted({-60, min(c, c2), max(c, c2), ystar, 60})  # every kink of the integrand
    value = sum(_quad(integrand, a, b) for a, b in itertools.pairwise(points))
    assert abs(float(lo) - float(value)) < 1e-12 and abs(float(hi) - float(value)) < 1e-12


def test_laplace_renyi_moment_matches_quadrature_at_a_rational_order() -> None:
    mpmath.mp.dps = 40
    alpha = F(5, 3)
    shift = Shift("laplace", F(2), F(0), F(1))
    exact = shift.moment(alpha)
    assert exact is not None
    a = mpmath.mpf(5) / 3

    def integrand(y: mpmath.mpf) -> mpmath.mpf:
        f = mpmath.exp(-abs(y) / 2) / 4
        g = mpmath.exp(-abs(y - 1) / 2) / 4
        return f**a * g ** (1 - a)

    value = sum(_quad(integrand, x, y) for x, y in ((-200, 0), (0, 1), (1, 200)))
    lo, hi = exact.enclose(100)
    assert abs(float(lo) - float(value)) < 1e-12 and abs(float(hi) - float(value)) < 1e-12
    kl = shift.kl()  # u + e^(-u) - 1, u = 1/2
    assert kl == ExpPoly.exp(-F(1, 2)) + F(-1, 2)


@pytest.mark.parametrize("kind", ["gaussian", "discrete-gaussian"])
def test_gaussian_hockey_sticks_match_independent_sums(kind: str) -> None:
    mpmath.mp.dps = 40
    eps, sigma2 = F(1, 2), F(1)
    shift = Shift(kind, F(1), F(0), F(1))
    delta, _, _ = shift.hockey(ONE, ONE, eps)
    lo, hi = delta.enclose(60)
    e = mpmath.mpf(eps.numerator) / eps.denominator
    if kind == "gaussian":  # Balle-Wang's closed form, in mpmath
        value = mpmath.ncdf(0.5 - e) - mpmath.e ** e * mpmath.ncdf(-0.5 - e)
    else:  # the sum over |y| <= 40 of (P(y) - e^eps Q(y))_+, Z summed too
        z = mpmath.fsum(mpmath.exp(-mpmath.mpf(y * y) / (2 * sigma2)) for y in range(-40, 41))
        def weight(y: int) -> mpmath.mpf:
            return mpmath.exp(-mpmath.mpf(y * y) / 2) / z

        value = mpmath.fsum(max(weight(y) - mpmath.e**e * weight(y - 1), 0)
                            for y in range(-40, 41))
    assert float(lo) - 1e-12 <= float(value) <= float(hi) + 1e-12
    assert shift.moment(F(2)) == ExpPoly.exp(1)  # e^(α(α-1)Δ²/(2σ²)) at α = 2: e^1


def test_discrete_gaussian_moment_at_an_integer_order_is_the_brute_force_sum() -> None:
    mpmath.mp.dps = 50
    shift = Shift("discrete-gaussian", F(2), F(0), F(2))  # σ² = 2, Δ = 2
    m = shift.moment(F(3))
    assert m is not None and shift.moment(F(5, 2)) is None
    z = mpmath.fsum(mpmath.exp(-mpmath.mpf(y * y) / 4) for y in range(-60, 61))
    brute = mpmath.fsum((mpmath.exp(-mpmath.mpf(y * y) / 4) / z) ** 3 * (
        mpmath.exp(-mpmath.mpf((y - 2) ** 2) / 4) / z) ** -2 for y in range(-60, 61))
    lo, _ = m.enclose(100)
    assert abs(float(lo) - float(brute)) < 1e-9 * float(brute)


def test_square_root_of_a_product_is_exact_for_powers_of_e() -> None:
    p = ExpRational(ExpPoly.exp(1), ExpPoly.exp(1) + 1)
    q = ExpRational(ExpPoly.const(1), ExpPoly.exp(1) + 1)
    root = sqrt_product(p, q)
    assert isinstance(root, ExpRational) and (root * root - p * q).is_zero()
    enclosed = sqrt_product(ExpRational(ExpPoly.const(F(1, 3))), ExpRational(ExpPoly.const(
        F(1, 2))))
    lo, hi = enclosed.enclose(64)  # type: ignore[union-attr]
    assert lo * lo <= F(1, 6) <= hi * hi
