"""Proposition D.1: the sparse implementation (Appendix D) equals the dense one (Alg. 3).

Under a shared noise coupling (each side gets a fresh, identically behaving `NoisyTest`, e.g.
`ExactSampler(seed)` or `ScriptedTest(script, seed)`) and `τ >= E`: the sparse query sequence is
the dense one with the zero-count queries deleted, and the Heavy sets (hence the labels on all of
`V`, omitted nodes being Light) are equal.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from betweencut.betweencut import Run, Step, between_cut, path_counts
from betweencut.errors import ParameterError
from betweencut.noisy_test import NoisyTest, Outcome, UnansweredQuery
from betweencut.params import Params
from betweencut.proofs.registry import claim
from betweencut.properties.violation import PropertyViolation, RunRecord
from betweencut.sparse import SparseRun, sparse_between_cut
from betweencut.tree import Node, PublicTree

PROPOSITION_D_1 = "Proposition D.1"


class SparseLike(Protocol):
    """What the comparison reads from the sparse side: the Heavy set and the transcript."""

    @property
    def heavy(self) -> frozenset[Node]: ...

    @property
    def transcript(self) -> tuple[Step, ...] | None: ...


DenseFn = Callable[[PublicTree, Sequence[Node], Params, NoisyTest], RunRecord]
SparseFn = Callable[[PublicTree, Sequence[Node], Params, NoisyTest], SparseLike]


def _dense(tree: PublicTree, leaves: Sequence[Node], params: Params, test: NoisyTest) -> Run:
    return between_cut(tree, leaves, params, test)


def _sparse(
    tree: PublicTree, leaves: Sequence[Node], params: Params, test: NoisyTest
) -> SparseRun:
    return sparse_between_cut(tree, leaves, params, test, record=True)


def sparse_as_run(tree: PublicTree, sparse: SparseLike) -> Run:
    """A sparse result read as a `Run` on the whole tree: omitted nodes are Light (Appendix D).
    It has no marking log (`assignments == ()`): check it with `log=False`."""
    labels = {u: Outcome.H if u in sparse.heavy else Outcome.L for u in tree.nodes()}
    return Run(sparse.heavy, tuple(sparse.transcript or ()), (), labels)


@claim("Proposition D.1")
def check_proposition_d_1(
    tree: PublicTree,
    leaves: Sequence[Node],
    params: Params,
    make_test: Callable[[], NoisyTest],
    *,
    dense: DenseFn = _dense,
    sparse: SparseFn = _sparse,
) -> None:
    """Proposition D.1: with `τ >= E`, run `dense` and `sparse` each with a fresh `make_test()`;
    the sparse transcript must be the dense one without its zero-count steps, and the Heavy sets
    must agree. The witness is the first differing step or the shallowest differing node."""
    if params.margin.compare(params.tau) > 0:
        raise ParameterError("tau", params.tau, f"tau >= E = {params.margin.exact_str()}",
                             "Proposition D.1 assumes tau >= E")
    counts = path_counts(leaves)
    dense_run = dense(tree, leaves, params, make_test())
    try:
        sparse_run = sparse(tree, leaves, params, make_test())
    except UnansweredQuery as exc:
        raise PropertyViolation(
            PROPOSITION_D_1, "the sparse run asks a noisy query the dense run did not",
            {"query": exc.query, "position": exc.position},
        ) from exc
    expected = [(u, s) for u, s in dense_run.transcript if counts.get(u, 0) > 0]
    got = list(sparse_run.transcript or ())
    for t in range(max(len(expected), len(got))):
        want = expected[t] if t < len(expected) else None
        have = got[t] if t < len(got) else None
        if want != have:
            raise PropertyViolation(
                PROPOSITION_D_1, "the sparse query sequence is not the dense one without its "
                "zero-count queries",
                {"step": t, "dense": want, "sparse": have,
                 "count": counts.get((want or have or ((), None))[0], 0)},
            )
    differ = sorted(dense_run.heavy ^ sparse_run.heavy, key=lambda v: (len(v), v))
    if differ:
        u = differ[0]
        raise PropertyViolation(
            PROPOSITION_D_1, "dense and sparse disagree on a label",
            {"node": u, "dense_heavy": u in dense_run.heavy, "count": counts.get(u, 0)},
        )
