"""PrivTree through `audit_pairs`: exact laws from the reachable decomposition (issue 16).

`PrivTreeLawCache` is a `LawCache` (`betweencut.proofs.privacy.audit.mechanism`) for a `PrivTree`
(or a variant: another membership rule, split rule, or a subclass overriding `query`/`run`) whose
pair laws come from the decomposition of `privtree_search`, computed by running the *real*
`run` (principle 2): for a pair `(D, D + z)` only the boxes of `T_z` are answered by the
enumeration, `T_z` being the boxes from which a box containing `z` (under the mechanism's own
`member`) can be reached; every other box is answered "stop" without a noisy test. A box
outside `T_z` has the same count, hence the same split law, under `D` and `D + z`, and whether
it is visited depends only on decisions in `T_z`, so with `t(o)` the decisions an output `o`
makes in `T_z`,

    P_D(o) = P_D(t(o))·R(o | t(o)),    P_{D+z}(o) = P_{D+z}(t(o))·R(o | t(o)),

with the same `R`; the likelihood ratio depends on `t(o)` only, hence the hockey stick
`δ(ε) = Σ_o (P(o) − e^ε·Q(o))_+ = Σ_t (P(t) − e^ε·Q(t))_+` is the same on the reduced outputs
(the released partition cut back to `T_z`), and so are `P(S)` and `Q(S)` of the violating event
(the full event is the preimage of the reduced one). An output of the reduced law is the set of
leaves of the partition cut back to `T_z`: read it as the event "the partition agrees with this
on `T_z`". Tested for exact equality with direct enumeration of the real code (principle 8),
including variants overriding the membership rule and the query; as a run-time guard the first
boxes left out of `T_z` must ask the same queries under `D` and `D + z`
(`DecompositionMismatch` otherwise). `curve()` on a verdict re-enumerates the whole real
mechanism (`fresh()`).

Databases are multisets of points given as sorted tuples (a point repeated `k` times is `k`
copies, `as_points`/`multiplicities` convert from and to `{point: copies}`), so that
`audit_pairs` keys them as for any mechanism; points are tuples of non-negative ints.
The pair lists: `exhaustive_pairs` (every database of at most `N` points, deduplicated by the
counts on `T_z`, which fix the pair's law), `multiplicity_pairs` (at most `support` distinct
points with any copies) and `dp_pair` (the count DP's worst pair, exact over every database of
at most `N` points for a partition rule: decisive for a pure claim `δ = 0`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from functools import lru_cache

from betweencut.baselines.privtree import Box, Point, PrivTree
from betweencut.errors import BetweenCutError, ParameterError
from betweencut.noisy_test import BTQuery, NoisyTest, Outcome
from betweencut.proofs.baselines.privtree_search import WorstPair, is_partition, worst_pair
from betweencut.proofs.laws.factors import law_key
from betweencut.proofs.privacy.divergence.profiles import Joint, Law, PairProfile
from betweencut.proofs.privacy.enumeration.cache import Database, LawCache, as_hashable, with_record
from betweencut.proofs.privacy.enumeration.transcripts import DEFAULT_LIMIT, enumerate_mechanism
from betweencut.tree import Node

__all__ = [
    "MAX_BOXES", "DecompositionMismatch", "PrivTreeLawCache", "PrunedTest", "as_points",
    "box_tree", "domain", "dp_pair", "exhaustive_pairs", "keep_set", "multiplicities",
    "multiplicity_pairs", "pair_count", "privtree_run", "profile",
]

MAX_BOXES = 1 << 14  # the public box tree is walked once per mechanism (public information)
Pair = tuple[Database, Node]


class DecompositionMismatch(BetweenCutError):
    """A box outside `T_z` asked different queries under `D` and `D + z`: the mechanism does not
    count with its own `member` rule, and the decomposition does not apply to it."""


def privtree_run(mech: PrivTree) -> Callable[[Database, NoisyTest], object]:
    """The real `mech.run` as an audited mechanism `(database, test) -> leaves`."""

    def run(db: Database, test: NoisyTest) -> object:
        return mech.run(list(db), test)

    return run


def as_points(counts: Mapping[Point, int]) -> Database:
    """`{point: copies}` as the sorted tuple of points the audit keys databases on."""
    out: list[Point] = []
    for p, k in counts.items():
        if not isinstance(k, int) or isinstance(k, bool) or k < 0:
            raise ParameterError("copies", k, "an integer >= 0 per point")
        out.extend([tuple(p)] * k)
    return tuple(sorted(out))


def multiplicities(db: Sequence[Point]) -> dict[Point, int]:
    """A database (points, repeats allowed) as `{point: copies}`, points in order."""
    out: dict[Point, int] = {}
    for p in sorted(db):
        out[tuple(p)] = out.get(tuple(p), 0) + 1
    return out


@lru_cache(maxsize=64)
def box_tree(mech: PrivTree) -> dict[Box, tuple[Box, ...]]:
    """The public split tree: every box with its children (at most `MAX_BOXES` boxes)."""
    out: dict[Box, tuple[Box, ...]] = {}
    stack = [mech.box]
    while stack:
        box = stack.pop()
        if box in out:
            continue
        if len(out) >= MAX_BOXES:
            raise ParameterError("box", mech.box, f"a split tree of at most {MAX_BOXES} boxes")
        out[box] = mech.split.children(box)
        stack.extend(out[box])
    return out


@lru_cache(maxsize=64)
def domain(mech: PrivTree) -> tuple[Point, ...]:
    """Every integer cell of the public box (the points a database may hold)."""
    return tuple(tuple(p) for p in itertools.product(*(range(lo, hi) for lo, hi in mech.box)))


@lru_cache(maxsize=4096)
def keep_set(mech: PrivTree, z: Point) -> frozenset[Box]:
    """`T_z`: the boxes of the split tree from which a box containing `z` can be reached (itself
    included). Closed under parents; only these are answered by the enumeration."""
    if not mech.member(z, mech.box):
        raise ParameterError("z", z, f"a point inside the public box {mech.box}")
    tree = box_tree(mech)
    keep: set[Box] = set()

    def visit(box: Box) -> bool:
        below = [visit(c) for c in tree[box]]  # every child: no short cut
        hit = mech.member(z, box) or any(below)
        if hit:
            keep.add(box)
        return hit

    visit(mech.box)
    return frozenset(keep)


class PrunedTest:
    """A `NoisyTest` that passes the queries of boxes in `keep` to `inner` and answers every
    other one `L` (stop; PrivTree splits iff `H`) without a test, recording it in `seen`."""

    def __init__(self, inner: NoisyTest, keep: frozenset[Box],
                 seen: set[tuple[Hashable, object]]) -> None:
        self.inner, self.keep, self.seen = inner, keep, seen

    def __call__(self, query: BTQuery) -> Outcome:
        if query.node in self.keep:
            return self.inner(query)
        self.seen.add((query.node, law_key(query)))
        return Outcome.L


def profile(mech: PrivTree, db: Database, z: Point) -> tuple[tuple[Box, int], ...]:
    """The counts of `D` on the boxes of `T_z`: they fix the law of the pair `(D, D + z)`."""
    keep = keep_set(mech, z)
    counts = multiplicities(db)
    return tuple(sorted((b, sum(k for p, k in counts.items() if mech.member(p, b)))
                        for b in keep))


class PrivTreeLawCache(LawCache):
    """`LawCache` whose pair laws are those of the reduced outputs on `T_z` (module doc), each
    enumerated from the real `run` once per (database, `T_z`); `law()` and `enumeration()` of
    the base class still enumerate the whole real mechanism."""

    def __init__(self, mech: PrivTree, limit: int = DEFAULT_LIMIT) -> None:
        if not isinstance(mech, PrivTree):
            raise ParameterError("mech", type(mech).__name__, "a PrivTree (or subclass)")
        if mech.min_bins != 1:
            raise ParameterError("min_bins", mech.min_bins,
                                 "1 (post-processing may merge outputs: audit with LawCache)")
        super().__init__(privtree_run(mech), None, limit)
        self.mech = mech
        self.reduced_laws: dict[tuple[Database, frozenset[Box]],
                                tuple[Law, frozenset[tuple[Hashable, object]]]] = {}

    def fresh(self) -> LawCache:
        """A plain cache re-enumerating the whole real mechanism (for curves)."""
        return LawCache(self.run, self.projections, self.limit)

    def reduced(self, db: Database, keep: frozenset[Box], on: str
                ) -> tuple[Law, frozenset[tuple[Hashable, object]]]:
        """The law of the run cut back to `keep`, with the queries left out (answered stop)."""
        key = (db, keep)
        found = self.reduced_laws.get(key)
        if found is None:
            project = self.projections[on]
            seen: set[tuple[Hashable, object]] = set()
            run = self.run
            enum = enumerate_mechanism(lambda test: run(db, PrunedTest(test, keep, seen)),
                                       self.limit, progress=False)
            self.transcripts += enum.transcripts
            law = Law(enum.grouped(lambda o: as_hashable(project(o))))
            found = self.reduced_laws[key] = (law, frozenset(seen))
        return found

    def make_joint(self, db: Database, z: Node, on: str) -> PairProfile:
        keep = keep_set(self.mech, tuple(z))
        p, p_off = self.reduced(db, keep, on)
        q, q_off = self.reduced(with_record(db, z), keep, on)
        if p_off != q_off:
            raise DecompositionMismatch(
                f"D = {multiplicities(db)}, z = {z}: a box outside T_z asks a different query "
                "under D and D + z (the run does not count with mech.member)")
        return Joint(p, q)


def pair_count(mech: PrivTree, size: int) -> int:
    """The number of pairs `(D, z)` with `|D| <= size` over the domain: `W·C(size + W, W)`."""
    width = len(domain(mech))
    return width * math.comb(size + width, width)


def _dedup(mech: PrivTree, pairs: Iterator[Pair]) -> list[Pair]:
    """The first pair of each `(z, counts on T_z)` class (the classes have equal laws)."""
    seen: set[tuple[Node, tuple[tuple[Box, int], ...]]] = set()
    out: list[Pair] = []
    for db, z in pairs:
        key = (z, profile(mech, db, z))
        if key not in seen:
            seen.add(key)
            out.append((db, z))
    return out


def _size(size: int, cap: int) -> None:
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise ParameterError("size", size, "an integer >= 0")
    if cap < 1:
        raise ParameterError("cap", cap, "an integer >= 1")


def exhaustive_pairs(mech: PrivTree, size: int, cap: int = 20000) -> list[Pair]:
    """Every `(D, z)` with `|D| <= size`, one per class of equal law (`profile`); refused when
    more than `cap` pairs would have to be listed (`ParameterError`)."""
    _size(size, cap)
    total = pair_count(mech, size)
    if total > cap:
        raise ParameterError("size", size, f"at most {cap} pairs to list (this means {total}; "
                             "a partition rule with a pure claim uses the count DP)")
    cells = domain(mech)
    return _dedup(mech, ((db, z) for n in range(size + 1)
                         for db in itertools.combinations_with_replacement(cells, n)
                         for z in cells))


def multiplicity_pairs(mech: PrivTree, size: int, support: int = 2, cap: int = 200000
                       ) -> list[Pair]:
    """Every `(D, z)` with `D` made of at most `support` distinct points (any copies, at most
    `size` in all), one per class of equal law; refused past `cap` databases·points."""
    _size(size, cap)
    if support not in (1, 2):
        raise ParameterError("support", support, "1 or 2 distinct points")
    cells = domain(mech)
    dbs = 1 + len(cells) * size + (math.comb(len(cells), 2) * size * (size - 1) // 2
                                   if support == 2 else 0)
    if dbs * len(cells) > cap:
        raise ParameterError("size", size, f"at most {cap} pairs to list (this means "
                             f"{dbs * len(cells)})")

    def databases() -> Iterator[Database]:
        yield ()
        for k in range(1, size + 1):
            for p in cells:
                yield (p,) * k
        if support == 2:
            for p, q in itertools.combinations(cells, 2):
                for k in range(1, size):
                    for j in range(1, size - k + 1):
                        yield tuple(sorted((p,) * k + (q,) * j))

    return _dedup(mech, ((db, z) for db in databases() for z in cells))


def dp_pair(mech: PrivTree, size: int) -> tuple[Pair, WorstPair]:
    """The count DP's worst pair over every database of at most `size` points (a partition
    rule: `ParameterError` otherwise): the pair of largest `max_o P/Q`, so a pure claim holds on
    every such pair iff it holds on this one."""
    if not is_partition(mech):
        raise ParameterError("member", getattr(mech.member, "__name__", mech.member),
                             "a rule that partitions every box (for the count DP)")
    found = worst_pair(mech, size)
    return (as_points(found.db), found.z), found
