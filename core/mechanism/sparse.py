"""The sparse implementation of BetweenCut (Appendix D): O(nh) time and space, needs τ >= E.

Only `V+ = {u : c_u >= 1}` is stored, level by level, as sorted integer prefix codes. The
traversal is Alg. 3's: the levels in DepO order, at each level the stored unlabelled nodes in
public order, each asked GuardedBT; the marking of Alg. 6 is done one level at a time on whole
arrays (MarkDown follows contiguous child ranges, MarkUp finds parents by binary search in
the parent level's child ranges, both stopping where Alg. 6 stops), so its total work stays
O(m log m) at worst, with m = |V+| <= nh, and O(m) plus O(log m) per Heavy node in practice.
The records are sorted once (numpy); every level is then built from the one below in O(its size).

Omitted nodes are Light. With `τ >= E` every zero-count query of the dense algorithm is guarded
`L` and draws no noise, so the noisy queries reach the `NoisyTest` in the same order with the
same arguments as in the dense run: under a shared test both give the same labels (Prop. D.1).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from betweencut.data.tree import Node, PublicTree
from betweencut.data.validate import check_leaves
from betweencut.errors import ParameterError
from betweencut.mechanism.betweencut import Step, check_run_arguments
from betweencut.mechanism.depo import depth_order
from betweencut.mechanism.guarded_bt import GuardedBT
from betweencut.mechanism.params import Params
from betweencut.noise.bt_sampler import ExactSampler
from betweencut.noise.noisy_test import NoisyTest, Outcome, checked_outcome

IntArray = npt.NDArray[np.int64]
_UNKNOWN, _LIGHT, _HEAVY = 0, 1, 2
_BETWEEN = 3  # an answer B: the node is labelled Light, its parent's path Heavy
_CODE_OF = {Outcome.L: _LIGHT, Outcome.H: _HEAVY, Outcome.B: _BETWEEN}
_DENSE_FRACTION = 8  # MarkDown switches to a level-wide mask past 1/8 of the level


@dataclass
class Level:
    """The stored nodes of one depth: sorted prefix codes, counts, and child ranges: the children
    of node `i` are `child_start[i]:child_start[i + 1]` of the next depth (a parent is found by
    binary search in its level's `child_start`)."""

    ids: IntArray
    counts: IntArray
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
        # digit 0 = "record ended": needed whenever a leaf may sit above depth h - 1
        shift = int(not tree.leaves_at_full_depth)
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

    def decode_many(self, depth: int, prefixes: IntArray) -> list[Node]:
        """`decode` of many prefix codes of one depth, vectorised."""
        digits = np.empty((prefixes.size, depth), np.int64)
        rest = prefixes.copy()
        for j in range(depth - 1, -1, -1):
            rest, digits[:, j] = np.divmod(rest, self.radix[j])
        if self.shift:
            digits -= self.shift
        return [tuple(row) for row in digits.tolist()]


def build_levels(keys: IntArray, encoding: Encoding, height: int) -> list[Level]:
    """Appendix D, "Implementation": the stored tree T+ with exact counts, one `Level` a depth.

    One sort, then bottom-up over the distinct codes: at each depth the parents' codes (one digit
    dropped), their runs giving the child ranges, and each node's first position in the sorted
    records giving the counts (differences of positions). Each level costs O(its size), not O(n).
    With end-of-record (`shift = 1`) a code whose last digit is 0 is a record that already ended:
    it is carried up for the counts but not stored.
    """
    keys = np.sort(keys)
    n = keys.size
    root = Level(np.zeros(1, np.int64), np.array([n], np.int64))
    levels = [root]
    if height > 1 and n > 0:
        starts = _run_starts(keys)
        ids, first = keys[starts[:-1]], starts  # first[i]: where node i's records begin; + n
        # for depth d = h-1 .. 1, all codes (ended ones included), their counts, and the child
        # ranges of depth d - 1 over them (the runs of their parents' codes); the counts are
        # taken while `first` is at hand, so that only one `first` array is alive at a time
        by_depth: list[tuple[IntArray, IntArray, IntArray]] = []
        for d in range(height - 1, 0, -1):
            up = _drop_digit(ids, encoding.radix[d - 1])
            starts = _run_starts(up)
            by_depth.append((ids, np.diff(first), starts))
            ids, first = up[starts[:-1]], first[starts]
        by_depth.reverse()
        keep_prev: npt.NDArray[np.bool_] = np.ones(1, dtype=bool)
        for d, (ids, counts, child_ranges) in enumerate(by_depth, start=1):
            if not encoding.shift:
                levels[-1].child_start = child_ranges
                levels.append(Level(ids, counts))
                continue
            keep = ids % encoding.radix[d - 1] != 0
            kept_before = np.zeros(ids.size + 1, np.int64)
            np.cumsum(keep, out=kept_before[1:])
            ranges = kept_before[child_ranges]  # over the stored nodes of depth d
            if ranges[-1] == 0:
                break
            levels[-1].child_start = np.append(ranges[np.flatnonzero(keep_prev)], ranges[-1])
            levels.append(Level(ids[keep], counts[keep]))
            keep_prev = keep
    for level in levels:
        level.label = np.zeros(level.ids.size, np.int8)
    levels[-1].child_start = np.zeros(levels[-1].ids.size + 1, np.int64)
    return levels


def _drop_digit(codes: IntArray, radix: int) -> IntArray:
    """`codes // radix` (codes are >= 0): a shift when the radix is a power of two."""
    if radix & (radix - 1) == 0:
        return codes >> (radix.bit_length() - 1)
    return codes // radix


def _run_starts(sorted_codes: IntArray) -> IntArray:
    """Where each run of equal values of a sorted array starts, then its length (a sentinel)."""
    new = np.empty(sorted_codes.size + 1, dtype=bool)
    new[0] = new[-1] = True
    np.not_equal(sorted_codes[1:], sorted_codes[:-1], out=new[1:-1])
    return np.flatnonzero(new)


def _parents(levels: list[Level], d: int, nodes: IntArray) -> IntArray:
    """The distinct parents (indices at depth `d - 1`) of sorted node indices at depth `d`."""
    parents = np.searchsorted(levels[d - 1].child_start, nodes, side="right") - 1
    return np.unique(parents)


def _ranges(starts: IntArray, stops: IntArray) -> IntArray:
    """The concatenation of `range(starts[i], stops[i])`, vectorised."""
    lengths = stops - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, np.int64)
    offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
    return offsets + np.arange(total, dtype=np.int64)


def _mark_down(levels: list[Level], d: int, frontier: IntArray) -> None:
    """MarkDown (Alg. 6) from the nodes `frontier` of depth `d`, all at once.

    A small frontier is followed as an index array; once it is a large part of its level it is
    followed as a boolean mask over the level (children of a mask: `np.repeat` by child counts),
    which labels the same nodes with cheaper whole-array passes.
    """
    mask: npt.NDArray[np.bool_] | None = None
    while True:
        level = levels[d]
        if mask is None and frontier.size * _DENSE_FRACTION < level.ids.size:
            frontier = frontier[level.label[frontier] != _LIGHT]
            if frontier.size == 0:
                return
            level.label[frontier] = _LIGHT
            if d + 1 >= len(levels):
                return
            frontier = _ranges(level.child_start[frontier], level.child_start[frontier + 1])
        else:
            if mask is None:
                mask = np.zeros(level.ids.size, dtype=bool)
                mask[frontier] = True
            mask &= level.label != _LIGHT
            if not mask.any():
                return
            level.label[mask] = _LIGHT
            if d + 1 >= len(levels):
                return
            mask = _children_mask(mask, level.child_start)
        d += 1


def _children_mask(mask: npt.NDArray[np.bool_],
                   child_start: IntArray) -> npt.NDArray[np.bool_]:
    """The children of the nodes in `mask`, as a mask over the next level:
    `np.repeat(mask, np.diff(child_start))`. A MarkDown mask is mostly long runs (whole subtrees
    of a Light level), so it is expanded run by run, far faster than node by node; a mask of many
    short runs is expanded node by node."""
    change = np.flatnonzero(mask[1:] != mask[:-1]) + 1
    if change.size * _DENSE_FRACTION >= mask.size:
        return np.repeat(mask, np.diff(child_start))
    starts = np.concatenate(([0], change))
    stops = np.append(change, mask.size)
    return np.repeat(mask[starts], child_start[stops] - child_start[starts])


def _mark_up(levels: list[Level], d: int, frontier: IntArray) -> None:
    """MarkUp (Alg. 6) from the nodes `frontier` of depth `d`, all at once."""
    while frontier.size:
        level = levels[d]
        frontier = frontier[level.label[frontier] != _HEAVY]
        level.label[frontier] = _HEAVY
        if d == 0 or frontier.size == 0:
            return
        frontier = _parents(levels, d, frontier)
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
    return run_levels(build_levels(keys, encoding, height), encoding, height, params, test,
                      record=record)


def run_levels(
    levels: list[Level],
    encoding: Encoding,
    height: int,
    params: Params,
    test: NoisyTest | None = None,
    *,
    record: bool = False,
) -> SparseRun:
    """Alg. 3's traversal and Alg. 6's marking over stored levels (the one copy of the loop).

    `levels[d]` holds the stored nodes of depth `d` (sorted codes, exact counts, child ranges
    into `levels[d + 1]`), a prefix-closed set; every node not stored must be one that GuardedBT
    labels `L` without noise (its count is at most `floor(a - R)`) and whose descendants are
    likewise, so omitting it changes no label of a stored node (Appendix D; the engines use a
    larger cut, see `betweencut.engines.common`).
    """
    noisy = test if test is not None else ExactSampler()
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
        asked = np.flatnonzero(outcome == 0)
        nodes = encoding.decode_many(d, level.ids[todo[asked]])
        answers = [_CODE_OF[checked_outcome(noisy(query.query(count, node)))]  # Alg. 3, l. 8
                   for node, count in zip(nodes, counts[asked].tolist(), strict=True)]
        calls += len(answers)
        if answers:
            codes = np.array(answers, np.int8)
            between[asked] = codes == _BETWEEN
            outcome[asked] = np.where(codes == _BETWEEN, _LIGHT, codes)
        if record:
            names = {_LIGHT: Outcome.L, _HEAVY: Outcome.H}
            for i, j in enumerate(todo):
                s = Outcome.B if between[i] else names[int(outcome[i])]
                transcript.append((encoding.decode(d, int(level.ids[j])), s))
        heavy = todo[outcome == _HEAVY]
        _mark_up(levels, d, heavy)
        if d > 0:
            _mark_up(levels, d - 1, _parents(levels, d, todo[between]))
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
    """Appendix D: BetweenCut storing only nodes with a positive count. Requires `τ >= E`.

    Every argument is checked first: `tree` a `PublicTree`, `params` a `Params`, `test` a
    `NoisyTest` or None, and every record a leaf of the public tree (`RecordError` otherwise)."""
    check_run_arguments(tree, params, test)
    encoding = Encoding.of(tree)
    leaves = check_leaves(tree, leaves)
    return sparse_between_cut_codes(
        encoding.encode(leaves), encoding, tree.height, params, test, record=record
    )
