"""The structural sum-to-1 check (`transcripts.complete_outcome_tree`) answers to the exact one
(`Enumeration.total() == 1`): both accept every enumeration of PrivTree's real run on small
domains (both cells), and both reject broken enumerations (a leaf dropped, a leaf repeated, a
factor from another law: factors that do not sum to 1)."""

from __future__ import annotations

import pytest

from betweencut.baselines.privtree import PrivTree
from betweencut.proofs.baselines.privtree_checks.privtree_search import closed_member
from betweencut.proofs.exact.arith import ExpPoly
from betweencut.proofs.laws.factors import factor_id, factor_key
from betweencut.proofs.privacy.enumeration.transcripts import (
    Enumeration,
    MechanismNotReplayable,
    complete_outcome_tree,
    enumerate_mechanism,
)


def _mech(bits: int, closed: bool) -> PrivTree:
    box = ((0, 2**bits),)
    return PrivTree.of(box, 1, member=closed_member) if closed else PrivTree.of(box, 1)


def _enum(bits: int, closed: bool, db: list[tuple[int, ...]]) -> Enumeration[object]:
    mech = _mech(bits, closed)
    return enumerate_mechanism(lambda test: mech.run(list(db), test), structural=True)


def _agree(enum: Enumeration[object]) -> bool:
    """Both checks' answers, asserted equal; True when they accept."""
    exact = enum.total() == ExpPoly.const(1)
    structural = complete_outcome_tree(enum.sequences, [b for _, b in enum.leaves]) is None
    assert exact is structural
    return exact


CASES = [(bits, closed, db) for bits in (1, 2, 3) for closed in (False, True)
         for db in ([], [(0,)], [(0,), (0,)], [(2**bits - 1,), (0,)])]


@pytest.mark.parametrize(("bits", "closed", "db"), CASES)
def test_structural_sum_to_one_agrees_with_the_exact_sum(
        bits: int, closed: bool, db: list[tuple[int, ...]]) -> None:
    enum = _enum(bits, closed, db)
    assert _agree(enum)
    enum.sums_to_one()  # no exception
    mech = _mech(bits, closed)
    exact = enumerate_mechanism(lambda test: mech.run(list(db), test))  # the exact check ran
    assert [b for _, b in exact.leaves] == [b for _, b in enum.leaves]
    assert exact.sequences == [] and len(enum.sequences) == len(enum.leaves)


def _broken(enum: Enumeration[object], leaves: list[tuple[object, tuple[int, ...]]],
            sequences: list[tuple[int, ...]]) -> Enumeration[object]:
    return Enumeration(leaves=leaves, steps=enum.steps[:len(leaves)], sequences=sequences)


def test_structural_sum_rejects_a_dropped_or_repeated_leaf() -> None:
    enum = _enum(3, True, [(4,), (4,)])
    assert len(enum.leaves) > 2
    dropped = _broken(enum, enum.leaves[1:], enum.sequences[1:])
    repeated = _broken(enum, [*enum.leaves, enum.leaves[0]], [*enum.sequences,
                                                               enum.sequences[0]])
    for bad in (dropped, repeated):
        assert not _agree(bad)
        with pytest.raises(MechanismNotReplayable, match="do not sum to exactly 1"):
            bad.sums_to_one()


def test_structural_sum_rejects_factors_that_do_not_sum_to_one() -> None:
    """One answer's factor replaced by the same outcome of another law (another count): the
    outcomes of that noisy test no longer sum to 1, and both checks reject."""
    enum = _enum(2, False, [(0,)])
    seq = enum.sequences[0]
    d_a, d_b, lam, outcome = factor_key(seq[0])
    other = factor_id((d_a - 1, d_b - 1, lam, outcome))
    changed = (other, *seq[1:])
    leaves = [(enum.leaves[0][0], tuple(sorted(changed))), *enum.leaves[1:]]
    bad = _broken(enum, leaves, [changed, *enum.sequences[1:]])
    assert not _agree(bad)
    with pytest.raises(MechanismNotReplayable, match="different laws"):
        bad.sums_to_one()


def test_structural_sum_rejects_a_bag_that_is_not_its_sequence() -> None:
    enum = _enum(2, False, [(0,)])
    seq = enum.sequences[0]
    leaves = [(enum.leaves[0][0], tuple(sorted((*seq, seq[0])))), *enum.leaves[1:]]
    bad = _broken(enum, leaves, enum.sequences)
    assert not _agree(bad)
