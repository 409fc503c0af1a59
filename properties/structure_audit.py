"""The structural claims in the main `betweencut audit` (group `structure`).

Lemmas B.1, 4.2, 4.3, B.2, B.3, Theorem C.2, Proposition D.1 and DepO (Alg. 2) hold on every
run, whatever the noisy tests answer, so they are checked as properties: `check_implementation`
runs the package's own dense Alg. 3 (`between_cut`) on inputs and answer scripts drawn by
Hypothesis with a bounded, derandomised budget (`AUDIT_EXAMPLES` per claim: the same runs on
every machine), then on the paper's pinned cases. Each certificate states how many runs were
checked. Layering: `proofs` may not import `properties`, so this module registers through the
registry (`register_audit`) and the CLI's audit command imports it (the CLI is the one place
that composes every layer); `betweencut.proofs.checkers` does not list it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from betweencut.data.tree import Node, PublicTree
from betweencut.mechanism.betweencut import between_cut
from betweencut.mechanism.depo import depth_order
from betweencut.mechanism.params import Params
from betweencut.noise.noisy_test import NoisyTest
from betweencut.proofs.exact.certificate import Certificate, ClaimRefuted
from betweencut.proofs.registry import register_audit
from betweencut.properties.check import ALL_CLAIMS, ClassifyFn, check_implementation
from betweencut.properties.predicates import DEPO
from betweencut.properties.strategies import paper_cases
from betweencut.properties.violation import RunRecord

AUDIT_EXAMPLES = 25
GROUP = "structure"


def check_structural_claim(
    claim: str,
    max_examples: int = AUDIT_EXAMPLES,
    classify_fn: ClassifyFn = between_cut,
) -> Certificate:
    """Claim: one structural claim of `ALL_CLAIMS` (e.g. Lemma B.1) on the package's Alg. 3.

    Preconditions: `claim` in `ALL_CLAIMS`; `max_examples >= 1`; `classify_fn` has the shape
    `check_implementation` takes (the default, and the audit's, is the package's `between_cut`;
    a broken variant is passed only to show the check can fail).
    Checks: the claim's predicate on every run Hypothesis draws (derandomised, at most
    `max_examples` inputs and answer scripts), then on the paper's pinned cases.
    Returns: a `Certificate` (method `property`) whose scope says how many runs were checked.
    Raises: `ClaimRefuted` with the shrunk falsifying input when the predicate fails.
    """
    runs = 0

    def counted(tree: PublicTree, leaves: Sequence[Node], params: Params,
                test: NoisyTest) -> RunRecord:
        nonlocal runs
        runs += 1
        return classify_fn(tree, leaves, params, test)

    def counted_depo(height: int) -> list[int]:
        nonlocal runs
        runs += 1
        return depth_order(height)

    report = check_implementation(
        counted, claims=[claim], depo_fn=counted_depo, max_examples=max_examples,
        derandomize=True,
    )
    result = report.results[0]
    if not result.passed:
        raise ClaimRefuted(claim, str(result.violation or result.error),
                           {"input": result.falsifying})
    what = "heights" if claim == DEPO else "runs"
    return Certificate(
        claim, {"max_examples": max_examples, "derandomized": True,
                "pinned_cases": 1 if claim == DEPO else len(paper_cases())},
        "property", {what: runs},
        scope=f"{runs} {what}, Hypothesis derandomised, paper's pinned cases included",
    )


def _case(claim: str) -> Callable[[], Sequence[Certificate]]:
    return lambda: [check_structural_claim(claim)]


for _claim in ALL_CLAIMS:
    register_audit(GROUP, f"{_claim} on drawn runs of Alg. 3")(_case(_claim))
