"""Output laws of BT (Alg. 4) and GuardedBT (Alg. 1) are distributions, in all three models.

Exact models (`Fraction`, `ExpRational`): every probability is `>= 0` and the three sum to 1
exactly. Interval model: every probability is certainly `>= 0` (positive, or exactly 0 for a
guarded outcome) and the interval of the sum contains 1. Also Lemma 5.3's Eq. (105) in the
interval model (`κ = P_j(Y∖{s}) <= δ0` for any real `R`, decided by the gate).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from fractions import Fraction

from betweencut.mechanism.guarded_bt import BT, GuardedBT
from betweencut.noise.noisy_test import Outcome
from betweencut.numbers.exact import enclosure_sign, refine
from betweencut.proofs.exact.arith import sign
from betweencut.proofs.exact.certificate import Certificate, ClaimRefuted
from betweencut.proofs.exact.interval import (
    DEFAULT_PREC,
    Interval,
    Real,
    bounds,
    contains,
    interval_delta0,
    interval_law,
    mechanism_interval_law,
)
from betweencut.proofs.laws.models import OUTCOMES, Model, V
from betweencut.proofs.laws.witness import is_zero, law_str
from betweencut.proofs.registry import claim

__all__ = ["LAWS_CLAIM", "check_bt_laws_interval", "check_kappa_interval",
           "check_output_laws", "check_output_laws_interval"]

LAWS_CLAIM = "Alg. 1 and Alg. 4 laws"


@claim(LAWS_CLAIM, "Eq. (69)", "Eq. (70)", "Eq. (71)")
def check_output_laws(model: Model[V], counts: Iterable[int] | None = None) -> Certificate:
    """Claim: the output law of BT/GuardedBT (Alg. 4/Alg. 1) is a distribution, Eq. (69)-(71).

    Preconditions: `model` a rational or exact model; `counts` default `model.window()`.
    Checks (exactly): for each count, `ℓ, m, u >= 0` and `ℓ + m + u = 1`.
    Returns: a Certificate (method `exact`). Raises: `ClaimRefuted` with the law.
    """
    counts = list(model.window() if counts is None else counts)
    for c in counts:
        law = model.law(c)
        total = law[OUTCOMES[0]] + law[OUTCOMES[1]] + law[OUTCOMES[2]]
        if any(sign(law[s]) < 0 for s in OUTCOMES) or not is_zero(total - 1):
            raise ClaimRefuted(LAWS_CLAIM, "not a distribution",
                               {**model.describe(), "count": c, "law": law_str(law)})
    return Certificate(LAWS_CLAIM, {**model.describe(), "counts": f"{counts[0]}..{counts[-1]}"},
                       "exact", {"laws": len(counts)})


@claim(LAWS_CLAIM, "Eq. (69)", "Eq. (70)", "Eq. (71)")
def check_output_laws_interval(mechanism: BT, counts: Iterable[int],
                               prec: int = DEFAULT_PREC) -> Certificate:
    """Claim: as `check_output_laws`, in the certified interval model at `prec` bits.

    Preconditions: `mechanism` a real BT/GuardedBT (any `R`, e.g. a calibrated `LogReal`).
    Checks: each probability is certainly `> 0` (noisy) or exactly 0/1 (guarded); the interval
    of `ℓ + m + u` contains 1. Returns: a Certificate (method `interval`, `precision` bits).
    Raises: `ClaimRefuted` with the end points; `Undecided` if the gate cannot decide.
    """
    params: dict[str, object] = {"a": mechanism.a, "b": mechanism.b, "lambda": mechanism.lam}
    if isinstance(mechanism, GuardedBT):
        params["R"] = mechanism.R.exact_str()
    return _interval_laws(lambda c: mechanism_interval_law(mechanism, c, prec),
                          lambda c: mechanism.guard(c) is None, list(counts), params, prec)


@claim(LAWS_CLAIM, "Eq. (69)", "Eq. (70)", "Eq. (71)")
def check_bt_laws_interval(a: Real, b: Real, lam: Real, counts: Iterable[int],
                           prec: int = DEFAULT_PREC) -> Certificate:
    """Claim: as `check_output_laws`, for BT (Alg. 4) with real thresholds and `λ`.

    Preconditions: exact reals `a <= b`, `λ > 0` (Fractions or `LogReal`s, e.g. `τ = ln 50`).
    Checks: each probability certainly `> 0`, the interval of the total contains 1.
    Returns: a Certificate (method `interval`). Raises: `ClaimRefuted`, `Undecided`.
    """
    params: dict[str, object] = {"a": str(a), "b": str(b), "lambda": str(lam)}
    return _interval_laws(lambda c: interval_law(c, a, b, lam, prec), lambda c: True,
                          list(counts), params, prec)


def _interval_laws(law_of: Callable[[int], dict[Outcome, Interval]],
                   noisy_at: Callable[[int], bool], counts: list[int],
                   params: dict[str, object], prec: int) -> Certificate:
    widest = Fraction(0)
    for c in counts:
        law = law_of(c)
        total = law[OUTCOMES[0]] + law[OUTCOMES[1]] + law[OUTCOMES[2]]
        noisy = noisy_at(c)
        for s in OUTCOMES:
            if noisy and sign(law[s]) <= 0:
                raise ClaimRefuted(LAWS_CLAIM, "a noisy probability is not > 0",
                                   {**params, "count": c, "outcome": s.value,
                                    "bounds": bounds(law[s])})
        if not contains(total, 1):
            raise ClaimRefuted(LAWS_CLAIM, "the interval of the total excludes 1",
                               {**params, "count": c, "bounds": bounds(total)})
        lo, hi = bounds(total)
        widest = max(widest, hi - lo)
    return Certificate(LAWS_CLAIM, {**params, "counts": f"{counts[0]}..{counts[-1]}"},
                       f"interval ({prec} bits)", {"laws": len(counts),
                                                    "widest total interval": widest})


@claim("Lemma 5.3", "Eq. (105)")
def check_kappa_interval(mechanism: GuardedBT, counts: Iterable[int],
                         prec: int = DEFAULT_PREC) -> Certificate:
    """Claim: Lemma 5.3, Eq. (105): `κ = P_j(Y∖{s}) <= δ0 = ½e^{-λ(R-1)}`, interval model.

    Preconditions: `mechanism` a GuardedBT with rational `a, b, λ` and any real `R` (a
    `LogReal`; its `e^{-λ(R-1)}` need not have an exact form).
    Checks: for each pair `(c, c+1)` of `counts` that crosses a guard, `δ0 - κ >= 0`, decided
    by the gate at doubling precision from `prec`; an exact tie (`d = R - 1`, decided on the
    exact `LogReal`) counts as `κ = δ0`.
    Returns: a Certificate (method `interval`). Raises: `ClaimRefuted` with both intervals.
    """
    counts = sorted(set(counts))
    params = {"a": mechanism.a, "b": mechanism.b, "lambda": mechanism.lam,
              "R": mechanism.R.exact_str()}
    checked, used = 0, prec
    for c0 in counts:
        c1 = c0 + 1
        g0, g1 = mechanism.guard(c0), mechanism.guard(c1)
        if (g0 is None) == (g1 is None):
            continue
        j_count, s = (c1, g0) if g1 is None else (c0, g1)
        d = mechanism.a - j_count if g1 is None else j_count - mechanism.b
        if mechanism.R.compare(d + 1) == 0:  # d = R - 1 exactly: κ = δ0
            checked += 1
            continue

        def gap(p: int, jc: int = j_count, out: object = s) -> Interval:
            law = mechanism_interval_law(mechanism, jc, p)
            kappa = [law[y] for y in OUTCOMES if y is not out]
            return interval_delta0(mechanism.lam, mechanism.R, p) - kappa[0] - kappa[1]

        def decided(p: int, gap: Callable[[int], Interval] = gap) -> int | None:
            return enclosure_sign(*bounds(gap(p)))

        verdict, p_used = refine(decided, lambda: "delta0 - kappa at a guard crossing", prec)
        used = max(used, p_used)
        if verdict < 0:
            raise ClaimRefuted("Lemma 5.3", "Eq. (105): kappa > delta0",
                               {**params, "c0": c0, "c1": c1, "d": d,
                                "delta0 - kappa": bounds(gap(p_used))})
        checked += 1
    delta0 = bounds(interval_delta0(mechanism.lam, mechanism.R, used))
    return Certificate("Lemma 5.3", params, f"interval ({used} bits)",
                       {"crossing pairs": checked, "delta0 in": [str(x) for x in delta0]})
