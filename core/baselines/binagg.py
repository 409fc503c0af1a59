"""BinAgg-style PrivTree binning: the partition released with counts rescaled to the true n.

BinAgg (Lin, Slavković and Bhoomireddy, AISTATS 2026; the PrivTree note in `shared/seeds`)
partitions the data space with PrivTree (`betweencut.baselines.privtree`, FORMULAS.md, last
section) and releases, per bin, noisy aggregates. Its defaults use the exact dataset size `n`:
the noisy counts are rescaled so that they sum to `n` (`preserve_sample_size=True`), so the
released counts always add up to the true `n`, whatever their noise. `binagg_privtree` runs the
real PrivTree and releases the partition with that total (`BinAggRelease`); the counts' own
noise is a separate mechanism, not modelled here. What follows (decided exactly by the corpus
rows of `betweencut.proofs.baselines.corpus_checks.tree_corpus`):

* replace-one neighbours (`|D| = |D'|`): the total is the same on both databases, so the
  release is the partition and a constant: PrivTree's `ε` under add/remove gives `2ε` under
  replace-one (a replacement is a removal and an addition);
* add/remove neighbours: the totals differ on every pair, so the two output laws have disjoint
  supports: private at no `ε` (an event with `Q = 0 < P`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from betweencut.baselines.privtree import Box, Point, PrivTree
from betweencut.errors import ParameterError
from betweencut.noise.noisy_test import NoisyTest

__all__ = ["BinAggRelease", "binagg_privtree"]


@dataclass(frozen=True)
class BinAggRelease:
    """The partition (PrivTree's leaves) and the total of the released counts (the true n)."""

    partition: frozenset[Box]
    total: int

    def __repr__(self) -> str:
        cells = ", ".join("x".join(f"[{lo},{hi})" for lo, hi in box)
                          for box in sorted(self.partition))
        return f"partition {{{cells}}}, total {self.total}"


def binagg_privtree(tree: PrivTree, points: Sequence[Point], test: NoisyTest) -> BinAggRelease:
    """PrivTree's partition of `points` with the released counts' total, `n = len(points)`."""
    if not isinstance(tree, PrivTree):
        raise ParameterError("tree", repr(tree), "a PrivTree")
    return BinAggRelease(tree.run(points, test), len(points))
