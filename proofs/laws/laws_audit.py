"""`betweencut audit laws`: the output-law, q-target and indistinguishability checkers on a grid.

Three cases, one per arithmetic model (so `bench/audit_laws.py` can time them apart):

* rational model: `ξ = e^λ` rational, integer thresholds, gaps 1..6, `R` none/1/3 (integer);
  laws, Lemma 5.2 and 5.3 on every pair of a window, the q-target LP (Def. 5.1), Def. 2.7, and
  Lemma 4.1 on enumerated one-hit interactions of up to 3 calls;
* exact model: rational `λ` in (0, 1], `τ` rational, `b - a = 2/λ`, `R` rational or calibrated
  (`λ·(R-1) = ln(L/δ)`); the same checks plus Eq. (16) over all of (0, 1] and Theorem 5.5 via
  the exact Theorem 5.4 bound;
* interval model: `R` with no exact `e^{-λ(R-1)}` and irrational thresholds.
"""

from __future__ import annotations

from fractions import Fraction

from betweencut.mechanism.calibration import calibrate
from betweencut.mechanism.guarded_bt import GuardedBT
from betweencut.numbers.exact import LogReal
from betweencut.proofs.exact.certificate import Certificate
from betweencut.proofs.laws.indist import (
    check_indistinguishable,
    check_q_target,
    check_q_target_lambda,
)
from betweencut.proofs.laws.lawcheck import (
    check_bt_laws_interval,
    check_kappa_interval,
    check_output_laws,
    check_output_laws_interval,
)
from betweencut.proofs.laws.models import Model, V, exact_model, rational_model
from betweencut.proofs.laws.qbound import check_q_lambda_at_least_one_fifth
from betweencut.proofs.laws.targets import q_bound, sweep_lemma_5_2, sweep_lemma_5_3
from betweencut.proofs.laws.tct import (
    check_calibrated_theorem_5_4,
    check_lemma_4_1,
    check_theorem_5_4_bound_models,
)
from betweencut.proofs.registry import register_audit

__all__ = ["EXACT_GRID", "INTERVAL_GRID", "RATIONAL_GRID", "audit_laws_exact",
           "audit_laws_interval", "audit_laws_rational"]

F = Fraction
ROOM = 2

# (xi, a, gap b - a, R); a = 10 leaves room below the lower guard.
RATIONAL_GRID: list[tuple[Fraction, int, int, int | None]] = [
    (xi, 10, gap, R)
    for xi in (F(11, 10), F(3, 2), F(2), F(7))
    for gap in (1, 2, 6)
    for R in (None, 1, 3)
]
ONE_HIT_GRID = [(xi, 10, gap, R) for xi in (F(11, 10), F(3)) for gap in (1, 3) for R in (None, 2)]
# (ξ, rational λ > ln ξ) for the LP with a transcendental e^λ.
LAMBDA_ABOVE = [(F(11, 10), F(1, 10)), (F(2), F(7, 10)), (F(7), F(2))]
# LP decisions (slower): a sub-grid.
LP_GRID = [(xi, 10, 2, R) for xi in (F(11, 10), F(2), F(7)) for R in (1, 3)]


def _tau(lam: Fraction, R_max: Fraction, frac: Fraction) -> Fraction:
    """A threshold leaving the lower guard cut above 0 with room (both guards crossed)."""
    return F(int(1 / lam + R_max) + 2 * ROOM + 1) + frac


def _calibrated_R(lam: Fraction) -> LogReal:
    """`R = 1 + (1/λ)·ln 4`: `λ(R-1) = ln 4`, so `δ0 = 1/8` exactly (as after calibration)."""
    return LogReal(F(1), 1 / lam, F(4))


EXACT_GRID: list[tuple[Fraction, Fraction, list[Fraction | LogReal]]] = [
    (lam, _tau(lam, F(1) + 2 / lam, frac), [F(1), F(5, 2), _calibrated_R(lam)])
    for lam, frac in ((F(1), F(0)), (F(1, 2), F(1, 2)), (F(1, 3), F(1, 3)), (F(1, 5), F(0)))
]
CALIBRATIONS = [(15, F(1), F(1, 1000)), (1000, F(1, 2), F(1, 20)), (10**6, F(1), F(99, 1000))]

# (lam, tau, R) with e^{-lam(R-1)} not exact: lam*coeff is not an integer.
INTERVAL_GRID: list[tuple[Fraction, Fraction, LogReal]] = [
    (F(1, 3), F(12), LogReal(F(1), F(1, 2), F(7))),
    (F(1, 2), F(10), LogReal(F(3, 2), F(1, 3), F(20))),
    (F(1), F(6), LogReal(F(1), F(1, 7), F(1000))),
]


def _pairs_indist(model: Model[V], lam: Fraction | None) -> list[Certificate]:
    out = []
    for c in model.window(ROOM):
        P0, P1 = model.noisy_law(c), model.noisy_law(c + 1)
        if lam is None:
            out.append(check_indistinguishable(P0, P1, xi=model.xi))
        else:
            out.append(check_indistinguishable(P0, P1, lam))
    return out


@register_audit("laws", "output laws, Lemmas 5.2/5.3, Def. 2.7/5.1: rational model")
def audit_laws_rational() -> list[Certificate]:
    certs: list[Certificate] = []
    for xi, a, gap, R in RATIONAL_GRID:
        model = rational_model(a, a + gap, xi, R)
        certs.append(check_output_laws(model))
        if R is None:
            certs += sweep_lemma_5_2(model, ROOM)
            certs += _pairs_indist(model, None)
        else:
            certs += sweep_lemma_5_3(model, ROOM)
    for xi, a, gap, R in ONE_HIT_GRID:  # Lemma 4.1 on runs of consecutive count pairs
        model = rational_model(a, a + gap, xi, R)
        kappa0 = model.delta0 if model.delta0 is not None else F(0)
        window = list(model.window(ROOM))
        for K in (1, 2, 3):
            for start in range(0, len(window) - K + 1, 2):
                calls = [(model.law(c), model.law(c + 1)) for c in window[start:start + K]]
                for r in range(1, K + 1):
                    certs.append(check_lemma_4_1(calls, xi, kappa0, q_bound(model), r))
    for xi, a, gap, R in LP_GRID:
        model = rational_model(a, a + gap, xi, R)
        if model.delta0 is None:
            continue
        for c in model.window(ROOM):
            certs.append(check_q_target(model.law(c), model.law(c + 1), xi, model.delta0,
                                        q_bound(model)))
    for xi, lam in LAMBDA_ABOVE:  # rational λ > ln ξ: the pair is a target with (λ, 0)
        model = rational_model(10, 12, xi)
        for c in model.window(ROOM):
            certs.append(check_q_target_lambda(model.law(c), model.law(c + 1), lam, F(0),
                                               q_bound(model)))
    return certs


@register_audit("laws", "output laws, Lemmas 5.2/5.3, Eq. (16), Theorem 5.5: exact model")
def audit_laws_exact() -> list[Certificate]:
    certs: list[Certificate] = [check_q_lambda_at_least_one_fifth()]
    for lam, tau, Rs in EXACT_GRID:
        bt = exact_model(tau, lam)
        certs.append(check_output_laws(bt))
        certs += sweep_lemma_5_2(bt, ROOM)
        certs += _pairs_indist(bt, lam)
        for R in Rs:
            model = exact_model(tau, lam, R)
            certs.append(check_output_laws(model))
            certs += sweep_lemma_5_3(model, ROOM)
    for h, eps, dlt in CALIBRATIONS:
        certs.append(check_calibrated_theorem_5_4(calibrate(h, eps, dlt)))
    return certs


@register_audit("laws", "output laws and Eq. (105) for irrational R and thresholds: interval")
def audit_laws_interval() -> list[Certificate]:
    certs: list[Certificate] = []
    for lam, tau, R in INTERVAL_GRID:
        a, b = tau - 1 / lam, tau + 1 / lam
        mech = GuardedBT.of(a, b, R, lam)
        counts = range(max(0, mech.lower_cut - ROOM), mech.upper_cut + ROOM + 1)
        certs.append(check_output_laws_interval(mech, counts))
        certs.append(check_kappa_interval(mech, counts))
        # irrational thresholds: τ = tau + ln 2
        shift = LogReal(F(0), F(1), F(2))
        certs.append(check_bt_laws_interval(shift + a, shift + b, lam, counts))
    for h, eps, dlt in CALIBRATIONS:  # calibrated R
        cal = calibrate(h, eps, dlt)
        mech = GuardedBT.of(F(40) - cal.w, F(40) + cal.w, cal.R, cal.lam)
        certs.append(check_output_laws_interval(mech, range(0, 81)))
        for r in sorted({1, cal.r, cal.L}):
            certs.append(check_theorem_5_4_bound_models(cal.L, cal.lam, cal.R, r))
    for lam, _, R in INTERVAL_GRID:
        certs.append(check_theorem_5_4_bound_models(3, lam, R, 2))
    return certs
