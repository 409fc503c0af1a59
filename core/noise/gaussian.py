"""Gaussian noise drawn exactly, with integer arithmetic only (the release path).

Two samplers, neither of which ever touches a float:

* **the discrete Gaussian** `N_Z(0, σ²)`, `P(y) ∝ e^(-y²/(2σ²))` on the integers, for a rational
  `σ² > 0`: Canonne, Kamath and Steinke, "The Discrete Gaussian for Differential Privacy"
  (NeurIPS 2020), Alg. 3: with `t = ⌊σ⌋ + 1`, draw `Y` from the discrete Laplace
  `P(y) ∝ e^(-|y|/t)` (their Alg. 2 with `s = 1`) and keep it with probability
  `exp(-(|Y| - σ²/t)² / (2σ²))` (a Bernoulli(exp(-γ)) draw with rational `γ`, their Alg. 1).
  Both algorithms restart from scratch on a rejection, so one loop over attempts (`_attempt`)
  has the same law as Alg. 3 calling Alg. 2: an attempt returns `y` with probability
  `(1/t)(1 - e^-1)/2·e^(-|y|/t)·e^(-(|y| - σ²/t)²/(2σ²)) = c·e^(-y²/(2σ²))`, `c` free of `y`.
* **the continuous Gaussian** `N(0, σ²)`, rational `σ > 0`, drawn lazily (`LazyGaussian`):
  Karney, "Sampling exactly from the normal distribution" (ACM TOMS 42(1), 2016), Algorithm N:
  an integer `k` with probability `e^(-k/2)(1 - e^(-1/2))`, kept with probability
  `e^(-k(k-1)/2)`; a uniform `x ∈ [0, 1)` kept with probability `e^(-x(2k+x)/2)` (`k + 1` runs
  of his Algorithm B, each comparing lazily drawn uniform deviates with `x`), then a fair sign.
  `x` is a uniform deviate of which only the binary digits the comparisons needed were drawn;
  given the run, its other digits are still uniform and independent, so `refine()` draws the
  next one. `bounds()` encloses the draw, exactly like `noisy_queries.LazyLaplace`.

Every Bernoulli(exp(-γ)) is `betweencut.noise.bernoulli.bernoulli_exp_bits` (CKS Alg. 1 on exact
integers). Randomness is a `getrandbits` (`Bits`): the OS CSPRNG on the release path, a seeded
generator only for reproducible tests.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

from betweencut.data.validate import positive_rational
from betweencut.errors import ParameterError
from betweencut.noise.bernoulli import Bits, bernoulli_exp_bits, uniform_below

__all__ = [
    "LazyGaussian", "UniformDeviate", "discrete_gaussian", "discrete_gaussian_t",
    "discrete_laplace",
]


def discrete_gaussian_t(sigma2: Fraction) -> int:
    """`t = ⌊σ⌋ + 1` for `σ = √(σ²)`, exactly: `⌊√(p/q)⌋ = ⌊√(p·q)⌋ // q` (CKS Alg. 3, l. 1)."""
    sigma2 = positive_rational(sigma2, "sigma2", " (the variance sigma^2)")
    p, q = sigma2.numerator, sigma2.denominator
    return math.isqrt(p * q) // q + 1


def _laplace_attempt(t: int, bits: Bits) -> int | None:
    """One attempt of CKS Alg. 2 with `s = 1` (scale `t`): the draw, or None on a rejection."""
    u = uniform_below(t, bits)  # Alg. 2, l. 3: U uniform in {0, ..., t-1}
    if not bernoulli_exp_bits(u, t, bits):  # l. 4-5: keep U with probability e^(-U/t)
        return None
    v = 0
    while bernoulli_exp_bits(1, 1, bits):  # l. 6-7: V geometric, P(V >= v) = e^(-v)
        v += 1
    x = u + t * v  # l. 8 (Y = ⌊X/s⌋ = X with s = 1)
    negative = bits(1) == 1  # l. 9: a fair sign B
    if negative and x == 0:  # l. 10: reject B = 1, Y = 0 (else 0 would be counted twice)
        return None
    return -x if negative else x


def discrete_laplace(t: int, bits: Bits) -> int:
    """One draw of the discrete Laplace `P(y) ∝ e^(-|y|/t)` on the integers, `t >= 1` an
    integer (CKS Alg. 2 with `s = 1`)."""
    if isinstance(t, bool) or not isinstance(t, int) or t < 1:
        raise ParameterError("t", t, "an integer t >= 1")
    while True:
        y = _laplace_attempt(t, bits)
        if y is not None:
            return y


def _attempt(sigma2: Fraction, t: int, bits: Bits) -> int | None:
    """One attempt of CKS Alg. 3 (with one attempt of Alg. 2 inside): `y`, or None."""
    y = _laplace_attempt(t, bits)
    if y is None:
        return None
    gamma = (abs(y) - sigma2 / t) ** 2 / (2 * sigma2)  # Alg. 3, l. 4
    if bernoulli_exp_bits(gamma.numerator, gamma.denominator, bits):
        return y
    return None


def discrete_gaussian(sigma2: Fraction, bits: Bits | random.Random) -> int:
    """One exact draw of `N_Z(0, σ²)`: `P(y) = e^(-y²/(2σ²)) / Σ_z e^(-z²/(2σ²))`.

    Preconditions: `sigma2` a rational `σ² > 0`; `bits` a `getrandbits` (or a `random.Random`).
    Returns: an integer (CKS 2020, Alg. 3; exact, integer arithmetic only).
    Raises: `ParameterError` for `σ² <= 0` or a float.
    """
    sigma2 = positive_rational(sigma2, "sigma2", " (the variance sigma^2)")
    draw: Bits = bits.getrandbits if isinstance(bits, random.Random) else bits
    t = discrete_gaussian_t(sigma2)
    while True:
        y = _attempt(sigma2, t, draw)
        if y is not None:
            return y


# --- the continuous Gaussian (Karney 2016, Algorithm N) ----------------------------------------


class UniformDeviate:
    """A uniform number in `[0, 1)` of which the first `n` binary digits are drawn: it lies in
    `[digits/2^n, (digits + 1)/2^n)`; `grow()` draws one more digit."""

    __slots__ = ("bits", "digits", "n")

    def __init__(self, bits: Bits) -> None:
        self.bits, self.digits, self.n = bits, 0, 0

    def grow(self) -> None:
        self.digits = (self.digits << 1) | self.bits(1)
        self.n += 1

    def less_than(self, other: UniformDeviate) -> bool:
        """`self < other`, drawing digits of both until they differ (ties have probability 0,
        so this ends with probability 1)."""
        while True:
            while self.n < other.n:
                self.grow()
            while other.n < self.n:
                other.grow()
            if self.digits != other.digits:
                return self.digits < other.digits
            self.grow()
            other.grow()


def _below_fraction(x: UniformDeviate, k: int, bits: Bits) -> bool:
    """True with probability `(x + 2k)/(2k + 2)`: `(2k + 2)·V = f + V'` with `f` uniform in
    `{0, ..., 2k+1}` and `V'` uniform, and `V < (x + 2k)/(2k + 2)` iff `f < 2k` or
    (`f = 2k` and `V' < x`)."""
    f = uniform_below(2 * k + 2, bits)
    if f < 2 * k:
        return True
    if f > 2 * k:
        return False
    return UniformDeviate(bits).less_than(x)


def _algorithm_b(k: int, x: UniformDeviate, bits: Bits) -> bool:
    """True with probability `exp(-x(x + 2k)/(2k + 2))` (Karney 2016, Algorithm B): the longest
    run `x > U_1 > U_2 > ... > U_n` whose every step also passes `_below_fraction` has
    `P(n >= j) = (x·p)^j / j!`, `p = (x + 2k)/(2k + 2)`, so `n` is even with probability
    `e^(-x·p)`."""
    previous, n = x, 0
    while True:
        u = UniformDeviate(bits)
        if not u.less_than(previous) or not _below_fraction(x, k, bits):
            return n % 2 == 0
        previous, n = u, n + 1


def _standard_normal(bits: Bits) -> tuple[int, int, UniformDeviate]:
    """Karney's Algorithm N: `(sign, k, x)` with `sign·(k + x) ~ N(0, 1)`."""
    half = (1, 2)
    while True:
        k = 0
        while bernoulli_exp_bits(*half, bits):  # N1: P(k) = e^(-k/2)(1 - e^(-1/2))
            k += 1
        if not bernoulli_exp_bits(k * (k - 1), 2, bits):  # N2: keep k with e^(-k(k-1)/2)
            continue
        x = UniformDeviate(bits)  # N3
        if all(_algorithm_b(k, x, bits) for _ in range(k + 1)):  # N4: e^(-x(2k+x)/2)
            return (-1 if bits(1) else 1), k, x  # N6: a fair sign


class LazyGaussian:
    """`σ·Z`, `Z ~ N(0, 1)`, drawn exactly and lazily: `bounds()` encloses it, `refine()`
    draws one more binary digit (`width` is the current width of the enclosure of `Z`)."""

    def __init__(self, scale: Fraction, rng: random.Random) -> None:
        self.scale = positive_rational(scale, "scale", " (the standard deviation sigma)")
        self.rng = rng
        self.sign, self.whole, self.fraction = _standard_normal(rng.getrandbits)

    @property
    def width(self) -> Fraction:
        return Fraction(1, 1 << self.fraction.n)

    def refine(self) -> None:
        self.fraction.grow()

    def bounds(self) -> tuple[Fraction, Fraction]:
        low = self.whole + Fraction(self.fraction.digits, 1 << self.fraction.n)
        lo, hi = self.scale * low, self.scale * (low + self.width)
        return (lo, hi) if self.sign > 0 else (-hi, -lo)
