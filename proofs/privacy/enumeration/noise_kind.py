"""The enumeration kind of the field's primitives (`betweencut.noise`): exact laws of the real
code, released values included.

A mechanism asking the field's primitives (and, after one of them, the shared-noise ones of
`betweencut.noise.noisy_queries`) is deterministic given their answers. `enumerate_noise(run)` walks
its outcome tree with `BranchingNoise` (the shared-noise kind's `BranchingQueries`, extended:
at a finite primitive past the prefix it answers the first answer of non-zero probability and
keeps the others as forks); each answer sequence gets its exact probability, the product of
the primitives' laws (`betweencut.proofs.laws.field_laws`) and of the shared-noise factors
(`shared_noise.sequence_probability`). A `NoisyValue` is answered with an opaque `Released`
handle and branches nothing: the law keeps, per output, the centre each released value was
drawn around on each answer sequence. Replaying a prefix must meet the same queries (and the
same released values), else `MechanismNotReplayable`.

Two laws are compared through their components (`divergence.components.split` here): per
output, the released values whose centre is the same everywhere cancel; discrete Laplace values
split into their finitely many regions (`betweencut.proofs.laws.released.dlap_regions`); at most
one continuous or discrete Gaussian value may move, with one centre per law on that output, and
becomes a `Shift`. Anything else is refused with a `ParameterError` that says so (never
approximated).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, cast

from betweencut.boundary.encoding import Shown, release_of
from betweencut.data.tree import Node
from betweencut.errors import ParameterError
from betweencut.noise.noisy_queries import AboveThreshold, NoisyMax
from betweencut.noise.primitives import (
    DISCRETE_LAPLACE,
    FIELD_PRIMITIVES,
    NoisyValue,
    Released,
    is_answer,
)
from betweencut.progress import current
from betweencut.proofs.exact.arith import ExpPoly, ExpRational
from betweencut.proofs.laws.field_laws import finite_law
from betweencut.proofs.laws.released import Shift, dlap_regions
from betweencut.proofs.privacy.divergence.components import Component, ComponentJoint
from betweencut.proofs.privacy.divergence.curve import PrivacyCurve
from betweencut.proofs.privacy.enumeration.cache import (
    KINDS,
    CacheFactory,
    Database,
    with_record,
)
from betweencut.proofs.privacy.enumeration.shared_noise import (
    DEFAULT_LIMIT,
    BranchingQueries,
    WholeLawCache,
    sequence_probability,
)
from betweencut.proofs.privacy.enumeration.transcripts import (
    EnumerationBudgetExceeded,
    MechanismNotReplayable,
)
from betweencut.proofs.verdict import Release

__all__ = ["BranchingNoise", "NoiseLaw", "NoiseLawCache", "enumerate_noise", "released_in",
           "split"]

TICK = 256
Centres = tuple[tuple[int, Any, Fraction], ...]  # (handle index, noise, centre), by index


class BranchingNoise(BranchingQueries):
    """`BranchingQueries` that also branches on the field's finite primitives and hands out a
    `Released` handle for every `NoisyValue` (kept in `values` with its query)."""

    def __init__(self, answers: Sequence[Any] = ()) -> None:
        super().__init__(answers)
        self.values: list[tuple[NoisyValue, Released]] = []
        self.released_at: list[int] = []  # answered queries before each released value

    def asked(self, n: int) -> tuple[object, ...]:
        """What the run asked before its `n`-th answer was given (queries and released values,
        in order): a replay of the first `n` answers must ask the same."""
        if n == 0:
            return ()
        queries = tuple(q for q, _ in self.log[:n])
        values = tuple(v for (v, _), at in zip(self.values, self.released_at, strict=True)
                       if at < n)
        return (*queries, *values)

    def __call__(self, query: object) -> Any:
        if not isinstance(query, FIELD_PRIMITIVES):
            return super().__call__(query)
        if len(self.log) + len(self.values) >= self.max_queries:
            raise EnumerationBudgetExceeded(
                "max_queries", self.max_queries, 0, None, 0.0,
                f"one answer sequence asks more than {self.max_queries} noisy queries")
        if isinstance(query, NoisyValue):
            handle = Released(len(self.values), query.noise)
            self.values.append((query, handle))
            self.released_at.append(len(self.log))
            return handle
        position = len(self.log)
        answer: Any
        if position < len(self.answers):
            answer = self.answers[position]
            if not is_answer(query, answer):
                raise MechanismNotReplayable(
                    f"the answer {answer!r} replayed at position {position} is not an answer of "
                    f"{query!r}: the mechanism is not a function of its noisy answers")
        else:
            law = finite_law(query)
            live = [a for a, p in law.items() if not p.is_zero()]
            answer = live[0]
            cast(list[Any], self.forks).extend((position, a) for a in live[1:])
        cast(list[Any], self.log).append((query, answer))
        return answer


def released_in(output: object) -> set[int]:
    """The indices of the `Released` handles inside an output, read from its release
    (`boundary.encoding`: every part of an accepted output is searched)."""
    found: set[int] = set()
    stack = [release_of(output).decoded()]
    while stack:
        x = stack.pop()
        if isinstance(x, Shown):
            if x.kind == "released":
                found.add(x.items[0])
            else:
                stack.extend(x.items)
        elif isinstance(x, tuple | list):
            stack.extend(x)
    return found


@dataclass
class NoiseLaw:
    """The exact law of one mechanism on one database: per answer sequence, its output, its
    exact probability and the centre of every value it released."""

    sequences: list[tuple[Hashable, ExpRational, dict[int, tuple[Any, Fraction]]]] = field(
        default_factory=list)
    transcripts: int = 0

    def projected(self, project: Callable[[Hashable], Hashable]
                  ) -> dict[Hashable, dict[Centres, ExpRational]]:
        """Per projected output, its mass per tuple of centres of the values it still holds."""
        out: dict[Hashable, dict[Centres, ExpRational]] = {}
        for output, p, values in self.sequences:
            key = project(output)
            kept = released_in(key)
            centres = tuple((i, values[i][0], values[i][1]) for i in sorted(kept))
            parts = out.setdefault(key, {})
            parts[centres] = parts[centres] + p if centres in parts else p
        return out


def _probability(log: Sequence[tuple[Any, Any]]) -> ExpRational:
    out = ExpRational(ExpPoly.const(1))
    shared = [(q, a) for q, a in log if isinstance(q, AboveThreshold | NoisyMax)]
    for query, answer in log:
        if isinstance(query, FIELD_PRIMITIVES):
            out = out * finite_law(query)[answer]
            if out.is_zero():
                return out
    if shared:
        out = out * sequence_probability(shared)
    return out


def answer_runs(run: Callable[[Any], Hashable], limit: int = DEFAULT_LIMIT
                ) -> Iterator[tuple[Hashable, BranchingNoise]]:
    """Every complete answer sequence of `run(test)`, depth first: `(output, test)`. Replaying
    a prefix must meet the queries and the released values of the run that created it (up to
    the query whose answer it changes), else `MechanismNotReplayable`."""
    if limit < 1:
        raise ParameterError("limit", limit, "a positive integer")
    stack: list[tuple[Any, ...]] = [()]
    met: dict[tuple[Any, ...], tuple[object, ...]] = {(): ()}
    tracker = current()
    count = 0
    started = time.monotonic()
    while stack:
        prefix = stack.pop()
        test = BranchingNoise(prefix)
        output = run(test)
        if test.asked(len(prefix)) != met[prefix]:
            raise MechanismNotReplayable(
                f"replaying the answers {prefix} met other queries than the run that created "
                "them: the mechanism is not a function of its noisy answers (hidden state or "
                "its own randomness)")
        branches = []
        for position, answer in test.forks:
            branch = (*(a for _, a in test.log[:position]), answer)
            met[branch] = test.asked(position + 1)
            branches.append(branch)
        stack.extend(reversed(branches))
        count += 1
        if count % TICK == 0:
            tracker.tick(count, None, "answer sequences")
            tracker.check()
        if count > limit:
            raise EnumerationBudgetExceeded("limit", limit, count, None,
                                            time.monotonic() - started,
                                            f"more than {limit} answer sequences")
        yield output, test


def enumerate_noise(run: Callable[[Any], Hashable], limit: int = DEFAULT_LIMIT) -> NoiseLaw:
    """Every answer sequence of `run(test)` with its exact probability (module docstring).

    Checks: a replayed prefix meets the same queries; the probabilities sum to exactly 1.
    Raises: `ParameterError` past `limit`; `MechanismNotReplayable`.
    """
    law = NoiseLaw()
    total = ExpRational(ExpPoly())
    for output, test in answer_runs(run, limit):
        law.transcripts += 1
        p = _probability(test.log)
        if p.is_zero():
            continue
        values = {handle.index: (query.noise, query.value) for query, handle in test.values}
        law.sequences.append((output, p, values))  # keyed when projected
        total = total + p
    if not (total - 1).is_zero():
        raise MechanismNotReplayable(
            f"the probabilities of its {law.transcripts} answer sequences sum to {total}, not "
            "exactly 1: the mechanism is not a function of its noisy answers")
    return law


def _regions_of(noise: Any, centres: Sequence[int]) -> list[tuple[str, dict[int, ExpRational]]]:
    return [(region.text(), masses) for region, masses in dlap_regions(noise.scale, centres)]


def split(p: Mapping[Hashable, dict[Centres, ExpRational]],
          q: Mapping[Hashable, dict[Centres, ExpRational]]) -> list[Component]:
    """The components of two laws (module docstring)."""
    out: list[Component] = []
    zero = ExpRational(ExpPoly())
    for o in sorted({*p, *q}, key=repr):
        first, second = p.get(o, {}), q.get(o, {})
        sides = [(centres, w, 0) for centres, w in first.items()] + [
            (centres, w, 1) for centres, w in second.items()]
        handles: dict[int, Any] = {}
        seen: dict[int, set[Fraction]] = {}
        for centres, _, _ in sides:
            for index, noise, c in centres:
                handles[index] = noise
                seen.setdefault(index, set()).add(c)
        moving = sorted(i for i, cs in seen.items() if len(cs) > 1)
        dlap = [i for i in moving if handles[i].kind == DISCRETE_LAPLACE]
        other = [i for i in moving if handles[i].kind != DISCRETE_LAPLACE]
        if len(other) > 1:
            raise ParameterError("output", repr(o), "at most one released continuous or "
                                 "discrete Gaussian value that moves between the two databases "
                                 f"(this output has {len(other)}): not decided exactly")
        regions = [_regions_of(handles[i], sorted(int(c) for c in seen[i])) for i in dlap]
        centre_of = [{} for _ in range(2)]  # type: list[dict[int, set[Fraction]]]
        for centres, _, side in sides:
            for index, _, c in centres:
                centre_of[side].setdefault(index, set()).add(c)
        shift_index = other[0] if other else None
        for combo in itertools.product(*regions) if regions else [()]:
            masses = [zero, zero]
            for centres, w, side in sides:
                where = dict((index, c) for index, _, c in centres)
                mass = w
                for (_, region_masses), index in zip(combo, dlap, strict=True):
                    mass = mass * region_masses[int(where[index])]
                masses[side] = masses[side] + mass
            label = o if not combo else (o, tuple(
                f"value#{index} {text}" for (text, _), index in zip(combo, dlap, strict=True)))
            shift = None
            if shift_index is not None and not masses[0].is_zero() and not masses[1].is_zero():
                c_p, c_q = centre_of[0].get(shift_index, set()), centre_of[1].get(shift_index,
                                                                                   set())
                if len(c_p) != 1 or len(c_q) != 1:
                    raise ParameterError(
                        "output", repr(o), "one centre per database for a released continuous "
                        "or discrete Gaussian value that moves (a mixture of centres is not "
                        "decided exactly)")
                noise = handles[shift_index]
                shift = Shift(noise.kind, noise.scale, next(iter(c_p)), next(iter(c_q)))
            out.append(Component(label, masses[0], masses[1], shift))
    return out


class NoiseLawCache(WholeLawCache[NoiseLaw, dict[Centres, ExpRational], ComponentJoint]):
    """A `WholeLawCache` of the field's exact laws (`enumerate_noise`)."""

    kind = "a mechanism asking the field's primitives (betweencut.noise)"
    instead = "a fresh-noise mechanism (here use make_joint(), curve())"

    def enumerate(self, run: Callable[[Any], Hashable], limit: int) -> NoiseLaw:
        return enumerate_noise(run, limit)

    def pair_of(self, p: dict[Hashable, dict[Centres, ExpRational]],
                q: dict[Hashable, dict[Centres, ExpRational]]) -> ComponentJoint:
        return ComponentJoint(split(p, q))

    def curve(self, db: Database, z: Node, on: Release) -> PrivacyCurve:
        """The exact curve of `(D, D + z)` (every component an atom; else `ParameterError`)."""
        return self.databases_curve(db, with_record(db, z), on)

    def databases_curve(self, first: Database, second: Database, on: Release) -> PrivacyCurve:
        return self.make_pair_joint(first, second, on).curve()


def _field_kind(query: object) -> CacheFactory | None:
    """The field's primitives (`betweencut.noise`) are enumerated by `NoiseLawCache`."""
    if not isinstance(query, FIELD_PRIMITIVES):
        return None
    return cast(CacheFactory, NoiseLawCache)  # the class: named across a pipe (`isolated`)


KINDS.append(_field_kind)
