"""Numerical tree counting from BetweenCut (Appendix E, Eq. (131)-(138), Theorem E.1).

Rounds `j = 1, 2, ...` run BetweenCut calibrated to `(ε_j, δ_j)` (Theorem 5.5) at threshold
`θ_j` on the original tree and database, with fresh labels and noise; a node's first Light round
`j(u)` fixes its estimate `ĉ_u = 0` if `j(u) = 1`, else `(1 + γ)·θ_{j(u)}` (Eq. (138)); the
procedure stops when the root is Light. Schedule (Eq. (133)-(135)):
`γ = α/8`, `g = 1 + α/2`, `ρ = g^{-1/2}`, `p = 1 - ρ`, `θ_j = θ_1·g^{j-1}`,
`ε_j = ε·p·ρ^{j-1}`, `δ_j = δ·p·ρ^{j-1}`, so `Σ ε_j <= ε`, `Σ δ_j <= δ` (Eq. (136)-(137)).

Exactness. The released mechanism needs rational `λ_j = ε_j/r_j`, so `ρ` must be rational: `α`
must make `1 + α/2` the square of a rational (`alpha_for_rho(ρ) = 2(1/ρ² - 1)`, e.g.
`ρ = 8/9 -> α = 17/32`). `θ_1 = e_h(εp, δp)/γ` (Eq. (134)) is irrational; we use the integer
`θ_1 = ⌈upper bound of e_h(εp, δp)/γ⌉`. Raising `θ_1` keeps `e_h(ε_j, δ_j) <= γ·θ_j` for every `j`
(Eq. (147)-(152), proved for the exact `θ_1` by `betweencut.proofs.baselines.appendix_e`), which is
the only
fact the proof of Theorem E.1 uses, with `B = (1 + γ)·θ_1` for the `θ_1` used.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from mpmath import iv

from betweencut.data.tree import Node, PublicTree
from betweencut.errors import ParameterError
from betweencut.mechanism.betweencut import DENSE_NODE_LIMIT, BetweenCut, path_counts
from betweencut.mechanism.calibration import calibrate, check_privacy_budget
from betweencut.mechanism.sparse import sparse_between_cut
from betweencut.noise.bt_sampler import ExactSampler
from betweencut.noise.noisy_test import NoisyTest
from betweencut.numbers.certified import bounds, q
from betweencut.numbers.exact import as_rational

MAX_ROUNDS = 10_000


def alpha_for_rho(rho: object) -> Fraction:
    """The `α` whose `ρ = (1 + α/2)^{-1/2}` is the given rational `ρ`: `α = 2(1/ρ² - 1)`."""
    r = as_rational(rho, "rho")
    if not 0 < r < 1:
        raise ParameterError("rho", r, "0 < rho < 1")
    return 2 * (1 / r**2 - 1)


def _rational_sqrt(x: Fraction) -> Fraction | None:
    n, d = math.isqrt(x.numerator), math.isqrt(x.denominator)
    return Fraction(n, d) if n * n == x.numerator and d * d == x.denominator else None


def e_h_iv(height: int, eps: Fraction, dlt: Fraction) -> Any:
    """`e_h(ε', δ') = (16/ε')·ln(1/δ')·(ln(1/δ') + ln ln h)` (Eq. (131)) as an interval."""
    ell = iv.log(q(1 / dlt))
    return 16 / q(eps) * ell * (ell + iv.log(iv.log(height)))


@dataclass(frozen=True)
class CountingSchedule:
    """Eq. (133)-(135) with a rational `ρ` and the integer `θ_1` described above."""

    height: int
    alpha: Fraction
    epsilon: Fraction
    delta: Fraction
    gamma: Fraction
    g: Fraction
    rho: Fraction
    p: Fraction
    theta1: int

    @staticmethod
    def of(height: object, alpha: object, epsilon: object, delta: object) -> CountingSchedule:
        if not isinstance(height, int) or isinstance(height, bool) or height < 3:
            raise ParameterError("height", height, "an integer h >= 3 (Theorem E.1)")
        a = as_rational(alpha, "alpha")
        if not 0 < a < 1:
            raise ParameterError("alpha", a, "0 < alpha < 1")
        eps, dlt = check_privacy_budget(epsilon, delta)
        g = 1 + a / 2
        root = _rational_sqrt(g)
        if root is None:
            raise ParameterError(
                "alpha", a, "an alpha with 1 + alpha/2 a rational square, so that rho is "
                "rational (e.g. alpha_for_rho(8/9) = 17/32, alpha_for_rho(9/10) = 38/81)",
            )
        rho = 1 / root
        p = 1 - rho
        gamma = a / 8
        _, hi = bounds(lambda: e_h_iv(height, eps * p, dlt * p) / q(gamma))
        return CountingSchedule(height, a, eps, dlt, gamma, g, rho, p, math.ceil(hi))

    def theta(self, j: int) -> Fraction:
        return self.theta1 * self.g ** (j - 1)

    def epsilon_j(self, j: int) -> Fraction:
        return self.epsilon * self.p * self.rho ** (j - 1)

    def delta_j(self, j: int) -> Fraction:
        return self.delta * self.p * self.rho ** (j - 1)

    @property
    def B(self) -> Fraction:
        """`B = (1 + γ)·θ_1` (Eq. (140))."""
        return (1 + self.gamma) * self.theta1

    def estimate(self, first_light_round: int) -> Fraction:
        """Eq. (138)."""
        return Fraction(0) if first_light_round == 1 else (1 + self.gamma) * self.theta(
            first_light_round)


@dataclass(frozen=True)
class CountingRun:
    """Estimates for the nodes of positive count (every other node's estimate is 0, its first
    Light round 1), first Light rounds, and the number of rounds run."""

    estimates: dict[Node, Fraction]
    first_light: dict[Node, int]
    rounds: int
    schedule: CountingSchedule

    def estimate(self, u: Node) -> Fraction:
        return self.estimates.get(u, Fraction(0))


def tree_counting(
    tree: PublicTree,
    leaves: Sequence[Node],
    schedule: CountingSchedule,
    test: NoisyTest | None = None,
    *,
    sparse: bool | None = None,
) -> CountingRun:
    """Appendix E's estimator A_count. `sparse=None` picks the sparse implementation (valid:
    `θ_j >= e_h/γ >= E_j`) for trees over `DENSE_NODE_LIMIT` nodes."""
    if tree.height != schedule.height:
        raise ParameterError("tree", tree.description, f"a tree of height {schedule.height}")
    noisy = test if test is not None else ExactSampler()
    if sparse is None:
        sparse = tree.size(limit=DENSE_NODE_LIMIT) > DENSE_NODE_LIMIT
    positive = list(path_counts(leaves))
    first_light: dict[Node, int] = {}
    j = 0
    while True:
        j += 1
        if j > MAX_ROUNDS:
            raise ParameterError("rounds", j, f"at most {MAX_ROUNDS} rounds (a public cap)")
        cal = calibrate(tree.height, schedule.epsilon_j(j), schedule.delta_j(j))
        params = cal.params(schedule.theta(j))
        if sparse:
            heavy = sparse_between_cut(tree, leaves, params, noisy).heavy
        else:
            heavy = BetweenCut(tree, params).run(leaves, noisy).heavy
        for u in positive:
            if u not in first_light and u not in heavy:
                first_light[u] = j
        if () not in heavy:  # the root is Light: stop
            break
    estimates = {u: schedule.estimate(first_light[u]) for u in positive}
    return CountingRun(estimates, first_light, j, schedule)


def theorem_e1_violations(
    run: CountingRun, leaves: Sequence[Node]
) -> list[tuple[Node, int, Fraction]]:
    """Nodes of positive count with `|ĉ_u - c_u| > max(α·c_u, B)` (Eq. (139)); zero-count nodes
    have `ĉ_u = 0 = c_u`. Empty on every run if Theorem E.1 holds."""
    s = run.schedule
    bad = []
    for u, c in path_counts(leaves).items():
        est = run.estimate(u)
        if abs(est - c) > max(s.alpha * c, s.B):
            bad.append((u, c, est))
    return bad

