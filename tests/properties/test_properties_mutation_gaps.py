"""Tests that close the gaps the mutation run found (see `properties/MUTATION.md`): each kills
a mutant of a `core/` mechanism module that the property suite let survive."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from betweencut.data.tree import kary_tree
from betweencut.errors import ParameterError
from betweencut.mechanism.betweencut import DENSE_NODE_LIMIT, Run, between_cut
from betweencut.mechanism.depo import depth_order
from betweencut.mechanism.guarded_bt import GuardedBT
from betweencut.mechanism.params import Params
from betweencut.noise.noisy_test import Outcome
from betweencut.properties.strategies import calibrated_params, params


@pytest.mark.parametrize("height", [0, -3, True, 2.0])
def test_depo_alg_2_depth_order_refuses_a_height_below_1(height: object) -> None:
    with pytest.raises(ParameterError) as info:
        depth_order(height)  # type: ignore[arg-type]
    assert info.value.name == "height" and "h >= 1" in info.value.allowed


def test_between_cut_refuses_trees_past_the_dense_node_limit() -> None:
    tree = kary_tree(1000, 3)  # 1 + 10**3 + 10**6 nodes: just past 10**6
    assert DENSE_NODE_LIMIT == 10**6
    with pytest.raises(ParameterError) as info:
        between_cut(tree, [], Params.of(0, 1, 1))
    assert info.value.name == "tree"


def test_run_records_are_immutable() -> None:
    run = between_cut(kary_tree(2, 2), [], Params.of(0, 1, 1))
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.heavy = frozenset()  # type: ignore[misc]
    assert isinstance(run, Run)


def test_between_cut_accepts_a_tree_of_exactly_the_dense_node_limit() -> None:
    from betweencut.noise.noisy_test import ReplayTest, UnansweredQuery
    from betweencut.properties.strategies import irregular_tree

    tree = irregular_tree(2, {(): DENSE_NODE_LIMIT - 1})  # the root and 10**6 - 1 leaves
    with pytest.raises(UnansweredQuery):  # past the size check: the first noisy query is asked
        between_cut(tree, [], Params.of(0, 1, 1), ReplayTest())


@given(p=st.one_of(params(), calibrated_params(7)), count=st.integers(-5, 80))
def test_alg_1_guards_cut_exactly_at_a_minus_r_and_b_plus_r(p: Params, count: int) -> None:
    """Alg. 1, l. 1-4: `L` iff `c <= a - R`, `H` iff `c >= b + R` (decided exactly), else the
    noisy test. Theorem C.2 alone cannot see a guard moved inside the margin."""
    query = GuardedBT.of(p.a, p.b, p.R, p.lam)
    low = (p.a - p.R).compare(count) >= 0  # a - R >= c
    high = (p.R + p.b).compare(count) <= 0  # b + R <= c
    expected = Outcome.L if low else Outcome.H if high else None
    assert query.guard(count) is expected


def test_sparse_encoding_refuses_leaf_codes_of_62_bits() -> None:
    from betweencut.mechanism.sparse import Encoding

    assert Encoding.of(kary_tree(2, 62)).radix == (2,) * 61  # 2**61 leaf codes: fits
    with pytest.raises(ParameterError):
        Encoding.of(kary_tree(2, 63))  # exactly 2**62 leaf codes: refused


def test_sparse_run_keeps_no_transcript_unless_asked_and_its_encoding_is_immutable() -> None:
    from betweencut.mechanism.sparse import sparse_between_cut, sparse_between_cut_codes

    tree, params = kary_tree(2, 3), Params.of(2, 1, 1)
    result = sparse_between_cut(tree, [(0, 0)], params)
    assert result.transcript is None
    codes = result.encoding.encode([(0, 0)])
    assert sparse_between_cut_codes(codes, result.encoding, 3, params).transcript is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.encoding.shift = 1  # type: ignore[misc]


def _wide_case(l_node_has_child: bool) -> tuple[object, list[tuple[int, ...]]]:
    """Root with 10 children; (0,) has a child (0, 0); (1,) has one iff asked; the rest are
    leaves at depth 1. One record per leaf, so level 1 stores 10 nodes and a one-node MarkDown
    frontier takes the index-array branch of the sparse MarkDown."""
    from betweencut.properties.strategies import irregular_tree

    arities = {(): 10, (0,): 1, **({(1,): 1} if l_node_has_child else {})}
    tree = irregular_tree(3, arities)
    leaves = [(0, 0), (1, 0) if l_node_has_child else (1,), *((j,) for j in range(2, 10))]
    return tree, leaves


@pytest.mark.parametrize("l_node_has_child", [True, False])
def test_proposition_d_1_sparse_markdown_of_a_small_frontier(l_node_has_child: bool) -> None:
    """Level 1 answers H, L, H, ..., H (DepO(0, 2) = [1, 2, 0]): MarkDown((1,)) must label
    exactly the subtree of (1,), and (0, 0) under the Heavy (0,) is then asked."""
    from betweencut.properties.coupling import check_proposition_d_1
    from betweencut.properties.noise import ScriptedTest

    tree, leaves = _wide_case(l_node_has_child)
    H, L = Outcome.H, Outcome.L
    script = (H, L, *([H] * 8), L, L)
    check_proposition_d_1(tree, leaves, Params.of(2, 1, 1),  # type: ignore[arg-type]
                          lambda: ScriptedTest(script))


def test_sparse_run_on_an_empty_database_stores_nothing() -> None:
    from betweencut.mechanism.sparse import sparse_between_cut

    result = sparse_between_cut(kary_tree(2, 3), [], Params.of(2, 1, 1))
    assert (result.stored_nodes, result.noisy_calls, result.heavy) == (0, 0, frozenset())
