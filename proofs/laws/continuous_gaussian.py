"""Certified laws of the continuous Gaussian primitives (python-flint's Arb balls).

For `ν ~ N(0, σ²)`, `P(ν >= x) = ½·erfc(x/(σ√2))`. Given a shared draw `ρ = r`, a comparison
`count + ν >= threshold + r` answers ⊤ with probability `½·erfc((gap + r)/(σ√2))`
(`gap = threshold - count`) and ⊥ with `½·erfc(-(gap + r)/(σ√2))`; with no fresh noise it is
the indicator of `r <= -gap` (⊤) or `r > -gap` (⊥). Comparisons sharing `ρ ~ N(0, s²)` are
independent given `ρ`, so their answers have probability

    ∫_L^U φ_s(r)·Π_i g_i(r) dr,       φ_s(r) = e^(-r²/(2s²)) / (s√(2π)),

`[L, U]` the interval the noiseless comparisons leave for `ρ`. Noisy max:
`P(argmax = i) = ∫ φ_σ(x - c_i)·Π_{j≠i} Φ((x - c_j)/σ) dx`.

What is exact and what is certified: the parameters (gaps, scales, `L`, `U`) are exact
rationals, and an empty `[L, U]` gives an exact 0 (`Enclosure.zero()`). Every other probability
is an `Enclosure`: at `prec` bits the integral over `[-T, T] ∩ [L, U]` is Arb's rigorous
quadrature (`acb.integral`, the integrand is entire), and the mass of `ρ` outside `[-T, T]` is
added to the upper bound (the other factors lie in `[0, 1]`), `T = s·k` with
`erfc(k/√2) < 2^-prec`; a mass with no fresh noise is a difference of `erfc`s. Each Arb ball is
turned into two rationals exactly (`arb_bounds`). No float is ever formed.

Needs python-flint (the `fast` extra); without it every function raises `ParameterError`.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from fractions import Fraction
from functools import lru_cache
from typing import Any, Final

from betweencut.data.validate import positive_rational
from betweencut.errors import MissingExtra, NotYet, ParameterError, Undecided, shown
from betweencut.proofs.exact.enclosure import GUARD_BITS, Bounds, Enclosure, round_bounds

__all__ = [
    "analytic_gaussian_delta", "arb_bounds", "arb_precision", "flint_available",
    "gaussian_answer", "gaussian_log_ratio", "gaussian_noisy_max_law", "normal_mass",
    "shared_gaussian_answers",
]

_FLINT_LOCK = threading.RLock()
Answer = tuple[Fraction, Fraction, bool]  # (gap, fresh sigma (0: none), answer)


def flint_available() -> bool:
    """True when python-flint's Arb (`flint.arb`, `flint.acb`) can be imported."""
    try:
        import flint
    except ImportError:
        return False
    return hasattr(flint, "acb") and hasattr(flint.acb, "integral")


def _flint() -> Any:
    if not flint_available():
        raise MissingExtra("fast", "Gaussian noise (its laws are enclosed with python-flint's "
                           "Arb)")
    import flint

    return flint


@contextmanager
def arb_precision(prec: int) -> Iterator[Any]:
    """Run the block with Arb's working precision `flint.ctx.prec = prec` bits (restored after,
    one thread at a time); yields the `flint` module."""
    flint = _flint()
    with _FLINT_LOCK:
        saved = flint.ctx.prec
        flint.ctx.prec = prec
        try:
            yield flint
        finally:
            flint.ctx.prec = saved


SMALLEST_BITS: Final = 1 << 16  # an end below 2^-this in size is rounded outward to it or 0


def _fraction(man_exp: tuple[Any, Any], up: bool) -> Fraction:
    """An end `man·2^exp` of a ball as a rational, exactly; rounded outward (up or down) to
    `±2^-SMALLEST_BITS` or 0 when it is smaller than that in size (a ball near `e^(-10^24)`
    would need a rational of 10^24 digits)."""
    man, exp = int(man_exp[0]), int(man_exp[1])
    if exp >= 0:
        if exp > SMALLEST_BITS:
            raise Undecided(f"an Arb ball of about 2^{shown(exp)} is too large to enclose by "
                            "rationals")
        return Fraction(man << exp)
    if man.bit_length() + exp >= -SMALLEST_BITS:
        return Fraction(man, 1 << -exp)
    tiny = Fraction(1, 1 << SMALLEST_BITS)
    if up:
        return tiny if man > 0 else Fraction(0)
    return Fraction(0) if man > 0 else -tiny


def arb_bounds(x: Any) -> Bounds:
    """The rational end points of an Arb ball: exact, or outward past `2^-SMALLEST_BITS` in
    size (`NotYet` when it is not finite: the computation lost all precision; the one loop
    climbs)."""
    if not x.is_finite():
        raise NotYet(f"an Arb ball is not finite ({x}): raise the precision")
    return _fraction(x.lower().man_exp(), False), _fraction(x.upper().man_exp(), True)


def _arb(flint: Any, x: Fraction) -> Any:
    return flint.arb(flint.fmpq(x.numerator, x.denominator))


def _tail_k(prec: int) -> int:
    """`k` with `erfc(k/√2) < 2^-prec` (the mass of a Gaussian beyond `k` standard deviations);
    `erfc(y) < e^(-y²)`, so `k² >= 2·prec·ln 2` suffices."""
    return math.isqrt(2 * prec) + 2


def _probability(lo: Fraction, hi: Fraction, prec: int) -> Bounds:
    """A probability's bounds, clipped to `[0, 1]` (where every probability lies)."""
    return round_bounds(max(lo, Fraction(0)), min(hi, Fraction(1)), prec + GUARD_BITS)


def normal_mass(scale: Fraction, low: Fraction | None, high: Fraction | None) -> Enclosure:
    """`P(low < ρ <= high)`, `ρ ~ N(0, scale²)` (`None`: unbounded on that side); exactly 0
    when `low >= high`."""
    scale = positive_rational(scale, "scale", " (the standard deviation sigma)")
    if low is not None and high is not None and low >= high:
        return Enclosure.zero()
    if low is None and high is None:
        return Enclosure.of(1)

    def at(prec: int) -> Bounds:
        with arb_precision(prec + GUARD_BITS) as flint:
            root2s = flint.arb(2).sqrt() * _arb(flint, scale)

            def upper_tail(x: Fraction | None) -> Any:  # P(ρ > x)
                if x is None:
                    return flint.arb(1)
                return (_arb(flint, x) / root2s).erfc() / 2

            def lower_tail(x: Fraction | None) -> Any:  # P(ρ <= x)
                if x is None:
                    return flint.arb(1)
                return (-_arb(flint, x) / root2s).erfc() / 2

            if low is not None and low >= 0:  # both tails on the right: no cancellation
                value = upper_tail(low) - (upper_tail(high) if high is not None else 0)
            elif high is not None and high <= 0:
                value = lower_tail(high) - (lower_tail(low) if low is not None else 0)
            else:
                value = 1 - (lower_tail(low) if low is not None else 0) - (
                    upper_tail(high) if high is not None else 0)
            return _probability(*arb_bounds(value), prec)

    return Enclosure(at, f"P({low} < N(0, {scale}^2) <= {high})",
                     key=("normal_mass", scale, low, high))


def gaussian_answer(gap: Fraction, sigma: Fraction, above: bool) -> Enclosure:
    """`P(ν >= gap)` (⊤) or `P(ν < gap)` (⊥), `ν ~ N(0, σ²)`: a comparison with no shared draw."""
    return normal_mass(sigma, gap, None) if above else normal_mass(sigma, None, gap)


def _constraints(answers: Sequence[Answer]) -> tuple[Fraction | None, Fraction | None]:
    """The interval `(L, U]` the noiseless comparisons leave for `ρ`: ⊤ needs `r <= -gap`,
    ⊥ needs `r > -gap`."""
    low: Fraction | None = None
    high: Fraction | None = None
    for gap, sigma, above in answers:
        if sigma == 0:
            if above:
                high = -gap if high is None else min(high, -gap)
            else:
                low = -gap if low is None else max(low, -gap)
    return low, high


@lru_cache(maxsize=1 << 14)
def shared_gaussian_answers(scale: Fraction, answers: tuple[Answer, ...]) -> Enclosure:
    """`P(all answers)` for comparisons sharing `ρ ~ N(0, scale²)` (`answers`: sorted
    `(gap, fresh σ, answer)`, fresh σ = 0 for none); `scale = 0`: no shared draw (`ρ = 0`)."""
    if scale == 0:
        fresh: list[Enclosure] = []
        for gap, sigma, above in answers:
            if sigma == 0:
                if (gap <= 0) != above:
                    return Enclosure.zero()
                continue
            fresh.append(gaussian_answer(gap, sigma, above))
        out = Enclosure.of(1)
        for f in fresh:
            out = out * f
        return out
    low, high = _constraints(answers)
    if low is not None and high is not None and low >= high:
        return Enclosure.zero()
    noisy = Counter((gap, sigma, above) for gap, sigma, above in answers if sigma != 0)
    if not noisy:
        return normal_mass(scale, low, high)
    factors = tuple(sorted(noisy.items()))
    return Enclosure(lambda prec: _integral(scale, low, high, factors, prec),
                     f"P({len(answers)} answers sharing N(0, {scale}^2))",
                     key=("shared_gaussian", scale, low, high, factors))


def _integral(scale: Fraction, low: Fraction | None, high: Fraction | None,
              factors: tuple[tuple[Answer, int], ...], prec: int) -> Bounds:
    """`∫_(L,U] φ_s(r)·Π g_i(r)^(n_i) dr` enclosed: Arb quadrature on `[-T, T] ∩ (L, U]`
    plus the mass of `ρ` beyond `±T` on the upper side."""
    k = _tail_k(prec + 4)
    t = scale * k
    a = -t if low is None else max(low, -t)
    b = t if high is None else min(high, t)
    with arb_precision(prec + 2 * GUARD_BITS) as flint:
        root2 = flint.arb(2).sqrt()
        s = _arb(flint, scale)
        consts = [(_arb(flint, gap), 1 / (root2 * _arb(flint, sigma)), above, n)
                  for (gap, sigma, above), n in factors]

        def integrand(r: Any, analytic: bool) -> Any:
            value = (-(r * r) / (2 * s * s)).exp()
            for gap, c, above, n in consts:
                z = (gap + r) * c
                value = value * (((z if above else -z).erfc() / 2) ** n)
            return value

        total = flint.arb(0)
        if a < b:
            total = flint.acb.integral(integrand, _arb(flint, a), _arb(flint, b)).real
        total = total / (s * (2 * flint.arb.pi()).sqrt())
        tail = (flint.arb(k) / root2).erfc()  # P(|ρ| > T), T = k·s
        lo, _ = arb_bounds(total)
        _, hi = arb_bounds(total + tail)
    return _probability(lo, hi, prec)


def _noisy_max_at(gaps: tuple[Fraction, ...], sigma: Fraction, index: int, prec: int) -> Bounds:
    """`P(argmax = index)`: `∫ φ_σ(x - c_i)·Π_{j≠i} Φ((x - c_j)/σ) dx`, shifted to `x = c_i + u`;
    the mass of `u` beyond `±T` is added to the upper bound."""
    k = _tail_k(prec + 4)
    t = sigma * k
    others = Counter(gaps[index] - g for j, g in enumerate(gaps) if j != index)
    with arb_precision(prec + 2 * GUARD_BITS) as flint:
        root2 = flint.arb(2).sqrt()
        s = _arb(flint, sigma)
        consts = [(_arb(flint, d), n) for d, n in others.items()]

        def integrand(u: Any, analytic: bool) -> Any:
            value = (-(u * u) / (2 * s * s)).exp()
            for d, n in consts:  # Φ((u + d)/σ) = ½·erfc(-(u + d)/(σ√2))
                value = value * (((-(u + d) / (root2 * s)).erfc() / 2) ** n)
            return value

        total = flint.acb.integral(integrand, _arb(flint, -t), _arb(flint, t)).real
        total = total / (s * (2 * flint.arb.pi()).sqrt())
        tail = (flint.arb(k) / root2).erfc()
        lo, _ = arb_bounds(total)
        _, hi = arb_bounds(total + tail)
    return _probability(lo, hi, prec)


def _argmax_probability(gaps: tuple[Fraction, ...], sigma: Fraction, index: int) -> Enclosure:
    return Enclosure(lambda prec: _noisy_max_at(gaps, sigma, index, prec),
                     f"P(argmax = {index})", key=("gaussian_argmax", gaps, sigma, index))


@lru_cache(maxsize=1 << 12)
def _noisy_max_law(gaps: tuple[Fraction, ...], sigma: Fraction) -> tuple[Enclosure, ...]:
    return tuple(_argmax_probability(gaps, sigma, i) for i in range(len(gaps)))


def gaussian_noisy_max_law(counts: Sequence[Fraction], sigma: Fraction) -> tuple[Enclosure, ...]:
    """`P(argmax_i (counts[i] + ν_i) = i)`, `ν_i ~ N(0, σ²)`, for each `i` (certified)."""
    counts = tuple(Fraction(c) for c in counts)
    if not counts:
        raise ParameterError("counts", counts, "at least one count")
    sigma = positive_rational(sigma, "sigma", " (the standard deviation)")
    base = min(counts)  # the law depends on differences only: shift for cache hits
    return _noisy_max_law(tuple(c - base for c in counts), sigma)


def gaussian_log_ratio(x: Fraction, mu_p: Fraction, mu_q: Fraction, sigma: Fraction) -> Fraction:
    """`ln(p(x)/q(x))` for `p = N(μ_p, σ²)`, `q = N(μ_q, σ²)`, exactly:
    `((x - μ_q)² - (x - μ_p)²) / (2σ²)`, affine in `x` (so monotone)."""
    return ((x - mu_q) ** 2 - (x - mu_p) ** 2) / (2 * sigma**2)


def analytic_gaussian_delta(eps: Fraction, sigma: Fraction, sensitivity: Fraction | None = None,
                            *, sensitivity_squared: Fraction | None = None) -> Enclosure:
    """Balle and Wang (ICML 2018), Theorem 8, the closed form of the Gaussian mechanism's
    profile: `δ(ε) = Φ(Δ/(2σ) - εσ/Δ) - e^ε·Φ(-Δ/(2σ) - εσ/Δ)`, enclosed with Arb (an
    independent formula: the checkers compare it with the package's own hockey stick). `Δ` is
    `sensitivity`, or `√sensitivity_squared` (an ℓ2 sensitivity such as `√m`)."""
    if (sensitivity is None) == (sensitivity_squared is None):
        raise ParameterError("sensitivity", (sensitivity, sensitivity_squared),
                             "exactly one of sensitivity, sensitivity_squared")
    eps = positive_rational(eps, "eps", zero=True)
    sigma = positive_rational(sigma, "sigma", " (the standard deviation)")
    why = " (Delta > 0: a Gaussian pair differs)"
    square = (positive_rational(sensitivity, "sensitivity", why) ** 2 if sensitivity is not None
              else positive_rational(sensitivity_squared, "sensitivity_squared", why))

    def at(prec: int) -> Bounds:
        with arb_precision(prec + 2 * GUARD_BITS) as flint:
            root2 = flint.arb(2).sqrt()
            e, s, d = _arb(flint, eps), _arb(flint, sigma), _arb(flint, square).sqrt()

            def phi(x: Any) -> Any:
                return (-x / root2).erfc() / 2

            value = phi(d / (2 * s) - e * s / d) - e.exp() * phi(-d / (2 * s) - e * s / d)
            lo, hi = arb_bounds(value)
        return round_bounds(lo, hi, prec + GUARD_BITS)

    return Enclosure(at, f"Balle-Wang delta({eps}; sigma={sigma}, Delta^2={square})")
