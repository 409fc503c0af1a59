"""The release sampler: BT outcomes drawn exactly, with integer arithmetic only.

No floating-point Laplace is ever drawn (Mironov 2012 shows how its rounding leaks). Write
`Z = S·M` with a fair sign `S` and `M ~ Exp(λ)`. Given the sign, the outcome of BT only asks on
which side of at most two cut points `t1 <= t2` the magnitude falls, and by memorylessness

    P(M >= t1) = exp(-λ·t1),   P(M > t2 | M >= t1) = exp(-λ·(t2 - t1)),

so one fair bit and two exact Bernoulli(exp(-x)) draws with rational `x` decide it. Those are
drawn as in Canonne, Kamath and Steinke (NeurIPS 2020, Alg. 1): for `x <= 1`, count the run of
successes of Bernoulli(x/k), k = 1, 2, ...; the run length is even with probability exp(-x).
Every Bernoulli(n/d) is one uniform integer below `d` (rejection sampling on random bits),
compared with `n`. The cut points are computed as integer numerators over one common
denominator (`x = num/den`), reduced before drawing (primitives in `betweencut.noise.bernoulli`).

That draw reads more bits the farther the count is from a threshold, so it is used only for a
query that states no public band, or with `padded=False`. A GuardedBT query states its band,
and the release draw is then `betweencut.noise.padded_sampler`'s: same law, and the same work for
every count in the band.

Randomness comes from the operating system's CSPRNG (`os.urandom`, read in blocks of
`OS_BLOCK_BYTES`) unless the caller passes `seed`, which selects Python's seeded generator for
reproducible runs only.
"""

from __future__ import annotations

import os
import random
import secrets
from fractions import Fraction

from betweencut.data.validate import check_seed
from betweencut.errors import ParameterError
from betweencut.noise.bernoulli import Bits, bernoulli_exp_bits
from betweencut.noise.noisy_test import BTQuery, Outcome
from betweencut.noise.padded_sampler import Padding, padded_bt_outcome

_L, _B, _H = Outcome.L, Outcome.B, Outcome.H
OS_BLOCK_BYTES = 256


class OSRandomBits:
    """`getrandbits` served from `os.urandom`, a block at a time (fewer system calls).

    Every bit is a fresh CSPRNG bit used once; bits left in a block too short for a request are
    dropped, never reused.
    """

    def __init__(self, block_bytes: int = OS_BLOCK_BYTES) -> None:
        self.block_bytes = block_bytes
        self.pool = 0
        self.available = 0

    def __call__(self, k: int) -> int:
        if k > self.available:
            nbytes = max(self.block_bytes, (k + 7) // 8)
            self.pool = int.from_bytes(os.urandom(nbytes), "little")
            self.available = 8 * nbytes
        value = self.pool & ((1 << k) - 1)
        self.pool >>= k
        self.available -= k
        return value


def bernoulli_exp(x: Fraction, rng: random.Random) -> bool:
    """True with probability exactly `exp(-x)`, for a rational `x >= 0`."""
    num, den = x.numerator, x.denominator
    if num < 0:
        raise ValueError(f"bernoulli_exp needs x >= 0, got {x}")
    return bernoulli_exp_bits(num, den, rng.getrandbits)


def _bt_outcome(query: BTQuery, bits: Bits) -> Outcome:
    """One exact draw of BT (Alg. 4) in integers: with `Q = ad·bd·cd`, `a - c = A/Q` and
    `b - c = B/Q`; `λ·x = ln·X/(ld·Q)`."""
    c, a, b, lam = query.count, query.a, query.b, query.lam
    cn, cd = c.numerator, c.denominator
    an, ad = a.numerator, a.denominator
    bn, bd = b.numerator, b.denominator
    below = (an * cd - cn * ad) * bd  # L iff Z < below/Q
    above = (bn * cd - cn * bd) * ad  # H iff Z > above/Q
    ln = lam.numerator
    den = lam.denominator * ad * bd * cd
    if bits(1):  # Z = +M: L iff M < t1 = max(below, 0), H iff M > t2 = max(above, 0)
        t1 = below if below > 0 else 0
        t2 = above if above > 0 else 0
        if not bernoulli_exp_bits(ln * t1, den, bits):
            return _L
        return _H if bernoulli_exp_bits(ln * (t2 - t1), den, bits) else _B
    s1 = -above if above < 0 else 0  # Z = -M: H iff M < s1, L iff M > s2
    s2 = -below if below < 0 else 0
    if not bernoulli_exp_bits(ln * s1, den, bits):
        return _H
    return _L if bernoulli_exp_bits(ln * (s2 - s1), den, bits) else _B


def bt_outcome(query: BTQuery, rng: random.Random) -> Outcome:
    """One exact draw of BT(c; a, b, λ) (Alg. 4): the law of `c + Lap(1/λ)` against `a <= b`."""
    return _bt_outcome(query, rng.getrandbits)


class ExactSampler:
    """The release `NoisyTest`: exact BT draws from the OS CSPRNG, or from `seed` if given.

    A query that states its public noisy band (every GuardedBT query does) is drawn padded
    (`betweencut.noise.padded_sampler`): the same work and random bits for every count in the band,
    given the same random stream. A query without a band (a plain BT, the baselines' tests) has
    no public bound to pad to and is drawn by `_bt_outcome`, whose work grows with `λ·|a - c|`.
    `padded=False` draws every query that way: a documented opt-out, NOT the release default,
    kept for speed measurements against the padded draw (`bench/sampler_padding.py`) and to
    replay seeded runs made before padding; its timing and bit count depend on the count.

    `_answers` is None in deployment; the release-path replay of an audit
    (`betweencut.boundary.release_replay`) sets it to a list and every query asked is appended
    with the outcome drawn: the replay hands your code this very class, so `type(test)` cannot
    tell it from deployment (what a mechanism reading this private slot does is assumed, not
    checked: `betweencut.proofs.assumes.RELEASE_PATH_UNSEEN`).
    """

    def __init__(self, seed: int | bytes | None = None, *, padded: bool = True) -> None:
        if not isinstance(padded, bool):
            raise ParameterError("padded", padded, "True (release default) or False")
        seed = check_seed(seed)
        self.seeded = seed is not None
        self.padded = padded
        self.rng: random.Random = (
            random.Random(seed) if seed is not None else secrets.SystemRandom()
        )
        self.bits: Bits = self.rng.getrandbits if seed is not None else OSRandomBits()
        self.draws = 0
        self._plan: Padding | None = None  # the last query's plan (one GuardedBT per run)
        self._plan_of: tuple[Fraction, Fraction, Fraction, tuple[int, int]] | None = None
        self._answers: list[tuple[BTQuery, Outcome]] | None = None  # the replay's record

    def __call__(self, query: BTQuery) -> Outcome:
        self.draws += 1
        if query.band is None or not self.padded:
            outcome = _bt_outcome(query, self.bits)
        else:
            key = (query.a, query.b, query.lam, query.band)
            if self._plan is None or key != self._plan_of:
                self._plan, self._plan_of = Padding.of(*key), key
            outcome = padded_bt_outcome(query, self._plan, self.bits)
        if self._answers is not None:
            self._answers.append((query, outcome))
        return outcome
