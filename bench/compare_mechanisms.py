"""Measured comparison: every heavy-node mechanism on the embedded dataset and on a Zipf load.

Datasets: the Unicode characters (`betweencut.data.datasets`, height 5, 4706 nodes) and a synthetic
Zipf load of IPv4-like addresses on the complete binary tree of height 33 (leaves = 32-bit
addresses). Per mechanism: its margin E (deterministic, or holding except with probability
beta), the largest error beyond E (must be 0 for the deterministic ones), the worst error
(`τ - c_u` over Heavy nodes, `c_u - τ` over Light nodes, 0 if none is on the wrong side), and
the time, with its ratio to BetweenCut's time in the same run.

On the height-33 tree no mechanism can visit all 2^33 - 1 nodes. BetweenCut runs sparse
(Appendix D, needs τ >= E); the Lumberjack-style baseline runs on the support view (nodes of
positive count; valid since τ >= R puts every zero-count query on the deterministic L guard,
the argument of Prop. D.1); the full-tree baselines run on the positive-count nodes and the
zero-count nodes are accounted analytically: the expected number of them released Heavy is
printed (`N0 · P(Z >= τ)`). Evaluation shortcuts for measurement only, not release paths.

Run: `python bench/compare_mechanisms.py [--records 50000] [--seed 1]`.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

import numpy as np

from betweencut.baselines.full_tree import FullTreeGaussian, FullTreeLaplace, kary_node_count
from betweencut.baselines.lumberjack import LumberjackStyle, lumberjack_calibrate
from betweencut.baselines.tree_counting import CountingSchedule, alpha_for_rho, tree_counting
from betweencut.data.datasets import unicode_leaves, unicode_tree
from betweencut.data.tree import Node, PublicTree, kary_tree
from betweencut.mechanism.betweencut import BetweenCut, path_counts
from betweencut.mechanism.calibration import calibrate
from betweencut.mechanism.sparse import sparse_between_cut
from betweencut.noise.bt_sampler import ExactSampler

EPS, DELTA, BETA = Fraction(1, 2), Fraction(1, 10**6), Fraction(1, 100)


class SupportView:
    """The nodes of positive count of a public tree, with the tree's own node names."""

    def __init__(self, tree: PublicTree, counts: dict[Node, int]) -> None:
        self.height = tree.height
        self.description = f"support of {tree.description}"
        self._levels: list[list[Node]] = [[] for _ in range(tree.height)]
        for u in counts:
            self._levels[len(u)].append(u)
        for level in self._levels:
            level.sort()
        self._kids: dict[Node, list[Node]] = {}
        for u in counts:
            if u:
                self._kids.setdefault(u[:-1], []).append(u)
        for kids in self._kids.values():
            kids.sort()

    def level(self, d: int) -> Iterator[Node]:
        return iter(self._levels[d])

    def nodes(self) -> Iterator[Node]:
        for d in range(self.height):
            yield from self._levels[d]

    def children(self, u: Node) -> tuple[Node, ...]:
        return tuple(self._kids.get(u, ()))

    @staticmethod
    def parent(u: Node) -> Node | None:
        return u[:-1] if u else None


def errors(heavy: frozenset[Node], counts: dict[Node, int], nodes: Iterator[Node],
           tau: Fraction) -> Fraction:
    worst = Fraction(0)
    for u in nodes:
        c = counts.get(u, 0)
        worst = max(worst, tau - c if u in heavy else c - tau)
    return worst


def zipf_leaves(n: int, distinct: int, seed: int) -> list[Node]:
    rng = np.random.default_rng(seed)
    addresses = rng.integers(0, 2**32, size=distinct)
    ranks = np.minimum(rng.zipf(1.3, size=n), distinct) - 1
    return [tuple((int(addresses[r]) >> (31 - i)) & 1 for i in range(32)) for r in ranks]


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def compare(name: str, tree: PublicTree, leaves: list[Node], tau: Fraction, seed: int,
            full: bool) -> list[dict[str, Any]]:
    h = tree.height
    counts = dict(path_counts(leaves))
    n_nodes = kary_node_count(2, h) if not full else tree.size()
    rows: list[dict[str, Any]] = []
    cal = calibrate(h, EPS, DELTA)
    params = cal.params(tau)
    if full:
        run, sec = timed(lambda: BetweenCut(tree, params).run(leaves, ExactSampler(seed)).heavy)
        nodes: Callable[[], Iterator[Node]] = tree.nodes
    else:
        run, sec = timed(lambda: sparse_between_cut(tree, leaves, params, ExactSampler(seed)).heavy)
        view = SupportView(tree, counts)
        nodes = view.nodes
    rows.append({"mechanism": "BetweenCut", "E": cal.E.approx(), "beta": 0,
                 "worst": errors(run, counts, nodes(), tau), "seconds": sec})
    lj = lumberjack_calibrate(h, EPS, DELTA)
    lj_tree: Any = tree if full else SupportView(tree, counts)
    mech = LumberjackStyle(tree, tau, lj, allow_float_gaussian=True, seed=seed)
    mech.tree = lj_tree
    run, sec = timed(lambda: mech.run(leaves).heavy)
    rows.append({"mechanism": "Lumberjack-style", "E": lj.margin, "beta": 0,
                 "worst": errors(run, counts, nodes(), tau), "seconds": sec})
    lap = FullTreeLaplace.of(tau, EPS, h)
    run, sec = timed(lambda: lap.run(tree, leaves, ExactSampler(seed), nodes=nodes()).heavy)
    zero = n_nodes - len(counts)
    rows.append({"mechanism": "full-tree Laplace", "E": lap.margin(n_nodes, BETA).approx(),
                 "beta": BETA, "worst": errors(run, counts, nodes(), tau), "seconds": sec,
                 "zero_count_expected_heavy": 0 if full else
                 zero * 0.5 * math.exp(-float(tau * EPS / h))})
    gau = FullTreeGaussian.of(tau, EPS, DELTA, h)
    run, sec = timed(lambda: gau.run(tree, leaves, allow_float_gaussian=True, seed=seed,
                                     nodes=nodes()).heavy)
    sigma = gau.sigma()
    rows.append({"mechanism": "full-tree Gaussian", "E": _gauss_margin(sigma, n_nodes),
                 "beta": BETA, "worst": errors(run, counts, nodes(), tau), "seconds": sec,
                 "zero_count_expected_heavy": 0 if full else
                 zero * 0.5 * math.erfc(float(tau) / (sigma * math.sqrt(2)))})
    base = rows[0]["seconds"]
    for r in rows:
        r["dataset"] = name
        r["beyond"] = max(Fraction(0), Fraction(r["worst"]) - Fraction(r["E"]))
        r["ratio"] = r["seconds"] / base if base else float("nan")
    return rows


def _gauss_margin(sigma: float, n_nodes: int) -> float:
    return sigma * math.sqrt(2 * math.log(2 * n_nodes / float(BETA)))


def counting_row(tree: PublicTree, leaves: list[Node], seed: int) -> dict[str, Any]:
    s = CountingSchedule.of(tree.height, alpha_for_rho(Fraction(8, 9)), 1, Fraction(1, 20))
    run, sec = timed(lambda: tree_counting(tree, leaves, s, ExactSampler(seed)))
    worst_beyond = Fraction(0)
    worst = Fraction(0)
    for u, c in path_counts(leaves).items():
        err = abs(run.estimate(u) - c)
        worst = max(worst, err)
        worst_beyond = max(worst_beyond, err - max(s.alpha * c, s.B))
    return {"rounds": run.rounds, "B": float(s.B), "alpha": str(s.alpha), "worst": float(worst),
            "beyond": float(worst_beyond), "seconds": sec}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=50_000)
    ap.add_argument("--distinct", type=int, default=5_000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    random.seed(args.seed)
    print(f"eps = {EPS}, delta = {DELTA}, beta = {BETA} (probabilistic margins)")
    utree = unicode_tree()
    uleaves = unicode_leaves(utree)
    rows = compare(f"unicode (n={len(uleaves)}, h=5)", utree, uleaves, Fraction(1000),
                   args.seed, full=True)
    ztree = kary_tree(2, 33)
    zleaves = zipf_leaves(args.records, args.distinct, args.seed)
    rows += compare(f"zipf (n={len(zleaves)}, h=33)", ztree, zleaves, Fraction(1000),
                    args.seed, full=False)
    print(f"{'dataset':<24} {'mechanism':<20} {'margin E':>11} {'beta':>6} {'worst err':>10} "
          f"{'beyond E':>9} {'seconds':>8} {'x BC':>6}  zero-count E[false Heavy]")
    for r in rows:
        extra = r.get("zero_count_expected_heavy")
        print(f"{r['dataset']:<24} {r['mechanism']:<20} {float(r['E']):>11.2f} "
              f"{r['beta']!s:>6} {float(r['worst']):>10.1f} {float(r['beyond']):>9.1f} "
              f"{r['seconds']:>8.2f} {r['ratio']:>6.2f}  "
              f"{'' if extra is None else f'{extra:.3g}'}")
    c = counting_row(utree, uleaves, args.seed)
    print(f"tree counting (App. E) on unicode: rounds {c['rounds']}, B = {c['B']:.0f}, "
          f"alpha = {c['alpha']}, worst |est - c| = {c['worst']:.0f}, beyond max(alpha c, B) = "
          f"{max(c['beyond'], 0):.0f}, {c['seconds']:.2f} s")


if __name__ == "__main__":
    main()
