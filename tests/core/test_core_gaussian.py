"""The Gaussian release samplers: the discrete Gaussian's law exactly, the continuous one by
chi-square tests.

The discrete Gaussian (CKS 2020, Alg. 3) is checked exactly, the way the padded Laplace sampler
is: every coin sequence of one attempt of the real code (`gaussian._attempt`) is enumerated with
its exact probability (`ExpPoly`), the Bernoulli primitives scripted. On the truncated support
`|y| <= T` the attempt's law must be exactly `c·e^(-y²/(2σ²))` for one constant `c` (an identity
of `ExpPoly`s, coefficient by coefficient), so the sampler's law there is exactly
`e^(-y²/(2σ²)) / Z`, the proof path's `DiscreteGaussian`; the mass beyond `T` is bounded by the
law's certified tail. A sampler with CKS Alg. 2's line 10 removed (`0` drawn with both signs)
must fail the same check.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Iterator
from fractions import Fraction as F

import mpmath
import pytest
from test_core_sampler import DRAWS, SEED, chi_square_verdict

from betweencut.errors import ParameterError
from betweencut.noise import gaussian
from betweencut.noise.gaussian import LazyGaussian, discrete_gaussian, discrete_gaussian_t
from betweencut.proofs.exact.arith import ExpPoly
from betweencut.proofs.laws.discrete_gaussian import DiscreteGaussian, tail_bound

HALF = F(1, 2)


class Script:
    """Answers the primitives' calls from a fixed list of outcomes and multiplies the exact
    probability of each answer into `weight` (the law the real primitives draw with)."""

    def __init__(self, answers: list[object]) -> None:
        self.answers = iter(answers)
        self.weight = ExpPoly.const(1)
        self.used = 0

    def below(self, n: int, bits: object) -> int:
        value = int(next(self.answers))  # type: ignore[call-overload]
        self.weight = self.weight * F(1, n)
        self.used += 1
        return value

    def bernoulli_exp(self, num: int, den: int, bits: object) -> bool:
        value = bool(next(self.answers))
        p = ExpPoly.exp(F(-num, den))
        self.weight = self.weight * (p if value else 1 - p)
        self.used += 1
        return value

    def bit(self, k: int) -> int:
        value = int(next(self.answers))  # type: ignore[call-overload]
        self.weight = self.weight * HALF
        self.used += 1
        return value


def coin_sequences(t: int, vmax: int, rejects_minus_zero: bool = True
                   ) -> Iterator[list[object]]:
    """Every outcome sequence of one attempt with `V <= vmax`: U, the coin D (accept U), V
    successes and a failure of Bernoulli(e^-1), the sign, the acceptance coin C. Sequences
    that stop early (D = 0, or Alg. 2's rejection of -0) are listed once."""
    for u in range(t):
        yield [u, False]
        for v in range(vmax + 1):
            head = [u, True, *[True] * v, False]
            for sign in (0, 1):
                if rejects_minus_zero and sign == 1 and u + t * v == 0:
                    yield [*head, sign]
                    continue
                for c in (False, True):
                    yield [*head, sign, c]


def attempt_law(sigma2: F, vmax: int, attempt: Callable[[F, int, object], int | None],
                monkeypatch: pytest.MonkeyPatch, rejects_minus_zero: bool = True
                ) -> tuple[dict[int, ExpPoly], ExpPoly]:
    """The exact law of one attempt over the coin sequences with `V <= vmax`: output ->
    probability, and the total probability of those sequences (outputs and rejections)."""
    t = discrete_gaussian_t(sigma2)
    law: dict[int, ExpPoly] = {}
    covered = ExpPoly()
    for answers in coin_sequences(t, vmax, rejects_minus_zero):
        script = Script(answers)
        monkeypatch.setattr(gaussian, "uniform_below", script.below)
        monkeypatch.setattr(gaussian, "bernoulli_exp_bits", script.bernoulli_exp)
        y = attempt(sigma2, t, script.bit)
        assert script.used == len(answers), answers  # the script is one whole attempt
        covered = covered + script.weight
        if y is not None:
            law[y] = law.get(y, ExpPoly()) + script.weight
    return law, covered


def proportional_to_gaussian(law: dict[int, ExpPoly], sigma2: F, reach: int) -> bool:
    """`law[y] = law[0]·e^(-y²/(2σ²))` exactly for every `|y| <= reach`."""
    base = law[0]
    return all(law.get(y, ExpPoly()) == base * ExpPoly.exp(F(-y * y) / (2 * sigma2))
               for y in range(-reach, reach + 1))


@pytest.mark.parametrize("sigma2", [F(1), F(9, 4), F(5)])
def test_discrete_gaussian_sampler_law_is_exact_on_a_truncated_support(
        sigma2: F, monkeypatch: pytest.MonkeyPatch) -> None:
    t = discrete_gaussian_t(sigma2)
    vmax = 3
    reach = t * (vmax + 1) - 1  # every |y| <= reach is reached with V <= vmax
    law, covered = attempt_law(sigma2, vmax, gaussian._attempt, monkeypatch)
    monkeypatch.undo()
    assert proportional_to_gaussian(law, sigma2, reach)
    # the enumerated sequences miss exactly those with D = 1 and V > vmax
    accept_u = sum((ExpPoly.exp(F(-u, t)) * F(1, t) for u in range(t)), ExpPoly())
    assert covered == 1 - accept_u * ExpPoly.exp(-(vmax + 1))
    # so the sampler's law on |y| <= reach is e^(-y²/2σ²)/Z, the proof path's; the mass beyond
    # `reach` is at most twice the certified tail over Z
    z_lo, _ = DiscreteGaussian(sigma2).normaliser.enclose(64)
    _, tail = tail_bound(reach, sigma2).enclose(64)
    assert 2 * tail / z_lo < F(1, 10**3)


def test_exact_law_check_rejects_a_sampler_that_draws_zero_twice(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The check can fail: without CKS Alg. 2's line 10 (reject `B = 1, Y = 0`), `0` comes
    with both signs and gets twice its weight."""
    def no_line_10(t: int, bits: Callable[[int], int]) -> int | None:
        u = gaussian.uniform_below(t, bits)
        if not gaussian.bernoulli_exp_bits(u, t, bits):
            return None
        v = 0
        while gaussian.bernoulli_exp_bits(1, 1, bits):
            v += 1
        x = u + t * v
        return -x if bits(1) == 1 else x

    monkeypatch.setattr(gaussian, "_laplace_attempt", no_line_10)
    sigma2 = F(9, 4)
    law, _ = attempt_law(sigma2, 3, gaussian._attempt, monkeypatch, rejects_minus_zero=False)
    assert not proportional_to_gaussian(law, sigma2, 5)


@pytest.mark.parametrize("sigma2", [F(1, 4), F(9, 4), F(10)])
def test_discrete_gaussian_frequencies_match_the_law(sigma2: F) -> None:
    rng = random.Random(SEED)
    observed = Counter(discrete_gaussian(sigma2, rng) for _ in range(DRAWS))
    with mpmath.workdps(40):
        s2 = mpmath.mpf(sigma2.numerator) / sigma2.denominator
        reach = int(12 * math.sqrt(float(sigma2))) + 3
        weights = {y: mpmath.exp(-y * y / (2 * s2)) for y in range(-reach, reach + 1)}
        z = sum(weights.values())
        law = {y: float(w / z) for y, w in weights.items()}
    assert chi_square_verdict(observed, law, DRAWS) == ""


def _normal_cell_law(edges: list[float]) -> dict[int, float]:
    cdf = [0.0] + [float(mpmath.ncdf(e)) for e in edges] + [1.0]
    return {i: cdf[i + 1] - cdf[i] for i in range(len(cdf) - 1)}


def _cell(x: LazyGaussian, edges: list[F]) -> int:
    """The cell of the draw among `edges`, refining the draw until it is decided."""
    while True:
        lo, hi = x.bounds()
        below = sum(1 for e in edges if e <= lo)
        if all(not lo < e <= hi for e in edges):
            return below
        x.refine()


def test_lazy_gaussian_frequencies_match_the_normal_law() -> None:
    edges = [F(k, 2) for k in range(-5, 6)]
    rng = random.Random(SEED)
    observed = Counter(_cell(LazyGaussian(F(1), rng), edges) for _ in range(DRAWS))
    law = _normal_cell_law([float(e) for e in edges])
    assert chi_square_verdict(observed, law, DRAWS) == ""


def test_lazy_gaussian_scale_and_the_test_can_fail() -> None:
    """σ = 3/2 against `N(0, (3/2)²)` fits; the same draws against `N(0, 1)` do not."""
    edges = [F(k, 2) for k in range(-5, 6)]
    rng = random.Random(SEED + 1)
    observed = Counter(_cell(LazyGaussian(F(3, 2), rng), edges) for _ in range(DRAWS))
    scaled = _normal_cell_law([float(e) / 1.5 for e in edges])
    assert chi_square_verdict(observed, scaled, DRAWS) == ""
    assert chi_square_verdict(observed, _normal_cell_law([float(e) for e in edges]),
                              DRAWS) != ""


def test_gaussian_samplers_validate_and_reproduce() -> None:
    with pytest.raises(ParameterError):
        discrete_gaussian(F(0), random.Random(0))
    with pytest.raises(ParameterError):
        discrete_gaussian(0.5, random.Random(0))  # type: ignore[arg-type]
    with pytest.raises(ParameterError):
        LazyGaussian(F(-1), random.Random(0))
    with pytest.raises(ParameterError):
        gaussian.discrete_laplace(0, random.Random(0).getrandbits)
    assert discrete_gaussian_t(F(9, 4)) == 2 and discrete_gaussian_t(F(4)) == 3
    one, two = random.Random(5), random.Random(5)
    assert [discrete_gaussian(F(3), one) for _ in range(50)] == [
        discrete_gaussian(F(3), two) for _ in range(50)]
