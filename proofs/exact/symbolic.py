"""Sympy expressions evaluated in certified interval arithmetic, and a positivity gate.

`enclose(expr)` evaluates a closed sympy expression built from integers, rationals, `+`, `*`,
integer powers, `log`, `exp` and `sqrt` in mpmath `iv` (outward rounding): no float is ever
formed. `nonnegative_on_box(poly, lower)` proves `poly(v) >= 0` for all `v_i >= lower_i` by the
shift `v_i = lower_i + x_i` and checking that every coefficient of the expanded polynomial in
`x >= 0` is certified `>= 0` (a sufficient condition: a polynomial with nonnegative
coefficients is nonnegative on the orthant).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import sympy as sp
from mpmath import iv

from betweencut.certified import precision
from betweencut.errors import ParameterError, Undecided
from betweencut.exact import iv_endpoints


def sympy_fraction(expr: Any) -> Fraction:
    """A sympy rational number (`Integer` or `Rational`) as a `Fraction` with Python `int` parts.

    The one place where sympy numbers become rationals: under sympy's gmpy ground types its
    numbers may carry gmpy2 integers, which must not leak into `Fraction` arithmetic. Raises
    `TypeError` for anything that is not an exact sympy rational (a `Float` included).
    """
    if not getattr(expr, "is_Rational", False):
        raise TypeError(f"not an exact sympy rational: {expr!r}")
    return Fraction(int(expr.p), int(expr.q))


def as_expr(value: object) -> Any:
    """`value` as a sympy expression without evaluating anything: a sympy object, an int or a
    `Fraction` (`sympify(strict=True)`); text, floats and other objects raise
    `ParameterError` (sympy would run text as Python and round a float)."""
    if isinstance(value, str | float | bool) or not isinstance(value, sp.Basic | int | Fraction):
        raise ParameterError("expr", value, "a sympy expression, an int or a Fraction (text is "
                             "not evaluated: read numbers with betweencut.exact_text)")
    return sp.sympify(value, strict=True)


def _iv(expr: Any) -> Any:
    if expr.is_Rational:
        x = sympy_fraction(expr)
        return iv.mpf(x.numerator) / x.denominator
    if expr.is_Add:
        out = iv.mpf(0)
        for a in expr.args:
            out = out + _iv(a)
        return out
    if expr.is_Mul:
        out = iv.mpf(1)
        for a in expr.args:
            out = out * _iv(a)
        return out
    if expr.is_Pow:
        base, exponent = expr.args
        if exponent.is_Integer:
            return _iv(base) ** int(exponent)
        if exponent == sp.Rational(1, 2):
            return iv.sqrt(_iv(base))
        if exponent == sp.Rational(-1, 2):
            return 1 / iv.sqrt(_iv(base))
        raise Undecided(f"cannot enclose the power {expr}")
    if isinstance(expr, sp.log):
        return iv.log(_iv(expr.args[0]))
    if isinstance(expr, sp.exp):
        return iv.exp(_iv(expr.args[0]))
    raise Undecided(f"cannot enclose {expr} (free symbols: {expr.free_symbols})")


def enclose(expr: Any, prec: int = 96) -> tuple[Fraction, Fraction]:
    """Certified rational bounds of a closed sympy expression."""
    with precision(prec):
        return iv_endpoints(_iv(as_expr(expr)))


def certified_sign(expr: Any, max_prec: int = 1 << 12) -> int:
    """The sign (-1, 0, 1) of a closed expression; 0 only if sympy simplifies it to 0."""
    e = as_expr(expr)
    prec = 64
    while prec <= max_prec:
        lo, hi = enclose(e, prec)
        if lo > 0:
            return 1
        if hi < 0:
            return -1
        if prec == 64 and sp.simplify(e) == 0:
            return 0
        prec *= 2
    raise Undecided(f"sign of {e} at {max_prec} bits")


def nonnegative_on_box(
    poly: Any, lower: Mapping[Any, Any]
) -> tuple[bool, dict[str, tuple[Fraction, Fraction]]]:
    """Whether every coefficient of `poly(lower + x)` in `x >= 0` is certified `>= 0`, with the
    certified bounds of each coefficient (keyed by the monomial's exponents)."""
    shifts = {v: sp.Symbol(f"_x_{v}", nonnegative=True) for v in lower}
    shifted = sp.expand(as_expr(poly).subs({v: lower[v] + shifts[v] for v in lower}))
    p = sp.Poly(shifted, *shifts.values())
    bounds: dict[str, tuple[Fraction, Fraction]] = {}
    ok = True
    for monom, coeff in p.terms():
        lo, hi = enclose(coeff)
        prec = 96
        while lo < 0 <= hi and prec < 1 << 12:
            prec *= 2
            lo, hi = enclose(coeff, prec)
        bounds[str(monom)] = (lo, hi)
        if lo < 0:
            ok = False
    return ok, bounds
