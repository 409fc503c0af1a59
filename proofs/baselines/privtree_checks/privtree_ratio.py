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

from betweencut.errors import ParameterError
from betweencut.numbers.exact import interval_bounds, refine
from betweencut.proofs.exact.arith import ExpPoly, sign

__all__ = ["FIXED_BITS", "ONE", "LogRatio", "Ratio", "log_fixed"]

FIXED_BITS = 64
_ZERO = Fraction(0)
_ONE = Fraction(1)


@lru_cache(maxsize=1 << 16)
def log_fixed(x: ExpPoly) -> tuple[int, int]:
    """Integers `lo <= 2^FIXED_BITS·ln(x) <= hi` for an exact `x > 0`, certified (rational
    enclosures of `x` at rising precision, the package's one loop `refine`, then mpmath
    interval logarithms)."""
    scale = 1 << FIXED_BITS

    def step(prec: int) -> tuple[int, int] | None:
        a, b = x.enclose(prec)
        if a > 0:
            lo = interval_bounds(_ZERO, _ONE, a, prec)[0]
            hi = interval_bounds(_ZERO, _ONE, b, prec)[1]
            return math.floor(lo * scale), math.ceil(hi * scale)
        if b < 0 or x.is_zero():
            raise ParameterError("x", str(x), "a positive probability")
        return None

    return refine(step, lambda: f"ln({x})", 2 * FIXED_BITS)[0]


_IDS: dict[ExpPoly, int] = {}  # every factor met, interned (hashing an ExpPoly is slow)
_FACTORS: list[tuple[ExpPoly, int, int]] = []  # id -> (value, lo, hi)


def _factor(x: ExpPoly) -> int:
    found = _IDS.get(x)
    if found is None:
        lo, hi = log_fixed(x)
        found = _IDS[x] = len(_FACTORS)
        _FACTORS.append((x, lo, hi))
    return found


class LogRatio:
    """`Π num / Π den` over exact positive factors (interned ids), kept as a product tree with
    certified fixed-point bounds of its logarithm (`lo`, `hi`)."""

    __slots__ = ("_flat", "_kids", "den", "hi", "lo", "num")

    def __init__(self, lo: int, hi: int, num: tuple[int, ...] = (), den: tuple[int, ...] = (),
                 kids: tuple[LogRatio, ...] = ()) -> None:
        self.lo, self.hi, self.num, self.den, self._kids = lo, hi, num, den, kids
        self._flat: tuple[Counter[int], Counter[int]] | None = None

    @staticmethod
    def of(num: ExpPoly, den: ExpPoly) -> LogRatio:
        """The ratio `num / den` of two exact positive numbers."""
        n, d = _factor(num), _factor(den)
        return LogRatio(_FACTORS[n][1] - _FACTORS[d][2], _FACTORS[n][2] - _FACTORS[d][1],
                        (n,), (d,))

    def __mul__(self, other: LogRatio) -> LogRatio:
        if other is ONE:
            return self
        if self is ONE:
            return other
        return LogRatio(self.lo + other.lo, self.hi + other.hi, kids=(self, other))

    def factors(self) -> tuple[Counter[int], Counter[int]]:
        """The multisets of numerator and denominator factor ids (cached per node)."""
        if self._flat is None:
            num: Counter[int] = Counter(self.num)
            den: Counter[int] = Counter(self.den)
            for kid in self._kids:
                k_num, k_den = kid.factors()
                num.update(k_num)
                den.update(k_den)
            self._flat = (num, den)
        return self._flat

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


def _product(factors: Counter[int]) -> ExpPoly:
    out = ExpPoly.const(1)
    for i, k in sorted(factors.items(), key=lambda item: len(_FACTORS[item[0]][0].terms)):
        out = out * (_FACTORS[i][0] ** k)
    return out


ONE = LogRatio(0, 0)


class Ratio:
    """`num/den` with exact positive `ExpPoly` parts (a probability ratio), kept factored
    (`LogRatio`): products and comparisons are
    exact without multiplying the factors out; `num` and `den` are multiplied out on demand."""

    __slots__ = ("_exact", "log")

    def __init__(self, num: ExpPoly, den: ExpPoly) -> None:
        self.log = LogRatio.of(num, den)
        self._exact: tuple[ExpPoly, ExpPoly] | None = (num, den)

    @staticmethod
    def of_log(log: LogRatio) -> Ratio:
        out = Ratio.__new__(Ratio)
        out.log, out._exact = log, None
        return out

    def _parts(self) -> tuple[ExpPoly, ExpPoly]:
        if self._exact is None:
            self._exact = self.log.exact()
        return self._exact

    @property
    def num(self) -> ExpPoly:
        return self._parts()[0]

    @property
    def den(self) -> ExpPoly:
        return self._parts()[1]

    def __mul__(self, other: Ratio) -> Ratio:
        return Ratio.of_log(self.log * other.log)

    def exceeds(self, other: Ratio) -> bool:
        """`self > other`, exactly."""
        return self.log.exceeds(other.log)

    def loss_bounds(self, prec: int = 64) -> tuple[float, float]:
        """Display only: bounds of `ln(num/den)` from certified enclosures."""
        lo, hi = self.log.log_bounds()
        return math.floor(float(lo) * 1e12) / 1e12, math.ceil(float(hi) * 1e12) / 1e12
