"""The notebook helpers (`betweencut.properties.teaching.basics`) read the package faithfully and
fail
loudly: a tampered run, a broken variant or a passing 'refutation' raises."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

from betweencut.data.tree import kary_tree
from betweencut.errors import BetweenCutError
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.mechanism.params import Params
from betweencut.noise.noisy_test import Outcome, ReplayTest
from betweencut.proofs.exact.arith import ExpPoly
from betweencut.properties.broken import StructuralMutantNoMarkUpOnB
from betweencut.properties.teaching import basics, privacy
from betweencut.properties.violation import PropertyViolation

TREE = kary_tree(2, 5)
LEAVES = ([(0, 0, 0, 0)] * 3 + [(0, 0, 0, 1)] * 2 + [(0, 0, 1, 0)] * 2 + [(0, 1, 1, 1)] * 2
          + [(1, 0, 0, 0)] + [(1, 1, 0, 1)] * 4 + [(1, 1, 1, 1)] * 2)
PARAMS = Params.of(4, Fraction(1, 2), 1)
L, B, H = Outcome.L, Outcome.B, Outcome.H


def _run(variant: type[BetweenCut] = BetweenCut, answers: tuple[Outcome, ...] = (
        L, H, B, L, L, H, B, L)):
    return variant(TREE, PARAMS).run(LEAVES, ReplayTest(answers))


def test_query_steps_partition_the_marking_log() -> None:
    run = _run()
    steps = basics.query_steps(TREE, PARAMS, LEAVES, run)
    assert [a for st in steps for a in st.assignments] == list(run.assignments)
    assert steps[4].outcome is B and {u for u, _, _ in steps[4].assignments} == {
        (0, 0, 0), (0, 0, 0, 0)}


def test_query_steps_reject_a_tampered_log() -> None:
    run = _run()
    tampered = dataclasses.replace(run, assignments=run.assignments[:-1])
    with pytest.raises(BetweenCutError):
        basics.query_steps(TREE, PARAMS, LEAVES, tampered)


def test_lemma_view_accepts_alg_3_and_rejects_a_broken_variant() -> None:
    view = basics.lemma_view(TREE, _run())
    assert view.L == 3 and len(view.queried_on_path) <= 3 and len(view.betweens) == 2
    broken = _run(StructuralMutantNoMarkUpOnB, (B,) * 40)
    with pytest.raises(PropertyViolation):
        basics.lemma_view(TREE, broken)


def test_certified_decimal_prints_only_certain_digits() -> None:
    assert basics.certified_decimal(Fraction(1, 2), 4) == "0.5000"
    assert basics.certified_decimal(ExpPoly.exp(-1, Fraction(1, 2)), 6) == "0.183939…"
    assert basics.certified_decimal(Fraction(-1, 3), 3) == "-0.333…"


def test_expect_refuted_raises_when_the_checker_accepts() -> None:
    with pytest.raises(BetweenCutError):
        privacy.expect_refuted(lambda: "a certificate")


# -- notebook 6: privacy at depth -------------------------------------------------------------
def test_single_leaf_delta_agrees_with_direct_enumeration() -> None:
    from betweencut.properties.teaching import depth

    small, tree = Params.of(3, 1, 2), kary_tree(2, 3)
    for count, eps in ((0, Fraction(1)), (0, Fraction(2)), (2, Fraction(1))):
        grouped = depth.single_leaf_delta(3, small, count, eps)
        direct = privacy.delta_curve(tree, small, [(0, 0, 0)] * count, (0, 0, 0), [eps])[0]
        assert (grouped - direct.delta).is_zero(), (count, eps)


def test_depth_point_orders_exact_tight_paper_and_picks_the_worst_count() -> None:
    from betweencut.proofs.exact.arith import certainly_le
    from betweencut.properties.teaching import depth

    point = depth.depth_point(15, 1, Fraction(1, 20))
    assert point.exact_le_tight and point.tight_le_paper
    assert point.worst_count in point.counts and len(point.counts) > 2
    assert certainly_le(point.params.margin, point.params.tau)
    assert not certainly_le(point.params.margin, point.params.tau - 1)
    deep = depth.depth_point(2**64 - 1, 1, Fraction(1, 20))
    assert deep.counts == tuple(depth.guard_counts(BetweenCut(kary_tree(2, 3), deep.params)))
    assert deep.exact_le_tight and deep.tight_le_paper
    assert "2^64 - 1" in depth.format_depth_table([deep])


def test_margin_pairs_certify_the_tight_margin_smaller() -> None:
    from betweencut.baselines.margins import MarginSetting
    from betweencut.properties.teaching import depth, margins

    pairs = depth.margin_pairs([15], 1, Fraction(1, 20))
    assert pairs[0].tight_smaller and pairs[0].tight.approx() < pairs[0].paper.approx()
    others = margins.baseline_margins(MarginSetting.of("1/2", "1/20"), [15, 255])
    assert [len(v) for v in others.values()] == [2]
