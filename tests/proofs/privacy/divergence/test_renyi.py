"""Rényi divergences and zCDP claims (`proofs.privacy.divergence.renyi`): the moments against
sums written here, claims refuted with a witness order (also inside `(1, ∞)`, where neither
integers nor orders near 1 find it) and certified by the tail/Taylor/interval argument, never a
wrong claim certified (principle 5)."""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from betweencut.errors import ParameterError
from betweencut.noise import ExponentialMechanism, KaryRandomizedResponse, RandomizedResponse
from betweencut.proofs.exact.arith import ExpPoly, ExpRational
from betweencut.proofs.laws.field_laws import finite_law
from betweencut.proofs.laws.released import Shift
from betweencut.proofs.privacy.divergence.components import Component
from betweencut.proofs.privacy.divergence.renyi import (
    check_order,
    kl_divergence,
    moment,
    zcdp,
)

ONE = ExpRational(ExpPoly.const(1))


def parts_of(p: dict[object, ExpRational], q: dict[object, ExpRational]) -> list[Component]:
    return [Component(o, p.get(o, ExpRational(ExpPoly())), q.get(o, ExpRational(ExpPoly())))
            for o in {*p, *q}]


def rational(values: list[F]) -> dict[object, ExpRational]:
    return {i: ExpRational(ExpPoly.const(v)) for i, v in enumerate(values)}


def test_moments_at_integer_orders_are_the_sums_written_out() -> None:
    p, q = [F(1, 2), F(1, 3), F(1, 6)], [F(1, 4), F(1, 4), F(1, 2)]
    parts = parts_of(rational(p), rational(q))
    for alpha in (2, 3, 5):
        brute = sum(a**alpha / b ** (alpha - 1) for a, b in zip(p, q, strict=True))
        s = moment(parts, F(alpha))
        assert isinstance(s, ExpRational) and (s - brute).is_zero()


def test_a_rational_order_is_exact_for_powers_of_e_and_enclosed_otherwise() -> None:
    rr = finite_law(RandomizedResponse(True, F(1)))
    rr2 = finite_law(RandomizedResponse(False, F(1)))
    s = moment(parts_of(rr, rr2), F(3, 2))  # P/Q = e^(±1): exact
    assert isinstance(s, ExpRational)
    mpmath.mp.dps = 40
    e = mpmath.e
    brute = (e / (1 + e)) ** 1.5 * (1 / (1 + e)) ** -0.5 + (1 / (1 + e)) ** 1.5 * (
        e / (1 + e)) ** -0.5
    lo, hi = s.enclose(80)
    assert abs(float(lo) - float(brute)) < 1e-12
    p, q = rational([F(1, 3), F(2, 3)]), rational([F(1, 2), F(1, 2)])
    enclosed = moment(parts_of(p, q), F(3, 2))
    lo, hi = enclosed.enclose(80)  # type: ignore[union-attr]
    brute = mpmath.mpf(1) / 3 * (mpmath.mpf(2) / 3) ** 0.5 + mpmath.mpf(2) / 3 * (
        mpmath.mpf(4) / 3) ** 0.5
    assert float(lo) <= float(brute) <= float(hi)


def test_an_output_impossible_under_q_is_infinite_at_every_order() -> None:
    parts = parts_of(rational([F(1, 2), F(1, 2)]), rational([F(1), F(0)]))
    assert not check_order(parts, 2, F(100)).holds
    result = zcdp(parts, F(100))
    assert not result.holds and result.witness is not None and result.witness.divergence.infinite


def test_permute_and_flip_at_eps_squared_over_8_is_refuted_at_order_2() -> None:
    from betweencut.noise import PermuteAndFlip

    p, q = finite_law(PermuteAndFlip((F(0), F(0)), F(1))), finite_law(
        PermuteAndFlip((F(1), F(-1)), F(1)))
    result = zcdp(parts_of(p, q), F(1, 2))
    assert not result.holds and result.witness is not None and result.witness.alpha == 2
    # the reproducer's S = 1/4/(1 - e^-2/2) + 1/4/(e^-2/2), written out
    s = result.witness.divergence.S
    written = ExpRational(ExpPoly.const(F(1, 4)), 1 - ExpPoly.exp(-2, F(1, 2))) + ExpRational(
        ExpPoly.const(F(1, 4)), ExpPoly.exp(-2, F(1, 2)))
    assert isinstance(s, ExpRational) and (s - written).is_zero()


def test_an_interior_supremum_is_refuted_between_the_probes_and_certified_above() -> None:
    p, q = finite_law(ExponentialMechanism((F(0), F(0)), F(1))), finite_law(
        ExponentialMechanism((F(1), F(-1)), F(1)))
    parts = parts_of(p, q)
    mpmath.mp.dps = 30

    def d_over_alpha(a: mpmath.mpf) -> mpmath.mpf:  # floats only to find where the sup is
        s = sum(mpmath.mpf(float(p[o].enclose(80)[0])) ** a * mpmath.mpf(
            float(q[o].enclose(80)[0])) ** (1 - a) for o in p)
        return mpmath.log(s) / (a - 1) / a

    top = max(d_over_alpha(1 + mpmath.mpf(k) / 200) for k in range(1, 2000))
    assert 0.4493 < top < 0.4495  # at alpha ~ 1.47: no integer, not near 1
    below = zcdp(parts, F(44, 100))
    assert not below.holds and below.witness is not None and 1 < below.witness.alpha < 2
    above = zcdp(parts, F(45, 100))
    assert above.holds and above.argument["cells"]


@pytest.mark.parametrize("eps", [F(1, 2), F(1), F(2)])
def test_randomized_response_is_eps_squared_over_2_zcdp_and_not_below_kl(eps: F) -> None:
    for k in (2, 3):
        p = finite_law(KaryRandomizedResponse(0, k, eps))
        q = finite_law(KaryRandomizedResponse(1, k, eps))
        parts = parts_of(p, q)
        assert zcdp(parts, eps * eps / 2).holds
        kl = kl_divergence(parts)
        assert isinstance(kl, ExpRational)
        lo, _ = kl.enclose(64)
        assert not zcdp(parts, lo * F(99, 100)).holds  # below KL: some order near 1 fails


def test_gaussian_shifts_are_certified_by_their_closed_form_and_refuted_below_it() -> None:
    for kind, scale in (("gaussian", F(2)), ("discrete-gaussian", F(4))):
        shift = Shift(kind, scale, F(0), F(1))  # Delta^2 / (2 sigma^2) = 1/8
        parts = [Component("y", ONE, ONE, shift)]
        assert zcdp(parts, F(1, 8)).holds
        low = zcdp(parts, F(1, 8) - F(1, 1000))
        assert not low.holds and low.witness is not None and low.witness.exact


def test_the_laplace_mechanism_exact_zcdp_is_its_kl_divergence() -> None:
    shift = Shift("laplace", F(1), F(0), F(1))
    parts = [Component("y", ONE, ONE, shift)]
    kl = kl_divergence(parts)
    rho = ExpPoly.exp(-1) + 0  # eps + e^-eps - 1 at eps = 1
    assert isinstance(kl, ExpRational) and (kl - rho).is_zero()
    exact = zcdp(parts, rho)
    assert exact.holds and exact.argument["taylor_to"]
    below = zcdp(parts, rho - F(1, 10**6))
    assert not below.holds and below.witness is not None and below.witness.alpha < F(1001, 1000)


def test_claims_are_checked() -> None:
    parts = parts_of(rational([F(1)]), rational([F(1)]))
    with pytest.raises(ParameterError):
        zcdp(parts, F(0))
    with pytest.raises(ParameterError):
        check_order(parts, 1, F(1))


def test_renyi_claims_are_read_exactly() -> None:
    from betweencut.proofs.privacy.audit.renyi_claims import RenyiClaim

    assert RenyiClaim.parse("zcdp:1/8").rho == F(1, 8)
    claim = RenyiClaim.parse("rdp:3/2:0.25")
    assert (claim.order, claim.eps) == (F(3, 2), F(1, 4))
    for bad in ("zcdp:0", "zcdp:", "rdp:1:1", "rdp:2", "renyi:2:1", "zcdp:0.1e999999"):
        with pytest.raises(ParameterError):
            RenyiClaim.parse(bad)
