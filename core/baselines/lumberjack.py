"""A Lumberjack-style baseline (Section 3): BetweenCut's traversal with a two-outcome Gaussian test.

The same public schedule as Alg. 3 (levels in DepO order, each level in public order, labelled
nodes skipped); each query is a guarded two-outcome threshold test

    c <= τ - R  -> L (deterministic);   c >= τ + R -> H (deterministic);
    otherwise   -> H iff c + Z >= τ, Z ~ N(0, σ²) fresh;

`H` marks the node and its ancestors Heavy (MarkUp), `L` marks it and its descendants Light
(MarkDown), exactly as Alg. 3 does for those outcomes (there is no `B`).

Calibration (derivation). Fix `0 < ε <= 1`, `0 < δ < 1`, `L = ⌈log2(h + 1)⌉`.
1. Participation. With only `L`/`H` answers the marking is a binary search per path, so every
   root-to-leaf path holds at most `L` queried nodes (Lemma 4.2, Eq. (14), same proof).
2. Neighbours `D ~ D'` differ by one record `z`: off `P_z` every query has the same law. On
   `P_z`, a query with both counts strictly inside the guard band is a Gaussian mechanism of
   sensitivity 1, i.e. `(1/σ)`-GDP; with both counts guarded on the same side the laws are equal;
   with one guarded (say `c0 <= τ - R < c1 = c0 + 1`) the laws differ only by the mass
   `κ = P(c1 + Z >= τ) <= P(Z >= R - 1) = Φ̄((R - 1)/σ)`.
3. Composition. Whether the i-th query lies on `P_z` is a function of the earlier answers, and at
   most `L` do, so the Gaussian parts compose (fully adaptively, GDP privacy filter) to
   `μ = sqrt(L)/σ`-GDP, and the guard parts add at most `L·Φ̄((R - 1)/σ)` to δ.
4. Choose `δ/2` for each part: `σ = sqrt(2L·ln(1.25/(δ/2)))/ε = sqrt(2L·ln(2.5/δ))/ε` (the classical
   Gaussian bound for sensitivity `sqrt(L)`, Eq. (28)'s form; the exact `μ`-GDP profile is
   checked by `betweencut.proofs.baselines.lumberjack`, which also covers ε = 1), and
   `R = 1 + σ·sqrt(2·ln(L/δ))`, so that with `Φ̄(x) <= ½e^{-x²/2}`:
   `L·Φ̄((R - 1)/σ) <= (L/2)·e^{-ln(L/δ)} = δ/2`.
5. Margin: a node with `c >= τ + R` is never Light (its own test and every ancestor's are
   guarded `H`, and only those can label it `L`), symmetrically for `c <= τ - R`:
   deterministic margin `E_LJ = R`.

The Gaussian draw is float noise (numpy): `run` refuses it unless `allow_float_gaussian=True`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from mpmath import iv

from betweencut.data.tree import Node, PublicTree
from betweencut.data.validate import seed_integer
from betweencut.errors import ParameterError, public_height
from betweencut.mechanism.betweencut import BetweenCut, Run
from betweencut.mechanism.calibration import check_privacy_budget, path_query_bound
from betweencut.mechanism.params import Params
from betweencut.noise.noisy_test import NoisyTest, Outcome
from betweencut.numbers.certified import bounds, midpoint, q
from betweencut.numbers.exact import refine


@dataclass(frozen=True)
class LumberjackCalibration:
    """`σ² = sigma_sq_coeff·ln(sigma_sq_arg)`, `R = 1 + sqrt(σ²·2·ln(guard_arg))` (exact inputs)."""

    height: int
    epsilon: Fraction
    delta: Fraction
    L: int
    sigma_sq_coeff: Fraction  # 2L/ε²
    sigma_sq_arg: Fraction  # 2.5/δ
    guard_arg: Fraction  # L/δ

    def sigma_iv(self) -> Any:
        return iv.sqrt(q(self.sigma_sq_coeff) * iv.log(q(self.sigma_sq_arg)))

    def R_iv(self) -> Any:
        return 1 + self.sigma_iv() * iv.sqrt(2 * iv.log(q(self.guard_arg)))

    @property
    def sigma(self) -> float:
        """σ as a float: it scales the float noise only."""
        return midpoint(self.sigma_iv)

    @property
    def margin(self) -> float:
        """`E_LJ = R` for display (the guards use certified integer cuts)."""
        return midpoint(self.R_iv)

    def cuts(self, tau: Fraction) -> tuple[int, int]:
        """`(floor(τ - R), ceil(τ + R))`, certified: `c <= first` is guarded L, `c >= second` H."""

        def decided(prec: int) -> tuple[int, int] | None:
            lo, hi = bounds(self.R_iv, prec)
            low = (math.floor(tau - hi), math.floor(tau - lo))
            high = (math.ceil(tau + lo), math.ceil(tau + hi))
            return (low[0], high[0]) if low[0] == low[1] and high[0] == high[1] else None

        return refine(decided, lambda: f"the guard cuts of tau = {tau} +- R")[0]


def lumberjack_calibrate(height: object, epsilon: object, delta: object) -> LumberjackCalibration:
    """The calibration of the module docstring, step 4."""
    height = public_height(height)
    eps, dlt = check_privacy_budget(epsilon, delta)
    big_l = path_query_bound(height)
    return LumberjackCalibration(height, eps, dlt, big_l, 2 * big_l / eps**2,
                                 Fraction(5, 2) / dlt, big_l / dlt)


@dataclass(frozen=True)
class GuardedGaussianTest:
    """The two-outcome guarded Gaussian test; the `test` argument of the BT seam is unused."""

    tau: Fraction
    lower_cut: int
    upper_cut: int
    sigma: float
    rng: np.random.Generator

    def guard(self, count: int) -> Outcome | None:
        if count <= self.lower_cut:
            return Outcome.L
        if count >= self.upper_cut:
            return Outcome.H
        return None

    def __call__(self, count: int, test: NoisyTest | None = None, node: object = None) -> Outcome:
        decided = self.guard(count)
        if decided is not None:
            return decided
        noisy = count + float(self.rng.normal(0.0, self.sigma))
        return Outcome.H if noisy >= float(self.tau) else Outcome.L


class LumberjackStyle(BetweenCut):
    """Alg. 3's traversal and marking, with `GuardedGaussianTest` in place of GuardedBT.

    UNVETTED FLOAT NOISE: `run` needs `allow_float_gaussian=True`.
    """

    def __init__(self, tree: PublicTree, tau: object, cal: LumberjackCalibration,
                 *, allow_float_gaussian: bool = False,
                 seed: int | bytes | None = None) -> None:
        if not allow_float_gaussian:
            raise ParameterError(
                "allow_float_gaussian", allow_float_gaussian,
                "True (explicit opt-in: unvetted float Gaussian noise, for comparison only)",
            )
        if tree.height != cal.height:
            raise ParameterError("tree", tree.description, f"a tree of height {cal.height}")
        self.cal = cal
        self.rng = np.random.default_rng(seed_integer(seed))
        # Params holds tau for reading; lam and R are unused by this variant's query.
        super().__init__(tree, Params.of(tau, 1, 1))

    def make_query(self) -> GuardedGaussianTest:  # type: ignore[override]
        lower, upper = self.cal.cuts(self.params.tau)
        return GuardedGaussianTest(self.params.tau, lower, upper, self.cal.sigma, self.rng)

    def run(self, leaves: Iterable[Node], test: NoisyTest | None = None) -> Run:
        """Classify `leaves`; `test` is ignored (the noise is the Gaussian of the query)."""
        return super().run(leaves, _NO_LAPLACE)


def _no_laplace(query: object) -> Outcome:
    raise ParameterError("test", "a Laplace NoisyTest", "none: the Lumberjack-style test is "
                         "Gaussian and never asks the BT seam")


_NO_LAPLACE: NoisyTest = _no_laplace
