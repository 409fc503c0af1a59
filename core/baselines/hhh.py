"""The threshold of differentially private hierarchical heavy hitters (non-streaming), with the
threshold noise shared by every node or fresh per node.

Biswas, Cormode, Kanza, Srivastava and Zhou (PODS 2025) release the hierarchical heavy hitters
(HHH, Cormode et al., VLDB 2003) of records that are leaves of a public tree. The authors
reported on 2026-04-22 that the conference version of the non-streaming algorithm is not
private: it draws one `γ ~ Lap(1/ε)` and uses it at every node of the tree; their fix draws a
fresh `γ_p` for every node `p` (with a larger scale, and a truncation this sketch leaves out).
The paper's pseudocode was not available to us; this module implements the threshold step as
the erratum describes it, on the classical HHH definition:

* bottom-up, level by level from the leaves to the root, in the public order of each level;
* a node's *residual count* is the number of records below it (itself included) that lie below
  no node already declared heavy;
* node `p` is declared heavy iff `residual(p) >= τ + γ` (shared: one `γ` for every node;
  fresh: `γ_p`), and the release is the set of heavy nodes.

Noise. Shared: `γ ~ Lap(1/ε)`, asked as `AboveThreshold(residual, τ, 0, γ)`. Fresh:
`γ_p ~ Lap(h/ε)` for a tree of height `h` (the `h` nodes of a record's path): with the same
decisions below it, a record changes the residual counts of the nodes of its own path only, by
1, so the fresh version is `ε`-DP under add/remove by adaptive composition of `h` tests each
`(ε/h)`-DP (and `2ε`-DP under replace-one: two paths). Asked as `AboveThreshold(residual, τ,
h/ε)` (`residual + ν >= τ` with `ν = -γ_p`, the same law). Everything is exact: the release path
samples the Laplace draws lazily and exactly (`ExactQuerySampler`), the proof path enumerates
them (`betweencut.proofs.privacy.enumeration.shared_noise`).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from betweencut.data.tree import Node, PublicTree
from betweencut.data.validate import exact_number, positive_rational
from betweencut.errors import ParameterError
from betweencut.noise.noisy_queries import AboveThreshold, DrawNoise, QueryTest

__all__ = ["hhh_threshold", "is_below"]


def is_below(leaf: Node, node: Node) -> bool:
    """Whether `leaf` lies below `node` (or is it)."""
    return leaf[:len(node)] == node


def hhh_threshold(tree: PublicTree, records: Sequence[Node], tau: Fraction, epsilon: Fraction,
                  test: QueryTest, *, shared: bool) -> frozenset[Node]:
    """The heavy nodes (see the module docstring): `shared` one `γ` for every node (the
    conference version), else a fresh `γ_p` per node (the fix)."""
    if not isinstance(tree, PublicTree):
        raise ParameterError("tree", repr(tree), "a PublicTree")
    tau = exact_number(tau, "tau")
    eps = positive_rational(epsilon, "epsilon")
    leaves = set(tree.level(tree.height - 1))
    for record in records:
        if tuple(record) not in leaves:
            raise ParameterError("record", record, f"a leaf of the public tree ({tree.height} "
                                 "levels)")
    gamma = test(DrawNoise(1 / eps)) if shared else None
    fresh = Fraction(tree.height) / eps
    heavy: list[Node] = []
    for depth in range(tree.height - 1, -1, -1):
        for node in tree.level(depth):
            residual = sum(1 for r in records if is_below(tuple(r), node)
                           and not any(is_below(tuple(r), h) for h in heavy))
            if gamma is not None:
                above = test(AboveThreshold(Fraction(residual), tau, Fraction(0), gamma))
            else:
                above = test(AboveThreshold(Fraction(residual), tau, fresh))
            if above:
                heavy.append(node)
    return frozenset(heavy)
