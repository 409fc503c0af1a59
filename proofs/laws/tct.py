"""The one-hit target-charging bound (Lemma 4.1) and its instance for BetweenCut (Theorem 5.4).

Lemma 4.1, Eq. (12): at most `K` calls, each a `q`-target with `(λ, κ0)`, stopping at the first
hit, give an `(rλ, K·κ0 + 1{r<K}·(1 - q)^r)`-DP interaction for every integer `1 <= r <= K`.
Theorem 5.4, Eq. (22)/(113) instantiates it with `K = L`, `κ0 = δ0 = ½·e^{-λ(R-1)}` (Eq. (19),
Lemma 5.3) and `q = q_λ = (1 - e^{-2})/(1 + e^λ)` (Eq. (16)):

    δ(r) = (L/2)·e^{-λ(R-1)} + 1{r<L}·(1 - q_λ)^r.

Every function here returns an exact number (`Fraction`, `ExpPoly` or `ExpRational`), so later
checkers (transcript enumeration, issue 4) can compare a computed privacy profile against the
bound through the one gate `betweencut.proofs.exact.arith.sign`. `R` may be irrational (a `LogReal`
after calibration): `e^{-λ(R-1)} = e^{-λ(const-1)}·arg^{-λ·coeff}` is exact whenever `λ·coeff`
is an integer, which is the calibrated case (`λ(R-1) = ln(L/δ)`, Theorem 5.5, Eq. (119)).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import NamedTuple, Union

from betweencut.data.validate import positive_rational
from betweencut.errors import ParameterError
from betweencut.mechanism.calibration import Calibration
from betweencut.noise.noisy_test import Outcome
from betweencut.numbers.exact import LogReal
from betweencut.proofs.exact.arith import ExpPoly, ExpRational, certainly_le, exact_str
from betweencut.proofs.exact.certificate import Certificate, ClaimRefuted
from betweencut.proofs.registry import claim

__all__ = [
    "DPBound", "ExactNumber", "as_log_real", "check_lemma_4_1", "delta0",
    "exp_minus_lam_R_minus_1", "lemma_4_1_bound", "q_lambda", "theorem_5_4_bound",
    "theorem_5_4_point",
]

ExactNumber = Union[Fraction, int, ExpPoly, ExpRational]  # noqa: UP007


class DPBound(NamedTuple):
    """An `(ε, δ)` pair: `ε` rational, `δ` exact."""

    epsilon: Fraction
    delta: ExpRational


def _positive_lambda(lam: Fraction, at_most_one: bool) -> Fraction:
    lam = positive_rational(lam, "lam", " (the rate lambda)")
    if at_most_one and lam > 1:
        raise ParameterError("lam", lam, "0 < lambda <= 1")
    return lam


def as_log_real(R: LogReal | Fraction | int) -> LogReal:
    """`R` as a `LogReal` (a rational or a `LogReal` given; `ParameterError` otherwise)."""
    if isinstance(R, LogReal):
        return R
    if isinstance(R, Fraction | int) and not isinstance(R, bool):
        return LogReal(Fraction(R))
    raise ParameterError("R", R, "a rational or a LogReal const + coeff*ln(arg)")


def q_lambda(lam: Fraction, gap: Fraction | None = None) -> ExpRational:
    """`q = (1 - e^{-(b-a)λ})/(1 + e^λ)` (Eq. (16), Lemma 5.2); `gap = b - a`, default `2/λ`.

    With the default gap this is `q_λ = (1 - e^{-2})/(1 + e^λ)`.
    """
    lam = _positive_lambda(lam, at_most_one=False)
    gap = Fraction(2) / lam if gap is None else Fraction(gap)
    if gap <= 0:
        raise ParameterError("gap", gap, "b - a > 0")
    return ExpRational(1 - ExpPoly.exp(-gap * lam), ExpPoly.const(1) + ExpPoly.exp(lam))


def exp_minus_lam_R_minus_1(lam: Fraction, R: LogReal | Fraction | int) -> ExpPoly:
    """`e^{-λ(R-1)}` exactly, for rational `λ` and `R = const + coeff·ln(arg)`.

    `e^{-λ(R-1)} = e^{-λ(const-1)}·arg^{-λ·coeff}`: exact when `λ·coeff` is an integer (or the
    log term is absent). Otherwise raises `ParameterError`; use the certified interval model
    (`betweencut.proofs.exact.interval`) for such an `R`.
    """
    lam = _positive_lambda(lam, at_most_one=False)
    R = as_log_real(R)
    if R.compare(1) < 0:
        raise ParameterError("R", R, "R >= 1")
    base = ExpPoly.exp(-lam * (R.const - 1))
    if R.is_rational:
        return base
    power = lam * R.coeff
    if power.denominator != 1:
        raise ParameterError(
            "R", R, "a LogReal with lambda*coeff an integer for the exact model",
            f"lambda*coeff = {power}: use the interval model",
        )
    return base * (R.arg ** (-int(power)))


def delta0(lam: Fraction, R: LogReal | Fraction | int) -> ExpPoly:
    """`δ0 = ½·e^{-λ(R-1)}` (Eq. (19)), exact (see `exp_minus_lam_R_minus_1`)."""
    return exp_minus_lam_R_minus_1(lam, R) * Fraction(1, 2)


def _check_r(r: int, K: int, name_K: str) -> None:
    if not isinstance(K, int) or isinstance(K, bool) or K < 1:
        raise ParameterError(name_K, K, "an integer >= 1")
    if not isinstance(r, int) or isinstance(r, bool) or not 1 <= r <= K:
        raise ParameterError("r", r, f"an integer 1 <= r <= {name_K} = {K}")


def lemma_4_1_bound(
    K: int, r: int, lam: Fraction, kappa0: ExactNumber, q: ExactNumber
) -> DPBound:
    """Lemma 4.1, Eq. (12): `(rλ, K·κ0 + 1{r<K}·(1 - q)^r)`, exact.

    Preconditions (checked exactly): integers `1 <= r <= K`, `λ > 0`, `0 <= κ0 <= 1`,
    `0 <= q <= 1`.
    """
    _check_r(r, K, "K")
    lam = _positive_lambda(lam, at_most_one=False)
    if not (certainly_le(0, kappa0) and certainly_le(kappa0, 1)):
        raise ParameterError("kappa0", exact_str(kappa0), "0 <= kappa0 <= 1")
    if not (certainly_le(0, q) and certainly_le(q, 1)):
        raise ParameterError("q", exact_str(q), "0 <= q <= 1")
    delta = ExpRational.of(kappa0) * K
    if r < K:
        delta = delta + (1 - ExpRational.of(q)) ** r
    return DPBound(r * lam, delta)


def theorem_5_4_bound(L: int, lam: Fraction, R: LogReal | Fraction | int, r: int) -> ExpRational:
    """Theorem 5.4, Eq. (22)/(113): the `δ` of the `(rλ, δ)` guarantee, exactly,

        δ = (L/2)·e^{-λ(R-1)} + 1{r<L}·(1 - q_λ)^r.

    Preconditions (checked): integers `1 <= r <= L`, rational `0 < λ <= 1`, `R >= 1` rational
    or a `LogReal` with `λ·coeff` an integer. It is `lemma_4_1_bound(L, r, λ, δ0, q_λ).delta`.
    """
    return theorem_5_4_point(L, lam, R, r).delta


def theorem_5_4_point(L: int, lam: Fraction, R: LogReal | Fraction | int, r: int) -> DPBound:
    """Theorem 5.4: the pair `(rλ, δ)` with `δ = theorem_5_4_bound(L, λ, R, r)`."""
    _check_r(r, L, "L")
    lam = _positive_lambda(lam, at_most_one=True)
    return lemma_4_1_bound(L, r, lam, delta0(lam, R), q_lambda(lam))


@claim("Theorem 5.5", "Eq. (113)", "Eq. (119)", "Eq. (120)")
def check_calibrated_theorem_5_4(cal: Calibration) -> Certificate:
    """Claim: Theorem 5.5 via Theorem 5.4, Eq. (113), (119), (120).

    Preconditions: `cal` a calibration claiming `(ε, δ)` with rational `0 < λ <= 1`; for
    Theorem 5.5's own, `λ·(R-1) = ln(L/δ)` and `ε = r·λ`.
    Checks: the exact Theorem 5.4 bound `(L/2)·e^{-λ(R-1)} + 1{r<L}(1 - q_λ)^r` at the largest
    `r <= L` with `rλ <= ε` (the claimed `ε`, never `cal.r`, which a tight calibration keeps
    with Theorem 5.5's meaning while its `rλ` is not `ε`), a guarantee at `rλ <= ε` and so at
    `ε`, is `<= δ` (decided exactly by the gate); this uses the true `q_λ`, not the `1/5` bound.
    Returns: a Certificate (method `exact`) stating the claim `(ε, δ)`, the `r` and `ε = rλ` of
    the bound used, and both numbers.
    Raises: `ClaimRefuted` with both numbers if the bound exceeds `δ` (or no `r >= 1` has
    `rλ <= ε`).
    """
    r = min(cal.L, int(cal.epsilon // cal.lam))
    params = {"h": cal.height, "epsilon": cal.epsilon, "delta": cal.delta, "r": r,
              "eps_of_bound": r * cal.lam, "L": cal.L, "lambda": cal.lam,
              "R": cal.R.exact_str()}
    if r < 1:
        raise ClaimRefuted("Theorem 5.5", "no r >= 1 with r*lambda <= eps: Theorem 5.4 bounds "
                           "nothing at the claimed eps", params)
    bound = theorem_5_4_bound(cal.L, cal.lam, cal.R, r)
    if not certainly_le(bound, cal.delta):
        raise ClaimRefuted("Theorem 5.5", "Theorem 5.4 bound exceeds delta",
                           {**params, "bound_exact": exact_str(bound)})
    return Certificate("Theorem 5.5", params, "exact",
                       {"theorem_5_4_delta": exact_str(bound), "delta": cal.delta})


@claim("Theorem 5.4", "Eq. (22)")
def check_theorem_5_4_bound_models(L: int, lam: Fraction, R: LogReal | Fraction | int, r: int,
                                   prec: int = 64) -> Certificate:
    """Claim: Theorem 5.4, Eq. (22): the bound's exact form and its interval form agree.

    Preconditions: as `theorem_5_4_bound`; `R` any `LogReal` (if `λ·coeff` is not an integer
    only the interval form exists and the certificate says so).
    Checks: the certified enclosure of the exact bound lies inside the interval-model bound at
    `prec` bits, and the bound is certainly `> 0`.
    Returns: a Certificate (method `exact` + `interval`) with both enclosures.
    Raises: `ClaimRefuted` with both enclosures when they are disjoint.
    """
    from betweencut.proofs.exact.arith import enclose, sign
    from betweencut.proofs.exact.interval import bounds, interval_theorem_5_4_bound

    Rl = as_log_real(R)
    params = {"L": L, "lambda": lam, "R": Rl.exact_str(), "r": r}
    box = interval_theorem_5_4_bound(L, lam, Rl, r, prec)
    lo, hi = bounds(box)
    if sign(box) <= 0:
        raise ClaimRefuted("Theorem 5.4", "the bound is not positive", {**params, "in": (lo, hi)})
    try:
        exact = theorem_5_4_bound(L, lam, Rl, r)
    except ParameterError:
        return Certificate("Theorem 5.4", params, f"interval ({prec} bits)",
                           {"bound_in": [str(lo), str(hi)], "exact": "none (lambda*coeff)"})
    elo, ehi = enclose(exact, prec)
    if ehi < lo or elo > hi:
        raise ClaimRefuted("Theorem 5.4", "exact and interval bounds disagree",
                           {**params, "interval": (lo, hi), "exact_in": (elo, ehi)})
    return Certificate("Theorem 5.4", params, f"exact; interval ({prec} bits)",
                       {"bound_exact": exact_str(exact), "bound_in": [str(lo), str(hi)]})


def _one_hit_transcripts(
    calls: Sequence[tuple[Mapping[Outcome, Fraction], Mapping[Outcome, Fraction]]],
    target: Outcome,
) -> list[tuple[tuple[Outcome, ...], Fraction, Fraction]]:
    """Every transcript of the one-hit interaction with its probabilities under `D` and `D'`."""
    out: list[tuple[tuple[Outcome, ...], Fraction, Fraction]] = []
    frontier: list[tuple[tuple[Outcome, ...], Fraction, Fraction]] = [((), Fraction(1),
                                                                       Fraction(1))]
    for P0, P1 in calls:
        nxt: list[tuple[tuple[Outcome, ...], Fraction, Fraction]] = []
        for seq, p0, p1 in frontier:
            for y in (Outcome.L, Outcome.B, Outcome.H):
                item = ((*seq, y), p0 * P0[y], p1 * P1[y])
                (out if y is target else nxt).append(item)
        frontier = nxt
    return out + frontier


@claim("Lemma 4.1", "Eq. (12)")
def check_lemma_4_1(
    calls: Sequence[tuple[Mapping[Outcome, Fraction], Mapping[Outcome, Fraction]]],
    xi: Fraction, kappa0: Fraction, q: Fraction, r: int,
    target: Outcome = Outcome.B,
) -> Certificate:
    """Claim: Lemma 4.1, Eq. (12), on one concrete interaction (rational model, `ξ = e^λ`).

    Preconditions: `calls` the laws `(P_i, P'_i)` of the `K` calls on neighbours `D`, `D'`
    (each a q-target with `(λ, κ0)`, e.g. Lemma 5.2/5.3 pairs); the interaction stops at the
    first `target` answer; integers `1 <= r <= K`.
    Checks: every transcript enumerated with its exact probability; the exact hockey-stick
    divergence `δ(rλ) = max over directions of Σ_t max(0, P(t) - ξ^r·P'(t))` is `<=
    K·κ0 + 1{r<K}·(1 - q)^r`.
    Returns: a Certificate (method `enumerated`) with the divergence and the bound.
    Raises: `ClaimRefuted` with both numbers.
    """
    K = len(calls)
    _check_r(r, K, "K")
    xi, kappa0, q = Fraction(xi), Fraction(kappa0), Fraction(q)
    bound = K * kappa0 + ((1 - q) ** r if r < K else Fraction(0))
    factor = xi**r
    ts = _one_hit_transcripts(calls, target)
    forward = sum((max(Fraction(0), p0 - factor * p1) for _, p0, p1 in ts), Fraction(0))
    backward = sum((max(Fraction(0), p1 - factor * p0) for _, p0, p1 in ts), Fraction(0))
    divergence = max(forward, backward)
    params = {"K": K, "r": r, "xi": xi, "kappa0": kappa0, "q": q}
    if divergence > bound:
        raise ClaimRefuted("Lemma 4.1", "the divergence exceeds the bound",
                           {**params, "delta": divergence, "bound": bound})
    return Certificate("Lemma 4.1", params, "enumerated",
                       {"delta": divergence, "bound": bound, "transcripts": len(ts)},
                       scope="every transcript")
