"""GuardedBT (Alg. 1) and BT (Alg. 4): the count query of BetweenCut.

Only the noisy branch goes through the `NoisyTest`; the two guards are decided here, exactly,
against an `R` that may be irrational: for an integer count `c`, `c <= a - R` iff
`c <= floor(a - R)` and `c >= b + R` iff `c >= ceil(b + R)`, and those two integers are computed
once, certified (see `betweencut.numbers.exact`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from betweencut.boundary.seams import Seams
from betweencut.data.validate import exact_log_real, exact_value, positive_rational
from betweencut.errors import ParameterError, shown
from betweencut.noise.noisy_test import (
    LAM_WHY,
    BTQuery,
    NoisyTest,
    Outcome,
    checked_outcome,
)
from betweencut.numbers.exact import LogReal


@dataclass(frozen=True, slots=True)
class BT:
    """BT(c; a, b, λ) (Alg. 4): no guards, every call is a noisy test."""

    a: Fraction
    b: Fraction
    lam: Fraction

    def guard(self, count: int) -> Outcome | None:
        return None

    def query(self, count: int, node: object = None) -> BTQuery:
        return BTQuery(Fraction(count), self.a, self.b, self.lam, node)

    def __call__(self, count: int, test: NoisyTest, node: object = None) -> Outcome:
        decided = self.guard(count)
        if decided is not None:
            return decided
        return checked_outcome(test(self.query(count, node)))


@dataclass(frozen=True, slots=True)
class GuardedBT(BT):
    """GuardedBT(c; a, b, R, λ) (Alg. 1): `L` if `c <= a - R`, `H` if `c >= b + R`, else BT."""

    R: LogReal
    lower_cut: int  # floor(a - R)
    upper_cut: int  # ceil(b + R)

    @staticmethod
    def of(a: object, b: object, R: object, lam: object) -> GuardedBT:
        """Alg. 1 with exact thresholds `a <= b`, guard width `R >= 0` (a rational or a
        `LogReal`) and rate `lam > 0`; the cuts `floor(a - R)`, `ceil(b + R)` are certified."""
        a_q, b_q = exact_value(a, "a"), exact_value(b, "b")
        if a_q > b_q:
            raise ParameterError("a", a_q, f"a <= b = {shown(b_q)}")
        lam_q = positive_rational(lam, "lam", LAM_WHY, text=True)
        big_r = exact_log_real(R, "R")
        if big_r.sign() < 0:
            raise ParameterError("R", big_r, "R >= 0 (the guard width)")
        return GuardedBT(a_q, b_q, lam_q, big_r, (a_q - big_r).floor(), (big_r + b_q).ceil())

    def query(self, count: int, node: object = None) -> BTQuery:
        """The noisy test of a count in the band, with the band (public) for the sampler's
        padding (`betweencut.noise.padded_sampler`)."""
        return BTQuery(Fraction(count), self.a, self.b, self.lam, node,
                       (self.lower_cut, self.upper_cut))

    def guard(self, count: int) -> Outcome | None:
        if count <= self.lower_cut:  # Alg. 1, l. 1
            return Outcome.L
        if count >= self.upper_cut:  # Alg. 1, l. 3
            return Outcome.H
        return None


# The count query's seams (`betweencut.boundary.seams`): the call, the noisy test and the guard,
# as BT or GuardedBT define them, snapshot when they are defined.
SEAMS = Seams.of(BT, steps=("__call__", "query", "guard"),
                 fields=("a", "b", "lam", "R", "lower_cut", "upper_cut"), also=(GuardedBT,))
