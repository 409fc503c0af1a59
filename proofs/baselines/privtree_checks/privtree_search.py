"""PrivTree's worst neighbouring pair, exactly, on databases of many points (issue 16).

PrivTree's released partition is fixed by its split decisions, one independent two-outcome test
per visited box (`PrivTree.query`, answered split iff `H`), so the probability of an output `o`
is the product of the probabilities of the decisions `o` makes (with `min_bins = 1`: no
post-processing merges outputs). Adding a point `z` changes the count of exactly the boxes that
contain `z` (under the mechanism's own `member` rule): the *reachable* decomposition `T_z`, found
by expanding from the root only the children that contain `z`. Every other decision has the same
law under `D` and `D + z` and cancels, so

    max_o P_D(o)/P_{D+z}(o) = best(root),  best(v) = max(r_v(stop), r_v(split)·Π_c best(c)),

over the children `c` of `v` in `T_z` (`best = 1` at a box that cannot split: no test is asked),
`r_v(x) = P_D(x at v)/P_{D+z}(x at v)`; the other direction swaps `D` and `D + z`. Each `r` is a
ratio of exact `ExpPoly`s (`betweencut.proofs.laws.bt_laws.exact_law` of the real query) and
maxima are taken by exact comparison (`a·d` against `c·b`), so the largest loss of a pair is
exact, with the decisions that attain it as the event. `pair_loss` answers to direct enumeration
of the real `run` (tested, principle 8).

Databases are multiplicities (`{point: copies}`), so one point may be repeated 100 times. For a
membership rule that partitions every box among its children (checked on the public domain),
the counts along `T_z` (a path) are any non-increasing sequence `n_0 >= n_1 >= ...` with
`n_0 <= N`, and `worst_pair` maximises over all of them at once by dynamic programming over
`(depth, count)`: every database of at most `N` points, exactly. For other rules
`search_multiplicities` tries every database of at most two distinct points with any copies.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from betweencut.baselines.privtree import (
    MIDPOINT_SPLIT,
    SEAMS,
    Box,
    Point,
    PrivTree,
    cell_member,
    volume,
)
from betweencut.boundary.seams import overrides, refusal
from betweencut.data.validate import positive_rational
from betweencut.errors import ParameterError
from betweencut.noise.noisy_test import Outcome
from betweencut.proofs.baselines.privtree_checks.privtree_ratio import ONE as LOG_ONE
from betweencut.proofs.baselines.privtree_checks.privtree_ratio import Ratio
from betweencut.proofs.exact.arith import ExpPoly, exact_str
from betweencut.proofs.exact.certificate import Certificate, ClaimRefuted
from betweencut.proofs.laws.bt_laws import exact_law
from betweencut.proofs.registry import claim, register_audit
from betweencut.proofs.verdict import Direction

__all__ = [
    "PairLoss", "Ratio", "check_privtree_worst_pair", "closed_member", "is_partition",
    "known_rule", "pair_loss", "privtree_rules", "reachable", "reduction_refusal",
    "search_multiplicities", "worst_pair",
]

CLAIM = "PrivTree epsilon-DP (worst pair, many points)"
Counts = Mapping[Point, int]


ONE = Ratio.of_log(LOG_ONE)


def reachable(mech: PrivTree, z: Point) -> dict[tuple[Box, int], tuple[tuple[Box, int], ...]]:
    """`T_z`: the boxes containing `z` reached from the root through boxes containing `z`,
    each (box, depth) with its children in `T_z` (only those boxes are ever expanded)."""
    out: dict[tuple[Box, int], tuple[tuple[Box, int], ...]] = {}
    stack = [(mech.box, 0)] if mech.member(z, mech.box) else []
    while stack:
        box, depth = stack.pop()
        kids = tuple((c, depth + 1) for c in mech.split.children(box) if mech.member(z, c))
        out[box, depth] = kids
        stack.extend(kids)
    return out


@lru_cache(maxsize=1 << 16)
def _decision(mech: PrivTree, count: int, depth: int, box: Box) -> tuple[ExpPoly, ExpPoly]:
    """`(P(split), P(stop))` of the real split test at a box with `count` points."""
    law = exact_law(mech.query(count, depth, box))
    return law[Outcome.H], law[Outcome.L] + law[Outcome.B]


@dataclass
class PairLoss:
    """The largest ratio of a pair in each direction, with the decisions attaining it."""

    forward: Ratio  # max_o P_D(o)/P_{D+z}(o)
    backward: Ratio  # max_o P_{D+z}(o)/P_D(o)
    forward_event: tuple[tuple[Box, str], ...]
    backward_event: tuple[tuple[Box, str], ...]

    def worst(self) -> tuple[Ratio, str, tuple[tuple[Box, str], ...]]:
        if self.backward.exceeds(self.forward):
            return self.backward, Direction.BACKWARD, self.backward_event
        return self.forward, Direction.FORWARD, self.forward_event


def pair_loss(mech: PrivTree, db: Counts, z: Point) -> PairLoss:
    """The exact largest loss of `(D, D + z)` over all outputs (see the module doc)."""
    _check(mech)
    tree = reachable(mech, z)
    if not tree:
        raise ParameterError("z", z, f"a point inside the public box {mech.box}")

    def count(box: Box) -> int:
        return sum(k for p, k in db.items() if mech.member(p, box))

    def best(node: tuple[Box, int], forward: bool) -> tuple[Ratio, tuple[tuple[Box, str], ...]]:
        box, depth = node
        if not mech.split.children(box):
            return ONE, ()
        n = count(box)
        split_d, stop_d = _decision(mech, n, depth, box)
        split_z, stop_z = _decision(mech, n + 1, depth, box)
        r_split, r_stop = (Ratio(split_d, split_z), Ratio(stop_d, stop_z)) if forward else (
            Ratio(split_z, split_d), Ratio(stop_z, stop_d))
        deeper, event = r_split, [(box, "split")]
        for child in tree[node]:
            ratio, sub = best(child, forward)
            deeper, event = deeper * ratio, event + list(sub)
        if r_stop.exceeds(deeper):
            return r_stop, ((box, "stop"),)
        return deeper, tuple(event)

    root = (mech.box, 0)
    fwd, fwd_event = best(root, True)
    bwd, bwd_event = best(root, False)
    return PairLoss(fwd, bwd, fwd_event, bwd_event)


RUN_STEPS = ("run", "force_min_bins")  # the steps whose code the decomposition is proved for
PARTITION_CHECK_CAP = 1 << 22  # boxes × cells that `is_partition` checks one by one
MAX_DP_CELLS = 1 << 12  # `worst_pair` runs one count DP per cell


def reduction_refusal(mech: PrivTree) -> str | None:
    """Why the reachable decomposition does not apply to `mech`, or None when it does.

    The decomposition reads `PrivTree.run` itself: a child's points are its parent's points
    that its `member` rule accepts, so adding `z` changes the count of exactly the boxes of
    `reachable(mech, z)`, whatever `member`, `split`, `query` or `score` are (each a function
    of its arguments). A subclass that replaces `run` (or the post-processing
    `force_min_bins`), or a `min_bins` above 1, is outside that proof."""
    if mech.min_bins != 1:
        return f"min_bins = {mech.min_bins} (post-processing may merge outputs)"
    found = overrides(mech, SEAMS, RUN_STEPS)  # on the object: its instance, class, traps
    if found:
        return f"{refusal(found, type(mech).__name__)}: its counts are not PrivTree.run's"
    return None


def _check(mech: PrivTree) -> None:
    why = reduction_refusal(mech)
    if why is not None:
        raise ParameterError("mech", type(mech).__name__,
                             f"PrivTree.run with min_bins = 1 (here {why}): use direct "
                             "enumeration of the real run")


def domain(mech: PrivTree) -> list[Point]:
    return [tuple(p) for p in itertools.product(*(range(lo, hi) for lo, hi in mech.box))]


def known_rule(mech: PrivTree) -> str | None:
    """"half-open" or "closed" when `mech` splits at midpoints (`MIDPOINT_SPLIT`) with the
    package's own cells (`cell_member`, `closed_member`), else None: the rules whose geometry
    the symmetric searches (`betweencut.proofs.baselines.privtree_checks.privtree_depth`) know."""
    if mech.split is not MIDPOINT_SPLIT:
        return None
    if mech.member is cell_member:
        return "half-open"
    if mech.member is closed_member:
        return "closed"
    return None


def is_partition(mech: PrivTree) -> bool:
    """Every splittable box's children split its cells exactly (each cell in one child).

    Checked cell by cell on every box; past `PARTITION_CHECK_CAP` box-cell checks only for a
    `known_rule`: the half-open midpoint children `[lo, mid)`, `[mid, hi)` partition `[lo, hi)`
    on the split axis (the other axes unchanged), the closed ones share `mid` once the root
    can split; any other rule is refused (`ParameterError`)."""
    if volume(mech.box) * 2 * volume(mech.box) > PARTITION_CHECK_CAP:
        rule = known_rule(mech)
        if rule is None:
            raise ParameterError("box", mech.box, "a domain small enough to check the "
                                 f"membership rule cell by cell ({PARTITION_CHECK_CAP} checks)")
        return rule == "half-open" or not mech.split.children(mech.box)
    cells = domain(mech)
    stack = [mech.box]
    while stack:
        box = stack.pop()
        kids = mech.split.children(box)
        for p in cells:
            if mech.member(p, box) and sum(mech.member(p, c) for c in kids) != (1 if kids else 0):
                return False
        stack.extend(kids)
    return True


@dataclass
class WorstPair:
    """The worst pair found: the database (multiplicities), `z`, direction, event and ratio."""

    ratio: Ratio
    db: dict[Point, int]
    z: Point
    direction: str
    event: tuple[tuple[Box, str], ...]
    pairs: int

    def as_json(self) -> dict[str, Any]:
        lo, hi = self.ratio.loss_bounds()
        return {"D": {str(p): k for p, k in sorted(self.db.items())}, "z": str(self.z),
                "size": sum(self.db.values()), "direction": self.direction,
                "event": [f"{b}:{d}" for b, d in self.event], "ratio_num": exact_str(
                    self.ratio.num), "ratio_den": exact_str(self.ratio.den),
                "loss": [round(lo, 6), round(hi, 6)], "pairs": self.pairs}


def worst_pair(mech: PrivTree, max_size: int) -> WorstPair:
    """The exact worst pair over every database of at most `max_size` points and every `z`,
    for a partition membership rule: dynamic programming over the counts along `T_z`."""
    _check(mech)
    if not isinstance(max_size, int) or max_size < 0:
        raise ParameterError("max_size", max_size, "an integer >= 0")
    if not is_partition(mech):
        raise ParameterError("member", mech.member, "a rule that partitions every box "
                             "(else use search_multiplicities)")
    if volume(mech.box) > MAX_DP_CELLS:
        raise ParameterError("box", mech.box, f"at most {MAX_DP_CELLS} cells (one count DP "
                             "per added point z)")
    found: WorstPair | None = None
    for z in domain(mech):
        path = _path(mech, z)
        for forward in (True, False):
            ratio, counts, event = _best_counts(mech, path, max_size, forward)
            if found is None or ratio.exceeds(found.ratio):
                found = WorstPair(ratio, _database(mech, path, counts, z), z,
                                  Direction.of(forward), event, 0)
    if found is None:  # pragma: no cover - the domain is never empty
        raise ParameterError("box", mech.box, "a non-empty domain")
    width = volume(mech.box)  # databases of at most N points over W cells: C(N + W, W)
    found.pairs = width * math.comb(max_size + width, width)
    return found


def _path(mech: PrivTree, z: Point) -> list[tuple[Box, int]]:
    tree = reachable(mech, z)
    node, path = (mech.box, 0), []
    while True:
        path.append(node)
        kids = tree[node]
        if not kids:
            return path
        node = kids[0]


def _best_counts(mech: PrivTree, path: Sequence[tuple[Box, int]], max_size: int, forward: bool
                 ) -> tuple[Ratio, list[int], tuple[tuple[Box, str], ...]]:
    """`max` over non-increasing counts `n_0 >= n_1 >= ...`, `n_0 <= max_size`, of the best
    decision pattern along the path: `f(i, n) = max(r_stop, r_split·max_{n' <= n} f(i+1, n'))`."""
    Best = tuple[Ratio, list[int], tuple[tuple[Box, str], ...]]
    below: list[Best] | None = None  # prefix maxima of f(i+1, .)
    for box, depth in reversed(path):
        row: list[Best] = []
        for n in range(max_size + 1):
            if not mech.split.children(box):
                cand: Best = (ONE, [n], ())
            else:
                split_d, stop_d = _decision(mech, n, depth, box)
                split_z, stop_z = _decision(mech, n + 1, depth, box)
                r_split, r_stop = (Ratio(split_d, split_z), Ratio(stop_d, stop_z)) if forward \
                    else (Ratio(split_z, split_d), Ratio(stop_z, stop_d))
                deeper = below[n] if below is not None else (ONE, [0], ())
                via = r_split * deeper[0]
                if r_stop.exceeds(via):
                    cand = (r_stop, [n, *([0] * (len(deeper[1])))], ((box, "stop"),))
                else:
                    cand = (via, [n, *deeper[1]], ((box, "split"), *deeper[2]))
            if row and row[-1][0].exceeds(cand[0]):
                row.append((row[-1][0], row[-1][1], row[-1][2]))
            else:
                row.append(cand)
        below = row
    if below is None:  # pragma: no cover - a path has its root
        raise ParameterError("path", path, "a non-empty path")
    return below[max_size]


def _database(mech: PrivTree, path: Sequence[tuple[Box, int]], counts: Sequence[int],
              z: Point) -> dict[Point, int]:
    """A database with `counts[i]` points in path box `i` (non-increasing): `n_i - n_(i+1)`
    points in a cell of box `i` outside box `i + 1`, the last count on `z` itself."""
    db: dict[Point, int] = {}
    for i, (box, _) in enumerate(path):
        n = counts[i] if i < len(counts) else 0
        nxt = counts[i + 1] if i + 1 < len(counts) and i + 1 < len(path) else 0
        extra = n - nxt
        if extra <= 0:
            continue
        inner = path[i + 1][0] if i + 1 < len(path) else None
        cell = z if inner is None else next(
            p for p in domain(mech) if mech.member(p, box) and not mech.member(p, inner))
        db[cell] = db.get(cell, 0) + extra
    return db


def search_multiplicities(mech: PrivTree, max_size: int, support: int = 1) -> WorstPair:
    """The worst pair over databases of at most `support` distinct points (any copies, at most
    `max_size` in all) and every `z`, each pair decided exactly by `pair_loss`."""
    if support not in (1, 2):
        raise ParameterError("support", support, "1 or 2 distinct points")
    cells = domain(mech)
    found: WorstPair | None = None
    pairs = 0
    dbs: list[dict[Point, int]] = [{}]
    for k in range(1, max_size + 1):
        dbs.extend({p: k} for p in cells)
    if support == 2:
        for p, q in itertools.combinations(cells, 2):
            for k in range(1, max_size):
                dbs.extend({p: k, q: j} for j in range(1, max_size - k + 1))
    for db in dbs:
        for z in cells:
            pairs += 1
            ratio, direction, event = pair_loss(mech, db, z).worst()
            if found is None or ratio.exceeds(found.ratio):
                found = WorstPair(ratio, db, z, direction, event, 0)
    if found is None:  # pragma: no cover
        raise ParameterError("box", mech.box, "a non-empty domain")
    found.pairs = pairs
    return found


@claim(CLAIM, "PrivTree Theorem (Zhang-Xiao-Xie 2016)")
def check_privtree_worst_pair(mech: PrivTree, max_size: int,
                              search: Callable[[PrivTree, int], WorstPair] | None = None,
                              epsilon: Fraction | None = None) -> Certificate:
    """Claim: PrivTree is `ε`-DP (FORMULAS.md, last section), on databases of many points.

    Preconditions: `mech.min_bins = 1`; `max_size >= 0`; `epsilon` the claimed budget, a
    rational `> 0` (default `mech.epsilon`, the public parameter it was built with; a
    mechanism whose noise differs from it is audited against it).
    Checks: the exact largest loss over every pair `(D, D + z)` with `|D| <= max_size`
    (`worst_pair`, for a partition rule) or over the multiplicity databases of
    `search_multiplicities` (other rules) is at most the claimed `ε`: `ratio <= e^ε`, exactly.
    Returns: a Certificate (method `enumerated`) stating the claim (`epsilon`, `delta = 0`, the
    `bound` `e^ε`) and the mechanism's own `ε` apart, with the worst pair and its exact ratio.
    Raises: `ClaimRefuted` with the worst pair, its event and exact ratio when it exceeds `e^ε`.
    """
    eps = positive_rational(mech.epsilon if epsilon is None else epsilon, "epsilon",
                            " (the claimed budget)", text=True)
    if search is None:
        search = worst_pair if is_partition(mech) else search_multiplicities
    found = search(mech, max_size)
    bound = ExpPoly.exp(eps)
    claimed = {"epsilon": eps, "delta": Fraction(0), "bound": exact_str(bound),
               "mechanism_epsilon": mech.epsilon, "box": mech.box}
    evidence = found.as_json()
    if found.ratio.exceeds(Ratio(bound, ExpPoly.const(1))):
        raise ClaimRefuted(CLAIM, f"loss above eps = {eps}", {**claimed, **evidence})
    return Certificate(CLAIM, claimed, "enumerated", evidence,
                       scope=f"|D| <= {max_size} ({search.__name__})")


def closed_member(point: Point, box: Box) -> bool:
    """A buggy membership rule: closed cells `lo <= x <= hi`, so a point on a boundary counts in
    both children (and in every box whose closure holds it)."""
    return all(lo <= x <= hi for x, (lo, hi) in zip(point, box, strict=True))


def privtree_rules(cells: int = 8, epsilon: object = 1) -> dict[str, PrivTree]:
    """PrivTree on `[0, cells)` under the default half-open rule and the closed (buggy) one."""
    box = ((0, cells),)
    return {"half-open": PrivTree.of(box, epsilon),
            "closed": PrivTree.of(box, epsilon, member=closed_member)}


@register_audit("baselines", "PrivTree worst pair over every 1-D database of at most 20 points")
def audit_privtree_worst_pair() -> list[Certificate]:
    return [check_privtree_worst_pair(privtree_rules()["half-open"], 20)]
