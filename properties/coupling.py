"""Proposition D.1: the sparse implementation (Appendix D) equals the dense one (Alg. 3).

Under a shared noise coupling (each side gets a fresh, identically behaving `NoisyTest`, e.g.
`ExactSampler(seed)` or `ScriptedTest(script, seed)`) and `τ >= E`: the sparse query sequence is
the dense one with the zero-count queries deleted, and the Heavy sets (hence the labels on all of
`V`, omitted nodes being Light) are equal.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from betweencut.data.tree import Node, PublicTree
from betweencut.errors import ParameterError
from betweencut.mechanism.betweencut import Run, Step, between_cut, path_counts
from betweencut.mechanism.params import Params
from betweencut.mechanism.sparse import SparseRun, sparse_between_cut
from betweencut.noise.noisy_test import BTQuery, NoisyTest, Outcome, RecordingTest, UnansweredQuery
from betweencut.proofs.registry import claim
from betweencut.properties.violation import PropertyViolation, RunRecord

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
    dense_test, sparse_test = RecordingTest(make_test()), RecordingTest(make_test())
    dense_run = dense(tree, leaves, params, dense_test)
    try:
        sparse_run = sparse(tree, leaves, params, sparse_test)
    except UnansweredQuery as exc:
        raise PropertyViolation(
            PROPOSITION_D_1, "the sparse run asks a noisy query the dense run did not",
            {"query": exc.query, "position": exc.position},
        ) from exc
    differing = first_differing_query(
        [q for q, _ in dense_test.log], [q for q, _ in sparse_test.log])
    expected = [(u, s) for u, s in dense_run.transcript if counts.get(u, 0) > 0]
    got = list(sparse_run.transcript or ())
    for t in range(max(len(expected), len(got))):
        want = expected[t] if t < len(expected) else None
        have = got[t] if t < len(got) else None
        if want != have:
            raise PropertyViolation(
                PROPOSITION_D_1, "the sparse query sequence is not the dense one without its "
                "zero-count queries" + (f": {differing}" if differing else ""),
                {"step": t, "dense": want, "sparse": have,
                 "count": counts.get((want or have or ((), None))[0], 0)},
            )
    if differing:
        raise PropertyViolation(
            PROPOSITION_D_1, f"the same steps, but asked differently: {differing}",
            {"dense_queries": len(dense_test.log), "sparse_queries": len(sparse_test.log)},
        )
    differ = sorted(dense_run.heavy ^ sparse_run.heavy, key=lambda v: (len(v), v))
    if differ:
        u = differ[0]
        raise PropertyViolation(
            PROPOSITION_D_1, "dense and sparse disagree on a label",
            {"node": u, "dense_heavy": u in dense_run.heavy, "count": counts.get(u, 0)},
        )


def _node(u: object) -> str:
    if isinstance(u, tuple):
        return "/".join(map(str, u)) or "root"
    return "?" if u is None else str(u)


def first_differing_query(dense: Sequence[BTQuery], sparse: Sequence[BTQuery]) -> str:
    """The first noisy query (positive count: the zero-count ones are deleted, Appendix D) on
    which the two runs differ, and how: count, thresholds `(a, b)`, rate `λ`, node; "" if none.
    """
    want = [q for q in dense if q.count > 0]
    have = [q for q in sparse if q.count > 0]
    for k in range(max(len(want), len(have))):
        d = want[k] if k < len(want) else None
        s = have[k] if k < len(have) else None
        if d is None or s is None:
            only, side = (d, "dense") if s is None else (s, "sparse")
            if only is None:  # pragma: no cover - the range excludes it
                return ""
            return (f"noisy query #{k} (node {_node(only.node)}, count {only.count}) is asked by "
                    f"the {side} run only")
        how = []
        if d.node is not None and s.node is not None and d.node != s.node:
            how.append(f"node: dense {_node(d.node)}, sparse {_node(s.node)}")
        if d.count != s.count:
            how.append(f"count: dense {d.count}, sparse {s.count}")
        if (d.a, d.b) != (s.a, s.b):
            how.append(f"thresholds (a, b): dense ({d.a}, {d.b}), sparse ({s.a}, {s.b})")
        if d.lam != s.lam:
            how.append(f"rate lambda: dense {d.lam}, sparse {s.lam}")
        if how:
            return f"noisy query #{k} at node {_node(d.node or s.node)} differs in " + \
                "; ".join(how)
    return ""
