"""The certified interval model: laws of BT/GuardedBT for real parameters, as mpmath intervals.

For parameters the exact models cannot represent (an irrational threshold, `λ`, or an `R` whose
`e^{-λ(R-1)}` has no exact form), every quantity is an mpmath `iv` interval computed at an
explicit precision `prec` (bits), rounding outward. Inputs are exact numbers (`Fraction`, int
or `LogReal`); only the evaluation is approximate, and the branch of each Laplace tail formula
(`d <= 0` or not) is decided exactly on the input. Comparisons go through the one gate
`betweencut.proofs.exact.arith.sign`, which raises `Undecided` when an interval straddles zero;
a caller that needs a decision recomputes at rising precision through the package's one loop
(`betweencut.numbers.exact.refine`, up to its one cap), so it only sees `Undecided` when the two
sides may be equal. Precision is set only through `betweencut.numbers.exact.iv_precision`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Final, Union

from mpmath import iv

from betweencut.errors import ParameterError
from betweencut.mechanism.guarded_bt import BT
from betweencut.noise.noisy_test import Outcome
from betweencut.numbers.exact import LogReal, iv_endpoints, iv_precision
from betweencut.proofs.exact.arith import sign

__all__ = [
    "Interval", "Real", "bounds", "contains", "interval_delta0", "interval_law",
    "interval_theorem_5_4_bound", "mechanism_interval_law", "to_iv",
]

Interval = Any  # an mpmath `iv.mpf`
Real = Union[Fraction, int, LogReal]  # noqa: UP007
DEFAULT_PREC: Final = 64
OUTCOMES = (Outcome.L, Outcome.B, Outcome.H)


def to_iv(x: Real) -> Interval:
    """An interval containing the exact real `x` (at the current `iv.prec`)."""
    if isinstance(x, bool):
        raise ParameterError("x", x, "an exact real (Fraction, int or LogReal)")
    if isinstance(x, int | Fraction):
        f = Fraction(x)
        return iv.mpf(f.numerator) / f.denominator
    if isinstance(x, LogReal):
        const = iv.mpf(x.const.numerator) / x.const.denominator
        if x.is_rational:
            return const
        coeff = iv.mpf(x.coeff.numerator) / x.coeff.denominator
        return const + coeff * iv.log(iv.mpf(x.arg.numerator) / x.arg.denominator)
    raise ParameterError("x", repr(x), "an exact real (Fraction, int or LogReal)")


def _exact_sign(x: Real) -> int:
    return sign(x)


def _diff(x: Real, y: Real) -> Real:
    if isinstance(x, LogReal):
        return x - y
    if isinstance(y, LogReal):
        return -(y - x)
    return Fraction(x) - Fraction(y)


def _below(d: Real, lam: Interval) -> Interval:
    """`P(Z < d)` for `Z ~ Lap(1/λ)`; the branch is chosen by the exact sign of `d`."""
    half = iv.mpf(1) / 2
    di = to_iv(d)
    if _exact_sign(d) <= 0:
        return half * iv.exp(lam * di)
    return 1 - half * iv.exp(-lam * di)


def interval_law(count: Real, a: Real, b: Real, lam: Real, prec: int = DEFAULT_PREC
                 ) -> dict[Outcome, Interval]:
    """The law of BT(c; a, b, λ) (Alg. 4) as certified intervals at `prec` bits.

    `ℓ = P(Z < a - c)`, `u = P(Z > b - c) = P(Z < c - b)`, `m = 1 - ℓ - u`.
    """
    if sign(_diff(b, a)) < 0:
        raise ParameterError("a", a, f"a <= b = {b}")
    if sign(lam) <= 0:
        raise ParameterError("lam", lam, "lambda > 0")
    with iv_precision(prec):
        lam_i = to_iv(lam)
        low = _below(_diff(a, count), lam_i)
        high = _below(_diff(count, b), lam_i)
        return {Outcome.L: low, Outcome.B: 1 - low - high, Outcome.H: high}


def mechanism_interval_law(mechanism: BT, count: int, prec: int = DEFAULT_PREC
                           ) -> dict[Outcome, Interval]:
    """The law of the real `mechanism` (BT or GuardedBT) on `count`: guard first, exactly."""
    decided = mechanism.guard(count)
    if decided is not None:
        with iv_precision(prec):
            return {s: iv.mpf(1 if s is decided else 0) for s in OUTCOMES}
    return interval_law(count, mechanism.a, mechanism.b, mechanism.lam, prec)


def interval_delta0(lam: Real, R: Real, prec: int = DEFAULT_PREC) -> Interval:
    """`δ0 = ½·e^{-λ(R-1)}` (Eq. (19)) as an interval, for any exact real `λ`, `R`."""
    with iv_precision(prec):
        return iv.exp(-to_iv(lam) * (to_iv(R) - 1)) / 2


def interval_theorem_5_4_bound(L: int, lam: Real, R: Real, r: int, prec: int = DEFAULT_PREC
                               ) -> Interval:
    """Theorem 5.4, Eq. (22): `(L/2)·e^{-λ(R-1)} + 1{r<L}·(1 - q_λ)^r`, as an interval."""
    if not (isinstance(L, int) and isinstance(r, int) and 1 <= r <= L):
        raise ParameterError("r", r, f"an integer 1 <= r <= L = {L}")
    with iv_precision(prec):
        lam_i = to_iv(lam)
        out = L * iv.exp(-lam_i * (to_iv(R) - 1)) / 2
        if r < L:
            q = (1 - iv.exp(iv.mpf(-2))) / (1 + iv.exp(lam_i))
            out = out + (1 - q) ** r
        return out


def bounds(x: Interval) -> tuple[Fraction, Fraction]:
    """The exact rational end points of an interval."""
    return iv_endpoints(x)


def contains(x: Interval, value: Fraction | int) -> bool:
    lo, hi = bounds(x)
    return lo <= value <= hi
