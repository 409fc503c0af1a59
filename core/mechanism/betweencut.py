"""BetweenCut, Alg. 3: the dense node classifier over every node of the public tree.

The class reads like the pseudocode; each step is a method so that a variant (a deliberately
broken one in the test gallery, or a user's) changes one step and keeps the rest. All noise goes
through the `NoisyTest` passed in, so the same code runs for release (`ExactSampler`) and for
exact enumeration (`ReplayTest`, used by `betweencut.proofs`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from betweencut.boundary.seams import Seams
from betweencut.data.tree import Node, PublicTree
from betweencut.data.validate import check_leaves, check_tree
from betweencut.errors import ParameterError
from betweencut.mechanism.depo import depth_order
from betweencut.mechanism.guarded_bt import BT, GuardedBT
from betweencut.mechanism.marking import Assignment, Labels
from betweencut.mechanism.params import Params
from betweencut.noise.bt_sampler import ExactSampler
from betweencut.noise.noisy_test import NoisyTest, Outcome, check_test

Step = tuple[Node, Outcome]
DENSE_NODE_LIMIT = 10**6


@dataclass(frozen=True)
class Run:
    """What one run produced. `transcript` is Tr(D) (Eq. (112)): every queried node with its
    answer, guards included; `assignments` is the marking log of Alg. 6 in order."""

    heavy: frozenset[Node]
    transcript: tuple[Step, ...]
    assignments: tuple[Assignment, ...]
    labels: Mapping[Node, Outcome]


def path_counts(leaves: Iterable[Node]) -> Counter[Node]:
    """`c_u(D)` for every node with a positive count (Alg. 3, l. 2): each record adds one to
    every node on its root-to-leaf path."""
    counts: Counter[Node] = Counter()
    for leaf in leaves:
        for d in range(len(leaf) + 1):
            counts[leaf[:d]] += 1
    return counts


class BetweenCut:
    """Alg. 3 on a public tree with public parameters; `run(D, test)` classifies one database."""

    def __init__(self, tree: PublicTree, params: Params) -> None:
        self.tree = tree
        self.params = params
        self.count_query = self.make_query()

    # -- the steps a variant may change -------------------------------------------------------
    def make_query(self) -> BT:
        """Alg. 3, l. 1 and Alg. 1: thresholds `a = τ - 1/λ`, `b = τ + 1/λ` and the guards."""
        p = self.params
        return GuardedBT.of(p.a, p.b, p.R, p.lam)

    def level_order(self) -> list[int]:
        """Alg. 3, l. 4: DepO(0, h - 1)."""
        return depth_order(self.tree.height)

    def apply(self, labels: Labels, u: Node, outcome: Outcome) -> None:
        """Alg. 3, l. 9-15."""
        if outcome is Outcome.L:
            labels.mark_down(u)
        elif outcome is Outcome.H:
            labels.mark_up(u)
        else:
            labels.mark_up(self.tree.parent(u))
            labels.mark_down(u)

    # -- the algorithm ------------------------------------------------------------------------
    def run(self, leaves: Iterable[Node], test: NoisyTest | None = None) -> Run:
        """Classify the database `leaves` (one leaf node per record)."""
        counts = path_counts(leaves)
        noisy = test if test is not None else ExactSampler()
        labels = Labels(self.tree.children)
        transcript: list[Step] = []
        for d in self.level_order():  # Alg. 3, l. 4
            for u in self.tree.level(d):  # Alg. 3, l. 5
                if u in labels.label:  # Alg. 3, l. 6
                    continue
                outcome = self.count_query(counts.get(u, 0), noisy, u)  # Alg. 3, l. 8
                transcript.append((u, outcome))
                self.apply(labels, u, outcome)
        heavy = frozenset(u for u, s in labels.label.items() if s is Outcome.H)
        return Run(heavy, tuple(transcript), tuple(labels.log), labels.label)


def check_run_arguments(tree: object, params: object, test: object) -> None:
    """The checks every entry point of Alg. 3 (dense or sparse) makes before any work: `tree`
    a `PublicTree`, `params` a `Params`, `test` a `NoisyTest` or None."""
    check_tree(tree)
    if not isinstance(params, Params):
        raise ParameterError(
            "params", params, "a betweencut.mechanism.params.Params: Params.of(tau, lam, R)")
    check_test(test)


def between_cut(
    tree: PublicTree, leaves: Iterable[Node], params: Params, test: NoisyTest | None = None
) -> Run:
    """Alg. 3, dense: classify every node of `tree`. Refuses trees over `DENSE_NODE_LIMIT` nodes.

    Every argument is checked first: `tree` a `PublicTree`, `params` a `Params`, `test` a
    `NoisyTest` or None, and every record a leaf of the public tree (`RecordError` otherwise)."""
    check_run_arguments(tree, params, test)
    size = tree.size(limit=DENSE_NODE_LIMIT)
    if size > DENSE_NODE_LIMIT:
        raise ParameterError(
            "tree", tree.description, f"at most {DENSE_NODE_LIMIT} nodes for the dense algorithm",
            "use the sparse implementation (needs tau >= E) or a smaller public tree",
        )
    return BetweenCut(tree, params).run(check_leaves(tree, leaves), test)


# The structure the audits' fast paths model (`betweencut.boundary.seams`), snapshot here, when
# the class is defined: a step overridden anywhere on a constructed object (its instance
# dictionary, a class, a patch after import) is found by `overrides(mechanism, SEAMS)`.
SEAMS = Seams.of(BetweenCut, steps=("make_query", "level_order", "apply", "run"),
                 fields=("tree", "params", "count_query"))
