"""Certified real comparisons for margin formulas: mpmath `iv` intervals, never a float verdict.

A formula is a callable `() -> iv.mpf` that builds its interval from exact inputs under the
working precision in force (`betweencut.numbers.exact.iv_precision`). `certified_compare(f, g)` is
the sign gate (`betweencut.numbers.exact.certified_sign`) on the enclosures of `f - g` at rising
precision: -1 or 1 once the intervals are disjoint, `Undecided` at the package's precision cap
(which only an exact tie, or an extremely near one, can cause).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from mpmath import iv

from betweencut.numbers.exact import certified_sign, iv_endpoints, iv_precision

Formula = Callable[[], Any]  # evaluated inside `iv_precision(...)`


def q(x: Fraction | int) -> Any:
    """The exact rational `x` as an (outward-rounded) interval."""
    x = Fraction(x)
    return iv.mpf(x.numerator) / x.denominator


def bounds(f: Formula, prec: int = 80) -> tuple[Fraction, Fraction]:
    """Certified rational bounds `lo <= f <= hi`."""
    with iv_precision(prec):
        return iv_endpoints(f())


def midpoint(f: Formula, prec: int = 80) -> float:
    """A float near `f`, for display only."""
    lo, hi = bounds(f, prec)
    try:
        return float((lo + hi) / 2)
    except OverflowError:  # beyond the float range: display only
        return math.inf if lo > 0 else -math.inf


def certified_compare(f: Formula, g: Formula) -> int:
    """-1 if `f < g`, 1 if `f > g`, certified; `Undecided` if not separated at the cap."""

    def difference(prec: int) -> tuple[Fraction, Fraction]:
        (f_lo, f_hi), (g_lo, g_hi) = bounds(f, prec), bounds(g, prec)
        return f_lo - g_hi, f_hi - g_lo

    return certified_sign(difference, lambda: "two margin formulas")
