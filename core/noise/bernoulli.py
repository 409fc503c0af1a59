"""Exact Bernoulli draws from random bits, in integers only: the sampler's primitives.

`Bits` is a `getrandbits`: `k -> a uniform integer in [0, 2^k)`. `uniform_below(n)` draws a uniform
integer below `n` by rejection; `bernoulli_exp_bits(num, den)` is True with probability exactly
`exp(-num/den)` (Canonne, Kamath and Steinke, NeurIPS 2020, Alg. 1, with `exp(-1)` per whole
unit). Used by `betweencut.noise.bt_sampler` and `betweencut.noise.padded_sampler`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

Bits = Callable[[int], int]  # getrandbits: k -> a uniform integer in [0, 2^k)


def uniform_below(n: int, bits: Bits) -> int:
    """A uniform integer in `[0, n)`, `n >= 1`, by rejection from `n.bit_length()` random bits."""
    k = n.bit_length()
    r = bits(k)
    while r >= n:
        r = bits(k)
    return r


def _bernoulli_exp_at_most_one(num: int, den: int, bits: Bits) -> bool:
    """Bernoulli(exp(-num/den)) for 0 <= num <= den (CKS 2020, Alg. 1)."""
    k = 1
    while uniform_below(den * k, bits) < num:
        k += 1
    return k % 2 == 1


def bernoulli_exp_bits(num: int, den: int, bits: Bits) -> bool:
    """Bernoulli(exp(-num/den)) for integers `num >= 0`, `den >= 1`: exp(-1) per whole unit.

    The fraction is reduced first, so a seeded generator draws exactly the same random numbers
    as for the `Fraction` `num/den` (seeded runs stay reproducible across versions).
    """
    g = math.gcd(num, den)
    if g > 1:
        num //= g
        den //= g
    while num > den:
        if not _bernoulli_exp_at_most_one(1, 1, bits):
            return False
        num -= den
    return _bernoulli_exp_at_most_one(num, den, bits)
