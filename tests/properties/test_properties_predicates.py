"""The structural predicates on our dense and sparse implementations, and on broken runs.

Each claim has a test on dense runs (Alg. 3), one on sparse runs (Appendix D) and one showing
the predicate rejects a hand-made broken run. Inputs come from `betweencut.properties.strategies`
with the paper's worked examples pinned by `@example`.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import example, given, target
from hypothesis import strategies as st

from betweencut.data.tree import kary_tree
from betweencut.mechanism.betweencut import Run, between_cut
from betweencut.mechanism.calibration import path_query_bound
from betweencut.mechanism.depo import depo, depth_order
from betweencut.mechanism.params import Params
from betweencut.mechanism.sparse import sparse_between_cut
from betweencut.noise.noisy_test import Outcome
from betweencut.properties.broken import StructuralMutantUnguarded, classifier
from betweencut.properties.coupling import check_proposition_d_1, sparse_as_run
from betweencut.properties.margin import check_theorem_c_2
from betweencut.properties.predicates import (
    check_depo,
    check_lemma_4_2,
    check_lemma_4_3,
    check_lemma_b_1,
    check_lemma_b_2,
    check_lemma_b_3,
)
from betweencut.properties.strategies import DEPO_H15, Case, cases, paper_cases
from betweencut.properties.violation import PropertyViolation

H, L, B = Outcome.H, Outcome.L, Outcome.B
PAPER = paper_cases()


def pinned(test):  # type: ignore[no-untyped-def]
    """Pin every worked example of `paper_cases()` on a `case` test."""
    for case in PAPER:
        test = example(case=case)(test)
    return test


def dense(case: Case) -> Run:
    return between_cut(case.tree, case.leaves, case.params, case.test())


def sparse(case: Case) -> Run:
    result = sparse_between_cut(case.tree, case.leaves, case.params, case.test(), record=True)
    return sparse_as_run(case.tree, result)


def all_claims(case: Case, run: Run, *, log: bool) -> None:
    check_lemma_b_1(case.tree, run, log=log)
    check_lemma_4_2(case.tree, run)
    check_lemma_4_3(run)
    check_lemma_b_2(case.tree, case.leaves, run)
    check_lemma_b_3(case.tree, run, log=log)
    check_theorem_c_2(case.tree, case.leaves, case.params, run)


# -- on our implementations ------------------------------------------------------------------
@given(case=cases())
@pinned
def test_lemma_b_1_holds_on_dense_runs(case: Case) -> None:
    check_lemma_b_1(case.tree, dense(case))


@given(case=cases(sparse=True))
@pinned
def test_lemma_b_1_holds_on_sparse_runs(case: Case) -> None:
    check_lemma_b_1(case.tree, sparse(case), log=False)


@given(case=cases())
@pinned
def test_lemma_4_2_holds_on_dense_runs(case: Case) -> None:
    run = dense(case)
    queried = {u for u, _ in run.transcript}
    worst = max((sum(u[:d] in queried for d in range(len(u) + 1)) for u in queried), default=0)
    target(worst / path_query_bound(case.tree.height), label="queries on a path / L")
    check_lemma_4_2(case.tree, run)


@given(case=cases(sparse=True))
@pinned
def test_lemma_4_2_holds_on_sparse_runs(case: Case) -> None:
    check_lemma_4_2(case.tree, sparse(case))


@given(case=cases())
@pinned
def test_lemma_4_3_holds_on_dense_runs(case: Case) -> None:
    check_lemma_4_3(dense(case))


@given(case=cases(sparse=True))
@pinned
def test_lemma_4_3_holds_on_sparse_runs(case: Case) -> None:
    check_lemma_4_3(sparse(case))


@given(case=cases())
@pinned
def test_lemma_b_2_holds_on_dense_runs(case: Case) -> None:
    check_lemma_b_2(case.tree, case.leaves, dense(case))


@given(case=cases(sparse=True))
@pinned
def test_lemma_b_2_holds_on_sparse_runs(case: Case) -> None:
    check_lemma_b_2(case.tree, case.leaves, sparse(case))


@given(case=cases())
@pinned
def test_lemma_b_3_holds_on_dense_runs(case: Case) -> None:
    check_lemma_b_3(case.tree, dense(case))


@given(case=cases(sparse=True))
@pinned
def test_lemma_b_3_holds_on_sparse_runs(case: Case) -> None:
    result = sparse_between_cut(case.tree, case.leaves, case.params, case.test(), record=True)
    check_lemma_b_3(case.tree, sparse_as_run(case.tree, result), log=False)
    # Appendix D: only stored nodes (positive count) are ever asked, and noise only between
    assert len(result.transcript or ()) <= result.stored_nodes
    assert result.noisy_calls <= len(result.transcript or ())


@given(case=cases())
@pinned
def test_theorem_c_2_holds_on_dense_runs(case: Case) -> None:
    check_theorem_c_2(case.tree, case.leaves, case.params, dense(case))


@given(case=cases(sparse=True))
@pinned
def test_theorem_c_2_holds_on_sparse_runs(case: Case) -> None:
    check_theorem_c_2(case.tree, case.leaves, case.params, sparse(case))


@given(case=cases(sparse=True))
@pinned
def test_proposition_d_1_dense_equals_sparse_under_shared_noise(case: Case) -> None:
    check_proposition_d_1(case.tree, case.leaves, case.params, case.test)


@given(case=cases(sparse=True), seed=st.integers(0, 2**32))
def test_proposition_d_1_under_a_shared_exact_sampler(case: Case, seed: int) -> None:
    from betweencut.noise.bt_sampler import ExactSampler

    check_proposition_d_1(case.tree, case.leaves, case.params, lambda: ExactSampler(seed))


@given(height=st.integers(1, 200))
@example(height=DEPO_H15[0])
def test_depo_alg_2_structure_of_our_depth_order(height: int) -> None:
    check_depo(depth_order(height), height)


def test_depo_alg_2_worked_example_of_the_paper() -> None:
    h, order = DEPO_H15
    assert depo(0, h - 1) == order
    check_depo(order, h)


# -- hand-made broken runs are rejected ------------------------------------------------------
PATH3 = kary_tree(1, 3)  # (), (0,), (0, 0); L = 2
BIN2 = kary_tree(2, 2)  # (), (0,), (1,)


def make_run(heavy: set, transcript: list, log: list, labels: dict) -> Run:  # type: ignore[type-arg]
    return Run(frozenset(heavy), tuple(transcript), tuple(log), labels)


def reject(claim: str, fn, *args, **kwargs) -> PropertyViolation:  # type: ignore[no-untyped-def]
    with pytest.raises(PropertyViolation) as info:
        fn(*args, **kwargs)
    assert info.value.claim == claim
    return info.value


def test_lemma_b_1_rejects_unlabelled_node() -> None:
    run = make_run(set(), [((), L)], [((), None, L)], {(): L, (0,): L})
    v = reject("Lemma B.1", check_lemma_b_1, BIN2, run)
    assert v.counterexample["node"] == (1,)


def test_lemma_b_1_rejects_heavy_not_ancestor_closed() -> None:
    labels = {(): L, (0,): H, (1,): L}
    run = make_run({(0,)}, [], [(u, None, s) for u, s in labels.items()], labels)
    v = reject("Lemma B.1", check_lemma_b_1, BIN2, run)
    assert "disjoint" in v.message or "ancestor" in v.message or "descendant" in v.message


def test_lemma_b_1_rejects_heavy_set_not_matching_labels() -> None:
    labels = {(): H, (0,): L, (1,): L}
    run = make_run({(), (1,)}, [], [], labels)
    v = reject("Lemma B.1", check_lemma_b_1, BIN2, run, log=False)
    assert v.counterexample["node"] == (1,)


def test_lemma_b_1_rejects_an_overwritten_label() -> None:
    labels = {(): H, (0,): L, (1,): L}
    log = [((), None, L), ((0,), None, L), ((1,), None, L), ((), L, H)]
    v = reject("Lemma B.1", check_lemma_b_1, BIN2, make_run({()}, [], log, labels))
    assert v.counterexample["assignment"] == 3


def test_lemma_4_2_rejects_three_queries_on_a_path_of_height_3() -> None:
    run = make_run({(), (0,), (0, 0)}, [((), H), ((0,), H), ((0, 0), H)], [], {})
    v = reject("Lemma 4.2", check_lemma_4_2, PATH3, run)
    assert v.counterexample["queried_on_path"] == [(), (0,), (0, 0)]


def test_lemma_4_3_rejects_a_query_after_a_b_on_its_path() -> None:
    run = make_run(set(), [((0,), B), ((), H)], [], {})
    v = reject("Lemma 4.3", check_lemma_4_3, run)
    assert v.counterexample == {"between": (0, (0,)), "later_query": (1, (), H)}


def test_lemma_4_3_rejects_two_bs_on_one_path() -> None:
    run = make_run(set(), [((0,), B), ((0, 0), B)], [], {})
    reject("Lemma 4.3", check_lemma_4_3, run)


def test_lemma_4_3_accepts_bs_on_disjoint_paths() -> None:
    check_lemma_4_3(make_run(set(), [((0,), B), ((1,), B)], [], {}))


def test_lemma_b_2_rejects_too_much_queried_count() -> None:
    run = make_run(set(), [((), H), ((0,), H), ((0, 0), H)], [], {})
    v = reject("Lemma B.2", check_lemma_b_2, PATH3, [(0, 0)], run)
    assert v.counterexample["sum_counts"] == 3 and v.counterexample["nL"] == 2


def test_lemma_b_3_rejects_a_node_queried_twice() -> None:
    run = make_run(set(), [((0,), L), ((0,), L)], [], {})
    reject("Lemma B.3", check_lemma_b_3, BIN2, run, log=False)


def test_lemma_b_3_rejects_a_wrong_number_of_assignments() -> None:
    log = [((), None, L), ((0,), None, L)]
    v = reject("Lemma B.3", check_lemma_b_3, BIN2, make_run(set(), [((), L)], log, {}))
    assert v.counterexample == {"assignments": 2, "N": 3}


def test_theorem_c_2_rejects_a_heavy_node_far_below_tau() -> None:
    params = Params.of(5, 1, 1)  # E = 2: a Heavy node needs c_u > 3
    run = make_run({()}, [], [], {(): H})
    v = reject("Theorem C.2", check_theorem_c_2, kary_tree(1, 1), [()] * 3, params, run)
    assert v.counterexample["count"] == 3


def test_theorem_c_2_rejects_a_light_node_far_above_tau() -> None:
    params = Params.of(0, 1, 1)  # E = 2: a node that is not Heavy needs c_u < 2
    run = make_run(set(), [], [], {(): L})
    reject("Theorem C.2", check_theorem_c_2, kary_tree(1, 1), [(), ()], params, run)


def test_theorem_c_2_decides_an_irrational_margin_exactly() -> None:
    from betweencut.mechanism.calibration import calibrate

    p = calibrate(15, 1, Fraction(1, 100)).params(0)  # E = 1 + 4 + 4 ln 400 ~ 28.97
    run = make_run(set(), [], [], {(): L})
    check_theorem_c_2(kary_tree(1, 1), [()] * 28, p, run)
    reject("Theorem C.2", check_theorem_c_2, kary_tree(1, 1), [()] * 29, p, run)


def test_proposition_d_1_rejects_an_unguarded_dense_run() -> None:
    params = Params.of(2, 1, 1)  # tau = E = 2: the zero-count root is guarded L in Alg. 3
    from betweencut.properties.noise import ScriptedTest

    v = reject(
        "Proposition D.1", check_proposition_d_1, kary_tree(1, 2), [], params,
        lambda: ScriptedTest((B,)), dense=classifier(StructuralMutantUnguarded),
    )
    assert v.counterexample["node"] == ()


def test_proposition_d_1_rejects_a_sparse_run_that_drops_a_query() -> None:
    from betweencut.properties.noise import ScriptedTest

    class Dropped:
        def __init__(self, run: Run) -> None:
            self.heavy = run.heavy
            self.transcript = run.transcript[:-1]

    def lossy(tree, leaves, params, test):  # type: ignore[no-untyped-def]
        return Dropped(sparse_as_run(tree, sparse_between_cut(tree, leaves, params, test,
                                                              record=True)))

    reject("Proposition D.1", check_proposition_d_1, kary_tree(2, 3), [(0, 0)] * 3,
           Params.of(2, 1, 1), lambda: ScriptedTest(), sparse=lossy)


def test_depo_alg_2_rejects_top_down_order() -> None:
    v = reject("Alg. 2 (DepO)", check_depo, list(range(15)), 15)
    assert v.counterexample["interval"] == (0, 14)


def test_depo_alg_2_rejects_a_non_permutation() -> None:
    v = reject("Alg. 2 (DepO)", check_depo, [1, 1, 0], 3)
    assert v.counterexample["missing"] == [2]


def test_depo_alg_2_names_the_smallest_wrong_interval() -> None:
    order = list(DEPO_H15[1])
    i, j = order.index(14), order.index(12)  # DepO(12, 14) = [13, 14, 12] -> [13, 12, 14]
    order[i], order[j] = order[j], order[i]
    v = reject("Alg. 2 (DepO)", check_depo, order, 15)
    assert v.counterexample["interval"] in {(12, 12), (14, 14)}  # a one-level block
