"""`divergence.certified`: the curve of a pair with enclosed probabilities, bounded by two exact
curves, against the direct certified hockey stick and against exact laws (where both bounds
must be the exact curve itself)."""

from __future__ import annotations

from collections.abc import Hashable
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from betweencut.proofs.exact.arith import ExpPoly, sign
from betweencut.proofs.exact.enclosure import Enclosure
from betweencut.proofs.privacy.divergence.certified_curve import (
    CertifiedCurve,
    certified_curve,
    certified_exceeds,
    same_laws,
)
from betweencut.proofs.privacy.divergence.curve import exceeds
from betweencut.proofs.privacy.enumeration.gaussian_noise import CertifiedJoint
from betweencut.proofs.privacy.enumeration.shared_noise import ExactJoint

Law = dict[Hashable, ExpPoly | Enclosure]


def _blurred(x: ExpPoly, width: F) -> Enclosure:
    """`x` known only through bounds of width `width` around its 64-bit enclosure (a stand-in
    for a Gaussian probability)."""
    lo, hi = x.enclose(64)

    def at(prec: int) -> tuple[F, F]:
        w = width / 2 ** (prec - 64)
        return max(lo - w, F(0)), hi + w

    return Enclosure(at, f"~{x}")


Exact = dict[Hashable, ExpPoly]


def _laws(weights: list[tuple[int, int]]) -> tuple[Exact, Exact]:
    """Two exact laws on outputs 0..n-1 from integer weights (normalised, one e^x term each)."""
    p_total = sum(a for a, _ in weights)
    q_total = sum(b for _, b in weights)
    p = {i: ExpPoly.exp(F(-i, 3), F(a, p_total)) for i, (a, _) in enumerate(weights) if a}
    q = {i: ExpPoly.exp(F(-i, 3), F(b, q_total)) for i, (_, b) in enumerate(weights) if b}
    return p, q


weights = st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=1, max_size=4) \
    .filter(lambda ws: sum(a for a, _ in ws) > 0 and sum(b for _, b in ws) > 0)


@settings(max_examples=30, deadline=None)
@given(weights, st.sampled_from([F(0), F(1, 3), F(1), F(5, 2)]))
def test_bounds_enclose_the_direct_certified_hockey_stick(
        ws: list[tuple[int, int]], eps: F) -> None:
    """lower(eps) <= delta(eps) <= upper(eps), checked against `CertifiedJoint`'s enclosure of
    the same delta computed directly (the two enclosures overlap), and exact laws give two
    bounds equal to the exact curve."""
    p, q = _laws(ws)
    exact = certified_curve(p, q)
    direct_exact = ExactJoint(p, q).divergence(eps).delta
    assert sign(exact.lower.at(eps) - direct_exact) == 0
    assert sign(exact.upper.at(eps) - direct_exact) == 0
    blurred_p: Law = {o: _blurred(v, F(1, 1000)) for o, v in p.items()}
    blurred_q: Law = {o: _blurred(v, F(1, 1000)) for o, v in q.items()}
    curve = certified_curve(blurred_p, blurred_q)
    lo, hi = curve.at(eps)
    assert sign(lo - direct_exact) <= 0 <= sign(hi - direct_exact)
    d_lo, d_hi = CertifiedJoint(blurred_p, blurred_q).divergence(eps).delta.enclose(64)
    assert sign(lo - d_hi) <= 0 <= sign(hi - d_lo)


def test_epsilon_at_delta_encloses_the_exact_one_and_narrows_with_bits() -> None:
    p, q = _laws([(3, 1), (1, 3), (1, 1)])
    exact = certified_curve(p, q).lower.epsilon_at_delta(F(0))
    assert exact is not None
    blurred_p: Law = {o: _blurred(v, F(1, 10**6)) for o, v in p.items()}
    blurred_q: Law = {o: _blurred(v, F(1, 10**6)) for o, v in q.items()}
    curve = certified_curve(blurred_p, blurred_q)
    lo, hi = curve.epsilon_at_delta_in(F(0))
    assert lo is not None and hi is not None
    assert lo.compare(exact) <= 0 <= hi.compare(exact)
    at = curve.epsilon_at_delta(F(0))
    assert at is not None and at.compare(lo) == 0
    finer = curve.at_bits(128).epsilon_at_delta_in(F(0))
    assert finer[0] is not None and finer[1] is not None
    assert finer[0].compare(lo) >= 0 and finer[1].compare(hi) <= 0


def test_certified_exceeds_finds_a_leakier_candidate_and_clears_a_safer_one() -> None:
    p, q = _laws([(4, 1), (1, 4)])
    p2, q2 = _laws([(2, 1), (1, 2)])  # less distinguishable: a smaller curve everywhere
    blur = F(1, 10**6)
    leaky = certified_curve({o: _blurred(v, blur) for o, v in p.items()},
                            {o: _blurred(v, blur) for o, v in q.items()})
    safe = certified_curve({o: _blurred(v, blur) for o, v in p2.items()},
                           {o: _blurred(v, blur) for o, v in q2.items()})
    ranges = certified_exceeds(leaky, safe)
    assert ranges and ranges == certified_exceeds(leaky, safe)
    assert certified_exceeds(safe, leaky) == []
    assert certified_exceeds(leaky, leaky) is None  # the same curve: bounds cannot tell
    exact_leaky, exact_safe = certified_curve(p, q).lower, certified_curve(p2, q2).lower
    assert certified_exceeds(exact_leaky, exact_safe) == exceeds(exact_leaky, exact_safe)


def test_known_equal_laws_are_recognised_structurally() -> None:
    """Enclosures with the same structural key are equal (`same_laws`); a different key, or
    a different exact value, is not."""
    x = Enclosure(lambda prec: (F(1, 3), F(1, 2)), "x", key=("x",))
    y = Enclosure(lambda prec: (F(1, 3), F(1, 2)), "y", key=("x",))
    other = Enclosure(lambda prec: (F(1, 3), F(1, 2)), "z", key=("z",))
    a = CertifiedJoint({0: x}, {0: ExpPoly.const(F(1, 2))})
    assert same_laws(a, CertifiedJoint({0: y}, {0: ExpPoly.const(F(1, 2))}))
    assert not same_laws(a, CertifiedJoint({0: other}, {0: ExpPoly.const(F(1, 2))}))
    assert not same_laws(a, CertifiedJoint({0: y}, {0: ExpPoly.const(F(1, 3))}))
    assert not same_laws(a, object())


def test_an_output_known_equal_under_both_laws_adds_nothing() -> None:
    x = Enclosure(lambda prec: (F(1, 3), F(1, 2)), "x", key=("x",))
    curve = certified_curve({0: x}, {0: x})
    assert isinstance(curve, CertifiedCurve)
    assert all(sign(v) == 0 for v in curve.at(F(0)))


def test_bits_below_the_precision_context_are_refused() -> None:
    from betweencut.errors import ParameterError

    with pytest.raises(ParameterError, match="bits"):
        certified_curve({}, {}, bits=8)
