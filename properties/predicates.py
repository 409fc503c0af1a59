"""Predicates for the structural lemmas of BetweenCut (Appendix B, Section 4, Alg. 2).

Each `check_...` reads one run record (see `betweencut.properties.violation.RunRecord`; the
dense `betweencut.mechanism.betweencut.Run` is one), returns `None` when the claim holds on that run
and raises `PropertyViolation(claim, message, counterexample)` otherwise, with the smallest witness
it can name: the shallowest node, the shortest path, the first transcript step. They hold for
*every* sequence of answers to the noisy tests, so they are checked on every run, not on average.
Theorem C.2 is in `betweencut.properties.margin`, Proposition D.1 in
`betweencut.properties.coupling`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from betweencut.data.tree import Node, PublicTree
from betweencut.mechanism.betweencut import path_counts
from betweencut.mechanism.calibration import path_query_bound
from betweencut.noise.noisy_test import Outcome
from betweencut.proofs.registry import claim
from betweencut.properties.violation import (
    PropertyViolation,
    RunRecord,
    comparable,
)

LEMMA_B_1 = "Lemma B.1"
LEMMA_4_2 = "Lemma 4.2"
LEMMA_4_3 = "Lemma 4.3"
LEMMA_B_2 = "Lemma B.2"
LEMMA_B_3 = "Lemma B.3"
DEPO = "Alg. 2 (DepO)"
_LABELS = (Outcome.H, Outcome.L)


def _public(nodes: Iterable[Node]) -> list[Node]:
    """Shallowest first, then public order: the order in which a witness is 'smallest'."""
    return sorted(nodes, key=lambda u: (len(u), u))


@claim("Lemma B.1")
def check_lemma_b_1(tree: PublicTree, run: RunRecord, *, log: bool = True) -> None:
    """Lemma B.1 (consistency): at the end of the run every node of `tree` is labelled `H` or
    `L`, the Heavy set is ancestor-closed, the Light set descendant-closed, the two disjoint and
    `heavy` is exactly the `H`-labelled set; with `log=True` also every assignment of the
    marking log is `? -> H` or `? -> L`, no node is assigned twice, and replaying the log gives
    the final labels. `log=False` is for implementations that keep no log (the sparse one)."""
    labels = run.labels
    for u in tree.nodes():
        if labels.get(u) not in _LABELS:
            raise PropertyViolation(
                LEMMA_B_1, "a node ends without label H or L",
                {"node": u, "label": labels.get(u)},
            )
    light = {u for u, s in labels.items() if s is Outcome.L}
    both = _public(run.heavy & light)
    if both:
        raise PropertyViolation(
            LEMMA_B_1, "Heavy and Light are not disjoint", {"node": both[0]}
        )
    labelled_heavy = {u for u, s in labels.items() if s is Outcome.H}
    differ = _public(labelled_heavy ^ run.heavy)
    if differ:
        u = differ[0]
        raise PropertyViolation(
            LEMMA_B_1, "the released Heavy set differs from the H-labelled nodes",
            {"node": u, "in_heavy": u in run.heavy, "label": labels.get(u)},
        )
    for u in _public(run.heavy):
        if u and u[:-1] not in run.heavy:
            raise PropertyViolation(
                LEMMA_B_1, "Heavy is not ancestor-closed", {"heavy": u, "parent": u[:-1]}
            )
    for u in _public(light):
        for v in tree.children(u):
            if labels.get(v) is not Outcome.L:
                raise PropertyViolation(
                    LEMMA_B_1, "Light is not descendant-closed",
                    {"light": u, "child": v, "child_label": labels.get(v)},
                )
    if log:
        _check_assignment_log(tree, run)


def _check_assignment_log(tree: PublicTree, run: RunRecord) -> None:
    """Lemma B.1: every write is `? -> H` or `? -> L`, never an overwrite."""
    replay: dict[Node, Outcome] = {}
    for i, (u, previous, new) in enumerate(run.assignments):
        step = {"assignment": i, "node": u, "previous": previous, "new": new}
        if new not in _LABELS:
            raise PropertyViolation(LEMMA_B_1, "an assignment writes neither H nor L", step)
        if previous is not None or u in replay:
            step["earlier"] = replay.get(u)
            raise PropertyViolation(LEMMA_B_1, "a label is overwritten (not ? -> H/L)", step)
        replay[u] = new
    for u in tree.nodes():
        if u not in replay:
            raise PropertyViolation(
                LEMMA_B_1, "a node is never assigned by the marking log", {"node": u}
            )
    differ = _public(v for v in set(replay) | set(run.labels) if replay.get(v) != run.labels.get(v))
    if differ:
        u = differ[0]
        raise PropertyViolation(
            LEMMA_B_1, "replaying the marking log does not give the final labels",
            {"node": u, "log": replay.get(u), "label": run.labels.get(u)},
        )


@claim("Lemma 4.2")
def check_lemma_4_2(tree: PublicTree, run: RunRecord) -> None:
    """Lemma 4.2, Eq. (14): every root-to-leaf path holds at most `L = ceil(log2(h + 1))`
    queried nodes, `h` the tree's (public) height. The witness is the shortest offending chain
    of queried nodes, `L + 1` long."""
    bound = path_query_bound(tree.height)
    queried = {u for u, _ in run.transcript}
    for v in _public(queried):
        chain = [v[:d] for d in range(len(v) + 1) if v[:d] in queried]
        if len(chain) > bound:
            raise PropertyViolation(
                LEMMA_4_2, f"a path holds {len(chain)} queried nodes, more than L = {bound}",
                {"height": tree.height, "L": bound, "queried_on_path": chain},
            )


@claim("Lemma 4.3")
def check_lemma_4_3(run: RunRecord) -> None:
    """Lemma 4.3: at most one `B` answer on every root-to-leaf path, and after a `B` at `u` no
    later query on a path through `u` (its ancestors are Heavy, its subtree Light). The witness
    is the first pair of transcript steps that breaks it."""
    steps = list(run.transcript)
    betweens = [(t, u) for t, (u, s) in enumerate(steps) if s is Outcome.B]
    for i, (t, u) in enumerate(betweens):
        for t2, v in betweens[i + 1:]:
            if comparable(u, v):
                raise PropertyViolation(
                    LEMMA_4_3, "two B answers on one root-to-leaf path",
                    {"first": (t, u), "second": (t2, v)},
                )
    for t, u in betweens:
        for t2 in range(t + 1, len(steps)):
            v = steps[t2][0]
            if comparable(u, v):
                raise PropertyViolation(
                    LEMMA_4_3, "a query on a path through a node answered B, after the B",
                    {"between": (t, u), "later_query": (t2, v, steps[t2][1])},
                )


@claim("Lemma B.2")
def check_lemma_b_2(tree: PublicTree, leaves: Sequence[Node], run: RunRecord) -> None:
    """Lemma B.2, Eq. (40): `|Q+| <= sum_{u in Q} c_u <= n L`, with `Q` the queried nodes and
    `Q+` those of positive count."""
    counts = path_counts(leaves)
    queried = {u for u, _ in run.transcript}
    positive = sum(1 for u in queried if counts.get(u, 0) > 0)
    total = sum(counts.get(u, 0) for u in queried)
    bound = len(leaves) * path_query_bound(tree.height)
    if not positive <= total <= bound:
        raise PropertyViolation(
            LEMMA_B_2, "|Q+| <= sum of queried counts <= n L fails",
            {"Q+": positive, "sum_counts": total, "n": len(leaves),
             "L": path_query_bound(tree.height), "nL": bound},
        )


@claim("Lemma B.3")
def check_lemma_b_3(tree: PublicTree, run: RunRecord, *, log: bool = True) -> None:
    """Lemma B.3: each node is queried at most once, so at most `N = |V|` GuardedBT calls; with
    `log=True` exactly `N` marking assignments (every node written once, Lemma B.1)."""
    seen: dict[Node, int] = {}
    for t, (u, _) in enumerate(run.transcript):
        if u in seen:
            raise PropertyViolation(
                LEMMA_B_3, "a node is queried twice", {"node": u, "steps": (seen[u], t)}
            )
        seen[u] = t
    size = tree.size()
    if len(run.transcript) > size:
        raise PropertyViolation(
            LEMMA_B_3, "more GuardedBT calls than nodes",
            {"calls": len(run.transcript), "N": size},
        )
    if log and len(run.assignments) != size:
        raise PropertyViolation(
            LEMMA_B_3, "the number of marking assignments is not N",
            {"assignments": len(run.assignments), "N": size},
        )


@claim("Alg. 2 (DepO)")
def check_depo(order: Sequence[int], height: int) -> None:
    """Alg. 2: `order` is a permutation of `0..h-1` that lists, for every recursive interval
    `[i, j]` (starting from `[0, h-1]`), first its middle `m = i + floor((j - i + 1)/2)`, then
    the interval `[m+1, j]`, then `[i, m-1]`, each as one contiguous block. Checked on the
    structure (block boundaries and first elements), never by calling `depo`. The witness is
    the shortest interval whose block is wrong."""
    items = list(order)
    if sorted(items) != list(range(height)):
        missing = sorted(set(range(height)) - set(items))
        extra = sorted({x for x in items if items.count(x) > 1 or not 0 <= x < height})
        raise PropertyViolation(
            DEPO, f"not a permutation of 0..{height - 1}",
            {"order": items, "missing": missing, "repeated_or_out_of_range": extra},
        )
    worst: tuple[int, int, int, list[int]] | None = None
    stack = [(0, height - 1, 0)]
    while stack:
        i, j, start = stack.pop()
        if i > j:
            continue
        m = i + (j - i + 1) // 2
        block = items[start:start + j - i + 1]
        if block[0] != m or sorted(block) != list(range(i, j + 1)):
            if worst is None or j - i < worst[1] - worst[0]:
                worst = (i, j, m, block)
            continue
        stack.append((m + 1, j, start + 1))
        stack.append((i, m - 1, start + 1 + j - m))
    if worst is not None:
        i, j, m, block = worst
        raise PropertyViolation(
            DEPO, f"the block of interval [{i}, {j}] does not start at its middle {m} "
            "followed by the upper and then the lower half",
            {"interval": (i, j), "middle": m, "block": block, "order": items},
        )

