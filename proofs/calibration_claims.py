"""Calibration inequalities of Theorem 5.5 (Eq. (119), (120)) and the margin of Theorem 5.6.

The checkers take a `Calibration` (the numbers the mechanism will use) and re-derive every fact
the proof of Theorem 5.5 relies on, exactly: `L`, `r0` and `r` by integer and rational
arithmetic, Eq. (119) as an exact equation in the calibration's own `λ` and `R`
(`eq_119_holds`), Eq. (120) as a rational inequality.
"""

from __future__ import annotations

from fractions import Fraction

from betweencut.mechanism.calibration import Calibration, calibrate
from betweencut.numbers.exact import LogReal
from betweencut.proofs.exact.certificate import Certificate, ClaimRefuted
from betweencut.proofs.registry import claim, register_audit

CLAIM = "Theorem 5.5"


def eq_119_holds(L: int, lam: Fraction, R: LogReal, delta: Fraction) -> bool:
    """Eq. (119), `(L/2)·e^{-λ(R-1)} = δ/2`, decided exactly for the real `λ` and `R`.

    With `R = c + k·ln(g)`: `e^{-λ(R-1)} = e^{-x}·g^{-m}`, `x = λ(c - 1)`, `m = λ·k` rational.
    The right side `δ/L` is rational and `g^{-m}` algebraic, so for `x != 0` the two differ
    (`e^{-x}` is transcendental, Lindemann); for `x = 0` and `m = p/q` the equation is the
    rational identity `g^{-p} = (δ/L)^q`. No float, no spelling: any `R` of the same value holds.
    """
    x = lam * (R.const - 1)
    if x != 0:
        return False
    m = lam * R.coeff if not R.is_rational else Fraction(0)
    target = delta / L
    return Fraction(R.arg) ** (-m.numerator) == target**m.denominator


@claim("Theorem 5.5", "Eq. (23)", "Eq. (119)", "Eq. (120)")
def check_theorem_5_5(cal: Calibration) -> Certificate:
    """Claim: Theorem 5.5, Eq. (23), (119), (120).

    Preconditions: `cal` claims to calibrate `(h, ε, δ)` with `0 < ε <= 1`, `0 < δ < 1/10`.
    Checks: `2^(L-1) < h + 1 <= 2^L`; `(5/4)^(r0-1) < 2/δ <= (5/4)^r0`; `r = min(L, r0)`;
    `λ = ε/r`, `w = r/ε`; `λ <= 1`; Eq. (119) `(L/2)·e^(-λ(R-1)) = δ/2` for the calibration's
    own `λ` and `R`, decided exactly (`eq_119_holds`); Eq. (120) `(4/5)^r <= δ/2` when `r < L`.
    Returns: a Certificate with method `exact`. Raises: `ClaimRefuted` naming the failed step.
    """
    h, eps, dlt = cal.height, cal.epsilon, cal.delta
    params = {"h": h, "epsilon": eps, "delta": dlt}

    def refute(step: str, **numbers: object) -> ClaimRefuted:
        return ClaimRefuted(CLAIM, step, {**params, **numbers})

    if not (2 ** (cal.L - 1) < h + 1 <= 2**cal.L):
        raise refute("L is not ceil(log2(h + 1))", L=cal.L)
    five_quarters = Fraction(5, 4)
    if not (five_quarters ** (cal.r0 - 1) < 2 / dlt <= five_quarters**cal.r0):
        raise refute("r0 is not ceil(ln(2/delta)/ln(5/4))", r0=cal.r0)
    if cal.r != min(cal.L, cal.r0):
        raise refute("r is not min(L, r0)", r=cal.r)
    if cal.lam != eps / cal.r or cal.w != cal.r / eps or cal.lam > 1:
        raise refute("lambda = eps/r <= 1 and w = r/eps fail", lam=cal.lam, w=cal.w)
    if not eq_119_holds(cal.L, cal.lam, cal.R, dlt):
        raise refute("Eq. (119): (L/2)*e^(-lambda(R - 1)) != delta/2",
                     lam_R_minus_1=((cal.R - 1) * cal.lam).exact_str())
    overflow = Fraction(4, 5) ** cal.r
    if cal.r < cal.L and overflow > dlt / 2:
        raise refute("Eq. (120): (4/5)^r > delta/2", four_fifths_r=overflow)
    return Certificate(
        CLAIM, params, "exact",
        {"L": cal.L, "r0": cal.r0, "r": cal.r, "lambda": cal.lam, "R": cal.R.exact_str(),
         "(4/5)^r": overflow, "delta/2": dlt / 2},
    )


@claim("Theorem 5.6", "Eq. (24)")
def check_theorem_5_6_margin(cal: Calibration) -> Certificate:
    """Claim: Theorem 5.6, Eq. (24).

    Checks: `E = w + R = 1 + (r/ε)·(1 + ln(L/δ))` as an exact identity of `a + b·ln(c)` forms.
    Returns: a Certificate with method `exact`. Raises: `ClaimRefuted` if the forms differ.
    """
    r_over_eps = Fraction(cal.r) / cal.epsilon
    expected = LogReal(1 + r_over_eps, r_over_eps, Fraction(cal.L) / cal.delta)
    params = {"h": cal.height, "epsilon": cal.epsilon, "delta": cal.delta}
    if expected != cal.E or cal.R + cal.w != cal.E:
        raise ClaimRefuted(
            "Theorem 5.6", "E is not w + R = 1 + (r/eps)(1 + ln(L/delta))",
            {**params, "E": cal.E, "expected": expected},
        )
    return Certificate("Theorem 5.6", params, "exact", {"E": cal.E.exact_str()})


CALIBRATION_GRID = [
    (h, Fraction(e), Fraction(d))
    for h in (1, 2, 3, 15, 64, 1000, 10**6)
    for e in ("1/10", "1/2", "1")
    for d in ("1/1000000", "1/1000", "1/20", "99/1000")
]


@register_audit("calibration", "Theorem 5.5 and 5.6 on a grid of (h, eps, delta)")
def audit_calibration() -> list[Certificate]:
    certs = []
    for h, e, d in CALIBRATION_GRID:
        cal = calibrate(h, e, d)
        certs.append(check_theorem_5_5(cal))
        certs.append(check_theorem_5_6_margin(cal))
    return certs
