"""The notebook helpers (`betweencut.properties.teaching.basics`) read the package faithfully and
fail
loudly: a tampered run, a broken variant or a passing 'refutation' raises."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

from betweencut.betweencut import BetweenCut
from betweencut.errors import BetweenCutError
from betweencut.noisy_test import Outcome, ReplayTest
from betweencut.params import Params
from betweencut.proofs.exact.arith import ExpPoly
from betweencut.properties.broken import StructuralMutantNoMarkUpOnB
from betweencut.properties.teaching import basics, privacy
from betweencut.properties.violation import PropertyViolation
from betweencut.tree import kary_tree

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
