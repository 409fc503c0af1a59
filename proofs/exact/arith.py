"""The arithmetic under every checker: exact exponential polynomials and one comparison gate.

With a rational `λ` and rational thresholds every probability of BT (Alg. 4) is a finite sum
`Σ c_x·e^x` with rational `c_x` and rational exponents `x` (Laplace tails are `½·e^(-λ·d)`).
Such a sum is a Laurent polynomial in the single transcendental number `t = e^(1/N)`, `N` the
common denominator of the exponents, so (Hermite–Lindemann) it is zero **iff** all its combined
coefficients are zero. `ExpPoly` keeps these sums exactly; identities are checked coefficient
by coefficient, and the sign of a non-zero sum is read off certified mpmath intervals of
increasing precision, which always terminates because the value is not zero.

`ExpRational` is a quotient of two `ExpPoly`s (Lemma 5.2's witnesses divide by `ξ - 1`).

The one comparison gate is `sign(x)` (and `certainly_le`, `certainly_lt` on top): it accepts a
`Fraction`, an `ExpPoly`, an `ExpRational`, a `LogReal` or an mpmath interval, returns the exact
sign, and raises `Undecided` when (and only when) an interval straddles zero (`NotYet`: the
one loop climbs past it). Non-zero values
are signed by the package's one rising-precision gate, `betweencut.numbers.exact.certified_sign`,
with its one cap; `enclose(x, bits)` is the one certified enclosure of any exact number (sympy
closed forms included, through `betweencut.proofs.exact.symbolic`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Final, Union

from mpmath import iv

from betweencut.errors import NotYet, Undecided, shown
from betweencut.numbers.exact import (
    LogReal,
    certified_sign,
    enclosure_sign,
    iv_endpoints,
    iv_precision,
)

__all__ = [
    "ExpPoly", "ExpRational", "Number", "Undecided", "certainly_le", "certainly_lt",
    "enclose", "exact_str", "sign",
]

_ZERO = Fraction(0)


def _scaled(terms: Mapping[Fraction, Fraction], n: int) -> tuple[dict[int, int], int]:
    """`terms` as `{x·n: c·d}` with integers, and the coefficient denominator `d`."""
    d = math.lcm(*(c.denominator for c in terms.values())) if terms else 1
    return {x.numerator * (n // x.denominator): c.numerator * (d // c.denominator)
            for x, c in terms.items()}, d


def _product(left: Mapping[Fraction, Fraction], right: Mapping[Fraction, Fraction]) -> ExpPoly:
    """The product of two `ExpPoly` term maps, computed with integer keys and coefficients."""
    n = math.lcm(*(x.denominator for x in left), *(x.denominator for x in right))
    a, da = _scaled(left, n)
    b, db = _scaled(right, n)
    out: dict[int, int] = {}
    for x, c in a.items():
        for y, e in b.items():
            z = x + y
            out[z] = out.get(z, 0) + c * e
    den = da * db
    result = ExpPoly.__new__(ExpPoly)
    result.terms = {Fraction(z, n): Fraction(v, den) for z, v in out.items() if v}
    return result


LN2_ABOVE: Final = Fraction(7, 10)  # > ln 2: e^x <= 2^-k whenever x <= -(7/10)·k
DEEP_BITS: Final = 1 << 16  # terms below e^-(this + 4·prec) are far: they set no precision
SHIFT_ABOVE: Final = 64  # |largest exponent| past which a sign is read off e^(-top)·x
LARGEST_EXPONENT: Final = 1 << 16  # e^x past this is not enclosed by rationals (~94,000 bits)


@functools.lru_cache(maxsize=1 << 16)
def _exp_fixed(num: int, den: int, bits: int) -> tuple[int, int]:
    """Integers `lo <= e^(num/den)·2^bits <= hi`, from a certified mpmath interval; `(0, 1)`
    without computing when `e^x <= 2^-bits` (`x <= -(7/10)·bits`, as `7/10 > ln 2`)."""
    x = Fraction(num, den)
    if x <= -LN2_ABOVE * bits:
        return 0, 1
    work = bits + 32 + (math.ceil(x * 2) if x > 0 else 0)  # relative precision for e^x·2^bits
    with iv_precision(work):
        lo, hi = iv_endpoints(iv.exp(iv.mpf(num) / den))
    return math.floor(lo * (1 << bits)), math.ceil(hi * (1 << bits))


class ExpPoly:
    """`Σ coeff[x]·e^x` over finitely many rational exponents `x`, with rational coefficients."""

    __slots__ = ("terms",)

    def __init__(self, terms: Mapping[Fraction, Fraction] | None = None) -> None:
        self.terms: dict[Fraction, Fraction] = {
            Fraction(x): Fraction(c) for x, c in (terms or {}).items() if c != 0
        }

    @staticmethod
    def of_fractions(terms: dict[Fraction, Fraction]) -> ExpPoly:
        """Build from a dict whose keys and values are already `Fraction`s (no conversion;
        zero coefficients dropped): the fast constructor for exact arithmetic code."""
        out = ExpPoly.__new__(ExpPoly)
        out.terms = {x: c for x, c in terms.items() if c}
        return out

    @staticmethod
    def const(c: Fraction | int) -> ExpPoly:
        return ExpPoly.of_fractions({_ZERO: Fraction(c)})

    @staticmethod
    def exp(x: Fraction | int, coeff: Fraction | int = 1) -> ExpPoly:
        """`coeff·e^x` for rational `x`."""
        return ExpPoly({Fraction(x): Fraction(coeff)})

    # arithmetic ------------------------------------------------------------------------------
    def _coerce(self, other: object) -> ExpPoly | None:
        if isinstance(other, ExpPoly):
            return other
        if isinstance(other, int | Fraction):
            return ExpPoly.const(other)
        return None

    def __add__(self, other: ExpPoly | Fraction | int) -> ExpPoly:
        o = self._coerce(other)
        if o is None:  # e.g. an ExpRational: let it handle the mixed sum
            return NotImplemented
        out = dict(self.terms)
        for x, c in o.terms.items():
            out[x] = out[x] + c if x in out else c
        return ExpPoly.of_fractions(out)

    __radd__ = __add__

    def __neg__(self) -> ExpPoly:
        return ExpPoly.of_fractions({x: -c for x, c in self.terms.items()})

    def __sub__(self, other: ExpPoly | Fraction | int) -> ExpPoly:
        o = self._coerce(other)
        if o is None:
            return NotImplemented
        return self + (-o)

    def __rsub__(self, other: Fraction | int) -> ExpPoly:
        return (-self) + other

    def __mul__(self, other: ExpPoly | Fraction | int) -> ExpPoly:
        o = self._coerce(other)
        if o is None:
            return NotImplemented
        if len(o.terms) == 1 and o.terms.get(_ZERO) == 1:
            return self
        if len(self.terms) == 1 and self.terms.get(_ZERO) == 1:
            return o
        if len(self.terms) * len(o.terms) <= 64:
            out: dict[Fraction, Fraction] = {}
            for x, c in self.terms.items():
                for y, d in o.terms.items():
                    z = x + y
                    out[z] = out[z] + c * d if z in out else c * d
            return ExpPoly.of_fractions(out)
        return _product(self.terms, o.terms)

    __rmul__ = __mul__

    def __truediv__(self, other: ExpPoly | ExpRational | Fraction | int) -> ExpRational:
        return ExpRational(self) / other

    def __rtruediv__(self, other: Fraction | int) -> ExpRational:
        return ExpRational(ExpPoly.const(other)) / self

    def __pow__(self, n: int) -> ExpPoly:
        if n < 0:
            raise ValueError("ExpPoly ** n needs n >= 0 (divide to get an ExpRational)")
        out, base = ExpPoly.const(1), self
        while n:
            if n & 1:
                out = out * base
            base, n = base * base, n >> 1
        return out

    # exact facts -----------------------------------------------------------------------------
    def is_zero(self) -> bool:
        """Exact: `e^(1/N)` is transcendental, so the sum vanishes iff every coefficient does."""
        return not self.terms

    def __eq__(self, other: object) -> bool:
        o = self._coerce(other)
        if o is None:
            return NotImplemented
        return self.terms == o.terms  # canonical: Fraction keys, no zero coefficients

    def __hash__(self) -> int:
        return hash(frozenset(self.terms.items()))

    def rational_value(self) -> Fraction | None:
        """The value if it is rational (only the exponent 0 occurs), else None."""
        if not self.terms:
            return Fraction(0)
        if set(self.terms) == {Fraction(0)}:
            return self.terms[Fraction(0)]
        return None

    def enclose(self, prec: int) -> tuple[Fraction, Fraction]:
        """Certified rational bounds at `prec` bits.

        Fixed point: each `e^x` is enclosed by integers `lo <= e^x·2^k <= hi` (certified mpmath
        intervals, cached), `k = prec` plus enough bits for the smallest term that is not far
        (above `e^-(DEEP_BITS + 4·prec)`; a term below `2^-k` is enclosed by `[0, 2^-k]`
        uncomputed); the sum is then exact integer arithmetic.
        Raises: `Undecided` when a term passes `e^LARGEST_EXPONENT` (no rational enclosure of
        such a number is affordable; `sign` and logarithms scale by the largest term first).
        """
        if not self.terms:
            return Fraction(0), Fraction(0)
        smallest, top = min(self.terms), max(self.terms)
        if top > LARGEST_EXPONENT:
            raise Undecided(f"a number of about e^{shown(top)} is too large to enclose by "
                            "rationals")
        far = -(DEEP_BITS + 4 * prec)
        deep = -smallest if smallest >= far else -min((x for x in self.terms if x >= far),
                                                      default=_ZERO)
        bits = prec + (math.ceil(deep * Fraction(3, 2)) if deep > 0 else 0)
        den = math.lcm(*(c.denominator for c in self.terms.values()))
        low = high = 0
        for x, c in self.terms.items():
            e_lo, e_hi = _exp_fixed(x.numerator, x.denominator, bits)
            k = c.numerator * (den // c.denominator)
            if k > 0:
                low, high = low + k * e_lo, high + k * e_hi
            else:
                low, high = low + k * e_hi, high + k * e_lo
        scale = den << bits
        return Fraction(low, scale), Fraction(high, scale)

    def sign(self) -> int:
        """The exact sign: 0 iff zero (exact), else certified by intervals (of `e^(-top)·x`,
        `top` the largest exponent, when it is far from 0: the same sign, any magnitude)."""
        value = self.rational_value()
        if value is not None:
            return (value > 0) - (value < 0)
        return certified_sign(self.scaled()[0].enclose, self.__str__)

    def scaled(self) -> tuple[ExpPoly, Fraction]:
        """`(y, s)` with `x = e^s·y`: `s` the largest exponent when it passes `SHIFT_ABOVE` in
        size (then the largest term of `y` is `c·e^0`), else `s = 0`, `y = x`."""
        if not self.terms:
            return self, _ZERO
        top = max(self.terms)
        if abs(top) <= SHIFT_ABOVE:
            return self, _ZERO
        return ExpPoly.of_fractions({x - top: c for x, c in self.terms.items()}), top

    def __str__(self) -> str:
        if not self.terms:
            return "0"
        parts = []
        for x in sorted(self.terms):
            c = self.terms[x]
            parts.append(f"({c})" if x == 0 else f"({c})*exp({x})")
        return " + ".join(parts)

    __repr__ = __str__


class ExpRational:
    """`num / den` with `ExpPoly` parts, `den ≠ 0` (checked exactly)."""

    __slots__ = ("den", "num")

    def __init__(self, num: ExpPoly, den: ExpPoly | None = None) -> None:
        den = den if den is not None else ExpPoly.const(1)
        if den.is_zero():
            raise ZeroDivisionError("ExpRational with a zero denominator")
        self.num, self.den = num, den

    @staticmethod
    def of(x: ExpRational | ExpPoly | Fraction | int) -> ExpRational:
        if isinstance(x, ExpRational):
            return x
        if isinstance(x, ExpPoly):
            return ExpRational(x)
        return ExpRational(ExpPoly.const(x))

    def __add__(self, other: ExpRational | ExpPoly | Fraction | int) -> ExpRational:
        o = ExpRational.of(other)
        if o.den == self.den:
            return ExpRational(self.num + o.num, self.den)
        return ExpRational(self.num * o.den + o.num * self.den, self.den * o.den)

    __radd__ = __add__

    def __neg__(self) -> ExpRational:
        return ExpRational(-self.num, self.den)

    def __sub__(self, other: ExpRational | ExpPoly | Fraction | int) -> ExpRational:
        return self + (-ExpRational.of(other))

    def __rsub__(self, other: ExpPoly | Fraction | int) -> ExpRational:
        return (-self) + other

    def __mul__(self, other: ExpRational | ExpPoly | Fraction | int) -> ExpRational:
        o = ExpRational.of(other)
        return _quotient(self.num, o.num, self.den, o.den)

    __rmul__ = __mul__

    def __truediv__(self, other: ExpRational | ExpPoly | Fraction | int) -> ExpRational:
        o = ExpRational.of(other)
        if o.num.is_zero():
            raise ZeroDivisionError("division by an exactly zero ExpRational")
        return _quotient(self.num, o.den, self.den, o.num)

    def __rtruediv__(self, other: ExpPoly | Fraction | int) -> ExpRational:
        return ExpRational.of(other) / self

    def __pow__(self, n: int) -> ExpRational:
        if n >= 0:
            return ExpRational(self.num**n, self.den**n)
        return ExpRational(self.den ** (-n), self.num ** (-n))

    def is_zero(self) -> bool:
        return self.num.is_zero()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ExpRational | ExpPoly | Fraction | int):
            return NotImplemented
        return (self - ExpRational.of(other)).is_zero()

    def __hash__(self) -> int:
        return hash((self.num, self.den))

    def sign(self) -> int:
        if self.num.is_zero():
            return 0
        return self.num.sign() * self.den.sign()

    def enclose(self, prec: int) -> tuple[Fraction, Fraction]:
        nlo, nhi = self.num.enclose(prec)
        dlo, dhi = self.den.enclose(prec)
        if dlo <= 0 <= dhi:
            raise NotYet(f"denominator of {self} straddles 0 at {prec} bits")
        quotients = [nlo / dlo, nlo / dhi, nhi / dlo, nhi / dhi]
        return min(quotients), max(quotients)

    def __str__(self) -> str:
        return f"({self.num}) / ({self.den})"

    def text(self) -> str:
        """The value as a reader meets it, sympy-readable: a one-term denominator `c*exp(x)`
        divided out exactly, so no `(...) / ((1))` and no `((2/5)) / ((1/2)*exp(-1))` (issue 36
        item 7); `str` keeps the stored `(num) / (den)` form that pinned texts record."""
        if len(self.den.terms) == 1:
            ((x, c),) = self.den.terms.items()
            return str(self.num * ExpPoly.exp(-x, 1 / c))
        return str(self)

    __repr__ = __str__


_ONE = ExpPoly.const(1)


def _quotient(a: ExpPoly, c: ExpPoly, b: ExpPoly, d: ExpPoly) -> ExpRational:
    """`(a·c)/(b·d)`, first cancelling a numerator factor equal to a denominator factor."""
    if a.terms == b.terms:
        a = b = _ONE
    elif a.terms == d.terms:
        a = d = _ONE
    if c.terms == b.terms:
        c = b = _ONE
    elif c.terms == d.terms:
        c = d = _ONE
    return ExpRational(a * c, b * d)


Number = Union[Fraction, int, ExpPoly, ExpRational, LogReal]  # noqa: UP007


def sign(x: object) -> int:
    """The one comparison gate: the exact sign of `x`, or `Undecided`.

    Fractions and ints are compared exactly; `ExpPoly`, `ExpRational` and `LogReal` are decided
    exactly (zero symbolically, non-zero by certified intervals); an mpmath interval (`iv.mpf`)
    gives its sign only when it excludes 0 (or is the point 0) and raises `Undecided` otherwise,
    and so does an `Enclosure` (`certified_sign`, at rising precision).
    Floats are refused.
    """
    if isinstance(x, bool | float):
        raise TypeError(f"no float decides a verdict: got {x!r}")
    if isinstance(x, int | Fraction):
        return (x > 0) - (x < 0)
    if isinstance(x, ExpPoly | ExpRational | LogReal):
        return x.sign()
    certified = getattr(x, "certified_sign", None)  # an `enclosure.Enclosure` (Gaussian laws)
    if certified is not None:
        return int(certified())
    if getattr(x, "_mpi_", None) is not None:
        lo, hi = iv_endpoints(x)
        decided = enclosure_sign(lo, hi)
        if decided is not None:
            return decided
        raise NotYet(f"interval [{lo}, {hi}] contains 0: raise the precision")
    raise TypeError(f"sign() does not know {type(x).__name__}")


def _difference(x: object, y: object) -> object:
    if isinstance(x, LogReal) and isinstance(y, int | Fraction | LogReal):
        return x - y
    if isinstance(y, LogReal) and isinstance(x, int | Fraction):
        return -(y - x)
    return x - y  # type: ignore[operator]


def certainly_le(x: object, y: object) -> bool:
    """`x <= y`, decided exactly or by certified intervals; raises `Undecided` otherwise."""
    return sign(_difference(x, y)) <= 0


def certainly_lt(x: object, y: object) -> bool:
    """`x < y`, decided exactly or by certified intervals; raises `Undecided` otherwise."""
    return sign(_difference(x, y)) < 0


def enclose(x: Number | Any, prec: int = 64) -> tuple[Fraction, Fraction]:
    """Certified rational bounds `lo <= x <= hi` of an exact number at `prec` bits: a rational,
    `LogReal`, `ExpPoly`, `ExpRational`, any number that encloses itself (`x.enclose(prec)`:
    an `enclosure.Enclosure`, a depth `ExactValue`), or a closed sympy expression
    (`symbolic.sympy_interval` evaluates it in mpmath `iv`, rounding outward). The one
    `enclose` of the package."""
    if isinstance(x, bool | float):
        raise TypeError(f"no float is enclosed as if it were exact: got {x!r}")
    if isinstance(x, int | Fraction):
        return Fraction(x), Fraction(x)
    if isinstance(x, LogReal):
        return x.bounds(prec)
    if isinstance(x, ExpPoly | ExpRational):
        return x.enclose(prec)
    own = getattr(x, "enclose", None)
    if callable(own):
        return own(prec)  # type: ignore[no-any-return]
    from betweencut.proofs.exact.symbolic import sympy_interval  # sympy only when asked

    with iv_precision(prec):
        return iv_endpoints(sympy_interval(x))


def exact_str(x: Number) -> str:
    """The exact form as text (sympy-readable for ExpPoly: `exp(x)` terms)."""
    if isinstance(x, LogReal):
        return x.exact_str()
    return str(x)
