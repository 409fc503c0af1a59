"""The release sampler: BT outcomes drawn exactly, with integer arithmetic only.

No floating-point Laplace is ever drawn (Mironov 2012 shows how its rounding leaks). Write
`Z = S·M` with a fair sign `S` and `M ~ Exp(λ)`. Given the sign, the outcome of BT only asks on
which side of at most two cut points `t1 <= t2` the magnitude falls, and by memorylessness

    P(M >= t1) = exp(-λ·t1),   P(M > t2 | M >= t1) = exp(-λ·(t2 - t1)),

so one fair bit and two exact Bernoulli(exp(-x)) draws with rational `x` decide it. Those are
drawn as in Canonne, Kamath and Steinke (NeurIPS 2020, Alg. 1): for `x <= 1`, count the run of
successes of Bernoulli(x/k), k = 1, 2, ...; the run length is even with probability exp(-x).
Every Bernoulli(n/d) is one uniform integer below `d`, compared with `n`.

Randomness comes from the operating system's CSPRNG (`secrets.SystemRandom`) unless the caller
passes `seed`, which selects Python's seeded generator for reproducible runs only.
"""

from __future__ import annotations

import random
import secrets
from fractions import Fraction

from betweencut.noisy_test import BTQuery, Outcome

_L, _B, _H = Outcome.L, Outcome.B, Outcome.H


def _bernoulli_exp_at_most_one(num: int, den: int, rng: random.Random) -> bool:
    """Bernoulli(exp(-num/den)) for 0 <= num <= den (CKS 2020, Alg. 1)."""
    k = 1
    while rng.randrange(den * k) < num:
        k += 1
    return k % 2 == 1


def bernoulli_exp(x: Fraction, rng: random.Random) -> bool:
    """True with probability exactly `exp(-x)`, for a rational `x >= 0`."""
    num, den = x.numerator, x.denominator
    if num < 0:
        raise ValueError(f"bernoulli_exp needs x >= 0, got {x}")
    while num > den:
        if not _bernoulli_exp_at_most_one(1, 1, rng):
            return False
        num -= den
    return _bernoulli_exp_at_most_one(num, den, rng)


def bt_outcome(query: BTQuery, rng: random.Random) -> Outcome:
    """One exact draw of BT(c; a, b, λ) (Alg. 4): the law of `c + Lap(1/λ)` against `a <= b`."""
    lam = query.lam
    below = query.a - query.count  # L iff Z < below
    above = query.b - query.count  # H iff Z > above
    if rng.getrandbits(1):  # Z = +M
        t1 = below if below > 0 else Fraction(0)
        t2 = above if above > 0 else Fraction(0)
        if not bernoulli_exp(lam * t1, rng):
            return _L
        return _H if bernoulli_exp(lam * (t2 - t1), rng) else _B
    s1 = -above if above < 0 else Fraction(0)  # Z = -M
    s2 = -below if below < 0 else Fraction(0)
    if not bernoulli_exp(lam * s1, rng):
        return _H
    return _L if bernoulli_exp(lam * (s2 - s1), rng) else _B


class ExactSampler:
    """The release `NoisyTest`: exact BT draws from the OS CSPRNG, or from `seed` if given."""

    def __init__(self, seed: int | None = None) -> None:
        self.seeded = seed is not None
        self.rng: random.Random = (
            random.Random(seed) if seed is not None else secrets.SystemRandom()
        )
        self.draws = 0

    def __call__(self, query: BTQuery) -> Outcome:
        self.draws += 1
        return bt_outcome(query, self.rng)
