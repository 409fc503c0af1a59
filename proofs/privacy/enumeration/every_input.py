"""A pure claim over every neighbouring input at once, for oblivious shared-noise mechanisms
(issue 27, item 1): the extreme inputs of each output instead of the `3^m` moves.

A mechanism `run(q, test)` of query answers `q ∈ ℚ^m` asks the primitives of
`betweencut.noise.noisy_queries` (Laplace noise). `decide_families` runs it once per answer sequence
on *symbols* (`betweencut.noise.answers.QueryAnswer`: every value-dependent operation raises and is
recorded) and keeps each sequence's queries as templates: a count or threshold slot is `q_i` or
a constant. Families of neighbouring inputs are given as pairs of boxes `(A, B)` of integer
answer vectors (every `a ∈ A` is a neighbour of every `b ∈ B`: the add/remove pairs of the
empty database, `A = {0}`, `B = [-1, 1]^m`; the replace-one pairs of one record,
`A = B = [0, 1]^m`).

Proof (a Hoare triple).

Preconditions: (P1) the symbolic run of every answer sequence completes with no refusal on the
tripwire and asks, after a replayed prefix, the same templates as the run that created it;
(P2) the mechanism reads `q` only through the symbols it is handed (no `type(q_i) is ...`, no
reflection past the refused operations); (P3) Laplace noise only; (P4) for each output, the
coordinates on which its answer sequences pull in both directions ("conflicts") span at most
`MAX_CONFLICT_VERTICES` candidate vectors.

Steps. (1) *Obliviousness*: by (P1, P2) no operation whose result depends on the values of `q`
was executed on any answer sequence, so for every concrete `q` the real run on an answer
sequence `a` executes the same steps, asks the template queries with `q` substituted and returns
the same output; hence `P(o | q) = Σ_{a: out(a) = o} Π_groups ∫ f_ρ(r)·Π_i g_i(r; q) dr ·
Π_maxima P(argmax = answer | q)` (`shared_noise.grouped_probability`, the formula of the
direct enumeration). (2) *Monotonicity*: each factor is, pointwise in `r`, monotone in each
`q_j` in a direction fixed by the template and the answer alone: `P(count + ν >= threshold + r)`
increases with the count and decreases with the threshold (the complement for ⊥; an indicator
when there is no noise); `P(argmax = k)` increases with `counts[k]` and decreases with every other
count (stochastic order of `counts[j] + ν_j`). Integrating a non-negative product of functions
monotone in the same directions against the density `f_ρ ≥ 0` and summing over sequences keeps
the directions. So `F_o(q) = P(o | q)` is monotone in each coordinate `j` whose direction set
`d_j` (over the output's sequences and factors) is one sign, constant in coordinates with none.
(3) *Vertices*: on a box, moving such a coordinate to its upper end (or lower, by its sign) never
decreases `F_o`, whatever the others are; so `sup_B F_o` is the maximum of `F_o` over the vectors
whose directed coordinates sit at the favourable end and whose conflicting coordinates range over
their values (by (P4), listed), and `inf` likewise at the other end. (4) *The claim*: `(ε, 0)`
on every pair of the family is `P(o|b) <= e^ε·P(o|a)` and `P(o|a) <= e^ε·P(o|b)` for all
`a ∈ A`, `b ∈ B`, all outputs `o` (the hockey stick vanishes iff every output's ratio is
bounded); by (3) it is `sup_B F_o <= e^ε·inf_A F_o` and `sup_A F_o <= e^ε·inf_B F_o`, decided
exactly (`sign` of `ExpPoly`s) for every output. The extremes are themselves in the boxes, so a
violation is attained by a listed pair (the refutation is exact), and the largest ratio over the
outputs is the largest loss over every pair of the family.

Checks: (P1) during the symbolic run, (P3) per query, (P4) per output, and as a run-time guard
of (P2) the caller's `cross_check`: the real code enumerated directly at the extreme pair agrees
exactly with the templates' probabilities.
Returns: `Extremes`: per output the four exact extremes and the vectors attaining them;
`check(eps)` decides the claim, `largest_loss()` the worst output and pair.
Raises: `ReductionRefused` when a precondition fails (the caller falls back to listing every
pair, or refuses with a cost estimate), never a verdict from a broken assumption.
"""

from __future__ import annotations

import itertools
import math
import random
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from betweencut.boundary.encoding import release_of
from betweencut.errors import ParameterError
from betweencut.noise.answers import DataDependent, QueryAnswer, symbols
from betweencut.noise.noisy_queries import (
    LAPLACE,
    AboveThreshold,
    NoisyMax,
    QueryTest,
    QueryTestBase,
    SharedNoise,
)
from betweencut.noise.noisy_test import BTQuery
from betweencut.progress import current
from betweencut.proofs.exact.arith import ExpPoly, sign
from betweencut.proofs.privacy.enumeration.shared_noise import (
    Walking,
    enumerate_queries,
    grouped_probability,
)
from betweencut.proofs.privacy.enumeration.transcripts import (
    DEFAULT_MAX_QUERIES,
    WARMUP,
    fork_prefixes,
    walk_estimate,
)

__all__ = ["MAX_CONFLICT_VERTICES", "MAX_SEQUENCES", "Box", "Extremes", "OutputExtremes",
           "ReductionRefused", "Template", "Violation", "WalkingSymbolic", "cross_check",
           "decide_families", "estimate_symbolic_sequences", "symbolic_outcomes"]

MAX_SEQUENCES = 1 << 18  # answer sequences of the symbolic run
MAX_CONFLICT_VERTICES = 3**8
Slot = tuple[str, Any]  # ("q", i) for the symbol q_i, ("c", Fraction) for a constant
QueryRun = Callable[[tuple[Fraction, ...], QueryTest], Hashable]
Vector = tuple[int, ...]


class ReductionRefused(ParameterError):
    """A precondition of the reduction fails for this mechanism (see the module docstring)."""

    def __init__(self, reason: str, subject: str = "this mechanism") -> None:
        super().__init__("mechanism", subject,
                         f"an oblivious Laplace shared-noise mechanism for the reduction: {reason}")
        self.reason = reason


@dataclass(frozen=True)
class Template:
    """One query asked on an answer sequence, with `q` left symbolic: `above` (slots: count,
    threshold; `shared` the draw's `(ident, scale)` or None) or `max` (slots: the counts)."""

    kind: str
    slots: tuple[Slot, ...]
    scale: Fraction
    shared: tuple[int, Fraction] | None = None


def _slot(value: Fraction) -> Slot:
    return ("q", value.index) if isinstance(value, QueryAnswer) else ("c", value)


class SymbolicQueries(QueryTestBase):
    """The symbolic run's test: replays a prefix of answers, then answers ⊤ (or index 0) and
    remembers the others; a comparison of constants with no noise is answered exactly, one that
    involves a symbol is branched (its law is an indicator)."""

    def __init__(self, prefix: tuple[bool | int, ...]) -> None:
        super().__init__()
        self.prefix = prefix
        self.log: list[tuple[Template, bool | int]] = []
        self.forks: list[tuple[int, bool | int]] = []  # (answers before, the other answer)

    @property
    def branches(self) -> list[tuple[bool | int, ...]]:
        return fork_prefixes([answer for _, answer in self.log], self.forks)

    def __call__(self, query: object) -> Any:
        if isinstance(query, BTQuery):
            raise ReductionRefused("it asks a fresh-noise BTQuery")
        if len(self.log) >= DEFAULT_MAX_QUERIES:
            raise ReductionRefused(f"one answer sequence asks more than {DEFAULT_MAX_QUERIES} "
                                   "noisy queries")
        return super().__call__(query)  # type: ignore[call-overload]

    def draw(self, handle: SharedNoise) -> None:
        if handle.noise != LAPLACE:
            raise ReductionRefused("Gaussian noise (certified, not exact)")

    def above(self, query: AboveThreshold) -> bool:
        shared = query.shared
        if query.noise != LAPLACE or (shared is not None and shared.noise != LAPLACE):
            raise ReductionRefused("Gaussian noise (certified, not exact)")
        slots = (_slot(query.count), _slot(query.threshold))
        template = Template("above", slots, query.scale,
                            None if shared is None else (shared.ident, shared.scale))
        position = len(self.log)
        if position < len(self.prefix):
            answer = bool(self.prefix[position])
        elif query.scale == 0 and shared is None and all(k == "c" for k, _ in slots):
            answer = slots[0][1] >= slots[1][1]
        else:
            self.forks.append((position, False))
            answer = True
        self.log.append((template, answer))
        return answer

    def argmax(self, query: NoisyMax) -> int:
        if query.noise != LAPLACE:
            raise ReductionRefused("Gaussian noise (certified, not exact)")
        template = Template("max", tuple(_slot(c) for c in query.counts), query.scale)
        position = len(self.log)
        if position < len(self.prefix):
            answer = int(self.prefix[position])
        else:
            self.forks.extend((position, i) for i in range(1, len(query.counts)))
            answer = 0
        self.log.append((template, answer))
        return answer


class WalkingSymbolic(Walking, SymbolicQueries):
    """`SymbolicQueries` on a random walk (`shared_noise.Walking`)."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__(())
        self.rng, self.leaves = rng, 1


def estimate_symbolic_sequences(run: QueryRun, m: int) -> int:
    """Knuth's estimate of the answer sequences of the symbolic run of `run` (as
    `symbolic_outcomes` visits them); display and budgeting only. A walk meets only sequences
    the run itself visits, so a read of a value there is refused as the run would refuse it
    (`ReductionRefused`)."""
    q, trips = symbols(m)

    def once(rng: random.Random) -> int:
        test = WalkingSymbolic(rng)
        try:
            run(q, test)
        except DataDependent as exc:
            raise ReductionRefused(str(exc)) from None
        if trips:
            raise ReductionRefused(f"{trips[0]} (and caught the refusal)")
        return test.leaves

    return walk_estimate(once)


Log = tuple[tuple[Template, bool | int], ...]


def symbolic_outcomes(run: QueryRun, m: int, limit: int = MAX_SEQUENCES,
                      progress: Callable[[int, int | None], None] | None = None
                      ) -> Iterator[tuple[Hashable, Log]]:
    """Every answer sequence of `run(q, test)` with `q` symbolic: `(output, templates)`.
    `progress(count, about)` hears each sequence's count and, after the first `WARMUP`, the
    estimated total (`estimate_symbolic_sequences`); a run whose estimated time passes what is
    left of the time budget is refused then (`BudgetExceeded`).

    Raises: `ReductionRefused` at a value-dependent operation (also one the mechanism caught),
    a replay that meets other templates, an output the encoder refuses or a data-dependent
    one, Gaussian noise or a fresh-noise query, or past `limit` sequences (also when
    estimated past it).
    """
    q, trips = symbols(m)
    stack: list[tuple[bool | int, ...]] = [()]
    met: dict[tuple[bool | int, ...], tuple[Template, ...]] = {(): ()}
    count, about = 0, None
    started = time.monotonic()
    while stack:
        prefix = stack.pop()
        test = SymbolicQueries(prefix)
        try:
            raw = run(q, test)
        except DataDependent as exc:
            raise ReductionRefused(str(exc)) from None
        try:
            output = release_of(raw)  # keyed by its bytes (`boundary.encoding`)
        except DataDependent as exc:
            raise ReductionRefused(str(exc)) from None
        except ParameterError as exc:
            raise ReductionRefused(f"an output the audit does not encode ({exc})") from None
        if trips:
            raise ReductionRefused(f"{trips[0]} (and caught the refusal)")
        asked = tuple(t for t, _ in test.log)
        if asked[:len(prefix)] != met[prefix]:
            raise ReductionRefused(f"replaying {prefix} met other queries than the run that "
                                   "created it (hidden state or its own randomness)")
        branches = test.branches  # built once: each is a prefix of this run
        for branch in branches:
            met[branch] = asked[:len(branch)]
        stack.extend(reversed(branches))
        count += 1
        if count > limit:
            raise ReductionRefused(f"more than {limit} answer sequences")
        if count == WARMUP and stack:
            about = _project(run, m, count, limit, time.monotonic() - started)
        if progress is not None:
            progress(count, about)
        yield output, tuple(test.log)


def _project(run: QueryRun, m: int, done: int, limit: int, seconds: float) -> int:
    """The estimated answer sequences of a symbolic run that has visited `done` in `seconds`:
    refused past `limit`, or when their projected time passes what is left of the budget."""
    about = estimate_symbolic_sequences(run, m)
    if about > limit:
        raise ReductionRefused(f"more than {limit} answer sequences (about {about}, estimated "
                               "by random walks of the symbolic run)")
    current().afford(seconds / done * (about - done),
                     f"the symbolic run of about {about} answer sequences")
    return about


def _value(slot: Slot, q: Vector) -> Fraction:
    return Fraction(q[slot[1]]) if slot[0] == "q" else slot[1]


def probability(log: Log, q: Vector) -> ExpPoly:
    """`P(a | q)` of one answer sequence at concrete answers `q` (step (1) of the proof)."""
    groups: dict[int | None, tuple[Fraction, list[tuple[Fraction, Fraction, bool]]]] = {}
    maxima: list[tuple[tuple[Fraction, ...], Fraction, int]] = []
    for template, answer in log:
        if template.kind == "max":
            maxima.append((tuple(_value(s, q) for s in template.slots), template.scale,
                           int(answer)))
            continue
        key, scale = (None, Fraction(0)) if template.shared is None else template.shared
        count, threshold = (_value(s, q) for s in template.slots)
        groups.setdefault(key, (scale, []))[1].append(
            (threshold - count, template.scale, bool(answer)))
    return grouped_probability(groups.values(), maxima)


def directions(log: Log) -> dict[int, set[int]]:
    """Step (2): for each `q_j` the signs of the monotonicity of `P(a | q)` in it."""
    out: dict[int, set[int]] = {}
    for template, answer in log:
        if template.kind == "max":
            for k, (kind, j) in enumerate(template.slots):
                if kind == "q":
                    out.setdefault(j, set()).add(1 if k == answer else -1)
            continue
        (ck, cj), (tk, tj) = template.slots
        if ck == tk == "q" and cj == tj:
            continue  # count - threshold does not move
        up = 1 if answer else -1
        if ck == "q":
            out.setdefault(cj, set()).add(up)
        if tk == "q":
            out.setdefault(tj, set()).add(-up)
    return out


@dataclass(frozen=True)
class Box:
    """Integer answer vectors `lo <= q <= hi` entrywise."""

    lo: Vector
    hi: Vector

    def __post_init__(self) -> None:
        if len(self.lo) != len(self.hi) or any(a > b for a, b in zip(self.lo, self.hi,
                                                                      strict=True)):
            raise ParameterError("box", (self.lo, self.hi), "lo <= hi entrywise, equal lengths")

    def vertices(self, dirs: dict[int, set[int]], up: bool) -> list[Vector]:
        """Step (3): the candidates for the supremum (`up`) or infimum of `F_o` on the box."""
        choices: list[Sequence[int]] = []
        for j, (lo, hi) in enumerate(zip(self.lo, self.hi, strict=True)):
            signs = dirs.get(j, set())
            if len(signs) > 1:
                choices.append(range(lo, hi + 1))
            elif signs:
                choices.append((hi if (1 in signs) == up else lo,))
            else:
                choices.append((min(max(0, lo), hi),))
        if math.prod(len(c) for c in choices) > MAX_CONFLICT_VERTICES:
            raise ReductionRefused(f"an output pulls more than {MAX_CONFLICT_VERTICES} vertices "
                                   "in both directions")
        return [tuple(v) for v in itertools.product(*choices)]


@dataclass
class OutputExtremes:
    """One output: its answer sequences' templates and its extremes on `A` and `B` (exact
    probabilities with the vectors attaining them)."""

    output: Hashable
    logs: list[Log] = field(default_factory=list)
    sup_a: tuple[ExpPoly, Vector] | None = None
    inf_a: tuple[ExpPoly, Vector] | None = None
    sup_b: tuple[ExpPoly, Vector] | None = None
    inf_b: tuple[ExpPoly, Vector] | None = None

    def law(self, q: Vector) -> ExpPoly:
        out = ExpPoly()
        for log in self.logs:
            out = out + probability(log, q)
        return out

    def extreme(self, box: Box, up: bool) -> tuple[ExpPoly, Vector]:
        dirs: dict[int, set[int]] = {}
        for log in self.logs:
            for j, signs in directions(log).items():
                dirs.setdefault(j, set()).update(signs)
        best: tuple[ExpPoly, Vector] | None = None
        for v in box.vertices(dirs, up):
            value = self.law(v)
            if best is None or sign(value - best[0]) * (1 if up else -1) > 0:
                best = (value, v)
        if best is None:  # pragma: no cover - a box has a vertex
            raise ReductionRefused("an empty box")
        return best


@dataclass
class Violation:
    """An output and a pair `(first, second)` with `P(o|first) > e^ε·P(o|second)`;
    `first_in_b`: `first` is the `B` side of the family (else `A`)."""

    output: Hashable
    first: Vector
    second: Vector
    p: ExpPoly
    q: ExpPoly
    first_in_b: bool = True

    def sides(self) -> tuple[Vector, Vector]:
        """The pair as `(a, b)`: its `A` side, then its `B` side."""
        return (self.second, self.first) if self.first_in_b else (self.first, self.second)


@dataclass
class Extremes:
    """Every output's extremes on one family `(A, B)` (see the module docstring)."""

    a: Box
    b: Box
    outputs: list[OutputExtremes]
    sequences: int

    def directed(self) -> Iterator[tuple[OutputExtremes, tuple[ExpPoly, Vector],
                                         tuple[ExpPoly, Vector], bool]]:
        """Per output, both directions as `(one side's sup, other side's inf, sup on B)`."""
        for o in self.outputs:
            if o.sup_b is None or o.inf_a is None or o.sup_a is None or o.inf_b is None:
                continue
            yield o, o.sup_b, o.inf_a, True
            yield o, o.sup_a, o.inf_b, False

    def check(self, eps: Fraction) -> Violation | None:
        """Step (4): the first output and pair violating `(ε, 0)`, or None (the claim holds on
        every pair of the family)."""
        grow = ExpPoly.exp(Fraction(eps))
        for o, (p, first), (q, second), in_b in self.directed():
            if not p.is_zero() and sign(p - q * grow) > 0:
                return Violation(o.output, first, second, p, q, in_b)
        return None

    def infinite(self) -> Violation | None:
        """An output with `P(o|first) > 0 = P(o|second)` on a pair of the family (no ε)."""
        for o, (p, first), (q, second), in_b in self.directed():
            if q.is_zero() and not p.is_zero():
                return Violation(o.output, first, second, p, q, in_b)
        return None

    def largest_loss(self) -> Violation | None:
        """The output and pair with the largest `P(o|first)/P(o|second)` over the family."""
        best: Violation | None = None
        for o, (p, first), (q, second), in_b in self.directed():
            if q.is_zero():
                continue
            if best is None or sign(p * best.q - best.p * q) > 0:
                best = Violation(o.output, first, second, p, q, in_b)
        return best


def decide_families(run: QueryRun, m: int, a: Box, b: Box, limit: int = MAX_SEQUENCES,
                    progress: Callable[[int, int | None], None] | None = None) -> Extremes:
    """The extremes of every output of `run` on the family `(a, b)` (module docstring)."""
    if len(a.lo) != m or len(b.lo) != m:
        raise ParameterError("box", len(a.lo), f"boxes of {m} coordinates")
    by_output: dict[Hashable, OutputExtremes] = {}
    sequences = 0
    for output, log in symbolic_outcomes(run, m, limit, progress):
        sequences += 1
        by_output.setdefault(output, OutputExtremes(output)).logs.append(log)
    for found in by_output.values():
        found.sup_a, found.inf_a = found.extreme(a, True), found.extreme(a, False)
        found.sup_b, found.inf_b = found.extreme(b, True), found.extreme(b, False)
    return Extremes(a, b, list(by_output.values()), sequences)


def cross_check(run: QueryRun, extremes: Extremes, found: Violation) -> None:
    """The run-time guard of (P2): the real code, enumerated directly at `found`'s two vectors,
    gives `found.output` exactly the probabilities the templates gave (`ReductionRefused`
    otherwise)."""
    mine = next(o for o in extremes.outputs if o.output == found.output)
    for vector in (found.first, found.second):
        concrete = tuple(Fraction(x) for x in vector)
        law = enumerate_queries(lambda test, q=concrete: run(q, test))  # type: ignore[misc]
        direct = law.values.get(found.output, ExpPoly())  # both keyed by release
        if direct != mine.law(vector):
            raise ReductionRefused(f"the real code at {vector} gives {found.output!r} another "
                                   "probability than its symbolic run: it reads q otherwise "
                                   "than through the symbols")
