"""Every exercise checker of the teaching notebooks accepts the reference solution the notebook
keeps and rejects a wrong answer (`betweencut.properties.teaching.exercises`)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from betweencut.data.tree import kary_tree
from betweencut.errors import BetweenCutError
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.mechanism.guarded_bt import GuardedBT
from betweencut.mechanism.params import Params
from betweencut.noise.noisy_test import Outcome, ReplayTest
from betweencut.numbers.exact import LogReal
from betweencut.proofs.exact.arith import ExpPoly
from betweencut.properties.teaching import exercises
from betweencut.properties.teaching.exercises import WrongAnswer

GUARDED = GuardedBT.of(Fraction(2), Fraction(6), LogReal.of(2), Fraction(1, 2))


# -- notebook 1 -------------------------------------------------------------------------------
@pytest.mark.parametrize("answer", ["1 - exp(-1)", ExpPoly.const(1) - ExpPoly.exp(-1),
                                    "1 - 1/E", "(E - 1)/E"])
def test_law_value_accepts_the_reference(answer: object) -> None:
    assert exercises.check_law_value(GUARDED, 4, Outcome.B, answer).startswith("correct")


@pytest.mark.parametrize("answer", ["1 - exp(-1/2)", Fraction(63, 100), 0.632120558828557,
                                    "pi", "1 - exp(sqrt(2))", "((("])
def test_law_value_rejects_a_wrong_answer(answer: object) -> None:
    with pytest.raises(WrongAnswer):
        exercises.check_law_value(GUARDED, 4, Outcome.B, answer)


def test_law_value_on_a_guarded_count() -> None:
    assert exercises.check_law_value(GUARDED, 0, Outcome.L, 1).startswith("correct")
    with pytest.raises(WrongAnswer):
        exercises.check_law_value(GUARDED, 0, Outcome.L, "1 - exp(-1)")


def test_guard_cut_accepts_the_reference_and_rejects_neighbours() -> None:
    mech = GuardedBT.of(Fraction(2), Fraction(6), LogReal.of(1), Fraction(1, 2))
    assert exercises.check_guard_cut(mech, Outcome.L, 1).startswith("correct")
    assert exercises.check_guard_cut(mech, Outcome.H, 7).startswith("correct")
    for wrong in (0, 2, True, "1"):
        with pytest.raises(WrongAnswer):
            exercises.check_guard_cut(mech, Outcome.L, wrong)
    with pytest.raises(WrongAnswer):
        exercises.check_guard_cut(mech, Outcome.H, 8)


def test_q_lambda_accepts_the_reference_and_rejects_a_wrong_form() -> None:
    lam = Fraction(1, 4)
    assert exercises.check_q_lambda(lam, "(1 - exp(-2)) / (1 + exp(1/4))").startswith("correct")
    with pytest.raises(WrongAnswer):
        exercises.check_q_lambda(lam, "(1 - exp(-2)) / (1 + exp(1/2))")
    with pytest.raises(WrongAnswer):
        exercises.check_q_lambda(lam, Fraction(1, 5))


# -- notebook 2 -------------------------------------------------------------------------------
def test_depo_accepts_the_reference_and_rejects_top_down() -> None:
    assert exercises.check_depo(0, 6, [3, 5, 6, 4, 1, 2, 0]).startswith("correct")
    with pytest.raises(WrongAnswer):
        exercises.check_depo(0, 6, list(range(7)))
    with pytest.raises(WrongAnswer):
        exercises.check_depo(0, 6, [3, 5, 6, 4, 1, 2])


def test_path_query_bound_accepts_the_reference_and_rejects_h() -> None:
    assert exercises.check_path_query_bound(15, 4).startswith("correct")
    for wrong in (3, 15, 4.0):
        with pytest.raises(WrongAnswer):
            exercises.check_path_query_bound(15, wrong)


def test_step_writes_accepts_the_reference_and_rejects_a_wrong_set() -> None:
    tree = kary_tree(2, 5)
    leaves = ([(0, 0, 0, 0)] * 3 + [(0, 0, 0, 1)] * 2 + [(0, 0, 1, 0)] * 2 + [(0, 1, 1, 1)] * 2
              + [(1, 0, 0, 0)] + [(1, 1, 0, 1)] * 4 + [(1, 1, 1, 1)] * 2)
    params = Params.of(4, Fraction(1, 2), 1)
    L, B, H = Outcome.L, Outcome.B, Outcome.H
    run = BetweenCut(tree, params).run(leaves, ReplayTest([L, H, B, L, L, H, B, L]))
    # the notebook's run: query 5 at 0000 answers B
    assert run.transcript[4] == ((0, 0, 0, 0), Outcome.B)
    ok = exercises.check_step_writes(tree, params, leaves, run, 5, [(0, 0, 0), (0, 0, 0, 0)])
    assert ok.startswith("correct")
    with pytest.raises(WrongAnswer):  # forgets MarkUp(parent(u)) on B
        exercises.check_step_writes(tree, params, leaves, run, 5, [(0, 0, 0, 0)])
    with pytest.raises(WrongAnswer):  # MarkUp through the Heavy ancestors
        exercises.check_step_writes(tree, params, leaves, run, 5,
                                    [(), (0,), (0, 0), (0, 0, 0), (0, 0, 0, 0)])


# -- notebook 3 -------------------------------------------------------------------------------
TREE3, PARAMS3, D3, Z3 = kary_tree(2, 3), Params.of(1, 1, 6), [(0, 0)], (0, 0)


def test_theorem_5_4_delta_accepts_the_reference_and_rejects_the_wrong_r() -> None:
    assert exercises.check_theorem_5_4_delta(2, Fraction(1), 6, 2, "exp(-5)").startswith("correct")
    with pytest.raises(WrongAnswer):  # forgets that the (1 - q)^r term is absent at r = L
        exercises.check_theorem_5_4_delta(2, Fraction(1), 6, 1, "exp(-5)")
    with pytest.raises(WrongAnswer):  # L/2 dropped
        exercises.check_theorem_5_4_delta(4, Fraction(1), 6, 4, "exp(-5)")


def test_delta_value_accepts_the_reference_and_rejects_a_wrong_value() -> None:
    ok = exercises.check_delta_value(TREE3, PARAMS3, D3, Z3, Fraction(1), "(1 - exp(-1))/4")
    assert ok.startswith("correct")
    with pytest.raises(WrongAnswer):
        exercises.check_delta_value(TREE3, PARAMS3, D3, Z3, Fraction(1), "(1 - exp(-1))/2")
    with pytest.raises(WrongAnswer):  # delta(2) is exactly 0, not delta(1)
        exercises.check_delta_value(TREE3, PARAMS3, D3, Z3, Fraction(2), "(1 - exp(-1))/4")


def test_pure_multiple_accepts_the_reference_and_rejects_neighbours() -> None:
    from betweencut.properties.broken import StructuralMutantTopDown

    assert exercises.check_pure_multiple(
        TREE3, PARAMS3, D3, Z3, 3, StructuralMutantTopDown).startswith("correct")
    for wrong in (2, 4):
        with pytest.raises(WrongAnswer):
            exercises.check_pure_multiple(TREE3, PARAMS3, D3, Z3, wrong, StructuralMutantTopDown)
    # BetweenCut itself: zero from r = L = 2 on this pair
    assert exercises.check_pure_multiple(TREE3, PARAMS3, D3, Z3, 2).startswith("correct")


# -- notebook 4 -------------------------------------------------------------------------------
def test_calibrated_r_accepts_the_reference_and_rejects_L_or_r0() -> None:
    assert exercises.check_calibrated_r(15, 1, "1/20", 4).startswith("correct")
    for wrong in (17, 5, "4"):
        with pytest.raises(WrongAnswer):
            exercises.check_calibrated_r(15, 1, "1/20", wrong)


def test_margin_block_end_accepts_the_reference_and_rejects_off_by_one() -> None:
    assert exercises.check_margin_block_end(1000, 1023).startswith("correct")
    for wrong in (1000, 1024, 511, 0):
        with pytest.raises(WrongAnswer):
            exercises.check_margin_block_end(1000, wrong)


def test_deterministic_margins_accepts_the_reference_and_rejects_a_probabilistic_one() -> None:
    ok = {"betweencut", "eq25_L", "eq25_log2h", "lumberjack"}
    assert exercises.check_deterministic_margins(ok).startswith("correct")
    for wrong in (ok | {"laplace"}, ok - {"lumberjack"}, ok | {"privtree"}):
        with pytest.raises(WrongAnswer):
            exercises.check_deterministic_margins(wrong)


# -- notebook 5 -------------------------------------------------------------------------------
def test_privtree_checkers_accept_the_references_and_reject_wrong_answers() -> None:
    from betweencut.baselines.privtree import PrivTree, box_of

    assert exercises.check_privtree_scale(Fraction(1, 2), 6).startswith("correct")
    for wrong in (3, Fraction(3, 2), "3*log(2)"):
        with pytest.raises(WrongAnswer):
            exercises.check_privtree_scale(Fraction(1, 2), wrong)
    mech = PrivTree.of(box_of((0, 256), (0, 256)), 1, theta=0)
    pen = mech.depth_penalty
    assert exercises.check_privtree_score(mech, 10, 3, 10 - 3 * pen).startswith("correct")
    assert exercises.check_privtree_score(mech, 10, 6, -pen).startswith("correct")
    with pytest.raises(WrongAnswer):  # forgets the clamp at depth 6
        exercises.check_privtree_score(mech, 10, 6, 10 - 6 * pen)
    with pytest.raises(WrongAnswer):  # uses ln 2's float instead of the package's rational
        exercises.check_privtree_score(mech, 10, 3, 10 - 9 * 0.6931471805599453)
    ok = ((128, 256), (0, 256))
    assert exercises.check_first_split(mech, (200, 17), ok).startswith("correct")
    for wrong in (((0, 128), (0, 256)), ((0, 256), (0, 128)), ((128, 256), (0, 128))):
        with pytest.raises(WrongAnswer):
            exercises.check_first_split(mech, (200, 17), wrong)


# -- notebook 6 -------------------------------------------------------------------------------
def test_smallest_accountant_accepts_the_reference_and_rejects_the_others() -> None:
    from betweencut.mechanism.calibration import calibrate

    cal = calibrate(2**20 - 1, 1, Fraction(1, 20))
    assert exercises.check_smallest_accountant(cal.L, cal.lam, cal.R, Fraction(1),
                                               "envelope").startswith("correct")
    for wrong in ("kov", "paper", "tight", 0.0247):
        with pytest.raises(WrongAnswer):
            exercises.check_smallest_accountant(cal.L, cal.lam, cal.R, Fraction(1), wrong)


def test_single_leaf_delta_accepts_the_reference_and_rejects_a_wrong_form() -> None:
    small = Params.of(3, 1, 2)
    for ok in ("1 - (1 - exp(-1)/2)**2", "exp(-1) - exp(-2)/4",
               ExpPoly.exp(-1) - ExpPoly.exp(-2) / 4):
        assert exercises.check_single_leaf_delta(3, small, 0, Fraction(1), ok).startswith(
            "correct")
    for wrong in ("exp(-1)/2", "1 - exp(-1)/2", 0.334045, Fraction(1, 3)):
        with pytest.raises(WrongAnswer):
            exercises.check_single_leaf_delta(3, small, 0, Fraction(1), wrong)


def test_single_leaf_delta_refuses_an_epsilon_off_the_grid() -> None:
    with pytest.raises(BetweenCutError):
        exercises.check_single_leaf_delta(3, Params.of(3, 1, 2), 0, Fraction(1, 2), "0")


# -- feedback (issue 36 item 8) ---------------------------------------------------------------
def test_a_wrong_number_says_which_way_it_is_off() -> None:
    """P(B) at c = 4 is 1 - e^-1 ~ 0.632: 1 - e^(-1/2) ~ 0.393 is too small, 2/3 too large."""
    for answer, way in (("1 - exp(-1/2)", "too small"), (Fraction(2, 3), "too large")):
        with pytest.raises(WrongAnswer, match=f"is {way}$"):
            exercises.check_law_value(GUARDED, 4, Outcome.B, answer)
    with pytest.raises(WrongAnswer, match="too large"):  # q_1/4 with lambda 1/2: smaller
        exercises.check_q_lambda(Fraction(1, 4), "1")
    mech = GuardedBT.of(Fraction(2), Fraction(6), LogReal.of(1), Fraction(1, 2))
    for side, answer, way in ((Outcome.L, 0, "too small"), (Outcome.L, 2, "too large"),
                              (Outcome.H, 8, "too large"), (Outcome.H, 6, "too small")):
        with pytest.raises(WrongAnswer, match=f"{answer} is {way}$"):
            exercises.check_guard_cut(mech, side, answer)


def test_a_wrong_answer_shows_in_a_notebook_as_one_line_without_a_traceback() -> None:
    with pytest.raises(WrongAnswer) as caught:
        exercises.check_law_value(GUARDED, 4, Outcome.B, ...)
    shown = caught.value._render_traceback_()  # what IPython prints instead of a traceback
    assert shown == [f"WrongAnswer: {caught.value}"] and "no answer yet" in shown[0]
