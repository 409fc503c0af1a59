"""Def. 2.7 (tightest λ) and Def. 5.1 (q-target decided by an exact LP), with witnesses either
way: a decomposition re-verified exactly, or a Farkas certificate."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from hypothesis import given
from hypothesis import strategies as st

from betweencut.noise.noisy_test import Outcome
from betweencut.numbers.exact import LogReal
from betweencut.proofs import ClaimRefuted
from betweencut.proofs.exact.lp import solve, verify_farkas, verify_point
from betweencut.proofs.laws.indist import (
    check_indistinguishable,
    check_q_target,
    check_q_target_lambda,
    decide_q_target,
    laws_of,
    tightest_lambda,
)
from betweencut.proofs.laws.models import exact_model, rational_model
from betweencut.proofs.laws.targets import lemma_5_3_witness, q_bound

xis = st.fractions(min_value=F(101, 100), max_value=F(12), max_denominator=100)


def test_def_2_7_tightest_lambda_is_the_max_outcome_log_ratio() -> None:
    P0 = laws_of([F(1, 2), F(1, 4), F(1, 4)])
    P1 = laws_of([F(1, 4), F(1, 4), F(1, 2)])
    t = tightest_lambda(P0, P1)
    assert t.xi == 2 and t.lam_exact == LogReal(F(0), F(1), F(2)).exact_str()
    lo, hi = t.lam_bounds or (F(0), F(0))
    assert F(6931, 10000) <= lo <= hi <= F(6932, 10000)
    cert = check_indistinguishable(P0, P1, F(7, 10))  # ln 2 < 0.7
    assert cert.quantities["tightest_xi"] == "2"
    with pytest.raises(ClaimRefuted, match="ratio exceeds") as info:
        check_indistinguishable(P0, P1, F(69, 100))  # ln 2 > 0.69
    assert info.value.counterexample["ratio"] == "2"


def test_def_2_7_supports_differ() -> None:
    P0 = laws_of([F(1), F(0), F(0)])
    P1 = laws_of([F(1, 2), F(1, 2), F(0)])
    assert tightest_lambda(P0, P1).xi is None
    with pytest.raises(ClaimRefuted, match="supports differ"):
        check_indistinguishable(P0, P1, F(1))


@given(xis, st.integers(1, 6), st.integers(0, 20))
def test_def_2_7_bt_neighbours_are_lambda_indistinguishable(xi: F, gap: int, c: int) -> None:
    """Eq. (73): `P_c ≈λ P_{c+1}`; the tightest ratio is exactly `ξ` off the window's middle."""
    model = rational_model(10, 10 + gap, xi)
    cert = check_indistinguishable(model.noisy_law(c), model.noisy_law(c + 1), xi=xi)
    assert cert.verdict == "holds"


def test_def_2_7_exact_model() -> None:
    model = exact_model(F(5), F(1, 2))
    cert = check_indistinguishable(model.noisy_law(3), model.noisy_law(4), F(1, 2))
    assert cert.method == "exact"
    with pytest.raises(ClaimRefuted):
        check_indistinguishable(model.noisy_law(3), model.noisy_law(4), F(49, 100))


@given(xis, st.integers(1, 5), st.integers(1, 3), st.integers(5, 18))
def test_def_5_1_lp_agrees_with_lemma_5_3(xi: F, gap: int, R: int, c: int) -> None:
    model = rational_model(10, 10 + gap, xi, R)
    assert model.delta0 is not None
    cert = check_q_target(model.law(c), model.law(c + 1), xi, model.delta0, q_bound(model))
    assert cert.method == "exact"


def test_def_5_1_rejects_kappa_below_the_exceptional_mass() -> None:
    model = rational_model(10, 12, F(3, 2), 2)
    c = next(c for c in model.window() if model.randomized(c) != model.randomized(c + 1))
    true_kappa = lemma_5_3_witness(model, c, c + 1).kappa
    P0, P1 = model.law(c), model.law(c + 1)
    assert decide_q_target(P0, P1, model.xi, true_kappa, q_bound(model)).feasible
    low = true_kappa * F(99, 100)
    with pytest.raises(ClaimRefuted, match="Farkas") as info:
        check_q_target(P0, P1, model.xi, low, q_bound(model))
    assert info.value.counterexample["kappa"] == low
    assert info.value.counterexample["farkas"]


def test_def_5_1_rejects_q_above_one_and_xi_too_small() -> None:
    model = rational_model(10, 13, F(3, 2))
    P0, P1 = model.law(11), model.law(12)
    assert not decide_q_target(P0, P1, F(3, 2), F(0), F(101, 100)).feasible
    # with ξ below the pair's own ratio nothing but a common part can absorb the difference
    assert not decide_q_target(P0, P1, F(1), F(0), F(1, 100)).feasible


def test_def_5_1_identical_laws_need_nothing() -> None:
    P = laws_of([F(1, 3), F(1, 3), F(1, 3)])
    d = decide_q_target(P, P, F(1), F(0), F(1))
    assert d.feasible and d.witness is not None


@given(st.lists(st.lists(st.integers(-3, 3), min_size=4, max_size=4), min_size=1, max_size=4),
       st.lists(st.integers(-4, 4), min_size=4, max_size=4))
def test_lp_answers_verify(rows: list[list[int]], rhs: list[int]) -> None:
    A = [[F(v) for v in r] for r in rows]
    b = [F(v) for v in rhs[: len(rows)]]
    result = solve(A, b)
    if result.feasible:
        assert verify_point(A, b, result.point)
    else:
        assert verify_farkas(A, b, result.farkas)


def test_def_5_1_target_outcome_set() -> None:
    model = rational_model(10, 13, F(2))
    P0, P1 = model.law(11), model.law(12)
    assert decide_q_target(P0, P1, F(2), F(0), F(1), frozenset(Outcome)).feasible


def test_def_5_1_rational_lambda_brackets_e_lambda() -> None:
    """Laws of the rational model with ξ = 3/2 against λ = 1/2 > ln(3/2) and λ = 2/5 < ln(3/2)."""
    model = rational_model(10, 13, F(3, 2))
    P0, P1 = model.law(11), model.law(12)
    cert = check_q_target_lambda(P0, P1, F(1, 2), F(0), F(1, 10))
    xi_lo = cert.quantities["xi_lo <= e^lambda"]
    assert isinstance(xi_lo, F) and F(3, 2) <= xi_lo < F(165, 100)
    with pytest.raises(ClaimRefuted, match="Farkas") as info:
        check_q_target_lambda(P0, P1, F(2, 5), F(0), F(1, 10))
    assert info.value.counterexample["xi_hi"] < F(3, 2)
