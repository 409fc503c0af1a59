"""The release path of the field's primitives: each drawn exactly, with integer arithmetic only.

No float is formed. Randomness is a `getrandbits` (the OS CSPRNG through
`secrets.SystemRandom`, or a seeded generator for reproducible tests only); every Bernoulli is
`betweencut.noise.bernoulli`'s: a uniform integer below a denominator (rejection on random bits), or
`e^(-x)` for a rational `x` (Canonne, Kamath and Steinke 2020, Alg. 1).

* `weighted_choice`: index `i` with probability `c_i·e^(x_i) / Σ_j c_j·e^(x_j)` (rational
  `c_i >= 0`, `x_i`): propose `i` with probability `c_i / Σ c` and keep it with probability
  `e^(x_i - max x)`; a kept proposal has exactly the target law (rejection sampling). The
  exponential mechanism, randomized response and k-ary randomized response are such choices;
* permute-and-flip is run as stated: a Fisher-Yates permutation, then one
  Bernoulli(`e^((s_i - max)/scale)`) per candidate in that order (the best is always kept);
* the discrete Laplace `P(y) ∝ e^(-|y|/b)` with `b = t/s` is CKS Alg. 2 with those integers
  `s`, `t`; the discrete Gaussian is `betweencut.noise.gaussian.discrete_gaussian` (CKS Alg. 3);
* a continuous released value is drawn lazily (`LazyValue`: the Laplace of
  `betweencut.noise.noisy_queries`, Karney's Gaussian of `betweencut.noise.gaussian`), exact to as
  many binary digits as are read.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from betweencut.errors import BetweenCutError
from betweencut.noise.bernoulli import Bits, bernoulli_exp_bits, uniform_below
from betweencut.noise.gaussian import LazyGaussian, discrete_gaussian
from betweencut.noise.noisy_queries import ExactQuerySampler, LazyLaplace
from betweencut.noise.primitives import (
    DISCRETE_GAUSSIAN,
    DISCRETE_LAPLACE,
    GAUSSIAN,
    Bernoulli,
    BernoulliExp,
    ExponentialMechanism,
    FieldQuery,
    KaryRandomizedResponse,
    NoiseTestBase,
    NoisyValue,
    PermuteAndFlip,
    RandomizedResponse,
    UniformChoice,
    UniformPermutation,
)

__all__ = ["ExactNoiseSampler", "LazyValue", "discrete_laplace_scaled", "permutation",
           "weighted_choice"]


def _bernoulli_exp(x: Fraction, bits: Bits) -> bool:
    return bernoulli_exp_bits(x.numerator, x.denominator, bits)


def weighted_choice(weights: Sequence[tuple[Fraction, Fraction]], bits: Bits) -> int:
    """Index `i` with probability `c_i·e^(x_i) / Σ_j c_j·e^(x_j)` for `weights[i] = (c_i, x_i)`,
    rational `c_i >= 0` (not all 0) and rational `x_i` (module docstring)."""
    live = [x for c, x in weights if c > 0]
    top = max(live)
    den = math.lcm(*(c.denominator for c, _ in weights))
    cumulative, total = [], 0
    for c, _ in weights:
        total += c.numerator * (den // c.denominator)
        cumulative.append(total)
    while True:
        r = uniform_below(total, bits)
        i = next(k for k, edge in enumerate(cumulative) if r < edge)
        if _bernoulli_exp(top - weights[i][1], bits):
            return i


def permutation(n: int, bits: Bits) -> tuple[int, ...]:
    """A uniform permutation of `range(n)` (Fisher-Yates: position `i` swapped with a uniform
    position `j <= i`)."""
    out = list(range(n))
    for i in range(n - 1, 0, -1):
        j = uniform_below(i + 1, bits)
        out[i], out[j] = out[j], out[i]
    return tuple(out)


def discrete_laplace_scaled(b: Fraction, bits: Bits) -> int:
    """One draw of `P(y) ∝ e^(-|y|/b)` on the integers, rational `b = t/s > 0` (CKS 2020,
    Alg. 2: `X = U + t·V` has `P(X = x) ∝ e^(-x/t)`, so `⌊X/s⌋` has `P ∝ e^(-y·s/t)`; a fair
    sign, the negative zero rejected)."""
    t, s = b.numerator, b.denominator
    while True:
        u = uniform_below(t, bits)
        if not bernoulli_exp_bits(u, t, bits):
            continue
        v = 0
        while bernoulli_exp_bits(1, 1, bits):
            v += 1
        y = (u + t * v) // s
        negative = bits(1) == 1
        if negative and y == 0:
            continue
        return -y if negative else y


class LazyValue:
    """A released continuous value `value + Y`, drawn exactly and lazily: `bounds()` encloses
    it, `refine()` draws one more binary digit of `Y`, `within(bits)` refines until the
    enclosure is narrower than `2^-bits` and returns it."""

    def __init__(self, value: Fraction, noise: LazyLaplace | LazyGaussian) -> None:
        self.value, self.noise = value, noise

    def bounds(self) -> tuple[Fraction, Fraction]:
        lo, hi = self.noise.bounds()
        return self.value + lo, self.value + hi

    def refine(self) -> None:
        self.noise.refine()

    def within(self, bits: int = 53) -> tuple[Fraction, Fraction]:
        while True:
            lo, hi = self.bounds()
            if hi - lo <= Fraction(1, 1 << bits):
                return lo, hi
            self.refine()

    def __repr__(self) -> str:
        lo, hi = self.within(30)
        return f"LazyValue(in [{float(lo)!r}, {float(hi)!r}])"


class ExactNoiseSampler(NoiseTestBase, ExactQuerySampler):
    """The release test for the field's primitives (and the shared-noise ones, inherited from
    `ExactQuerySampler`): exact, from the OS CSPRNG unless `seed` is given (seeded runs are for
    reproducible tests only, never for a release)."""

    def field(self, query: FieldQuery) -> Any:
        bits = self.rng.getrandbits
        if isinstance(query, Bernoulli):
            p = query.p
            return uniform_below(p.denominator, bits) < p.numerator
        if isinstance(query, BernoulliExp):
            return _bernoulli_exp(query.x, bits)
        if isinstance(query, UniformChoice):
            return uniform_below(query.n, bits)
        if isinstance(query, UniformPermutation):
            return permutation(query.n, bits)
        if isinstance(query, ExponentialMechanism):
            return weighted_choice([(Fraction(1), s / query.scale) for s in query.scores], bits)
        if isinstance(query, PermuteAndFlip):
            top = max(query.scores)
            for i in permutation(len(query.scores), bits):
                if _bernoulli_exp((top - query.scores[i]) / query.scale, bits):
                    return i
            raise BetweenCutError("permute-and-flip kept no candidate (the best is kept with "
                                  "probability e^0 = 1)")
        if isinstance(query, RandomizedResponse):
            keep = weighted_choice([(Fraction(1), query.eps), (Fraction(1), Fraction(0))],
                                   bits) == 0
            return query.value if keep else not query.value
        if isinstance(query, KaryRandomizedResponse):
            return weighted_choice([(Fraction(1), query.eps if i == query.value else
                                     Fraction(0)) for i in range(query.k)], bits)
        return self._released(query)

    def _released(self, query: NoisyValue) -> int | LazyValue:
        noise = query.noise
        bits = self.rng.getrandbits
        if noise.kind == DISCRETE_LAPLACE:
            return int(query.value) + discrete_laplace_scaled(noise.scale, bits)
        if noise.kind == DISCRETE_GAUSSIAN:
            return int(query.value) + discrete_gaussian(noise.scale, bits)
        if noise.kind == GAUSSIAN:
            return LazyValue(query.value, LazyGaussian(noise.scale, self.rng))
        return LazyValue(query.value, LazyLaplace(noise.scale, self.rng))
