"""The noisy-test interface: the one seam through which BetweenCut touches randomness.

Every randomized decision of the mechanism is a `BTQuery`, one call of BT(c; a, b, λ) (Alg. 4):
draw fresh `Z ~ Lap(1/λ)` and answer `L` if `c + Z < a`, `H` if `c + Z > b`, `B` otherwise.
The mechanism hands each query to a `NoisyTest`, a callable `query -> Outcome`. Implementations:

* `ExactSampler` (release path): draws the outcome with exactly the probabilities of the
  continuous Laplace law, using only integer arithmetic (see `betweencut.noise.bt_sampler`).
* `ReplayTest` (proof path): answers from a fixed list of outcomes and raises `UnansweredQuery`
  at the first query past it, so `betweencut.proofs` can enumerate every outcome of the real
  mechanism code with its exact probability, branching at each new query.
* `RecordingTest`: wraps another test and keeps every (query, outcome) pair.

Deterministic decisions (the guards of GuardedBT, Alg. 1, l. 1-4) are not noisy tests: the
mechanism decides them itself, so they cost no branching when enumerated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from typing import Protocol

from betweencut.data.validate import exact_fractions, exact_number, positive_rational
from betweencut.errors import BetweenCutError, ParameterError, shown

#: why BT's rate `lam` must be > 0 (`positive_rational`'s reason, here and in `GuardedBT.of`)
LAM_WHY = " (the noise is Lap(1/lam))"


class Outcome(StrEnum):
    """An answer of BT or GuardedBT: below `a` (Light), between, or above `b` (Heavy)."""

    L = "L"
    B = "B"
    H = "H"

    def __repr__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class BTQuery:
    """One call of BT(c; a, b, λ) (Alg. 4). `lam` is the rate: the noise is `Lap(1/lam)`.

    `a == b` is allowed and gives a two-outcome test (`B` then has probability 0), as PrivTree's
    split test is. `node` is public context (which node asked), unused by the law. `band`, if
    given, is the public noisy band `(lower, upper)` of the asking GuardedBT (the integer counts
    `lower < c < upper` that reach a noisy test): the release sampler then pads its work to a
    bound that depends on it, not on the count. It is not part of the query's identity.

    The fields are converted and checked here, at construction, by the converter of every
    exact parameter (`betweencut.data.validate.exact_number`): exact numbers only, each a `Fraction`
    with `int` parts afterwards; a float, NaN, None, a bool, text or a numpy uint64 past
    `2^63 - 1` raises `ParameterError` naming the field, before any draw.
    """

    count: Fraction
    a: Fraction
    b: Fraction
    lam: Fraction
    node: object = None
    band: tuple[int, int] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not exact_fractions(self.count, self.a, self.b, self.lam):
            for name in ("count", "a", "b"):
                object.__setattr__(self, name, exact_number(getattr(self, name), name))
            object.__setattr__(self, "lam", positive_rational(self.lam, "lam", LAM_WHY))
        band = self.band
        if band is not None and not (
                type(band) is tuple and len(band) == 2 and type(band[0]) is int
                and type(band[1]) is int and band[0] <= band[1]):
            raise ParameterError("band", band, "None or the public band (lower, upper) of two "
                                 "integers lower <= upper")
        a, b = self.a, self.b  # Fractions with int parts (above): compared as integers, the
        # hot path of every noisy query (Fraction's own comparisons cost several calls each)
        if a._numerator * b._denominator > b._numerator * a._denominator:  # type: ignore[attr-defined]
            raise ParameterError("a", a, f"a <= b = {shown(b)}")
        if self.lam._numerator <= 0:  # type: ignore[attr-defined]
            positive_rational(self.lam, "lam", LAM_WHY)  # the hot path's test: this one raises


def checked_outcome(value: object) -> Outcome:
    """A noisy test's answer as an `Outcome` (the strings "L", "B", "H" are read as such);
    anything else raises `ParameterError` (a user's test that answers, say, 'X')."""
    if type(value) is Outcome:
        return value
    try:
        if type(value) is not str:  # a str subclass may hash and compare as it likes
            raise ValueError(value)
        return Outcome(value)
    except ValueError:
        raise ParameterError(
            "test", repr(value), "a noisy test answers Outcome.L, Outcome.B or Outcome.H"
        ) from None


def check_test(test: object) -> None:
    """A `NoisyTest` is callable (or `None` for the release sampler)."""
    if test is not None and not callable(test):
        raise ParameterError("test", test, "a NoisyTest: a callable BTQuery -> Outcome, or None")


class NoisyTest(Protocol):
    """Answers a `BTQuery`. The mechanism's only access to randomness."""

    def __call__(self, query: BTQuery) -> Outcome: ...


class UnansweredQuery(BetweenCutError):
    """Raised by `ReplayTest` at the first query past its fixed answers."""

    def __init__(self, query: BTQuery, position: int) -> None:
        self.query = query
        self.position = position
        super().__init__(f"query {position} ({query}) has no fixed answer")


class ReplayTest:
    """Answers the first `len(answers)` queries from `answers`, then raises `UnansweredQuery`.

    Running the mechanism through a `ReplayTest` with a growing prefix enumerates its outcome
    tree: the mechanism is deterministic given the answers, so a prefix fixes the run up to the
    next query.
    """

    def __init__(self, answers: Sequence[Outcome] = ()) -> None:
        self.answers = tuple(answers)
        self.queries: list[BTQuery] = []

    def __call__(self, query: BTQuery) -> Outcome:
        position = len(self.queries)
        if position >= len(self.answers):
            raise UnansweredQuery(query, position)
        self.queries.append(query)
        return self.answers[position]


class RecordingTest:
    """Passes each query to `inner` and keeps the (query, outcome) pairs in order."""

    def __init__(self, inner: NoisyTest) -> None:
        self.inner = inner
        self.log: list[tuple[BTQuery, Outcome]] = []

    def __call__(self, query: BTQuery) -> Outcome:
        outcome = self.inner(query)
        self.log.append((query, outcome))
        return outcome
