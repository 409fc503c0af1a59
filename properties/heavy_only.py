"""Checks that need only the released Heavy set: for any heavy-node classifier, not only ports
of Alg. 3.

Most of the structural suite (`check_implementation`) reads a whole run record (transcript,
marking log, labels) and so needs an implementation of Alg. 3 with its steps. Two claims read
only what every classifier releases, the Heavy set:

* **ancestor closure** (the Heavy half of Lemma B.1): every ancestor of a Heavy node is Heavy,
  and every Heavy node is a node of the public tree;
* **Theorem C.2** (Eq. (121)-(122)), the deterministic margin: a Heavy node has
  `c_u > τ - (w + R)`, a node that is not Heavy has `c_u < τ + (w + R)`, on every run.

`check_heavy_classifier(heavy_fn)` runs both under Hypothesis (the same cases, seeds, profiles
and replay lines as `check_implementation`). `heavy_fn(tree, leaves, params, test)` returns the
Heavy set (any iterable of nodes) and asks its randomness through `test` (a `NoisyTest`: a
classifier that draws its own noise still runs, but its failures cannot be replayed).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from hypothesis import given

from betweencut.data.tree import Node, PublicTree
from betweencut.errors import ParameterError
from betweencut.mechanism.marking import Assignment
from betweencut.mechanism.params import Params
from betweencut.noise.noisy_test import NoisyTest, Outcome
from betweencut.proofs.registry import claim
from betweencut.properties.check import (
    PropertyResult,
    Report,
    choose_seed,
    probe_claim,
    probe_settings,
    replay_line,
    seeded,
    tag_failure,
    then_pinned,
)
from betweencut.properties.margin import THEOREM_C_2, check_theorem_c_2
from betweencut.properties.predicates import LEMMA_B_1
from betweencut.properties.strategies import Case, cases
from betweencut.properties.violation import PropertyViolation

__all__ = ["ANCESTOR_CLOSURE", "HEAVY_CLAIMS", "check_ancestor_closed", "check_heavy_classifier"]

HeavyFn = Callable[[PublicTree, Sequence[Node], Params, NoisyTest], Iterable[Node]]
ANCESTOR_CLOSURE = "Lemma B.1 (Heavy ancestor-closed)"
HEAVY_CLAIMS = (ANCESTOR_CLOSURE, THEOREM_C_2)


@dataclass(frozen=True)
class HeavyOnly:
    """A run record that holds only the Heavy set (what `check_theorem_c_2` reads)."""

    heavy: frozenset[Node]
    transcript: tuple[tuple[Node, Outcome], ...] = ()
    assignments: tuple[Assignment, ...] = ()
    labels: Mapping[Node, Outcome] = field(default_factory=dict)


@claim("Lemma B.1")
def check_ancestor_closed(tree: PublicTree, heavy: Iterable[Node]) -> None:
    """Claim: Lemma B.1 (its Heavy half), for a classifier that releases only a Heavy set.

    Preconditions: `heavy` is what the classifier released on the public `tree`.
    Checks: every Heavy node is a node of `tree` and its parent is Heavy (ancestor closure).
    Returns: None. Raises: `PropertyViolation` with the shallowest offending node."""
    nodes = frozenset(heavy)
    for u in sorted(nodes, key=lambda v: (len(v), v)):
        if not _in_tree(tree, u):
            raise PropertyViolation(LEMMA_B_1, "a Heavy node is not a node of the tree",
                                    {"heavy": u, "tree": tree.description})
        if u and u[:-1] not in nodes:
            raise PropertyViolation(LEMMA_B_1, "Heavy is not ancestor-closed",
                                    {"heavy": u, "parent": u[:-1]})


def _in_tree(tree: PublicTree, u: object) -> bool:
    if not isinstance(u, tuple) or len(u) >= tree.height:
        return False
    return all(isinstance(c, int) and 0 <= c < tree.arity(u[:i]) for i, c in enumerate(u))


def _heavy(heavy_fn: HeavyFn, case: Case) -> frozenset[Node]:
    out = heavy_fn(case.tree, list(case.leaves), case.params, case.test())
    if isinstance(out, str | bytes) or not isinstance(out, Iterable):
        raise ParameterError("heavy_fn result", type(out).__name__, "an iterable of nodes")
    return frozenset(tuple(u) for u in out)


CHECKS: dict[str, Callable[[Case, frozenset[Node]], None]] = {
    ANCESTOR_CLOSURE: lambda c, heavy: check_ancestor_closed(c.tree, heavy),
    THEOREM_C_2: lambda c, heavy: check_theorem_c_2(c.tree, c.leaves, c.params, HeavyOnly(heavy)),
}


def _one(heavy_fn: HeavyFn, check: Callable[[Case, frozenset[Node]], None]
         ) -> Callable[[Case], None]:
    def one(case: Case) -> None:
        try:
            check(case, _heavy(heavy_fn, case))
        except Exception as exc:
            tag_failure(exc, case)
            raise

    return one


def check_heavy_classifier(
    heavy_fn: HeavyFn,
    *,
    claims: Iterable[str] | None = None,
    max_examples: int | None = None,
    derandomize: bool = False,
    seed: int | None = None,
) -> Report:
    """Check any heavy-node classifier against the claims that read only its Heavy set.

    Claims: ancestor closure (Lemma B.1, Heavy half) and Theorem C.2, on arbitrary trees,
    databases, parameters and answer sequences, then the paper's pinned cases.
    Settings, seeds and replay lines as `check_implementation`.
    Returns a `Report` (one `PropertyResult` per claim, failures shrunk).
    """
    if not callable(heavy_fn):
        raise ParameterError("heavy_fn", repr(heavy_fn), "a callable (tree, leaves, params, test)")
    chosen = list(HEAVY_CLAIMS if claims is None else claims)
    unknown = [c for c in chosen if c not in HEAVY_CLAIMS]
    if unknown:
        raise ParameterError("claims", unknown, f"a subset of {list(HEAVY_CLAIMS)}")
    conf = probe_settings(max_examples, derandomize)
    used = choose_seed(seed, bool(conf.derandomize))
    results: list[PropertyResult] = []
    for name in chosen:
        one = _one(heavy_fn, CHECKS[name])

        @seeded(conf, used)
        @given(case=cases())
        def probe(case: Case) -> None:
            one(case)  # noqa: B023  (run before the loop moves on)

        result = probe_claim(name, then_pinned(probe, one))
        if not result.passed:
            result = replace(result, replay=replay_line(heavy_fn, [name], conf, used,
                                                        "check_heavy_classifier"))
        results.append(result)
    return Report(tuple(results))
