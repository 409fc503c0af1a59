"""Enumerated laws, kept per database: the enumeration engine's front (`LawCache`), the
databases and records it is asked about, and the enumeration kinds.

A mechanism is a callable `run(database, test) -> output` whose only randomness is the
`NoisyTest` it is handed. `LawCache` enumerates each database once
(`betweencut.proofs.privacy.enumeration.transcripts`) and keeps its laws under each projection;
at the first query of another kind (a shared-noise primitive of `betweencut.noise.noisy_queries`) it
hands the mechanism to that kind's cache (`KINDS`, `kind_for`: `shared_noise.QueryLawCache`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar

from betweencut.boundary.encoding import keyed, release_of
from betweencut.data.tree import Node
from betweencut.errors import ParameterError
from betweencut.noise.noisy_test import NoisyTest
from betweencut.proofs.privacy.divergence.certified_curve import Curve
from betweencut.proofs.privacy.divergence.curve import curve_of_laws
from betweencut.proofs.privacy.divergence.joint import HockeyStick, Joint, Law, PairCurve
from betweencut.proofs.privacy.enumeration.transcripts import (
    DEFAULT_LIMIT,
    Enumeration,
    ForeignQuery,
    enumerate_mechanism,
)
from betweencut.proofs.verdict import Release

__all__ = [
    "ISOLATED", "KINDS", "CacheFactory", "Database", "LawCache", "Mechanism", "Neighbour",
    "Projections", "as_database", "as_node", "kind_for", "neighbouring_pairs", "replace_pairs",
    "where", "with_record",
]

Database = tuple[Node, ...]
KEPT_SEQUENCES = 100_000  # answer sequences a LawCache holds (BetweenCut runs: ~8 KB each)
Mechanism = Callable[[Database, NoisyTest], object]
T = TypeVar("T")


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


@dataclass(frozen=True)
class Neighbour:
    """Two neighbouring databases `first` and `second` (sorted): `added` is `z` when
    `second = first + z` (add/remove), `replaced` is `(x, y)` when `second` is `first` with one
    copy of `x` replaced by `y` (replace-one, `x != y`)."""

    first: Database
    second: Database
    added: Node | None = None
    replaced: tuple[Node, Node] | None = None

    @staticmethod
    def add(db: Database, z: Node) -> Neighbour:
        return Neighbour(db, with_record(db, z), added=z)

    @staticmethod
    def replace(db: Database, x: Node, y: Node) -> Neighbour:
        """`db` with one copy of `x` replaced by `y` (`ParameterError` if `x` is not in it)."""
        if x == y:
            raise ParameterError("replaced", (x, y), "two different records x != y")
        rest = list(db)
        if x not in rest:
            raise ParameterError("replaced", x, "a record of the database D")
        rest.remove(x)
        return Neighbour(tuple(sorted(db)), with_record(tuple(rest), y), replaced=(x, y))

    @staticmethod
    def between(first: Database, second: Database) -> Neighbour:
        """The replace-one pair of two databases of equal size that differ in one record
        (`ParameterError` naming `D'` otherwise)."""
        rest, extra = list(first), []
        for record in second:
            if record in rest:
                rest.remove(record)
            else:
                extra.append(record)
        if len(rest) != 1 or len(extra) != 1:
            raise ParameterError("D'", len(extra), "a database of the same size as D with "
                                 "exactly one record replaced (replace-one neighbours)")
        return Neighbour.replace(tuple(sorted(first)), rest[0], extra[0])

    @property
    def z(self) -> Node:
        """The add/remove pair's added record (`()` for a replace-one pair)."""
        return self.added if self.added is not None else ()


def replace_pairs(records: Sequence[Node], size: int) -> Iterable[Neighbour]:
    """Every replace-one pair of databases of `1..size` records drawn from `records`: `C + x`
    against `C + y` for every multiset `C` of `|C| < size` records and `x < y` (each unordered
    pair once: both directions are audited)."""
    from itertools import combinations, combinations_with_replacement

    if size < 0:
        raise ParameterError("size", size, "a database size >= 0")
    ordered = sorted(records)
    for n in range(size):
        for rest in combinations_with_replacement(ordered, n):
            for x, y in combinations(ordered, 2):
                yield Neighbour.replace(with_record(rest, x), x, y)


Projections = dict[Release, Callable[[object], Hashable]]
CacheFactory = Callable[[Mechanism, Projections, int], "LawCache"]


# How the user's code is enumerated in children (`betweencut.proofs.privacy.enumeration.isolated`
# registers "fresh", "whole" and "keyed" when imported; the package `__init__` imports it).
ISOLATED: dict[str, Callable[..., Any]] = {}


# The enumeration kinds besides fresh-noise BT queries: each maps the first query a mechanism
# asks that is not a `BTQuery` to the factory of the `LawCache` kind that enumerates it (None:
# not this kind). Another kind joins by appending its own function when its module is imported
# (`shared_noise` does; the package `__init__` imports it, so the kind is always registered).
KINDS: list[Callable[[object], CacheFactory | None]] = []


def kind_for(query: object) -> CacheFactory:
    """The cache kind that enumerates a mechanism asking `query` (`ParameterError`: none)."""
    for kind in KINDS:
        factory = kind(query)
        if factory is not None:
            return factory
    raise ParameterError("query", repr(query), "a BTQuery (betweencut.noise.noisy_test) or a "
                         "primitive of betweencut.noise.noisy_queries (DrawNoise, AboveThreshold, "
                         "NoisyMax)")


class LawCache:
    """Enumerates each database once and keeps its laws under each projection.

    The user's code (a run marked by `betweencut.boundary.isolation.marked`) is enumerated in
    two fresh child processes per database, in two orders, checked to agree
    (`betweencut.proofs.privacy.enumeration.isolated`); its outputs are then `Outputs` and
    `projections` read the keys the children computed with the real ones (`given`).

    The kind of enumeration follows what the mechanism asks: fresh-noise `BTQuery`s are
    enumerated here (factor bags); at the first query of another kind (`ForeignQuery`, e.g. a
    shared-noise `AboveThreshold`), the cache hands every later joint and curve to the cache of
    that kind (`kind_for`, e.g. `QueryLawCache`), built on the same mechanism, projections and
    budget. Each law is exact for the kind that enumerated it, and a pair is never compared
    across two kinds: the other kind's enumeration refuses a `BTQuery` (`ParameterError`), so a
    mechanism that mixes both kinds is refused at the first pair that meets both.
    """

    isolates = True  # does this kind run the user's code in children (a subclass may not)

    def __init__(
        self, run: Mechanism, projections: Projections | None = None,
        limit: int = DEFAULT_LIMIT,
    ) -> None:
        from betweencut.boundary.isolation import user_code

        self.run = run
        # every projection keys its outputs by their canonical bytes (`boundary.encoding`):
        # the laws group outputs that are the same release, never the user's `==`
        given = projections or {Release.OUTPUT: release_of}
        self.given = {on: keyed(p) for on, p in given.items()}
        self.user = user_code(run) if self.isolates else None  # enumerated in fresh children
        # the user's code: the children key the real outputs, the parent reads their keys
        self.projections = self.given if self.user is None else _keyed(self.given)
        self.after: Callable[[], None] | None = None  # a check run where the runs ran (a child)
        self.limit = limit
        self.enumerations: dict[Database, Enumeration[object]] = {}  # least recent first
        self.kept = 0  # answer sequences held in `enumerations`
        self.grouped: dict[tuple[Database, str], Law] = {}
        self.transcripts = 0
        self._joints: tuple[tuple[Database, object], dict[str, PairCurve]] = (((), ()), {})
        self.other: LawCache | None = None  # the cache of another kind, once one was asked

    def switch(self, asked: ForeignQuery) -> LawCache:
        """Hand the mechanism to the cache kind that enumerates `asked.query` (once)."""
        if self.other is None:
            factory = getattr(asked, "factory", None) or kind_for(asked.query)
            self.other = factory(self.run, self.given, self.limit)
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
            if self.user is not None:
                found = ISOLATED["fresh"](run, db, where(db), self.user, self.given,
                                          self.limit, self.after)
            else:
                found = enumerate_mechanism(lambda test: run(db, test), self.limit)
            self.transcripts += found.transcripts
            self.keep(db, found)
        else:
            self.enumerations[db] = self.enumerations.pop(db)  # the most recent now
        return found

    def keep(self, db: Database, found: Enumeration[object]) -> None:
        """Hold `db`'s enumeration, dropping the least recently used ones (and their laws)
        while more than `KEPT_SEQUENCES` answer sequences are held: the memory of an audit is
        bounded whatever the number of databases (a dropped database is enumerated again if
        asked again). Databases `pinned` (a shortcut's outcome trees) are never dropped."""
        self.enumerations.pop(db, None)
        self.enumerations[db] = found
        self.kept = sum(e.transcripts for e in self.enumerations.values())
        for old in list(self.enumerations):
            if self.kept <= KEPT_SEQUENCES or old == db:
                break
            if old in self.pinned():
                continue
            self.kept -= self.enumerations.pop(old).transcripts
            for on in self.projections:
                self.grouped.pop((old, on), None)

    def pinned(self) -> set[Database]:
        """Databases whose enumeration is never dropped (none here)."""
        return set()

    def law(self, db: Database, on: Release) -> Law:
        if on not in self.projections:
            raise ParameterError("on", on, f"one of {sorted(self.projections)}")
        key = (db, on)
        found = self.grouped.get(key)
        if found is None:
            project = self.projections[on]
            found = Law(self.enumeration(db).grouped(project))
            self.grouped[key] = found
        return found

    def joint(self, db: Database, z: Node, on: Release) -> PairCurve:
        """The two laws of `(D, D + z)` grouped for comparison (kept for the current pair)."""
        found = self.current(db, z).get(on)
        if found is None:
            found = self.current(db, z)[on] = self.make_joint(db, z, on)
        return found

    def current(self, db: Database, z: Node | Database) -> dict[str, PairCurve]:
        """The joints of the pair last asked for, every projection (cleared on a new pair);
        `z` the added record, or the other database of a replace-one pair."""
        if self._joints[0] != (db, z):
            self._joints = ((db, z), {})
        return self._joints[1]

    def answered(self, own: Callable[[], T], again: Callable[[LawCache], T]) -> T:
        """`own()` from this cache's laws, or, once a run asked a query of another kind
        (`ForeignQuery`: this cache switches), `again` on the cache of that kind (which calls
        its public method, so that a subclass overriding it is asked)."""
        if self.other is None:
            try:
                return own()
            except ForeignQuery as asked:
                self.switch(asked)
        return self.delegated(again)

    def make_joint(self, db: Database, z: Node, on: Release) -> PairCurve:
        return self.answered(lambda: Joint(self.law(db, on), self.law(with_record(db, z), on)),
                             lambda other: other.make_joint(db, z, on))

    def divergence(self, db: Database, z: Node, on: Release, eps: Fraction) -> HockeyStick:
        return self.joint(db, z, on).divergence(eps)

    def direct(self) -> LawCache:
        """`fresh()`, kept: the cache that answers pairs no shortcut covers (replace-one)."""
        found = self.__dict__.get("_direct")
        if found is None:
            found = self.__dict__["_direct"] = self.fresh()
        return found

    def pair_joint(self, pair: Neighbour, on: Release) -> PairCurve:
        """The two laws of any neighbouring pair: an add/remove one through `joint` (and this
        cache's shortcuts), a replace-one one from laws enumerated directly (`direct()`)."""
        if pair.added is not None:
            return self.joint(pair.first, pair.added, on)
        direct = self.direct()
        if direct is not self:
            return direct.pair_joint(pair, on)
        key = (pair.first, pair.second)
        found = self.current(*key).get(on)  # keyed as a pair of databases
        if found is None:
            found = self.current(*key)[on] = self.make_pair_joint(pair.first, pair.second, on)
        return found

    def make_pair_joint(self, first: Database, second: Database, on: Release) -> PairCurve:
        return self.answered(lambda: Joint(self.law(first, on), self.law(second, on)),
                             lambda other: other.make_pair_joint(first, second, on))

    def neighbour_curve(self, pair: Neighbour, on: Release) -> Curve:
        """The exact curve of any neighbouring pair, from direct enumeration."""
        direct = self.direct()
        if pair.added is not None:
            return direct.curve(pair.first, pair.added, on)
        return direct.databases_curve(pair.first, pair.second, on)

    def databases_curve(self, first: Database, second: Database, on: Release) -> Curve:
        """The exact curve `max(δ_{P‖Q}, δ_{Q‖P})` of two databases, from this cache's laws."""
        return self.answered(lambda: curve_of_laws(self.law(first, on), self.law(second, on)),
                             lambda other: other.databases_curve(first, second, on))

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
        out = LawCache(self.run, self.given, self.limit)
        out.after = self.after
        return out

    def curve(self, db: Database, z: Node, on: Release) -> Curve:
        """The exact privacy curve `δ(ε)` of `(D, D + z)` from this cache's own laws (trust it
        only on a cache returned by `fresh()`)."""
        return self.answered(
            lambda: curve_of_laws(self.law(db, on), self.law(with_record(db, z), on)),
            lambda other: other.curve(db, z, on))


def _keyed(projections: Projections) -> Projections:
    """The parent's projections of an enumeration made in children: each reads the key the
    child computed with the real projection (`isolated.keyed`)."""
    return {on: ISOLATED["keyed"](on) for on in projections}


def where(db: Database) -> str:
    """The database a message names: `on D = {0/0, 0/1}`."""
    from betweencut.data.notation import database_text

    try:
        return f"on D = {database_text(db)}"
    except Exception:  # a database outside the notation (never from the audit)
        return f"on D = {db!r}"


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
