"""Structurally broken BetweenCut variants: each subclasses `BetweenCut` and changes one step.

They exist so that the property suite can be seen to fail (principle 5): each breaks a named
structural claim on some input, and `check_implementation` must name that claim. (The privacy
breaking gallery lives in `betweencut.proofs`; these are about Appendix B and Section 4.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from betweencut.data.tree import Node, PublicTree
from betweencut.mechanism.betweencut import BetweenCut, Run
from betweencut.mechanism.guarded_bt import BT
from betweencut.mechanism.marking import Labels
from betweencut.mechanism.params import Params
from betweencut.noise.noisy_test import NoisyTest, Outcome

ClassifyFn = Callable[[PublicTree, Sequence[Node], Params, NoisyTest], Run]


class StructuralMutantNoMarkUpOnB(BetweenCut):
    """Forgets `MarkUp(parent(u))` on a `B` answer (Alg. 3, l. 14): an ancestor of a `B` node
    can be queried later, breaking Lemma 4.3."""

    def apply(self, labels: Labels, u: Node, outcome: Outcome) -> None:
        if outcome is Outcome.B:
            labels.mark_down(u)
        else:
            super().apply(labels, u, outcome)


class StructuralMutantTopDown(BetweenCut):
    """Visits the levels top-down (`range(h)`) instead of `DepO(0, h - 1)` (Alg. 3, l. 4): a
    path can hold `h > L` queries, breaking Lemma 4.2."""

    def level_order(self) -> list[int]:
        return list(range(self.tree.height))


class StructuralMutantUnguarded(BetweenCut):
    """Drops the guards of GuardedBT (Alg. 1, l. 1-4) and asks plain BT (Alg. 4): a count far
    above `b + R` can come out Light, breaking Theorem C.2 (and Proposition D.1)."""

    def make_query(self) -> BT:
        p = self.params
        return BT(p.a, p.b, p.lam)


class StructuralMutantMarkUpThrough(BetweenCut):
    """MarkUp that does not stop at an `H` ancestor (Alg. 6, l. 2): labels are overwritten
    `H -> H`, breaking Lemma B.1 (never overwritten) and Lemma B.3 (exactly N assignments)."""

    def apply(self, labels: Labels, u: Node, outcome: Outcome) -> None:
        if outcome is not Outcome.H:
            super().apply(labels, u, outcome)
            return
        v: Node | None = u
        while v is not None:
            labels.log.append((v, labels.label.get(v), Outcome.H))
            labels.label[v] = Outcome.H
            v = self.tree.parent(v)


def classifier(variant: type[BetweenCut]) -> ClassifyFn:
    """The `classify_fn` of a `BetweenCut` subclass, in the shape `check_implementation` takes."""

    def classify(
        tree: PublicTree, leaves: Sequence[Node], params: Params, test: NoisyTest
    ) -> Run:
        return variant(tree, params).run(leaves, test)

    classify.__name__ = f"classify_{variant.__name__}"
    return classify


STRUCTURAL_MUTANTS: dict[str, tuple[type[BetweenCut], str]] = {
    "no MarkUp on B": (StructuralMutantNoMarkUpOnB, "Lemma 4.3"),
    "top-down levels": (StructuralMutantTopDown, "Lemma 4.2"),
    "no guards": (StructuralMutantUnguarded, "Theorem C.2"),
    "MarkUp through H": (StructuralMutantMarkUpThrough, "Lemma B.1"),
}
