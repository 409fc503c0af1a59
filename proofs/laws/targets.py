"""The q-target decompositions of BT (Lemma 5.2) and GuardedBT (Lemma 5.3), constructed and checked.

Each lemma has a witness constructor (the paper's formulas, Eq. (75)-(81) and (100)-(107)) and
a checker that takes any witness and verifies it exactly (`verify_target_witness`) plus the
lemma's own facts (Eq. (87), (93)/(95)/(98), (99), (105)). So a test can hand the checker a
perturbed witness and see it refused. Both run in the rational model (`Fraction`, any gap) and
the exact model (`ExpRational`, `b - a = 2/λ`); see `betweencut.proofs.laws.models`.
"""

from __future__ import annotations

from betweencut.errors import ParameterError
from betweencut.mechanism.guarded_bt import BT
from betweencut.noise.noisy_test import Outcome
from betweencut.proofs.exact.arith import ExpRational, exact_str, sign
from betweencut.proofs.exact.certificate import Certificate, ClaimRefuted
from betweencut.proofs.laws.bt_laws import exact_law
from betweencut.proofs.laws.models import OUTCOMES, Model, V
from betweencut.proofs.laws.tct import q_lambda
from betweencut.proofs.laws.witness import (
    Law,
    TargetWitness,
    is_zero,
    law_str,
    verify_target_witness,
)
from betweencut.proofs.registry import claim

__all__ = [
    "check_lemma_5_2", "check_lemma_5_3", "law_gamma", "lemma_5_2_witness", "lemma_5_3_witness",
    "q_bound", "sweep_lemma_5_2", "sweep_lemma_5_3",
]

L, B, H = Outcome.L, Outcome.B, Outcome.H


def _point(s: Outcome, one: V, zero: V) -> dict[Outcome, V]:
    return {y: (one if y is s else zero) for y in OUTCOMES}


def q_bound(model: Model[V]) -> V:
    """`γ/(1 + ξ)` (Eq. (93), (95), (98)), in the model's number type."""
    return model.gamma / (1 + model.xi)


def law_gamma(mechanism: BT) -> ExpRational:
    """`γ = 1 - e^{-λ(b-a)}` (Lemma 5.2) read off the exact law of the real query object: for a
    count `a <= c <= b`, Alg. 4 gives `ℓ(c)·u(c) = ½e^{-λ(c-a)}·½e^{-λ(b-c)} = ¼e^{-λ(b-a)}`,
    so `γ = 1 - 4·ℓ(c)·u(c)` with `c = ⌈a⌉`. Thresholds, noise rate or law code that differ
    from Eq. (13)/(16) change it. Raises `ClaimRefuted` if no integer count lies in `[a, b]`."""
    c = -(-mechanism.a // 1)
    if c > mechanism.b:
        raise ClaimRefuted("Lemma 5.2", "Eq. (99): no integer count in [a, b] to read gamma at",
                           {"a": mechanism.a, "b": mechanism.b})
    law = exact_law(mechanism.query(int(c)))
    return ExpRational.of(1 - law[L] * law[H] * 4)


def _pair(c0: int, c1: int) -> tuple[int, int]:
    lo, hi = min(c0, c1), max(c0, c1)
    if hi - lo > 1:
        raise ParameterError("c1", c1, f"a count with |c1 - c0| <= 1 (c0 = {c0})")
    return lo, hi


def lemma_5_2_witness(P0: Law[V], P1: Law[V], xi: V, one: V, zero: V) -> TargetWitness[V]:
    """Eq. (75)-(81) for `c0 <= c1` (`P0`, `P1` the BT laws): `α_L, α_H, p, C, N0, N1`, `κ = 0`."""
    l0, m0, u0 = P0[L], P0[B], P0[H]
    l1, m1, u1 = P1[L], P1[B], P1[H]
    # Written over common denominators (the same numbers, fewer exact products later):
    # α_L = A_L/D, α_H = A_H/D with D = ξ - 1 (Eq. (75)); p = S/D, ρ = (D - S)/D (Eq. (78)).
    D = xi - 1
    A_L, A_H = xi * l1 - l0, xi * u0 - u1
    S = A_L + A_H
    p = S / D
    rho_num = D - S
    # Eq. (79): C(L) = α_L/p = A_L/S, C(H) = A_H/S; C = Δ_L when p = 0
    C = _point(L, one, zero) if sign(S) == 0 else {L: A_L / S, B: zero, H: A_H / S}
    # Eq. (81): N_i(L) = (ℓ_i - α_L)/ρ = (D·ℓ_i - A_L)/(D - S), and so on
    N0 = {L: (D * l0 - A_L) / rho_num, B: D * m0 / rho_num, H: (D * u0 - A_H) / rho_num}
    N1 = {L: (D * l1 - A_L) / rho_num, B: D * m1 / rho_num, H: (D * u1 - A_H) / rho_num}
    delta_B = _point(B, one, zero)
    return TargetWitness(p, C, N0, N1, zero, delta_B, delta_B, "Lemma 5.2 (Eq. 75-81)")


def _region(model: Model[V], c: int) -> str:
    """Which case of Eq. (92)-(98) the count `c` is in."""
    if c <= model.a:
        return "c <= a (Eq. 92-93)"
    if c >= model.b:
        return "c >= b (Eq. 94-95)"
    return "a < c < b (Eq. 96-98)"


@claim("Lemma 5.2", "Eq. (75)", "Eq. (86)", "Eq. (87)", "Eq. (93)", "Eq. (95)", "Eq. (98)",
       "Eq. (99)")
def check_lemma_5_2(model: Model[V], c0: int, c1: int, w: TargetWitness[V],
                    q: V | None = None) -> Certificate:
    """Claim: Lemma 5.2, Eq. (75)-(99): {B} is a `γ/(1+ξ)`-target of BT's laws with `(λ, 0)`.

    Preconditions: `model` is a BT model (no guards used: the noisy law is read), `|c0 - c1| <= 1`;
    `w` a claimed witness; `q` the claimed target probability, default `γ/(1 + ξ)`.
    Checks (exactly): `w` is a q-target witness with `κ = 0` (distributions, Eq. (86) mixture
    identity, `N0 ≈λ N1`, `N_i(B) >= q`); Eq. (87) `N0(L) = ξ·N1(L)`, `N1(H) = ξ·N0(H)`; in the
    exact model `γ/(1 + ξ) = q_λ` (Eq. (99)) with `γ` read off the real query's exact law
    (`law_gamma`) and `q_λ` from `λ` alone (Eq. (16)).
    Returns: a Certificate (method `exact`) with `p`, `N_i(B)`, `q`.
    Raises: `ClaimRefuted` naming the failed condition with its exact numbers.
    """
    name = "Lemma 5.2"
    c0, c1 = _pair(c0, c1)
    P0, P1 = model.noisy_law(c0), model.noisy_law(c1)
    bound = q_bound(model)
    q = bound if q is None else q
    ctx = {**model.describe(), "c0": c0, "c1": c1, "case0": _region(model, c0),
           "case1": _region(model, c1)}
    verify_target_witness(name, P0, P1, w, model.xi, q, model.zero, context=ctx)
    xi = model.xi
    if not (is_zero(w.N0[L] - xi * w.N1[L]) and is_zero(w.N1[H] - xi * w.N0[H])):
        raise ClaimRefuted(name, "Eq. (87) fails", {**ctx, "N0": law_str(w.N0),
                                                      "N1": law_str(w.N1)})
    if model.name == "exact":
        gamma = law_gamma(model.mechanism)
        q99 = gamma / (1 + ExpRational.of(model.xi))
        if not is_zero(q99 - q_lambda(model.mechanism.lam)):
            raise ClaimRefuted(name, "Eq. (99): gamma/(1+xi) != q_lambda",
                               {**ctx, "gamma (from the law)": exact_str(gamma),
                                "gamma/(1+xi)": exact_str(q99)})
    return Certificate(name, ctx, "exact", {
        "p": exact_str(w.p), "N0(B)": exact_str(w.N0[B]), "N1(B)": exact_str(w.N1[B]),
        "q": exact_str(q), "P0": law_str(P0), "P1": law_str(P1)})


def lemma_5_3_witness(model: Model[V], c0: int, c1: int) -> TargetWitness[V]:
    """The witness of Lemma 5.3's proof for GuardedBT counts `c0 <= c1 <= c0 + 1`.

    Identical laws: Eq. (100). Both randomized: Lemma 5.2's witness, `κ = 0`. One guard crossed:
    Eq. (103)-(107), `κ = P_j(Y ∖ {s})`.
    """
    c0, c1 = _pair(c0, c1)
    one, zero = model.one, model.zero
    Q0, Q1 = model.law(c0), model.law(c1)
    delta_B = _point(B, one, zero)
    r0, r1 = model.randomized(c0), model.randomized(c1)
    if c0 == c1 or (not r0 and not r1):
        if any(sign(Q0[s] - Q1[s]) != 0 for s in OUTCOMES):
            raise ClaimRefuted("Lemma 5.3", "deterministic counts with different laws",
                               {"c0": c0, "c1": c1, "Q0": law_str(Q0), "Q1": law_str(Q1)})
        return TargetWitness(one, dict(Q0), delta_B, delta_B, zero, delta_B, delta_B,
                             "identical laws (Eq. 100)")
    if r0 and r1:
        w = lemma_5_2_witness(Q0, Q1, model.xi, one, zero)
        return TargetWitness(w.p, w.C, w.N0, w.N1, zero, delta_B, delta_B,
                             "both randomized (Eq. 101-102)")
    j = 1 if r1 else 0  # Eq. (103): the randomized input
    s = Q0 if j == 1 else Q1
    det = next(y for y in OUTCOMES if sign(s[y] - one) == 0)
    Pj = Q1 if j == 1 else Q0
    kappa = one - Pj[det]  # Eq. (105)
    Fj = {y: (zero if y is det else Pj[y] / kappa) for y in OUTCOMES}  # Eq. (107)
    Fs = _point(det, one, zero)
    F0, F1 = (Fs, Fj) if j == 1 else (Fj, Fs)
    return TargetWitness(one, Fs, delta_B, delta_B, kappa, F0, F1,
                         f"guard crossed, j = {j}, s = {det.value} (Eq. 103-107)")


@claim("Lemma 5.3", "Eq. (100)", "Eq. (101)", "Eq. (105)", "Eq. (106)", "Eq. (107)", "Eq. (111)")
def check_lemma_5_3(model: Model[V], c0: int, c1: int, w: TargetWitness[V],
                    q: V | None = None, kappa_max: V | None = None) -> Certificate:
    """Claim: Lemma 5.3, Eq. (100)-(111): {B} is a `q`-target of GuardedBT with `κ <= δ0`.

    Preconditions: `model` a GuardedBT model, `|c0 - c1| <= 1`, `w` a claimed witness;
    `q` defaults to `γ/(1 + ξ)` (`= q_λ` in the exact model); `kappa_max` to `δ0 = ½e^{-λ(R-1)}`.
    Checks (exactly): `w` is a q-target witness of the guarded laws `(Q_c0, Q_c1)` with
    `κ <= kappa_max` (mixture identity reproducing `Q_c` exactly, `N0 ≈λ N1`, `N_b(B) >= q`).
    When a guard is crossed, also `κ = ½e^{-λd}` with `d >= R - 1` (Eq. (105)), decided as an
    exact comparison of `d` with the `LogReal` `R - 1` (so `κ <= δ0` holds even when `δ0` has no
    exact form).
    Returns: a Certificate (method `exact`). Raises: `ClaimRefuted` with the offending numbers.
    """
    name = "Lemma 5.3"
    c0, c1 = _pair(c0, c1)
    if model.R is None:
        raise ParameterError("model", model.describe(), "a GuardedBT model (R given)")
    Q0, Q1 = model.law(c0), model.law(c1)
    q = q_bound(model) if q is None else q
    ctx = {**model.describe(), "c0": c0, "c1": c1}
    crossed = model.randomized(c0) != model.randomized(c1)
    bound_here = model.zero
    if crossed:
        j, cr = (1, c1) if model.randomized(c1) else (0, c0)
        lower = not model.randomized(c0)  # c0 guarded: lower guard crossed
        d = model.a - cr if lower else cr - model.b
        Pj = Q1 if j == 1 else Q0
        tail = Pj[H] + Pj[B] if lower else Pj[L] + Pj[B]
        half_exp = model.exp_lam(-d) / 2
        if not is_zero(tail - half_exp):
            raise ClaimRefuted(name, "Eq. (105): P_j(Y - {s}) != exp(-lambda*d)/2",
                               {**ctx, "tail": exact_str(tail), "d": d})
        if model.R.compare(d + 1) > 0:
            raise ClaimRefuted(name, "Eq. (105): d < R - 1", {**ctx, "d": d, "R": model.R})
        ctx["d"] = d
        bound_here = half_exp  # κ <= ½e^{-λd} <= ½e^{-λ(R-1)} = δ0, by d >= R - 1
    if kappa_max is None:
        if model.delta0 is not None:
            kappa_max = model.delta0
        else:  # δ0 has no exact form: bound κ by the exact ½e^{-λd}, certified <= δ0 above
            kappa_max = bound_here if crossed else model.zero
    verify_target_witness(name, Q0, Q1, w, model.xi, q, kappa_max, context=ctx)
    return Certificate(name, ctx, "exact", {
        "case": w.case, "kappa": exact_str(w.kappa), "kappa_max": exact_str(kappa_max),
        "q": exact_str(q), "Q0": law_str(Q0), "Q1": law_str(Q1)})


def sweep_lemma_5_2(model: Model[V], room: int = 2) -> list[Certificate]:
    """Lemma 5.2 on every pair `(c, c + 1)` and `(c, c)` of `model.window(room)`."""
    certs = []
    for c in model.window(room):
        for c1 in (c, c + 1):
            P0, P1 = model.noisy_law(c), model.noisy_law(c1)
            w = lemma_5_2_witness(P0, P1, model.xi, model.one, model.zero)
            certs.append(check_lemma_5_2(model, c, c1, w))
    return certs


def sweep_lemma_5_3(model: Model[V], room: int = 2) -> list[Certificate]:
    """Lemma 5.3 on every pair `(c, c + 1)` of `model.window(room)` (both guard crossings)."""
    certs = []
    for c in model.window(room):
        for c1 in (c, c + 1):
            certs.append(check_lemma_5_3(model, c, c1, lemma_5_3_witness(model, c, c1)))
    return certs

