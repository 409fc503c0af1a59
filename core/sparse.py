"""The sparse implementation of BetweenCut (Appendix D): O(nh) time and space, needs τ >= E.

Only `V+ = {u : c_u >= 1}` is stored, level by level, as sorted integer prefix codes. The
traversal is Alg. 3's: the levels in DepO order, at each level the stored unlabelled nodes in
public order, each asked GuardedBT; the marking of Alg. 6 is done one level at a time on whole
arrays (MarkDown follows contiguous child ranges, MarkUp follows parent indices, both stopping
where Alg. 6 stops), so its total work stays O(m) with m = |V+| <= nh.

Omitted nodes are Light. With `τ >= E` every zero-count query of the dense algorithm is guarded
`L` and draws no noise, so the noisy queries reach the `NoisyTest` in the same order with the
same arguments as in the dense run: under a shared test both give the same labels (Prop. D.1).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from betweencut.betweencut import Step
from betweencut.depo import depth_order
from betweencut.errors import ParameterError
from betweencut.guarded_bt import GuardedBT
from betweencut.noisy_test import NoisyTest, Outcome
from betweencut.params import Params
from betweencut.sampler import ExactSampler
from betweencut.tree import Node, PublicTree

IntArray = npt.NDArray[np.int64]
_UNKNOWN, _LIGHT, _HEAVY = 0, 1, 2
_LABEL_OF = {Outcome.L: _LIGHT, Outcome.H: _HEAVY}


@dataclass
class Level:
    """The stored nodes of one depth: sorted prefix codes, counts, parent index, child ranges."""

    ids: IntArray
    counts: IntArray
    parent: IntArray
    child_start: IntArray = field(default_factory=lambda: np.zeros(1, np.int64))
    label: npt.NDArray[np.int8] = field(default_factory=lambda: np.zeros(0, np.int8))


@dataclass(frozen=True)
class Encoding:
    """Mixed-radix codes of paths: digit `j` (child index at depth j) is stored as
    `index + shift` in radix `radix[j]`; `shift = 1` leaves 0 for "record ended"."""

    radix: tuple[int, ...]
    shift: int

    @staticmethod
    def of(tree: PublicTree) -> Encoding:
        shift = int(tree.end_of_record)
        radix = tuple(tree.max_arity(j) + shift for j in range(tree.height - 1))
        total = 1
        for r in radix:
            total *= max(r, 1)
        if total >= 1 << 62:
            raise ParameterError(
                "tree", tree.description,
                "a tree whose leaf paths fit in 62 bits for the sparse implementation",
            )
        return Encoding(radix, shift)

    def weights(self) -> list[int]:
        """`W[j]`: the place value of digit `j`."""
        out, w = [0] * len(self.radix), 1
        for j in range(len(self.radix) - 1, -1, -1):
            out[j] = w
            w *= self.radix[j]
        return out

    def encode(self, leaves: Iterable[Node]) -> IntArray:
        weights = self.weights()
        return np.fromiter(
            (sum((c + self.shift) * weights[j] for j, c in enumerate(leaf)) for leaf in leaves),
            dtype=np.int64,
        )

    def decode(self, depth: int, prefix: int) -> Node:
        digits = []
        for j in range(depth - 1, -1, -1):
            prefix, digit = divmod(prefix, self.radix[j])
            digits.append(digit - self.shift)
        return tuple(reversed(digits))


def build_levels(keys: IntArray, encoding: Encoding, height: int) -> list[Level]:
    """Appendix D, "Implementation": the stored tree T+ with exact counts, one `Level` a depth."""
    keys = np.sort(keys, kind="stable")
    weights = encoding.weights()
    levels = [Level(np.zeros(1, np.int64), np.array([len(keys)], np.int64), np.full(1, -1))]
    for d in range(1, height):
        prefix = keys // weights[d - 1]
        if encoding.shift:
            prefix = prefix[prefix % encoding.radix[d - 1] != 0]
        if prefix.size == 0:
            break
        new = np.empty(prefix.size, dtype=bool)
        new[0] = True
        np.not_equal(prefix[1:], prefix[:-1], out=new[1:])
        starts = np.flatnonzero(new)
        ids = prefix[starts]
        counts = np.diff(np.append(starts, prefix.size))
        parent = np.searchsorted(levels[-1].ids, ids // encoding.radix[d - 1])
        levels.append(Level(ids, counts.astype(np.int64), parent.astype(np.int64)))
    for d, level in enumerate(levels):
        level.label = np.zeros(level.ids.size, np.int8)
        if d + 1 < len(levels):
            nxt = levels[d + 1].parent
            level.child_start = np.searchsorted(nxt, np.arange(level.ids.size + 1)).astype(np.int64)
        else:
            level.child_start = np.zeros(level.ids.size + 1, np.int64)
    return levels


def _ranges(starts: IntArray, stops: IntArray) -> IntArray:
    """The concatenation of `range(starts[i], stops[i])`, vectorised."""
    lengths = stops - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, np.int64)
    offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
    return offsets + np.arange(total, dtype=np.int64)


def _mark_down(levels: list[Level], d: int, frontier: IntArray) -> None:
    """MarkDown (Alg. 6) from the nodes `frontier` of depth `d`, all at once."""
    while frontier.size:
        level = levels[d]
        frontier = frontier[level.label[frontier] != _LIGHT]
        level.label[frontier] = _LIGHT
        if d + 1 >= len(levels):
            return
        frontier = _ranges(level.child_start[frontier], level.child_start[frontier + 1])
        d += 1


def _mark_up(levels: list[Level], d: int, frontier: IntArray) -> None:
    """MarkUp (Alg. 6) from the nodes `frontier` of depth `d`, all at once."""
    while frontier.size and d >= 0:
        level = levels[d]
        frontier = frontier[level.label[frontier] != _HEAVY]
        level.label[frontier] = _HEAVY
        frontier = np.unique(level.parent[frontier])
        d -= 1


@dataclass(frozen=True)
class SparseRun:
    """The result of the sparse run: Heavy prefix codes per depth, and the query log if asked."""

    heavy_ids: tuple[IntArray, ...]
    encoding: Encoding
    transcript: tuple[Step, ...] | None
    noisy_calls: int
    stored_nodes: int

    @property
    def heavy(self) -> frozenset[Node]:
        return frozenset(
            self.encoding.decode(d, int(i)) for d, ids in enumerate(self.heavy_ids) for i in ids
        )


def sparse_between_cut_codes(
    keys: IntArray,
    encoding: Encoding,
    height: int,
    params: Params,
    test: NoisyTest | None = None,
    *,
    record: bool = False,
) -> SparseRun:
    """Appendix D on records given as leaf codes of `encoding` (the fast entry point)."""
    margin = params.margin
    if margin.compare(params.tau) > 0:
        raise ParameterError(
            "tau", params.tau, f"tau >= E = {margin.exact_str()} ~ {margin.approx():.4g}",
            "the sparse implementation equals Alg. 3 only when tau >= E (Prop. D.1); "
            "use the dense one",
        )
    if keys.size == 0:
        return SparseRun((), encoding, () if record else None, 0, 0)
    noisy = test if test is not None else ExactSampler()
    levels = build_levels(keys, encoding, height)
    query = GuardedBT.of(params.a, params.b, params.R, params.lam)
    transcript: list[Step] = []
    calls = 0
    for d in depth_order(height):
        if d >= len(levels):
            continue
        level = levels[d]
        todo = np.flatnonzero(level.label == _UNKNOWN)
        if todo.size == 0:
            continue
        counts = level.counts[todo]
        outcome = np.where(counts <= query.lower_cut, _LIGHT, 0).astype(np.int8)
        outcome[counts >= query.upper_cut] = _HEAVY
        between = np.zeros(todo.size, dtype=bool)
        for i in np.flatnonzero(outcome == 0):
            node = encoding.decode(d, int(level.ids[todo[i]]))
            s = noisy(query.query(int(counts[i]), node))
            calls += 1
            if s is Outcome.B:
                between[i] = True
                outcome[i] = _LIGHT
            else:
                outcome[i] = _LABEL_OF[s]
        if record:
            names = {_LIGHT: Outcome.L, _HEAVY: Outcome.H}
            for i, j in enumerate(todo):
                s = Outcome.B if between[i] else names[int(outcome[i])]
                transcript.append((encoding.decode(d, int(level.ids[j])), s))
        heavy = todo[outcome == _HEAVY]
        _mark_up(levels, d, heavy)
        if d > 0:
            _mark_up(levels, d - 1, np.unique(level.parent[todo[between]]))
        _mark_down(levels, d, todo[outcome == _LIGHT])
    heavy_ids = tuple(level.ids[level.label == _HEAVY] for level in levels)
    stored = sum(level.ids.size for level in levels)
    return SparseRun(heavy_ids, encoding, tuple(transcript) if record else None, calls, stored)


def sparse_between_cut(
    tree: PublicTree,
    leaves: Sequence[Node],
    params: Params,
    test: NoisyTest | None = None,
    *,
    record: bool = False,
) -> SparseRun:
    """Appendix D: BetweenCut storing only nodes with a positive count. Requires `τ >= E`."""
    encoding = Encoding.of(tree)
    return sparse_between_cut_codes(
        encoding.encode(leaves), encoding, tree.height, params, test, record=record
    )
