"""The calibration of the Lumberjack-style baseline (`betweencut.baselines.lumberjack`), certified.

Claim (module docstring of `betweencut.baselines.lumberjack`, steps 2-4): with `σ² = c·ln(a)` and
`R = 1 + σ·sqrt(2·ln(g))` read from the calibration the mechanism runs with,
(i) the composed Gaussian part is `μ`-GDP with `μ = sqrt(L)/σ`, whose exact privacy profile
(Balle and Wang 2018, Thm. 8) `δ_G(ε) = Φ(-ε/μ + μ/2) - e^ε·Φ(-ε/μ - μ/2)` must be `<= δ/2`;
(ii) the guard part `L·Φ̄((R - 1)/σ) <= (L/2)·e^{-(R-1)²/(2σ²)}` must be `<= δ/2`, which holds
with equality in the last step iff `(R - 1)²/(2σ²) = ln(L/δ)`.

`Φ` is enclosed by the alternating Taylor series of `erf` with its remainder bound (the first
omitted term, once the terms decrease), in mpmath `iv` at rising precision: certified.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from mpmath import iv

from betweencut.baselines.lumberjack import LumberjackCalibration, lumberjack_calibrate
from betweencut.numbers.certified import q
from betweencut.numbers.exact import iv_endpoints, iv_precision, refine
from betweencut.proofs.exact.certificate import Certificate, ClaimRefuted
from betweencut.proofs.registry import claim, register_audit

CLAIM = "Lumberjack-style calibration"


def _erf_iv(x: Any) -> Any:
    """A certified enclosure of `erf(x)` for an interval `x` (current iv precision)."""
    x_max = max(abs(x.a), abs(x.b))
    n_min = math.ceil(iv_endpoints(iv.mpf(x_max) ** 2)[1]) + 2  # terms decrease from n > x^2 on
    total = iv.mpf(0)
    term = x  # x^(2n+1)/n!
    n = 0
    tiny = iv.mpf(2) ** (-iv.prec - 8)
    bound_term = iv.mpf(x_max)
    while True:
        total += (-1) ** n * term / (2 * n + 1)
        n += 1
        term = term * x * x / n
        bound_term = bound_term * x_max * x_max / n
        remainder = bound_term / (2 * n + 1)
        if n >= n_min and remainder.b < tiny.a:
            break
    spread = iv.mpf([-remainder.b, remainder.b])
    return 2 / iv.sqrt(iv.pi) * (total + spread)


def ncdf_iv(z: Any) -> Any:
    """`Φ(z)` enclosed: `(1 + erf(z/√2))/2`."""
    return (1 + _erf_iv(z / iv.sqrt(2))) / 2


def gaussian_delta_bounds(cal: LumberjackCalibration, prec: int) -> tuple[Fraction, Fraction]:
    """Certified bounds of `δ_G(ε)` for `μ = sqrt(L)/σ` at `ε = cal.epsilon`."""
    with iv_precision(prec):
        sigma = iv.sqrt(q(cal.sigma_sq_coeff) * iv.log(q(cal.sigma_sq_arg)))
        mu = iv.sqrt(cal.L) / sigma
        eps = q(cal.epsilon)
        value = ncdf_iv(-eps / mu + mu / 2) - iv.exp(eps) * ncdf_iv(-eps / mu - mu / 2)
        return iv_endpoints(value)


@claim(CLAIM, "Eq. (28)", "Eq. (14)")
def check_lumberjack_calibration(cal: LumberjackCalibration) -> Certificate:
    """Claim: the Lumberjack-style baseline with calibration `cal` is `(ε, δ)`-DP with
    deterministic margin `R` (derivation in `betweencut.baselines.lumberjack`).

    Preconditions: `cal.L = ⌈log2(h + 1)⌉` (checked), `0 < ε <= 1`, `0 < δ < 1/10`.
    Checks: `2^(L-1) < h + 1 <= 2^L`; the exact GDP profile `δ_G(ε) <= δ/2` by certified
    intervals; `(R - 1)²/(2σ²) = ln(L/δ)` as an identity of the exact inputs (`guard_arg = L/δ`),
    so the guard term is exactly `δ/2`.
    Returns: a Certificate, method `interval`. Raises: `ClaimRefuted` with the numbers.
    """
    params = {"h": cal.height, "epsilon": cal.epsilon, "delta": cal.delta}
    if not (2 ** (cal.L - 1) < cal.height + 1 <= 2**cal.L):
        raise ClaimRefuted(CLAIM, "L is not ceil(log2(h + 1))", {**params, "L": cal.L})
    if cal.guard_arg != Fraction(cal.L) / cal.delta:
        raise ClaimRefuted(CLAIM, "guard term: (R-1)^2/(2 sigma^2) is not ln(L/delta)",
                           {**params, "guard_arg": cal.guard_arg})
    half = cal.delta / 2

    def decided(prec: int) -> tuple[Fraction, Fraction] | None:
        lo, hi = gaussian_delta_bounds(cal, prec)
        return (lo, hi) if hi <= half or lo > half else None

    (lo, hi), _ = refine(decided, lambda: f"{CLAIM}: delta_G vs delta/2", 128)
    if lo > half:
        raise ClaimRefuted(CLAIM, "the Gaussian part exceeds delta/2",
                           {**params, "delta_G lower": lo, "delta/2": half})
    return Certificate(CLAIM, params, "interval",
                       {"delta_G upper": hi, "delta/2": half, "L": cal.L,
                        "sigma^2": f"{cal.sigma_sq_coeff}*log({cal.sigma_sq_arg})"})


LJ_GRID = [(h, Fraction(e), Fraction(d)) for h in (1, 3, 15, 1000, 2**30)
           for e in ("1/10", "1/2", "1") for d in ("1/1000000", "1/20", "99/1000")]


@register_audit("baselines", "Lumberjack-style calibration on a grid of (h, eps, delta)")
def audit_lumberjack() -> list[Certificate]:
    return [check_lumberjack_calibration(lumberjack_calibrate(h, e, d)) for h, e, d in LJ_GRID]
