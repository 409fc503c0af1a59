"""The arithmetic layer: exact exponential polynomials and the one comparison gate."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mpmath import iv

from betweencut.errors import Undecided
from betweencut.numbers.exact import LogReal
from betweencut.proofs.exact.arith import ExpPoly, ExpRational, certainly_le, certainly_lt, sign

small = st.fractions(min_value=-3, max_value=3, max_denominator=12)
polys = st.dictionaries(small, small, max_size=4).map(ExpPoly)


@given(polys, polys, polys)
def test_exppoly_is_a_commutative_ring(a: ExpPoly, b: ExpPoly, c: ExpPoly) -> None:
    assert (a + b) * c == a * c + b * c
    assert a * b == b * a
    assert (a - a).is_zero()


@given(polys)
def test_sign_agrees_with_a_high_precision_enclosure(a: ExpPoly) -> None:
    s = a.sign()
    lo, hi = a.enclose(256)
    assert (s == 0 and a.is_zero()) or (s == 1 and lo > 0) or (s == -1 and hi < 0)


def test_sign_separates_e_from_its_decimal_expansion() -> None:
    e = ExpPoly.exp(1)
    assert sign(e - Fraction(271828182845904523536, 10**20)) == 1
    assert sign(e - Fraction(271828182845904523537, 10**20)) == -1
    assert certainly_lt(Fraction(271828182845904523536, 10**20), e)


def test_exprational_identities_are_exact() -> None:
    xi = ExpPoly.exp(Fraction(1, 3))
    lhs = (xi * xi - 1) / (xi - 1)
    assert lhs == xi + 1
    assert lhs != xi + Fraction(1, 10**30)


def test_gate_refuses_floats_and_undecidable_intervals() -> None:
    with pytest.raises(TypeError, match="float"):
        sign(0.5)
    with pytest.raises(Undecided):
        sign(iv.mpf([-1, 1]))
    assert sign(iv.mpf([1, 2])) == 1


def test_gate_decides_logreal_against_rationals() -> None:
    r = LogReal(Fraction(1), Fraction(4), Fraction(80))  # 1 + 4 ln 80 = 18.528...
    assert certainly_le(r, Fraction(18529, 1000))
    assert not certainly_le(r, Fraction(18528, 1000))
    assert sign(ExpRational.of(ExpPoly.exp(-2)) - Fraction(1, 8)) == 1


def test_a_quotient_with_a_near_zero_denominator_is_enclosed_at_a_higher_precision() -> None:
    """The denominator `e^(-1/2)/2 - e^(-1/2 + 10^-20)/2` straddles 0 at 64 bits: the quotient
    is enclosed once the one loop has climbed (issue: a single BT test, thresholds 10^-20 apart)."""
    from betweencut.errors import NotYet
    from betweencut.numbers.exact import refine
    from betweencut.proofs.exact.arith import enclose

    tiny = Fraction(1, 10**20)
    den = ExpPoly.exp(Fraction(-1, 2) + tiny, Fraction(1, 2)) - ExpPoly.exp(Fraction(-1, 2),
                                                                              Fraction(1, 2))
    ratio = ExpRational(ExpPoly.const(1), den)
    with pytest.raises(NotYet):
        enclose(ratio, 64)
    (lo, hi), prec = refine(lambda p: enclose(ratio, p), lambda: "the ratio")
    assert prec > 64 and 0 < lo <= hi
    assert sign(ratio) == 1


@pytest.mark.parametrize("top", [Fraction(709), Fraction(10**12), Fraction(2**4096 - 1)])
def test_sign_at_any_magnitude(top: Fraction) -> None:
    """`P - e^ε·Q` at epsilons past any float (up to the parser's 4096 bits): the sign is read
    off `e^(-top)·x` (it aborted in GMP at 10^12), with terms near and far below the top."""
    p, q = ExpPoly.exp(Fraction(-1, 2), Fraction(1, 2)), ExpPoly.exp(-1, Fraction(1, 3))
    assert sign(p - q * ExpPoly.exp(top)) == -1
    assert sign(q * ExpPoly.exp(top) - p) == 1
    close = ExpPoly.exp(top) - ExpPoly.exp(top - Fraction(1, 10**30))  # 10^-30·e^top > 0
    assert sign(close) == 1 and sign(-close) == -1
    assert sign(ExpPoly.exp(-top, 3) - ExpPoly.exp(-top, 2)) == 1  # tiny, of any size


def test_enclose_bounds_far_terms_without_computing_them() -> None:
    """Terms far below the precision are enclosed by [0, 2^-bits] (no e^(-10^12) computed);
    a term past e^LARGEST_EXPONENT is refused, not aborted on."""
    from betweencut.proofs.exact.arith import LARGEST_EXPONENT

    x = ExpPoly.exp(0, Fraction(1, 3)) + ExpPoly.exp(-(10**12))
    lo, hi = x.enclose(64)
    assert lo <= Fraction(1, 3) < hi and hi - lo < Fraction(1, 2**60)
    with pytest.raises(Undecided, match="too large"):
        ExpPoly.exp(LARGEST_EXPONENT + 1).enclose(64)
