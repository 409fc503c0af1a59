"""Sharing one enumerated outcome tree between databases (the structure behind the benchmark).

Alg. 3 (`BetweenCut.run`) reads the database only through `count_query(c_u, test, u)`: the
guard decides some counts (Alg. 1, l. 1-4), the others go to the noisy test, and the rest of
the run sees only the answer. So two databases whose counts get the same guard decision at
every node run the *same* code path on the same answers: same queried nodes, same transcript,
same Heavy set; only the laws of the noisy answers differ (off the records' paths they do not
even differ: Eq. 4). `SharedTreeCache` therefore enumerates the real mechanism once per *guard
pattern* (`u -> guard(c_u)`) and re-weights each answer sequence for every other database with
that pattern, exactly: `P_D(α) = Π_i P(BT(c_{u_i}(D)) = α_i)`. A database whose guard decides
a node that the enumerated tree asked is weighed on it too (`covers`): the guard's answer there
has probability 1 and the others probability 0, which is what the run would have seen.

This applies only to mechanisms that keep `BetweenCut.run` (variants may override `make_query`,
`level_order`, `apply`, on their class or their instance: the real ones run), checked on the
constructed object (`betweencut.boundary.seams.overrides`: `run` set on the instance, a base
patched after import, `__getattr__`, a property for `count_query` or `tree` all send every pair
to direct enumeration of the real code), and the answer law at a count is never taken from
`guard()` and `query()`: it is *observed* by running the query object's `__call__`, the code the
mechanism runs (`betweencut.proofs.privacy.enumeration.query_laws`), at every node of the tree,
for every count used. Where that call does anything but decide one outcome or ask one query and
return its answer, or where it behaves differently at two nodes with the same count, the count
has no shared law (`NotAligned`) and every pair needing it is enumerated directly. Re-weighting
the enumerated database itself must also give back every enumerated probability. The tests
compare both routes exactly on every database of size <= 3 on small trees, every profile on
every pair of size <= 2, and (Hypothesis) randomly overridden queries and steps.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping

import numpy as np

from betweencut.boundary.seams import overrides
from betweencut.data.tree import Node
from betweencut.errors import ParameterError
from betweencut.mechanism.betweencut import SEAMS, BetweenCut, path_counts
from betweencut.noise.noisy_test import Outcome
from betweencut.proofs.exact.arith import ExpPoly
from betweencut.proofs.exact.packed import Packer
from betweencut.proofs.laws.factors import Bag, bags_value, factor_value
from betweencut.proofs.privacy.divergence.joint import PairCurve
from betweencut.proofs.privacy.enumeration.cache import Database, LawCache, Mechanism, with_record
from betweencut.proofs.privacy.enumeration.pair_classes import (
    AlignedJoint,
    NotAligned,
    OutcomeTable,
    PairClasses,
    Weights,
)
from betweencut.proofs.privacy.enumeration.query_laws import observed_law_everywhere
from betweencut.proofs.privacy.enumeration.transcripts import Enumeration
from betweencut.proofs.verdict import Release

__all__ = ["SharedTreeCache", "covers", "guard_pattern", "weights_total"]

Pattern = tuple[Outcome | None, frozenset[tuple[Node, Outcome | None]]]
SHARED_SEAMS = ("run",)  # modelled: make_query, level_order, apply run for real in Alg. 3's run


def guard_pattern(decide: Callable[[int], Outcome | None], db: Database) -> Pattern:
    """`decide(0)` and every node whose decision differs from `decide(0)`: two databases with
    equal patterns get the same decision at every node of the tree. `decide(c)` is the outcome
    the count query returns without asking the noisy test at count `c` (None if it asks)."""
    zero = decide(0)
    differing = frozenset(
        (u, g) for u, c in path_counts(db).items() if (g := decide(c)) != zero
    )
    return zero, differing


def weights_total(weights: Weights) -> ExpPoly:
    """`Σ_i P_D(i)` over the answer sequences of an outcome tree weighed for one database,
    exactly (impossible ones weigh 0): 1 whenever the tree can weigh the database."""
    counts = np.bincount(weights.group, minlength=len(weights.bags)).tolist()
    bags: dict[Bag, int] = {}
    for bag, n in zip(weights.bags, counts, strict=True):
        if bag is not None and n:
            bags[bag] = bags.get(bag, 0) + n
    return bags_value(bags)


def covers(tree: Pattern, db: Pattern) -> bool:
    """Can a database with pattern `db` be weighed on the outcome tree of pattern `tree`: is
    every node it asks asked there, and every node decided there decided the same way?"""
    zero = tree[0]
    decided, own = dict(tree[1]), dict(db[1])
    return all(
        decided.get(u, zero) is None or decided.get(u, zero) == own.get(u, db[0])
        for u in decided.keys() | own.keys()
    ) and (zero is None or zero == db[0])


class SharedTreeCache(LawCache):
    """A `LawCache` for BetweenCut variants that enumerates once per guard pattern.

    A pair whose two databases can both be weighed on one enumerated outcome tree (`covers`)
    is compared by `AlignedJoint` (grouped answer sequences, exact); other pairs, and
    mechanisms that replace `run` anywhere (`unshared` says where), go through the general
    `LawCache` path.
    """

    def __init__(
        self, mechanism: BetweenCut, run: Mechanism,
        projections: dict[Release, Callable[[object], Hashable]],
    ) -> None:
        super().__init__(run, projections)
        self.mechanism = mechanism
        # Why the outcome tree is not shared (`run` replaced anywhere on the object, a trap
        # such as `__getattr__`, a field computed on read): every pair is enumerated directly.
        self.unshared = overrides(mechanism, SEAMS, SHARED_SEAMS)
        self.shared = not self.unshared
        self.representatives: dict[Pattern, Database] = {}
        self.patterns: dict[Database, Pattern | None] = {}
        self.direct_runs = 0
        self.tables: dict[Database, OutcomeTable | None] = {}
        self.weights: dict[tuple[Database, Database], Weights] = {}
        self.packer = Packer(mechanism.params.lam, factor_value)  # Theorem 5.4 asks at ε = rλ
        self._laws: dict[int, dict[Outcome, int | None] | None] = {}
        self.nodes = [u for d in range(mechanism.tree.height) for u in mechanism.tree.level(d)]
        self._pair: tuple[tuple[Database, Node, Database], PairClasses] | None = None

    def law_at(self, count: int) -> dict[Outcome, int | None]:
        """The answer law at a node with this count, observed by running the mechanism's own
        `count_query(count, test, u)` at every node `u` (`observed_law_everywhere`): the factor
        id of each outcome of the one query it asks, or `{outcome: None}` (probability 1) where
        it decides without asking. Raises `NotAligned` where the call does anything else."""
        if count not in self._laws:
            self._laws[count] = observed_law_everywhere(
                self.mechanism.count_query, count, self.nodes)
        found = self._laws[count]
        if found is None:
            raise NotAligned(f"the count query at count {count} is not one guard or one query")
        return found

    def decided(self, count: int) -> Outcome | None:
        """The outcome the count query returns at `count` without asking, None if it asks."""
        law = self.law_at(count)
        if len(law) == 1:
            ((outcome, fid),) = law.items()
            if fid is None:
                return outcome
        return None

    def pattern(self, db: Database) -> Pattern | None:
        """The decision pattern of `db` (None if a count it uses has no shared law)."""
        if db not in self.patterns:
            try:
                self.patterns[db] = guard_pattern(self.decided, db)
            except NotAligned:
                self.patterns[db] = None
        return self.patterns[db]

    def representative(self, db: Database) -> Database | None:
        """The database whose directly enumerated outcome tree has `db`'s guard pattern (None
        if `db` has no pattern: it is enumerated directly)."""
        pattern = self.pattern(db)
        if pattern is None:
            return None
        found = self.representatives.get(pattern)
        if found is None:
            found = self.representatives[pattern] = db
            self.direct_runs += super().enumeration(db).transcripts
        return found

    def table(self, rep: Database) -> OutcomeTable | None:
        """The outcome tree of `rep` as arrays, checked: re-weighting `rep` itself must give
        back every enumerated bag (else the laws depend on more than the count: not shared)."""
        if rep not in self.tables:
            table: OutcomeTable | None = None
            try:
                table = OutcomeTable(self.enumerations[rep])
                own = Weights.of(table, path_counts(rep), self.law_at)
                if any(own.bag_of(i) != bag for i, (_, bag) in enumerate(table.base.leaves)):
                    table = None
                else:
                    self.weights[rep, rep] = own
            except NotAligned:
                table = None
            self.tables[rep] = table
        return self.tables[rep]

    def common_tree(self, first: Database, second: Database) -> Database | None:
        """An enumerated outcome tree both databases can be weighed on (the smallest known
        one, else the tree of one of them if it covers the other), or None."""
        found = self.tree_for(first, second, self.representatives,
                              lambda rep: self.enumerations[rep].transcripts)
        if found is None:
            return None
        db, new = found
        return self.representative(db) if new else db

    def tree_for(self, first: Database, second: Database, known: Mapping[Pattern, Database],
                 size: Callable[[Database], int]) -> tuple[Database, bool] | None:
        """Which outcome tree `common_tree` weighs both databases on, given the trees `known`
        (pattern -> representative) and their sizes, without enumerating: the smallest known
        one that covers both `(rep, False)`, else one of the two whose own pattern covers both
        `(db, True)`: a new tree), or None (the pair is compared by the general path). The
        cost estimate (`betweencut.proofs.privacy.enumeration.cost`) plans with it too."""
        if not self.shared:
            return None
        pf, ps = self.pattern(first), self.pattern(second)
        if pf is None or ps is None:
            return None
        fits = [rep for p, rep in known.items() if covers(p, pf) and covers(p, ps)]
        if fits:
            return min(fits, key=size), False
        for db, pattern in ((first, pf), (second, ps)):
            if covers(pattern, pf) and covers(pattern, ps):
                return db, True
        return None

    def weigh(self, db: Database, rep: Database) -> tuple[OutcomeTable, Weights] | None:
        table = self.table(rep)
        if table is None:
            return None
        found = self.weights.get((db, rep))
        if found is None:
            try:
                found = Weights.of(table, path_counts(db), self.law_at)
            except NotAligned:
                return None
            self.weights[db, rep] = found
            self.transcripts += table.transcripts
        return table, found

    def enumeration(self, db: Database) -> Enumeration[object]:
        found = self.enumerations.get(db)
        if found is not None:
            return found
        rep = self.representative(db) if self.shared else None
        weighed = self.weigh(db, rep) if rep is not None else None
        if weighed is None:
            return super().enumeration(db)
        table, weights = weighed
        found = Enumeration()
        for (out, _), k, steps in zip(table.base.leaves, weights.group.tolist(),
                                      table.base.steps, strict=True):
            bag = weights.bags[k]
            if bag is not None:  # an impossible answer sequence is not in the law at all
                found.leaves.append((out, bag))
                found.steps.append(steps)
        if found.total() != ExpPoly.const(1):  # the law promise, as for a direct enumeration
            return super().enumeration(db)
        self.keep(db, found)
        return found

    def pinned(self) -> set[Database]:
        """The representatives: their outcome trees weigh every other database."""
        return set(self.representatives.values())

    def make_joint(self, db: Database, z: Node, on: Release) -> PairCurve:
        """As `LawCache.make_joint`; when both databases can be weighed on one outcome tree,
        the exact `AlignedJoint` (grouped answer sequences) instead of comparing every output."""
        other = with_record(db, z)
        rep = self.common_tree(db, other)
        if rep is None:
            return super().make_joint(db, z, on)
        mine, theirs = self.weigh(db, rep), self.weigh(other, rep)
        if mine is None or theirs is None:
            return super().make_joint(db, z, on)
        if on not in self.projections:
            raise ParameterError("on", on, f"one of {sorted(self.projections)}")
        table = mine[0]
        if self._pair is None or self._pair[0] != (db, z, rep):
            path = [z[:d] for d in range(len(z) + 1)]
            try:
                classes = PairClasses(table, path, path_counts(db), self.law_at)
            except NotAligned:
                return super().make_joint(db, z, on)
            self._pair = ((db, z, rep), classes)
        classes = self._pair[1]
        self.packer.admit({b for b in (*mine[1].bags, *theirs[1].bags) if b is not None},
                          table.transcripts)
        if not self.packer.lattice.reaches(0):  # a huge grid: compare without packing
            return super().make_joint(db, z, on)
        one = self.packer.lattice.encode(ExpPoly.const(1))
        if any(w.packed_total(self.packer) != one for w in (mine[1], theirs[1])):
            return super().make_joint(db, z, on)  # the law promise (total exactly 1) fails
        return AlignedJoint(table, classes, (mine[1], theirs[1]), self.packer,
                            self.projections[on])
