"""Sharing one enumerated outcome tree between databases (the structure behind the benchmark).

Alg. 3 (`BetweenCut.run`) reads the database only through `count_query(c_u, test, u)`: the
guard decides some counts (Alg. 1, l. 1-4), the others go to the noisy test. So two databases
whose counts get the same guard decision at every node run the *same* code path on the same
answers: same queried nodes, same transcript, same Heavy set; only the laws of the noisy
answers differ (off the records' paths they do not even differ: Eq. 4). `SharedTreeCache`
therefore enumerates the real mechanism once per *guard pattern* (`u -> guard(c_u)`) and
re-weights each answer sequence for every other database with that pattern, exactly:
`P_D(α) = Π_i P(BT(c_{u_i}(D)) = α_i)`.

This applies only to mechanisms that keep `BetweenCut.run` (variants may override
`make_query`, `level_order`, `apply`); any other mechanism is enumerated directly. The tests
compare both routes exactly on every database of size <= 3 on small trees.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from betweencut.betweencut import BetweenCut, path_counts
from betweencut.noisy_test import Outcome
from betweencut.proofs.enumerate import Enumeration, query_factor_ids
from betweencut.proofs.privacy_audit import Database, LawCache, Mechanism, with_record
from betweencut.proofs.profiles import Joint
from betweencut.tree import Node

__all__ = ["SharedTreeCache", "guard_pattern"]

Pattern = tuple[Outcome | None, frozenset[tuple[Node, Outcome | None]]]


def guard_pattern(mechanism: BetweenCut, db: Database) -> Pattern:
    """`guard(0)` and every node whose guard decision differs from `guard(0)`: two databases
    with equal patterns get the same guard decision at every node of the tree."""
    guard = mechanism.count_query.guard
    zero = guard(0)
    differing = frozenset(
        (u, g) for u, c in path_counts(db).items() if (g := guard(c)) != zero
    )
    return zero, differing


class SharedTreeCache(LawCache):
    """A `LawCache` for BetweenCut variants that enumerates once per guard pattern."""

    def __init__(
        self, mechanism: BetweenCut, run: Mechanism,
        projections: dict[str, Callable[[object], Hashable]],
    ) -> None:
        super().__init__(run, projections)
        self.mechanism = mechanism
        self.shared = type(mechanism).run is BetweenCut.run
        self.representatives: dict[Pattern, Database] = {}
        self.direct_runs = 0
        self.base: dict[Database, Database] = {}
        self._heavy_groups: dict[Database, dict[Hashable, list[int]]] = {}

    def _base(self, db: Database) -> Database | None:
        self.enumeration(db)
        return self.base.get(db, db if db in self.representatives.values() else None)

    def joint(self, db: Database, z: Node, on: str) -> Joint:
        """As `LawCache.joint`; when both databases re-weight one outcome tree the transcripts
        align answer sequence by answer sequence and are paired without any lookup."""
        other = with_record(db, z)
        base = self._base(db)
        if on != "transcript" or base is None or base != self._base(other):
            return super().joint(db, z, on)
        key = (db, z, on)
        if self._joint is None or self._joint[0] != key:
            p, q = self.enumerations[db].leaves, self.enumerations[other].leaves
            outputs = [self.projections[on](out) for out, _ in p]
            joint = Joint.aligned(outputs, [b for _, b in p], [b for _, b in q])
            self._joint = (key, joint)
        return self._joint[1]

    def enumeration(self, db: Database) -> Enumeration[object]:
        found = self.enumerations.get(db)
        if found is not None:
            return found
        pattern = guard_pattern(self.mechanism, db) if self.shared else None
        rep = self.representatives.get(pattern) if pattern is not None else None
        if rep is None:
            found = super().enumeration(db)
            self.direct_runs += found.transcripts
            if pattern is not None:
                self.representatives[pattern] = db
            return found
        found = self._reweight(self.enumerations[rep], db)
        self.enumerations[db] = found
        self.base[db] = rep
        self.transcripts += found.transcripts
        return found

    def _reweight(self, base: Enumeration[object], db: Database) -> Enumeration[object]:
        counts = path_counts(db)
        query = self.mechanism.count_query
        table: dict[int, dict[Outcome, int]] = {}
        out: Enumeration[object] = Enumeration()
        for c in set(counts.values()) | {0}:
            table[c] = query_factor_ids(query.query(c))
        zero = table[0]
        ids_at = {u: table[c] for u, c in counts.items()}
        out.leaves = [
            (output, tuple(sorted([ids_at.get(node, zero)[s] for node, s in steps])))  # type: ignore[call-overload]
            for (output, _), steps in zip(base.leaves, base.steps, strict=True)
        ]
        out.steps = base.steps
        return out
