"""Calibration by the `tight` accountant: the least margin `E = w + R` with certified `δ(ε) <= δ`.

Claim: "Tight calibration (certified delta, E <= Theorem 5.5's E)".

For public `(h, ε, δ)` with Theorem 5.5's range (`0 < ε <= 1`, `0 < δ < 1/10`) the search picks
a rational `0 < λ <= 1` and a rational `δ0 <= ½` and sets `R = 1 + ln(1/(2δ0))/λ`, so that
`e^{-λ(R-1)} = 2δ0` exactly (`λ·coeff = 1`), `w = 1/λ` (Eq. (13)) and `E = w + R` (Eq. (24)).
The search is a float speed path over `λ` (KOV's `δ(ε)` is monotone in `δ0`, so the largest
admissible `δ0` has a closed form); at that `λ` an exact bisection then raises `δ0` as far as
the envelope accountant (below KOV) still certifies `δ(ε) <= δ`; the answer is then CERTIFIED:
`tight.delta_upper(ε) <= δ` exactly (`ExpRational` sign), and `E < E_paper` by certified
intervals. If either certification fails, or the paper's calibration is smaller, Theorem 5.5's
calibration is returned (its `δ(ε) <= δ` is Theorem 5.5 itself, and `tight` includes `paper`),
marked `accountant = "tight"`.

`r0` and `r` keep Theorem 5.5's meaning (the paper's residual calls); under `tight` they do
not determine `λ`.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from typing import Final

from betweencut.errors import ParameterError, Undecided, public_height
from betweencut.mechanism.calibration import (
    AccountantKind,
    Calibration,
    calibrate,
    check_privacy_budget,
)
from betweencut.numbers.bisection import certified_bisect
from betweencut.numbers.exact import LogReal, certified_sign
from betweencut.proofs.exact.arith import certainly_le, exact_str
from betweencut.proofs.exact.certificate import Certificate, ClaimRefuted
from betweencut.proofs.privacy.accountants.accountant import accountant
from betweencut.proofs.privacy.accountants.envelope import envelope_delta_upper
from betweencut.proofs.privacy.accountants.kov import kov_delta_float
from betweencut.proofs.registry import claim, register_audit

__all__ = [
    "CALIBRATIONS", "CLAIM", "calibrate_by", "calibrate_tight", "check_tight_calibration",
    "tight_guard",
]

CLAIM: Final = "Tight calibration (certified delta, E <= Theorem 5.5's E)"
_GRID: Final = 400
_FINE: Final = 20000
_REFINE_STEPS: Final = 8
MAX_TIGHT_L: Final = 64  # heights below 2^64: the certified search stays within seconds


def tight_guard(lam: Fraction, delta0: Fraction) -> LogReal:
    """`R = 1 + ln(1/(2δ0))/λ`: the guard budget whose `½·e^{-λ(R-1)}` is exactly `δ0`."""
    if not 0 < delta0 <= Fraction(1, 2):
        raise ParameterError("delta0", delta0, "0 < delta0 <= 1/2")
    return LogReal(Fraction(1), 1 / lam, 1 / (2 * delta0))


def _float_best_delta0(L: int, lam: float, eps: float, delta: float) -> float:
    """The largest `δ0` with KOV's `δ(ε) <= δ` (float): `(1-δ0)^L >= (1-δ)/(1-S)`."""
    s = kov_delta_float(L, lam, 0.0, eps)
    if s >= delta:
        return 0.0
    return float(1 - ((1 - delta) / (1 - s)) ** (1 / L))


def _float_margin(L: int, lam: float, eps: float, delta: float) -> float:
    d0 = min(_float_best_delta0(L, lam, eps, delta), 0.5)
    if d0 <= 0:
        return math.inf
    return 1 / lam + 1 + math.log(1 / (2 * d0)) / lam


def _search(L: int, eps: Fraction, delta: Fraction) -> Fraction | None:
    """The float-best `λ = i/_FINE` (coarse grid, then refined around the best)."""
    e, d = float(eps), float(delta)
    best = min(range(1, _GRID + 1), key=lambda i: _float_margin(L, i / _GRID, e, d))
    if not math.isfinite(_float_margin(L, best / _GRID, e, d)):
        return None
    scale = _FINE // _GRID
    lo, hi = max(1, (best - 1) * scale), min(_FINE, (best + 1) * scale)
    fine = min(range(lo, hi + 1), key=lambda i: _float_margin(L, i / _FINE, e, d))
    return Fraction(fine, _FINE)


def _certified_delta0(L: int, lam: Fraction, eps: Fraction, delta: Fraction) -> Fraction | None:
    """A rational `δ0 <= ½` with `tight.delta_upper(ε) <= δ` certified, near the float best."""
    guess = min(_float_best_delta0(L, float(lam), float(eps), float(delta)), 0.5)
    if guess <= 0:
        return None
    d0 = _round_down(Fraction(guess))
    for _ in range(8):
        d0 = min(d0, Fraction(1, 2))
        acc = accountant("tight", L=L, lam=lam, R=tight_guard(lam, d0))
        if certainly_le(acc.delta_upper(eps), delta):
            return d0
        d0 = d0 / 2
    return None


def _round_down(x: Fraction) -> Fraction:
    """`x > 0` rounded down to 8-9 significant digits (short exact forms of `R`)."""
    scale = 10 ** (8 - math.floor(math.log10(x)))
    return Fraction(math.floor(x * scale), scale)


def _envelope_refine(L: int, lam: Fraction, eps: Fraction, delta: Fraction,
                     d0: Fraction) -> Fraction:
    """Raise `δ0` (bisection on `[δ0, 2δ0]`, `certified_bisect`, exact checks) while the
    envelope accountant's certified `δ(ε) <= δ`: the envelope is below KOV, so a larger `δ0`
    (a smaller `R`) fits."""

    def fits(x: Fraction) -> bool:
        try:
            return certainly_le(envelope_delta_upper(L, lam, x, eps), delta)
        except Undecided:
            return False

    def short_middle(good: Fraction, bad: Fraction) -> Fraction | None:
        mid = _round_down((good + bad) / 2)
        return mid if mid > good else None

    good, _ = certified_bisect(fits, d0, min(2 * d0, Fraction(1, 2)), short_middle,
                               steps=_REFINE_STEPS)
    return good


def _smaller(x: LogReal, y: LogReal) -> bool:
    """`x < y`, certified by the gate on interval bounds (False when the gate cannot decide:
    then the paper's calibration is kept)."""

    def difference(prec: int) -> tuple[Fraction, Fraction]:
        (x_lo, x_hi), (y_lo, y_hi) = x.bounds(prec), y.bounds(prec)
        return x_lo - y_hi, x_hi - y_lo

    try:
        return certified_sign(difference, lambda: f"{x.exact_str()} - ({y.exact_str()})") < 0
    except Undecided:
        return False


def calibrate_tight(height: object, epsilon: object, delta: object) -> Calibration:
    """`λ`, `R` minimising `E = 1/λ + R` subject to the certified `tight` `δ(ε) <= δ`.

    Preconditions (checked): public height `1 <= h < 2^MAX_TIGHT_L` (checked before any work:
    the certified search grows with `L` and its float guide overflows past `L` of about 540),
    `0 < ε <= 1`, `0 < δ < 1/10` (Theorem 5.5's range). Returns a `Calibration` with
    `accountant = "tight"` whose `E` is never above Theorem 5.5's (certified), and whose
    `(λ, R)` make `tight.delta_upper(ε) <= δ` (certified).
    """
    h = public_height(height)
    if h.bit_length() > MAX_TIGHT_L:
        raise ParameterError(
            "height", h, f"h < 2^{MAX_TIGHT_L} for the tight accountant (L <= {MAX_TIGHT_L}); "
            "Theorem 5.5's calibration (the paper accountant) takes any height")
    eps, dlt = check_privacy_budget(epsilon, delta)
    paper = dataclasses.replace(calibrate(h, eps, dlt), accountant=AccountantKind.TIGHT)
    lam = _search(paper.L, eps, dlt)
    if lam is None:
        return paper
    d0 = _certified_delta0(paper.L, lam, eps, dlt)
    if d0 is None:
        return paper
    d0 = _envelope_refine(paper.L, lam, eps, dlt, d0)
    big_r = tight_guard(lam, d0)
    w = 1 / lam
    big_e = big_r + w
    if not _smaller(big_e, paper.E):
        return paper
    return Calibration(h, eps, dlt, paper.L, paper.r0, paper.r, lam, w, big_r, big_e,
                       AccountantKind.TIGHT)


CALIBRATIONS: Final = tuple(k.value for k in AccountantKind)
CALIBRATE: Final = {AccountantKind.PAPER: calibrate, AccountantKind.TIGHT: calibrate_tight}


def calibrate_by(name: str | AccountantKind, height: object, epsilon: object,
                 delta: object) -> Calibration:
    """The calibration of the accountant `name` (read by `AccountantKind.of`) for public
    `(h, ε, δ)`: `paper` (Theorem 5.5) or `tight` (`calibrate_tight`)."""
    return CALIBRATE[AccountantKind.of(name)](height, epsilon, delta)


@claim(CLAIM)
def check_tight_calibration(cal: Calibration) -> Certificate:
    """Claim: the tight calibration is private and never worse than Theorem 5.5's.

    Preconditions: `cal` claims to calibrate `(h, ε, δ)` under the tight accountant.
    Checks: `L = ⌈log2(h+1)⌉`; `0 < λ <= 1`, `w = 1/λ`, `E = w + R`; the `tight` accountant's
    certified `delta_upper(ε) <= δ` (exact gate); `E <= E_paper` (exact when the forms agree,
    else by certified intervals).
    Returns: a Certificate (method `exact`) with the bound, `δ`, both margins.
    Raises: `ClaimRefuted` naming the failed step.
    """
    params = {"h": cal.height, "epsilon": cal.epsilon, "delta": cal.delta,
              "lambda": cal.lam, "R": cal.R.exact_str()}
    if public_height(cal.height).bit_length() != cal.L:
        raise ClaimRefuted(CLAIM, "L is not ceil(log2(h + 1))", {**params, "L": cal.L})
    if not (0 < cal.lam <= 1 and cal.w == 1 / cal.lam and cal.R + cal.w == cal.E):
        raise ClaimRefuted(CLAIM, "lambda in (0, 1], w = 1/lambda, E = w + R fail",
                           {**params, "w": cal.w, "E": cal.E.exact_str()})
    bound = accountant("tight", L=cal.L, lam=cal.lam, R=cal.R).delta_upper(cal.epsilon)
    if not certainly_le(bound, cal.delta):
        raise ClaimRefuted(CLAIM, "the tight accountant's delta exceeds delta",
                           {**params, "bound_exact": exact_str(bound)})
    paper = calibrate(cal.height, cal.epsilon, cal.delta)
    if cal.E != paper.E and not _smaller(cal.E, paper.E):
        raise ClaimRefuted(CLAIM, "E is not below Theorem 5.5's E",
                           {**params, "E": cal.E.exact_str(), "E_paper": paper.E.exact_str()})
    return Certificate(CLAIM, params, "exact", {
        "delta_upper": exact_str(bound), "delta": cal.delta, "E": cal.E.exact_str(),
        "E_paper": paper.E.exact_str()})


@register_audit("calibration", "Tight calibration: certified delta and E below Theorem 5.5's")
def audit_tight_calibration() -> list[Certificate]:
    """The issue's headline point (h = 2^20 - 1, eps = 1, delta = 0.05) and a small tree."""
    return [check_tight_calibration(calibrate_tight(h, 1, Fraction(1, 20)))
            for h in (15, 2**20 - 1)]
