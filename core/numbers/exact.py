"""Exact numbers for public parameters: rationals read without floats, and `a + b·ln(c)`; and
the one place where the package raises an interval precision.

Calibration (Theorem 5.5, Eq. (23)) makes `R = 1 + (r/ε)·ln(L/δ)` irrational. betweencut keeps
such a number as a `LogReal` (rationals `a`, `b`, `c`) and decides every comparison against a
rational exactly: the sign of `a + b·ln(c)` is read off certified mpmath intervals of increasing
precision, and the only case intervals cannot settle (the value is exactly zero) is recognised
symbolically: `ln(c)` is irrational for rational `c ≠ 1` (Hermite–Lindemann), so `a + b·ln(c) = 0`
with `b ≠ 0, c ≠ 1` is impossible. No float ever decides a comparison.

Precision, for the whole package (core and proofs alike; core needs it, so it lives here):

* `iv_precision(bits)`: the one precision context (mpmath's `iv.prec` is global);
* `refine(step)`: the one rising-precision loop, `step(bits)` at 64, 128, ... bits up to the one
  cap `MAX_PRECISION_BITS`; the first answer it gives is returned, else `Undecided`; a step
  that cannot answer yet (None, or `NotYet` raised by any enclosure inside it) climbs;
* `certified_sign(enclose)`: the one sign gate on it, deciding by `enclosure_sign` (an enclosure
  decides a sign only when it excludes 0, or is the point 0) and never by a float.
"""

from __future__ import annotations

import math
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final, TypeVar

from mpmath import iv
from mpmath.libmp import to_rational

from betweencut.errors import NotYet, ParameterError, Undecided
from betweencut.interop import HOW_TO_PASS_EXACTLY, exact_rational, is_inexact
from betweencut.numbers.exact_text import read_rational

MAX_PRECISION_BITS: Final = 1 << 14  # the one precision cap of the package
START_BITS: Final = 64
_IV_LOCK = threading.RLock()
T = TypeVar("T")


@contextmanager
def iv_precision(prec: int) -> Iterator[None]:
    """Run the block with mpmath's interval precision `iv.prec = prec` (bits), restored after.

    `iv.prec` is global: every module of betweencut sets it only through this, one thread at a
    time (the lock is re-entrant, so nested blocks are fine). Raises `ParameterError` unless
    `prec` is an integer number of bits `>= 16`.
    """
    if not isinstance(prec, int) or isinstance(prec, bool) or prec < 16:
        raise ParameterError("prec", prec, "an integer number of bits >= 16")
    with _IV_LOCK:
        saved = iv.prec
        iv.prec = prec
        try:
            yield
        finally:
            iv.prec = saved


def refine(step: Callable[[int], T | None], describe: Callable[[], str],
           start: int = START_BITS) -> tuple[T, int]:
    """The one rising-precision loop: `step(bits)` at `start`, `2·start`, ... bits up to
    `MAX_PRECISION_BITS`; returns the first answer that is not None and the bits it took.

    A step that returns None, or raises `NotYet` (an enclosure that cannot answer at `bits`,
    however deep in the step), is asked again at twice the bits: no exception cuts the climb
    short. Any other exception, an inner loop's `Undecided` at the cap included, propagates.
    Raises: `Undecided` (naming `describe()`) when no precision up to the cap gives an answer.
    """
    prec = start
    while prec <= MAX_PRECISION_BITS:
        try:
            found = step(prec)
        except NotYet:  # an enclosure that cannot answer at this precision: climb
            found = None
        if found is not None:
            return found, prec
        prec *= 2
    raise Undecided(f"{describe()}: not decided at {MAX_PRECISION_BITS} bits")


def enclosure_sign(lo: Fraction, hi: Fraction) -> int | None:
    """The sign of every number in `[lo, hi]` when they share one (1, -1, or 0 for the point 0),
    else None."""
    if lo > 0:
        return 1
    if hi < 0:
        return -1
    if lo == hi == 0:
        return 0
    return None


def midpoint_float(lo: Fraction, hi: Fraction) -> float:
    """A float near the numbers of `[lo, hi]`, for display, JSON and search steering only (it
    never decides): the midpoint rounded to nearest, the largest double in size past the
    double range (JSON has no infinity; an exact form always goes beside it), 0.0 below it."""
    mid = (lo + hi) / 2
    try:
        return float(mid)
    except OverflowError:
        return sys.float_info.max if mid > 0 else -sys.float_info.max


def certified_sign(enclose: Callable[[int], tuple[Fraction, Fraction]],
                   describe: Callable[[], str], start: int = START_BITS) -> int:
    """The one sign gate: the sign of a number from its certified rational enclosures
    `enclose(bits)` at rising precision (`refine`); raises `Undecided` at the cap.

    Intervals alone decide `= 0` only when they shrink to the point 0: a caller whose number
    may be exactly zero settles that case exactly first (else it meets `Undecided`).
    """
    return refine(lambda prec: enclosure_sign(*enclose(prec)),
                  lambda: f"the sign of {describe()}", start)[0]


def as_rational(value: object, name: str) -> Fraction:
    """Read `value` as an exact rational `Fraction` (with Python `int` parts).

    Accepted: an int, a Fraction, a string such as `"0.1"`, `"1/3"` or `"1e-3"` (parsed exactly
    by `betweencut.numbers.exact_text`, bounded before it is built: `"0.1"` is 1/10), and every
    exact integer or rational of another library (numpy integers, gmpy2 `mpz`/`mpq`, python-flint
    `fmpz`/`fmpq`, sympy `Integer`/`Rational`, finite `Decimal`; see `betweencut.interop`),
    converted here so that no foreign number type travels further. Floats of any library are
    refused: `0.1` as a float is not 1/10, and a DP parameter must mean what the user wrote.
    """
    if isinstance(value, str):
        return read_rational(value, name)  # one bounded grammar, never Fraction(text) or eval
    if is_inexact(value):
        raise ParameterError(
            name, value, HOW_TO_PASS_EXACTLY,
            f"a {type(value).__name__} is not read, it would change the value silently",
        )
    exact = exact_rational(value)
    if exact is None:
        raise ParameterError(name, repr(value), "a rational number (an int, a Fraction, a string "
                             "or an exact integer/rational of numpy, gmpy2, python-flint or sympy)")
    return exact


def mpf_fraction(raw: Any) -> Fraction:
    """The exact value of one mpmath number (an `mpf`, or its raw `_mpf_` tuple) as a
    `Fraction` with Python `int` parts.

    The one place where mpmath endpoints become rationals: under mpmath's gmpy backend
    `to_rational` hands back gmpy2 `mpz`, which must not leak into `Fraction` arithmetic.
    """
    p, q = to_rational(getattr(raw, "_mpf_", raw))
    return Fraction(int(p), int(q))


def iv_endpoints(value: Any) -> tuple[Fraction, Fraction]:
    """The exact rational end points `(lo, hi)` of an mpmath interval `iv.mpf`: the one place
    where a certified interval becomes two rationals (through `mpf_fraction`)."""
    lo_raw, hi_raw = value._mpi_
    return mpf_fraction(lo_raw), mpf_fraction(hi_raw)


def interval_bounds(
    const: Fraction, coeff: Fraction, arg: Fraction, prec: int
) -> tuple[Fraction, Fraction]:
    """Certified rational bounds `lo <= const + coeff·ln(arg) <= hi` at `prec` bits."""
    with iv_precision(prec):
        value = iv.mpf(const.numerator) / const.denominator + (
            iv.mpf(coeff.numerator) / coeff.denominator
        ) * iv.log(iv.mpf(arg.numerator) / arg.denominator)
    return iv_endpoints(value)


@dataclass(frozen=True, slots=True)
class LogReal:
    """The real number `const + coeff·ln(arg)` with rational `const`, `coeff` and `arg > 0`."""

    const: Fraction
    coeff: Fraction = Fraction(0)
    arg: Fraction = Fraction(1)

    def __post_init__(self) -> None:
        if self.arg <= 0:
            raise ParameterError("arg", self.arg, "a positive rational (argument of ln)")

    @staticmethod
    def of(x: Fraction | int) -> LogReal:
        return LogReal(Fraction(x))

    @property
    def is_rational(self) -> bool:
        return self.coeff == 0 or self.arg == 1

    def __add__(self, other: LogReal | Fraction | int) -> LogReal:
        if isinstance(other, LogReal):
            if other.is_rational:
                return LogReal(self.const + other.const, self.coeff, self.arg)
            if self.is_rational:
                return LogReal(self.const + other.const, other.coeff, other.arg)
            if self.arg == other.arg:
                return LogReal(self.const + other.const, self.coeff + other.coeff, self.arg)
            raise ParameterError("other", other, f"a LogReal with ln({self.arg}) or a rational")
        return LogReal(self.const + other, self.coeff, self.arg)

    __radd__ = __add__

    def __neg__(self) -> LogReal:
        return LogReal(-self.const, -self.coeff, self.arg)

    def __sub__(self, other: LogReal | Fraction | int) -> LogReal:
        return self + (-other)

    def __rsub__(self, other: Fraction | int) -> LogReal:
        return (-self) + other

    def __mul__(self, k: Fraction | int) -> LogReal:
        return LogReal(self.const * k, self.coeff * k, self.arg)

    __rmul__ = __mul__

    def sign(self) -> int:
        """The exact sign (-1, 0 or 1), certified; raises `Undecided` at the precision cap."""
        if self.is_rational:
            return (self.const > 0) - (self.const < 0)
        if self.const == 0:
            return ((self.coeff > 0) - (self.coeff < 0)) * ((self.arg > 1) - (self.arg < 1))
        return certified_sign(
            lambda prec: interval_bounds(self.const, self.coeff, self.arg, prec),
            self.exact_str,
        )

    def compare(self, x: Fraction | int) -> int:
        """The exact sign of `self - x`."""
        return (self - Fraction(x)).sign()

    def floor(self) -> int:
        """The exact floor, certified."""
        if self.is_rational:
            return math.floor(self.const)
        (lo, _), _ = refine(self._narrow, lambda: f"the floor of {self.exact_str()}")
        k = math.floor(lo)
        while self.compare(k + 1) >= 0:
            k += 1
        while self.compare(k) < 0:
            k -= 1
        return k

    def _narrow(self, prec: int) -> tuple[Fraction, Fraction] | None:
        """Bounds at `prec` bits once they are narrower than 1 (at most 2 floors remain)."""
        lo, hi = interval_bounds(self.const, self.coeff, self.arg, prec)
        return (lo, hi) if hi - lo < 1 else None

    def ceil(self) -> int:
        """The exact ceiling, certified."""
        return -((-self).floor())

    def bounds(self, prec: int = 64) -> tuple[Fraction, Fraction]:
        """Certified rational bounds of the value at `prec` bits."""
        if self.is_rational:
            return self.const, self.const
        return interval_bounds(self.const, self.coeff, self.arg, prec)

    def approx(self) -> float:
        """A float near the value, for display and JSON only: it never decides anything."""
        lo, hi = self.bounds(80)
        try:
            return float((lo + hi) / 2)
        except OverflowError:  # beyond the float range: display only, so say so
            return math.inf if lo > 0 else -math.inf

    def exact_str(self) -> str:
        """A sympy-readable exact form such as `1 + 4*log(80)`."""
        if self.is_rational:
            return str(self.const)
        parts = [] if self.const == 0 else [str(self.const)]
        coeff = "" if self.coeff == 1 else f"{self.coeff}*"
        if self.coeff.denominator != 1:
            coeff = f"({self.coeff})*"
        parts.append(f"{coeff}log({self.arg})")
        return " + ".join(parts)

    def __str__(self) -> str:
        return self.exact_str()

    def __float__(self) -> float:
        """`approx()`: a float for the reader's own arithmetic (issue 36, item 9); nothing in
        the package decides with it (comparisons go through `compare` and `sign`)."""
        return self.approx()
