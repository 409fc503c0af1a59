"""The exact privacy profile of the released Heavy set at any height (issue 13, Part 1).

What users release is the Heavy set (`PROJECTIONS["heavy"]`,
`betweencut.proofs.privacy.claims.theorems`), a function of the transcript, so its `δ(ε)` is at most
the transcript's (post-processing); here it is computed exactly, with the path grouping of
`betweencut.proofs.privacy.depth.paths`.

Which answer sequences give one Heavy set. For a profile whose off-path nodes are decided by
their guards (`depth.check_offpath`, and here also: every path node above an `H`-guarded sibling
is guarded `H`), the off-path labels are the same for every answer sequence and for `D` and
`D + z`: count-0 nodes are `L`, an `L`-guarded sibling's subtree `L`, an `H`-guarded sibling's
sub-path `H` (its ancestors always answer `H`, so nothing marks it `L`). On the path, Alg. 6's
marking (Alg. 3, l. 9-15) leaves a *boundary* `b`: depths `< b` Heavy, depths `>= b` Light.

* A sequence of `L`/`H` answers only ends with the open interval `[i, j]` empty, `i = j + 1`;
  every depth `< i` was marked by an `H` (MarkUp of a node at or below it), every depth `> j`
  by an `L` (MarkDown): `b = i`, one sequence for each `b = 0..h` (the search for the gap `b`).
* A sequence ending with `B` at depth `m` marks the parent and above `H` and `m` and below `L`:
  `b = m`, one sequence for each `m = 0..h - 1`.

So the output `b < h` merges exactly two sequences, and `b = h` is one. They share their prefix
up to the node of depth `b`, which the gap search asks (in the binary search tree of DepO's
midpoints both neighbours of a gap are its ancestors): there the pure sequence answers `L` and
then `H` to the end of the interval below (`[i, b - 1]`, whose right end is `b - 1`), the other
answers `B` and stops. `heavy_outputs` counts outputs by `(prefix, tail)`: the signature of the
shared prefix, and the signatures of the two tails from node `b` on; the recursion is the one of
`depth_paths.path_signatures` (memoised on `(length, segment)` inside one count segment), with
the all-`H` right tail of each interval carried up, so the cost stays polynomial in `L`.

The probability of an output is `P(prefix)·(P(tail_L) + P(tail_B))` under each database, with
the law values of the query object the mechanism built (`depth.depth_pair`, principle 2). The
decisions `P > e^{ε_r}·Q` reuse `depth`'s certified log boxes of the prefix
(`SignatureSide.boxes`) plus a certified interval log of the tail sum (`boxes.ln_box`, one per
distinct tail), and go to the exact `ExpPoly` sign when the boxes straddle; the sums are the same
certified dyadic enclosures, and the exact `δ` the exact sum of the violating outputs' factor
bags. The tests compare all of it, as
data and as `δ(ε_r)` for every `r`, with full enumeration of the real code's `heavy` projection.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from fractions import Fraction
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from betweencut.errors import ParameterError, Undecided
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.noise.noisy_test import Outcome
from betweencut.proofs.exact.arith import ExpPoly, sign
from betweencut.proofs.exact.boxes import add_boxes, ln_box
from betweencut.proofs.laws.factors import Bag, bag_enclosure, bag_value, bags_value
from betweencut.proofs.privacy.depth.exact_values import ExactTables, Violating
from betweencut.proofs.privacy.depth.paths import (
    OUTCOME_INDEX,
    PathProfile,
    Search,
    Signature,
    interval_search,
)
from betweencut.proofs.privacy.depth.transcript import (
    Boxes,
    ClaimedBound,
    ClaimedSteps,
    DepthRow,
    PathJoint,
    SignatureSide,
    depth_pair,
    profile_rows,
    rows_from_sums,
    violating_by_r,
)
from betweencut.proofs.privacy.divergence.joint import (
    HockeyStick,
    PairCurve,
    bag_exceeds,
)
from betweencut.proofs.verdict import Direction, Release, checked_epsilon

__all__ = [
    "PROJECTIONS_AT_DEPTH", "HeavyJoint", "HeavyKey", "TailKey", "check_heavy_offpath", "check_on",
    "heavy_data_of", "heavy_outputs", "heavy_pair", "heavy_rows", "merge_of", "rows_on",
]

TailKey = tuple[Signature | None, Signature | None]  # from node b: (L then all H, B); None: none
HeavyKey = tuple[Signature, TailKey]  # (shared prefix, tails)
Found = tuple[dict[HeavyKey, int], Signature | None]  # a search's outputs and right tail
Supports = tuple[tuple[Outcome, ...], ...]


def _plus(x: Signature, y: Signature) -> Signature:
    return tuple(a + b for a, b in zip(x, y, strict=True))


def merge_of(key: HeavyKey) -> tuple[Signature | None, Signature | None]:
    """The full signatures of the (at most two) answer sequences one output merges:
    `(prefix + tail_L, prefix + tail_B)`, None where that sequence is impossible."""
    prefix, (tail_l, tail_b) = key
    return (None if tail_l is None else _plus(prefix, tail_l),
            None if tail_b is None else _plus(prefix, tail_b))


def heavy_outputs(
    profile: PathProfile, support: Callable[[int], tuple[Outcome, ...]]
) -> Counter[HeavyKey]:
    """Every Heavy set the path search can release, grouped by the signatures merging into it.

    Preconditions: `support(k)` lists the outcomes possible under `D` or `D'` at a path node of
    segment `k` (a sequence using another outcome has probability 0 under both and is dropped).
    Returns: `Counter` `(prefix, (tail_L, tail_B))` -> number of boundaries `b` with it. With
    full support on one segment the counts sum to `h + 1` (one output per boundary) and the
    non-None tails to `2h + 1` (every answer sequence once).
    """
    width = 3 * profile.segments
    zero: Signature = (0,) * width
    supports = [support(k) for k in range(profile.segments)]

    def unit(k: int, s: Outcome) -> Signature:
        i = 3 * k + OUTCOME_INDEX[s]
        return (*zero[:i], 1, *zero[i + 1:])

    def step(i: int, j: int, m: int, k: int, search: Search[Found]) -> Found:
        """Outputs with boundary `i..j` (their `B` node inside `[i, j]`), prefixes relative to
        the interval, and the all-`H` tail to the boundary `j + 1` (None if impossible)."""
        out: dict[HeavyKey, int] = {}
        right: Signature | None = None
        if Outcome.H in supports[k]:
            below, tail = search(m + 1, j)
            step = unit(k, Outcome.H)
            for (prefix, tails), n in below.items():
                shifted = (_plus(step, prefix), tails)
                out[shifted] = out.get(shifted, 0) + n
            right = None if tail is None else _plus(step, tail)
        tail_l: Signature | None = None
        if Outcome.L in supports[k]:
            below, tail = search(i, m - 1)
            step = unit(k, Outcome.L)
            for (prefix, tails), n in below.items():
                shifted = (_plus(step, prefix), tails)
                out[shifted] = out.get(shifted, 0) + n
            tail_l = None if tail is None else _plus(step, tail)
        tail_b = unit(k, Outcome.B) if Outcome.B in supports[k] else None
        if tail_l is not None or tail_b is not None:  # boundary m: L then all H, or B at m
            here: HeavyKey = (zero, (tail_l, tail_b))
            out[here] = out.get(here, 0) + 1
        return out, right

    empty: Found = ({}, zero)
    found, right = interval_search(profile, empty, step)(0, profile.height - 1)
    outputs = Counter(found)
    if right is not None:  # boundary h: every answer H (or guarded H)
        outputs[(zero, (right, None))] += 1
    return outputs


@lru_cache(maxsize=64)
def _outputs(height: int, starts: tuple[int, ...], supports: Supports) -> Counter[HeavyKey]:
    """`heavy_outputs`, shared by profiles with one segment layout and support (stand-in counts,
    as the transcript's signature tables: the counts do not enter the search)."""
    n = len(starts)
    stand_in = PathProfile(height, tuple((d, n - k) for k, d in enumerate(starts)))
    return heavy_outputs(stand_in, lambda k: supports[k])


Table = tuple[list[HeavyKey], list[int], npt.NDArray[np.float64], npt.NDArray[np.intp],
              list[TailKey]]


@lru_cache(maxsize=64)
def _table(key: tuple[int, tuple[int, ...], Supports]) -> Table:
    return _table_of(_outputs(*key), len(key[1]))


def _table_of(outputs: Counter[HeavyKey], segments: int) -> Table:
    """Outputs, multiplicities, the prefix matrix, each output's tail index and the tails."""
    keys = list(outputs)
    tails = list(dict.fromkeys(tails for _, tails in keys))
    where = {tails: t for t, tails in enumerate(tails)}
    matrix = np.array([prefix for prefix, _ in keys], dtype=np.float64).reshape(
        len(keys), 3 * segments)
    index = np.array([where[tails] for _, tails in keys], dtype=np.intp)
    return keys, [outputs[k] for k in keys], matrix, index, tails


class HeavyJoint(PairCurve):
    """The Heavy-set laws of one path profile under `D` and `D + z`, grouped by output kind.

    `transcript` is the grouped transcript pair (`depth.depth_pair`: laws, `λ`, bags);
    `outputs[(prefix, tails)]` counts the Heavy sets whose probability is
    `P(prefix)·(P(tail_L) + P(tail_B))` (`heavy_outputs`). `hockey_stick` is the exact reference
    (full `ExpPoly` values per output kind); `heavy_rows` the fast certified evaluation.
    """

    def __init__(self, transcript: PathJoint, outputs: Counter[HeavyKey] | None = None) -> None:
        self.transcript = transcript
        self.key = transcript.signatures_key
        self.outputs = _outputs(*self.key) if outputs is None else outputs
        self._own = outputs is not None  # a test's deliberately wrong grouping

    def table(self) -> Table:
        if self._own:
            return _table_of(self.outputs, len(self.key[1]))
        return _table(self.key)

    def bags(self, key: HeavyKey, side: int) -> Counter[Bag]:
        """The factor bags of the sequences giving this output under `D` (0) or `D + z` (1)."""
        out: Counter[Bag] = Counter()
        for sig in merge_of(key):
            if sig is not None:
                bag = self.transcript.bag(sig, side)
                if bag is not None:
                    out[bag] += 1
        return out

    def data(self) -> Counter[tuple[frozenset[tuple[Bag, int]], frozenset[tuple[Bag, int]]]]:
        """The grouped pair as data: per output, its bags under `D` and under `D + z`, counted
        (outputs impossible under both dropped); full enumeration gives the same multiset."""
        out: Counter[tuple[frozenset[tuple[Bag, int]], frozenset[tuple[Bag, int]]]] = Counter()
        for key, n in self.outputs.items():
            p, q = self.bags(key, 0), self.bags(key, 1)
            if p or q:
                out[(frozenset(p.items()), frozenset(q.items()))] += n
        return out

    @property
    def sequences(self) -> int:
        return sum(n * sum(s is not None for s in merge_of(k)) for k, n in self.outputs.items())

    def hockey_stick(self, eps: Fraction, forward: bool = True) -> HockeyStick:
        """`δ_{P‖Q}(ε)` of the Heavy set, exactly (every output kind's exact value)."""
        eps = checked_epsilon(eps)
        x_ix, y_ix = (0, 1) if forward else (1, 0)
        in_p: Counter[Bag] = Counter()
        in_q: Counter[Bag] = Counter()
        size = 0
        shown: list[Hashable] = []
        for key, n in self.outputs.items():
            x, y = self.bags(key, x_ix), self.bags(key, y_ix)
            if not x or (y and sign(bags_value(x) - bags_value(y) * ExpPoly.exp(eps)) <= 0):
                continue
            for bag, k in x.items():
                in_p[bag] += n * k
            for bag, k in y.items():
                in_q[bag] += n * k
            size += n
            if len(shown) < 4:
                shown.append(key)
        p_event, q_event = bags_value(in_p), bags_value(in_q)
        delta = p_event - q_event * ExpPoly.exp(eps)
        return HockeyStick(eps, delta, size, p_event, q_event,
                           Direction.of(forward), lambda: tuple(shown))


def check_heavy_offpath(mechanism: BetweenCut, profile: PathProfile) -> None:
    """Refuse a profile whose off-path Heavy labels could depend on the path answers: an
    `H`-guarded sibling below a path node that is not guarded `H` (a non-monotone guard) could
    be marked Light by that node's `L` or `B`. `ParameterError` naming the depth."""
    query = mechanism.count_query
    for k, (depth, s) in enumerate(profile.siblings(), start=1):
        if query.guard(s) is Outcome.H:
            for c in profile.counts[:k]:
                if query.guard(c) is not Outcome.H or query.guard(c + 1) is not Outcome.H:
                    raise ParameterError(
                        "profile", profile.describe(),
                        "path counts above an H-guarded sibling guarded H",
                        f"the sibling at depth {depth} is guarded H but a path count {c} above "
                        "it is not: its label would depend on the path answers")


def heavy_pair(mechanism: BetweenCut, profile: PathProfile) -> HeavyJoint:
    """The grouped Heavy-set laws under `D` and `D + z` for the database `profile` describes.

    Preconditions (checked, `ParameterError` otherwise): those of `depth.depth_pair`, and
    `check_heavy_offpath`. Returns: a `HeavyJoint`; its `data()` equals full enumeration of the
    real code's `heavy` projection (tested).
    """
    transcript = depth_pair(mechanism, profile)
    check_heavy_offpath(mechanism, profile)
    return HeavyJoint(transcript)


# -- fast certified evaluation ----------------------------------------------------------------

def _tail_boxes(pair: HeavyJoint, tails: list[TailKey], side: int) -> Boxes:
    """Per tail: possible under `side`?, and certified bounds of `ln(P(tail_L) + P(tail_B))`."""
    ok = np.zeros(len(tails), dtype=bool)
    lo = np.zeros(len(tails))
    hi = np.zeros(len(tails))
    for t, tail in enumerate(tails):
        s_lo, s_hi = Fraction(0), Fraction(0)
        for sig in tail:
            bag = None if sig is None else pair.transcript.bag(sig, side)
            if bag is not None:
                b_lo, b_hi = bag_enclosure(bag)
                s_lo, s_hi = s_lo + b_lo, s_hi + b_hi
                ok[t] = True
        if ok[t]:
            lo[t], hi[t] = ln_box(s_lo, s_hi)
    return ok, lo, hi


def _boxes(side: SignatureSide, matrix: npt.NDArray[np.float64], tails: Boxes,
           index: npt.NDArray[np.intp]) -> Boxes:
    """Per output: possible?, certified bounds of `ln P(prefix) + ln(P(tail_L) + P(tail_B))`."""
    p_ok, p_lo, p_hi = side.boxes(matrix)
    t_ok, t_lo, t_hi = tails
    lo, hi = add_boxes(p_lo, p_hi, t_lo[index], t_hi[index])
    return p_ok & t_ok[index], lo, hi


def _possible(side: SignatureSide, sig: Signature) -> bool:
    return not any(n and side.zero[i] for i, n in enumerate(sig))


class _Exact:
    """Exact decisions `P(out) > e^ε·Q(out)` for one direction: the shared prefix's factors are
    cancelled (`bag_exceeds` when each side is one sequence), tail sums computed once."""

    def __init__(self, pair: HeavyJoint, x_ix: int, y_ix: int) -> None:
        self.pair, self.x_ix, self.y_ix = pair, x_ix, y_ix
        self.tails: dict[tuple[TailKey, int], ExpPoly] = {}

    def tail_value(self, tail: TailKey, side: int) -> ExpPoly:
        found = self.tails.get((tail, side))
        if found is None:
            bags: Counter[Bag] = Counter()
            for sig in tail:
                bag = None if sig is None else self.pair.transcript.bag(sig, side)
                if bag is not None:
                    bags[bag] += 1
            found = self.tails[(tail, side)] = bags_value(bags)
        return found

    def exceeds(self, key: HeavyKey, eps: Fraction) -> bool:
        x, y = self.pair.bags(key, self.x_ix), self.pair.bags(key, self.y_ix)
        if not x:
            return False
        if not y:
            return True
        if sum(x.values()) == 1 and sum(y.values()) == 1:
            return bag_exceeds(next(iter(x)), next(iter(y)), eps)
        prefix, tails = key
        px = self.pair.transcript.bag(prefix, self.x_ix)
        py = self.pair.transcript.bag(prefix, self.y_ix)
        if px is None or py is None:  # cannot be: the outputs are possible on both sides
            raise Undecided(f"prefix of output {key} impossible on one side only")
        cx, cy = Counter(px), Counter(py)
        common = cx & cy
        vx = bag_value(tuple(sorted((cx - common).elements())))
        vy = bag_value(tuple(sorted((cy - common).elements())))
        return sign(vx * self.tail_value(tails, self.x_ix) - vy * ExpPoly.exp(eps)
                    * self.tail_value(tails, self.y_ix)) > 0


def _direction(pair: HeavyJoint, forward: bool, steps: ClaimedSteps,
               sides: tuple[SignatureSide, SignatureSide],
               boxes: tuple[Boxes, Boxes]) -> tuple[list[tuple[int, int]], list[tuple[int, int]],
                                                     list[tuple[int, int]]]:
    """Per output the largest `r` with `P > e^{ε_r}·Q` (certified boxes, exact inside them);
    returns per `r` the certified `Σ P`, `Σ Q` over the outputs violating at `r` (integers at
    scale `2^-SUM_SCALE`) and the violating `(r, output index)` in decreasing `r`."""
    x_ix, y_ix = (0, 1) if forward else (1, 0)
    x_side, y_side = sides[x_ix], sides[y_ix]
    (x_ok, x_lo, x_hi), (y_ok, y_lo, y_hi) = boxes[x_ix], boxes[y_ix]
    top = steps.top
    keys, mults = pair.table()[:2]
    exact = _Exact(pair, x_ix, y_ix)
    by_r = violating_by_r(steps, (x_ok, x_lo, x_hi), (y_ok, y_lo, y_hi),
                          lambda g, eps: exact.exceeds(keys[g], eps))
    a_lo = a_hi = b_lo = b_hi = 0
    a = [(0, 0)] * (top + 1)
    b = [(0, 0)] * (top + 1)
    violating: list[tuple[int, int]] = []
    for r in range(top, 0, -1):
        for g in by_r.get(r, ()):
            violating.append((r, g))
            n = mults[g]
            for sig in merge_of(keys[g]):
                if sig is None:
                    continue
                if _possible(x_side, sig):
                    lo, hi = x_side.value(sig)
                    a_lo, a_hi = a_lo + n * lo, a_hi + n * hi
                if _possible(y_side, sig):
                    lo, hi = y_side.value(sig)
                    b_lo, b_hi = b_lo + n * lo, b_hi + n * hi
        a[r], b[r] = (a_lo, a_hi), (b_lo, b_hi)
    return a, b, violating


def _flat(pair: HeavyJoint, violating: list[tuple[int, int]]) -> list[Violating]:
    """The violating outputs as `(r, signature, multiplicity)`, one entry per merged sequence:
    an output's probability is the sum of its sequences' (`depth_exact.ExactTables` adds each
    where its database can give it), in non-increasing `r`."""
    keys, mults = pair.table()[:2]
    return [(r, sig, mults[g]) for r, g in sorted(violating, key=lambda x: -x[0])
            for sig in merge_of(keys[g]) if sig is not None]


def heavy_rows(
    pair: HeavyJoint, profile: PathProfile, bounds: Sequence[ClaimedBound], exact: bool = False,
) -> list[DepthRow]:
    """`δ(ε_r)` of the Heavy set against `bounds[r - 1]`, `r = 1..len(bounds)`, certified.

    Preconditions: `pair = heavy_pair(mechanism, profile)`; each bound exact, `r` its index.
    Checks: per row `δ(ε_r) <= bound` (both directions), by certified enclosures and, when they
    straddle the bound, by the exact value (from the same violating outputs).
    Returns: one `DepthRow` per bound, as `depth.profile_rows` (`exact=True`: exact values now).
    """
    top = len(bounds)
    _, _, matrix, index, tails = pair.table()
    laws = pair.transcript.laws
    most = max(top, int(matrix.max(initial=0)) + max(
        [max(sig) for tail in tails for sig in tail if sig is not None], default=0))
    sides = (SignatureSide([law[0] for law in laws], most),
             SignatureSide([law[1] for law in laws], most))
    boxes = tuple(_boxes(sides[s], matrix, _tail_boxes(pair, tails, s), index) for s in (0, 1))
    steps = ClaimedSteps.of(bounds)
    directions = [_direction(pair, forward, steps, sides, (boxes[0], boxes[1]))
                  for forward in (True, False)]
    tables = ExactTables(laws, steps.eps[1:],
                         (_flat(pair, directions[0][2]), _flat(pair, directions[1][2])))
    sums = ((directions[0][0], directions[0][1]), (directions[1][0], directions[1][1]))
    return rows_from_sums(profile, bounds, sums, tables, exact)


def heavy_data_of(law_p: Mapping[Hashable, Counter[Bag]], law_q: Mapping[Hashable, Counter[Bag]],
                  ) -> Counter[tuple[frozenset[tuple[Bag, int]], frozenset[tuple[Bag, int]]]]:
    """The same data as `HeavyJoint.data` from two enumerated laws (output -> bags): per output
    its bags under each database, counted; for the tests' comparison with full enumeration."""
    out: Counter[tuple[frozenset[tuple[Bag, int]], frozenset[tuple[Bag, int]]]] = Counter()
    for o in {**law_p, **law_q}:
        out[(frozenset(law_p.get(o, Counter()).items()),
             frozenset(law_q.get(o, Counter()).items()))] += 1
    return out


PROJECTIONS_AT_DEPTH = (Release.TRANSCRIPT, Release.HEAVY)


def check_on(on: object) -> Release:
    """`on` names what is released: `"transcript"` (Tr(D), Eq. 112) or `"heavy"` (the Heavy
    set); anything else is a `ParameterError`."""
    if on not in PROJECTIONS_AT_DEPTH:
        raise ParameterError("on", on, "'transcript' or 'heavy'")
    return Release.of(on)


def rows_on(
    mechanism: BetweenCut, profile: PathProfile, bounds: Sequence[ClaimedBound],
    on: Release = Release.TRANSCRIPT, exact: bool = False,
) -> list[DepthRow]:
    """The rows of one profile on the transcript (`depth.profile_rows`) or on the Heavy set
    (`heavy_rows`); the preconditions of `depth_pair` (and `check_heavy_offpath`) checked."""
    if check_on(on) is Release.HEAVY:
        return heavy_rows(heavy_pair(mechanism, profile), profile, bounds, exact=exact)
    return profile_rows(depth_pair(mechanism, profile), profile, bounds, exact=exact)
