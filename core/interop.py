"""Exact numbers of other libraries, read at the API boundary as Python `int` and `Fraction`.

Users hold exact integers and rationals in many types: numpy integers, gmpy2 `mpz`/`mpq`,
python-flint `fmpz`/`fmpq`, sympy `Integer`/`Rational`, `decimal.Decimal`, anything registered
with `numbers.Integral` or `numbers.Rational`. Each is an exact value, so betweencut accepts it
and converts it here, once, to a Python `int` or to a `Fraction` whose numerator and denominator
are Python `int`s. No foreign number type travels further: inside betweencut (and in every
checker's `Fraction` arithmetic) there are only `int` and `Fraction` (a `Fraction` built from
two gmpy2 `mpz` keeps them as its parts, and its arithmetic then fails or changes type later).

Inexact numbers (Python and numpy floats, gmpy2 `mpfr`, python-flint `arb`, complex numbers)
are never read: `0.1` as a float is not 1/10, and a DP parameter must mean what the user wrote.

This module imports nothing of betweencut, so that `errors` and `exact` can both use it.
"""

from __future__ import annotations

import decimal
import numbers
import operator
from fractions import Fraction
from typing import Final

#: What an error message says to a user who passed an inexact number.
HOW_TO_PASS_EXACTLY: Final = (
    "an exact rational: pass an int, a Fraction, a string such as '0.1' or '1/10', or an exact "
    "integer/rational of numpy, gmpy2, python-flint or sympy"
)


def _index(value: object) -> int | None:
    """`operator.index(value)` as a Python int, or None if `value` has no exact integer index."""
    try:
        out = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        return None
    return int(out)  # an int subclass (e.g. bool-like) becomes a plain int


def is_inexact(value: object) -> bool:
    """True for floating and complex numbers of any library: they are refused, never rounded.

    `numbers.Real` that is not `numbers.Rational` covers float, numpy floats and gmpy2 `mpfr`;
    `numbers.Complex` that is not real covers complex numbers; python-flint's `arb`/`acb`
    (balls, not numbers registered with `numbers`) are named by their type.
    """
    if isinstance(value, numbers.Complex) and not isinstance(value, numbers.Rational):
        return True
    kind = type(value)
    return kind.__module__.startswith("flint") and kind.__name__ in {
        "arb", "acb", "arf", "arb_series", "acb_series"}


def exact_integer(value: object) -> int | None:
    """`value` as a Python `int` if it is an exact integer of any library, else None.

    Accepted: `int` (not `bool`), `numbers.Integral` (numpy integers, gmpy2 `mpz`), and any type
    with an exact `__index__` (python-flint `fmpz`, sympy `Integer`). A rational such as
    `Fraction(4, 2)` is not an integer type and gives None (callers that want it say so).
    """
    if isinstance(value, bool) or is_inexact(value):
        return None
    if type(value) is int:
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    return _index(value)


def exact_rational(value: object) -> Fraction | None:
    """`value` as a `Fraction` with `int` parts if it is an exact rational number, else None.

    Accepted: every `exact_integer`; `Fraction` (re-built if its parts are not `int`, e.g.
    `Fraction(mpz(1), mpz(3))`, or if it is a subclass); `numbers.Rational` (gmpy2 `mpq`);
    objects with exact-integer `numerator` and `denominator` (python-flint `fmpq`, sympy
    `Rational`); finite `decimal.Decimal` (a decimal is exact: `Decimal('0.1')` is 1/10).
    Strings are not read here (`betweencut.numbers.exact.as_rational` parses them). Floats give
    None.
    """
    if isinstance(value, bool) or is_inexact(value):
        return None
    if isinstance(value, Fraction):
        num, den = value.numerator, value.denominator
        if type(value) is Fraction and type(num) is int and type(den) is int:
            return value
        # a subclass is re-built: its comparisons and arithmetic are its own (a `__gt__` that
        # says yes to every bound would pass any range check), a plain Fraction's are exact
        return Fraction(int(num), int(den))
    whole = exact_integer(value)
    if whole is not None:
        return Fraction(whole)
    if isinstance(value, decimal.Decimal):
        return Fraction(value) if value.is_finite() else None
    num_i = _index(getattr(value, "numerator", None))
    den_i = _index(getattr(value, "denominator", None))
    if num_i is None or den_i is None or den_i == 0:
        return None
    return Fraction(num_i, den_i)
