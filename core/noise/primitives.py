"""The field's primitives, asked through the same seam as every noisy decision: `test(query)`.

Each primitive is a frozen value naming one random choice and its exact law:

* `Bernoulli(p)`: `True` with probability `p`, a rational in `[0, 1]`;
* `BernoulliExp(x)`: `True` with probability `e^(-x)`, a rational `x >= 0`;
* `UniformChoice(n)`: an index uniform in `range(n)`;
* `UniformPermutation(n)`: a permutation of `range(n)` (a tuple), uniform among the `n!`;
* `ExponentialMechanism(scores, scale)`: index `i` with probability
  `e^(scores[i]/scale) / Σ_j e^(scores[j]/scale)` (McSherry and Talwar 2007; ε-DP for
  `scale = 2Δ/ε`, and ε-bounded-range: `ε²/8`-zCDP, Cesar and Rogers 2021);
* `PermuteAndFlip(scores, scale)`: the candidates visited in a uniform random order, `i` kept
  with probability `e^((scores[i] - max scores)/scale)`, the first kept one answered (McKenna
  and Sheldon 2020; ε-DP for `scale = 2Δ/ε`);
* `RandomizedResponse(value, eps)`: the bit `value` kept with probability `e^ε/(1 + e^ε)`,
  flipped otherwise (Warner 1965);
* `KaryRandomizedResponse(value, k, eps)`: `value` in `range(k)` kept with probability
  `e^ε/(e^ε + k - 1)`, else one of the `k - 1` others uniformly;
* `NoisyValue(value, noise)`: `value + Y` released, `Y` drawn from `noise`: the discrete
  Laplace (geometric) `P(y) ∝ e^(-|y|/b)` or the discrete Gaussian `P(y) ∝ e^(-y²/(2σ²))` on
  the integers (an integer `value`: a noisy count), or the continuous Laplace or Gaussian.

Every parameter is exact (`betweencut.data.validate.exact_number`: a float is refused) and checked
at construction. The release path (`betweencut.noise.ExactNoiseSampler`) samples each
primitive exactly with integer arithmetic and the CSPRNG; the proof path (`ReplayNoise` here,
enumerated by `betweencut.proofs.privacy.enumeration.noise_kind`) answers from a fixed list and
gives a released value as an opaque `Released` handle, which the mechanism may only release
(return, possibly inside a tuple, list, dict or dataclass): any arithmetic or comparison on it
raises `ReleasedUse`, so the law of what is released is the law enumerated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NoReturn

from betweencut.data.validate import exact_number, positive_rational
from betweencut.errors import BetweenCutError, ParameterError
from betweencut.noise.noisy_queries import QueryTestBase, UnansweredNoisyQuery

__all__ = [
    "CONTINUOUS", "DISCRETE", "DISCRETE_GAUSSIAN", "DISCRETE_LAPLACE", "FIELD_PRIMITIVES",
    "GAUSSIAN", "LAPLACE", "MAX_CANDIDATES", "MAX_PERMUTED", "NOISE_KINDS", "Bernoulli",
    "BernoulliExp", "ExponentialMechanism",
    "FieldQuery", "KaryRandomizedResponse", "Noise", "NoiseTestBase", "NoisyValue",
    "PermuteAndFlip", "RandomizedResponse", "Released", "ReleasedUse", "ReplayNoise",
    "UniformChoice", "UniformPermutation", "answers_of", "is_answer", "is_field_query",
]

DISCRETE_LAPLACE, DISCRETE_GAUSSIAN = "discrete-laplace", "discrete-gaussian"
LAPLACE, GAUSSIAN = "laplace", "gaussian"
DISCRETE = (DISCRETE_LAPLACE, DISCRETE_GAUSSIAN)
CONTINUOUS = (LAPLACE, GAUSSIAN)
NOISE_KINDS = (*DISCRETE, *CONTINUOUS)
MAX_CANDIDATES = 64  # candidates of a choice (scores, k, n)
MAX_PERMUTED = 8  # items of a uniform permutation (8! = 40320 answers, each enumerated)
SCALE_MEANING = {DISCRETE_LAPLACE: "b, P(y) ∝ e^(-|y|/b)", DISCRETE_GAUSSIAN: "sigma^2",
                 LAPLACE: "b, density ∝ e^(-|y|/b)", GAUSSIAN: "sigma"}


def _rational(value: object, name: str) -> Fraction:
    return exact_number(value, name)


def _count(value: object, name: str, low: int, high: int = MAX_CANDIDATES) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ParameterError(name, repr(value), f"an integer {low}..{high}")
    return value


def _scores(scores: object) -> tuple[Fraction, ...]:
    if isinstance(scores, str | bytes) or not isinstance(scores, Sequence) or not (
            1 <= len(scores) <= MAX_CANDIDATES):
        raise ParameterError("scores", repr(scores), f"a sequence of 1..{MAX_CANDIDATES} "
                             "rational scores")
    return tuple(_rational(s, f"scores[{i}]") for i, s in enumerate(scores))


@dataclass(frozen=True, slots=True)
class Noise:
    """A noise law: `kind` one of `NOISE_KINDS` and its `scale` (the Laplace kinds: `b`, with
    `P(y) ∝ e^(-|y|/b)`; the discrete Gaussian: `σ²`; the continuous Gaussian: `σ`)."""

    kind: str
    scale: Fraction

    def __post_init__(self) -> None:
        if self.kind not in NOISE_KINDS:
            raise ParameterError("noise", self.kind, f"one of {', '.join(NOISE_KINDS)}")
        object.__setattr__(self, "scale", positive_rational(self.scale, "scale"))

    @staticmethod
    def discrete_laplace(b: object) -> Noise:
        """The discrete Laplace (two-sided geometric) `P(y) ∝ e^(-|y|/b)` on the integers."""
        return Noise(DISCRETE_LAPLACE, positive_rational(b, "b"))

    @staticmethod
    def discrete_gaussian(sigma2: object) -> Noise:
        """The discrete Gaussian `P(y) ∝ e^(-y²/(2σ²))` on the integers, rational `σ²`."""
        return Noise(DISCRETE_GAUSSIAN, positive_rational(sigma2, "sigma2"))

    @staticmethod
    def laplace(b: object) -> Noise:
        """The continuous Laplace, density `e^(-|y|/b)/(2b)`."""
        return Noise(LAPLACE, positive_rational(b, "b"))

    @staticmethod
    def gaussian(sigma: object) -> Noise:
        """The continuous Gaussian `N(0, σ²)`, rational `σ`."""
        return Noise(GAUSSIAN, positive_rational(sigma, "sigma"))

    @property
    def discrete(self) -> bool:
        return self.kind in DISCRETE

    def __str__(self) -> str:
        name = {DISCRETE_LAPLACE: "b", DISCRETE_GAUSSIAN: "sigma^2", LAPLACE: "b",
                GAUSSIAN: "sigma"}[self.kind]
        return f"{self.kind}({name}={self.scale})"


@dataclass(frozen=True, slots=True)
class Bernoulli:
    """`True` with probability `p` (a rational in `[0, 1]`)."""

    p: Fraction

    def __post_init__(self) -> None:
        p = _rational(self.p, "p")
        if not 0 <= p <= 1:
            raise ParameterError("p", p, "a rational 0 <= p <= 1")
        object.__setattr__(self, "p", p)


@dataclass(frozen=True, slots=True)
class BernoulliExp:
    """`True` with probability `e^(-x)` (a rational `x >= 0`)."""

    x: Fraction

    def __post_init__(self) -> None:
        object.__setattr__(self, "x", positive_rational(
            self.x, "x", " (True with probability e^(-x))", zero=True))


@dataclass(frozen=True, slots=True)
class UniformChoice:
    """An index uniform in `range(n)`, `1 <= n <= MAX_CANDIDATES`."""

    n: int

    def __post_init__(self) -> None:
        _count(self.n, "n", 1)


@dataclass(frozen=True, slots=True)
class UniformPermutation:
    """A uniform permutation of `range(n)` (a tuple), `1 <= n <= MAX_PERMUTED`."""

    n: int

    def __post_init__(self) -> None:
        _count(self.n, "n", 1, MAX_PERMUTED)


@dataclass(frozen=True, slots=True)
class ExponentialMechanism:
    """Index `i` with probability `e^(scores[i]/scale) / Σ_j e^(scores[j]/scale)`."""

    scores: tuple[Fraction, ...]
    scale: Fraction

    def __post_init__(self) -> None:
        object.__setattr__(self, "scores", _scores(self.scores))
        object.__setattr__(self, "scale", positive_rational(self.scale, "scale"))


@dataclass(frozen=True, slots=True)
class PermuteAndFlip:
    """McKenna and Sheldon's permute-and-flip: visit the candidates in a uniform random order and
    answer the first `i` kept, each kept with probability `e^((scores[i] - max)/scale)`."""

    scores: tuple[Fraction, ...]
    scale: Fraction

    def __post_init__(self) -> None:
        object.__setattr__(self, "scores", _scores(self.scores))
        object.__setattr__(self, "scale", positive_rational(self.scale, "scale"))


@dataclass(frozen=True, slots=True)
class RandomizedResponse:
    """The bit `value` kept with probability `e^ε/(1 + e^ε)`, flipped otherwise."""

    value: bool
    eps: Fraction

    def __post_init__(self) -> None:
        if not isinstance(self.value, bool):
            raise ParameterError("value", repr(self.value), "a bool")
        object.__setattr__(self, "eps", positive_rational(self.eps, "eps", zero=True))


@dataclass(frozen=True, slots=True)
class KaryRandomizedResponse:
    """`value` in `range(k)` kept with probability `e^ε/(e^ε + k - 1)`, else one of the `k - 1`
    other values uniformly (`2 <= k <= MAX_CANDIDATES`)."""

    value: int
    k: int
    eps: Fraction

    def __post_init__(self) -> None:
        _count(self.k, "k", 2)
        _count(self.value, "value", 0, self.k - 1)
        object.__setattr__(self, "eps", positive_rational(self.eps, "eps", zero=True))


@dataclass(frozen=True, slots=True)
class NoisyValue:
    """`value + Y`, `Y` drawn from `noise` and released. Discrete noise needs an integer
    `value` (a noisy count)."""

    value: Fraction
    noise: Noise

    def __post_init__(self) -> None:
        value = _rational(self.value, "value")
        if not isinstance(self.noise, Noise):
            raise ParameterError("noise", repr(self.noise), "a Noise (Noise.discrete_laplace(b), "
                                 "Noise.discrete_gaussian(sigma2), Noise.laplace(b), "
                                 "Noise.gaussian(sigma))")
        if self.noise.discrete and value.denominator != 1:
            raise ParameterError("value", value, f"an integer count ({self.noise.kind} noise "
                                 "lives on the integers)")
        object.__setattr__(self, "value", value)


FieldQuery = (Bernoulli | BernoulliExp | UniformChoice | UniformPermutation
              | ExponentialMechanism | PermuteAndFlip | RandomizedResponse
              | KaryRandomizedResponse | NoisyValue)
FIELD_PRIMITIVES = (Bernoulli, BernoulliExp, UniformChoice, UniformPermutation,
                    ExponentialMechanism, PermuteAndFlip, RandomizedResponse,
                    KaryRandomizedResponse, NoisyValue)


def is_field_query(query: object) -> bool:
    """Whether `query` is one of this module's primitives."""
    return isinstance(query, FIELD_PRIMITIVES)


def answers_of(query: object) -> tuple[Any, ...]:
    """Every answer of a finite primitive, in the order the proof path branches on them (a
    `NoisyValue` has infinitely many: `ParameterError`)."""
    from itertools import permutations

    if isinstance(query, Bernoulli | BernoulliExp | RandomizedResponse):
        return (True, False)
    if isinstance(query, UniformChoice):
        return tuple(range(query.n))
    if isinstance(query, UniformPermutation):
        return tuple(permutations(range(query.n)))
    if isinstance(query, ExponentialMechanism | PermuteAndFlip):
        return tuple(range(len(query.scores)))
    if isinstance(query, KaryRandomizedResponse):
        return tuple(range(query.k))
    raise ParameterError("query", repr(query), "a primitive with finitely many answers")


def is_answer(query: FieldQuery, answer: object) -> bool:
    """Whether `answer` is one of the answers of the finite primitive `query`."""
    if isinstance(query, Bernoulli | BernoulliExp | RandomizedResponse):
        return type(answer) is bool
    if isinstance(query, UniformPermutation):
        return isinstance(answer, tuple) and sorted(answer) == list(range(query.n))
    n = (query.n if isinstance(query, UniformChoice) else query.k
         if isinstance(query, KaryRandomizedResponse) else
         len(query.scores) if isinstance(query, ExponentialMechanism | PermuteAndFlip) else 0)
    return type(answer) is int and 0 <= answer < n


class ReleasedUse(BetweenCutError, TypeError):
    """A released noisy value was read (compared, added, converted): on the proof path a
    `Released` handle may only be released as is."""


class Released:
    """The proof path's stand-in for a released noisy value: the `index`-th value released in
    the run and its noise law. Two handles are equal when both are; the value's centre (the
    exact query answer it was drawn around) is kept by the test that handed it out. Anything
    but releasing it raises `ReleasedUse`."""

    __slots__ = ("index", "noise")

    def __init__(self, index: int, noise: Noise) -> None:
        self.index = index
        self.noise = noise

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Released) and (self.index, self.noise) == (
            other.index, other.noise)

    def __hash__(self) -> int:
        return hash(("released", self.index, self.noise))

    def __repr__(self) -> str:
        return f"released#{self.index}({self.noise})"

    def _refuse(self, *args: object) -> NoReturn:
        raise ReleasedUse(f"{self!r} is a released noisy value: the audit enumerates its law "
                          "only when it is released as is (return it; post-process outside "
                          "the mechanism)")

    __lt__ = __le__ = __gt__ = __ge__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _refuse
    __truediv__ = __rtruediv__ = __floordiv__ = __mod__ = __pow__ = __neg__ = _refuse
    __abs__ = __int__ = __float__ = __index__ = __bool__ = __round__ = _refuse


class NoiseTestBase(QueryTestBase):
    """Dispatches `test(query)`: the field's primitives to `field(query)`, the shared-noise
    primitives of `betweencut.noise.noisy_queries` to `QueryTestBase` (so one test serves both)."""

    def __call__(self, query: Any) -> Any:
        if isinstance(query, FIELD_PRIMITIVES):
            return self.field(query)
        return super().__call__(query)

    def field(self, query: FieldQuery) -> Any:
        raise NotImplementedError


class ReplayNoise(NoiseTestBase):
    """Answers the field's finite primitives from `answers`, in order, then raises
    `UnansweredNoisyQuery`; a `NoisyValue` consumes no answer and gets the next `Released`
    handle. `log` keeps every `(query, answer)` (a handle for a released value)."""

    def __init__(self, answers: Sequence[Any] = ()) -> None:
        super().__init__()
        self.answers = tuple(answers)
        self.log: list[tuple[Any, Any]] = []
        self.released = 0
        self.given = 0  # answers consumed

    def field(self, query: FieldQuery) -> Any:
        if isinstance(query, NoisyValue):
            handle = Released(self.released, query.noise)
            self.released += 1
            self.log.append((query, handle))
            return handle
        if self.given >= len(self.answers):
            raise UnansweredNoisyQuery(query, len(self.log))  # type: ignore[arg-type]
        answer = self.answers[self.given]
        if not is_answer(query, answer):
            raise ParameterError("answer", repr(answer), f"an answer of {query!r}")
        self.given += 1
        self.log.append((query, answer))
        return answer
