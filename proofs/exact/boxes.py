"""Outward-rounded float boxes: certified float enclosures, a speed path that never decides alone.

A `FloatBox` `(lo, hi)` of IEEE 754 doubles encloses a real number. `float()` of a rational
rounds to nearest, so one ulp outward on each side still encloses it (`float_box`); a sum,
product or difference of two doubles is within half an ulp of the exact result, so one ulp
outward encloses that too (`down`, `up` and the array forms `add_boxes`, `sub_boxes`).
Comparisons of doubles are exact, so `box_exceeds` decides `P > e^ε·Q` whenever the boxes are
apart, and says None otherwise: the caller then decides with exact arithmetic (principle 1).
`ln_box` encloses a logarithm (mpmath `iv`, then one ulp), `log_dot` the dot product of a
count matrix with log boxes (the textbook summation bound, doubled, for any order).

Rationals past the largest double become `±inf` ends (`nearest`), `e^ε` past it the box
`(largest double, inf)` (`exp_box`), and a product `inf·0` is NaN, which no comparison accepts:
such boxes only widen, and `box_exceeds` then says None.

Assumes: `box_exceeds` and
`weighted_sum` take boxes of non-negative numbers; `log_dot` takes a matrix of non-negative
integer counts below 2^53. The tests compare every operation with exact `Fraction` arithmetic.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Final

import numpy as np
import numpy.typing as npt
from mpmath import iv

from betweencut.errors import NotYet
from betweencut.numbers.exact import iv_endpoints, iv_precision
from betweencut.proofs.exact.dyadic import exp_enclosure

__all__ = [
    "EXP_OVERFLOW", "GAMMA_SLACK", "LN_BITS", "FloatBox", "Floats", "add_boxes", "box_exceeds",
    "down", "exp_box", "float_box", "ln_box", "log_dot", "nearest", "point_boxes", "sub_boxes",
    "up",
    "weighted_sum",
]

FloatBox = tuple[float, float]
Floats = npt.NDArray[np.float64]
EXP_BITS: Final = 64  # e^ε enclosed at 64 bits before rounding to doubles
LN_BITS: Final = 90  # ln of a rational box at 90 bits before rounding to doubles
EXP_OVERFLOW: Final = 710  # e^710 > 1.8·10^308, the largest double
GAMMA_SLACK: Final = 4  # float dot products of length W err by at most W·u·Σ|a_i·b_i| (u = 2^-53)


def down(x: float) -> float:
    return math.nextafter(x, -math.inf)


def up(x: float) -> float:
    return math.nextafter(x, math.inf)


def nearest(x: Fraction) -> float:
    """`float(x)` rounded to nearest, `±inf` past the largest double (where `float()` raises):
    one ulp outward from it still encloses `x` (`down(inf)` is the largest double, below `x`;
    an underflow to 0 or a subnormal is within one ulp of `x` too)."""
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def float_box(enc: tuple[Fraction, Fraction]) -> FloatBox:
    """A certified float enclosure of a certified rational one (one ulp outward), for any
    rationals: past the largest double a box ends at `±inf`."""
    return down(nearest(enc[0])), up(nearest(enc[1]))


@lru_cache(maxsize=1024)
def exp_box(eps: Fraction) -> FloatBox:
    """A certified float box of `e^ε` (rational `ε`); for `ε >= EXP_OVERFLOW`, where `e^ε`
    passes the largest double, `(largest double, inf)` without computing `e^ε`."""
    if eps >= EXP_OVERFLOW:
        return sys.float_info.max, math.inf
    return float_box(exp_enclosure(eps, EXP_BITS))


def box_exceeds(p_box: FloatBox, q_box: FloatBox, eps: Fraction) -> bool | None:
    """`P > e^ε·Q` for `P, Q >= 0` from certified float boxes (every product rounded outward
    by one ulp; comparisons of floats are exact), or None when the boxes cannot decide."""
    x_lo, x_hi = exp_box(eps)
    if p_box[0] > up(x_hi * q_box[1]):
        return True
    if p_box[1] < down(x_lo * q_box[0]):
        return False
    return None


def weighted_sum(terms: Iterable[tuple[FloatBox, int]]) -> FloatBox:
    """A certified box of `Σ n·x` over boxes `x` of non-negative numbers and integers `n`
    (every product and partial sum rounded outward; the lower end kept `>= 0`)."""
    lo, hi = 0.0, 0.0
    for (b_lo, b_hi), n in terms:
        lo = down(lo + down(n * b_lo))
        hi = up(hi + up(n * b_hi))
    return max(lo, 0.0), hi


def ln_box(lo: Fraction, hi: Fraction) -> FloatBox:
    """Certified float bounds of `ln x` for `0 < lo <= x <= hi` (mpmath `iv` at `LN_BITS`
    bits, then one ulp outward). Raises `NotYet` unless `lo > 0`."""
    if lo <= 0:
        raise NotYet(f"ln of [{lo}, {hi}]: the box is not certified positive")
    with iv_precision(LN_BITS):
        box = iv.log(iv.mpf([iv.mpf(lo.numerator) / lo.denominator,
                             iv.mpf(hi.numerator) / hi.denominator]))
        a, b = iv_endpoints(box)
    return down(float(a)), up(float(b))


def add_boxes(a_lo: Floats, a_hi: Floats, b_lo: Floats, b_hi: Floats) -> tuple[Floats, Floats]:
    """Elementwise certified boxes of `a + b` (one ulp outward)."""
    return np.nextafter(a_lo + b_lo, -np.inf), np.nextafter(a_hi + b_hi, np.inf)


def sub_boxes(a_lo: Floats, a_hi: Floats, b_lo: Floats, b_hi: Floats) -> tuple[Floats, Floats]:
    """Elementwise certified boxes of `a - b` (one ulp outward)."""
    return np.nextafter(a_lo - b_hi, -np.inf), np.nextafter(a_hi - b_lo, np.inf)


def log_dot(matrix: Floats, ln_lo: Floats, ln_hi: Floats) -> tuple[Floats, Floats]:
    """Per row `i`, certified bounds of `Σ_j matrix[i, j]·ln_j` for `ln_j ∈ [ln_lo_j, ln_hi_j]`
    (non-negative integer counts): the float dot products widened by
    `GAMMA_SLACK·(W + 2)·2^-53·Σ_j |matrix[i, j]·ln_j|` (the summation bound for any order,
    doubled) plus `2^-1000`, then one ulp outward."""
    width = matrix.shape[1]
    absmax = np.maximum(np.abs(ln_lo), np.abs(ln_hi))
    err = (GAMMA_SLACK * (width + 2) * 2.0**-53) * (matrix @ absmax) + 2.0**-1000
    return (np.nextafter(matrix @ ln_lo - err, -np.inf),
            np.nextafter(matrix @ ln_hi + err, np.inf))


def point_boxes(points: Sequence[Fraction]) -> tuple[Floats, Floats]:
    """Certified float boxes of exact rational points, as two arrays (`lo`, `hi`)."""
    boxes = [float_box((p, p)) for p in points]
    return (np.array([b[0] for b in boxes], dtype=np.float64),
            np.array([b[1] for b in boxes], dtype=np.float64))
