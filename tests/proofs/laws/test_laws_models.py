"""Output laws of BT/GuardedBT (Alg. 4/1) in the three models, the interval gate, Eq. (16),
Lemma 4.1 / Theorem 5.4 bounds (the functions later checkers compare against), and the
`audit laws` group."""

from __future__ import annotations

import dataclasses
import json
import subprocess
from fractions import Fraction as F

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from mpmath import iv

from betweencut.errors import ParameterError, Undecided
from betweencut.mechanism.calibration import calibrate
from betweencut.mechanism.guarded_bt import BT, GuardedBT
from betweencut.noise.noisy_test import Outcome
from betweencut.numbers import exact as core_exact
from betweencut.numbers.exact import LogReal, certified_sign, enclosure_sign, iv_precision, refine
from betweencut.proofs import ClaimRefuted, audit_cases
from betweencut.proofs.exact.arith import ExpPoly, ExpRational, enclose, sign
from betweencut.proofs.exact.interval import bounds, interval_law, interval_theorem_5_4_bound
from betweencut.proofs.laws.bt_laws import guarded_exact_law
from betweencut.proofs.laws.lawcheck import (
    _interval_laws,
    check_bt_laws_interval,
    check_output_laws,
    check_output_laws_interval,
)
from betweencut.proofs.laws.models import exact_model, rational_model
from betweencut.proofs.laws.qbound import check_q_lambda_at_least_one_fifth
from betweencut.proofs.laws.targets import q_bound
from betweencut.proofs.laws.tct import (
    check_calibrated_theorem_5_4,
    check_lemma_4_1,
    check_theorem_5_4_bound_models,
    delta0,
    lemma_4_1_bound,
    q_lambda,
    theorem_5_4_bound,
)

xis = st.fractions(min_value=F(101, 100), max_value=F(12), max_denominator=100)


@given(xis, st.integers(1, 8), st.one_of(st.none(), st.integers(1, 5)))
@example(F(3, 2), 2, None)
def test_alg_1_and_alg_4_laws_rational_model(xi: F, gap: int, R: int | None) -> None:
    cert = check_output_laws(rational_model(10, 10 + gap, xi, R))
    assert cert.method == "exact"


@pytest.mark.parametrize("R", [None, F(1), F(7, 3), LogReal(F(1), F(3), F(5))])
def test_alg_1_and_alg_4_laws_exact_model(R: F | LogReal | None) -> None:
    model = exact_model(F(21, 2), F(1, 3), R)
    assert check_output_laws(model).quantities["laws"] == len(model.window())
    for c in model.window():  # the model's law is laws.guarded_exact_law of the mechanism
        law = guarded_exact_law(model.mechanism, c)
        assert all(model.law(c)[s] == ExpRational.of(law[s]) for s in Outcome)


def test_alg_1_and_alg_4_laws_reject_a_broken_law() -> None:
    model = rational_model(10, 12, F(3, 2))

    def broken(c: int) -> dict[Outcome, F]:
        law = model.noisy_law(c)
        return {**law, Outcome.B: law[Outcome.B] + F(1, 10**6)}

    with pytest.raises(ClaimRefuted, match="not a distribution") as info:
        check_output_laws(dataclasses.replace(model, noisy_law=broken))
    assert "count" in info.value.counterexample


@pytest.mark.parametrize(("lam", "R"), [(F(1, 3), LogReal(F(1), F(1, 2), F(7))),
                                        (F(1), LogReal(F(3, 2), F(1, 3), F(20)))])
def test_alg_1_and_alg_4_laws_interval_model(lam: F, R: LogReal) -> None:
    mech = GuardedBT.of(F(15) - 1 / lam, F(15) + 1 / lam, R, lam)
    cert = check_output_laws_interval(mech, range(0, 35))
    assert cert.method == "interval (64 bits)"
    shift = LogReal(F(0), F(1), F(2))  # irrational thresholds: τ = 15 + ln 2
    assert check_bt_laws_interval(shift + mech.a, shift + mech.b, lam, range(0, 35)).verdict \
        == "holds"


def test_alg_1_and_alg_4_laws_interval_rejects_a_wrong_law() -> None:
    good = interval_law(0, F(-1), F(1), F(1))

    def shifted(c: int) -> dict[Outcome, object]:
        with iv_precision(64):
            return {**good, Outcome.B: good[Outcome.B] + iv.mpf(1) / 10**6}

    with pytest.raises(ClaimRefuted, match="excludes 1") as info:
        _interval_laws(shifted, lambda c: True, [0], {"case": "shifted"}, 64)
    lo, _ = info.value.counterexample["bounds"]  # type: ignore[misc]
    assert lo > 1

    def vanishing(c: int) -> dict[Outcome, object]:
        with iv_precision(64):
            return {Outcome.L: iv.mpf(1), Outcome.B: iv.mpf(0), Outcome.H: iv.mpf(0)}

    with pytest.raises(ClaimRefuted, match="not > 0"):
        _interval_laws(vanishing, lambda c: True, [0], {}, 64)


@pytest.mark.parametrize("c", [-3, 0, 1, 2, 5])
def test_interval_law_encloses_the_exact_law(c: int) -> None:
    law = interval_law(c, F(-1, 2), F(3, 2), F(2, 3), prec=80)
    exact = guarded_exact_law(BT(F(-1, 2), F(3, 2), F(2, 3)), c)
    for s in Outcome:
        lo, hi = bounds(law[s])
        elo, ehi = enclose(exact[s], 80)
        assert lo <= elo and ehi <= hi


def test_interval_gate_raises_undecided_and_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """The one gate: `sign` of a straddling interval is `Undecided`; `certified_sign` retries at
    rising precision (`refine`) and raises `Undecided` only at the package's one cap."""
    with iv_precision(64):
        straddle = iv.exp(iv.mpf(1)) - iv.exp(iv.mpf(1))
    with pytest.raises(Undecided):
        sign(straddle)

    def zero(prec: int) -> tuple[F, F]:
        with iv_precision(prec):
            return bounds(iv.exp(iv.mpf(1) / 3) ** 3 - iv.exp(iv.mpf(1)))

    monkeypatch.setattr(core_exact, "MAX_PRECISION_BITS", 256)
    with pytest.raises(Undecided, match="at 256 bits"):
        certified_sign(zero, lambda: "e^(1/3)^3 - e")
    monkeypatch.undo()

    def tiny(prec: int) -> tuple[F, F]:  # e^(1/3)^3 vs e - 2^-100: decided only at higher prec
        with iv_precision(prec):
            return bounds(iv.exp(iv.mpf(1) / 3) ** 3 - iv.exp(iv.mpf(1))
                          + iv.ldexp(iv.mpf(1), -100))

    assert certified_sign(tiny, lambda: "tiny") == 1
    verdict, used = refine(lambda p: enclosure_sign(*tiny(p)), lambda: "tiny")
    assert verdict == 1 and used > 64


def test_eq_16_q_lambda_at_least_one_fifth_on_all_of_0_1() -> None:
    cert = check_q_lambda_at_least_one_fifth()
    assert cert.scope == "all 0 < lambda <= 1" and cert.method == "exact"


def test_eq_16_rejects_a_bound_too_large_or_lambda_too_large() -> None:
    q1 = q_lambda(F(1))
    lo, _ = enclose(q1, 64)
    with pytest.raises(ClaimRefuted, match="below"):
        check_q_lambda_at_least_one_fifth(lower=lo * F(101, 100))
    with pytest.raises(ClaimRefuted, match="below 1/5"):
        check_q_lambda_at_least_one_fifth(lam_max=F(3, 2))


def test_theorem_5_4_bound_pinned_values() -> None:
    # r = L: only the guard term, (L/2)·e^{-λ(R-1)}
    assert theorem_5_4_bound(3, F(1, 2), 3, 3) == ExpRational.of(ExpPoly.exp(-1, F(3, 2)))
    # calibrated: (L/2)·e^{-ln(L/δ)} = δ/2 (Eq. (119))
    cal = calibrate(15, F(1), F(1, 1000))
    assert theorem_5_4_bound(cal.L, cal.lam, cal.R, cal.L) == F(1, 2000)
    assert delta0(cal.lam, cal.R) == cal.delta / (2 * cal.L)
    # r < L: + (1 - q_λ)^r
    expected = ExpRational.of(ExpPoly.exp(-2, 2)) + (1 - q_lambda(F(1))) ** 2
    assert theorem_5_4_bound(4, F(1), 3, 2) == expected


def test_lemma_4_1_bound() -> None:
    eps, delta = lemma_4_1_bound(5, 2, F(1, 3), F(1, 100), F(1, 5))
    assert eps == F(2, 3) and delta == F(5, 100) + F(16, 25)
    eps, delta = lemma_4_1_bound(5, 5, F(1, 3), F(1, 100), F(1, 5))
    assert delta == F(1, 20)
    with pytest.raises(ParameterError):
        lemma_4_1_bound(5, 6, F(1), F(0), F(1, 5))
    with pytest.raises(ParameterError):
        lemma_4_1_bound(5, 1, F(1), F(0), F(6, 5))


@given(xis, st.integers(1, 4), st.one_of(st.none(), st.integers(1, 3)), st.integers(1, 3),
       st.integers(0, 16))
@example(F(3, 2), 2, 1, 1, 6)  # a guard crossing alone: the bound K·δ0 is attained
def test_lemma_4_1_one_hit_interactions(xi: F, gap: int, R: int | None, K: int, start: int
                                        ) -> None:
    model = rational_model(10, 10 + gap, xi, R)
    kappa0 = model.delta0 if model.delta0 is not None else F(0)
    calls = [(model.law(c), model.law(c + 1)) for c in range(start, start + K)]
    for r in range(1, K + 1):
        cert = check_lemma_4_1(calls, xi, kappa0, q_bound(model), r)
        assert cert.quantities["delta"] <= cert.quantities["bound"]


def test_lemma_4_1_rejects_a_kappa0_too_small() -> None:
    model = rational_model(10, 12, F(3, 2), 2)
    c = next(c for c in model.window() if model.randomized(c) != model.randomized(c + 1))
    calls = [(model.law(c), model.law(c + 1))]
    assert model.delta0 is not None
    with pytest.raises(ClaimRefuted, match="exceeds the bound") as info:
        check_lemma_4_1(calls, model.xi, model.delta0 * F(99, 100), q_bound(model), 1)
    assert info.value.counterexample["delta"] == model.delta0


def test_theorem_5_4_bound_parameters() -> None:
    with pytest.raises(ParameterError):
        theorem_5_4_bound(3, F(3, 2), 2, 1)  # λ > 1
    with pytest.raises(ParameterError):
        theorem_5_4_bound(3, F(1, 3), LogReal(F(1), F(1, 2), F(7)), 1)  # no exact form
    with pytest.raises(ParameterError):
        theorem_5_4_bound(3, F(1, 3), F(1, 2), 1)  # R < 1


@pytest.mark.parametrize(("L", "lam", "R", "r"), [(3, F(1, 2), F(3), 2), (4, F(1), F(1), 4),
                                                   (3, F(1, 3), LogReal(F(1), F(1, 2), F(7)), 2)])
def test_theorem_5_4_bound_exact_and_interval_agree(L: int, lam: F, R: F | LogReal, r: int
                                                     ) -> None:
    cert = check_theorem_5_4_bound_models(L, lam, R, r)
    assert "interval" in cert.method
    box = interval_theorem_5_4_bound(L, lam, R, r)
    assert sign(box) == 1


@given(st.integers(1, 10**6), st.sampled_from([F(1, 10), F(1, 2), F(1)]),
       st.sampled_from([F(1, 10**6), F(1, 1000), F(1, 20), F(99, 1000)]))
def test_theorem_5_5_via_the_exact_theorem_5_4_bound(h: int, eps: F, delta: F) -> None:
    assert check_calibrated_theorem_5_4(calibrate(h, eps, delta)).verdict == "holds"


def test_theorem_5_5_rejects_a_delta_smaller_than_the_bound() -> None:
    cal = calibrate(15, F(1), F(1, 1000))
    with pytest.raises(ClaimRefuted, match="exceeds delta"):
        check_calibrated_theorem_5_4(dataclasses.replace(cal, delta=cal.delta / 3))


def test_audit_laws_group_is_registered() -> None:
    cases = audit_cases("laws")
    assert len(cases) == 3
    interval = next(c for c in cases if "interval" in c.title)
    assert all(cert.verdict == "holds" for cert in interval.run())


@pytest.mark.slow
def test_audit_laws_cli_json() -> None:
    out = subprocess.run(["betweencut", "audit", "laws", "--json"],
                         capture_output=True, text=True, check=False, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["holds"] is True


def test_theorem_5_5_via_theorem_5_4_evaluates_the_bound_at_the_claimed_epsilon() -> None:
    """Issue 28, sweep (a calibration's `r` vs its `ε`): the tight calibration at h = 15,
    `(1, 1/20)` keeps Theorem 5.5's `r = 4` but has `λ = 3203/10000`, so Theorem 5.4 at `r = 4`
    bounds `δ` at `ε = 4λ = 1.28`, not at the claimed `ε = 1`. The check takes the largest `r`
    with `rλ <= ε` (here 3), whose bound exceeds `δ`: refuted (the tight calibration rests on
    KOV, `check_tight_calibration`). For Theorem 5.5's own calibration `rλ = ε` and the bound
    is re-derived here from the test's `(L, λ, R, r)` by `theorem_5_4_bound`."""
    from betweencut.proofs.exact.arith import exact_str
    from betweencut.proofs.laws.tct import theorem_5_4_bound
    from betweencut.proofs.privacy.accountants.tight_calibration import calibrate_tight

    cal = calibrate_tight(15, 1, F(1, 20))
    assert cal.r == 4 and cal.r * cal.lam > cal.epsilon
    with pytest.raises(ClaimRefuted, match="exceeds delta") as info:
        check_calibrated_theorem_5_4(cal)
    facts = info.value.counterexample
    assert facts["r"] == 3 and facts["eps_of_bound"] == 3 * cal.lam
    paper = calibrate(15, 1, F(1, 20))
    cert = check_calibrated_theorem_5_4(paper)
    assert cert.parameters["r"] == 4 and cert.parameters["eps_of_bound"] == paper.epsilon == 1
    assert cert.quantities["theorem_5_4_delta"] == exact_str(
        theorem_5_4_bound(4, F(1, 4), LogReal(F(1), F(4), F(80)), 4))
