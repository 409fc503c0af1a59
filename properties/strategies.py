"""Hypothesis strategies for BetweenCut's inputs: public trees, databases, neighbours, parameters.

All strategies live here, built with `@st.composite`; each docstring says how it shrinks. Every
drawn value is public-shaped data only (trees, leaf lists, exact rationals): nothing here runs
the mechanism. The paper's worked examples are exported as constants so that tests can pin them
with `@example` (`DEPO_H15`, `H15_CALIBRATION`, `paper_cases()`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from hypothesis import strategies as st

from betweencut.data.tree import Node, PublicTree, all_leaves, kary_tree
from betweencut.mechanism.calibration import Calibration, calibrate
from betweencut.mechanism.params import Params
from betweencut.noise.noisy_test import Outcome
from betweencut.properties.noise import ScriptedTest

#: Alg. 2's worked value in the paper (Section 4): DepO(0, 14), i.e. h = 15.
DEPO_H15: tuple[int, list[int]] = (15, [7, 11, 13, 14, 12, 9, 10, 8, 3, 5, 6, 4, 1, 2, 0])
#: A calibration at the paper's example height h = 15 (L = 4): ε = 1, δ = 1/100 (Theorem 5.5).
H15_CALIBRATION: tuple[int, Fraction, Fraction] = (15, Fraction(1), Fraction(1, 100))
OUTCOMES = (Outcome.L, Outcome.B, Outcome.H)


@dataclass(frozen=True)
class ArityTable:
    """A public child-naming rule for an irregular tree: `arities[node]` children named
    `"0", "1", ...`; nodes not listed are leaves. Hashable and printable, so a shrunk
    counterexample shows the whole tree."""

    arities: tuple[tuple[Node, int], ...]

    def __call__(self, path: tuple[str, ...]) -> tuple[str, ...]:
        node = tuple(int(name) for name in path)
        return tuple(str(i) for i in range(dict(self.arities).get(node, 0)))


def irregular_tree(height: int, arities: dict[Node, int]) -> PublicTree:
    """The public tree of height `height` whose node `u` has `arities.get(u, 0)` children."""
    table = ArityTable(tuple(sorted(arities.items())))
    shape = ", ".join(f"{u}:{k}" for u, k in table.arities)
    return PublicTree(height, table, description=f"irregular tree h={height} {{{shape}}}")


@st.composite
def kary_trees(draw: st.DrawFn, max_arity: int = 3, max_height: int = 5,
               max_nodes: int = 200) -> PublicTree:
    """A complete k-ary tree (`kary_tree(k, h)`), `1 <= k <= max_arity`, `1 <= h <= max_height`,
    at most `max_nodes` nodes (the height is lowered to fit). Shrinks toward `k = 1`, `h = 1`."""
    k = draw(st.integers(1, max_arity), label="arity")
    h = draw(st.integers(1, max_height), label="height")
    while h > 1 and sum(k**d for d in range(h)) > max_nodes:
        h -= 1
    return kary_tree(k, h)


@st.composite
def irregular_trees(draw: st.DrawFn, max_arity: int = 3, max_height: int = 6,
                    max_nodes: int = 40) -> PublicTree:
    """A tree with uneven depths and arities: a spine reaches depth `h - 1` (so `h` is the true
    height), every other node has `0..max_arity` children, at most `max_nodes` nodes. Shrinks
    toward `h = 1`, then toward a bare path (off-spine nodes without children, spine child 0)."""
    h = draw(st.integers(1, max_height), label="height")
    spine: Node = ()
    arities: dict[Node, int] = {}
    frontier: list[Node] = [()]
    total = 1
    for d in range(h - 1):
        nxt: list[Node] = []
        for u in frontier:
            on_spine = u == spine
            spare = max(0, max_nodes - total - (h - 1 - d))  # one node kept per spine level
            low = 1 if on_spine else 0
            k = draw(st.integers(low, min(max_arity, spare + low)), label=f"arity{u}")
            if k:
                arities[u] = k
                total += k
                nxt.extend((*u, i) for i in range(k))
            if on_spine:
                spine = (*u, draw(st.integers(0, k - 1), label=f"spine{d}"))
        frontier = nxt
    return irregular_tree(h, arities)


def trees(max_arity: int = 3, max_height: int = 5) -> st.SearchStrategy[PublicTree]:
    """Complete k-ary trees or irregular trees; shrinks toward the k-ary branch (a single node)."""
    return st.one_of(kary_trees(max_arity, max_height), irregular_trees(max_arity, max_height + 1))


@st.composite
def databases(draw: st.DrawFn, tree: PublicTree, max_size: int = 12) -> list[Node]:
    """A database on `tree`: a list of leaves (nodes without children), repeats allowed, at
    most `max_size` records. Shrinks toward fewer records, then toward the first leaf."""
    leaves = list(all_leaves(tree))
    return draw(st.lists(st.sampled_from(leaves), max_size=max_size), label="leaves")


@st.composite
def trees_with_databases(
    draw: st.DrawFn, max_arity: int = 3, max_height: int = 5, max_size: int = 12
) -> tuple[PublicTree, list[Node]]:
    """`(tree, D)`: a tree from `trees()` and a database on it; shrinks the tree first."""
    tree = draw(trees(max_arity, max_height))
    return tree, draw(databases(tree, max_size))


@st.composite
def neighbouring_pairs(
    draw: st.DrawFn, max_arity: int = 3, max_height: int = 5, max_size: int = 12
) -> tuple[PublicTree, list[Node], list[Node]]:
    """`(tree, D, D + [z])`, neighbours in the sense of Eq. (4): counts differ by one exactly
    on the root-to-`z` path. Shrinks the tree, then `D`, then `z` toward the first leaf."""
    tree, leaves = draw(trees_with_databases(max_arity, max_height, max_size))
    z = draw(st.sampled_from(list(all_leaves(tree))), label="z")
    return tree, leaves, [*leaves, z]


@st.composite
def rationals(draw: st.DrawFn, low: int, high: int, max_denominator: int = 6) -> Fraction:
    """An exact rational in `[low, high]` with a small denominator; shrinks toward `low` with
    denominator 1."""
    q = draw(st.integers(1, max_denominator))
    return Fraction(draw(st.integers(low * q, high * q)), q)


@st.composite
def lambdas(draw: st.DrawFn, max_denominator: int = 8) -> Fraction:
    """A rational `0 < λ <= 1` (the range of Theorem 5.4); shrinks toward `λ = 1`."""
    q = draw(st.integers(1, max_denominator))
    p = q - draw(st.integers(0, q - 1))
    return Fraction(p, q)


@st.composite
def params(draw: st.DrawFn, max_tau: int = 12, max_r: int = 5) -> Params:
    """Rational parameters: `0 < λ <= 1`, `1 <= R <= max_r`, `0 <= τ <= max_tau`. Shrinks
    toward `λ = 1`, `R = 1`, `τ = 0`."""
    lam = draw(lambdas())
    big_r = draw(rationals(1, max_r))
    tau = draw(rationals(0, max_tau))
    return Params.of(tau, lam, big_r)


@st.composite
def calibrations(draw: st.DrawFn, height: int) -> Calibration:
    """`calibrate(h, ε, δ)` (Theorem 5.5) with rational `0 < ε <= 1`, `0 < δ < 1/10`. Shrinks
    toward `ε = 1`, `δ = 1/11`."""
    q = draw(st.integers(1, 10))
    eps = Fraction(q - draw(st.integers(0, q - 1)), q)
    delta = Fraction(1, draw(st.integers(11, 10**4)))
    return calibrate(height, eps, delta)


@st.composite
def calibrated_params(draw: st.DrawFn, height: int, max_tau: int = 40) -> Params:
    """Calibrated parameters (irrational `R`) at threshold `0 <= τ <= max_tau`; shrinks as
    `calibrations` and toward `τ = 0`."""
    cal = draw(calibrations(height))
    return cal.params(draw(rationals(0, max_tau)))


@st.composite
def sparse_params(draw: st.DrawFn, height: int, max_extra: int = 4) -> Params:
    """Parameters with `τ >= E` (Appendix D), rational or calibrated: `τ = E` exactly for
    rational `E`, else `ceil(E)`, plus `0..max_extra`. Shrinks toward the rational branch with
    `λ = 1`, `R = 1`, `τ = E = 2`."""
    if draw(st.booleans(), label="calibrated"):
        cal = draw(calibrations(height))
        base = Fraction(cal.E.ceil())
        lam, big_r = cal.lam, cal.R
        return Params.of(base + draw(rationals(0, max_extra)), lam, big_r)
    p = draw(params(max_tau=0))
    base = p.margin.const
    return Params.of(base + draw(rationals(0, max_extra)), p.lam, p.R)


@dataclass(frozen=True)
class Case:
    """One property-run input: a tree, a database, parameters, and the noise (a script of
    answers for the first queries, then exact draws seeded by `seed`)."""

    tree: PublicTree
    leaves: tuple[Node, ...]
    params: Params
    script: tuple[Outcome, ...] = ()
    seed: int = 0

    def test(self) -> ScriptedTest:
        """A fresh noisy test; equal cases give identically answering tests."""
        return ScriptedTest(self.script, self.seed)

    def __repr__(self) -> str:
        p = self.params
        answers = "".join(s.value for s in self.script)
        return (f"Case(tree={self.tree.description!r}, leaves={list(self.leaves)!r}, "
                f"tau={p.tau}, lam={p.lam}, R={p.R.exact_str()}, script={answers!r}, "
                f"seed={self.seed})")


@st.composite
def cases(draw: st.DrawFn, *, sparse: bool = False, max_arity: int = 3, max_height: int = 5,
          max_size: int = 12, max_script: int = 16) -> Case:
    """A `Case` for one run. `sparse=True` draws `τ >= E` (for Proposition D.1) and more
    records so that noisy queries happen. Shrinks tree, then database, then toward rational
    parameters, an empty script (every answer from the seeded law) and seed 0; a kept script
    shrinks toward `L` answers."""
    tree, leaves = draw(trees_with_databases(max_arity, max_height, max_size))
    if sparse:
        p = draw(sparse_params(tree.height))
    elif draw(st.booleans(), label="calibrated"):
        p = draw(calibrated_params(tree.height))
    else:
        p = draw(params())
    script = draw(st.lists(st.sampled_from(OUTCOMES), max_size=max_script), label="script")
    seed = draw(st.integers(0, 2**16), label="seed")
    return Case(tree, tuple(leaves), p, tuple(script), seed)


def paper_cases() -> list[Case]:
    """The pinned worked examples, run by `check_implementation` and the tests every time:
    the h = 15 path (a unary tree, so the levels are visited exactly in the order
    `DepO(0, 14)` of the paper, `DEPO_H15`) with the h = 15 calibration `H15_CALIBRATION`
    (L = 4) at `τ = ceil(E)`, once with seeded answers and once answering `H` to the first four
    queries (the deepest binary search); and a binary tree of height 3 under the same
    parameters, where dense and sparse both apply."""
    h, eps, delta = H15_CALIBRATION
    cal = calibrate(h, eps, delta)
    p = cal.params(cal.E.ceil())
    path_leaf: Node = (0,) * (h - 1)
    path = kary_tree(1, h)
    binary_leaves: tuple[Node, ...] = ((0, 0), (0, 0), (0, 1), (1, 1))
    return [
        Case(path, (path_leaf,) * 12, p),
        Case(path, (path_leaf,) * 30, p, (Outcome.H,) * 4),
        Case(kary_tree(2, 3), binary_leaves * 5, p, (Outcome.B, Outcome.H)),
    ]
