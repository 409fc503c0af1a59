"""Exact products of probability ratios, compared through certified fixed-point logarithms.

PrivTree's largest loss is a maximum over decision patterns of products `Π P_D(x_v)/P_{D+z}(x_v)`
of exact split-decision probabilities (`ExpPoly`s). Multiplying the `ExpPoly`s out makes the
number of terms grow with the depth and the count (2,060 terms at depth 20 with 30 copies), so
`LogRatio` keeps a product *factored*: a tree of the factors it multiplies, with certified
integer bounds `lo <= 2^FIXED_BITS·ln(ratio) <= hi` that add exactly. A comparison is decided by
those bounds when they are apart; otherwise (a tie or a near tie) exactly: both sides are
flattened to multisets of factors, the common factors cancel (a tie between the same factors
costs nothing more), and the sign of the difference of the remaining products is read by the
one gate (`betweencut.proofs.exact.arith.sign`). No float decides anything.
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from functools import lru_cache

from betweencut.errors import ParameterError, Undecided
from betweencut.exact import interval_bounds
from betweencut.proofs.exact.arith import ExpPoly, sign

__all__ = ["FIXED_BITS", "ONE", "LogRatio", "log_fixed"]

FIXED_BITS = 64
MAX_BITS = 1 << 12
_ZERO = Fraction(0)
_ONE = Fraction(1)


@lru_cache(maxsize=1 << 16)
def log_fixed(x: ExpPoly) -> tuple[int, int]:
    """Integers `lo <= 2^FIXED_BITS·ln(x) <= hi` for an exact `x > 0`, certified (rational
    enclosures of `x` at rising precision, then mpmath interval logarithms)."""
    scale = 1 << FIXED_BITS
    prec = 2 * FIXED_BITS
    while prec <= MAX_BITS:
        a, b = x.enclose(prec)
        if a > 0:
            lo = interval_bounds(_ZERO, _ONE, a, prec)[0]
            hi = interval_bounds(_ZERO, _ONE, b, prec)[1]
            return math.floor(lo * scale), math.ceil(hi * scale)
        if b < 0 or x.is_zero():
            raise ParameterError("x", str(x), "a positive probability")
        prec *= 2
    raise Undecided(f"ln({x}) at {MAX_BITS} bits")


class LogRatio:
    """`Π num / Π den` over exact positive factors, kept as a product tree with certified
    fixed-point bounds of its logarithm (`lo`, `hi`)."""

    __slots__ = ("_kids", "den", "hi", "lo", "num")

    def __init__(self, lo: int, hi: int, num: tuple[ExpPoly, ...] = (),
                 den: tuple[ExpPoly, ...] = (), kids: tuple[LogRatio, ...] = ()) -> None:
        self.lo, self.hi, self.num, self.den, self._kids = lo, hi, num, den, kids

    @staticmethod
    def of(num: ExpPoly, den: ExpPoly) -> LogRatio:
        """The ratio `num / den` of two exact positive numbers."""
        n_lo, n_hi = log_fixed(num)
        d_lo, d_hi = log_fixed(den)
        return LogRatio(n_lo - d_hi, n_hi - d_lo, (num,), (den,))

    def __mul__(self, other: LogRatio) -> LogRatio:
        if other is ONE:
            return self
        if self is ONE:
            return other
        return LogRatio(self.lo + other.lo, self.hi + other.hi, kids=(self, other))

    def factors(self) -> tuple[Counter[ExpPoly], Counter[ExpPoly]]:
        """The multisets of numerator and denominator factors."""
        num: Counter[ExpPoly] = Counter()
        den: Counter[ExpPoly] = Counter()
        stack = [self]
        while stack:
            node = stack.pop()
            num.update(node.num)
            den.update(node.den)
            stack.extend(node._kids)
        return num, den

    def compare(self, other: LogRatio) -> int:
        """The exact sign of `self − other`."""
        if self.lo > other.hi:
            return 1
        if self.hi < other.lo:
            return -1
        a_num, a_den = self.factors()
        b_num, b_den = other.factors()
        left, right = a_num + b_den, b_num + a_den  # self > other iff Π left > Π right
        common = left & right
        left, right = left - common, right - common
        if not left and not right:
            return 0
        return sign(_product(left) - _product(right))

    def exceeds(self, other: LogRatio) -> bool:
        """`self > other`, exactly."""
        return self.compare(other) > 0

    def exact(self) -> tuple[ExpPoly, ExpPoly]:
        """`(Π num, Π den)` multiplied out, common factors cancelled first."""
        num, den = self.factors()
        common = num & den
        return _product(num - common), _product(den - common)

    def log_bounds(self) -> tuple[Fraction, Fraction]:
        """Certified rational bounds of `ln(self)`."""
        return Fraction(self.lo, 1 << FIXED_BITS), Fraction(self.hi, 1 << FIXED_BITS)


def _product(factors: Counter[ExpPoly]) -> ExpPoly:
    out = ExpPoly.const(1)
    for x, k in sorted(factors.items(), key=lambda item: len(item[0].terms)):
        out = out * (x ** k)
    return out


ONE = LogRatio(0, 0)
