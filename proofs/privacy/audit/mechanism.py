"""Auditing any mechanism written against the noisy-test interface (the CI use of issue 4).

A mechanism is a callable `run(database, test) -> output` whose only randomness is the
`NoisyTest` it is handed (BetweenCut, a variant of it, or a user's code). A privacy claim is a
list of `(ε, δ)` points with rational `ε` and exact `δ` (a `Fraction`, `ExpPoly` or
`ExpRational`; Theorem 5.4's profile is one such list). `audit_mechanism` enumerates the exact
output law of every database it is given (`betweencut.proofs.privacy.enumeration.transcripts`, each
database once)
and, for every neighbouring pair and every point, decides `δ_pair(ε) <= δ` through the gate:

* **holds**: with the exact smallest margin `δ - δ_pair(ε)` and the pair where it occurs;
* **refuted**: with a counterexample: the two databases, the output event `S`, its two exact
  probabilities and the violated inequality `P(S) > e^ε·P'(S) + δ`.

The same entry point audits mechanisms that ask the shared-noise primitives of
`betweencut.noisy_queries` (SVT, report-noisy-max): `LawCache` sees what the mechanism asks
during enumeration and, at the first such query, enumerates it with the shared-noise kind
(`betweencut.proofs.privacy.enumeration.shared_noise.QueryLawCache`); `KINDS` lists the kinds.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from fractions import Fraction
from typing import TypeVar, Union, cast

from betweencut.errors import ParameterError
from betweencut.exact import as_rational
from betweencut.noisy_test import NoisyTest
from betweencut.proofs.exact.arith import ExpPoly, ExpRational, enclose, exact_str, sign
from betweencut.proofs.privacy.divergence.curve import LogOf, PrivacyCurve, curve_of_laws
from betweencut.proofs.privacy.divergence.profiles import HockeyStick, Joint, Law, PairProfile
from betweencut.proofs.privacy.enumeration.transcripts import (
    DEFAULT_LIMIT,
    Enumeration,
    ForeignQuery,
    enumerate_mechanism,
)
from betweencut.tree import Node

__all__ = [
    "KINDS", "AuditVerdict", "Database", "LawCache", "Mechanism", "PointResult", "as_database",
    "as_hashable", "audit_mechanism", "display", "kind_for", "neighbouring_pairs",
]

Database = tuple[Node, ...]
Mechanism = Callable[[Database, NoisyTest], object]
ExactDelta = Union[Fraction, int, ExpPoly, ExpRational]  # noqa: UP007
ClaimPoint = tuple[Fraction, ExactDelta]
SHOWN_OUTPUTS = 4
T = TypeVar("T")


def display(x: ExactDelta, prec: int = 64) -> float:
    """A float near an exact number, for display and JSON only: it never decides anything."""
    lo, hi = enclose(x, prec)
    return float((lo + hi) / 2)


def neighbouring_pairs(leaves: Sequence[Node], size: int) -> Iterable[tuple[Database, Node]]:
    """Every `(D, z)`, `D` a multiset of at most `size` leaves, `z` any leaf (`D ~ D + z`)."""
    from itertools import combinations_with_replacement

    if size < 0:
        raise ParameterError("size", size, "a database size >= 0")
    for n in range(size + 1):
        for db in combinations_with_replacement(sorted(leaves), n):
            for z in leaves:
                yield db, z


def with_record(db: Database, z: Node) -> Database:
    return tuple(sorted((*db, z)))


Projections = dict[str, Callable[[object], Hashable]]
CacheFactory = Callable[[Mechanism, Projections, int], "LawCache"]


def _shared_noise_kind(query: object) -> CacheFactory | None:
    """The shared-noise primitives (`betweencut.noisy_queries`) are enumerated by
    `betweencut.proofs.privacy.enumeration.shared_noise.QueryLawCache` (exact integrals of Laplace
    laws)."""
    from betweencut.noisy_queries import AboveThreshold, DrawNoise, NoisyMax

    if not isinstance(query, DrawNoise | AboveThreshold | NoisyMax):
        return None
    from betweencut.proofs.privacy.enumeration.shared_noise import QueryLawCache, QueryMechanism

    def factory(run: Mechanism, projections: Projections, limit: int) -> LawCache:
        return QueryLawCache(cast(QueryMechanism, run), projections, limit)

    return factory


# The enumeration kinds besides fresh-noise BT queries: each maps the first query a mechanism
# asks that is not a `BTQuery` to the factory of the `LawCache` kind that enumerates it (None:
# not this kind). Another kind joins by appending its own function.
KINDS: list[Callable[[object], CacheFactory | None]] = [_shared_noise_kind]


def kind_for(query: object) -> CacheFactory:
    """The cache kind that enumerates a mechanism asking `query` (`ParameterError`: none)."""
    for kind in KINDS:
        factory = kind(query)
        if factory is not None:
            return factory
    raise ParameterError("query", repr(query), "a BTQuery (betweencut.noisy_test) or a "
                         "primitive of betweencut.noisy_queries (DrawNoise, AboveThreshold, "
                         "NoisyMax)")


class LawCache:
    """Enumerates each database once and keeps its laws under each projection.

    The kind of enumeration follows what the mechanism asks: fresh-noise `BTQuery`s are
    enumerated here (factor bags); at the first query of another kind (`ForeignQuery`, e.g. a
    shared-noise `AboveThreshold`), the cache hands every later joint and curve to the cache of
    that kind (`kind_for`, e.g. `QueryLawCache`), built on the same mechanism, projections and
    budget. Each law is exact for the kind that enumerated it, and a pair is never compared
    across two kinds: the other kind's enumeration refuses a `BTQuery` (`ParameterError`), so a
    mechanism that mixes both kinds is refused at the first pair that meets both.
    """

    def __init__(
        self, run: Mechanism, projections: dict[str, Callable[[object], Hashable]] | None = None,
        limit: int = DEFAULT_LIMIT,
    ) -> None:
        self.run = run
        self.projections = projections or {"output": _identity}
        self.limit = limit
        self.enumerations: dict[Database, Enumeration[object]] = {}
        self.grouped: dict[tuple[Database, str], Law] = {}
        self.transcripts = 0
        self._joints: tuple[tuple[Database, Node], dict[str, PairProfile]] = (((), ()), {})
        self.other: LawCache | None = None  # the cache of another kind, once one was asked

    def switch(self, asked: ForeignQuery) -> LawCache:
        """Hand the mechanism to the cache kind that enumerates `asked.query` (once)."""
        if self.other is None:
            self.other = kind_for(asked.query)(self.run, self.projections, self.limit)
        return self.other

    def delegated(self, fn: Callable[[LawCache], T]) -> T:
        """`fn` on the other kind's cache, its enumeration counted in `transcripts`."""
        other = self.other
        if other is None:
            raise ParameterError("kind", "fresh noise", "a cache switched to another kind")
        before = other.transcripts
        try:
            return fn(other)
        finally:
            self.transcripts += other.transcripts - before

    def enumeration(self, db: Database) -> Enumeration[object]:
        found = self.enumerations.get(db)
        if found is None:
            run = self.run
            found = enumerate_mechanism(lambda test: run(db, test), self.limit)
            self.enumerations[db] = found
            self.transcripts += found.transcripts
        return found

    def law(self, db: Database, on: str) -> Law:
        if on not in self.projections:
            raise ParameterError("on", on, f"one of {sorted(self.projections)}")
        key = (db, on)
        found = self.grouped.get(key)
        if found is None:
            project = self.projections[on]
            found = Law(self.enumeration(db).grouped(lambda o: as_hashable(project(o))))
            self.grouped[key] = found
        return found

    def joint(self, db: Database, z: Node, on: str) -> PairProfile:
        """The two laws of `(D, D + z)` grouped for comparison (kept for the current pair)."""
        found = self.current(db, z).get(on)
        if found is None:
            found = self.current(db, z)[on] = self.make_joint(db, z, on)
        return found

    def current(self, db: Database, z: Node) -> dict[str, PairProfile]:
        """The joints of the pair last asked for, every projection (cleared on a new pair)."""
        if self._joints[0] != (db, z):
            self._joints = ((db, z), {})
        return self._joints[1]

    def make_joint(self, db: Database, z: Node, on: str) -> PairProfile:
        if self.other is None:
            try:
                return Joint(self.law(db, on), self.law(with_record(db, z), on))
            except ForeignQuery as asked:
                self.switch(asked)
        return self.delegated(lambda other: other.make_joint(db, z, on))

    def profile(self, db: Database, z: Node, on: str, eps: Fraction) -> HockeyStick:
        return self.joint(db, z, on).profile(eps)

    def fresh(self) -> LawCache:
        """A cache of the same kind whose laws come from direct enumeration of the real code.

        The hook the curves rely on (`pair_curve`, `AuditVerdict.curve`): a plain `LawCache`
        already enumerates directly, so it returns itself; a subclass with a shortcut (a
        reweighting cache) inherits this and gets a new plain `LawCache` of the same mechanism.
        A cache of another enumeration kind (shared noise: `QueryLawCache`) overrides it to
        return its own plain kind; a shortcut subclass of that kind inherits that override.
        """
        if type(self) is LawCache:
            return self
        return LawCache(self.run, self.projections, self.limit)

    def curve(self, db: Database, z: Node, on: str) -> PrivacyCurve:
        """The exact privacy curve `δ(ε)` of `(D, D + z)` from this cache's own laws (trust it
        only on a cache returned by `fresh()`)."""
        if self.other is None:
            try:
                return curve_of_laws(self.law(db, on), self.law(with_record(db, z), on))
            except ForeignQuery as asked:
                self.switch(asked)
        return self.delegated(lambda other: other.curve(db, z, on))


def _identity(x: object) -> Hashable:
    return as_hashable(x)


@dataclass(frozen=True)
class Converted:
    """An unhashable output made hashable, tagged with its type so that it never equals a
    different output (merging two outputs would hide privacy loss)."""

    kind: str
    value: Hashable


def as_hashable(x: object) -> Hashable:
    """An output as a dictionary key: itself when hashable; otherwise (recursively) a `Run` or
    other dataclass by its fields, a mapping by its items, a list, tuple or set by its elements,
    each wrapped in `Converted` with its type name, so distinct outputs stay distinct.
    Anything else gets a `ParameterError` naming its type."""
    try:
        hash(x)
    except TypeError:
        pass
    else:
        return x
    if isinstance(x, list | tuple):
        return Converted(type(x).__name__, tuple(as_hashable(v) for v in x))
    if isinstance(x, set | frozenset):
        return Converted(type(x).__name__, frozenset(as_hashable(v) for v in x))
    if isinstance(x, Mapping):
        items = frozenset((as_hashable(k), as_hashable(v)) for k, v in x.items())
        return Converted(type(x).__name__, items)
    if is_dataclass(x) and not isinstance(x, type):
        values = tuple((f.name, as_hashable(getattr(x, f.name))) for f in fields(x))
        return Converted(type(x).__qualname__, values)
    raise ParameterError(
        "output", type(x).__name__,
        "a hashable output (or a dataclass, mapping, list or set of hashable values)",
    )


def as_database(db: object, name: str = "db") -> Database:
    """A database given as any iterable of leaves (tuples or lists of child indices) as the
    sorted tuple of tuples the audit keys on; anything else gets a `ParameterError`."""
    if isinstance(db, str | bytes) or not isinstance(db, Iterable):
        raise ParameterError(name, repr(db), "an iterable of leaves (tuples of child indices)")
    return tuple(sorted(as_node(u, f"{name} record") for u in db))


def as_node(u: object, name: str = "z") -> Node:
    """A leaf given as a tuple or list of non-negative ints, as a tuple."""
    if isinstance(u, tuple | list) and all(
        isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in u
    ):
        return tuple(u)
    raise ParameterError(name, repr(u), "a node: a tuple of child indices such as (0, 1)")


def _claim_point(point: object) -> ClaimPoint:
    if not isinstance(point, tuple | list) or len(point) != 2:
        raise ParameterError("claim", repr(point), "(eps, delta) pairs")
    eps = as_rational(point[0], "eps")
    if eps < 0:
        raise ParameterError("eps", eps, "eps >= 0")
    delta = point[1]
    if isinstance(delta, bool) or not isinstance(delta, int | Fraction | ExpPoly | ExpRational):
        if isinstance(delta, str):
            delta = as_rational(delta, "delta")
        else:
            raise ParameterError("delta", repr(delta),
                                 "an exact delta: int, Fraction, ExpPoly or ExpRational "
                                 "(a float is not read: pass Fraction or a string '0.01')")
    if sign(delta) < 0:
        raise ParameterError("delta", exact_str(delta), "delta >= 0")
    return eps, delta


@dataclass(frozen=True)
class PointResult:
    """One pair at one claim point: `δ_pair(ε)` against the claimed `δ`."""

    db: Database
    z: Node
    on: str
    eps: Fraction
    delta: ExpPoly
    bound: ExactDelta
    holds: bool
    stick: HockeyStick

    @property
    def margin(self) -> ExactDelta:
        return self.bound - self.delta

    def tightness(self, prec: int = 64) -> tuple[Fraction, Fraction]:
        """Certified bounds of `δ_pair(ε) / δ_claimed` (0 if the claim is 0 and δ is 0)."""
        d_lo, d_hi = enclose(self.delta, prec)
        b_lo, b_hi = enclose(self.bound, prec)
        if b_lo <= 0:
            return (Fraction(0), Fraction(0)) if d_hi <= 0 else (d_lo, d_hi)
        return max(d_lo, Fraction(0)) / b_hi, d_hi / b_lo

    def counterexample(self) -> dict[str, object]:
        s = self.stick
        first, second = ("D", "D + z") if s.direction == "D||D+z" else ("D + z", "D")
        shown = [_short(o) for o in s.event[:SHOWN_OUTPUTS]]
        return {
            "D": self.db, "z": self.z, "D + z": with_record(self.db, self.z), "on": self.on,
            "eps": self.eps, "event_size": s.event_size, "event (first outputs)": shown,
            f"P_{first}(S)": exact_str(s.p_event), f"P_{second}(S)": exact_str(s.q_event),
            "violated": f"P_{first}(S) <= e^{self.eps} * P_{second}(S) + {exact_str(self.bound)}",
            "excess": exact_str(self.delta - self.bound),
            "excess_approx": display(self.delta - self.bound),
        }


def _is_node(u: object) -> bool:
    return isinstance(u, tuple) and all(isinstance(c, int) and not isinstance(c, bool)
                                        for c in u)


def _node(u: tuple[int, ...]) -> str:
    return "/".join(map(str, u)) or "root"


def _short(o: object) -> str:
    """An output in a few characters: node sets as `{0/1, ...}`, `(node, answer)` steps as
    `0/1:H`; any other shape (tuples, labels, user objects) falls back to `str`/`repr`."""
    if isinstance(o, frozenset | set) and all(_is_node(u) for u in o):
        return "{" + ", ".join(_node(u) for u in sorted(o)) + "}"
    if isinstance(o, tuple) and o and all(
        isinstance(x, tuple) and len(x) == 2 and _is_node(x[0]) for x in o
    ):
        return " ".join(f"{_node(u)}:{getattr(s, 'value', s)}" for u, s in o)
    if isinstance(o, str):
        return o
    return repr(o)


def check_point(
    cache: LawCache, db: Database, z: Node, on: str, eps: Fraction, bound: ExactDelta
) -> PointResult:
    stick = cache.profile(db, z, on, eps)
    holds = sign(stick.delta - bound) <= 0
    return PointResult(db, z, on, eps, stick.delta, bound, holds, stick)


def tighter(a: PointResult, b: PointResult) -> bool:
    """`δ_a/bound_a > δ_b/bound_b` (bounds positive), by enclosures, else exactly."""
    a_lo, a_hi = a.tightness()
    b_lo, b_hi = b.tightness()
    if a_lo > b_hi:
        return True
    if a_hi < b_lo or sign(a.bound) <= 0 or sign(b.bound) <= 0:
        return False
    return sign(a.delta * b.bound - b.delta * a.bound) > 0


def _pairs(pairs: object) -> Iterable[tuple[object, object]]:
    if isinstance(pairs, str | bytes) or not isinstance(pairs, Iterable):
        raise ParameterError("pairs", repr(pairs), "an iterable of (database, added leaf)")
    for pair in pairs:
        if not isinstance(pair, tuple | list) or len(pair) != 2:
            raise ParameterError("pairs", repr(pair), "(database, added leaf) pairs")
        yield pair[0], pair[1]


@dataclass
class AuditVerdict:
    """`holds` with the smallest exact margin, or the first refuting point.

    `worst` is the refuting point, else the tightest one; `counterexample()` describes the
    refutation (None when the claim holds); `curve()` is the exact privacy curve `δ(ε)` of the
    worst pair and `epsilon_at_delta()` the smallest `ε` at the worst point's claimed `δ` on it
    (`betweencut.proofs.privacy.divergence.curve`), both computed on demand by direct enumeration.
    """

    holds: bool
    pairs: int = 0
    transcripts: int = 0
    tightest: PointResult | None = None
    refutation: PointResult | None = None
    results: list[PointResult] = field(default_factory=list)
    cache: LawCache | None = field(default=None, repr=False, compare=False)
    on: str = "output"

    @property
    def worst(self) -> PointResult | None:
        return self.refutation if self.refutation is not None else self.tightest

    def counterexample(self) -> dict[str, object] | None:
        """The refutation's counterexample (databases, event, exact `P(S)`, `Q(S)`), or None."""
        return None if self.refutation is None else self.refutation.counterexample()

    def curve(self) -> PrivacyCurve | None:
        """The exact `δ(ε)` of the worst pair (None when no pair was audited)."""
        worst = self.worst
        if worst is None or self.cache is None:
            return None
        return pair_curve(self.cache, worst.db, worst.z, self.on)

    def epsilon_at_delta(self, delta: ExactDelta | None = None) -> LogOf | None:
        """The smallest `ε` with `δ_worst(ε) <= delta` (default: the worst point's claimed
        `δ`): a certified lower bound on the mechanism's `ε` at that `δ`. None: no pair, or no
        finite `ε`."""
        worst, curve = self.worst, self.curve()
        if worst is None or curve is None:
            return None
        return curve.epsilon_at_delta(worst.bound if delta is None else delta)


def pair_curve(cache: LawCache, db: Database, z: Node, on: str) -> PrivacyCurve:
    """The exact privacy curve of `(D, D + z)` under projection `on`, from laws enumerated
    directly: `cache.fresh()` (a shortcut cache is not trusted here; a cache of the same
    enumeration kind re-enumerates the real code)."""
    return cache.fresh().curve(db, z, on)


def audit_mechanism(
    run: Mechanism,
    pairs: Iterable[tuple[Database, Node]],
    claim_points: Sequence[ClaimPoint],
    on: str = "output",
    projections: dict[str, Callable[[object], Hashable]] | None = None,
    cache: LawCache | None = None,
    keep: bool = False,
) -> AuditVerdict:
    """Does `run` satisfy every `(ε, δ)` of the claim on every neighbouring pair `(D, D + z)`?

    Preconditions: `run(D, test)` is deterministic given the answers of `test`, its only
    randomness; every `ε` rational `>= 0`, every `δ` exact.
    Returns: an `AuditVerdict`: holds (smallest margin, decided exactly) or the first refuting
    point, whose `counterexample()` names the databases, the event and both probabilities.
    """
    if not callable(run):
        raise ParameterError("run", repr(run), "a callable run(database, test) -> output")
    if isinstance(claim_points, tuple) and len(claim_points) == 2 and not isinstance(
        claim_points[0], tuple | list
    ):
        raise ParameterError("claim_points", repr(claim_points),
                             "a list of (eps, delta) points, e.g. [(Fraction(1), 0)]")
    points = [_claim_point(p) for p in claim_points]
    if not points:
        raise ParameterError("claim", "[]", "at least one (eps, delta) point")
    cache = cache or LawCache(run, projections)
    if on not in cache.projections:
        raise ParameterError("on", on, f"one of {sorted(cache.projections)}")
    verdict = AuditVerdict(True, cache=cache, on=on)
    for db_given, z_given in _pairs(pairs):
        db, z = as_database(db_given), as_node(z_given)
        verdict.pairs += 1
        for eps, bound in points:
            result = check_point(cache, db, z, on, eps, bound)
            if keep:
                verdict.results.append(result)
            if not result.holds:
                verdict.holds, verdict.refutation = False, result
                verdict.transcripts = cache.transcripts
                return verdict
            if verdict.tightest is None or tighter(result, verdict.tightest):
                verdict.tightest = result
    verdict.transcripts = cache.transcripts
    return verdict
