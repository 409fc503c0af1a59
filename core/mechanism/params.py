"""Public parameters of one BetweenCut run (Alg. 3): τ, λ, R, and the thresholds of Eq. (13)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from betweencut.data.validate import exact_log_real, positive_rational
from betweencut.errors import ParameterError
from betweencut.numbers.exact import LogReal


def public_tau(tau: object) -> Fraction:
    """The public threshold `τ >= 0`, read exactly (a public input, never read off the data)."""
    return positive_rational(tau, "tau", " (a public threshold, never read off the data)",
                             text=True, zero=True)


@dataclass(frozen=True, slots=True)
class Params:
    """`τ >= 0`, `λ > 0` (Theorem 5.4 needs `λ <= 1`), `R >= 1`, all public.

    The thresholds are `w = 1/λ`, `a = τ - w`, `b = τ + w` (Eq. (13)); `R` may be irrational
    (after calibration it contains a logarithm) and is kept exact as a `LogReal`.
    """

    tau: Fraction
    lam: Fraction
    R: LogReal

    @staticmethod
    def of(tau: object, lam: object, R: object) -> Params:
        t = public_tau(tau)
        lam_q = positive_rational(lam, "lambda", text=True)
        big_r = exact_log_real(R, "R")
        if big_r.compare(1) < 0:
            raise ParameterError("R", big_r, "R >= 1")
        return Params(t, lam_q, big_r)

    @property
    def w(self) -> Fraction:
        return 1 / self.lam

    @property
    def a(self) -> Fraction:
        return self.tau - self.w

    @property
    def b(self) -> Fraction:
        return self.tau + self.w

    @property
    def margin(self) -> LogReal:
        """`E = w + R`, the deterministic margin of Theorem C.2 / Theorem 5.6, Eq. (24)."""
        return self.R + self.w
