"""Certified real comparisons for margin formulas: mpmath `iv` intervals, never a float verdict.

A formula is a callable `prec -> iv.mpf` that builds its interval from exact inputs under the
working precision `prec` (bits). `certified_compare(f, g)` evaluates both at rising precision and
returns -1 or 1 once the intervals are disjoint; it raises `Undecided` if they still overlap at
`max_prec` (which only an exact tie, or an extremely near one, can cause).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from mpmath import iv

from betweencut.errors import Undecided
from betweencut.exact import iv_endpoints, iv_precision

Formula = Callable[[], Any]  # evaluated inside `precision(...)`
DEFAULT_MAX_PREC = 1 << 12


precision = iv_precision


def q(x: Fraction | int) -> Any:
    """The exact rational `x` as an (outward-rounded) interval."""
    x = Fraction(x)
    return iv.mpf(x.numerator) / x.denominator


def bounds(f: Formula, prec: int = 80) -> tuple[Fraction, Fraction]:
    """Certified rational bounds `lo <= f <= hi`."""
    with precision(prec):
        return iv_endpoints(f())


def midpoint(f: Formula, prec: int = 80) -> float:
    """A float near `f`, for display only."""
    lo, hi = bounds(f, prec)
    try:
        return float((lo + hi) / 2)
    except OverflowError:  # beyond the float range: display only
        return math.inf if lo > 0 else -math.inf


def certified_compare(f: Formula, g: Formula, max_prec: int = DEFAULT_MAX_PREC) -> int:
    """-1 if `f < g`, 1 if `f > g`, certified; `Undecided` if not separated at `max_prec`."""
    prec = 64
    while prec <= max_prec:
        f_lo, f_hi = bounds(f, prec)
        g_lo, g_hi = bounds(g, prec)
        if f_hi < g_lo:
            return -1
        if f_lo > g_hi:
            return 1
        prec *= 2
    raise Undecided(f"two margin formulas not separated at {max_prec} bits")
