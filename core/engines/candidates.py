"""The candidates an engine returns, and the exact stage over them (issue 25: no refusal).

An engine hands its candidates (the nodes with `c_u > floor(a - R)`, see
`betweencut.engines.common`) to a `CandidateSink` depth by depth; the exact stage then runs the
one traversal of Appendix D (`betweencut.mechanism.sparse.run_levels`) on their levels. Nothing here
refuses because of the candidates' number: up to `max_candidates` they are held in memory,
beyond it every depth is written to a file of a private temporary directory and mapped back
(`numpy.memmap`), so the traversal reads them from disk through the page cache. Where they live
changes the time a run takes, never its release: the same arrays, in the same order, reach the
same `run_levels`, and the Heavy set under a shared `NoisyTest` is the same
(`tests/core/engines/test_engines.py` builds two neighbouring inputs on either side of the budget
and checks
both release the in-memory Heavy set). `max_candidates` is public (a configuration), and the
error messages here carry depths and parameters, never a count of the data.

Memory, as a function of public inputs. Let `h` be the height, `r` the radix of the encoding
(the arity, plus 1 for trees whose records may end early), `cut = floor(a - R)` (from tau, E and
the calibration), and `N` any public upper bound on the number of records the user knows (it
need not be stated: it only sizes the run). Depth `d` holds at most
`m_d = min(r^d, floor(N / (cut + 1)))` candidates (its counts add up to at most `N`, each exceeds
`cut`), in all `M = sum_{d < h} m_d <= N h / (cut + 1)` (`candidate_bound`). A candidate takes
25 bytes (code, count and child offset as int64, label as int8):

- `M <= max_candidates`: about `25 M` bytes, plus the transient arrays of one depth while it is
  fetched and traversed (about `40 m_d` bytes: the engine's answer for that depth, the
  traversal's index arrays, and the node tuples of the queries it asks).
- otherwise: `25 M` bytes on disk (in `tempfile.gettempdir()`, removed at the end) and in memory
  only the transient arrays of one depth, about `40 max_d m_d` bytes; the page cache holds what
  it can of the files and gives it back under pressure.

The counting engines themselves spill too (DuckDB's `memory_limit`, Spark's executors), so the
whole run needs memory of the order of the largest depth's candidates, never of the records
(Spark's driver also holds up to `LEAVES_AT_ONCE` = 2^18 leaf counts or `REFINE_GROUPS` = 2^16
prefix counts: some tens of MB while they arrive as Python rows).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import numpy as np
import numpy.typing as npt

from betweencut.engines.common import EngineError, Progress, TreeCodec, candidate_cut
from betweencut.errors import ParameterError
from betweencut.mechanism.params import Params
from betweencut.mechanism.sparse import Encoding, Level, SparseRun, run_levels
from betweencut.noise.noisy_test import NoisyTest

IntArray = npt.NDArray[np.int64]
DEFAULT_MAX_CANDIDATES = 50_000_000  # 1.25 GB of candidates in memory, then on disk
CHUNK = 1 << 20  # nodes per step of the chunked passes over a level
Allocate = Callable[[str, int, type], npt.NDArray[Any]]


def check_max_candidates(max_candidates: object) -> int:
    """The public in-memory budget, validated (`DEFAULT_MAX_CANDIDATES` for None)."""
    if max_candidates is None:
        return DEFAULT_MAX_CANDIDATES
    if not isinstance(max_candidates, int) or isinstance(max_candidates, bool) \
            or max_candidates < 0:
        raise ParameterError("max_candidates", max_candidates, "an integer >= 0 (candidates "
                             "held in memory; beyond them the exact stage reads from disk)")
    return max_candidates


def candidate_bound(codec: TreeCodec, cut: int, records: int) -> int:
    """At most this many candidates for at most `records` records: `sum_d min(r^d,
    floor(records / (cut + 1)))` (public inputs only; see the module docstring)."""
    per_depth = records // (cut + 1)
    total, nodes = 0, 1
    for _ in range(codec.height):
        total += min(nodes, per_depth)
        nodes *= codec.encoding.radix[0] if codec.encoding.radix else 1
    return total


@dataclass
class Candidates:
    """The engine's answer: per depth, sorted prefix codes (of `Encoding`) and exact counts of
    the nodes with a count above the cut; a prefix-closed set. The arrays may be memory maps."""

    ids: list[IntArray] = field(default_factory=list)
    counts: list[IntArray] = field(default_factory=list)

    @property
    def size(self) -> int:
        return sum(a.size for a in self.ids)

    @staticmethod
    def from_rows(height: int, depth: IntArray, code: IntArray, count: IntArray) -> Candidates:
        """Group rows (depth, code, count) by depth; each depth's codes sorted ascending."""
        out = Candidates()
        for d in range(height):
            mask = depth == d
            ids = np.asarray(code[mask], dtype=np.int64)
            order = np.argsort(ids, kind="stable")
            out.ids.append(ids[order])
            out.counts.append(np.asarray(count[mask], dtype=np.int64)[order])
        return out


def _in_memory(_name: str, size: int, dtype: type) -> npt.NDArray[Any]:
    return np.zeros(size, dtype)


class CandidateSink:
    """Collects the candidates depth by depth: in memory up to `max_candidates`, then on disk.

    Use as a context manager (the temporary directory is removed on exit, with the files the
    exact stage read). `add(depth, ids, counts)` takes the next chunk of one depth; the chunks
    of a depth come in ascending code order (an engine breaking that is refused).
    """

    def __init__(self, height: int, max_candidates: int | None = None) -> None:
        self.height = height
        self.max_candidates = check_max_candidates(max_candidates)
        self.chunks: list[list[tuple[IntArray, IntArray]]] = [[] for _ in range(height)]
        self.sizes = [0] * height
        self.last = [-1] * height
        self.directory: str | None = None
        self.spilled = False

    def __enter__(self) -> CandidateSink:
        self.directory = tempfile.mkdtemp(prefix="betweencut-")
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.chunks = [[] for _ in range(self.height)]
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)
            self.directory = None

    @property
    def size(self) -> int:
        return sum(self.sizes)

    def path(self, name: str) -> str:
        if self.directory is None:
            raise EngineError("CandidateSink used outside its `with` block")
        return os.path.join(self.directory, name)

    def add(self, depth: int, ids: npt.ArrayLike, counts: npt.ArrayLike) -> None:
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        counts = np.ascontiguousarray(counts, dtype=np.int64)
        if not 0 <= depth < self.height or ids.shape != counts.shape or ids.ndim != 1:
            raise EngineError(f"the engine's candidates at depth {depth} do not fit the tree")
        if ids.size == 0:
            return
        if ids[0] <= self.last[depth] or (ids.size > 1 and not (np.diff(ids) > 0).all()):
            raise EngineError(f"the engine's candidates at depth {depth} are not in ascending "
                              "code order")
        self.last[depth] = int(ids[-1])
        self.sizes[depth] += ids.size
        if not self.spilled and self.size > self.max_candidates:
            self.spilled = True
            for d in range(self.height):
                for old_ids, old_counts in self.chunks[d]:
                    self._append(d, old_ids, old_counts)
                self.chunks[d] = []
        if self.spilled:
            self._append(depth, ids, counts)
        else:
            self.chunks[depth].append((ids, counts))

    def _append(self, depth: int, ids: IntArray, counts: IntArray) -> None:
        for name, array in (("ids", ids), ("counts", counts)):
            with open(self.path(f"{name}{depth}"), "ab") as handle:
                array.tofile(handle)

    def candidates(self) -> Candidates:
        """Every depth's codes and counts: arrays, or read-only memory maps once spilled."""
        out = Candidates()
        for d in range(self.height):
            if not self.sizes[d]:
                out.ids.append(np.zeros(0, np.int64))
                out.counts.append(np.zeros(0, np.int64))
            elif self.spilled:
                for name, into in (("ids", out.ids), ("counts", out.counts)):
                    into.append(np.memmap(self.path(f"{name}{d}"), np.int64, "r",
                                          shape=(self.sizes[d],)))
            else:  # one chunk a depth from now on (held once)
                self.chunks[d] = [(np.concatenate([c[0] for c in self.chunks[d]]),
                                   np.concatenate([c[1] for c in self.chunks[d]]))]
                out.ids.append(self.chunks[d][0][0])
                out.counts.append(self.chunks[d][0][1])
        return out

    def allocate(self, name: str, size: int, dtype: type) -> npt.NDArray[Any]:
        """A zeroed array for the exact stage: in memory, or a writable map once spilled."""
        if not self.spilled or size == 0:
            return np.zeros(size, dtype)
        return np.memmap(self.path(name), dtype, "w+", shape=(size,))

    def classify(self, codec: TreeCodec, params: Params, test: NoisyTest | None = None, *,
                 record: bool = False) -> SparseRun:
        """The exact stage on everything added (`classify_candidates`, same arrays' home)."""
        return classify_candidates(self.candidates(), codec, params, test, record=record,
                                   allocate=self.allocate)

    def exact_stage(self, codec: TreeCodec, params: Params, test: NoisyTest | None,
                    say: Progress) -> tuple[SparseRun, dict[str, int]]:
        """`classify`, announced through `say`, for a counting engine: the run and the
        diagnostics it gives of the candidates (`candidates`, `candidates_on_disk`,
        `noisy_draws`)."""
        say("exact stage: the traversal of Appendix D over the candidates")
        run = self.classify(codec, params, test)
        return run, {"candidates": self.size, "candidates_on_disk": int(self.spilled),
                     "noisy_draws": run.noisy_calls}


def levels_of(cands: Candidates, encoding: Encoding, allocate: Allocate = _in_memory
              ) -> list[Level]:
    """The sparse levels of the candidates: child ranges found by binary search of each node's
    first possible child code (`code * radix`), in chunks (the arrays may be on disk); every
    child's parent must be a candidate (counts never grow downwards)."""
    levels: list[Level] = []
    for d, (ids, counts) in enumerate(zip(cands.ids, cands.counts, strict=True)):
        if ids.size == 0:
            break
        levels.append(Level(ids, counts, label=allocate(f"label{d}", ids.size, np.int8)))
    for d, level in enumerate(levels):
        start = allocate(f"child_start{d}", level.ids.size + 1, np.int64)
        level.child_start = start
        if d + 1 == len(levels):
            continue
        radix, children = encoding.radix[d], levels[d + 1].ids
        for lo in range(0, level.ids.size, CHUNK):
            first = np.asarray(level.ids[lo:lo + CHUNK]) * radix
            start[lo:lo + first.size] = np.searchsorted(children, first, side="left")
        start[-1] = children.size
        for lo in range(0, children.size, CHUNK):
            parents = np.asarray(children[lo:lo + CHUNK]) // radix
            at = np.minimum(np.searchsorted(level.ids, parents), level.ids.size - 1)
            if not (np.asarray(level.ids[at]) == parents).all():
                raise EngineError(f"the engine's candidates at depth {d + 1} have parents "
                                  "that are not candidates (counts must not grow downwards)")
    return levels


def classify_candidates(
    cands: Candidates,
    codec: TreeCodec,
    params: Params,
    test: NoisyTest | None = None,
    *,
    record: bool = False,
    allocate: Allocate = _in_memory,
) -> SparseRun:
    """The exact stage: Appendix D's traversal over the candidates (`betweencut.engines.common`
    says why they decide the Heavy set). Whatever their number, it runs: no refusal depends on
    the data."""
    candidate_cut(params)
    levels = levels_of(cands, codec.encoding, allocate)
    if not levels:
        return SparseRun((), codec.encoding, () if record else None, 0, 0)
    return run_levels(levels, codec.encoding, codec.height, params, test, record=record)
