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
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from betweencut.errors import ParameterError
from betweencut.proofs.exact.arith import ExpPoly

__all__ = ["MAX_PACKED_BITS", "Lattice", "abs_sum"]

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
        """The exact `ExpPoly` of a packed integer (balanced digits, read from the lowest)."""
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
        return ExpPoly._of_fractions(terms)

    def shift(self, eps: Fraction) -> int | None:
        """The left shift that multiplies by `e^ε`, or None if `ε·n` is not an integer `>= 0`."""
        k = Fraction(eps) * self.n
        if k.denominator != 1 or k < 0:
            return None
        return self.width * k.numerator
