"""Dyadic intervals: certified enclosures whose ends are integers times powers of two.

`Dyadic = (lo, hi, e)` stands for the interval `[lo·2^e, hi·2^e]` with integer mantissas of at
most `MANTISSA_BITS` bits (`hi` has exactly that many after a product). Products round outward
(the floor for `lo`, the ceiling for `hi`), so a product of enclosures encloses the product;
sums of many of them are kept as integers at one absolute scale `2^-SUM_SCALE` (`absolute`: a
value below the scale is enclosed by `[0, 2^-SUM_SCALE]`, still certified). `round_out` widens
a rational enclosure to dyadic ends of about `KEEP_BITS` significant bits (cheap arithmetic,
never narrower), and `exp_enclosure(ε, bits)` is the certified rational enclosure of `e^ε` so
rounded.

Assumes: the enclosed numbers are non-negative (probabilities, products of probabilities);
`dyadic(lo, hi)` needs `0 <= lo <= hi`, `hi > 0`. Nothing here is approximate beyond the outward
rounding; the tests compare every operation with exact `Fraction` arithmetic.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Final

from betweencut.errors import ParameterError
from betweencut.proofs.exact.arith import ExpPoly

__all__ = [
    "KEEP_BITS", "MANTISSA_BITS", "ONE", "SUM_SCALE", "Dyadic", "absolute", "as_fractions",
    "dyadic", "exp_enclosure", "mul", "round_out",
]

MANTISSA_BITS: Final = 96
SUM_SCALE: Final = 2400
KEEP_BITS: Final = 96
Dyadic = tuple[int, int, int]
ONE: Final[Dyadic] = (1 << MANTISSA_BITS, 1 << MANTISSA_BITS, -MANTISSA_BITS)


def dyadic(lo: Fraction, hi: Fraction) -> Dyadic:
    """A dyadic interval containing `[lo, hi]`, `0 <= lo <= hi`, `hi > 0` (a negative `lo` is
    enclosed from 0: the numbers here are non-negative)."""
    if hi <= 0:
        raise ParameterError("hi", hi, "hi > 0 (a dyadic enclosure of a positive number)")
    e = hi.numerator.bit_length() - hi.denominator.bit_length() - MANTISSA_BITS
    scale = Fraction(2) ** -e
    return math.floor(max(lo, Fraction(0)) * scale), math.ceil(hi * scale), e


def mul(x: Dyadic, y: Dyadic) -> Dyadic:
    """An enclosure of the product, mantissas cut back to `MANTISSA_BITS` bits outward."""
    lo, hi, e = x[0] * y[0], x[1] * y[1], x[2] + y[2]
    shift = hi.bit_length() - MANTISSA_BITS
    if shift > 0:
        lo, hi, e = lo >> shift, -((-hi) >> shift), e + shift
    return lo, hi, e


def absolute(x: Dyadic) -> tuple[int, int]:
    """`(lo, hi)` with `lo·2^-SUM_SCALE <= x <= hi·2^-SUM_SCALE`: integers that add exactly."""
    lo, hi, e = x
    k = e + SUM_SCALE
    if k >= 0:
        return lo << k, hi << k
    return lo >> -k, -((-hi) >> -k)


def as_fractions(x: Dyadic) -> tuple[Fraction, Fraction]:
    """The exact ends of `x`."""
    lo, hi, e = x
    scale = Fraction(2) ** e
    return lo * scale, hi * scale


def round_out(lo: Fraction, hi: Fraction) -> tuple[Fraction, Fraction]:
    """A wider enclosure `[lo', hi'] ⊇ [lo, hi]` of dyadic rationals with about `KEEP_BITS`
    significant bits (keeps the certified interval arithmetic cheap; never narrower)."""

    def scale(x: Fraction) -> int:
        if x == 0:
            return KEEP_BITS
        return KEEP_BITS - (abs(x.numerator).bit_length() - x.denominator.bit_length())

    k = max(scale(lo), scale(hi), 0)
    den = 1 << k
    return Fraction((lo.numerator << k) // lo.denominator, den), Fraction(
        -((-hi.numerator << k) // hi.denominator), den)


@lru_cache(maxsize=2048)
def exp_enclosure(eps: Fraction, bits: int) -> tuple[Fraction, Fraction]:
    """Certified dyadic bounds of `e^ε` (`ExpPoly` enclosure at `bits` bits, `round_out`)."""
    return round_out(*ExpPoly.exp(eps).enclose(bits))
