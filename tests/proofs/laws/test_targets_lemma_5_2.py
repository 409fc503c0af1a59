"""Lemma 5.2 (Eq. (75)-(99)): BT's {B}-target witnesses, constructed and checked exactly, and
refused when perturbed by 10^-6 in any coordinate or when q is claimed 1% too large."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from betweencut.noise.noisy_test import Outcome
from betweencut.proofs import ClaimRefuted
from betweencut.proofs.laws.models import exact_model, rational_model
from betweencut.proofs.laws.targets import (
    check_lemma_5_2,
    lemma_5_2_witness,
    q_bound,
    sweep_lemma_5_2,
)
from betweencut.proofs.laws.tct import q_lambda

xis = st.fractions(min_value=F(101, 100), max_value=F(12), max_denominator=100)
gaps = st.integers(1, 7)
EPS = F(1, 10**6)
COORDS = [("p", None), ("kappa", None)] + [
    (name, s) for name in ("C", "N0", "N1", "F0", "F1") for s in Outcome]


@given(xis, gaps)
@example(F(3, 2), 2)
@example(F(101, 100), 7)
def test_lemma_5_2_rational_model_every_pair(xi: F, gap: int) -> None:
    model = rational_model(10, 10 + gap, xi)
    certs = sweep_lemma_5_2(model)
    assert certs and all(c.verdict == "holds" and c.method == "exact" for c in certs)
    cases = {c.parameters["case0"] for c in certs} | {c.parameters["case1"] for c in certs}
    expected = {"c <= a (Eq. 92-93)", "c >= b (Eq. 94-95)"}
    if gap > 1:  # an integer strictly between a and b
        expected.add("a < c < b (Eq. 96-98)")
    assert cases == expected


@pytest.mark.parametrize(("lam", "tau"), [(F(1), F(4)), (F(1, 2), F(13, 2)), (F(1, 3), F(7))])
def test_lemma_5_2_exact_model_equals_q_lambda(lam: F, tau: F) -> None:
    model = exact_model(tau, lam)
    assert q_bound(model) == q_lambda(lam)  # Eq. (99)
    certs = sweep_lemma_5_2(model)
    assert len(certs) == 2 * len(model.window())


def _witness(model, c0: int, c1: int):  # type: ignore[no-untyped-def]
    return lemma_5_2_witness(model.noisy_law(c0), model.noisy_law(c1), model.xi, model.one,
                             model.zero)


@pytest.mark.parametrize(("field", "outcome"), COORDS)
@pytest.mark.parametrize("c0", [8, 11, 13])
def test_lemma_5_2_rejects_a_witness_perturbed_by_1e_6(field: str, outcome: Outcome | None,
                                                        c0: int) -> None:
    model = rational_model(10, 13, F(3, 2))
    bad = _witness(model, c0, c0 + 1).perturbed(field, outcome, EPS)
    with pytest.raises(ClaimRefuted) as info:
        check_lemma_5_2(model, c0, c0 + 1, bad)
    assert info.value.counterexample["c0"] == c0
    assert "c1 = " in str(info.value)


@pytest.mark.parametrize(("field", "outcome"), [("p", None), ("N0", Outcome.B), ("C", Outcome.H),
                                                ("N1", Outcome.L)])
def test_lemma_5_2_exact_model_rejects_a_perturbed_witness(field: str,
                                                           outcome: Outcome | None) -> None:
    model = exact_model(F(4), F(1))
    bad = _witness(model, 3, 4).perturbed(field, outcome, EPS)
    with pytest.raises(ClaimRefuted):
        check_lemma_5_2(model, 3, 4, bad)


def test_lemma_5_2_rejects_q_one_percent_too_large() -> None:
    model = rational_model(10, 13, F(3, 2))
    w = _witness(model, 7, 8)
    assert w.N0[Outcome.B] == q_bound(model)  # the bound is attained below a (Eq. 93)
    too_large = q_bound(model) * F(101, 100)
    with pytest.raises(ClaimRefuted, match="target\\) < q") as info:
        check_lemma_5_2(model, 7, 8, w, q=too_large)
    assert info.value.counterexample["q"] == too_large
    assert info.value.counterexample["N_target"] == q_bound(model)


def test_lemma_5_2_rejects_q_one_percent_too_large_exact_model() -> None:
    model = exact_model(F(4), F(1))
    w = _witness(model, 1, 2)
    with pytest.raises(ClaimRefuted, match="< q"):
        check_lemma_5_2(model, 1, 2, w, q=q_lambda(F(1)) * F(101, 100))


def test_lemma_5_2_witness_formulas() -> None:
    """Eq. (75)-(81) on one pair, by hand: α_L = (ξℓ1 - ℓ0)/(ξ - 1)."""
    model = rational_model(0, 2, F(2))
    P0, P1 = model.noisy_law(0), model.noisy_law(1)
    w = _witness(model, 0, 1)
    alpha_L = (2 * P1[Outcome.L] - P0[Outcome.L]) / 1
    alpha_H = (2 * P0[Outcome.H] - P1[Outcome.H]) / 1
    assert w.p == alpha_L + alpha_H
    assert w.N0[Outcome.B] == P0[Outcome.B] / (1 - w.p)
    assert w.N0[Outcome.L] == 2 * w.N1[Outcome.L]  # Eq. (87)


@pytest.mark.parametrize(("lam", "tau"), [(F(1), F(4)), (F(1, 2), F(13, 2))])
def test_lemma_5_2_eq_99_reads_the_real_law_and_refutes_a_perturbed_one(lam: F, tau: F) -> None:
    """Eq. (99) compares gamma read off the real query's exact law with q_lambda from lambda
    alone: a query with half-width thresholds (b - a = 1/lambda) or noise Lap(lambda) instead
    of Lap(1/lambda) is refuted, though its witness checks pass (they use the model's law)."""
    import dataclasses

    from betweencut.mechanism.guarded_bt import BT
    from betweencut.proofs.laws.targets import law_gamma

    model = exact_model(tau, lam)
    assert law_gamma(model.mechanism) == model.gamma
    check_lemma_5_2(model, 3, 4, _witness(model, 3, 4))
    for wrong in (BT(tau - 1 / (2 * lam), tau + 1 / (2 * lam), lam),
                  BT(tau - 1 / lam, tau + 1 / lam, 1 / lam if lam != 1 else F(1, 2))):
        bad = dataclasses.replace(model, mechanism=wrong)
        with pytest.raises(ClaimRefuted, match=r"Eq\. \(99\)"):
            check_lemma_5_2(bad, 3, 4, _witness(model, 3, 4))
