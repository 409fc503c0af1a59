"""Each deliberately broken BetweenCut variant that breaks privacy is refuted (issue 4)."""

from __future__ import annotations

import pytest

from betweencut.data.tree import kary_tree
from betweencut.proofs.exact.arith import sign
from betweencut.proofs.privacy.claims.gallery import (
    PRIVACY_BREAKING,
    STRUCTURAL_ONLY,
    audit_variant,
    refute,
)
from betweencut.proofs.privacy.enumeration.cache import neighbouring_pairs


@pytest.mark.parametrize("name", sorted(PRIVACY_BREAKING))
def test_theorem_5_4_refutes_broken_variant(name: str) -> None:
    verdict = refute(name)
    assert not verdict.holds and verdict.refutation is not None
    res = verdict.refutation
    assert sign(res.delta - res.bound) > 0  # type: ignore[operator]
    cex = res.counterexample()
    for key in ("D", "z", "direction", "eps", "event", "P", "Q", "excess", "event_size"):
        assert key in cex
    assert cex["event_size"] >= 1


def test_theorem_5_4_correct_mechanism_holds_on_the_pinned_cases() -> None:
    """The same pinned cases with Alg. 3 itself: no refutation (the variant is to blame)."""
    from betweencut.mechanism.betweencut import BetweenCut

    for case in PRIVACY_BREAKING.values():
        verdict = audit_variant(BetweenCut, case.arity, case.height, case.tau, case.lam, case.R,
                                [(case.db, case.z)], case.on)
        assert verdict.holds


@pytest.mark.parametrize("name", sorted(STRUCTURAL_ONLY))
def test_theorem_5_4_structural_only_variants_keep_privacy_on_a_small_tree(name: str) -> None:
    variant, _lemma = STRUCTURAL_ONLY[name]
    pairs = list(neighbouring_pairs(list(kary_tree(2, 2).level(1)), 1))
    verdict = audit_variant(variant, 2, 2, 1, 1, 2, pairs, "heavy")  # type: ignore[arg-type]
    assert verdict.holds


def test_theorem_5_4_audits_a_variant_with_another_r_against_the_claimed_r() -> None:
    """Issue 28, sweep (R from two sources): a variant whose guards use `R = 1` while the
    claimed parameters say `R = 12` (binary h = 3) or 16 (h = 15, at depth) is audited against
    the claimed `R`'s bound and refuted on both ways in (BetweenCut itself holds there)."""
    from fractions import Fraction

    from betweencut.mechanism.betweencut import BetweenCut
    from betweencut.mechanism.guarded_bt import BT, GuardedBT
    from betweencut.mechanism.params import Params
    from betweencut.proofs.exact.certificate import ClaimRefuted
    from betweencut.proofs.privacy.depth.depth_audit import check_theorem_5_4_at_depth

    class GuardWidthOne(BetweenCut):
        def make_query(self) -> BT:
            p = self.params
            return GuardedBT.of(p.a, p.b, 1, p.lam)

    tree = kary_tree(2, 3)
    pairs = list(neighbouring_pairs(list(tree.level(2)), 1))
    lam = Fraction(1, 2)
    found = audit_variant(GuardWidthOne, 2, 3, Fraction(3), lam, Fraction(12), pairs, "transcript")
    assert not found.holds and found.refutation is not None  # the worst of its points r*lam:
    assert found.refutation.eps % lam == 0 and found.refutation.eps > 0  # issue 35, item 4
    assert audit_variant(BetweenCut, 2, 3, Fraction(3), lam, Fraction(12), pairs,
                         "transcript").holds
    with pytest.raises(ClaimRefuted) as info:
        check_theorem_5_4_at_depth(15, Params.of(18, lam, 16), variant=GuardWidthOne)
    assert info.value.counterexample["R"] == "16" and info.value.counterexample["count"] == 15
