"""One GuardedBT draw whose work does not depend on the private count (issue 18).

The unpadded sampler (`betweencut.sampler.bt_outcome`) asks for Bernoulli(exp(-λ·t)) with `t`
the distance from the count to a threshold: its loops run about `λ·|a - c|` times, so its time
and the random bits it reads depend on the private count `c`. Here every draw of one GuardedBT
query does the same work for every count in its public noisy band `floor(a - R) < c <
ceil(b + R)`: the random bits it reads, and in which calls, are a function of the random
stream and of public values (`a`, `b`, `λ`, the band) only; the count enters only the final
integer comparisons.

The law is exactly BT's (Alg. 4). Write `Z = S·M` with a fair sign `S` and `M ~ Exp(λ)`, and
put every distance over the public denominator `D = den(λ)·den(a)·den(b)`: for an integer
count, `λ·(a - c) = A/D` and `λ·(b - c) = B/D` with integers `A <= B`. Let `E = λ·M ~ Exp(1)`
and `N = floor(D·E)`. For an integer `n`, `E < n/D` iff `N < n`, and `E > n/D` iff `N >= n`
up to the null event `E = n/D`, so

    S = +1:  L iff N < A,   H iff N >= B,   B otherwise;
    S = -1:  L iff N >= -A, H iff N < -B,   B otherwise,

which is BT's outcome (`c + Z < a`, `c + Z > b`) with probability 1. `N` is geometric:
`P(N >= n) = p^n` with `p = exp(-1/D)`, so `P(N = n) ∝ p^n = Π_i (p^(2^i))^(n_i)` over the
binary digits `n_i` of `n`: the digits are independent, `P(n_i = 1) = p^(2^i)/(1 + p^(2^i))`.
Only `min(N, 2^m)` matters once `2^m > max(|A|, |B|)` over the band (a public bound `T`): the
event `N >= 2^m` (some digit `i >= m` is 1) has probability `p^(2^m)`, is independent of the
digits below `m`, and then every comparison above is decided as for any `N >= 2^m`. So one
draw is: the sign bit, the `m` low digits, and the event `N >= 2^m`, always all of them, each a
Bernoulli with a public parameter:

* `Bernoulli(q/(1 + q))`, `q = exp(-x)`: a round draws a fair bit; 0 stops with False, 1 draws
  `Bernoulli(q)` and stops with True on success, else starts a new round. A round stops True
  with probability `q/2` and False with `1/2`, so True has probability `q/(1 + q)` exactly.
* `Bernoulli(exp(-x))`: `betweencut.sampler`'s exact integer sampler (CKS 2020, Alg. 1).

Each of these loops runs a random number of times, but that number depends only on the random
stream and on the public `x`: given the same stream, every count in the band reads the same
bits in the same calls and runs the same loops (`tests/test_core_padded_sampler.py` checks it
with a counting random source and a line trace). What remains is listed in the README (Python's
integers are not constant-time; the OS CSPRNG call pattern; cache effects).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from betweencut.bernoulli import Bits, bernoulli_exp_bits
from betweencut.errors import ParameterError
from betweencut.noisy_test import BTQuery, Outcome

#: Outcome by `1 + [high] - [low]`: low -> L, neither -> B, high -> H.
_BY_INDEX = (Outcome.L, Outcome.B, Outcome.H)


@dataclass(frozen=True, slots=True)
class Padding:
    """The public plan of one padded query BT(c; a, b, λ) on the band `lower < c < upper`:
    `D`, the scaled thresholds `a·λ·D`, `b·λ·D` and rate `λ·D` (integers), the number `m` of
    geometric digits drawn (`2^m > T`, the largest scaled distance over the band) and each
    digit's Bernoulli exponent `2^i/D`. All public: the same for every count in the band."""

    band: tuple[int, int]
    den: int
    a_scaled: int
    b_scaled: int
    lam_scaled: int
    exponents: tuple[tuple[int, int], ...]  # 2^i/D as (numerator, denominator), reduced
    tail: tuple[int, int]  # 2^m/D: N >= 2^m with probability exp(-2^m/D)

    @property
    def digits(self) -> int:
        return len(self.exponents)

    @staticmethod
    def of(a: Fraction, b: Fraction, lam: Fraction, band: tuple[int, int]) -> Padding:
        """The plan for BT(c; a, b, λ) with `c` an integer in `lower < c < upper` (public)."""
        lower, upper = band
        if upper - lower < 2 or a > b or lam <= 0:
            raise ParameterError("band", band, "lower < c < upper with a count in it, a <= b, "
                                 "lam > 0")
        den = lam.denominator * a.denominator * b.denominator
        scale = lam * den  # an integer, as are a·scale and b·scale
        a_scaled, b_scaled = int(a * scale), int(b * scale)
        lam_scaled = int(scale)
        widest = max(abs(t - c * lam_scaled) for t in (a_scaled, b_scaled)
                     for c in (lower + 1, upper - 1))  # largest at the band's two ends
        digits = widest.bit_length()  # 2^m > T
        exponents = tuple(_pair(Fraction(1 << i, den)) for i in range(digits))
        return Padding(band, den, a_scaled, b_scaled, lam_scaled, exponents,
                       _pair(Fraction(1 << digits, den)))


def _pair(x: Fraction) -> tuple[int, int]:
    return x.numerator, x.denominator


def _bernoulli_ratio(num: int, den: int, bits: Bits) -> bool:
    """True with probability `q/(1 + q)`, `q = exp(-num/den)`, `num >= 0` (see the module)."""
    while True:
        if not bits(1):
            return False
        if bernoulli_exp_bits(num, den, bits):
            return True


def _capped_geometric(plan: Padding, bits: Bits) -> int:
    """`min(N, 2^m)` for `N = floor(D·E)`, `E ~ Exp(1)`: every digit drawn, always."""
    n = 0
    for i, (num, den) in enumerate(plan.exponents):
        n |= _bernoulli_ratio(num, den, bits) << i
    beyond = bernoulli_exp_bits(*plan.tail, bits)
    return n | (beyond << plan.digits)  # any value >= 2^m decides every comparison alike


def padded_bt_outcome(query: BTQuery, plan: Padding, bits: Bits) -> Outcome:
    """One exact draw of BT(c; a, b, λ) (Alg. 4) for an integer count in the plan's band, with
    work that depends on public values and the random stream only (see the module docstring).

    The plan must be `Padding.of(query.a, query.b, query.lam, band)`; a count that is not an
    integer inside the band is refused (GuardedBT never sends one: its guards decide them).
    """
    c, lower, upper = query.count.numerator, *plan.band
    if query.count.denominator != 1 or not lower < c < upper:
        raise ParameterError("count", "a count outside the noisy band",
                             f"an integer count c with {lower} < c < {upper}")
    sign = bits(1)
    n = _capped_geometric(plan, bits)
    low_cut = plan.a_scaled - c * plan.lam_scaled  # A = λ·D·(a - c)
    high_cut = plan.b_scaled - c * plan.lam_scaled  # B = λ·D·(b - c)
    low = n < low_cut if sign else n >= -low_cut
    high = n >= high_cut if sign else n < -high_cut
    return _BY_INDEX[1 + high - low]
