"""Exact laws of the shared-noise primitives (`betweencut.noise.noisy_queries`), as `Piecewise` in
ρ.

For `Z ~ Lap(s)`, `P(Z < y) = F_s(y) = ½·e^(y/s)` for `y < 0` and `1 - ½·e^(-y/s)` for `y >= 0`,
and the density is `f_s(y) = e^(-|y|/s)/(2s)`. Given the shared draw `ρ = r`, a comparison
`count + ν >= threshold + r` (fresh `ν ~ Lap(s)`) answers ⊤ with probability
`1 - F_s(threshold - count + r)` and ⊥ with `F_s(threshold - count + r)`; with `s = 0` it is the
indicator of `r <= count - threshold` (⊤) or its complement (⊥). Comparisons sharing one `ρ`
are independent given `ρ`, so the probability of their answers is
`∫ f_b(r)·Π g_i(r) dr`, an exact `ExpPoly` (`Piecewise.integral`). Noisy max:
`P(argmax = i) = ∫ f_s(x - c_i)·Π_{j≠i} F_s(x - c_j) dx`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache

from betweencut.data.validate import positive_rational
from betweencut.errors import ParameterError
from betweencut.proofs.exact.arith import ExpPoly
from betweencut.proofs.exact.polyexp import Piecewise, PolyExp

__all__ = [
    "comparison_given_rho", "laplace_cdf", "laplace_density", "noisy_max_law",
    "shared_answers_probability",
]

HALF = Fraction(1, 2)


def laplace_cdf(scale: Fraction, shift: Fraction) -> Piecewise:
    """`x -> P(Z < x + shift)`, `Z ~ Lap(scale)`: break point at `x = -shift`."""
    rate = 1 / positive_rational(scale, "scale", " (Z ~ Lap(scale))")
    left = PolyExp.exp(rate, ExpPoly.exp(shift * rate, HALF))
    right = PolyExp.const(1) - PolyExp.exp(-rate, ExpPoly.exp(-shift * rate, HALF))
    return Piecewise((-shift,), (left, right))


def laplace_density(scale: Fraction, center: Fraction = Fraction(0)) -> Piecewise:
    """`x -> f(x - center)`, the density of `center + Lap(scale)`."""
    scale = positive_rational(scale, "scale", " (Lap(scale))")
    rate, c = 1 / scale, HALF / scale
    left = PolyExp.exp(rate, ExpPoly.exp(-center * rate, c))
    right = PolyExp.exp(-rate, ExpPoly.exp(center * rate, c))
    return Piecewise((center,), (left, right))


@lru_cache(maxsize=1 << 14)
def comparison_given_rho(gap: Fraction, scale: Fraction, above: bool) -> Piecewise:
    """`r -> P(answer | ρ = r)` of `count + ν >= threshold + r`, `gap = threshold - count`."""
    if scale == 0:
        one, zero = PolyExp.const(1), PolyExp()
        return Piecewise((-gap,), (one, zero) if above else (zero, one))
    below = laplace_cdf(scale, gap)
    if not above:
        return below
    return Piecewise(below.breaks, [PolyExp.const(1) - p for p in below.pieces])


@lru_cache(maxsize=1 << 14)
def shared_answers_probability(
    scale: Fraction, answers: tuple[tuple[Fraction, Fraction, bool], ...]
) -> ExpPoly:
    """`P(all answers | ...)` for comparisons sharing one `ρ ~ Lap(scale)`: `answers` holds
    `(gap, fresh scale, answer)`; `scale = 0` means no shared draw (`ρ = 0`)."""
    if scale == 0:
        out = ExpPoly.const(1)
        for gap, s, above in answers:
            out = out * comparison_given_rho(gap, s, above).at(Fraction(0))
        return out
    integrand = laplace_density(scale)
    for (gap, s, above), n in sorted(Counter(answers).items()):  # equal factors as one power
        integrand = integrand * comparison_given_rho(gap, s, above).power(n)
    return integrand.integral()


@lru_cache(maxsize=1 << 12)
def _noisy_max_law(gaps: tuple[Fraction, ...], scale: Fraction) -> tuple[ExpPoly, ...]:
    out: dict[Fraction, ExpPoly] = {}  # the law of index i depends on the gaps through c = gaps[i]
    for c in gaps:
        if c in out:
            continue
        others = Counter(gaps)
        others[c] -= 1
        integrand = laplace_density(scale, c)
        for d, n in sorted(others.items()):
            if n:
                integrand = integrand * laplace_cdf(scale, -d).power(n)
        out[c] = integrand.integral()
    return tuple(out[c] for c in gaps)


def noisy_max_law(counts: Sequence[Fraction], scale: Fraction) -> tuple[ExpPoly, ...]:
    """`P(argmax_i (counts[i] + ν_i) = i)` for each `i`, exactly (they sum to 1)."""
    counts = tuple(Fraction(c) for c in counts)
    if not counts:
        raise ParameterError("counts", counts, "at least one count")
    base = min(counts)  # the law depends on differences only: shift for cache hits
    return _noisy_max_law(tuple(c - base for c in counts), Fraction(scale))
