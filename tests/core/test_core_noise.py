"""The field's primitives (`betweencut.noise`): exact parameters, the proof path's replay and
released handles, and the release path's samplers, checked exactly.

Each sampler is run on every sequence of its own coin flips (`uniform_below`,
`bernoulli_exp_bits` and the sign bit scripted, each answer weighted by its exact probability),
so its law is an exact `ExpPoly` computed in the test: permute-and-flip and the permutation
have finitely many sequences (their law must equal the proof path's exactly); a rejection
sampler's first attempt must be proportional to its target law (every attempt is alike); the
discrete Laplace's first attempt on a window of outputs must be `c·e^(-|y|/b)`. A broken
sampler (the acceptance step dropped) fails the same check.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from fractions import Fraction as F
from itertools import permutations
from typing import Any

import pytest
from test_core_sampler import DRAWS, SEED, chi_square_verdict

from betweencut.errors import ParameterError
from betweencut.noise import (
    Bernoulli,
    BernoulliExp,
    ExactNoiseSampler,
    ExponentialMechanism,
    KaryRandomizedResponse,
    Noise,
    NoisyValue,
    PermuteAndFlip,
    RandomizedResponse,
    Released,
    ReleasedUse,
    ReplayNoise,
    UniformChoice,
    UniformPermutation,
)
from betweencut.noise import sampler as noise_sampler
from betweencut.noise.noisy_queries import UnansweredNoisyQuery
from betweencut.proofs.exact.arith import ExpPoly


class Beyond(Exception):
    """The scripted run asked past its script: a branch to explore."""


class Coins:
    """Answers the sampler's primitives from a fixed script, multiplying in each answer's exact
    probability; past the script it raises `Beyond` with the answers the next call may give."""

    def __init__(self, script: tuple[Any, ...], max_calls: int, attempts: int | None) -> None:
        self.script, self.used, self.max_calls = script, 0, max_calls
        self.attempts = attempts  # uniform draws allowed (each starts a rejection attempt)
        self.weight = ExpPoly.const(1)

    def _next(self, options: list[tuple[Any, ExpPoly]]) -> Any:
        if self.used >= len(self.script):
            if self.used >= self.max_calls:
                raise Beyond([])
            raise Beyond([o for o in options if not o[1].is_zero()])
        answer = self.script[self.used]
        self.used += 1
        self.weight = self.weight * dict(options)[answer]
        return answer

    def below(self, n: int, bits: object) -> int:
        if self.attempts is not None:
            if self.attempts == 0:
                raise Beyond([])  # a second attempt: its law is the first's
            self.attempts -= 1
        return int(self._next([(i, ExpPoly.const(F(1, n))) for i in range(n)]))

    def bernoulli_exp(self, num: int, den: int, bits: object) -> bool:
        p = ExpPoly.exp(F(-num, den))
        return bool(self._next([(True, p), (False, 1 - p)]))

    def bit(self, k: int) -> int:
        return int(self._next([(i, ExpPoly.const(F(1, 2**k))) for i in range(2**k)]))


def laws(run: Callable[[Any], Any], monkeypatch: pytest.MonkeyPatch, max_calls: int,
         attempts: int | None = None) -> dict[Any, ExpPoly]:
    """The exact probability of every output of `run(bits)` over the coin sequences of at most
    `max_calls` calls and `attempts` uniform draws (depth first)."""
    out: dict[Any, ExpPoly] = {}
    stack: list[tuple[Any, ...]] = [()]
    while stack:
        script = stack.pop()
        coins = Coins(script, max_calls, attempts)
        monkeypatch.setattr(noise_sampler, "uniform_below", coins.below)
        monkeypatch.setattr(noise_sampler, "bernoulli_exp_bits", coins.bernoulli_exp)
        try:
            value = run(coins.bit)
        except Beyond as more:
            stack.extend((*script, answer) for answer, _ in more.args[0])
            continue
        out[value] = out.get(value, ExpPoly()) + coins.weight
    return out


def proportional(found: dict[Any, ExpPoly], target: dict[Any, ExpPoly]) -> bool:
    """`found = c·target` for one constant `c`, exactly (cross products)."""
    keys = list(target)
    return set(found) == set(keys) and all(
        (found[a] * target[keys[0]] - found[keys[0]] * target[a]).is_zero() for a in keys)


def test_permute_and_flip_sampler_law_is_the_proof_paths_law(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from betweencut.proofs.laws.field_laws import finite_law

    query = PermuteAndFlip((F(1), F(-1), F(0)), F(1))

    def run(bits: Any) -> int:
        return int(ExactNoiseSampler(seed=0).field(query))

    found = laws(run, monkeypatch, 100)
    exact = finite_law(query)
    assert set(found) == set(exact)
    assert all(((found[i] - exact[i].num) * 1).is_zero() for i in exact)  # den is 1


def test_permutation_is_uniform(monkeypatch: pytest.MonkeyPatch) -> None:
    found = laws(lambda bits: noise_sampler.permutation(4, bits), monkeypatch, 100)
    assert set(found) == set(permutations(range(4)))
    assert all(p == ExpPoly.const(F(1, 24)) for p in found.values())


def _exponential_target(scores: tuple[F, ...], scale: F) -> dict[Any, ExpPoly]:
    return {i: ExpPoly.exp(s / scale) for i, s in enumerate(scores)}


def test_weighted_choice_first_attempt_is_proportional_to_the_target(
        monkeypatch: pytest.MonkeyPatch) -> None:
    weights = [(F(1), F(1, 2)), (F(2), F(0)), (F(1, 3), F(-3, 2))]
    found = laws(lambda bits: noise_sampler.weighted_choice(weights, bits), monkeypatch, 2, 1)
    target = {i: ExpPoly.exp(x, c) for i, (c, x) in enumerate(weights)}
    assert proportional(found, target)


def test_weighted_choice_without_acceptance_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(bits: Any) -> int:  # proposes by the coefficients only: the e^x factor is lost
        return noise_sampler.uniform_below(3, bits)

    target = {i: ExpPoly.exp(x) for i, x in enumerate((F(1, 2), F(0), F(-3, 2)))}
    assert not proportional(laws(broken, monkeypatch, 2, 1), target)


@pytest.mark.parametrize("b", [F(1), F(3, 2), F(1, 2)])
def test_discrete_laplace_first_attempt_is_proportional_on_a_window(
        b: F, monkeypatch: pytest.MonkeyPatch) -> None:
    window = 3
    found = laws(lambda bits: noise_sampler.discrete_laplace_scaled(b, bits), monkeypatch,
                 4 + math.ceil((window + 2) / b), attempts=1)
    target = {y: ExpPoly.exp(-F(abs(y)) / b) for y in range(-window, window + 1)}
    assert proportional({y: found[y] for y in target}, target)


@pytest.mark.parametrize(("query", "law"), [
    (RandomizedResponse(True, F(1)), {True: math.e / (1 + math.e), False: 1 / (1 + math.e)}),
    (KaryRandomizedResponse(1, 3, F(1)), {0: 1 / (math.e + 2), 1: math.e / (math.e + 2),
                                          2: 1 / (math.e + 2)}),
    (ExponentialMechanism((F(1), F(-1)), F(1)), {0: 1 / (1 + math.e**-2),
                                                 1: math.e**-2 / (1 + math.e**-2)}),
    (Bernoulli(F(1, 3)), {True: 1 / 3, False: 2 / 3}),
    (BernoulliExp(F(1, 2)), {True: math.exp(-0.5), False: 1 - math.exp(-0.5)}),
    (UniformChoice(3), {0: 1 / 3, 1: 1 / 3, 2: 1 / 3}),
])
def test_release_frequencies_match_the_law(query: Any, law: dict[Any, float]) -> None:
    sampler = ExactNoiseSampler(seed=SEED)
    drawn = Counter(sampler(query) for _ in range(DRAWS))
    assert chi_square_verdict(drawn, law, DRAWS) == ""


def test_released_values_are_exact_integers_or_lazy_reals() -> None:
    sampler = ExactNoiseSampler(seed=SEED)
    assert isinstance(sampler(NoisyValue(3, Noise.discrete_laplace(F(1, 2)))), int)
    assert isinstance(sampler(NoisyValue(3, Noise.discrete_gaussian(2))), int)
    lazy = sampler(NoisyValue(F(1, 3), Noise.laplace(1)))
    lo, hi = lazy.within(40)
    assert hi - lo <= F(1, 2**40) and lo <= hi
    assert isinstance(sampler(NoisyValue(0, Noise.gaussian(1))).bounds()[0], F)


def test_parameters_are_exact_and_checked() -> None:
    for bad in (lambda: Bernoulli(0.5), lambda: Bernoulli(F(3, 2)), lambda: BernoulliExp(-1),
                lambda: UniformChoice(0), lambda: UniformPermutation(9),
                lambda: ExponentialMechanism((), 1), lambda: PermuteAndFlip((1, 2), 0),
                lambda: RandomizedResponse(1, 1), lambda: KaryRandomizedResponse(3, 3, 1),
                lambda: NoisyValue(F(1, 2), Noise.discrete_laplace(1)),
                lambda: NoisyValue(1, "laplace"), lambda: Noise.gaussian(0)):
        with pytest.raises(ParameterError):
            bad()


def test_replay_answers_in_order_and_hands_out_released_handles() -> None:
    test = ReplayNoise([2, True])
    assert test(UniformChoice(3)) == 2
    handle = test(NoisyValue(5, Noise.laplace(1)))
    assert isinstance(handle, Released) and handle == Released(0, Noise.laplace(1))
    assert test(Bernoulli(F(1, 2))) is True
    with pytest.raises(UnansweredNoisyQuery):
        test(Bernoulli(F(1, 2)))
    with pytest.raises(ParameterError):
        ReplayNoise([5])(UniformChoice(3))


@pytest.mark.parametrize("use", [lambda h: h + 1, lambda h: h < 0, lambda h: int(h),
                                 lambda h: bool(h), lambda h: float(h), lambda h: -h])
def test_a_released_handle_may_only_be_released(use: Callable[[Released], object]) -> None:
    handle = ReplayNoise()(NoisyValue(1, Noise.discrete_gaussian(1)))
    with pytest.raises(ReleasedUse):
        use(handle)



def test_a_noisy_test_answers_exactly_an_outcome_or_its_letter() -> None:
    """`checked_outcome` reads "L", "B", "H" and the `Outcome`s; a str subclass that hashes
    and compares as "H" while being "X" is refused, not read as Heavy."""
    from betweencut.errors import ParameterError
    from betweencut.noise.noisy_test import Outcome, checked_outcome

    class Liar(str):
        def __eq__(self, other: object) -> bool:
            return True

        def __hash__(self) -> int:
            return hash("H")

    assert [checked_outcome(x) for x in ("L", "B", "H", Outcome.H)] == [*Outcome, Outcome.H]
    for wrong in (Liar("X"), "X", 1, None):
        with pytest.raises(ParameterError, match="a noisy test answers"):
            checked_outcome(wrong)
