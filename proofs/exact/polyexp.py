"""Piecewise exponential polynomials `Σ c·x^k·e^(a·x)` and their exact integrals.

Probabilities of shared-noise threshold tests and of noisy max are integrals over one Laplace
variable of products of Laplace densities and CDFs. With rational scales and rational counts
every factor is, on each of finitely many intervals with rational end points, a sum of terms
`c·e^(a·x)` with rational `a` and constant `c` an `ExpPoly` (`e^(rational)` times a rational).
Products keep that form; integration does not when two exponents cancel (`a = 0`): then `x`
appears as a polynomial factor, so a term is `c·x^k·e^(a·x)`.

`PolyExp` keeps such a function exactly; `antiderivative()` is closed form (for `a ≠ 0`,
`∫x^k e^(ax) = x^k e^(ax)/a - (k/a)∫x^(k-1) e^(ax)`; for `a = 0`, `x^(k+1)/(k+1)`), and
evaluation at a rational point is an `ExpPoly`: its zero test is exact and its sign certified
(`betweencut.proofs.exact.arith`). `Piecewise` glues pieces at rational break points;
`integral()` over the whole line is an exact `ExpPoly` (the pieces on the two unbounded intervals
must decay, else `ParameterError`: the integral diverges). Nothing is integrated numerically.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import lru_cache

from betweencut.errors import ParameterError
from betweencut.proofs.exact.arith import ExpPoly

__all__ = ["Piecewise", "PolyExp"]

Key = tuple[int, Fraction]  # (k, a): the term x^k·e^(a·x)
_ZERO_KEY: Key = (0, Fraction(0))


class PolyExp:
    """`f(x) = Σ c_(k,a)·x^k·e^(a·x)`: integer `k >= 0`, rational `a`, exact constants `c`."""

    __slots__ = ("terms",)

    def __init__(self, terms: Mapping[Key, ExpPoly] | None = None) -> None:
        self.terms: dict[Key, ExpPoly] = {
            (int(k), Fraction(a)): c for (k, a), c in (terms or {}).items() if not c.is_zero()
        }

    @staticmethod
    def _of(terms: dict[Key, ExpPoly]) -> PolyExp:
        """Internal: from a dict whose keys are already `(int, Fraction)` (zeros dropped)."""
        out = PolyExp.__new__(PolyExp)
        out.terms = {key: c for key, c in terms.items() if not c.is_zero()}
        return out

    @staticmethod
    def const(c: ExpPoly | Fraction | int) -> PolyExp:
        return PolyExp({_ZERO_KEY: c if isinstance(c, ExpPoly) else ExpPoly.const(c)})

    @staticmethod
    def exp(rate: Fraction | int, coeff: ExpPoly | Fraction | int = 1, power: int = 0) -> PolyExp:
        """`coeff·x^power·e^(rate·x)`."""
        c = coeff if isinstance(coeff, ExpPoly) else ExpPoly.const(coeff)
        return PolyExp({(power, Fraction(rate)): c})

    def __add__(self, other: PolyExp) -> PolyExp:
        out = dict(self.terms)
        for key, c in other.terms.items():
            out[key] = out[key] + c if key in out else c
        return PolyExp._of(out)

    def __neg__(self) -> PolyExp:
        return PolyExp._of({key: -c for key, c in self.terms.items()})

    def __sub__(self, other: PolyExp) -> PolyExp:
        return self + (-other)

    def __mul__(self, other: PolyExp) -> PolyExp:
        out: dict[Key, ExpPoly] = {}
        for (k, a), c in self.terms.items():
            for (j, b), d in other.terms.items():
                key = (k + j, a + b)
                out[key] = out[key] + c * d if key in out else c * d
        return PolyExp._of(out)

    def power(self, n: int) -> PolyExp:
        """`f^n`, `n >= 0`: a binomial expansion for at most two terms (`n + 1` terms, no
        product of long sums), repeated squaring otherwise."""
        if n < 0:
            raise ParameterError("n", n, "a power n >= 0")
        items = list(self.terms.items())
        if n == 0:
            return PolyExp.const(1)
        if len(items) <= 1:
            if not items:
                return PolyExp()
            (k, a), c = items[0]
            return PolyExp({(k * n, a * n): c**n})
        if len(items) == 2:
            ((k1, a1), c1), ((k2, a2), c2) = items
            out: dict[Key, ExpPoly] = {}
            p1 = [ExpPoly.const(1)]
            p2 = [ExpPoly.const(1)]
            for _ in range(n):
                p1.append(p1[-1] * c1)
                p2.append(p2[-1] * c2)
            for j in range(n + 1):
                key = (k1 * j + k2 * (n - j), a1 * j + a2 * (n - j))
                term = p1[j] * p2[n - j] * math.comb(n, j)
                out[key] = out[key] + term if key in out else term
            return PolyExp._of(out)
        result, base = PolyExp.const(1), self
        while n:
            if n & 1:
                result = result * base
            n >>= 1
            if n:
                base = base * base
        return result

    def is_zero(self) -> bool:
        """Exact: the functions `x^k e^(ax)` are linearly independent."""
        return not self.terms

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PolyExp):
            return NotImplemented
        return (self - other).is_zero()

    __hash__ = None  # type: ignore[assignment]

    def antiderivative(self) -> PolyExp:
        """An exact antiderivative with no constant term (so limits at ±∞ are read term-wise)."""
        out: dict[Key, ExpPoly] = {}
        for (k, a), c in self.terms.items():
            for key, d in _antiderivative_term(k, a).terms.items():
                term = d * c
                out[key] = out[key] + term if key in out else term
        return PolyExp._of(out)

    def scaled(self, c: ExpPoly) -> PolyExp:
        return PolyExp({key: d * c for key, d in self.terms.items()})

    def at(self, x: Fraction) -> ExpPoly:
        """`f(x)` for rational `x`, exactly: `c·x^k·e^(a·x)` is the `ExpPoly` `(c·x^k)·e^(ax)`."""
        x = Fraction(x)
        out: dict[Fraction, Fraction] = {}
        for (k, a), c in self.terms.items():
            for e, d in (c * ExpPoly.exp(a * x, x**k)).terms.items():
                out[e] = out[e] + d if e in out else d
        return ExpPoly(out)

    def limit(self, direction: int) -> ExpPoly:
        """`lim f(x)` as `x -> +∞` (`direction = 1`) or `-∞` (`-1`), when every term vanishes or
        is a constant; `ParameterError` when a term grows (the integral diverges)."""
        out = ExpPoly()
        for (k, a), c in self.terms.items():
            if a * direction < 0:
                continue
            if (k, a) == _ZERO_KEY:
                out = out + c
                continue
            raise ParameterError("integrand", self, f"a function decaying at {direction}·∞")
        return out

    def __str__(self) -> str:
        return " + ".join(f"({c})*x^{k}*exp({a}*x)" for (k, a), c in sorted(self.terms.items())
                          ) or "0"

    __repr__ = __str__


@lru_cache(maxsize=1 << 12)
def _antiderivative_term(k: int, a: Fraction) -> PolyExp:
    if a == 0:
        return PolyExp.exp(0, Fraction(1, k + 1), k + 1)
    out = PolyExp()
    factor = Fraction(1) / a  # x^k e^(ax)/a - (k/a)·(x^(k-1) e^(ax)/a - ...)
    for j in range(k, -1, -1):
        out = out + PolyExp.exp(a, factor, j)
        factor *= -Fraction(j) / a
    return out


class Piecewise:
    """A function equal to `pieces[i]` on `(breaks[i-1], breaks[i]]` (with `breaks[-1] = -∞`,
    `breaks[len] = +∞`); `breaks` strictly increasing rationals, `len(pieces) = len(breaks)+1`.
    A value at a break point is the left piece's (measure zero for integrals)."""

    __slots__ = ("breaks", "pieces")

    def __init__(self, breaks: Sequence[Fraction], pieces: Sequence[PolyExp]) -> None:
        self.breaks = tuple(Fraction(b) for b in breaks)
        self.pieces = tuple(pieces)
        if len(self.pieces) != len(self.breaks) + 1:
            raise ParameterError("pieces", len(self.pieces), f"{len(self.breaks) + 1} pieces")
        if any(x >= y for x, y in zip(self.breaks, self.breaks[1:], strict=False)):
            raise ParameterError("breaks", self.breaks, "strictly increasing break points")

    @staticmethod
    def const(f: PolyExp) -> Piecewise:
        return Piecewise((), (f,))

    def piece_at(self, x: Fraction) -> PolyExp:
        return self.pieces[bisect.bisect_left(self.breaks, x)]

    def __mul__(self, other: Piecewise) -> Piecewise:
        breaks = sorted(set(self.breaks) | set(other.breaks))
        # a point inside each interval decides which pieces apply there
        probes = _interior_points(breaks)
        return Piecewise(breaks, [self.piece_at(p) * other.piece_at(p) for p in probes])

    def at(self, x: Fraction) -> ExpPoly:
        return self.piece_at(Fraction(x)).at(Fraction(x))

    def power(self, n: int) -> Piecewise:
        """`f^n`, piece by piece (`PolyExp.power`)."""
        return Piecewise(self.breaks, [p.power(n) for p in self.pieces])

    def integral(self) -> ExpPoly:
        """`∫_ℝ f`, exactly: the sum over intervals of antiderivative differences."""
        total = ExpPoly()
        ends: list[Fraction | None] = [None, *self.breaks, None]
        for piece, lo, hi in zip(self.pieces, ends, ends[1:], strict=False):
            if piece.is_zero():
                continue
            prim = piece.antiderivative()
            upper = prim.limit(1) if hi is None else prim.at(hi)
            lower = prim.limit(-1) if lo is None else prim.at(lo)
            total = total + (upper - lower)
        return total


def _interior_points(breaks: Sequence[Fraction]) -> list[Fraction]:
    if not breaks:
        return [Fraction(0)]
    inner = [(x + y) / 2 for x, y in itertools.pairwise(breaks)]
    return [breaks[0] - 1, *inner, breaks[-1] + 1]
