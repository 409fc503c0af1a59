"""Counting PrivTree's answer sequences exactly, and a direct cache that counts before it
enumerates (issue 27: an estimate that holds).

`enumerate_mechanism` visits one answer sequence per decision pattern of the run. For
`PrivTree.run` these patterns are counted on the public split tree without running anything
(`answer_sequences`), so the cost of an enumeration is known exactly before it starts: refused
at once past the budget (`EnumerationBudgetExceeded`, exit 2 at the CLI, stating the count),
shown as exact in the progress line, and checked equal to the enumeration afterwards
(`DecompositionMismatch` otherwise). A subclass that replaces `run` is enumerated with the
generic random-walk estimate instead (labelled an estimate).
"""

from __future__ import annotations

from collections.abc import Callable

from betweencut.baselines.privtree import Box, Point, PrivTree
from betweencut.errors import BetweenCutError
from betweencut.noise.noisy_test import NoisyTest, Outcome
from betweencut.proofs.baselines.privtree_checks.privtree_search import reduction_refusal
from betweencut.proofs.laws.factors import query_factors
from betweencut.proofs.privacy.enumeration.cache import Database, LawCache
from betweencut.proofs.privacy.enumeration.transcripts import (
    DEFAULT_LIMIT,
    Enumeration,
    EnumerationBudgetExceeded,
    enumerate_mechanism,
)

WALK_CAP = 1 << 16  # boxes walked to count, at least

__all__ = ["DecompositionMismatch", "DirectPrivTreeCache", "answer_sequences",
           "counted_enumeration", "privtree_run"]


class DecompositionMismatch(BetweenCutError):
    """A box outside `T_z` asked different queries under `D` and `D + z`, or a count proved
    exact disagreed with the enumeration: a seam has hidden state, and the decomposition does
    not apply to it."""


def privtree_run(mech: PrivTree) -> Callable[[Database, NoisyTest], object]:
    """The real `mech.run` as an audited mechanism `(database, test) -> leaves`."""

    def run(db: Database, test: NoisyTest) -> object:
        return mech.run(list(db), test)

    return run


def _branches(mech: PrivTree, count: int, depth: int, box: Box) -> tuple[int, int]:
    """`(outcomes that stop, outcomes that split)` of non-zero probability at a box."""
    support = query_factors(mech.query(count, depth, box))
    split = sum(1 for s, _ in support if s is Outcome.H)
    return len(support) - split, split


def answer_sequences(mech: PrivTree, db: Database, keep: frozenset[Box] | None,
                     cap: int) -> int:
    """The exact number of answer sequences the enumeration of `PrivTree.run(D)` visits: one
    per decision pattern. A splittable box asked with `s` stopping and `t` splitting outcomes
    of non-zero probability has `N = s + t·Π N(child)`; a box that cannot split, or (with
    `keep`, the reduced run of `PrunedTest`) lies outside `keep`, asks no test: `N = 1`.
    Raises `EnumerationBudgetExceeded` past `cap` sequences (stating the exact count), or past
    `max(cap, WALK_CAP)` boxes walked."""
    walked = 0

    def count(box: Box, depth: int, inside: list[Point]) -> int:
        nonlocal walked
        walked += 1
        if walked > max(cap, WALK_CAP):
            raise EnumerationBudgetExceeded(
                "limit", cap, 0, None, 0.0, f"counting the answer sequences walks more than "
                f"{max(cap, WALK_CAP)} boxes that can be reached (with a Laplace test that may "
                "stop or split at each, there are more answer sequences than that)")
        kids = mech.split.children(box)
        if not kids or (keep is not None and box not in keep):
            return 1
        stop, split = _branches(mech, len(inside), depth, box)
        deeper = 1
        if split:
            for child in kids:
                deeper *= count(child, depth + 1, [p for p in inside if mech.member(p, child)])
        return stop + split * deeper

    total = count(mech.box, 0, [tuple(p) for p in db])
    if total > cap:
        raise EnumerationBudgetExceeded("limit", cap, 0, total, 0.0, "the number of answer "
                                        "sequences exceeds the budget", counted=True)
    return total


def counted_enumeration(mech: PrivTree, db: Database, run: Callable[[NoisyTest], object],
                        keep: frozenset[Box] | None, limit: int, progress: bool
                        ) -> Enumeration[object]:
    """The enumeration of `run`, counted first (`answer_sequences`) and checked against it.
    Its sum to 1 is checked on the outcome tree's structure (`complete_outcome_tree`: a
    PrivTree answer sequence is a product of one factor per box it decides, up to one per box
    of a deep `T_z`, which the exact sum would expand; issue 35, item 5)."""
    count = answer_sequences(mech, db, keep, limit)
    enum = enumerate_mechanism(run, limit, progress=progress, count=count, structural=True)
    if enum.transcripts != count:
        raise DecompositionMismatch(f"counted {count} answer sequences on the split tree, "
                                    f"enumerated {enum.transcripts} (a seam has hidden state)")
    return enum


class DirectPrivTreeCache(LawCache):
    """A plain `LawCache` of a PrivTree's whole real run (no shortcut) whose enumerations are
    counted exactly first when the run is `PrivTree.run` (refused past `limit` at once)."""

    def __init__(self, mech: PrivTree, limit: int = DEFAULT_LIMIT) -> None:
        super().__init__(privtree_run(mech), None, limit)
        self.mech = mech

    def fresh(self) -> LawCache:
        return self

    def enumeration(self, db: Database) -> Enumeration[object]:
        if reduction_refusal(self.mech) is not None:
            return super().enumeration(db)
        found = self.enumerations.get(db)
        if found is None:
            run = self.run
            found = counted_enumeration(self.mech, db, lambda test: run(db, test), None,
                                        self.limit, True)
            self.enumerations[db] = found
            self.transcripts += found.transcripts
        return found


