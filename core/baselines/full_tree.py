"""The full-tree baselines (Alg. 5): every node releases `c_u + Z_u`, Heavy iff it is `>= τ`.

A record sits on exactly `h` nodes (one per level), so the vector of all node counts has L1
sensitivity `h` and L2 sensitivity `sqrt(h)` (Section 2, Eq. (4)).

* Laplace: `Z_u ~ Lap(h/ε)`, `ε`-DP by the Laplace mechanism; margin
  `E_Lap = (h/ε)·ln(N/β)` (Eq. (27)): `P(some |Z_u| > E_Lap) <= N·e^{-(ε/h)·E_Lap} = β`.
  Released through the exact sampler: the decision "`c_u + Z >= τ`" is a two-outcome threshold
  test, i.e. the `BTQuery` with `a = b = τ` and rate `λ = ε/h` (`B` then has probability 0; if
  a replayed transcript answers `B`, the noisy count equals `τ` and the node is Heavy).
* Gaussian (`0 < ε < 1`, `0 < δ < 1/2`): `σ² = 2h·ln(1.25/δ)/ε²` (Eq. (28)), margin
  `E_Gauss = σ·sqrt(2·ln(2N/β))` (Eq. (30)). No exact Gaussian sampler exists here: the
  Gaussian baseline draws float noise (numpy) and refuses to run unless the caller passes
  `allow_float_gaussian=True`. It is unvetted float noise, for comparison only.

Both margins are probabilistic: they hold for all nodes at once except with probability `β`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from mpmath import iv

from betweencut.data.tree import Node, PublicTree
from betweencut.data.validate import positive_rational, seed_integer
from betweencut.errors import ParameterError, public_height
from betweencut.mechanism.betweencut import path_counts
from betweencut.mechanism.params import public_tau
from betweencut.noise.bt_sampler import ExactSampler
from betweencut.noise.noisy_test import BTQuery, NoisyTest, Outcome
from betweencut.numbers.certified import midpoint, q
from betweencut.numbers.exact import LogReal, as_rational

Step = tuple[Node, Outcome]


_height = public_height


def _beta(beta: object) -> Fraction:
    b = as_rational(beta, "beta")
    if not 0 < b < 1:
        raise ParameterError("beta", b, "0 < beta < 1 (failure probability of the margin)")
    return b


def _epsilon(epsilon: object) -> Fraction:
    return positive_rational(epsilon, "epsilon", text=True)


def _node_count(n_nodes: object) -> int:
    if not isinstance(n_nodes, int) or isinstance(n_nodes, bool) or n_nodes < 1:
        raise ParameterError("n_nodes", n_nodes, "an integer N >= 1 (number of tree nodes)")
    return n_nodes


@dataclass(frozen=True)
class FullTreeRun:
    """Heavy set and the per-node decisions, in the order asked."""

    heavy: frozenset[Node]
    transcript: tuple[Step, ...]


@dataclass(frozen=True)
class FullTreeLaplace:
    """Alg. 5 with Laplace noise `Lap(h/ε)`, drawn exactly through a `NoisyTest`."""

    tau: Fraction
    epsilon: Fraction
    height: int

    @staticmethod
    def of(tau: object, epsilon: object, height: object) -> FullTreeLaplace:
        t = public_tau(tau)
        return FullTreeLaplace(t, _epsilon(epsilon), _height(height))

    @property
    def lam(self) -> Fraction:
        """The rate `ε/h`: the noise is `Lap(h/ε)`."""
        return self.epsilon / self.height

    def query(self, count: int, node: Node) -> BTQuery:
        """The two-outcome test `c + Z >= τ` as a BT call with `a = b = τ`."""
        return BTQuery(Fraction(count), self.tau, self.tau, self.lam, node)

    def run(
        self,
        tree: PublicTree,
        leaves: Iterable[Node],
        test: NoisyTest | None = None,
        nodes: Iterable[Node] | None = None,
    ) -> FullTreeRun:
        """Alg. 5: one noisy test per node of `tree` (or of `nodes`, a public subset)."""
        if tree.height != self.height:
            raise ParameterError("tree", tree.description, f"a tree of height {self.height}")
        counts = path_counts(leaves)
        noisy = test if test is not None else ExactSampler()
        heavy: list[Node] = []
        steps: list[Step] = []
        for u in tree.nodes() if nodes is None else nodes:
            s = noisy(self.query(counts.get(u, 0), u))
            steps.append((u, s))
            if s is not Outcome.L:  # H, or B = the noisy count equals tau (probability 0)
                heavy.append(u)
        return FullTreeRun(frozenset(heavy), tuple(steps))

    def margin(self, n_nodes: int, beta: object) -> LogReal:
        """`E_Lap = (h/ε)·ln(N/β)` (Eq. (27)), exact."""
        return laplace_margin(self.height, self.epsilon, n_nodes, beta)


def laplace_margin(height: int, epsilon: object, n_nodes: int, beta: object) -> LogReal:
    """`E_Lap = (h/ε)·ln(N/β)` (Eq. (27)) as the exact form `0 + (h/ε)·ln(N/β)`."""
    e = _epsilon(epsilon)
    return LogReal(Fraction(0), _height(height) / e, _node_count(n_nodes) / _beta(beta))


def check_gaussian_budget(epsilon: object, delta: object) -> tuple[Fraction, Fraction]:
    """The range of Eq. (28): `0 < ε < 1`, `0 < δ < 1/2`."""
    e = as_rational(epsilon, "epsilon")
    if not 0 < e < 1:
        raise ParameterError("epsilon", e, "0 < epsilon < 1 (the range of Eq. (28))")
    d = as_rational(delta, "delta")
    if not 0 < d < Fraction(1, 2):
        raise ParameterError("delta", d, "0 < delta < 1/2 (the range of Eq. (28))")
    return e, d


def gaussian_sigma_iv(height: int, epsilon: Fraction, delta: Fraction) -> Any:
    """Certified interval of `σ = sqrt(2h·ln(1.25/δ))/ε` (Eq. (28)); call inside
    `betweencut.numbers.exact.iv_precision`."""
    return iv.sqrt(2 * height * iv.log(q(Fraction(5, 4) / delta))) / q(epsilon)


@dataclass(frozen=True)
class FullTreeGaussian:
    """Alg. 5 with Gaussian noise `N(0, σ²)`, `σ² = 2h·ln(1.25/δ)/ε²` (Eq. (28)).

    UNVETTED FLOAT NOISE, for comparison only: `run` refuses unless
    `allow_float_gaussian=True`. Floating-point Gaussian samplers are known to leak through
    rounding (Mironov 2012 for Laplace; the same holds here).
    """

    tau: Fraction
    epsilon: Fraction
    delta: Fraction
    height: int

    @staticmethod
    def of(tau: object, epsilon: object, delta: object, height: object) -> FullTreeGaussian:
        t = positive_rational(tau, "tau", " (public)", text=True, zero=True)
        e, d = check_gaussian_budget(epsilon, delta)
        return FullTreeGaussian(t, e, d, _height(height))

    def sigma(self) -> float:
        """`σ` as a float (it only scales float noise; never decides a verdict)."""
        return midpoint(lambda: gaussian_sigma_iv(self.height, self.epsilon, self.delta))

    def run(
        self,
        tree: PublicTree,
        leaves: Iterable[Node],
        *,
        allow_float_gaussian: bool = False,
        seed: int | bytes | None = None,
        nodes: Iterable[Node] | None = None,
    ) -> FullTreeRun:
        if not allow_float_gaussian:
            raise ParameterError(
                "allow_float_gaussian", allow_float_gaussian,
                "True (explicit opt-in: this baseline draws unvetted float Gaussian noise, "
                "for comparison only)",
            )
        if tree.height != self.height:
            raise ParameterError("tree", tree.description, f"a tree of height {self.height}")
        counts = path_counts(leaves)
        rng = np.random.default_rng(seed_integer(seed))
        sigma = self.sigma()
        tau = float(self.tau)
        heavy: list[Node] = []
        steps: list[Step] = []
        for u in tree.nodes() if nodes is None else nodes:
            s = Outcome.H if counts.get(u, 0) + rng.normal(0.0, sigma) >= tau else Outcome.L
            steps.append((u, s))
            if s is Outcome.H:
                heavy.append(u)
        return FullTreeRun(frozenset(heavy), tuple(steps))


def kary_node_count(arity: int, height: int) -> int:
    """`N = (k^h - 1)/(k - 1)` nodes of the complete k-ary tree of height `h` (`N = h` if k = 1)."""
    if arity == 1:
        return height
    return int((arity**height - 1) // (arity - 1))


def margin_violations(
    heavy: frozenset[Node], counts: dict[Node, int], nodes: Iterator[Node] | Iterable[Node],
    tau: Fraction,
) -> tuple[Fraction, Fraction]:
    """`(worst Heavy error, worst Light error)`: the largest `τ - c_u` over Heavy nodes and the
    largest `c_u - τ` over Light nodes (0 if none is on the wrong side of `τ`)."""
    worst_h, worst_l = Fraction(0), Fraction(0)
    for u in nodes:
        c = counts.get(u, 0)
        if u in heavy:
            worst_h = max(worst_h, tau - c)
        else:
            worst_l = max(worst_l, c - tau)
    return worst_h, worst_l
