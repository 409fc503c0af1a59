"""Noisy primitives beyond BT, behind the same seam: shared-noise threshold tests and noisy max.

BetweenCut asks every noisy decision as a `BTQuery` with fresh noise. Mechanisms of the sparse
vector family (SVT) and report-noisy-max need two more primitives, asked the same way, through
a test object that the mechanism calls (`test(query)`):

* `DrawNoise(scale)` draws one `ρ ~ Lap(scale)` that later comparisons share, and answers an
  opaque `SharedNoise` handle (the value of `ρ` is never revealed to the mechanism);
* `AboveThreshold(count, threshold, scale, shared)` answers `count + ν >= threshold + ρ` with a
  fresh `ν ~ Lap(scale)` (`scale = 0`: no fresh noise) and `ρ` the shared draw (`None`: 0);
* `NoisyMax(counts, scale)` answers `argmax_i (counts[i] + ν_i)`, fresh `ν_i ~ Lap(scale)`.

Each primitive takes `noise=LAPLACE` (the default, `scale` is the Laplace scale `b`) or
`noise=GAUSSIAN` (`scale` is the standard deviation `σ` of `N(0, σ²)`); a shared draw's handle
carries its law. The release path draws Gaussian noise lazily and exactly too
(`betweencut.noise.gaussian.LazyGaussian`, Karney 2016); the proof path encloses its laws
(`betweencut.proofs.privacy.enumeration.gaussian_noise`, certified, not exact).

Every answer set is finite (a bool, an index), so a mechanism written against these primitives
has finitely many answer sequences. Implementations of the test:

* `ExactQuerySampler` (release path) draws every Laplace variable lazily and exactly: a fair
  sign, an integer part counted in Bernoulli(e^-1) draws and binary digits of the fractional part
  (for `E ~ Exp(1)` they are independent, digit `j` is 1 with probability `1/(1 + e^(2^-j))`),
  refined only until the comparison is decided; only integer arithmetic, no float;
* `ReplayQueries` (proof path) answers from a fixed list and raises `UnansweredNoisyQuery` past
  it; `betweencut.proofs.privacy.enumeration.shared_noise` enumerates every answer sequence of the
  real code and gives each its exact probability (integrals of products of Laplace CDFs).
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol, overload

from betweencut.data.validate import check_seed, exact_number, positive_rational
from betweencut.errors import BetweenCutError, ParameterError
from betweencut.noise.answers import QueryAnswer
from betweencut.noise.bt_sampler import bernoulli_exp
from betweencut.noise.gaussian import LazyGaussian

__all__ = [
    "GAUSSIAN", "LAPLACE", "NOISES", "AboveThreshold", "Answer", "DrawNoise",
    "ExactQuerySampler", "NoisyMax", "NoisyQuery", "QueryTest", "QueryTestBase", "ReplayQueries",
    "SharedNoise", "UnansweredNoisyQuery", "is_gaussian",
]

LAPLACE, GAUSSIAN = "laplace", "gaussian"
NOISES = (LAPLACE, GAUSSIAN)


def _rational(value: object, name: str) -> Fraction:
    return exact_number(value, name)  # the converter of every exact parameter


def _answer(value: object, name: str) -> Fraction:
    """A count or threshold: exact, or a symbolic query answer passed on unchanged (the proof
    path's oblivious run, `betweencut.noise.answers`)."""
    return value if isinstance(value, QueryAnswer) else exact_number(value, name)


def _check_noise(noise: object) -> None:
    if noise not in NOISES:
        raise ParameterError("noise", noise, f"one of {NOISES} (scale: Laplace b or Gaussian "
                             "sigma)")


@dataclass(frozen=True, slots=True)
class SharedNoise:
    """The handle of one shared draw `ρ ~ Lap(scale)` (or `N(0, scale²)` when `noise` is
    `GAUSSIAN`): `ident` numbers the draws of one run."""

    ident: int
    scale: Fraction
    noise: str = LAPLACE

    def __post_init__(self) -> None:
        if type(self.ident) is not int or self.ident < 0:
            raise ParameterError("ident", self.ident, "a non-negative int (the draw's number)")
        object.__setattr__(self, "scale", _rational(self.scale, "scale"))


@dataclass(frozen=True, slots=True)
class DrawNoise:
    """Draw `ρ ~ Lap(scale)` (`noise=GAUSSIAN`: `ρ ~ N(0, scale²)`), `scale > 0` rational,
    shared by the comparisons that name it."""

    scale: Fraction
    noise: str = LAPLACE

    def __post_init__(self) -> None:
        scale = positive_rational(self.scale, "scale", " (rho ~ Lap(scale))")
        _check_noise(self.noise)
        object.__setattr__(self, "scale", scale)


@dataclass(frozen=True, slots=True)
class AboveThreshold:
    """`count + ν >= threshold + ρ`: `ν ~ Lap(scale)` fresh (`noise=GAUSSIAN`:
    `ν ~ N(0, scale²)`; `scale = 0`: none), `ρ` the shared draw `shared` (`None`: `ρ = 0`).
    Answers `True` (⊤, above) or `False` (⊥)."""

    count: Fraction
    threshold: Fraction
    scale: Fraction
    shared: SharedNoise | None = None
    noise: str = LAPLACE

    def __post_init__(self) -> None:
        for name in ("count", "threshold"):
            object.__setattr__(self, name, _answer(getattr(self, name), name))
        object.__setattr__(self, "scale", positive_rational(
            self.scale, "scale", " (0: no fresh noise)", zero=True))
        if self.shared is not None and not isinstance(self.shared, SharedNoise):
            raise ParameterError("shared", self.shared, "None or a SharedNoise handle")
        _check_noise(self.noise)


@dataclass(frozen=True, slots=True)
class NoisyMax:
    """`argmax_i (counts[i] + ν_i)` with fresh `ν_i ~ Lap(scale)` (`noise=GAUSSIAN`:
    `ν_i ~ N(0, scale²)`), `scale > 0` (ties have probability 0). Answers the index."""

    counts: tuple[Fraction, ...]
    scale: Fraction
    noise: str = LAPLACE

    def __post_init__(self) -> None:
        _check_noise(self.noise)
        if not isinstance(self.counts, tuple) or not self.counts:
            raise ParameterError("counts", self.counts, "a non-empty tuple of rationals")
        object.__setattr__(self, "counts", tuple(
            _answer(c, f"counts[{i}]") for i, c in enumerate(self.counts)))
        object.__setattr__(self, "scale", positive_rational(
            self.scale, "scale", " (ties have probability 0)"))


NoisyQuery = DrawNoise | AboveThreshold | NoisyMax
Answer = SharedNoise | bool | int


def is_gaussian(query: object) -> bool:
    """Whether a primitive draws Gaussian noise (its own, or the shared draw it compares with)."""
    if isinstance(query, AboveThreshold):
        shared = query.shared
        return (query.noise == GAUSSIAN and query.scale > 0) or (
            shared is not None and shared.noise == GAUSSIAN)
    return isinstance(query, DrawNoise | NoisyMax) and query.noise == GAUSSIAN


class QueryTest(Protocol):
    """What a mechanism calls: `test(DrawNoise)`, `test(AboveThreshold)`, `test(NoisyMax)`."""

    @overload
    def __call__(self, query: DrawNoise) -> SharedNoise: ...
    @overload
    def __call__(self, query: AboveThreshold) -> bool: ...
    @overload
    def __call__(self, query: NoisyMax) -> int: ...


class QueryTestBase:
    """Dispatches `test(query)` to `draw`, `above` and `argmax` (subclasses implement them)."""

    def __init__(self) -> None:
        self.draws = 0

    @overload
    def __call__(self, query: DrawNoise) -> SharedNoise: ...
    @overload
    def __call__(self, query: AboveThreshold) -> bool: ...
    @overload
    def __call__(self, query: NoisyMax) -> int: ...

    def __call__(self, query: NoisyQuery) -> Answer:
        if isinstance(query, DrawNoise):
            handle = SharedNoise(self.draws, query.scale, query.noise)
            self.draws += 1
            self.draw(handle)
            return handle
        if isinstance(query, AboveThreshold):
            return self.above(query)
        if isinstance(query, NoisyMax):
            return self.argmax(query)
        raise ParameterError("query", query, "a DrawNoise, AboveThreshold or NoisyMax")

    def draw(self, handle: SharedNoise) -> None:
        """A new shared draw (no answer is revealed: nothing to branch on)."""

    def above(self, query: AboveThreshold) -> bool:
        raise NotImplementedError

    def argmax(self, query: NoisyMax) -> int:
        raise NotImplementedError


class UnansweredNoisyQuery(BetweenCutError):
    """Raised by `ReplayQueries` at the first answered query past its fixed answers."""

    def __init__(self, query: NoisyQuery, position: int) -> None:
        self.query = query
        self.position = position
        super().__init__(f"query {position} ({query}) has no fixed answer")


class ReplayQueries(QueryTestBase):
    """Answers the first `len(answers)` comparisons / noisy maxima from `answers`, in order, then
    raises `UnansweredNoisyQuery`; `log` keeps every answered `(query, answer)`."""

    def __init__(self, answers: Sequence[bool | int] = ()) -> None:
        super().__init__()
        self.answers = tuple(answers)
        self.log: list[tuple[AboveThreshold | NoisyMax, bool | int]] = []

    def _next(self, query: AboveThreshold | NoisyMax) -> bool | int:
        position = len(self.log)
        if position >= len(self.answers):
            raise UnansweredNoisyQuery(query, position)
        answer = self.answers[position]
        self.log.append((query, answer))
        return answer

    def above(self, query: AboveThreshold) -> bool:
        return bool(self._next(query))

    def argmax(self, query: NoisyMax) -> int:
        answer = self._next(query)
        if not 0 <= int(answer) < len(query.counts):
            raise ParameterError("answer", answer, f"an index below {len(query.counts)}")
        return int(answer)


# --- the release path: lazy exact Laplace draws ------------------------------------------------


def _bernoulli_logistic(x: Fraction, rng: random.Random) -> bool:
    """True with probability `1/(1 + e^x)`, `x >= 0` rational: propose 1 or 0 fairly, accept 1
    with probability `e^-x` and 0 always, repeat on rejection (odds `e^-x : 1`)."""
    while True:
        if rng.getrandbits(1):
            if bernoulli_exp(x, rng):
                return True
        else:
            return False


class LazyLaplace:
    """`s·scale·E`, `E ~ Exp(1)`, drawn exactly and lazily: `bounds()` encloses it, `refine()`
    draws one more binary digit of the fractional part of `E`."""

    def __init__(self, scale: Fraction, rng: random.Random) -> None:
        self.scale, self.rng = scale, rng
        self.sign = 1 if rng.getrandbits(1) else -1
        whole = 0
        while bernoulli_exp(Fraction(1), rng):  # P(floor(E) >= k) = e^-k
            whole += 1
        self.low = Fraction(whole)
        self.width = Fraction(1)

    def refine(self) -> None:
        self.width /= 2
        if _bernoulli_logistic(self.width, self.rng):
            self.low += self.width

    def bounds(self) -> tuple[Fraction, Fraction]:
        lo, hi = self.scale * self.low, self.scale * (self.low + self.width)
        return (lo, hi) if self.sign > 0 else (-hi, -lo)


Lazy = LazyLaplace | LazyGaussian


def _lazy(scale: Fraction, noise: str, rng: random.Random) -> Lazy:
    """A lazy exact draw of the noise law `noise` at `scale` (Laplace `b` or Gaussian `σ`)."""
    return LazyGaussian(scale, rng) if noise == GAUSSIAN else LazyLaplace(scale, rng)


def _sum_bounds(const: Fraction, plus: Sequence[Lazy], minus: Sequence[Lazy]
                ) -> tuple[Fraction, Fraction]:
    lo = hi = const
    for v in plus:
        a, b = v.bounds()
        lo, hi = lo + a, hi + b
    for v in minus:
        a, b = v.bounds()
        lo, hi = lo - b, hi - a
    return lo, hi


def _widest(variables: Sequence[Lazy]) -> Lazy:
    return max(variables, key=lambda v: v.scale * v.width)


class ExactQuerySampler(QueryTestBase):
    """The release test for the shared-noise primitives: exact, from the OS CSPRNG unless
    `seed` is given (seeded runs are for reproducible tests only, never for a release)."""

    def __init__(self, seed: int | bytes | None = None) -> None:
        super().__init__()
        seed = check_seed(seed)
        self.rng: random.Random = (
            random.Random(seed) if seed is not None else secrets.SystemRandom()
        )
        self.shared: dict[int, Lazy] = {}

    def draw(self, handle: SharedNoise) -> None:
        self.shared[handle.ident] = _lazy(handle.scale, handle.noise, self.rng)

    def above(self, query: AboveThreshold) -> bool:
        const = query.count - query.threshold
        plus = [_lazy(query.scale, query.noise, self.rng)] if query.scale > 0 else []
        minus = [] if query.shared is None else [self._shared(query.shared)]
        if not plus and not minus:
            return const >= 0
        while True:  # ties have probability 0: the loop ends with probability 1
            lo, hi = _sum_bounds(const, plus, minus)
            if lo > 0:
                return True
            if hi < 0:
                return False
            _widest([*plus, *minus]).refine()

    def argmax(self, query: NoisyMax) -> int:
        noise = [_lazy(query.scale, query.noise, self.rng) for _ in query.counts]
        while True:
            boxes = [_sum_bounds(c, [v], []) for c, v in zip(query.counts, noise, strict=True)]
            best = max(range(len(boxes)), key=lambda i: boxes[i][0])
            if all(boxes[best][0] > boxes[j][1] for j in range(len(boxes)) if j != best):
                return best
            for v in noise:
                v.refine()

    def _shared(self, handle: SharedNoise) -> Lazy:
        found = self.shared.get(handle.ident)
        if found is None or found.scale != handle.scale or isinstance(
                found, LazyGaussian) != (handle.noise == GAUSSIAN):
            raise ParameterError("shared", handle, "a handle drawn by this test")
        return found
