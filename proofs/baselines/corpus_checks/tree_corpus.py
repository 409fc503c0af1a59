"""Corpus rows on records that are leaves of a public tree or points of a public box (issue 27,
item 5): the hierarchical heavy hitters threshold with shared and with fresh threshold noise,
and BinAgg-style PrivTree under both neighbour relations. Each is decided exactly on every pair
of databases of at most `size + 1` records (`corpus.audit_row`, by listing), with the
counterexample of a refuted claim. A tree row's `m` (`queries` in its JSON) is the most noisy
tests its mechanism asks: one per node of the HHH tree, one per splittable cell of PrivTree; its
records are leaves or points, not moves of query answers (so no `moves` is reported).

* `hhh-shared-gamma`: the conference version (PODS 2025, non-streaming), one `γ ~ Lap(1/ε)` for
  every node (`betweencut.baselines.hhh`), on the binary tree of height 3 (7 nodes). Private at
  no ε: two nodes of equal residual count on `D` are always declared alike, while adding a record
  below one of them separates them with positive probability (`Q = 0 < P`).
* `hhh-fresh-gamma`: the authors' fix, a fresh `γ_p ~ Lap(h/ε)` per node: ε-DP under add/remove
  (composition over a record's path of `h` nodes); `2ε`-DP under replace-one (two paths).
* `binagg-privtree-add-remove` / `binagg-privtree-replace-one`: PrivTree at `ε/2` on `[0, 8)`
  with the released counts' total, the true n (`betweencut.baselines.binagg`), claimed
  `(ε, 0)`: refuted under add/remove (disjoint supports: the totals differ), holds under
  replace-one (`2·ε/2`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from fractions import Fraction

from betweencut.baselines.binagg import binagg_privtree
from betweencut.baselines.hhh import hhh_threshold
from betweencut.baselines.privtree import Box, PrivTree
from betweencut.data.tree import kary_tree
from betweencut.noise.noisy_queries import QueryTest
from betweencut.noise.noisy_test import NoisyTest
from betweencut.proofs.baselines.corpus_checks.corpus_rows import (
    EPS,
    NOWHERE,
    PRIVATE,
    PRIVATE_AT,
    CorpusRow,
    Run,
)
from betweencut.proofs.privacy.enumeration.cache import Database
from betweencut.proofs.verdict import Neighbours, Relation

__all__ = ["BINAGG_BOX", "HHH_TAU", "HHH_TREE", "TREE_ROWS"]

HHH_TREE = kary_tree(2, 3)
HHH_TAU = Fraction(1)
BINAGG_BOX = ((0, 8),)
BINAGG_TREE = PrivTree.of(BINAGG_BOX, EPS / 2)
ERRATUM = ("Biswas, Cormode, Kanza, Srivastava, Zhou, PODS 2025; the authors' bug report of "
           "2026-04-22 (non-streaming HHH)")


def _no_query_answers(m: int) -> Run:
    def run(q: tuple[Fraction, ...], test: QueryTest) -> Hashable:
        raise TypeError("a tree row runs on databases of records (run_db), not on answers")

    return run


def _hhh(shared: bool) -> Callable[[Database, QueryTest], Hashable]:
    def run(db: Database, test: QueryTest) -> Hashable:
        return hhh_threshold(HHH_TREE, db, HHH_TAU, EPS, test, shared=shared)

    return run


def _binagg(db: Database, test: NoisyTest) -> Hashable:
    return binagg_privtree(BINAGG_TREE, list(db), test)


LEAVES = tuple(sorted(HHH_TREE.level(HHH_TREE.height - 1)))
POINTS = tuple((x,) for x in range(*BINAGG_BOX[0]))
NODES = sum(1 for _ in HHH_TREE.nodes())


def _splittable(box: Box) -> int:
    """The cells of PrivTree's decomposition below `box` (itself included) that it may split,
    each asked one noisy test."""
    children = BINAGG_TREE.split.children(box)
    return 0 if not children else 1 + sum(_splittable(child) for child in children)


CELLS = _splittable(BINAGG_BOX)

TREE_ROWS: tuple[CorpusRow, ...] = (
    CorpusRow("hhh-shared-gamma", "HHH threshold, one gamma ~ Lap(1/eps) for every node "
              f"(binary tree, h = {HHH_TREE.height}, tau = {HHH_TAU})", _no_query_answers,
              NODES, NOWHERE, ERRATUM + ": the conference version is not private",
              scalable=False, run_db=_hhh(True), universe=LEAVES),
    CorpusRow("hhh-fresh-gamma", "HHH threshold, a fresh gamma_p ~ Lap(h/eps) per node "
              f"(binary tree, h = {HHH_TREE.height}, tau = {HHH_TAU})", _no_query_answers,
              NODES, PRIVATE, ERRATUM + ": the fix; eps-DP by composition over a path of h "
              "nodes", scalable=False, run_db=_hhh(False), universe=LEAVES,
              under=((Neighbours.REPLACE_ONE, PRIVATE_AT, 2 * EPS),)),
    CorpusRow("binagg-privtree-add-remove", "BinAgg-style PrivTree (eps/2) on [0, 8), counts "
              "rescaled to the true n", _no_query_answers, CELLS, NOWHERE,
              "BinAgg (Lin, Slavkovic, Bhoomireddy, AISTATS 2026), preserve_sample_size: the "
              "total n differs between D and D + z", scalable=False, run_db=_binagg,
              universe=POINTS, fresh_noise=True, relation=Relation(Neighbours.ADD_REMOVE)),
    CorpusRow("binagg-privtree-replace-one", "BinAgg-style PrivTree (eps/2) on [0, 8), counts "
              "rescaled to the true n", _no_query_answers, CELLS, PRIVATE,
              "PrivTree (Zhang, Xiao, Xie 2016) at eps/2 under add/remove, 2 * eps/2 under "
              "replace-one; the total n is the same on both databases", scalable=False,
              run_db=_binagg, universe=POINTS, fresh_noise=True,
              relation=Relation(Neighbours.REPLACE_ONE)),
)
