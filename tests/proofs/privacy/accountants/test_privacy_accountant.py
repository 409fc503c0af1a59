"""Accountants (issue 13 Part 2): KOV's closed form and its checkable steps, every enumerated pair
under the bound, deliberately wrong accountants refuted, the tight calibration."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction as F

import numpy as np
import pytest

from betweencut.data.tree import kary_tree
from betweencut.errors import ParameterError
from betweencut.mechanism.calibration import calibrate
from betweencut.mechanism.params import Params
from betweencut.numbers.exact import LogReal
from betweencut.proofs.exact.arith import ExpPoly, certainly_le, enclose
from betweencut.proofs.exact.certificate import ClaimRefuted
from betweencut.proofs.laws.tct import theorem_5_4_bound
from betweencut.proofs.privacy.accountants import steps as accountant_claims
from betweencut.proofs.privacy.accountants.accountant import (
    Accountant,
    EnvelopeAccountant,
    KovAccountant,
    Minimum,
    TranscriptAccountant,
    accountant,
    delta0_upper,
)
from betweencut.proofs.privacy.accountants.envelope import (
    bt_envelope_upper,
    envelope_delta_upper,
    envelope_pair,
)
from betweencut.proofs.privacy.accountants.kov import kov_delta, kov_pair, product_hockey_stick
from betweencut.proofs.privacy.accountants.steps import (
    check_accountant_enumerated,
    check_envelope_pair,
    check_kov_composition,
)
from betweencut.proofs.privacy.accountants.tight_calibration import (
    calibrate_tight,
    check_tight_calibration,
)
from betweencut.proofs.registry import CLAIMS

# (arity, height, tau, lambda, R): small R and lambda = 1 make delta large (power against
# wrong accountants); lambda = 1/2 with R = 2 is the running case of the docs.
ENUMERATED = [  # one case per tree in the default run, the others with -m slow
    (2, 2, F(1), F(1), F(1)),
    (2, 3, F(1), F(1), F(1)),
    pytest.param(2, 3, F(1, 2), F(1), F(1), marks=pytest.mark.slow),
    pytest.param(2, 3, F(2), F(1, 2), F(2), marks=pytest.mark.slow),
    (3, 2, F(1), F(1), F(1)),
    pytest.param(3, 2, F(1), F(1, 2), F(3, 2), marks=pytest.mark.slow),
]


class HalfDelta0Kov(KovAccountant):
    """A deliberately wrong accountant: `δ0` halved."""

    def delta0_upper(self) -> ExpPoly | F:
        return super().delta0_upper() / 2


class HalfDelta0Envelope(EnvelopeAccountant):
    """A deliberately wrong accountant: `δ0` halved."""

    def delta0_upper(self) -> ExpPoly | F:
        return super().delta0_upper() / 2


def _wrong(kind: str, name: str, L: int, lam: F, R: F) -> TranscriptAccountant:
    good = {"kov": KovAccountant, "envelope": EnvelopeAccountant}[name].of(L, lam, R)
    if kind == "k = L - 1":
        return dataclasses.replace(good, L=L - 1)
    return {"kov": HalfDelta0Kov, "envelope": HalfDelta0Envelope}[name].of(L, lam, R)


# --- KOV ------------------------------------------------------------------------------------

@pytest.mark.parametrize("L, lam, R", [
    (1, F(1), F(1)), (2, F(1), F(1)), (3, F(1, 2), F(2)), (4, F(1, 3), F(5, 2)),
    (2, F(1, 2), LogReal(F(1), F(2), F(40))),  # calibrated-style R: delta0 exact (lam*coeff = 1)
    (3, F(2, 3), LogReal(F(1), F(1, 2), F(7))),  # lam*coeff = 1/3: delta0 a certified upper bound
])
def test_kov_composition_bound_kairouz_et_al_2015_for_betweencut_transcript(
    L: int, lam: F, R: F | LogReal
) -> None:
    cert = check_kov_composition(L, lam, R, [F(0), F(1, 3), F(1, 2), F(7, 3)])
    assert cert.quantities["band_pairs_checked"] > 0
    assert cert.quantities["closed_form_points_checked"] == 2 * L + 1


def test_kov_composition_rejects_a_halved_delta0(monkeypatch: pytest.MonkeyPatch) -> None:
    """Principle 5: with δ0 halved a guard-crossing pair is no longer (λ, δ0)-DP."""
    real = accountant_claims.delta0_upper
    monkeypatch.setattr(accountant_claims, "delta0_upper", lambda lam, R: real(lam, R) / 2)
    with pytest.raises(ClaimRefuted, match="not \\(lambda, delta0\\)-DP"):
        check_kov_composition(2, F(1), F(1), [F(0)])


def test_kov_composition_rejects_a_wrong_closed_form(monkeypatch: pytest.MonkeyPatch) -> None:
    """Principle 5: a closed form with k = L - 1 differs from the brute-force product."""
    monkeypatch.setattr(accountant_claims, "kov_delta",
                        lambda k, lam, d0, eps: kov_delta(max(1, k - 1), lam, d0, eps))
    with pytest.raises(ClaimRefuted, match="closed form"):
        check_kov_composition(3, F(1, 2), F(2), [F(0)])


def test_kov_closed_form_equals_brute_force_product_with_exp_delta0() -> None:
    d0 = ExpPoly.exp(F(-1, 2), F(1, 2))
    for k in (1, 2, 3):
        for eps in (F(0), F(1, 4), F(3, 4), F(5, 2)):
            P, Q = kov_pair(F(1, 2), d0)
            assert (kov_delta(k, F(1, 2), d0, eps) - product_hockey_stick(P, Q, k, eps)).is_zero()


def test_kov_delta_pinned_values() -> None:
    # k = 1: the hockey-stick of KOV's pair itself, 1 - (1 - δ0)(1 - (e^λ - e^ε)/(1 + e^λ)).
    x = kov_delta(1, F(1), F(1, 10), F(0))
    lo, hi = enclose(x, 64)
    e = math.e
    assert float(lo) <= 1 - 0.9 * (1 - (e - 1) / (1 + e)) + 1e-12 and float(hi) >= 1 - 0.9 * (
        1 - (e - 1) / (1 + e)) - 1e-12
    assert (kov_delta(3, F(1, 2), F(0), F(3, 2)) - 0).is_zero()  # ε >= kλ, δ0 = 0: exactly 0
    assert (kov_delta(3, F(1, 2), F(1, 10), F(9)) - (1 - F(9, 10) ** 3)).is_zero()


def test_kov_rejects_bad_parameters() -> None:
    for args in [(0, F(1), F(0), F(0)), (2, F(0), F(0), F(0)), (2, F(1), F(2), F(0)),
                 (2, F(1), F(0), F(-1))]:
        with pytest.raises(ParameterError):
            kov_delta(*args)


# --- the envelope pair ------------------------------------------------------------------------

@pytest.mark.parametrize("lam, R", [
    (F(1), F(1)), (F(1, 2), F(2)), (F(1, 3), F(5, 2)), (F(2, 3), LogReal(F(1), F(1, 2), F(7))),
])
def test_guardedbt_envelope_pair_dominates_every_guardedbt_pair(lam: F, R: F | LogReal) -> None:
    cert = check_envelope_pair(lam, R, [F(0), F(1, 3), F(1, 2), F(7, 10)])
    assert cert.quantities["comparisons"] > 0


def test_envelope_pair_check_rejects_a_lowered_envelope(monkeypatch: pytest.MonkeyPatch) -> None:
    """Principle 5: 9/10 of the closed-form envelope, or the pair built on δ0/4, is refuted."""
    monkeypatch.setattr(accountant_claims, "bt_envelope_upper",
                        lambda lam, a: bt_envelope_upper(lam, a) * F(9, 10))
    with pytest.raises(ClaimRefuted, match="closed-form envelope"):
        check_envelope_pair(F(1, 2), F(2), [F(0)])
    monkeypatch.undo()
    monkeypatch.setattr(accountant_claims, "envelope_delta_upper",
                        lambda L, lam, d0, eps: envelope_delta_upper(L, lam, d0 / 4, eps))
    with pytest.raises(ClaimRefuted, match="envelope pair's hockey-stick"):
        check_envelope_pair(F(1), F(1), [F(0), F(1, 2)])


def test_envelope_closed_form_is_the_supremum_over_dense_shifts() -> None:
    """Float cross-check (never a verdict): the certified F(a) is above the maximum over a dense
    grid of real shifts and within 1e-9 of it."""
    ys = np.linspace(-40.0, 42.0, 820001)

    def laws(y: np.ndarray) -> list[np.ndarray]:
        def cdf(t: np.ndarray) -> np.ndarray:
            neg, pos = np.minimum(t, 0), np.maximum(t, 0)
            return np.where(t <= 0, 0.5 * np.exp(neg), 1 - 0.5 * np.exp(-pos))
        low, high = cdf(-y), cdf(y - 2)
        return [low, 1 - low - high, high]

    for lam in (F(1), F(3049, 20000)):
        here, there = laws(ys), laws(ys + float(lam))
        for a in (F(0), lam / 4, lam * 39 / 40):
            alpha = math.exp(float(a))
            best = max(
                float(sum(np.maximum(0.0, u - alpha * v) for u, v in zip(p, q, strict=True)).max())
                for p, q in ((here, there), (there, here)))
            upper = float(bt_envelope_upper(lam, a))
            assert best <= upper + 1e-12 and upper <= best + 1e-9


def test_envelope_pair_is_realisable_and_below_kov() -> None:
    pair = envelope_pair(F(3049, 20000), F(1, 1000))
    assert pair.neutral[0] >= 0 and all(lo >= 0 for lo, _ in pair.nu.values())
    for L, eps in ((20, F(1)), (20, F(0)), (4, F(1, 2))):
        env = envelope_delta_upper(L, F(3049, 20000), F(1, 1000), eps)
        assert certainly_le(env, kov_delta(L, F(3049, 20000), F(1, 1000), eps))


def test_envelope_composition_agrees_with_dp_accounting() -> None:
    """dp-accounting composes the same pair (floats, its own pessimistic grid Δ = 1e-4): ours
    (exact on the pair's own loss grid, masses rounded up by 2^-64) brackets it,
    `ours(ε) <= theirs(ε) <= ours(ε - LΔ)`, up to float rounding."""
    pld_module = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    lam, d0, L = F(3049, 20000), F(1, 1000), 20
    pair = envelope_pair(lam, d0)
    step = float(lam) / pair.m
    p: dict[object, float] = {"inf": float(pair.g_inf), 0: float(sum(pair.neutral) / 2)}
    q: dict[object, float] = {"-inf": float(pair.g_inf), 0: p[0]}
    for j, (lo, hi) in pair.nu.items():
        nu = float((lo + hi) / 2)
        alpha = math.exp(j * step)
        p[j], q[j], p[-j], q[-j] = nu * alpha, nu, nu, nu * alpha
    pld = pld_module.from_two_probability_mass_functions(
        {k: math.log(v) for k, v in q.items() if v > 0},
        {k: math.log(v) for k, v in p.items() if v > 0},
        pessimistic_estimate=True, value_discretization_interval=1e-4,
        symmetric=True).self_compose(L)
    shift = F(L, 10**4)  # theirs rounds each loss up by at most 1e-4
    for eps in (F(0), F(1, 2), F(1)):
        theirs = pld.get_delta_for_epsilon(float(eps))
        assert float(envelope_delta_upper(L, lam, d0, eps)) <= theirs * (1 + 1e-9) + 1e-12
        if eps >= shift:
            assert theirs <= float(envelope_delta_upper(L, lam, d0, eps - shift)) + 1e-9


# --- accountants: API, directions, values ----------------------------------------------------

def test_accountant_api_and_parameter_errors() -> None:
    acc = accountant("tight", L=4, lam=F(1, 4), R=LogReal(F(1), F(4), F(80)))
    assert acc.name == "tight" and acc.L == 4 and "KOV" in acc.claim and acc.errs == "upper"
    assert isinstance(acc, Minimum) and [p.name for p in acc.parts] == ["paper", "kov",
                                                                         "envelope"]
    for name in ("paper", "kov", "envelope", "tight"):
        one = accountant(name, L=4, lam=F(1, 4), R=2)
        assert isinstance(one, Accountant) and one.name == name and one.errs == "upper"
        assert one.describe()["accountant"] == name
    with pytest.raises(ParameterError):
        KovAccountant(2, F(1), F(1))  # type: ignore[arg-type]  # R must be a LogReal here
    with pytest.raises(ParameterError):
        accountant("kov", L=2, lam=F(1), R=1).epsilon_upper(0.05)  # type: ignore[arg-type]
    with pytest.raises(dataclasses.FrozenInstanceError):
        acc.L = 3  # type: ignore[misc]
    for kwargs in [dict(L=0, lam=F(1), R=1), dict(L=2, lam=F(3, 2), R=1),
                   dict(L=2, lam=F(1), R=F(1, 2)), dict(L=2, lam=0.5, R=1)]:
        with pytest.raises(ParameterError):
            accountant("kov", **kwargs)  # type: ignore[arg-type]
    with pytest.raises(ParameterError):
        accountant("gaussian", L=2, lam=F(1), R=1)
    with pytest.raises(ParameterError):
        acc.delta_upper(F(-1))


def test_paper_accountant_is_theorem_5_4_between_its_points() -> None:
    cal = calibrate(15, 1, F(1, 20))
    acc = accountant("paper", L=cal.L, lam=cal.lam, R=cal.R)
    assert acc.delta_upper(F(1, 8)) == 1  # below λ: nothing better than 1
    for r in range(1, cal.L + 1):
        exact = theorem_5_4_bound(cal.L, cal.lam, cal.R, r)
        assert (acc.delta_upper(r * cal.lam) - exact).is_zero()
        assert (acc.delta_upper(r * cal.lam + cal.lam / 2) - exact).is_zero()
    assert certainly_le(acc.delta_upper(F(1)), cal.delta)  # Theorem 5.5 at ε


def test_tight_is_the_minimum_of_paper_and_kov() -> None:
    for L, lam, R in [(4, F(1, 4), LogReal(F(1), F(4), F(80))), (20, F(1, 17), F(40)),
                      (2, F(1), F(1))]:
        names = ("paper", "kov", "envelope", "tight")
        accs = {n: accountant(n, L=L, lam=lam, R=R) for n in names}
        for eps in (F(0), lam, F(1), L * lam):
            t = accs["tight"].delta_upper(eps)
            for name in names[:3]:
                assert certainly_le(t, accs[name].delta_upper(eps))
            assert certainly_le(t, 1)


def test_delta0_upper_is_exact_or_a_certified_upper_bound() -> None:
    assert delta0_upper(F(1, 2), F(3)) == ExpPoly.exp(-1, F(1, 2))
    R = LogReal(F(1), F(1, 2), F(7))  # λ·coeff = 1/3: e^{-λ(R-1)} = 7^{-1/3}
    upper = delta0_upper(F(2, 3), R)
    assert isinstance(upper, F)
    assert abs(float(upper) - 7 ** (-1 / 3) / 2) < 1e-15
    assert upper**3 * 8 * 7 >= 1  # certified: (2·δ0_upper)^3 >= 1/7


def test_epsilon_upper_is_certified() -> None:
    cal = calibrate(2**20 - 1, 1, F(1, 20))
    for name in ("paper", "kov", "envelope", "tight"):
        acc = accountant(name, L=cal.L, lam=cal.lam, R=cal.R)
        eps = acc.epsilon_upper(cal.delta)
        assert certainly_le(acc.delta_upper(eps), cal.delta)
    tight = accountant("tight", L=cal.L, lam=cal.lam, R=cal.R)
    assert tight.epsilon_upper(cal.delta) <= accountant("paper", L=cal.L, lam=cal.lam,
                                                        R=cal.R).epsilon_upper(cal.delta)
    with pytest.raises(ParameterError):
        accountant("paper", L=4, lam=F(1), R=1).epsilon_upper(F(1, 10))  # floor L·δ0 = 2


# --- validation by enumeration ----------------------------------------------------------------

def test_accountant_claims_are_registered() -> None:
    assert accountant_claims.KOV in CLAIMS and accountant_claims.DOMINATES in CLAIMS


@pytest.mark.parametrize("k, h, tau, lam, R", ENUMERATED)
def test_tight_accountant_dominates_every_enumerated_pair(
    k: int, h: int, tau: F, lam: F, R: F
) -> None:
    """Every pair with |D| <= 2 (binary h = 2, 3; ternary h = 2), ε on 0, λ/2, ..., Lλ."""
    tree, params = kary_tree(k, h), Params.of(tau, lam, R)
    for name in ("tight", "kov", "envelope"):  # paper: test_privacy_profiles.py, every r
        cert = check_accountant_enumerated(tree, params, 2, name=name)
        assert cert.quantities["pairs"] > 0


@pytest.mark.parametrize("name", ["kov", "envelope"])
@pytest.mark.parametrize("kind", ["k = L - 1", "delta0 halved"])
def test_wrong_accountants_are_refuted_by_an_enumerated_pair(kind: str, name: str) -> None:
    """Principle 5: binary h = 3, τ = 1, λ = 1, R = 1 (δ0 = 1/2) has the power to refute both."""
    tree, params = kary_tree(2, 3), Params.of(1, 1, 1)
    wrong = _wrong(kind, name, 2, F(1), F(1))
    with pytest.raises(ClaimRefuted) as info:
        check_accountant_enumerated(tree, params, 2, wrong)
    assert {"D", "z", "P", "Q", "excess"} <= set(info.value.counterexample)


# --- tight calibration ------------------------------------------------------------------------

@pytest.mark.parametrize("h, eps, delta", [
    (15, F(1), F(1, 20)), (2**10 - 1, F(1), F(1, 10**6)), (2**20 - 1, F(1), F(1, 20)),
    pytest.param(2**64 - 1, F(1, 10), F(1, 10**6), marks=pytest.mark.slow),
    (1, F(1, 2), F(1, 1000)),
])
def test_tight_calibration_certified_delta_and_margin_never_above_the_paper(
    h: int, eps: F, delta: F
) -> None:
    cal = calibrate_tight(h, eps, delta)
    cert = check_tight_calibration(cal)
    assert cal.accountant == "tight" and cert.verdict == "holds"
    paper = calibrate(h, eps, delta)
    assert cal.E.bounds()[1] <= paper.E.bounds()[1]
    assert cal.as_json()["accountant"] == "tight" and paper.as_json()["accountant"] == "paper"


def test_tight_calibration_meets_the_issue_goal_at_h_2_20() -> None:
    """E(tight)/E(paper) <= 1/2 at h = 2^20 - 1, ε = 1, δ = 0.05 (certified bounds)."""
    cal, paper = calibrate_tight(2**20 - 1, 1, F(1, 20)), calibrate(2**20 - 1, 1, F(1, 20))
    assert 2 * cal.E.bounds()[1] <= paper.E.bounds()[0]


def test_tight_calibration_check_rejects_a_wrong_calibration() -> None:
    cal = calibrate_tight(2**20 - 1, 1, F(1, 20))
    smaller_guard = dataclasses.replace(cal, R=cal.R - 5, E=cal.E - 5)
    with pytest.raises(ClaimRefuted, match="exceeds delta"):
        check_tight_calibration(smaller_guard)
    with pytest.raises(ClaimRefuted, match="E = w"):
        check_tight_calibration(dataclasses.replace(cal, E=cal.E - 1))


def test_tight_calibration_rejects_bad_parameters() -> None:
    for args in [(0, 1, F(1, 20)), (15, F(3, 2), F(1, 20)), (15, 1, F(1, 5))]:
        with pytest.raises(ParameterError):
            calibrate_tight(*args)


# --- cross-check against dp-accounting (floats: a cross-check, never a verdict) ---------------

@pytest.mark.parametrize("L, lam, d0", [(20, F(3049, 20000), F(859612049, 10**12)),
                                        (64, F(67, 20000), F(1, 10**9)), (3, F(1), F(1, 10))])
def test_kov_closed_form_agrees_with_dp_accounting_pessimistic_pld(L: int, lam: F, d0: F) -> None:
    """dp-accounting's pessimistic PLD of KOV's pair (losses rounded up by at most `Δ`),
    self-composed `L` times, brackets the exact closed form up to float rounding:
    `ours(ε) <= theirs(ε) <= ours(ε - LΔ)`."""
    pld_module = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    x, d = float(lam), float(d0)
    p_hi, p_lo = (1 - d) * math.exp(x) / (1 + math.exp(x)), (1 - d) / (1 + math.exp(x))
    log_p = {0: math.log(d), 1: math.log(p_hi), 2: math.log(p_lo)}
    log_q = {1: math.log(p_lo), 2: math.log(p_hi), 3: math.log(d)}
    pld = pld_module.from_two_probability_mass_functions(
        log_q, log_p, pessimistic_estimate=True, value_discretization_interval=1e-4,
        symmetric=True).self_compose(L)
    shift = F(L, 10**4)
    for eps in (F(0), F(1, 10), F(1, 2), F(1), F(2)):
        lo, _ = enclose(kov_delta(L, lam, d0, eps), 64)
        theirs = pld.get_delta_for_epsilon(float(eps))
        assert float(lo) <= theirs + 1e-9  # pessimistic: never below the exact value
        if eps >= shift:
            _, hi = enclose(kov_delta(L, lam, d0, eps - shift), 64)
            assert theirs <= float(hi) + 1e-9  # and no further above than LΔ of loss


# --- the claim each accountant certificate certifies (issue 28) --------------------------------

def test_tight_accountant_enumerated_certificate_states_the_accountants_claim() -> None:
    """Issue 28, sweep (accountant vs mechanism) and item 2: an accountant built for other
    parameters (here KOV with `R = 1`, `δ0 = 1/2`, on BetweenCut run with `R = 2`) is audited as
    given, and the certificate states *its* parameters and every `(ε, bound)` it certifies, not
    the mechanism's `λ`, `R` as if they were the claim's; each bound is re-derived here by KOV's
    closed form from the test's own `L`, `λ`, `δ0`."""
    from betweencut.proofs.exact.arith import exact_str

    tree, params = kary_tree(2, 3), Params.of(1, 1, 2)
    claim = accountant("kov", L=2, lam=F(1), R=F(1))
    cert = check_accountant_enumerated(tree, params, 1, claim)
    assert cert.parameters["accountant"] == {"accountant": "kov", "L": 2, "lambda": "1",
                                             "R": "1", "claim": claim.claim}
    assert cert.parameters["mechanism"] == {"lambda": F(1), "R": "2", "tau": F(1)}
    grid = [F(i, 2) for i in range(5)]  # 0, λ/2, ..., Lλ with L = 2, λ = 1
    assert cert.parameters["claimed"] == [
        {"eps": e, "bound_exact": exact_str(kov_delta(2, F(1), F(1, 2), e))} for e in grid]


def test_kov_and_envelope_certificates_rederived_independently() -> None:
    """Issue 28, item 2: the KOV and envelope certificates state the claim's parameters and
    `δ0`, re-derived here as `½e^{-λ(R-1)}` from the test's own `λ`, `R`; the envelope
    certificate states every `(ε, bound)` it compared, each re-derived from `(λ, δ0)`."""
    from betweencut.proofs.exact.arith import exact_str

    lam, R = F(1, 2), F(2)
    d0 = ExpPoly.exp(-lam * (R - 1)) * F(1, 2)
    cert = check_kov_composition(2, lam, R, [F(0)])
    assert (cert.parameters["L"], cert.parameters["lambda"], cert.parameters["R"]) == (2, lam, "2")
    assert cert.parameters["delta0"] == exact_str(d0)
    env = check_envelope_pair(lam, R, [F(0)])
    d0_upper = enclose(d0, 96)[1]
    assert env.parameters["delta0_upper"] == d0_upper and env.parameters["lambda"] == lam
    grid = [F(i, 4) * lam for i in (0, 1, 2, 3, 4, 8)]
    assert env.parameters["claimed"] == [
        {"eps": e, "bound_exact": exact_str(envelope_delta_upper(1, lam, d0_upper, e))}
        for e in grid]


def test_tight_calibration_certificate_rederived_independently() -> None:
    """Issue 28, item 2: the tight calibration's certificate states its claim `(h, ε, δ)` and
    the `λ`, `R` it certifies, and its bound is the smallest of the paper's (Eq. (22) at the
    largest `r` with `rλ <= ε`), KOV's and the envelope's, each re-derived here from `(L, λ,
    δ0)` with `δ0` from `λ`, `R` (not read from the checker's accountant)."""
    from betweencut.proofs.exact.arith import exact_str, sign

    h, eps, delta = 15, F(1), F(1, 20)
    cal = calibrate_tight(h, eps, delta)
    cert = check_tight_calibration(cal)
    p = cert.parameters
    assert (p["h"], p["epsilon"], p["delta"], p["lambda"]) == (h, eps, delta, cal.lam)
    L = 4
    d0 = delta0_upper(cal.lam, cal.R)
    r = min(L, math.floor(eps / cal.lam))
    candidates = [kov_delta(L, cal.lam, d0, eps),
                  envelope_delta_upper(L, cal.lam, enclose(d0, 96)[1], eps)]
    if r >= 1:
        from betweencut.proofs.laws.tct import lemma_4_1_bound, q_lambda

        candidates.append(lemma_4_1_bound(L, r, cal.lam, d0, q_lambda(cal.lam)).delta)
    best = min(candidates, key=lambda x: enclose(x, 128)[1])
    stated = cert.quantities["delta_upper"]
    assert stated in {exact_str(c) for c in candidates}
    assert any(sign(c - best) == 0 and exact_str(c) == stated for c in candidates)
    assert certainly_le(best, delta) and cert.quantities["delta"] == delta


def test_theorem_5_4_claimed_points_are_eq_22_itself_never_an_upper_bound_of_it() -> None:
    """The paper's claimed points are Eq. (22) exactly (Theorem 5.4): where its `δ0` has no
    exact form (`λ·coeff` not an integer) they are refused, not replaced by a certified upper
    bound, which would audit a weaker claim and could say "holds" where Eq. (22) fails."""
    from fractions import Fraction as Q

    from betweencut.errors import ParameterError
    from betweencut.mechanism.calibration import AccountantKind
    from betweencut.mechanism.params import Params
    from betweencut.numbers.exact import LogReal
    from betweencut.proofs.laws.tct import theorem_5_4_bound
    from betweencut.proofs.privacy.accountants.chosen import Chosen

    paper = Chosen(AccountantKind.PAPER)
    exact = Params(Q(3), Q(1, 2), LogReal(Q(3)))
    assert paper.points(2, exact) == [(r * Q(1, 2), theorem_5_4_bound(2, Q(1, 2), 3, r))
                                      for r in (1, 2)]
    inexact = Params(Q(3), Q(1, 2), LogReal(Q(3), Q(1), Q(2)))  # λ·coeff = 1/2
    with pytest.raises(ParameterError):
        paper.points(2, inexact)
    assert len(Chosen(AccountantKind.TIGHT).points(2, inexact)) == 2  # its own certified bound
