"""Sympy expressions evaluated in certified interval arithmetic, and a positivity gate.

`sympy_interval(expr)` evaluates a closed sympy expression built from integers, rationals, `+`,
`*`, integer powers, `log`, `exp` and `sqrt` in mpmath `iv` (outward rounding, at the precision
in force): no float is ever formed. `betweencut.proofs.exact.arith.enclose` encloses it at given
bits, `expr_sign` signs it through the package's one gate (`betweencut.numbers.exact.refine`).
`nonnegative_on_box(poly, lower)` proves `poly(v) >= 0` for all `v_i >= lower_i` by the shift
`v_i = lower_i + x_i` and checking that every coefficient of the expanded polynomial in `x >= 0`
is certified `>= 0` (a sufficient condition: a polynomial with nonnegative coefficients is
nonnegative on the orthant).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import sympy as sp
from mpmath import iv

from betweencut.errors import ParameterError, Undecided
from betweencut.numbers.exact import enclosure_sign, iv_endpoints, iv_precision, refine


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
                             "not evaluated: read numbers with betweencut.numbers.exact_text)")
    return sp.sympify(value, strict=True)


def sympy_interval(expr: Any) -> Any:
    """An mpmath interval containing the closed sympy expression `expr` (`as_expr`: text is
    refused, never evaluated) at the current `iv` precision; `Undecided` for anything it
    cannot enclose."""
    return _iv(as_expr(expr))


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


def _bounds(expr: Any, prec: int) -> tuple[Fraction, Fraction]:
    """`arith.enclose` of a sympy expression (which calls this module: no import back)."""
    with iv_precision(prec):
        return iv_endpoints(_iv(expr))


def expr_sign(expr: Any) -> int:
    """The sign (-1, 0, 1) of a closed expression: by certified enclosures at rising precision
    (the package's gate), 0 only if sympy simplifies it to 0 (tried once, when the first
    enclosure straddles 0); `Undecided` at the precision cap."""
    e = as_expr(expr)
    first = 64

    def decided(prec: int) -> int | None:
        found = enclosure_sign(*_bounds(e, prec))
        if found is None and prec == first and sp.simplify(e) == 0:
            return 0
        return found

    return refine(decided, lambda: f"the sign of {e}", first)[0]


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
        try:
            lo, hi = _coefficient_bounds(coeff)
        except Undecided:  # not certified >= 0 at the cap: reported at 96 bits
            lo, hi = _bounds(coeff, 96)
        bounds[str(monom)] = (lo, hi)
        if lo < 0:
            ok = False
    return ok, bounds


def _coefficient_bounds(coeff: Any) -> tuple[Fraction, Fraction]:
    """Bounds of `coeff` from 96 bits up, once they decide `>= 0` or `< 0` (no longer straddle
    with `lo < 0`); `Undecided` at the cap."""

    def settled(prec: int) -> tuple[Fraction, Fraction] | None:
        lo, hi = _bounds(coeff, prec)
        return None if lo < 0 <= hi else (lo, hi)

    return refine(settled, lambda: f"the sign of the coefficient {coeff}", 96)[0]
