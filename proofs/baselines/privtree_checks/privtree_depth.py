"""PrivTree at depth: the largest loss over every database of copies of one point, on public
boxes of millions of cells (issue 27, item 4).

The pairs covered: `D` = `k` copies of one point `p` (`0 <= k <= K`; `k = 0` is the empty
database) and every added point `z`, both directions. On `[0, 2^20)` that is about `10^14`
pairs; one pair's largest loss is `pair_loss`'s `best(root)` over `T_z` (exact, tested equal to
direct enumeration of the real run). Listing them is out of reach, so the search runs over
*positions up to symmetry*.

Symmetry. For a mechanism with a `known_rule` (`MIDPOINT_SPLIT` with the package's own
`cell_member` or `closed_member`) whose `run`, `query` and post-processing are PrivTree's own
(`score` and `scale` may be replaced: they see the count and depth only):

1. Translation. `(lo + hi) // 2 − lo = (hi − lo) // 2` for integers, so the split tree below a
   box depends on its widths only, up to translation, and both rules are translation
   covariant. The law of a split test, `exact_law(query(n, depth, box))`, does not depend on
   the box. So a box is summarised by `(depth, widths)` and one representative box.
2. Positions. What `T_z` and the counts of `D` look like below a box depends on where `z` (and
   `p`) sit in it only through a *state* per axis, the set of positions still open: half-open
   cells: `A` (anywhere, `lo..hi−1`, one child each); closed cells: `L` (`x = lo`), `H`
   (`x = hi`) or `I` (`lo < x < hi`). Splitting `[lo, hi)` at `mid` on an axis maps a state to
   the children it reaches: `A -> A` left or `A` right; `L -> L` left; `H -> H` right;
   `I -> I` left (if `mid − lo >= 2`), `H` left and `L` right (`x = mid`, both children), or
   `I` right (if `hi − mid >= 2`). These options partition the state's positions; the other
   axes keep their states. At the root `z` and `p` are in `A` (half-open) or in `L` or `I` per
   axis (closed: `x < hi`).
3. Dynamic programme. `V(box, zs, ps) = max` over positions of `z` in `zs` and of `p` in `ps`
   (`ps = None`: `p` does not reach the box) of `best(box)`. With `n = k` if `p` reaches the
   box, else `0`, `V = 1` at a box that cannot split and otherwise

       V = max(r_stop(n), r_split(n)·max_{options oz, op} Π_{c reached by z} V(c, oz_c, op_c)),

   because the options partition the positions and the factors `r` depend on `n` and depth
   only. `p` and `z` are tracked independently: when they coincide the counts are those of
   `p = z`, so every combination of positions is a real pair. A real pair follows one option
   per box, so `V` is at least its loss: `V` is an upper bound on the largest loss. It is
   exact when, once the options are fixed, the positions left in different children are
   independent, so that the maximum of the product of non-negative factors is the product of
   the maxima: always for half-open cells (a point reaches one child) and on 1-D boxes (a point
   in one child is absent from the other; a point on `mid` is the one position `mid` in both).
   With closed cells on a 2-D box, a point on `mid` keeps its state on the other axis in both
   children, which may choose different positions there: `V` may then exceed every real pair.

The maximum over `k`, both directions, and the root states bounds the largest loss over every
pair covered. Its witness `(p, k, z)` is rebuilt on the real boxes (the options chosen,
intersected per axis) and its loss recomputed by `pair_loss` on the real `member` and `split`:
a real pair whose loss equals the bound is the largest, so the two must be equal exactly, and
otherwise (`SymmetryMismatch`: the options chosen leave no common position, or a smaller loss)
the search refuses rather than report either number (never met on the boxes tested, 2-D ones
up to `[0, 2^10)²`). The search answers to listing every pair with `pair_loss` where both run
(tests: 1-D boxes of 8 and 12 cells and the 2-D boxes `[0, 4)²`, `[0, 5)×[0, 3)`, both rules;
`-m slow` for more). A mechanism outside these preconditions is refused (`ParameterError`
naming why), never searched by symmetry.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from betweencut.baselines.privtree import SEAMS as PRIVTREE_SEAMS
from betweencut.baselines.privtree import Box, Point, PrivTree, volume
from betweencut.boundary.seams import overrides, refusal
from betweencut.data.validate import positive_rational
from betweencut.errors import BetweenCutError, ParameterError
from betweencut.noise.noisy_test import Outcome
from betweencut.proofs.baselines.privtree_checks.privtree_ratio import ONE, LogRatio
from betweencut.proofs.baselines.privtree_checks.privtree_search import (
    Ratio,
    WorstPair,
    known_rule,
    pair_loss,
    reduction_refusal,
)
from betweencut.proofs.exact.arith import ExpPoly, exact_str
from betweencut.proofs.exact.certificate import Certificate, ClaimRefuted
from betweencut.proofs.laws.bt_laws import exact_law
from betweencut.proofs.registry import claim, register_audit
from betweencut.proofs.verdict import Direction

__all__ = ["CLAIM", "MAX_COPIES", "CopiesSearch", "SymmetryMismatch",
           "check_privtree_copies_at_depth", "copies_worst_pair", "losses_by_copies",
           "symmetry_refusal"]

CLAIM = "PrivTree epsilon-DP (copies of one point, any depth)"
MAX_COPIES = 1000
SEAMS = ("run", "query", "force_min_bins")  # their code is the symmetry's premise
State = tuple[str, ...]  # one letter per axis: A, L, H or I
Choice = tuple[str, tuple[str | None, ...], tuple[str | None, ...]]


class SymmetryMismatch(BetweenCutError):
    """The witness rebuilt on the real boxes does not have the loss the symmetric search
    computed: the premises of the symmetry do not hold for this mechanism."""


def symmetry_refusal(mech: PrivTree) -> str | None:
    """Why the search by symmetry does not apply to `mech`, or None when it does."""
    why = reduction_refusal(mech)
    if why is not None:
        return why
    found = overrides(mech, PRIVTREE_SEAMS, SEAMS)
    if found:
        return refusal(found, type(mech).__name__)
    if known_rule(mech) is None:
        return ("its split or membership rule is not one whose geometry the search knows "
                "(MIDPOINT_SPLIT with cell_member or closed_member)")
    return None


def _moves(rule: str, state: str, lo: int, mid: int, hi: int) -> list[tuple[str | None, ...]]:
    """The options of a position state when `[lo, hi)` splits at `mid`: (left, right) states,
    None where the point does not reach the child (module doc, step 2)."""
    if rule == "half-open":
        return [("A", None), (None, "A")]
    if state == "L":
        return [("L", None)]
    if state == "H":
        return [(None, "H")]
    out: list[tuple[str | None, ...]] = []
    if mid - lo >= 2:
        out.append(("I", None))
    out.append(("H", "L"))
    if hi - mid >= 2:
        out.append((None, "I"))
    return out


def _root_states(rule: str, box: Box) -> list[State]:
    if rule == "half-open":
        return [("A",) * len(box)]
    per_axis = [["L", "I"] if hi - lo >= 2 else ["L"] for lo, hi in box]
    return [tuple(s) for s in itertools.product(*per_axis)]


def _interval(state: str, lo: int, hi: int) -> tuple[int, int]:
    """The positions a state leaves open on an axis `[lo, hi)`, as `[a, b]`."""
    return {"A": (lo, hi - 1), "L": (lo, lo), "H": (hi, hi), "I": (lo + 1, hi - 1)}[state]


def _widths(box: Box) -> tuple[int, ...]:
    return tuple(hi - lo for lo, hi in box)


class _Search:
    """The dynamic programme of the module doc for one `k` and one direction."""

    def __init__(self, mech: PrivTree, rule: str, k: int, forward: bool,
                 laws: dict[tuple[int, int], tuple[ExpPoly, ExpPoly]],
                 reps: dict[tuple[int, tuple[int, ...]], Box],
                 ratio_cache: dict[tuple[int, int, bool], tuple[LogRatio, LogRatio]]) -> None:
        self.mech, self.rule, self.k, self.forward = mech, rule, k, forward
        self.laws, self.reps, self.ratio_cache = laws, reps, ratio_cache
        self.memo: dict[tuple[int, tuple[int, ...], State, State | None],
                        tuple[LogRatio, Choice | None]] = {}

    def law(self, n: int, depth: int) -> tuple[ExpPoly, ExpPoly]:
        """`(P(split), P(stop))` of the real query with `n` points at `depth`."""
        found = self.laws.get((n, depth))
        if found is None:
            law = exact_law(self.mech.query(n, depth, self.mech.box))
            found = self.laws[n, depth] = (law[Outcome.H], law[Outcome.L] + law[Outcome.B])
        return found

    def ratios(self, n: int, depth: int) -> tuple[LogRatio, LogRatio]:
        """`(r_split, r_stop)` at `n` points, in this search's direction (cached)."""
        found = self.ratio_cache.get((n, depth, self.forward))
        if found is None:
            split_d, stop_d = self.law(n, depth)
            split_z, stop_z = self.law(n + 1, depth)
            found = (LogRatio.of(split_d, split_z), LogRatio.of(stop_d, stop_z)) \
                if self.forward else (LogRatio.of(split_z, split_d), LogRatio.of(stop_z, stop_d))
            self.ratio_cache[n, depth, self.forward] = found
        return found

    def geometry(self, box: Box) -> tuple[tuple[Box, ...], int, int]:
        """The real children of `box`, the split axis and `mid`."""
        kids = self.mech.split.children(box)
        if not kids:
            return kids, -1, 0
        axis = next(i for i, (a, b) in enumerate(zip(kids[0], box, strict=True)) if a != b)
        mid = kids[0][axis][1]
        return kids, axis, mid

    def value(self, depth: int, box: Box, zs: State, ps: State | None
              ) -> tuple[LogRatio, Choice | None]:
        key = (depth, _widths(box), zs, ps)
        found = self.memo.get(key)
        if found is not None:
            return found
        rep = self.reps.setdefault((depth, key[1]), box)
        kids, axis, mid = self.geometry(rep)
        if not kids:
            found = (ONE, None)
        else:
            lo, hi = rep[axis]
            r_split, r_stop = self.ratios(self.k if ps is not None else 0, depth)
            p_moves = _moves(self.rule, ps[axis], lo, mid, hi) if ps is not None else [
                (None, None)]
            best: tuple[LogRatio, Choice] | None = None
            for oz in _moves(self.rule, zs[axis], lo, mid, hi):
                for op in p_moves:
                    prod = ONE
                    for i, child in enumerate(kids):
                        z_state = oz[i]
                        if z_state is None:
                            continue
                        p_state = op[i] if ps is not None else None
                        prod = prod * self.value(
                            depth + 1, child, _with(zs, axis, z_state),
                            None if p_state is None or ps is None else _with(ps, axis, p_state))[0]
                    if best is None or prod.exceeds(best[0]):
                        best = (prod, ("split", oz, op))
            if best is None:
                raise SymmetryMismatch(f"no option at {rep} for {zs}")
            deeper = r_split * best[0]
            found = (r_stop, ("stop", (), ())) if r_stop.exceeds(deeper) else (deeper, best[1])
        self.memo[key] = found
        return found

    def witness(self, zs: State, ps: State | None) -> tuple[Point, Point | None]:
        """Concrete `z` and `p` in the chosen options, rebuilt on the real boxes."""
        z_box = [(-math.inf, math.inf)] * len(self.mech.box)
        p_box = [(-math.inf, math.inf)] * len(self.mech.box)

        def narrow(bounds: list[tuple[float, float]], state: State, box: Box) -> None:
            for a, (s, (lo, hi)) in enumerate(zip(state, box, strict=True)):
                x, y = _interval(s, lo, hi)
                bounds[a] = (max(bounds[a][0], x), min(bounds[a][1], y))

        stack: list[tuple[int, Box, State, State | None]] = [(0, self.mech.box, zs, ps)]
        while stack:
            depth, box, z_state, p_state = stack.pop()
            narrow(z_box, z_state, box)
            if p_state is not None:
                narrow(p_box, p_state, box)
            choice = self.value(depth, box, z_state, p_state)[1]
            if choice is None or choice[0] != "split":
                continue
            kids, axis, _ = self.geometry(box)
            _, oz, op = choice
            for i, child in enumerate(kids):
                if p_state is not None and op[i] is not None:
                    narrow(p_box, _with(p_state, axis, op[i]), child)
                if oz[i] is not None:
                    stack.append((depth + 1, child, _with(z_state, axis, oz[i]),
                                  None if p_state is None or op[i] is None
                                  else _with(p_state, axis, op[i])))
        z = _pick(z_box)
        return z, (_pick(p_box) if ps is not None else None)


def _with(state: State, axis: int, letter: str | None) -> State:
    if letter is None:
        raise SymmetryMismatch(f"no state on axis {axis}")
    return (*state[:axis], letter, *state[axis + 1:])


def _pick(bounds: list[tuple[float, float]]) -> Point:
    if any(lo > hi for lo, hi in bounds):
        raise SymmetryMismatch(f"the options chosen leave no position: {bounds}")
    return tuple(int(lo) for lo, _ in bounds)


@dataclass
class CopiesSearch:
    """The largest loss over every database of at most `max_copies` copies of one point and
    every added point, with its witness pair (`found`), and the number of pairs covered."""

    found: WorstPair
    max_copies: int
    rule: str

    def covered(self) -> str:
        return (f"every database of at most {self.max_copies} copies of one point and every "
                f"added point ({self.found.pairs} pairs, by symmetry)")


def _check(mech: PrivTree, max_copies: int) -> str:
    if isinstance(max_copies, bool) or not isinstance(max_copies, int) or not (
            0 <= max_copies <= MAX_COPIES):
        raise ParameterError("max_copies", max_copies, f"an integer 0..{MAX_COPIES}")
    why = symmetry_refusal(mech)
    rule = known_rule(mech)
    if why is not None or rule is None:
        raise ParameterError("mech", type(mech).__name__, f"a PrivTree the symmetric search "
                             f"knows (here {why}): list its pairs instead")
    return rule


def _maxima(mech: PrivTree, max_copies: int
            ) -> Iterator[tuple[int, bool, LogRatio, _Search, State, State | None]]:
    """Per number of copies `k` and direction: the largest loss over every `p` and `z`, with
    the search and root states that attain it."""
    rule = _check(mech, max_copies)
    laws: dict[tuple[int, int], tuple[ExpPoly, ExpPoly]] = {}
    reps: dict[tuple[int, tuple[int, ...]], Box] = {}
    ratio_cache: dict[tuple[int, int, bool], tuple[LogRatio, LogRatio]] = {}
    roots = _root_states(rule, mech.box)
    for k, forward in itertools.product(range(max_copies + 1), (True, False)):
        search = _Search(mech, rule, k, forward, laws, reps, ratio_cache)
        best: tuple[LogRatio, State, State | None] | None = None
        for zs, ps in _starts(roots, k):
            value = search.value(0, mech.box, zs, ps)[0]
            if best is None or value.exceeds(best[0]):
                best = (value, zs, ps)
        if best is not None:
            yield k, forward, best[0], search, best[1], best[2]


def losses_by_copies(mech: PrivTree, max_copies: int) -> dict[tuple[int, Direction], Ratio]:
    """The largest loss over every `p` and `z` at each number of copies `k` and each
    direction, by symmetry: exact for half-open cells and on 1-D boxes, otherwise an upper
    bound (module doc; `copies_worst_pair` checks its maximum against a real pair)."""
    return {(k, Direction.of(forward)): Ratio.of_log(value)
            for k, forward, value, *_ in _maxima(mech, max_copies)}


def copies_worst_pair(mech: PrivTree, max_copies: int) -> CopiesSearch:
    """The exact largest loss `ln max_o max(P/Q, Q/P)` over every pair `(D, D + z)` with `D`
    made of at most `max_copies` copies of one point (module doc), with the pair.

    Raises: `ParameterError` when `mech` is outside the symmetry's premises
    (`symmetry_refusal`) or `max_copies` is out of range; `SymmetryMismatch` if the bound is
    not attained by the witness rebuilt on the real boxes (module doc, possible only with
    closed cells on a 2-D box)."""
    best: tuple[LogRatio, int, bool, _Search, State, State | None] | None = None
    for k, forward, value, search, zs, ps in _maxima(mech, max_copies):
        if best is None or value.exceeds(best[0]):
            best = (value, k, forward, search, zs, ps)
    if best is None:  # pragma: no cover - k = 0 always runs
        raise ParameterError("box", mech.box, "a non-empty box")
    value, k, forward, search, zs, ps = best
    z, p = search.witness(zs, ps)
    db = {p: k} if p is not None and k else {}
    loss = pair_loss(mech, db, z)
    ratio = loss.forward if forward else loss.backward
    if ratio.log.compare(value) != 0:
        raise SymmetryMismatch(f"D = {db}, z = {z}: pair_loss differs from the symmetric search")
    width = volume(mech.box)
    found = WorstPair(Ratio.of_log(value), db, z, Direction.of(forward),
                      loss.forward_event if forward else loss.backward_event,
                      (1 + width * max_copies) * width)
    return CopiesSearch(found, max_copies, known_rule(mech) or "")


def _starts(roots: list[State], k: int) -> Iterator[tuple[State, State | None]]:
    for zs in roots:
        if k == 0:
            yield zs, None
        else:
            for ps in roots:
                yield zs, ps


@claim(CLAIM, "PrivTree Theorem (Zhang-Xiao-Xie 2016)")
def check_privtree_copies_at_depth(mech: PrivTree, max_copies: int,
                                   epsilon: object = None) -> Certificate:
    """Claim: PrivTree is `ε`-DP (FORMULAS.md, last section), on databases of copies of one
    point, at any depth.

    Preconditions: `mech` within the symmetry's premises (`symmetry_refusal` is None);
    `0 <= max_copies <= MAX_COPIES`; `epsilon` the claimed budget, a rational `> 0` (default
    `mech.epsilon`).
    Checks: the exact largest loss over every pair `(D, D + z)` with `D` at most `max_copies`
    copies of one point and `z` any point of the box (`copies_worst_pair`) is at most `ε`:
    `ratio <= e^ε`, exactly.
    Returns: a Certificate (method `enumerated`, by symmetry) stating the claim and the
    mechanism's own `ε` apart, with the worst pair and its loss.
    Raises: `ClaimRefuted` with the worst pair, its event and loss when it exceeds `ε`.
    """
    eps = positive_rational(mech.epsilon if epsilon is None else epsilon, "epsilon",
                            " (the claimed budget)", text=True)
    found = copies_worst_pair(mech, max_copies)
    bound = ExpPoly.exp(eps)
    claimed = {"epsilon": eps, "delta": Fraction(0), "bound": exact_str(bound),
               "mechanism_epsilon": mech.epsilon, "box": mech.box}
    evidence = {**found.found.as_json(), "covered": found.covered()}
    if found.found.ratio.exceeds(Ratio(bound, ExpPoly.const(1))):
        raise ClaimRefuted(CLAIM, f"loss above eps = {eps}", {**claimed, **evidence})
    return Certificate(CLAIM, claimed, "enumerated", evidence,
                       scope=f"copies of one point, at most {max_copies} (by symmetry)")


@register_audit("baselines", "PrivTree at depth: half-open cells on [0, 2^20), every database of "
                "at most 100 copies of one point, by symmetry")
def audit_privtree_at_depth() -> list[Certificate]:
    return [check_privtree_copies_at_depth(PrivTree.of(((0, 1 << 20),), 1), 100)]
