"""Appendix D: the sparse implementation agrees with dense Alg. 3 when τ >= E (Prop. D.1).

Under a shared seed both runs ask the same noisy queries in the same order (with τ >= E every
zero-count query is guarded `L` and draws nothing), so the Heavy sets are equal and the sparse
transcript is the dense one with the zero-count nodes deleted.
"""

from __future__ import annotations

import random
from fractions import Fraction as F

import numpy as np
import pytest

from betweencut.data.datasets import unicode_leaves, unicode_tree
from betweencut.data.tree import LevelRule, Node, PublicTree, kary_tree, prefix_tree
from betweencut.errors import ParameterError
from betweencut.mechanism.betweencut import between_cut, path_counts
from betweencut.mechanism.params import Params
from betweencut.mechanism.sparse import (
    Encoding,
    _children_mask,
    sparse_between_cut,
    sparse_between_cut_codes,
)
from betweencut.noise.bt_sampler import ExactSampler
from betweencut.noise.noisy_test import RecordingTest
from betweencut.numbers.exact import LogReal

SEEDS = range(12)


def _kary_db(rng: random.Random, k: int, h: int, n: int) -> list[Node]:
    hot = [tuple(rng.randrange(k) for _ in range(h - 1)) for _ in range(3)]
    return [
        rng.choice(hot) if rng.random() < 0.7 else tuple(rng.randrange(k) for _ in range(h - 1))
        for _ in range(n)
    ]


def _prefix_db(rng: random.Random, tree: PublicTree, n: int) -> list[Node]:
    symbols = tree.names_of_children(())[1:]
    out = []
    for _ in range(n):
        length = rng.randrange(1, tree.height)  # 1 .. h-1 symbols: short records end in ⊣
        parts = [rng.choice(symbols[:2]) if rng.random() < 0.6 else rng.choice(symbols)
                 for _ in range(length)]
        out.append(tree.leaf_of(parts))
    return out


def _agree(tree: PublicTree, leaves: list[Node], params: Params, seed: int) -> int:
    dense_test = RecordingTest(ExactSampler(seed))
    sparse_test = RecordingTest(ExactSampler(seed))
    dense = between_cut(tree, leaves, params, dense_test)
    sparse = sparse_between_cut(tree, leaves, params, sparse_test, record=True)
    assert sparse.heavy == dense.heavy
    assert [q for q, _ in sparse_test.log] == [q for q, _ in dense_test.log]
    counts = path_counts(leaves)
    assert sparse.transcript == tuple((u, s) for u, s in dense.transcript if counts.get(u, 0) > 0)
    assert sparse.noisy_calls == len(dense_test.log)
    return len(dense_test.log)


@pytest.mark.parametrize(("k", "h"), [(2, 4), (3, 4), (2, 7), (4, 3), (1, 5), (2, 1)])
def test_prop_d_1_dense_and_sparse_agree_kary(k: int, h: int) -> None:
    # λ = 1/2, R = 1: E = w + R = 3; τ in {3, 4, 6} >= E, counts around τ draw noise.
    noisy = 0
    for seed in SEEDS:
        rng = random.Random(seed)
        tau = rng.choice([3, 4, 6])
        params = Params.of(tau, F(1, 2), 1)
        noisy += _agree(kary_tree(k, h), _kary_db(rng, k, h, rng.randrange(1, 40)), params, seed)
    assert noisy > 0  # the comparison exercised the sampler


@pytest.mark.parametrize(("alphabet", "h"), [("ab", 4), ("abc", 4), ("xyz", 3), ("a", 5)])
def test_prop_d_1_dense_and_sparse_agree_prefix_with_end_of_record(alphabet: str, h: int) -> None:
    tree = prefix_tree(list(alphabet), h)
    noisy = 0
    for seed in SEEDS:
        rng = random.Random(seed)
        params = Params.of(rng.choice([4, 5]), F(1, 2), LogReal(F(1), F(1, 4), F(3)))  # E = 3.27
        leaves = _prefix_db(rng, tree, rng.randrange(1, 50))
        assert any(u[-1] == 0 for u in leaves)  # some records end in ⊣
        noisy += _agree(tree, leaves, params, seed)
    assert noisy > 0


def test_prop_d_1_agree_at_tau_equal_to_E() -> None:
    params = Params.of(3, F(1, 2), 1)  # E = 2 + 1 = 3 = τ
    assert params.margin.compare(params.tau) == 0
    for seed in SEEDS:
        rng = random.Random(seed)
        _agree(kary_tree(2, 5), _kary_db(rng, 2, 5, 20), params, seed)


def test_sparse_refuses_tau_below_E() -> None:
    params = Params.of(F(29, 10), F(1, 2), 1)  # E = 3 > τ
    with pytest.raises(ParameterError, match=r"tau >= E") as info:
        sparse_between_cut(kary_tree(2, 4), [(0, 0, 1)], params)
    assert info.value.name == "tau"
    assert "dense" in str(info.value)
    irrational = Params.of(4, F(1, 2), LogReal(F(1), F(1), F(3)))  # E = 3 + ln 3 > 4.09
    with pytest.raises(ParameterError, match="tau"):
        sparse_between_cut(kary_tree(2, 4), [], irrational)


def test_sparse_on_empty_input() -> None:
    params = Params.of(10, F(1, 2), 1)
    run = sparse_between_cut(kary_tree(2, 4), [], params, record=True)
    assert run.heavy == frozenset() and run.noisy_calls == 0 and run.transcript == ()
    assert between_cut(kary_tree(2, 4), [], params, ExactSampler(0)).heavy == frozenset()
    empty = np.zeros(0, np.int64)
    assert sparse_between_cut_codes(empty, Encoding((2, 2, 2), 0), 4, params).heavy == frozenset()


def test_encoding_kary_code_is_the_leaf_index() -> None:
    """Without end-of-record, digits are child indices in radix k: leaf code = leaf index."""
    enc = Encoding.of(kary_tree(3, 4))
    assert enc == Encoding((3, 3, 3), 0)
    leaves = [(0, 0, 0), (0, 0, 1), (1, 0, 2), (2, 2, 2)]
    assert enc.encode(leaves).tolist() == [0, 1, 11, 26]
    assert [enc.decode(3, c) for c in (0, 1, 11, 26)] == leaves
    assert Encoding.of(kary_tree(2, 33)) == Encoding((2,) * 32, 0)


def test_encoding_prefix_shift() -> None:
    enc = Encoding.of(prefix_tree(["a", "b"], 3))
    assert enc == Encoding((4, 4), 1)  # ⊣, a, b shifted by one; 0 = record ended
    assert enc.decode(2, int(enc.encode([(1, 0)])[0])) == (1, 0)


def test_sparse_codes_entry_point_matches_dense() -> None:
    tree = kary_tree(2, 6)
    params = Params.of(4, F(1, 2), 1)
    rng = random.Random(3)
    leaves = _kary_db(rng, 2, 6, 60)
    codes = np.array([int("".join(map(str, u)), 2) for u in leaves], np.int64)
    enc = Encoding.of(tree)
    for seed in SEEDS:
        run = sparse_between_cut_codes(codes, enc, tree.height, params, ExactSampler(seed))
        assert run.heavy == between_cut(tree, leaves, params, ExactSampler(seed)).heavy


def test_prop_d_1_dense_and_sparse_agree_irregular_tree() -> None:
    """A public tree whose leaves sit at different depths (`b` is a leaf at depth 1)."""
    rule = LevelRule(({"": ("a", "b", "c")}, {"a": ("x", "y"), "b": (), "c": ("z",)},
                      {"*": ("p", "q")}))
    tree = PublicTree(4, rule, description="irregular")
    paths = [("a", "x", "p"), ("a", "x", "q"), ("a", "y", "p"), ("b",), ("c", "z", "q")]
    noisy = 0
    for seed in SEEDS:
        rng = random.Random(seed)
        leaves = [tree.leaf_of(rng.choice(paths[:2]) if rng.random() < 0.5 else rng.choice(paths))
                  for _ in range(rng.randrange(1, 40))]
        noisy += _agree(tree, leaves, Params.of(rng.choice([3, 4, 6]), F(1, 2), 1), seed)
    assert noisy > 0


def test_prop_d_1_dense_and_sparse_agree_embedded_unicode_tree() -> None:
    tree = unicode_tree()
    leaves = unicode_leaves(tree)[::97]  # a deterministic sample of ~2900 records
    for seed in range(3):
        _agree(tree, leaves, Params.of(40, F(1, 4), LogReal(F(1), F(4), F(60))), seed)


def test_children_mask_run_by_run_agrees_with_node_by_node() -> None:
    """MarkDown's fast expansion (run by run) equals `np.repeat` over the child counts, for masks
    of long runs and of short ones, with childless nodes among them (ended records)."""
    rng = np.random.default_rng(7)
    for size in (1, 2, 9, 1000):
        child_counts = rng.integers(0, 4, size)
        child_start = np.zeros(size + 1, np.int64)
        np.cumsum(child_counts, out=child_start[1:])
        runs = np.repeat(rng.random(size // 50 + 1) < 0.5, 50)[:size]
        for mask in (runs, rng.random(size) < 0.5, np.ones(size, bool), np.zeros(size, bool)):
            expected = np.repeat(mask, child_counts)
            assert np.array_equal(_children_mask(mask, child_start), expected), (size, mask)
