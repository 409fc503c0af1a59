"""Exact exponential polynomials on one lattice, packed into a single Python integer.

Every probability the enumeration produces is an `ExpPoly` whose exponents are multiples of
`1/n` and whose coefficients are multiples of `1/den`: a Laurent polynomial in the one
transcendental number `t = e^(1/n)` (see `betweencut.proofs.exact.arith`). Write its integer digits
`d_k = den·c_(k/n)`; if every digit satisfies `|d_k| < 2^(w-1)` the integer

    X = Σ_k d_k · 2^(w·(k - low))

determines the polynomial uniquely (balanced digits, read back by `decode`). Adding such
integers adds the polynomials, as long as every digit of the sum still satisfies the bound, and
multiplying by `e^(j/n)`, `j >= 0`, is a left shift by `j·w` bits. So summing the probabilities
of thousands of answer sequences costs one big-integer addition each, and an exact identity such
as `P(o) = e^ε·Q(o)` is one integer comparison. Nothing here is approximate: `encode` refuses a
value that does not fit the lattice, never rounds it.

The caller owns the digit bound: `Lattice.of` is given the largest sum of absolute coefficients
that any packed value (including a difference) may reach. A lattice is only worth packing while
its integers stay small: `reaches(x)` says whether exponents up to `x` fit in `MAX_PACKED_BITS`
(a rate such as `λ = 0.999999999999999999999999` puts 10^24 grid steps below `e^0`); callers
compute without packing otherwise.

Products are packed too (Kronecker substitution: the product of two packed integers is the
packed product, as long as no digit overflows). `Packer` packs a product of factors (a "bag" of
factor ids, each an `ExpPoly` given by `value_of`) by multiplying packed factors, widening its
lattice when a new bag needs it. `mul_round_up(a, b, bits)` multiplies two polynomials with
non-negative integer coefficients given as lists in one big-integer product and rounds every
coefficient of the result, divided by `2^bits`, up (a pessimistic, certified rounding).

Assumes: `Lattice` values are exponential polynomials whose exponents and coefficients lie on
its grid (`encode` refuses others); `mul_round_up` takes non-negative integer coefficients. The
tests compare every packed result with exact `ExpPoly` / integer arithmetic.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final, cast

from betweencut.errors import ParameterError
from betweencut.proofs.exact.arith import ExpPoly

__all__ = ["BIG_PRODUCT_BITS", "MAX_PACKED_BITS", "FactorShape", "Lattice", "Packer", "abs_sum",
           "big_product", "mul_round_up"]

MAX_PACKED_BITS: Final = 1 << 24  # 2 MB per packed value; the test suite's largest is ~12,000


def abs_sum(p: ExpPoly) -> Fraction:
    """`Σ |c_x|`: bounds every digit of `p` and of any sum it enters (triangle inequality)."""
    return sum((abs(c) for c in p.terms.values()), Fraction(0))


@dataclass(frozen=True)
class Lattice:
    """Exponents `k/n` with `k >= low`, coefficients in `(1/den)·Z`, digits of `width` bits."""

    n: int
    den: int
    low: int
    width: int

    @staticmethod
    def of(n: int, den: int, low: Fraction, bound: Fraction) -> Lattice:
        """Exponents multiples of `1/n` from `low` up, coefficients in `(1/den)·Z`, and digits
        up to `bound` (a bound on `Σ |c_x|` of any value packed or formed) in absolute value."""
        if n < 1 or den < 1 or bound < 0:
            raise ParameterError("lattice", (n, den, bound), "n >= 1, den >= 1, bound >= 0")
        return Lattice(n, den, math.floor(low * n), math.ceil(bound * den).bit_length() + 2)

    def reaches(self, top: Fraction | int) -> bool:
        """Whether exponents from `low/n` up to `top` pack into at most `MAX_PACKED_BITS` bits."""
        return self.width * (math.ceil(top * self.n) - self.low + 1) <= MAX_PACKED_BITS

    def encode(self, p: ExpPoly) -> int:
        """`p` as one integer; `ParameterError` if `p` is not on the lattice (an exponent off
        the grid or below `low`, a coefficient off `1/den`, or a digit too wide)."""
        out = 0
        for x, c in p.terms.items():
            k, d = x * self.n, c * self.den
            if (k.denominator != 1 or d.denominator != 1 or k < self.low
                    or abs(d.numerator).bit_length() >= self.width):
                raise ParameterError("value", str(p), f"an exponential polynomial on {self}")
            out += d.numerator << (self.width * (k.numerator - self.low))
        return out

    def decode(self, packed: int) -> ExpPoly:
        """The exact `ExpPoly` of a packed integer (its balanced digits), in time linear in its
        bits: adding `2^(w-1)` to every digit place makes every digit non-negative, so the
        digits are `w`-bit slices of one binary text, less `2^(w-1)` each. The same digits as
        `decode_digitwise`, which the tests compare it with."""
        if not packed:
            return ExpPoly()
        w, half = self.width, 1 << (self.width - 1)
        # |packed| < 2^(w·places - w - 1) and the offset lies in [2^(w·places-1), 2/3·2^(w·places)]
        # (w >= 2), so 0 < shifted < 2^(w·places): `places` digits hold it
        places = packed.bit_length() // w + 2
        shifted = packed + int(("1" + "0" * (w - 1)) * places, 2)
        text = format(shifted, "b").zfill(w * places)
        terms: dict[Fraction, Fraction] = {}
        end = len(text)
        for k in range(self.low, self.low + places):
            digit = int(text[end - w:end], 2) - half
            if digit:
                terms[Fraction(k, self.n)] = Fraction(digit, self.den)
            end -= w
        return ExpPoly.of_fractions(terms)

    def decode_digitwise(self, packed: int) -> ExpPoly:
        """`decode` one digit at a time (each a shift of what is left: quadratic in the bits);
        the reference `decode` is tested against."""
        terms: dict[Fraction, Fraction] = {}
        mask, half, full = (1 << self.width) - 1, 1 << (self.width - 1), 1 << self.width
        k = self.low
        while packed:
            digit = packed & mask
            if digit >= half:
                digit -= full
            if digit:
                terms[Fraction(k, self.n)] = Fraction(digit, self.den)
            packed = (packed - digit) >> self.width
            k += 1
        return ExpPoly.of_fractions(terms)

    def shift(self, eps: Fraction) -> int | None:
        """The left shift that multiplies by `e^ε`, or None if `ε·n` is not an integer `>= 0`."""
        k = Fraction(eps) * self.n
        if k.denominator != 1 or k < 0:
            return None
        return self.width * k.numerator


@dataclass(frozen=True)
class FactorShape:
    """One factor as an integer polynomial: `den·f = Σ d_k·t^k` with `t = e^(1/n)`,
    `k >= low·n`; `size = Σ |d_k|` bounds the digits of any product with it."""

    value: ExpPoly
    n: int
    den: int
    low: Fraction
    size: int

    @staticmethod
    def of(value: ExpPoly) -> FactorShape:
        terms = value.terms
        n = math.lcm(*(x.denominator for x in terms))
        den = math.lcm(*(c.denominator for c in terms.values()))
        return FactorShape(value, n, den, min(terms), int(abs_sum(value) * den))


Bag = tuple[int, ...]  # a multiset of factor ids, as a sorted tuple


class Packer:
    """The value of each bag of factors (`Π value_of(f)`) as one integer on a `Lattice`, by
    multiplying the packed factors (Kronecker substitution, no digit overflows: the width
    guarantees it). Widened when a new bag does not fit (`admit`); every value packed before
    is then packed again (`version` changes). `unit`: every `ε` asked is a multiple of it, so
    its `e^ε` must be a shift."""

    def __init__(self, unit: Fraction, value_of: Callable[[int], ExpPoly]) -> None:
        self.value_of = value_of
        self.n, self.den, self.low = Fraction(unit).denominator, 1, Fraction(0)
        self.transcripts, self.max_abs = 1, Fraction(0)
        self.lattice = self._lattice()
        self.version = 0
        self._shapes: dict[int, FactorShape] = {}
        self._bags: dict[Bag, tuple[int, Fraction]] = {}  # bag -> (Π den_f, Σ low_f)
        self._packed: dict[Bag, int] = {}
        self._factors: dict[int, int] = {}

    def _lattice(self) -> Lattice:
        # a bag's digits (and those of its partial products) are at most den·Π size_f/den_f;
        # a packed value is a sum over `transcripts` of them, or P(S) - e^ε Q(S)
        return Lattice.of(self.n, self.den, self.low, 2 * self.transcripts * self.max_abs)

    def shape(self, factor: int) -> FactorShape:
        found = self._shapes.get(factor)
        if found is None:
            found = self._shapes[factor] = FactorShape.of(self.value_of(factor))
        return found

    def admit(self, bags: Iterable[Bag], transcripts: int) -> None:
        """Make the lattice hold every value of `bags` and sums over `transcripts` of them."""
        self.transcripts = max(self.transcripts, transcripts)
        for bag in bags:
            if bag in self._bags:
                continue
            den, low, size = 1, Fraction(0), 1
            for f in bag:
                shape = self.shape(f)
                den, low, size = den * shape.den, low + shape.low, size * shape.size
                self.n = math.lcm(self.n, shape.n)
            self._bags[bag] = (den, low)
            self.den, self.low = math.lcm(self.den, den), min(self.low, low)
            self.max_abs = max(self.max_abs, Fraction(size, den))
        lattice = self._lattice()
        if lattice != self.lattice:
            self.lattice, self.version = lattice, self.version + 1
            self._packed.clear()
            self._factors.clear()

    def _factor(self, factor: int) -> int:
        """`den_f·f` packed from its own lowest exponent (digits need no common denominator)."""
        found = self._factors.get(factor)
        if found is None:
            shape, lat = self.shape(factor), self.lattice
            found = 0
            for x, c in shape.value.terms.items():
                k = (x - shape.low) * lat.n
                found += (c * shape.den).numerator << (lat.width * k.numerator)
            self._factors[factor] = found
        return found

    def pack(self, bag: Bag) -> int:
        """`lattice.encode(Π value_of(f) for f in bag)`, as a product of packed factors (the bag
        must have been admitted)."""
        found = self._packed.get(bag)
        if found is None:
            den, low = self._bags[bag]
            lat = self.lattice
            product = big_product([self._factor(f) for f in bag])
            shift = lat.width * ((low * lat.n).numerator - lat.low)
            found = self._packed[bag] = (product * (lat.den // den)) << shift
        return found


BIG_PRODUCT_BITS: Final = 1 << 16  # past this many bits in all, products go through GMP


def big_product(values: Sequence[int]) -> int:
    """`Π values`, exactly. Past `BIG_PRODUCT_BITS` bits in all, through GMP's multiplication
    (gmpy2's `mpz`, else python-flint's `fmpz`, when installed: FFT products, about 30 times
    faster than Python's Karatsuba on million-bit factors); the same integer either way (the
    tests compare them)."""
    if sum(v.bit_length() for v in values) <= BIG_PRODUCT_BITS:
        return math.prod(values)
    big = _gmp_integer()
    if big is None:
        return math.prod(values)
    out = big(1)
    for v in values:
        out *= big(v)
    return int(out)


@functools.cache
def _gmp_integer() -> Callable[[int], Any] | None:
    try:
        from gmpy2 import mpz
    except ImportError:
        try:
            from flint import fmpz
        except ImportError:
            return None
        return cast(Callable[[int], Any], fmpz)
    return cast(Callable[[int], Any], mpz)


def _pack_digits(coeffs: Sequence[int], slot: int) -> int:
    return int.from_bytes(b"".join(c.to_bytes(slot, "little") for c in coeffs), "little")


def _unpack_digits(x: int, slot: int, n: int) -> list[int]:
    raw = x.to_bytes(slot * n, "little")
    return [int.from_bytes(raw[i * slot:(i + 1) * slot], "little") for i in range(n)]


def mul_round_up(a: list[int], b: list[int], bits: int) -> list[int]:
    """`ceil(c / 2^bits)` for every coefficient `c` of the product of the polynomials with
    non-negative integer coefficient lists `a`, `b` (Kronecker substitution: one big-integer
    product, in byte slots wide enough that no coefficient overflows into the next)."""
    if min(a, default=0) < 0 or min(b, default=0) < 0:
        raise ParameterError("coefficients", min(min(a), min(b)), "non-negative integers")
    n = len(a) + len(b) - 1
    top = max(max(a), max(b)).bit_length()
    slot = (2 * top + min(len(a), len(b)).bit_length() + 8) // 8 + 1
    prod = _unpack_digits(big_product([_pack_digits(a, slot), _pack_digits(b, slot)]), slot, n)
    mask = (1 << bits) - 1
    return [(c >> bits) + (1 if c & mask else 0) for c in prod]
