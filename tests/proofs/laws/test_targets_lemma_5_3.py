"""Lemma 5.3 (Eq. (100)-(111)): GuardedBT's witnesses in all three cases, including every pair that
crosses a guard, with rational and irrational (calibrated) R; κ <= δ0 (Eq. (105)) exactly and in
the interval model; refusal of perturbed witnesses and of a κ bound below the true exceptional
mass."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from betweencut.mechanism.calibration import calibrate
from betweencut.mechanism.guarded_bt import GuardedBT
from betweencut.noise.noisy_test import Outcome
from betweencut.numbers.exact import LogReal
from betweencut.proofs import ClaimRefuted
from betweencut.proofs.laws.lawcheck import check_kappa_interval
from betweencut.proofs.laws.models import exact_model, rational_model
from betweencut.proofs.laws.targets import check_lemma_5_3, lemma_5_3_witness, sweep_lemma_5_3

xis = st.fractions(min_value=F(101, 100), max_value=F(12), max_denominator=100)
EPS = F(1, 10**6)
COORDS = [("p", None), ("kappa", None)] + [
    (name, s) for name in ("C", "N0", "N1", "F0", "F1") for s in Outcome]
ALL_CASES = {"identical laws (Eq. 100)", "both randomized (Eq. 101-102)",
             "guard crossed, j = 1, s = L (Eq. 103-107)",
             "guard crossed, j = 0, s = H (Eq. 103-107)"}


@given(xis, st.integers(1, 6), st.integers(1, 4))
@example(F(3, 2), 2, 1)
@example(F(11, 10), 1, 4)
def test_lemma_5_3_rational_model_every_pair(xi: F, gap: int, R: int) -> None:
    model = rational_model(10, 10 + gap, xi, R)
    certs = sweep_lemma_5_3(model)
    assert {c.quantities["case"] for c in certs} == ALL_CASES
    assert all(c.method == "exact" for c in certs)


@pytest.mark.parametrize("R", [F(1), F(5, 2), LogReal(F(1), F(2), F(4)),
                               LogReal(F(1), F(1, 2), F(7))])
def test_lemma_5_3_exact_model_rational_and_irrational_R(R: F | LogReal) -> None:
    model = exact_model(F(12), F(1, 2), R)
    certs = sweep_lemma_5_3(model)
    assert {c.quantities["case"] for c in certs} == ALL_CASES
    crossed = [c for c in certs if "crossed" in str(c.quantities["case"])]
    assert len(crossed) == 2 and all("d" in c.parameters for c in crossed)


def test_lemma_5_3_calibrated_R_has_exact_delta0() -> None:
    cal = calibrate(15, F(1), F(1, 1000))  # λ(R-1) = ln(L/δ): δ0 = δ/(2L)
    model = exact_model(F(40), cal.lam, cal.R)
    assert model.delta0 == cal.delta / (2 * cal.L)
    certs = sweep_lemma_5_3(model)
    assert {c.quantities["case"] for c in certs} == ALL_CASES


def _crossing(model):  # type: ignore[no-untyped-def]
    for c in model.window():
        if model.randomized(c) != model.randomized(c + 1):
            return c
    raise AssertionError("no crossing pair")


@pytest.mark.parametrize(("field", "outcome"), COORDS)
def test_lemma_5_3_rejects_a_crossing_witness_perturbed_by_1e_6(field: str,
                                                                outcome: Outcome | None) -> None:
    model = rational_model(10, 12, F(3, 2), 2)
    c = _crossing(model)
    bad = lemma_5_3_witness(model, c, c + 1).perturbed(field, outcome, EPS)
    with pytest.raises(ClaimRefuted) as info:
        check_lemma_5_3(model, c, c + 1, bad)
    assert info.value.counterexample["c0"] == c


def test_lemma_5_3_rejects_kappa_below_the_exceptional_mass() -> None:
    model = rational_model(10, 12, F(3, 2), 2)
    c = _crossing(model)
    w = lemma_5_3_witness(model, c, c + 1)
    assert w.kappa > 0
    claimed = w.kappa * F(99, 100)
    with pytest.raises(ClaimRefuted, match="kappa exceeds") as info:
        check_lemma_5_3(model, c, c + 1, w, kappa_max=claimed)
    assert info.value.counterexample["kappa_max"] == claimed
    assert info.value.counterexample["kappa"] == w.kappa


def test_lemma_5_3_rejects_kappa_lowered_in_the_witness() -> None:
    model = exact_model(F(12), F(1, 2), F(3, 2))
    c = _crossing(model)
    w = lemma_5_3_witness(model, c, c + 1)
    from dataclasses import replace

    with pytest.raises(ClaimRefuted, match="mixture identity"):
        check_lemma_5_3(model, c, c + 1, replace(w, kappa=w.kappa * F(99, 100)))


def test_lemma_5_3_rejects_q_one_percent_too_large() -> None:
    model = rational_model(10, 13, F(3, 2), 2)
    w = lemma_5_3_witness(model, 9, 10)
    assert w.case == "both randomized (Eq. 101-102)"
    from betweencut.proofs.laws.targets import q_bound

    with pytest.raises(ClaimRefuted, match="< q"):
        check_lemma_5_3(model, 9, 10, w, q=q_bound(model) * F(101, 100))


@pytest.mark.parametrize(("lam", "R"), [(F(1, 3), LogReal(F(1), F(1, 2), F(7))),
                                        (F(1), LogReal(F(1), F(1, 7), F(1000))),
                                        (F(1, 2), F(3, 2))])
def test_lemma_5_3_kappa_at_most_delta0_interval_model(lam: F, R: F | LogReal) -> None:
    R_ = R if isinstance(R, LogReal) else LogReal(R)
    mech = GuardedBT.of(F(12) - 1 / lam, F(12) + 1 / lam, R_, lam)
    cert = check_kappa_interval(mech, range(0, 30))
    assert cert.quantities["crossing pairs"] == 2
    assert cert.method.startswith("interval")


def test_lemma_5_3_parameters() -> None:
    from betweencut.errors import ParameterError

    guarded = rational_model(10, 12, F(3, 2), 2)
    with pytest.raises(ParameterError):
        lemma_5_3_witness(guarded, 3, 5)
    plain = rational_model(10, 12, F(3, 2))
    w = lemma_5_3_witness(guarded, 11, 12)
    with pytest.raises(ParameterError):
        check_lemma_5_3(plain, 11, 12, w)


@settings(max_examples=8, deadline=None)
@given(st.fractions(min_value=F(1, 4), max_value=F(1), max_denominator=6),
       st.fractions(min_value=F(0), max_value=F(3), max_denominator=4),
       st.fractions(min_value=F(1), max_value=F(3), max_denominator=3))
def test_lemma_5_3_exact_model_hypothesis(lam: F, frac: F, R: F) -> None:
    """Exact model, λ = p/q in [1/4, 1], rational τ and R: every pair of the window."""
    tau = int(1 / lam + R) + 3 + frac
    certs = sweep_lemma_5_3(exact_model(tau, lam, R))
    assert {c.quantities["case"] for c in certs} == ALL_CASES
