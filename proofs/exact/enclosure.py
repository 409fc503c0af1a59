"""Certified real numbers known only through enclosures: the arithmetic of Gaussian laws.

Laplace laws are exact (`ExpPoly`); Gaussian ones are not (`erf`, integrals of products of
`erfc`), so their probabilities are `Enclosure`s: a real number `x` given by a function
`prec -> (lo, hi)` returning rationals with `lo <= x <= hi`, whose width shrinks as the working
precision `prec` (bits) grows. Sums, differences, products, positive parts and maxima of
enclosures are enclosures (evaluated on demand, each precision once, every bound rounded
outward); exact numbers (`Fraction`, `ExpPoly`, `ExpRational`) enter through their certified
`enclose`.

An enclosure never decides equality from its bounds: `sign()` (the hook `certified_sign` the
gate `betweencut.proofs.exact.arith.sign` calls) is the package's one sign gate
(`betweencut.numbers.exact.certified_sign`): 64, 128, ... bits up to the one precision cap, the sign
once the enclosure excludes 0 (or is the point 0), `Undecided` when it still straddles 0 at the
cap (the two sides may be equal). Two exact
facts are kept instead: a structural zero (`Enclosure.zero()`, e.g. an answer sequence whose
constraints on a shared draw are inconsistent; `is_zero()` is True only for those), and a
structural `key`: two enclosures built by the same computation from the same exact inputs
(e.g. the probability of the same answers on two databases whose queries agree) have equal
keys, hence equal values, so `x - y` is exactly 0 (`same_value`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Hashable, Iterable
from fractions import Fraction
from typing import Union

from betweencut.errors import NotYet, ParameterError
from betweencut.numbers.exact import certified_sign
from betweencut.proofs.exact.arith import ExpPoly, ExpRational

__all__ = ["GUARD_BITS", "Bounds", "Enclosure", "Operand", "exp_bounds", "positive_excess",
           "round_bounds"]

Bounds = tuple[Fraction, Fraction]
Operand = Union["Enclosure", Fraction, int, ExpPoly, ExpRational]
GUARD_BITS = 16
_ZERO = Fraction(0)


def _down(x: Fraction, bits: int) -> Fraction:
    """The largest dyadic rational `<= x` with about `bits` significant bits."""
    if x == 0:
        return x
    shift = bits - (x.numerator.bit_length() - x.denominator.bit_length())
    if shift >= 0:
        return Fraction((x.numerator << shift) // x.denominator, 1 << shift)
    return Fraction(x.numerator // (x.denominator << -shift) << -shift)


def _up(x: Fraction, bits: int) -> Fraction:
    return -_down(-x, bits)


def round_bounds(lo: Fraction, hi: Fraction, bits: int) -> Bounds:
    """`(lo, hi)` widened outward to dyadic rationals of about `bits` significant bits (keeps the
    numbers short; an enclosure stays an enclosure)."""
    return _down(lo, bits), _up(hi, bits)


def _bounds_of(x: Operand, prec: int) -> Bounds:
    if isinstance(x, Enclosure):
        return x.enclose(prec)
    if isinstance(x, int | Fraction):
        return Fraction(x), Fraction(x)
    if isinstance(x, ExpPoly | ExpRational):
        return x.enclose(prec + GUARD_BITS)
    raise ParameterError("operand", type(x).__name__,
                         "an Enclosure or an exact number (Fraction, ExpPoly, ExpRational)")


def _product(a: Bounds, b: Bounds) -> Bounds:
    corners = (a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1])
    return min(corners), max(corners)


class Enclosure:
    """A real number known through certified bounds `enclose(prec) -> (lo, hi)`.

    `label` says what the number is (shown by `Undecided` and `str`). Operations build new
    enclosures lazily; each is evaluated once per precision.
    """

    __slots__ = ("_at", "_memo", "key", "label", "structural_zero")

    def __init__(self, at: Callable[[int], Bounds], label: str = "a certified real",
                 structural_zero: bool = False, key: Hashable | None = None) -> None:
        self._at = at
        self._memo: dict[int, Bounds] = {}
        self.label = label
        self.structural_zero = structural_zero
        self.key = key

    # construction --------------------------------------------------------------------------
    @staticmethod
    def zero() -> Enclosure:
        """The number 0, known exactly (an impossible event)."""
        return Enclosure(lambda prec: (_ZERO, _ZERO), "0", structural_zero=True,
                         key=("exact", _ZERO))

    def same_value(self, other: Operand) -> bool:
        """True when both are known to be equal: equal structural keys (never from bounds)."""
        return (isinstance(other, Enclosure) and self.key is not None
                and self.key == other.key)

    @staticmethod
    def of(x: Operand) -> Enclosure:
        """An exact number (or an enclosure) as an enclosure."""
        if isinstance(x, Enclosure):
            return x
        if isinstance(x, int | Fraction | ExpPoly | ExpRational) and not isinstance(x, bool):
            zero = x == 0 if isinstance(x, int | Fraction) else x.is_zero()
            if zero:
                return Enclosure.zero()
            exact = Fraction(x) if isinstance(x, int) else x
            return Enclosure(lambda prec: _bounds_of(x, prec), str(x), key=("exact", exact))
        raise ParameterError("x", type(x).__name__, "an exact number or an Enclosure")

    @staticmethod
    def sum(items: Iterable[Operand], label: str = "a sum") -> Enclosure:
        """`Σ items` as one node (no deep chains of additions)."""
        terms = [Enclosure.of(x) for x in items]
        terms = [t for t in terms if not t.structural_zero]
        if not terms:
            return Enclosure.zero()
        if len(terms) == 1:
            return terms[0]

        def at(prec: int) -> Bounds:
            lo = hi = _ZERO
            for t in terms:
                a, b = t.enclose(prec)
                lo, hi = lo + a, hi + b
            return round_bounds(lo, hi, prec + GUARD_BITS)

        return Enclosure(at, label, key=_combined("sum", terms))

    # evaluation ------------------------------------------------------------------------------
    def enclose(self, prec: int) -> Bounds:
        """Certified rational bounds at `prec` bits (memoised per precision)."""
        found = self._memo.get(prec)
        if found is None:
            found = self._memo[prec] = self._at(prec)
        return found

    def is_zero(self) -> bool:
        """True only when the number is known to be exactly 0 (an impossible event)."""
        return self.structural_zero

    def certified_sign(self) -> int:
        """The sign, once an enclosure excludes 0 (the package's gate: 64, 128, ... bits up to
        its cap), or 0 when it is the point 0 or a structural zero.

        Raises: `Undecided` when the enclosure still contains 0 at the cap.
        """
        if self.structural_zero:
            return 0
        return certified_sign(self.enclose, lambda: f"{self.label} (the two sides may be equal)")

    sign = certified_sign

    def width(self, prec: int = 64) -> Fraction:
        lo, hi = self.enclose(prec)
        return hi - lo

    # arithmetic ------------------------------------------------------------------------------
    def _binary(self, other: Operand, op: Callable[[Bounds, Bounds], Bounds], name: str,
                kind: str = "") -> Enclosure:
        if not isinstance(other, Enclosure | int | Fraction | ExpPoly | ExpRational):
            return NotImplemented
        left = self

        def at(prec: int) -> Bounds:
            lo, hi = op(left.enclose(prec), _bounds_of(other, prec))
            return round_bounds(lo, hi, prec + GUARD_BITS)

        key = _combined(kind, [self, Enclosure.of(other)]) if kind else None
        return Enclosure(at, name, key=key)

    def __add__(self, other: Operand) -> Enclosure:
        if isinstance(other, Enclosure) and other.structural_zero:
            return self
        if self.structural_zero:
            return Enclosure.of(other)
        return self._binary(other, lambda a, b: (a[0] + b[0], a[1] + b[1]), self.label, "sum")

    __radd__ = __add__

    def __neg__(self) -> Enclosure:
        if self.structural_zero:
            return self
        inner = self
        key = None if self.key is None else ("neg", self.key)
        return Enclosure(lambda prec: (-inner.enclose(prec)[1], -inner.enclose(prec)[0]),
                         f"-({self.label})", key=key)

    def __sub__(self, other: Operand) -> Enclosure:
        if self.same_value(other):
            return Enclosure.zero()
        if isinstance(other, Enclosure):
            return self + (-other)
        return self._binary(other, lambda a, b: (a[0] - b[1], a[1] - b[0]), self.label)

    def __rsub__(self, other: Operand) -> Enclosure:
        return (-self) + other

    def __mul__(self, other: Operand) -> Enclosure:
        if self.structural_zero or (isinstance(other, Enclosure) and other.structural_zero):
            return Enclosure.zero()
        if isinstance(other, int | Fraction) and other == 0:
            return Enclosure.zero()
        if isinstance(other, ExpPoly) and other.is_zero():
            return Enclosure.zero()
        return self._binary(other, _product, self.label, "product")

    __rmul__ = __mul__

    def __truediv__(self, other: Operand) -> Enclosure:
        """`x / y` for a `y` whose enclosure excludes 0 (`NotYet` while it does not: the one
        loop climbs)."""
        if self.structural_zero:
            return self

        def quotient(a: Bounds, b: Bounds) -> Bounds:
            if b[0] <= 0 <= b[1]:
                raise NotYet(f"dividing {self.label} by an enclosure that contains 0")
            return _product(a, (1 / b[1], 1 / b[0]))

        return self._binary(other, quotient, f"({self.label}) / ...")

    def positive_part(self) -> Enclosure:
        """`max(x, 0)`: no sign is decided, the bounds are clipped."""
        if self.structural_zero:
            return self
        inner = self
        return Enclosure(lambda prec: (max(inner.enclose(prec)[0], _ZERO),
                                       max(inner.enclose(prec)[1], _ZERO)),
                         f"({self.label})_+")

    def maximum(self, other: Operand) -> Enclosure:
        """`max(x, y)`, bounds taken end point by end point (no comparison decided)."""
        if self.same_value(other) or (self.structural_zero and isinstance(other, Enclosure)
                                      and other.structural_zero):
            return self
        return self._binary(other, lambda a, b: (max(a[0], b[0]), max(a[1], b[1])),
                            f"max({self.label}, ...)")

    def minimum(self, other: Operand) -> Enclosure:
        """`min(x, y)`, bounds taken end point by end point (no comparison decided)."""
        if self.same_value(other):
            return self
        return self._binary(other, lambda a, b: (min(a[0], b[0]), min(a[1], b[1])),
                            f"min({self.label}, ...)")

    def contains(self, x: Operand, prec: int = 64) -> bool:
        """Whether the enclosure at `prec` bits contains (every point of) `x`'s enclosure."""
        lo, hi = self.enclose(prec)
        a, b = _bounds_of(x, prec)
        return lo <= a and b <= hi

    def __str__(self) -> str:
        lo, hi = self.enclose(64)
        return f"[{_show(lo)}, {_show(hi)}]"

    __repr__ = __str__


def exp_bounds(eps: Fraction) -> Callable[[int], tuple[Fraction, Fraction | None]]:
    """Bounds of `e^ε` (`ε >= 0`) at `prec` bits, each precision computed once: `(lo, hi)` up to
    `e^(prec + 64)`; past it `(lo, None)`, `lo` a lower bound of `e^(prec + 64)` (no rational
    encloses `e^ε` at the largest `ε` the parser reads, and a term `(P - e^ε·Q)_+` needs only a
    lower bound of `e^ε` for its upper end)."""
    memo: dict[int, tuple[Fraction, Fraction | None]] = {}

    def at(prec: int) -> tuple[Fraction, Fraction | None]:
        found = memo.get(prec)
        if found is None:
            near = min(eps, Fraction(prec + 64))
            lo, hi = ExpPoly.exp(near).enclose(prec + GUARD_BITS)
            found = memo[prec] = (lo, hi if near == eps else None)
        return found

    return at


def positive_excess(p: Operand, q: Operand, eps: Fraction,
                    grow: Callable[[int], tuple[Fraction, Fraction | None]] | None = None
                    ) -> Enclosure:
    """`(P - e^ε·Q)_+` for `P, Q >= 0`, `ε >= 0`, at any `ε`: on the bounds of `P`, `Q` and
    `e^ε` (`grow`, default `exp_bounds(ε)`; share one across the terms of a hockey stick), the
    upper end `(P_hi - e^ε_lo·Q_lo)_+`, the lower `(P_lo - e^ε_hi·Q_hi)_+` (0 past the bounds of
    `e^ε`); exactly 0 when `P` and `Q` are known equal."""
    p_node, q_node = Enclosure.of(p), Enclosure.of(q)
    if p_node.structural_zero or p_node.same_value(q):
        return Enclosure.zero()
    bounds = grow or exp_bounds(eps)

    def at(prec: int) -> Bounds:
        (p_lo, p_hi), (q_lo, q_hi) = p_node.enclose(prec), q_node.enclose(prec)
        e_lo, e_hi = bounds(prec)
        high = max(p_hi - e_lo * max(q_lo, _ZERO), _ZERO)
        low = _ZERO if e_hi is None else max(p_lo - e_hi * q_hi, _ZERO)
        return round_bounds(low, high, prec + GUARD_BITS)

    return Enclosure(at, f"({p_node.label} - e^{eps}·{q_node.label})_+")


def _combined(kind: str, parts: Iterable[Enclosure]) -> Hashable | None:
    """The key of a sum or a product: the multiset of its parts' keys (None if one has none)."""
    keys = [p.key for p in parts]
    if any(k is None for k in keys):
        return None
    return (kind, frozenset(Counter(keys).items()))


def _show(x: Fraction, digits: int = 12) -> str:
    """`x` in scientific notation with `digits` significant digits (display only, from exact
    integers: no float, no underflow)."""
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    x = abs(x)
    exp = len(str(x.numerator)) - len(str(x.denominator))
    scaled = x * Fraction(10) ** (digits - 1 - exp)
    while scaled >= 10**digits:
        scaled /= 10
        exp += 1
    while scaled < 10 ** (digits - 1):
        scaled *= 10
        exp -= 1
    mantissa = str(math.floor(scaled))
    return f"{sign}{mantissa[0]}.{mantissa[1:]}e{exp}"
