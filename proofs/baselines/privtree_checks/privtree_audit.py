"""PrivTree through `audit_pairs`: exact laws from the reachable decomposition (issues 16, 27).

`PrivTreeLawCache` is a `LawCache` (`betweencut.proofs.privacy.audit.pairs`) for a `PrivTree`
(or a variant: another membership rule, split rule, or a subclass overriding `query` or
`score`) whose pair laws come from running the *real* `PrivTree.run` (principle 2) with only
the boxes of `T_z` answered by the enumeration, every other box answered "stop" without a
noisy test (`PrunedTest`). The cost grows with `z`'s path, not with the domain.

`T_z` (`keep_set`) is `reachable(mech, z)`: the boxes reached from the root through boxes
whose `member` rule accepts `z`. Proof that it suffices. (1) In `PrivTree.run` a child's points
are its parent's points that `member(p, child)` accepts, so by induction a box holds the points
of `D` accepted by every box on its path, and `D + z` holds one more exactly in the boxes of
`T_z`, whatever the membership rule (even one that accepts `z` in a box below a box that
rejects it: the run has already dropped `z` there). (2) `T_z` is closed under parents, so a box
outside it has its whole subtree outside it: every test there is the same query (`query` is a
function of the count, depth and box) under `D` and `D + z`. (3) With `t(o)` the decisions an
output `o` makes in `T_z` (which boxes of `T_z` split; which are visited is fixed by their
ancestors' decisions), the boxes visited outside `T_z` are fixed by `t(o)`, and

    P_D(o) = P_D(t(o))·R(o | t(o)),    P_{D+z}(o) = P_{D+z}(t(o))·R(o | t(o)),

with the same `R` (the product over the visited boxes outside `T_z` of their decisions' laws).
The likelihood ratio depends on `t(o)` only, hence the hockey stick
`δ(ε) = Σ_o (P(o) − e^ε·Q(o))_+ = Σ_t (P(t) − e^ε·Q(t))_+` for every `ε` (so the whole privacy
curve and `ε` at any `δ`), and `P(S)`, `Q(S)` of the violating event (the full event is the
preimage of the reduced one), are those of the reduced outputs: the released partition cut back
to `T_z`, read as the event "the partition agrees with this on `T_z`".

Preconditions (`reduction_refusal`): `min_bins = 1` (refused otherwise) and the run is
`PrivTree.run` itself: a subclass replacing `run` or `force_min_bins` counts in its own way,
and the cache *falls back* to direct enumeration of its real run for it (`direct`). As a
run-time guard the boxes left out of `T_z` must ask the same queries under `D` and `D + z`
(`DecompositionMismatch` otherwise: a seam with hidden state). Tested for exact equality with
direct enumeration of the real code (principle 8), including variants overriding the
membership rule, `score` and `run`.

Budget: the number of answer sequences of every enumeration here is counted exactly before it
starts (`answer_sequences`: one per decision pattern on the public split tree, cut back to
`T_z` for the reduced laws) and refused past the cache's `limit` (`EnumerationBudgetExceeded`,
exit 2 at the CLI, with the count). `fresh()` is a direct cache (`DirectPrivTreeCache`) that
counts too.

Databases are multisets of points given as sorted tuples (a point repeated `k` times is `k`
copies, `as_points`/`multiplicities` convert from and to `{point: copies}`), so that
`audit_pairs` keys them as for any mechanism; points are tuples of non-negative ints.
The pair lists: `exhaustive_pairs` (every database of at most `N` points, deduplicated by the
counts on `T_z`, which fix the pair's law), `multiplicity_pairs` (at most `support` distinct
points with any copies) and `dp_pair` (the count DP's worst pair, exact over every database of
at most `N` points for a partition rule: decisive for a pure claim `δ = 0`). `epsilon_bound` is
the largest `ε` at `δ` over every pair of a list, with the pair and its exact curve.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from betweencut.baselines.privtree import Box, Point, PrivTree, volume
from betweencut.data.tree import Node
from betweencut.errors import ParameterError
from betweencut.noise.noisy_test import BTQuery, NoisyTest, Outcome
from betweencut.proofs.baselines.privtree_checks.privtree_count import (
    DecompositionMismatch,
    DirectPrivTreeCache,
    answer_sequences,
    counted_enumeration,
    privtree_run,
)
from betweencut.proofs.baselines.privtree_checks.privtree_search import (
    Ratio,
    WorstPair,
    is_partition,
    pair_loss,
    reachable,
    reduction_refusal,
    worst_pair,
)
from betweencut.proofs.exact.arith import ExpRational, sign
from betweencut.proofs.laws.factors import law_key
from betweencut.proofs.privacy.divergence.certified_curve import Curve
from betweencut.proofs.privacy.divergence.curve import LogOf, curve_of_laws
from betweencut.proofs.privacy.divergence.factored import FactoredJoint
from betweencut.proofs.privacy.divergence.joint import Joint, Law, PairCurve
from betweencut.proofs.privacy.enumeration.cache import Database, LawCache, with_record
from betweencut.proofs.privacy.enumeration.transcripts import (
    DEFAULT_LIMIT,
    EnumerationBudgetExceeded,
)
from betweencut.proofs.verdict import Release

__all__ = [
    "CURVE_SEQUENCES", "MAX_CELLS", "DecompositionMismatch", "DirectPrivTreeCache",
    "PairEpsilon", "PrivTreeLawCache", "PrunedTest", "answer_sequences", "as_points",
    "counts_key", "domain", "dp_pair", "epsilon_bound", "exhaustive_pairs", "keep_set",
    "multiplicities", "multiplicity_pairs", "pair_count", "path_counts", "privtree_run",
]

MAX_CELLS = 1 << 16  # pair lists name every cell of the public box
Pair = tuple[Database, Node]


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
def domain(mech: PrivTree) -> tuple[Point, ...]:
    """Every integer cell of the public box (the points a database may hold), at most
    `MAX_CELLS` of them (a larger box is searched by symmetry: `privtree_depth`)."""
    if volume(mech.box) > MAX_CELLS:
        raise ParameterError("box", mech.box, f"at most {MAX_CELLS} cells to list one by one "
                             "(a larger box: privtree_depth's symmetric search)")
    return tuple(tuple(p) for p in itertools.product(*(range(lo, hi) for lo, hi in mech.box)))


@lru_cache(maxsize=4096)
def keep_set(mech: PrivTree, z: Point) -> frozenset[Box]:
    """`T_z`: the boxes reached from the root through boxes whose `member` rule accepts `z`
    (`reachable`): exactly the boxes whose count `z` changes in `PrivTree.run` (module doc).
    Closed under parents; only these are answered by the enumeration."""
    if not mech.member(z, mech.box):
        raise ParameterError("z", z, f"a point inside the public box {mech.box}")
    return frozenset(box for box, _ in reachable(mech, z))


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


def path_counts(mech: PrivTree, db: Database, z: Point) -> dict[Box, int]:
    """The count of `D` in every box of `T_z` as `PrivTree.run` counts it (a child keeps its
    parent's points that its rule accepts)."""
    tree = reachable(mech, z)
    out: dict[Box, int] = {}
    stack: list[tuple[tuple[Box, int], list[Point]]] = [((mech.box, 0), [tuple(p) for p in db])]
    while stack:
        (box, depth), inside = stack.pop()
        out[box] = len(inside)
        for child in tree[box, depth]:
            stack.append((child, [p for p in inside if mech.member(p, child[0])]))
    return out


def counts_key(mech: PrivTree, db: Database, z: Point) -> tuple[tuple[Box, int], ...]:
    """The counts of `D` on the boxes of `T_z`: with `z` they fix the law of `(D, D + z)`."""
    return tuple(sorted(path_counts(mech, db, z).items()))


class PrivTreeLawCache(LawCache):
    """`LawCache` whose pair laws are those of the reduced outputs on `T_z` (module doc), each
    enumerated from the real `run` once per (database, `T_z`); a mechanism outside the
    decomposition's proof (`refusal`) is enumerated directly. `law()` and `enumeration()` of
    the base class still enumerate the whole real mechanism."""

    def __init__(self, mech: PrivTree, limit: int = DEFAULT_LIMIT) -> None:
        if not isinstance(mech, PrivTree):
            raise ParameterError("mech", type(mech).__name__, "a PrivTree (or subclass)")
        if mech.min_bins != 1:
            raise ParameterError("min_bins", mech.min_bins,
                                 "1 (post-processing may merge outputs: audit with LawCache)")
        super().__init__(privtree_run(mech), None, limit)
        self.mech = mech
        self.refusal = reduction_refusal(mech)
        self.factored_from = CURVE_BOXES  # larger T_z: the divergence kept factored (make_joint)
        self.reduced_laws: dict[tuple[Database, frozenset[Box]],
                                tuple[Law, frozenset[tuple[Hashable, object]]]] = {}

    def fresh(self) -> LawCache:
        """A direct cache re-enumerating the whole real mechanism (for curves)."""
        return DirectPrivTreeCache(self.mech, self.limit)

    def reduced(self, db: Database, keep: frozenset[Box], on: Release
                ) -> tuple[Law, frozenset[tuple[Hashable, object]]]:
        """The law of the run cut back to `keep`, with the queries left out (answered stop)."""
        key = (db, keep)
        found = self.reduced_laws.get(key)
        if found is None:
            project = self.projections[on]
            seen: set[tuple[Hashable, object]] = set()
            run = self.run
            enum = counted_enumeration(
                self.mech, db, lambda test: run(db, PrunedTest(test, keep, seen)), keep,
                self.limit, False)
            self.transcripts += enum.transcripts
            law = Law(enum.grouped(project))  # keyed by release (`LawCache`)
            found = self.reduced_laws[key] = (law, frozenset(seen))
        return found

    def reduced_pair(self, db: Database, z: Node, on: Release = Release.OUTPUT) -> tuple[Law, Law]:
        """The reduced laws of `D` and `D + z`, the boxes left out checked alike."""
        keep = keep_set(self.mech, tuple(z))
        p, p_off = self.reduced(db, keep, on)
        q, q_off = self.reduced(with_record(db, z), keep, on)
        if p_off != q_off:
            raise DecompositionMismatch(
                f"D = {multiplicities(db)}, z = {z}: a box outside T_z asks a different query "
                "under D and D + z (a seam with hidden state)")
        return p, q

    def make_joint(self, db: Database, z: Node, on: Release) -> PairCurve:
        """The pair's divergence: exact (`Joint`) from the reduced laws, or from the whole run
        when the decomposition does not apply; past `factored_from` boxes of `T_z` (answer
        sequences of as many two-term factors) with `P(S)`, `Q(S)` kept factored
        (`FactoredJoint`: the event decided exactly, its probabilities certified)."""
        if self.refusal is not None:
            return Joint(self.fresh().law(db, on), self.fresh().law(with_record(db, z), on))
        if len(keep_set(self.mech, tuple(z))) > self.factored_from:
            return FactoredJoint(*self.reduced_pair(db, z, on))
        return Joint(*self.reduced_pair(db, z, on))

    def pair_curve(self, db: Database, z: Node) -> Curve:
        """The pair's exact privacy curve: from the reduced laws (equal to the whole run's, module
        doc), or by direct enumeration when the decomposition does not apply."""
        if self.refusal is not None:
            return self.fresh().curve(db, z, Release.OUTPUT)
        return curve_of_laws(*self.reduced_pair(db, z))


CURVE_SEQUENCES = 64  # a pair's curve is drawn when each of its reduced laws has at most this
CURVE_BOXES = 20  # ... and `T_z` at most this many boxes: an answer sequence's value is a product
# of up to one two-term factor per box, expanded by the curve (at 40 boxes, [0, 2^40), the
# curve of the worst pair ran past 30 minutes; the verdict at delta = 0 needs no curve)


@dataclass
class PairEpsilon:
    """The largest `ε` at `δ` over the pairs given (`epsilon`; None: no finite `ε`), the pair
    attaining it, its exact privacy curve (None when a reduced law of the pair has more than
    `CURVE_SEQUENCES` answer sequences or `T_z` more than `CURVE_BOXES` boxes: not drawn,
    `epsilon` does not need it) and how many
    pairs were compared."""

    epsilon: LogOf | None
    db: Database
    z: Node
    curve: Curve | None
    pairs: int


def epsilon_bound(cache: PrivTreeLawCache, pairs: Iterable[Pair], delta: Fraction | int
                  ) -> PairEpsilon | None:
    """The largest `ε` at `δ` over *every* pair given (None: no pair), with the pair attaining
    it: a certified lower bound on the mechanism's `ε` at `δ`.

    At `δ = 0` with the decomposition, `ε_at_0` of a pair is its largest loss
    `ln max_o max(P/Q, Q/P)` (the smallest `ε` with `P(o) <= e^ε·Q(o)` both ways for every
    output), which `pair_loss` computes exactly without enumerating (tested equal to the curve's
    `epsilon_at_delta(0)`). Otherwise every pair's curve is computed
    (`PrivTreeLawCache.pair_curve`). Since `δ_pair(ε) <= δ` iff `ε >= ε_at_δ(pair)`, a claim
    `(ε, δ)` holds on every pair given iff it holds on the pair returned."""
    if sign(Fraction(delta)) == 0 and cache.refusal is None:
        ratio: Ratio | None = None
        count = 0
        for db, z in pairs:
            count += 1
            loss = pair_loss(cache.mech, multiplicities(db), tuple(z)).worst()[0]
            if ratio is None or loss.exceeds(ratio):
                ratio, pair = loss, (db, z)
        if ratio is None:
            return None
        eps = LogOf(ExpRational(ratio.num, ratio.den))
        return PairEpsilon(eps, *pair, _small_curve(cache, *pair), count)
    found: PairEpsilon | None = None
    count = 0
    for db, z in pairs:
        count += 1
        curve = cache.pair_curve(db, z)
        at = curve.epsilon_at_delta(delta)
        if found is None or at is None or (
                found.epsilon is not None and at.compare(found.epsilon) > 0):
            found = PairEpsilon(at, db, z, curve, 0)
        if at is None:
            break  # nothing is larger than +inf
    if found is not None:
        found.pairs = count
    return found


def _small_curve(cache: PrivTreeLawCache, db: Database, z: Node) -> Curve | None:
    """The pair's exact curve when it is small (`CURVE_SEQUENCES`, `CURVE_BOXES`), else None:
    not drawn (issue 35, item 5: its values are products of a factor per box of `T_z`)."""
    keep = keep_set(cache.mech, tuple(z))
    if len(keep) > CURVE_BOXES:
        return None
    try:
        for d in (db, with_record(db, z)):
            answer_sequences(cache.mech, d, keep, CURVE_SEQUENCES)
    except EnumerationBudgetExceeded:
        return None
    return cache.pair_curve(db, z)


def pair_count(mech: PrivTree, size: int) -> int:
    """The number of pairs `(D, z)` with `|D| <= size` over the domain: `W·C(size + W, W)`."""
    width = len(domain(mech))
    return width * math.comb(size + width, width)


def _dedup(mech: PrivTree, pairs: Iterator[Pair]) -> list[Pair]:
    """The first pair of each `(z, counts on T_z)` class (the classes have equal laws)."""
    seen: set[tuple[Node, tuple[tuple[Box, int], ...]]] = set()
    out: list[Pair] = []
    for db, z in pairs:
        key = (z, counts_key(mech, db, z))
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
    """Every `(D, z)` with `|D| <= size`, one per class of equal law (`counts_key`); refused when
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
