"""Privacy profiles of two databases weighed on one outcome tree, by grouping answer sequences.

The real mechanism is enumerated once for a tree of answer sequences (`betweencut.proofs.
reweight`); a database is weighed on it when the tree asks every node the database asks. Then
answer sequence `i` has probability `P_D(i) = Π_{(u, s) in i} f(c_u(D), s)`, where `f(c, ·)` is
the law of BT at count `c`, or a point mass on the guard's answer where the guard decides `c`
(the other answers there have probability 0). The counts of `D + z` are those of `D` plus one on
the path of `z`. Three facts make the profile cheap and keep it exact:

* `P_D(i)` depends only on the answers of `i` at the nodes where `D` has a positive count, and on
  how many of each answer it gave elsewhere (there every factor is the count-0 law). The answer
  sequences are grouped by that key with numpy on small integer codes (grouping only, no
  arithmetic): one exact factor bag per group and database (`Weights`).
* `P_D(i) / P_{D+z}(i) = p_σ / q_σ`, where `σ` is what `i` answered on the path of `z`: the
  factors off that path are shared (Eq. 4), at most `L` remain (Lemma 4.2), and either side may
  be 0 where a guard decides. So for the full
  transcript the event `S = {P > e^ε Q}` is a union of `σ` classes, each decided once, exactly
  (`bag_exceeds`).
* An output given by many answer sequences (a Heavy set) whose classes all lie on one side is
  decided by that alone; only outputs mixing both sides are compared through their values:
  certified float boxes, then an exact identity of packed integers, then the exact sign.

All sums are exact integers on one `Lattice`, bag values packed by a `Packer`
(`betweencut.proofs.exact.packed`). The result is the same
`HockeyStick` (δ, P(S), Q(S), |S| and S) as the general `Joint` computes from the two directly
enumerated laws; the tests compare the two exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from betweencut.data.tree import Node
from betweencut.noise.noisy_test import Outcome
from betweencut.progress import current
from betweencut.proofs.exact.arith import ExpPoly, sign
from betweencut.proofs.exact.boxes import FloatBox, box_exceeds
from betweencut.proofs.exact.packed import Packer
from betweencut.proofs.laws.factors import Bag
from betweencut.proofs.privacy.divergence.joint import (
    SHOWN,
    HockeyStick,
    PairCurve,
    bag_exceeds,
    bags_box,
)
from betweencut.proofs.privacy.enumeration.transcripts import Enumeration
from betweencut.proofs.verdict import Direction, checked_epsilon

__all__ = [
    "AlignedJoint", "NotAligned", "OutcomeTable", "PairClasses", "Weights",
]

Ints = npt.NDArray[np.int64]
Codes = npt.NDArray[np.integer[Any]]
CODES = {Outcome.L: 1, Outcome.B: 2, Outcome.H: 3}
OUTCOME_OF = (None, Outcome.L, Outcome.B, Outcome.H)
# count -> the law of the answer at a node with that count: a factor id per outcome of the
# noisy test, or {guard outcome: None} (probability 1) where the guard decides; an outcome
# missing from the map has probability 0
FactorIds = Callable[[int], Mapping[Outcome, int | None]]
# the group of an answer sequence of probability 0 under the database: group 0, whose bag is
# None and whose packed value is 0, so such a sequence weighs 0 wherever it is summed (it used
# to be -1, which numpy and Python read as "the last group": a real bag's weight)
IMPOSSIBLE = 0


class NotAligned(Exception):
    """The outcome tree cannot be re-weighted this way (the caller enumerates directly)."""


class OutcomeTable:
    """One enumerated outcome tree as integer arrays: `codes[i, index[u]]` is the noisy answer
    of answer sequence `i` at node `u` (1, 2, 3 for L, B, H; 0 if not asked), `totals[i, k]`
    the number of answers `k + 1` it gave."""

    def __init__(self, base: Enumeration[object]) -> None:
        self.base = base
        self.index: dict[Node, int] = {}
        rows, cols, vals = [], [], []
        for i, steps in enumerate(base.steps):
            for node, s in steps:
                rows.append(i)
                cols.append(self.index.setdefault(node, len(self.index)))  # type: ignore[arg-type]
                vals.append(CODES[s])
            if len({node for node, _ in steps}) != len(steps):
                raise NotAligned("a node is asked twice in one answer sequence")
        self.codes = np.zeros((base.transcripts, max(len(self.index), 1)), dtype=np.int16)
        self.codes[rows, cols] = vals
        self.totals = np.stack([(self.codes == k).sum(axis=1) for k in (1, 2, 3)], axis=1)
        self.total_bits = max(len(self.index), 1).bit_length()
        self._outputs: dict[Callable[[object], Hashable], tuple[Ints, list[Hashable]]] = {}

    @property
    def transcripts(self) -> int:
        return self.base.transcripts

    def outputs(self, project: Callable[[object], Hashable]) -> tuple[Ints, list[Hashable]]:
        """The projected output of each answer sequence as an id, and the outputs by id."""
        found = self._outputs.get(project)
        if found is None:
            ids: dict[Hashable, int] = {}
            codes = [ids.setdefault(project(out), len(ids)) for out, _ in self.base.leaves]
            found = self._outputs[project] = (np.array(codes, dtype=np.int64), list(ids))
        return found


@dataclass
class OutputLaw:
    """One database's law of a projection, per output id: `P(o)` packed, its `(bag, count)`
    groups, and certified float boxes of `P(o)` (computed on demand)."""

    sums: list[int]
    groups: list[list[tuple[Bag, int]]]
    boxes: dict[int, FloatBox] = field(default_factory=dict)

    def box(self, o: int) -> FloatBox:
        found = self.boxes.get(o)
        if found is None:
            found = self.boxes[o] = bags_box(self.groups[o])
        return found


@dataclass
class Weights:
    """One database on an outcome tree: the exact factor bag of each answer sequence, given as
    `bags[group[i]]` (answer sequences with equal probability share a group; `group[i]` is
    `IMPOSSIBLE` = 0 where the sequence has probability 0 under the database: `bags[0]` is
    None and its packed value 0, by construction)."""

    group: Ints
    bags: list[Bag | None]
    laws: dict[tuple[Callable[[object], Hashable], int], OutputLaw] = field(
        default_factory=dict)
    _packed: tuple[int, list[int]] = (-1, [])
    _total: tuple[int, int] = (-1, 0)

    def packed_total(self, packer: Packer) -> int:
        """`Σ_i P_D(i)` over the answer sequences, packed (exactly 1 when the tree can weigh
        the database: the caller compares it with the packed 1)."""
        if self._total[0] != packer.version:
            counts = np.bincount(self.group, minlength=len(self.bags)).tolist()
            total = sum(n * v for n, v in zip(counts, self.packed(packer), strict=True) if n)
            self._total = (packer.version, total)
        return self._total[1]

    def packed(self, packer: Packer) -> list[int]:
        """The packed value of each bag (on the packer's current lattice)."""
        if self._packed[0] != packer.version:
            tracker = current()  # a pack can take long on a wide lattice: the budget is kept
            packed = []
            for b in self.bags:
                tracker.check()
                packed.append(0 if b is None else packer.pack(b))
            self._packed = (packer.version, packed)
        return self._packed[1]

    @staticmethod
    def of(table: OutcomeTable, counts: Mapping[Node, int], ids: FactorIds) -> Weights:
        """The bags of `counts` on `table`'s outcome tree. Where the database's guard decides a
        node the tree asked, that answer has probability 1 and any other answer probability 0
        (group `IMPOSSIBLE`); where the database asks a node the tree did not, nothing here can
        weigh it (the caller only pairs a database with a tree that asks every node it asks)."""
        support = [u for u in counts if u in table.index]
        columns = np.concatenate(
            [table.codes[:, [table.index[u] for u in support]], table.totals], axis=1)
        rows, group = _distinct_rows(columns, [2] * len(support) + [table.total_bits] * 3)
        at = [ids(counts[u]) for u in support]
        zero = ids(0)
        width = len(support)
        bags: list[Bag | None] = [None]  # group IMPOSSIBLE
        for row in rows:
            factors: list[int] = []
            used = [0, 0, 0, 0]
            ok = True
            for j in range(width):
                s = row[j]
                if s:
                    ok = ok and _answer(at[j], s, factors)
                    used[s] += 1
            for k in (1, 2, 3):
                for _ in range(row[width + k - 1] - used[k]):
                    ok = ok and _answer(zero, k, factors)
            bags.append(tuple(sorted(factors)) if ok else None)
        group = group + 1
        impossible = np.array([b is None for b in bags], dtype=bool)
        group = np.where(impossible[group], IMPOSSIBLE, group)
        return Weights(group, bags)

    @property
    def possible(self) -> npt.NDArray[np.bool_]:
        """Which answer sequences have positive probability under the database."""
        return np.asarray(self.group != IMPOSSIBLE)

    def bag_of(self, i: int) -> Bag | None:
        """The factor bag of answer sequence `i`, None if it has probability 0."""
        return self.bags[int(self.group[i])]


def _distinct_rows(columns: Codes, bits: Sequence[int]) -> tuple[list[list[int]], Ints]:
    """The distinct rows of a small non-negative integer matrix and each row's index among
    them: one packed int64 key per row when the widths fit in 62 bits, else rows compared."""
    if sum(bits) <= 62:
        key = np.zeros(len(columns), dtype=np.int64)
        offset = 0
        for j, b in enumerate(bits):
            key |= columns[:, j].astype(np.int64) << offset
            offset += b
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        return columns[first].tolist(), inverse.reshape(-1).astype(np.int64)
    rows, inverse = np.unique(columns, axis=0, return_inverse=True)
    return rows.tolist(), inverse.reshape(-1).astype(np.int64)


def _answer(law: Mapping[Outcome, int | None], code: int, factors: list[int]) -> bool:
    """Append the factor of answer `code` under `law`; False if it has probability 0."""
    outcome = OUTCOME_OF[code]
    if outcome not in law:
        return False
    fid = law[outcome]  # type: ignore[index]
    if fid is not None:
        factors.append(fid)
    return True


class PairClasses:
    """The answer sequences of `(D, D + z)` grouped by `σ`, their answers on the path of `z`,
    with the on-path factor bags `p_σ` (counts of `D`) and `q_σ` (counts of `D + z`)."""

    def __init__(
        self, table: OutcomeTable, path: Sequence[Node], counts: Mapping[Node, int],
        ids: FactorIds,
    ) -> None:
        nodes = [u for u in path if u in table.index]
        columns = table.codes[:, [table.index[u] for u in nodes]]
        rows, self.of = _distinct_rows(columns, [2] * len(nodes))  # σ of each answer sequence
        self.count = len(rows)
        self.p: list[Bag | None] = []  # None: probability 0 under that database
        self.q: list[Bag | None] = []
        for row in rows:
            fp: list[int] = []
            fq: list[int] = []
            ok_p = ok_q = True
            for u, s in zip(nodes, row, strict=True):
                if s:
                    c = counts.get(u, 0)
                    ok_p = ok_p and _answer(ids(c), s, fp)
                    ok_q = ok_q and _answer(ids(c + 1), s, fq)
            self.p.append(tuple(sorted(fp)) if ok_p else None)
            self.q.append(tuple(sorted(fq)) if ok_q else None)

    def exceeding(self, eps: Fraction, forward: bool) -> list[bool]:
        """Per class: `p_σ > e^ε q_σ` (forward) or `q_σ > e^ε p_σ`, decided exactly (a class
        impossible under the left database never exceeds; under the right one only, always)."""
        x, y = (self.p, self.q) if forward else (self.q, self.p)
        return [a is not None and (b is None or bag_exceeds(a, b, eps))
                for a, b in zip(x, y, strict=True)]


def _counted(rows: Ints, group: Ints, modulus: int) -> list[tuple[int, int, int]]:
    """`(r, g, n)`: the `n` possible answer sequences (`group != IMPOSSIBLE`) with `rows = r`
    and `group = g`, over the distinct pairs (`g < modulus`)."""
    possible = group != IMPOSSIBLE
    values, counts = np.unique(rows[possible] * modulus + group[possible], return_counts=True)
    return [(*divmod(v, modulus), c) for v, c in zip(values.tolist(), counts.tolist(),
                                                       strict=True)]


def _sums(rows: Ints, group: Ints, packed: Sequence[int], n: int) -> list[int]:
    """`out[r] = Σ packed[group[i]]` over the possible answer sequences `i` with `rows[i] = r`,
    one multiplication per distinct `(r, group)`."""
    out = [0] * n
    for r, g, c in _counted(rows, group, max(len(packed), 1)):
        out[r] += c * packed[g]
    return out


class AlignedJoint(PairCurve):
    """The `δ(ε)` curve of `(D, D + z)` on one projection, from the shared outcome tree."""

    def __init__(
        self, table: OutcomeTable, classes: PairClasses, weights: tuple[Weights, Weights],
        packer: Packer, project: Callable[[object], Hashable],
    ) -> None:
        self.table, self.classes, self.weights, self.packer = table, classes, weights, packer
        self.project = project
        self.lattice = packer.lattice
        packed = [w.packed(packer) for w in weights]
        self.out_ids, self.outputs = table.outputs(project)
        self.distinct = len(self.outputs) == table.transcripts
        n_cls = classes.count
        if self.distinct:  # one answer sequence per output: sums per σ class
            self.class_sums = [_sums(classes.of, w.group, pk, n_cls)
                               for w, pk in zip(weights, packed, strict=True)]
            self.class_size = [np.bincount(classes.of[w.possible], minlength=n_cls).tolist()
                               for w in weights]
            return
        self.laws = [self._law(w, pk) for w, pk in zip(weights, packed, strict=True)]
        possible = weights[0].possible | weights[1].possible
        keys = np.unique(self.out_ids[possible] * n_cls + classes.of[possible])
        by_output: dict[int, list[int]] = {}
        for v in keys.tolist():
            by_output.setdefault(v // n_cls, []).append(v % n_cls)
        self.kinds: dict[tuple[int, ...], list[int]] = {}
        for o, cls in by_output.items():
            self.kinds.setdefault(tuple(cls), []).append(o)
        self.kind_sums = {kind: [sum(law.sums[o] for o in outs) for law in self.laws]
                          for kind, outs in self.kinds.items()}

    def _law(self, w: Weights, packed: list[int]) -> OutputLaw:
        """Per output id: `P(o)` packed, and its `(bag, count)` groups (cached per database)."""
        key = (self.project, self.packer.version)
        found = w.laws.get(key)
        if found is None:
            sums = [0] * len(self.outputs)
            groups: list[list[tuple[Bag, int]]] = [[] for _ in self.outputs]
            tracker = current()
            for i, (o, b, c) in enumerate(_counted(self.out_ids, w.group,
                                                   max(len(w.bags), 1))):
                if i % 1024 == 0:
                    tracker.check()
                sums[o] += c * packed[b]
                bag = w.bags[b]
                if bag is not None:  # never IMPOSSIBLE: _counted leaves those out
                    groups[o].append((bag, c))
            found = w.laws[key] = OutputLaw(sums, groups)
        return found

    def _output_exceeds(self, o: int, eps: Fraction, x: int, y: int) -> bool:
        """`X(o) > e^ε Y(o)` for one output: boxes, then an exact identity, then the sign."""
        decided = box_exceeds(self.laws[x].box(o), self.laws[y].box(o), eps)
        if decided is not None:
            return decided
        return self._sign(self.laws[x].sums[o], self.laws[y].sums[o], eps) > 0

    def _difference(self, p: int, q: int, eps: Fraction) -> ExpPoly:
        shift = self.lattice.shift(eps)
        if shift is None:
            return self.lattice.decode(p) - self.lattice.decode(q) * ExpPoly.exp(eps)
        return self.lattice.decode(p - (q << shift))

    def _sign(self, p: int, q: int, eps: Fraction) -> int:
        shift = self.lattice.shift(eps)
        if shift is not None and p == q << shift:
            return 0
        return sign(self._difference(p, q, eps))

    def hockey_stick(self, eps: Fraction, forward: bool = True) -> HockeyStick:
        """`δ_{P‖Q}(ε)` (`forward`) or `δ_{Q‖P}(ε)`, exactly, for rational `ε >= 0`."""
        eps = checked_epsilon(eps)
        x, y = (0, 1) if forward else (1, 0)
        above = self.classes.exceeding(eps, forward)
        p_in = q_in = size = 0
        chosen: list[int] = []
        if self.distinct:
            for k, hit in enumerate(above):
                if hit:
                    p_in += self.class_sums[x][k]
                    q_in += self.class_sums[y][k]
                    size += self.class_size[x][k]
        else:
            for kind, outs in self.kinds.items():
                hits = [above[k] for k in kind]
                if all(hits):
                    p_in += self.kind_sums[kind][x]
                    q_in += self.kind_sums[kind][y]
                    size += len(outs)
                    chosen += outs[:SHOWN]
                elif any(hits):
                    for o in outs:
                        current().check()
                        if self._output_exceeds(o, eps, x, y):
                            p_in += self.laws[x].sums[o]
                            q_in += self.laws[y].sums[o]
                            size += 1
                            chosen.append(o)
        lat = self.lattice
        delta = self._difference(p_in, q_in, eps)
        direction = Direction.of(forward)
        return HockeyStick(eps, delta, size, lat.decode(p_in), lat.decode(q_in), direction,
                           lambda: self._shown(above, chosen, x))

    def _shown(self, above: list[bool], chosen: list[int], x: int) -> tuple[Hashable, ...]:
        if self.distinct:
            inside = np.array(above, dtype=bool)[self.classes.of] & self.weights[x].possible
            hits = np.flatnonzero(inside)[:SHOWN]
            chosen = [int(self.out_ids[i]) for i in hits.tolist()]
        return tuple(self.outputs[o] for o in chosen[:SHOWN])
