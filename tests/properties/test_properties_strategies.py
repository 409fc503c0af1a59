"""The strategies draw what their docstrings promise (public trees, databases, neighbours,
parameters in the paper's ranges), with the paper's worked examples pinned."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import example, given
from hypothesis import strategies as st

from betweencut.data.tree import PublicTree
from betweencut.mechanism.betweencut import path_counts
from betweencut.mechanism.calibration import Calibration, calibrate, path_query_bound
from betweencut.mechanism.params import Params
from betweencut.properties.strategies import (
    H15_CALIBRATION,
    calibrations,
    irregular_trees,
    kary_trees,
    neighbouring_pairs,
    params,
    sparse_params,
    trees_with_databases,
)


@given(tree=irregular_trees())
def test_irregular_trees_reach_their_height_and_stay_small(tree: PublicTree) -> None:
    assert any(True for _ in tree.level(tree.height - 1))
    assert tree.size() <= 40


@given(tree=kary_trees())
def test_kary_trees_are_complete(tree: PublicTree) -> None:
    assert tree.size() <= 200 and tree.leaves_at_full_depth


@given(pair=trees_with_databases())
def test_databases_hold_leaves_of_their_tree(pair: tuple) -> None:  # type: ignore[type-arg]
    tree, leaves = pair
    assert all(tree.arity(u) == 0 and len(u) < tree.height for u in leaves)


@given(triple=neighbouring_pairs())
def test_neighbouring_pairs_differ_by_one_on_one_path_eq_4(triple: tuple) -> None:  # type: ignore[type-arg]
    _, d0, d1 = triple
    c0, c1 = path_counts(d0), path_counts(d1)
    z = d1[-1]
    assert {u for u in set(c0) | set(c1) if c1[u] != c0[u]} == {z[:i] for i in range(len(z) + 1)}
    assert all(c1[u] - c0[u] in (0, 1) for u in c1)


@given(p=params())
def test_params_lie_in_the_ranges_of_theorem_5_4(p: Params) -> None:
    assert 0 < p.lam <= 1 and p.R.compare(1) >= 0 and p.tau >= 0


@given(h=st.integers(1, 40), data=st.data())
def test_sparse_params_have_tau_at_least_e(h: int, data: st.DataObject) -> None:
    p = data.draw(sparse_params(h))
    assert p.margin.compare(p.tau) <= 0


@given(cal=calibrations(15))
@example(cal=calibrate(*H15_CALIBRATION))
def test_calibrations_follow_theorem_5_5(cal: Calibration) -> None:
    assert cal.L == path_query_bound(15) == 4
    assert 0 < cal.epsilon <= 1 and 0 < cal.delta < Fraction(1, 10)
    assert cal.r == min(cal.L, cal.r0) and cal.lam == cal.epsilon / cal.r
