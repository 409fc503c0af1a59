"""Exact output laws and privacy audits of mechanisms that use shared noise or noisy max.

A mechanism written against `betweencut.noise.noisy_queries` is deterministic given the answers of
its comparisons and noisy maxima, and each answer set is finite, so its output law is a finite
sum over answer sequences. `enumerate_queries(run)` walks the outcome tree of the *real* code
with `BranchingQueries` (a `ReplayQueries` that answers an unanswered query with its first
answer and keeps the others as prefixes to replay) and gives every complete answer sequence its
exact probability: comparisons sharing a draw `ρ` are independent given `ρ`, so the probability
is a product over draws of `∫ f(r)·Π g_i(r) dr` (`betweencut.proofs.laws.noisy_laws`), times the
noisy-max and fresh-noise factors. Sequences of probability exactly 0 are dropped.

`ExactJoint` is the `δ(ε)` curve of two such laws (the `PairCurve` interface of
`betweencut.proofs.privacy.divergence.joint`), so the same `audit_pairs` (through
`QueryLawCache`),
`epsilon_for_delta` and counterexamples apply; `infinite_loss_event` finds an output with
`Q = 0 < P` (private at no ε).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar, Generic, Protocol, TypeVar, cast

from betweencut.boundary.encoding import ReleaseKey, project_key, release_of
from betweencut.data.tree import Node
from betweencut.errors import ParameterError
from betweencut.noise.noisy_queries import (
    AboveThreshold,
    DrawNoise,
    NoisyMax,
    QueryTest,
    ReplayQueries,
    UnansweredNoisyQuery,
    is_gaussian,
)
from betweencut.noise.noisy_test import BTQuery
from betweencut.progress import current
from betweencut.proofs.exact.arith import ExpPoly, sign
from betweencut.proofs.exact.enclosure import Enclosure, exp_bounds, positive_excess
from betweencut.proofs.laws.noisy_laws import noisy_max_law, shared_answers_probability
from betweencut.proofs.privacy.divergence.curve import PrivacyCurve, direction_curve
from betweencut.proofs.privacy.divergence.joint import (
    HockeyStick,
    Law,
    PairCurve,
    epsilon_for_delta,
)
from betweencut.proofs.privacy.enumeration.cache import (
    ISOLATED,
    KINDS,
    CacheFactory,
    Database,
    LawCache,
    Mechanism,
    where,
    with_record,
)
from betweencut.proofs.privacy.enumeration.transcripts import (
    DEFAULT_MAX_QUERIES,
    PROBES,
    WARMUP,
    EnumerationBudgetExceeded,
    MechanismNotReplayable,
    fork_prefixes,
    walk_estimate,
)
from betweencut.proofs.verdict import Direction, Release, checked_epsilon

__all__ = [
    "BranchingQueries", "ExactJoint", "Log", "QueryLaw", "QueryLawCache", "QueryMechanism",
    "Walking", "WholeLawCache", "answer_sequences", "enumerate_queries", "epsilon_at_delta",
    "grouped_probability", "hockey_stick", "infinite_loss_event", "projected_values",
    "sequence_probability", "walk",
]

QueryMechanism = Callable[[Database, QueryTest], Hashable]
V = TypeVar("V")
L = TypeVar("L", bound="ProjectableLaw[Any]")
J = TypeVar("J", bound=PairCurve)
Log = list[tuple[AboveThreshold | NoisyMax, bool | int]]
DEFAULT_LIMIT = 200_000
TICK = 256  # answer sequences between two looks at the time budget (and progress)
SHOWN = 4


class BranchingQueries(ReplayQueries):
    """A `ReplayQueries` that extends its prefix: at a comparison past the prefix it answers ⊤
    (and remembers ⊥), at a noisy max it answers 0 (and remembers 1, 2, ...). A comparison with
    no noise at all is deterministic and answered exactly, without branching. The other
    answers are kept as forks (`fork_prefixes`); one answer sequence asks at most
    `max_queries` queries. With `reverse` it answers ⊥ and the last index first (the purity
    check's second order)."""

    def __init__(self, answers: Sequence[bool | int] = (),
                 max_queries: int = DEFAULT_MAX_QUERIES, reverse: bool = False) -> None:
        super().__init__(answers)
        self.max_queries = max_queries
        self.reverse = reverse
        self.forks: list[tuple[int, bool | int]] = []

    @property
    def branches(self) -> list[tuple[bool | int, ...]]:
        return fork_prefixes([answer for _, answer in self.log], self.forks)

    def __call__(self, query: object) -> Any:
        if isinstance(query, BTQuery):
            raise ParameterError(
                "query", repr(query), "only betweencut.noise.noisy_queries primitives: a mechanism "
                "that mixes fresh-noise BTQuery tests with shared-noise queries is not enumerated")
        if len(self.log) >= self.max_queries:
            raise EnumerationBudgetExceeded(
                "max_queries", self.max_queries, 0, None, 0.0,
                f"one answer sequence asks more than {self.max_queries} noisy queries (does it "
                f"halt on every answer sequence?)")
        return super().__call__(query)  # type: ignore[call-overload]

    def above(self, query: AboveThreshold) -> bool:
        try:
            return super().above(query)
        except UnansweredNoisyQuery:
            if query.scale == 0 and query.shared is None:
                answer = query.count >= query.threshold
            else:
                answer = not self.reverse
                self.forks.append((len(self.log), not answer))
            self.log.append((query, answer))
            return answer

    def argmax(self, query: NoisyMax) -> int:
        try:
            return super().argmax(query)
        except UnansweredNoisyQuery:
            first = len(query.counts) - 1 if self.reverse else 0
            self.forks.extend((len(self.log), i) for i in range(len(query.counts)) if i != first)
            self.log.append((query, first))
            return first


class Forking(Protocol):
    """A branching test (`BranchingQueries`, the symbolic run's `SymbolicQueries`): its `log`
    of `(query, answer)` and its `forks` `(position, other answer)`."""

    log: list[Any]
    forks: list[tuple[int, bool | int]]


def walk(test: Forking, rng: random.Random) -> int:
    """One step of a random walk down a branching test's outcome tree: the query just logged,
    if it forked, gets an answer drawn uniformly among all of its answers (the one logged and
    the forks), and the forks go. Returns the step's branching factor (1: no fork)."""
    position = len(test.log) - 1
    others = [answer for at, answer in test.forks if at == position]
    if not others:
        return 1
    query, first = test.log[position]
    test.log[position] = (query, rng.choice([first, *others]))
    test.forks = [fork for fork in test.forks if fork[0] != position]
    return 1 + len(others)


class Walking:
    """Mixed in before a branching test (`BranchingQueries`, `SymbolicQueries`): its noisy
    answers on a random walk (`walk`), each drawn uniformly, the branching factors multiplied
    in `leaves`. Set `rng` and `leaves` (1) before the run."""

    rng: random.Random
    leaves: int
    log: list[Any]
    forks: list[tuple[int, bool | int]]

    def above(self, query: AboveThreshold) -> bool:
        super().above(query)  # type: ignore[misc]
        self.leaves *= walk(self, self.rng)
        return bool(self.log[-1][1])

    def argmax(self, query: NoisyMax) -> int:
        super().argmax(query)  # type: ignore[misc]
        self.leaves *= walk(self, self.rng)
        return int(self.log[-1][1])


class WalkingQueries(Walking, BranchingQueries):
    """`BranchingQueries` on a random walk (`Walking`)."""

    def __init__(self, rng: random.Random, max_queries: int = DEFAULT_MAX_QUERIES) -> None:
        super().__init__((), max_queries)
        self.rng, self.leaves = rng, 1


def estimate_query_sequences(run: Callable[[QueryTest], Hashable], probes: int = PROBES,
                             max_queries: int = DEFAULT_MAX_QUERIES) -> int:
    """Knuth's estimate of the answer sequences `answer_sequences(run)` will visit."""

    def once(rng: random.Random) -> int:
        test = WalkingQueries(rng, max_queries)
        run(test)
        return test.leaves

    return walk_estimate(once, probes)


def sequence_probability(log: Sequence[tuple[AboveThreshold | NoisyMax, bool | int]]) -> ExpPoly:
    """The exact probability of one complete answer sequence of a run.

    Comparisons are grouped by their shared draw (independent given it); each group contributes
    `∫ f_ρ(r)·Π P(answer | ρ = r) dr`, comparisons without a shared draw and noisy maxima
    contribute their own exact factors (`grouped_probability`).
    """
    groups: dict[int | None, tuple[Fraction, list[tuple[Fraction, Fraction, bool]]]] = {}
    maxima: list[tuple[tuple[Fraction, ...], Fraction, int]] = []
    for query, answer in log:
        if is_gaussian(query):
            raise ParameterError(
                "query", repr(query), "Laplace noise on this exact path: Gaussian noise is "
                "enumerated by enumeration.gaussian_noise (GaussianLawCache, certified laws)")
        if isinstance(query, NoisyMax):
            maxima.append((query.counts, query.scale, int(answer)))
            continue
        handle = query.shared
        key = None if handle is None else handle.ident
        scale = Fraction(0) if handle is None else handle.scale
        groups.setdefault(key, (scale, []))[1].append(
            (query.threshold - query.count, query.scale, bool(answer)))
    return grouped_probability(groups.values(), maxima)


def grouped_probability(
    groups: Iterable[tuple[Fraction, list[tuple[Fraction, Fraction, bool]]]],
    maxima: Iterable[tuple[tuple[Fraction, ...], Fraction, int]],
) -> ExpPoly:
    """`Π_groups ∫ f_ρ·Π P(answer | ρ) · Π_maxima P(argmax = answer)`: each group a shared
    draw's scale (0: none) and its comparisons `(threshold - count, fresh scale, answer)`, each
    noisy max `(counts, scale, answer)`; exact (`betweencut.proofs.laws.noisy_laws`)."""
    out = ExpPoly.const(1)
    for counts, scale, answer in maxima:
        out = out * noisy_max_law(counts, scale)[answer]
    for scale, answers in groups:
        out = out * shared_answers_probability(scale, tuple(sorted(answers)))
        if out.is_zero():
            break
    return out


@dataclass
class QueryLaw:
    """The exact law of one mechanism on one database: output -> probability (`ExpPoly`)."""

    values: dict[Hashable, ExpPoly] = field(default_factory=dict)  # keyed by `ReleaseKey`
    transcripts: int = 0
    outputs: dict[Hashable, object] = field(default_factory=dict)  # each release as first met

    def total(self) -> ExpPoly:
        out = ExpPoly()
        for v in self.values.values():
            out = out + v
        return out

    def projected(self, project: Callable[[Hashable], Hashable]) -> dict[Hashable, ExpPoly]:
        return projected_values(self.values, self.outputs, project,
                                lambda values: cast(ExpPoly, exact_total(values, "P(output)")))


def projected_values(
    values: Mapping[Hashable, V], outputs: Mapping[Hashable, object],
    project: Callable[[Hashable], Hashable], total: Callable[[list[V]], V],
) -> dict[Hashable, V]:
    """A law's values (keyed by `ReleaseKey`) summed by `total` per projected release
    (`project_key` of each release as first met, `outputs`): the one grouping, for exact laws
    (`QueryLaw`) and certified ones (`gaussian_noise.CertifiedLaw`)."""
    grouped: dict[Hashable, list[V]] = {}
    for o, v in values.items():
        grouped.setdefault(project_key(project, cast(ReleaseKey, o), outputs[o]), []).append(v)
    return {key: total(group) for key, group in grouped.items()}


def answer_sequences(run: Callable[[QueryTest], Hashable], limit: int = DEFAULT_LIMIT,
                     reverse: bool = False) -> Iterator[tuple[Hashable, Log]]:
    """Every complete answer sequence of `run(test)`: `(output, log)`, depth first (with
    `reverse`, the forks of every query explored in the reverse order: the purity check's
    second order, `betweencut.proofs.privacy.enumeration.isolated`).

    Preconditions: as `enumerate_queries`. Checks that a replayed prefix meets the queries of
    the run that created it, and the `limit` (outputs are keyed by the laws).
    Raises: `ParameterError` past `limit` answer sequences; `MechanismNotReplayable` when the
    mechanism is not a function of its answers.
    """
    if limit < 1:
        raise ParameterError("limit", limit, "a positive integer")
    stack: list[tuple[bool | int, ...]] = [()]
    met: dict[tuple[bool | int, ...], tuple[object, ...]] = {(): ()}
    count, about = 0, None
    tracker = current()  # the time budget, checked (and the count shown) every TICK sequences
    started = time.monotonic()
    while stack:
        prefix = stack.pop()
        test = BranchingQueries(prefix, reverse=reverse)
        output = run(test)
        asked = tuple(q for q, _ in test.log)
        if asked[:len(prefix)] != met[prefix]:
            raise MechanismNotReplayable(
                f"replaying the answers {prefix} met the queries {asked[:len(prefix)]}, not the "
                f"{met[prefix]} of the run that created them: the mechanism is not a function "
                "of its noisy answers (hidden state or its own randomness)")
        branches = test.branches  # built once: each is a prefix of this run
        for branch in branches:
            met[branch] = asked[:len(branch)]
        stack.extend(branches if reverse else reversed(branches))
        count += 1
        if count == WARMUP and stack:
            about = _project(run, count, limit, time.monotonic() - started, tracker)
        if count % TICK == 0:
            tracker.tick(count, about, "answer sequences")
        if count > limit:
            raise ParameterError("limit", limit, f"more than {limit} answer sequences")
        yield output, test.log


def _project(run: Callable[[QueryTest], Hashable], done: int, limit: int, seconds: float,
             tracker: Any) -> int:
    """The estimated answer sequences of a run that has visited `done` in `seconds`: refused
    past `limit`, or when their projected time passes what is left of the time budget."""
    about = estimate_query_sequences(run)
    if about > limit:
        raise ParameterError("limit", limit, f"more than {limit} answer sequences (about "
                             f"{about}, estimated by random walks of the mechanism)")
    tracker.afford(seconds / done * (about - done),
                   f"the enumeration of about {about} answer sequences")
    return about


def enumerate_queries(run: Callable[[QueryTest], Hashable], limit: int = DEFAULT_LIMIT,
                      reverse: bool = False) -> QueryLaw:
    """Every answer sequence of `run(test)` with its exact probability, summed per output.

    Preconditions: `run` is deterministic given the answers of `test` (its only randomness)
    and asks finitely many queries on every answer sequence; outputs are of the types
    `boundary.encoding` keys (others refused: `ParameterError`); its noise is
    Laplace (Gaussian noise: `enumeration.gaussian_noise`).
    Checks (as `enumerate_mechanism` does): a replayed prefix meets the queries of the run that
    created it, and the probabilities sum to exactly 1.
    Returns: a `QueryLaw` whose values sum to exactly 1.
    Raises: `ParameterError` past `limit` answer sequences or for a Gaussian query;
    `MechanismNotReplayable` when the mechanism is not a function of its answers.
    """
    law = QueryLaw()
    for output, log in answer_sequences(run, limit, reverse):
        law.transcripts += 1
        p = sequence_probability(log)
        key = release_of(output)  # the laws sum per release (`boundary.encoding`)
        law.outputs.setdefault(key, output)
        if not p.is_zero():
            law.values[key] = law.values[key] + p if key in law.values else p
    total = ExpPoly()
    for value in law.values.values():
        total = total + value
    if total != ExpPoly.const(1):
        raise MechanismNotReplayable(
            f"the probabilities of its {law.transcripts} answer sequences sum to {total}, not "
            "exactly 1: the mechanism is not a function of its noisy answers")
    return law


Value = ExpPoly | Enclosure  # an output's probability: exact, or certified (Gaussian noise)


def exact_total(values: Sequence[Value], label: str) -> Value:
    """The exact sum of exact values (`label` unused: exact sums need no name)."""
    if len(values) == 1:
        return values[0]
    total: Value = ExpPoly()
    for value in values:
        total = total + value
    return total


def hockey_stick(p: Mapping[Hashable, Value], q: Mapping[Hashable, Value],
                 outputs: Sequence[Hashable], eps: Fraction, forward: bool,
                 total: Callable[[Sequence[Value], str], Value] = exact_total) -> HockeyStick:
    """`δ_{P‖Q}(ε) = Σ_o (P(o) - e^ε·Q(o))_+` (`forward`) or `δ_{Q‖P}(ε)`: the one loop, for
    exact laws (`ExactJoint`) and certified ones (`CertifiedJoint`).

    An exact term `P(o) - e^ε·Q(o)` counts when its sign is positive (decided exactly); an
    enclosed one adds its positive part (`positive_excess`, at any `ε`; no sign decided) and puts
    `o` in the event when it is certainly positive at 64 bits. `total` sums `δ`, `P(S)` and
    `Q(S)`: exactly (the default, for exact laws), or into one enclosure.
    """
    eps = checked_epsilon(eps)
    p, q = (p, q) if forward else (q, p)
    grow = ExpPoly.exp(eps)
    bounds = exp_bounds(eps)  # e^ε's bounds, computed once for every enclosed term
    zero = ExpPoly()
    exact_p: Value = zero  # P and Q summed over the event's exact terms
    exact_q: Value = zero
    enclosed: list[Value] = []  # the enclosed terms' positive parts
    p_more: list[Value] = []  # P and Q of the event's enclosed terms
    q_more: list[Value] = []
    event: list[Hashable] = []
    for o in outputs:
        po, qo = p.get(o, zero), q.get(o, zero)
        if po.is_zero():
            continue
        if isinstance(po, ExpPoly) and isinstance(qo, ExpPoly):
            if sign(po - qo * grow) > 0:
                exact_p, exact_q = exact_p + po, exact_q + qo
                event.append(o)
            continue
        excess = positive_excess(po, qo, eps, bounds)
        enclosed.append(excess)
        if excess.enclose(64)[0] > 0:
            event.append(o)
            p_more.append(po)
            q_more.append(qo)
    delta = total([exact_p - exact_q * grow, *enclosed], f"delta({eps})")
    p_event = total([exact_p, *p_more], "P(S)")
    q_event = total([exact_q, *q_more], "Q(S)")
    shown = tuple(event[:SHOWN])
    # HockeyStick is typed for exact values; an Enclosure offers the same arithmetic, the gate's
    # `certified_sign`, `enclose` and `str` (see `enumeration.gaussian_noise`).
    return HockeyStick(eps, cast(ExpPoly, delta), len(event), cast(ExpPoly, p_event),
                       cast(ExpPoly, q_event), Direction.of(forward), lambda: shown)


class ExactJoint(PairCurve):
    """The `δ(ε)` curve of two exact laws (outputs -> `ExpPoly`), both directions."""

    def __init__(self, p: Mapping[Hashable, ExpPoly], q: Mapping[Hashable, ExpPoly]) -> None:
        self.p, self.q = p, q
        self.outputs = sorted({*p, *q}, key=repr)

    def hockey_stick(self, eps: Fraction, forward: bool = True) -> HockeyStick:
        """`δ_{P‖Q}(ε)` (`forward`) or `δ_{Q‖P}(ε)`, exactly (`hockey_stick`)."""
        return hockey_stick(self.p, self.q, self.outputs, eps, forward)


def infinite_loss_event(joint: ExactJoint) -> tuple[Hashable, ExpPoly, str] | None:
    """An output `o` with `P(o) > 0 = Q(o)` exactly (either direction): no ε bounds the loss."""
    for o in joint.outputs:
        po, qo = joint.p.get(o, ExpPoly()), joint.q.get(o, ExpPoly())
        if qo.is_zero() and not po.is_zero():
            return o, po, Direction.FORWARD
        if po.is_zero() and not qo.is_zero():
            return o, qo, Direction.BACKWARD
    return None


class ProjectableLaw(Protocol[V]):
    """A whole output law of one database, by enumeration: its answer sequences and its values
    grouped by a projection of the output."""

    transcripts: int

    def projected(self, project: Callable[[Hashable], Hashable]) -> dict[Hashable, V]: ...


class WholeLawCache(LawCache, Generic[L, V, J]):
    """A `LawCache` whose laws are whole output laws of a shared-noise enumeration (`enumerate`
    of the subclass: exact for Laplace noise, certified for Gaussian), so that `audit_pairs`
    audits such mechanisms unchanged. The subclass says how two laws make a joint (`pair_of`) and
    what it keeps instead of factor bags (`kind` and `instead`, for `law`)."""

    kind: ClassVar[str]
    instead: ClassVar[str]
    plain: ClassVar[type[Any]]  # the kind's own class (a subclass of it is a variant)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if WholeLawCache in cls.__bases__:
            cls.plain = cls

    isolates = False  # a kind whose laws cross a pipe says so (`QueryLawCache`)

    def __init__(self, run: QueryMechanism,
                 projections: dict[Release, Callable[[object], Hashable]] | None = None,
                 limit: int = DEFAULT_LIMIT) -> None:
        super().__init__(cast(Mechanism, run), projections, limit)
        self.query_run = run
        self.laws: dict[Database, L] = {}

    def enumerate(self, run: Callable[[QueryTest], Hashable], limit: int) -> L:
        raise NotImplementedError

    def first_in_child(self, db: Database) -> None:
        """A kind whose laws do not cross a pipe (`isolates` False: the Gaussian and field
        kinds) still runs the user's code once in a child before its own process does
        (`betweencut.boundary.isolation.in_child`): its exit, signal or hang is an error of
        the audit; its hidden state is not checked (`assumes` says so)."""
        from betweencut.boundary.isolation import in_child, user_code

        user, run = user_code(self.query_run), self.query_run
        if user is None:
            return

        def work() -> bytes:
            self.enumerate(lambda test: run(db, test), self.limit)
            return b""

        in_child(work, user.name, where(db))

    def pair_of(self, p: dict[Hashable, V], q: dict[Hashable, V]) -> J:
        raise NotImplementedError

    def query_law(self, db: Database) -> L:
        found = self.laws.get(db)
        if found is None:
            run = self.query_run
            if self.user is not None:  # the user's code: two fresh children, two orders
                found = cast(L, ISOLATED["whole"](self, db))
            else:
                self.first_in_child(db)
                found = self.enumerate(lambda test: run(db, test), self.limit)
            self.laws[db] = found
            self.transcripts += found.transcripts
        return found

    def projected_law(self, db: Database, on: Release) -> dict[Hashable, V]:
        """The law of the projected output (made hashable as `LawCache.law` does)."""
        if on not in self.projections:
            raise ParameterError("on", on, f"one of {sorted(self.projections)}")
        project = self.projections[on]
        law: ProjectableLaw[V] = self.query_law(db)
        return law.projected(project)

    def law(self, db: Database, on: Release) -> Law:
        """Not available: this kind keeps whole laws, not factor bags (`instead`)."""
        raise ParameterError("law", self.kind, self.instead)

    def make_joint(self, db: Database, z: Node, on: Release) -> J:
        return self.pair_of(self.projected_law(db, on), self.projected_law(with_record(db, z), on))

    def make_pair_joint(self, first: Database, second: Database, on: Release) -> J:
        return self.pair_of(self.projected_law(first, on), self.projected_law(second, on))

    def fresh(self) -> WholeLawCache[L, V, J]:
        """`LawCache.fresh` for this kind: itself when it is the plain class (its laws come from
        the direct enumeration of the real code), or a new plain one for a subclass."""
        if type(self) is self.plain:
            return self
        return cast(WholeLawCache[L, V, J], self.plain(self.query_run, self.projections,
                                                       self.limit))


class QueryLawCache(WholeLawCache[QueryLaw, ExpPoly, ExactJoint]):
    """A `WholeLawCache` of exact laws (`enumerate_queries`: shared Laplace noise, noisy max)."""

    kind = "a shared-noise mechanism"
    instead = "a fresh-noise mechanism (here use exact(), make_joint(), curve())"

    isolates = True  # the user's code runs in children (`isolated.enumerate_whole`)

    def enumerate(self, run: Callable[[QueryTest], Hashable], limit: int,
                  reverse: bool = False) -> QueryLaw:
        return enumerate_queries(run, limit, reverse)

    def pair_of(self, p: dict[Hashable, ExpPoly], q: dict[Hashable, ExpPoly]) -> ExactJoint:
        return ExactJoint(p, q)

    def exact(self, db: Database, on: Release) -> dict[Hashable, ExpPoly]:
        """The exact law of the projected output."""
        return self.projected_law(db, on)

    def curve(self, db: Database, z: Node, on: Release) -> PrivacyCurve:
        """The exact curve `max(δ_{P‖Q}, δ_{Q‖P})` of `(D, D + z)` from the two exact laws."""
        return self.databases_curve(db, with_record(db, z), on)

    def databases_curve(self, first: Database, second: Database, on: Release) -> PrivacyCurve:
        """The exact curve of two databases from their exact laws."""
        p, q = self.exact(first, on), self.exact(second, on)
        zero = ExpPoly()
        forward = [(p.get(o, zero), q.get(o, zero)) for o in {*p, *q}]
        backward = [(b, a) for a, b in forward]
        return direction_curve(forward).maximum(direction_curve(backward))


def epsilon_at_delta(
    run: QueryMechanism, db: Database, z: Node, delta: Fraction,
    width: Fraction = Fraction(1, 1024), eps_max: Fraction = Fraction(64),
) -> tuple[Fraction, Fraction] | None:
    """The smallest `ε` with `δ_(D, D+z)(ε) <= delta`, certified to an interval `(lo, hi]` of
    `width` (`epsilon_for_delta` on the exact curve); None when no `ε <= eps_max` suffices
    (e.g. an output with `Q = 0 < P` of probability above `delta`)."""
    joint = QueryLawCache(run).make_joint(db, z, Release.OUTPUT)
    return epsilon_for_delta(joint, Fraction(delta), width, eps_max)


def _shared_noise_kind(query: object) -> CacheFactory | None:
    """The shared-noise primitives (`betweencut.noise.noisy_queries`) are enumerated by
    `QueryLawCache` (exact integrals of Laplace laws)."""
    if not isinstance(query, DrawNoise | AboveThreshold | NoisyMax):
        return None
    return cast(CacheFactory, QueryLawCache)  # the class: named across a pipe (`isolated`)


KINDS.append(_shared_noise_kind)
