"""The answer sequences on the added record's path, grouped by probability (issue 13, Part 1).

For neighbours `D` and `D' = D + z` only the nodes of z's root-to-leaf path `P_z` have different
counts (Eq. 4). When every node off that path is decided by its guard (Alg. 1, l. 1-4) under both
databases, the transcript `Tr(D)` (Eq. 112) is a function of the answers on the path alone, and
by DepO (Alg. 2) and the marking (Alg. 6) the path is asked like a binary search: on the depth
interval `[i, j]` still open, DepO asks depth `m = i + ⌊(j - i + 1)/2⌋` first; `H` marks every
ancestor Heavy (the search goes on in `[m + 1, j]`), `L` marks every descendant Light (it goes on
in `[i, m - 1]`), `B` marks the parent and above Heavy and `m` and below Light (the search ends).
So at most `L = ⌈log2(h + 1)⌉` answers per path (Lemma 4.2), nothing after a `B` (Lemma 4.3), and
the map "answer sequence on the path -> transcript" is one-to-one: the off-path entries are
deterministic given the path answers, the same under `D` and `D'`.

`path_signatures` counts those answer sequences by *signature*: for each count segment of the
path, how many `L`, `B` and `H` answers fall in it. Two sequences with one signature have the same
probability under `D` and under `D'` (a product of per-answer law values), so the privacy profile
is a sum over signatures weighted by their multiplicities. The recursion is over DepO intervals,
memoised on `(length, segment)` for intervals inside one count segment: only `O(log h)` distinct
lengths per recursion level, so the cost is polynomial in `L` (and the number of segments),
never in `h`; `h` may be any integer up to `2^64 - 1` (or larger).

What this module models and what it refuses. It models Alg. 3's `level_order` (DepO) and `apply`
(the marking of Alg. 6) and the main loop `run`: `check_seams` refuses any mechanism overriding
one of them, wherever it is set (its class, its instance dictionary, a patched base: checked on
the constructed object by `betweencut.boundary.seams`), since answering for it would be
answering for code that does not run. The count query
(`make_query`) is *not* modelled: the laws are read off the query object the mechanism itself
built (`BetweenCut(tree, params).count_query`), through its own `guard` and `query`. The tests
prove the grouping equal, answer law by answer law, to the full enumeration of the real code
(`betweencut.proofs.privacy.enumeration.transcripts`) on small trees and on chains and sparse runs
of moderate height (`tests/proofs/privacy/depth/test_privacy_depth.py`).
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from betweencut.boundary.seams import overrides, refusal
from betweencut.data.notation import EMPTY_RECORD, database_text, run_text
from betweencut.data.tree import Node
from betweencut.errors import ParameterError, public_height
from betweencut.mechanism.betweencut import SEAMS as BETWEENCUT_SEAMS
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.mechanism.guarded_bt import BT
from betweencut.mechanism.guarded_bt import SEAMS as QUERY_SEAMS
from betweencut.noise.noisy_test import Outcome

__all__ = [
    "MAX_HEIGHT", "OUTCOME_INDEX", "PathProfile", "Search", "Signature", "check_seams",
    "interval_key", "interval_search", "midpoint", "path_signatures", "sequence_count",
]

MAX_HEIGHT = (1 << 64) - 1
Signature = tuple[int, ...]  # segment k: counts of L, B, H at indices 3k, 3k + 1, 3k + 2
OUTCOME_INDEX = {Outcome.L: 0, Outcome.B: 1, Outcome.H: 2}
MODELLED_SEAMS = ("level_order", "apply", "run")


def midpoint(i: int, j: int) -> int:
    """The first depth DepO(i, j) asks (Alg. 2, l. 3); `tests` check it against `depo`."""
    return i + (j - i + 1) // 2


def interval_key(profile: PathProfile, i: int, j: int) -> tuple[int, int, int]:
    """The memo key of the search over depths `i..j`: inside one segment only the length and
    the segment matter (the laws are the same at every depth of it), else the interval."""
    k_i, k_j = profile.segment(i), profile.segment(j)
    return (0, j - i + 1, k_i) if k_i == k_j else (1, i, j)


T = TypeVar("T")
Search = Callable[[int, int], T]


def interval_search(
    profile: PathProfile, empty: T,
    step: Callable[[int, int, int, int, Search[T]], T],
) -> Search[T]:
    """DepO's binary search down the path (Alg. 2), memoised by interval class: `search(i, j)`
    is `empty` for `i > j`, else `step(i, j, m, k, search)` at the midpoint `m` of segment
    `k`, computed once per `interval_key` (the one copy of the memo, for the signatures of
    the transcript and the Heavy sets alike; at most `O(segments² · log h)` intervals)."""
    memo: dict[tuple[int, int, int], T] = {}

    def search(i: int, j: int) -> T:
        if i > j:
            return empty
        key = interval_key(profile, i, j)
        found = memo.get(key)
        if found is None:
            m = midpoint(i, j)
            found = memo[key] = step(i, j, m, profile.segment(m), search)
        return found

    return search


@dataclass(frozen=True)
class PathProfile:
    """Counts along z's path under `D`: `steps[k] = (d_k, c_k)` means the path nodes of depths
    `d_k <= d < d_{k+1}` hold `c_k` records (`d_0 = 0`, depths increasing, counts non-increasing
    since a node holds its child's records). `D' = D + z` adds one record on every path node.

    Realisation (what database this is): `c_last` records on the leaf `z`, and for every step
    `k >= 1` the `s_k = c_{k-1} - c_k` extra records on one leaf below a sibling of the path node
    of depth `d_k` (a tree of arity >= 2); every other node has count 0. `check_offpath` decides
    whether that database has every off-path node decided by its guard.
    """

    height: int
    steps: tuple[tuple[int, int], ...]

    def __post_init__(self) -> None:
        h = public_height(self.height)
        if h > MAX_HEIGHT:
            raise ParameterError("height", h, f"1 <= h <= 2^64 - 1 = {MAX_HEIGHT}")
        if not self.steps or self.steps[0][0] != 0:
            raise ParameterError("steps", self.steps, "a non-empty list starting at depth 0")
        last_d, last_c = -1, None
        for d, c in self.steps:
            if not (isinstance(d, int) and isinstance(c, int)) or isinstance(c, bool):
                raise ParameterError("steps", self.steps, "(depth, count) pairs of integers")
            if not last_d < d < h:
                raise ParameterError("steps", self.steps, f"depths increasing inside 0..{h - 1}")
            if c < 0 or (last_c is not None and c > last_c):
                raise ParameterError(
                    "steps", self.steps, "counts >= 0, non-increasing along the path",
                    "a node holds all the records of its children")
            if last_c == c:
                raise ParameterError("steps", self.steps, "a real change of count at every step")
            last_d, last_c = d, c

    @staticmethod
    def single_leaf(height: int, count: int) -> PathProfile:
        """`D` = `count` records on one leaf (the leaf of `z`)."""
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise ParameterError("count", count, "an integer C >= 0")
        return PathProfile(height, ((0, count),))

    @property
    def segments(self) -> int:
        return len(self.steps)

    @property
    def counts(self) -> tuple[int, ...]:
        return tuple(c for _, c in self.steps)

    def segment(self, depth: int) -> int:
        """The index of the count segment holding `depth`."""
        return bisect.bisect_right(self._starts, depth) - 1

    @property
    def _starts(self) -> list[int]:
        return [d for d, _ in self.steps]

    def siblings(self) -> list[tuple[int, int]]:
        """`(d_k, s_k)`: the depth of the sibling subtree and the records it holds."""
        return [(self.steps[k][0], self.steps[k - 1][1] - self.steps[k][1])
                for k in range(1, len(self.steps))]

    def database(self) -> tuple[tuple[Node, ...], Node]:
        """The realising `(D, z)` on any tree of arity >= 2 of this height (child 0 on the path,
        child 1 for the siblings); for a one-segment profile any arity, the chain included."""
        h = self.height
        z: Node = (0,) * (h - 1)
        leaves: list[Node] = [z] * self.steps[-1][1]
        for d, s in self.siblings():
            leaves += [(0,) * (d - 1) + (1,) + (0,) * (h - 1 - d)] * s
        return tuple(sorted(leaves)), z

    def describe(self) -> str:
        return ", ".join(f"depth {d}+: {c}" for d, c in self.steps)

    def texts(self) -> tuple[str, str]:
        """`(D, z)` of `database()` in the package's notation (`betweencut.data.notation`), written
        without building a record: a leaf at depth `2^64 - 2` is `0^18446744073709551614`."""
        h = self.height
        z = run_text(0, h - 1)
        counts: Counter[str] = Counter()
        if self.steps[-1][1]:
            counts[z] += self.steps[-1][1]
        for d, s in self.siblings():
            parts = [run_text(0, d - 1), "1", run_text(0, h - 1 - d)]
            counts["/".join(p for p in parts if p != EMPTY_RECORD)] += s
        return database_text(counts), z


def check_seams(mechanism: BetweenCut) -> BT:
    """The count query of `mechanism`, after refusing the seams the path DP does not model.

    Checked on the constructed object (`betweencut.boundary.seams.overrides`: its instance
    dictionary, every class of its MRO, traps such as `__getattr__`, the base patched after
    import), not only on its class. Raises: `ParameterError` naming the seam and where it was
    set if `level_order`, `apply` or `run` is not Alg. 3's (the DP is DepO + Alg. 6 marking +
    Alg. 3's loop), or if its count query's call is not `BT.__call__` (guard first, then one
    noisy test) or its `query` is not `BT.query` or `GuardedBT.query` (another may read the
    node). A `make_query` returning such an object is modelled exactly, through the law its
    real call is observed to have at each count
    (`betweencut.proofs.privacy.depth.transcript.law_at`).
    """
    name = type(mechanism).__name__
    found = overrides(mechanism, BETWEENCUT_SEAMS, MODELLED_SEAMS)
    if found:
        raise ParameterError(
            "mechanism", name, f"a BetweenCut that keeps Alg. 3's {found[0].seam}",
            f"{refusal(found, name)}; the depth audit models Alg. 3's own level_order, apply "
            "and run: "
            "enumerate this variant on a small tree with audit_mechanism instead")
    query = mechanism.count_query
    found = overrides(query, QUERY_SEAMS, ("__call__", "query"))
    if found:
        # `query(count, node)` may read the node, and the path grouping has one law per count.
        raise ParameterError(
            "mechanism", name, "a count query that is a BT calling guard, then one noisy test "
            "that does not depend on the node (BT.__call__; BT.query or GuardedBT.query)",
            refusal(found, f"its count query {type(query).__name__}"))
    return query


def path_signatures(
    profile: PathProfile, support: Callable[[int], tuple[Outcome, ...]]
) -> Counter[Signature]:
    """Every answer sequence of the path search with its signature, counted.

    Preconditions: `support(k)` lists the outcomes of positive probability under `D` or `D'`
    at a path node of segment `k` (an answer impossible under both is never taken).
    Returns: `Counter` signature -> number of answer sequences with it. With full support on
    one segment the counts sum to `2h + 1` (one sequence per `B` position, plus the `h + 1`
    sequences without `B`).
    """
    width = 3 * profile.segments
    zero: Signature = (0,) * width
    supports = [support(k) for k in range(profile.segments)]

    def unit(sig: Signature, k: int, s: Outcome) -> Signature:
        i = 3 * k + OUTCOME_INDEX[s]
        return (*sig[:i], sig[i] + 1, *sig[i + 1:])

    def step(i: int, j: int, m: int, k: int, search: Search[Mapping[Signature, int]]
             ) -> Mapping[Signature, int]:
        out: Counter[Signature] = Counter()
        for s in supports[k]:
            if s is Outcome.B:
                out[unit(zero, k, s)] += 1
                continue
            rest = search(i, m - 1) if s is Outcome.L else search(m + 1, j)
            for sig, n in rest.items():
                out[unit(sig, k, s)] += n
        return out

    empty: Mapping[Signature, int] = {zero: 1}
    search = interval_search(profile, empty, step)
    return Counter(search(0, profile.height - 1))


def sequence_count(height: int) -> int:
    """The number of answer sequences of the path search with every answer possible: `2h + 1`."""
    return 2 * public_height(height) + 1
