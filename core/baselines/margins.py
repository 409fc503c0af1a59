"""Additive margins against the tree height (Section 5.3, Table 1), certified, and crossovers.

Every margin is a formula in exact public inputs evaluated in mpmath interval arithmetic
(`betweencut.numbers.certified`), so a comparison between two margins is certified or `Undecided`.

* BetweenCut: `E = 1 + (r/ε)·(1 + ln(L/δ))` (Theorem 5.6, Eq. (24), via `calibrate`); deterministic.
* Eq. (25), its relaxation `1 + (5·ln(2/δ)/ε)·(1 + ln(X/δ))`, in both readings `X = L` and
  `X = log2 h` (undefined at `h = 1`, where `log2 h = 0`).
* Full-tree Laplace `(h/ε)·ln(N/β)` (Eq. (27)) and Gaussian `σ·sqrt(2·ln(2N/β))`,
  `σ² = 2h·ln(1.25/δ)/ε²` (Eq. (28), (30)), `N` the node count of the complete k-ary tree;
  probabilistic (failure probability β). Eq. (28) needs `ε < 1`: at `ε = 1` it is shown, flagged.
* Ghazi et al. `(2M/(ετ))·max{48·ln(2h/β), 6·ln(1 + (e^{ε/2} − 1)/δ)}` (Eq. (10), (37)), with a
  public bound `M >= n` and the threshold `τ`; probabilistic.
* Lumberjack-style (`betweencut.baselines.lumberjack`): `R = 1 + σ_LJ·sqrt(2·ln(L/δ))`,
  `σ_LJ = sqrt(2L·ln(2.5/δ))/ε`; deterministic.

Crossover: BetweenCut's margin depends on `h` only through `L`, so it is constant on each block
`2^(L-1) <= h < 2^L`, while every baseline is non-decreasing in `h`. On a block, BetweenCut is at
most the baseline everywhere once it is at the block's first height where it is; a binary
search inside a block finds that height. The crossover of a baseline is the least `h*` such
that BetweenCut's margin is `<=` the baseline's at every searched `h >= h*`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from mpmath import iv

from betweencut.baselines.lumberjack import lumberjack_calibrate
from betweencut.data.validate import MAX_ARITY, bounded_int, exact_value, positive_rational
from betweencut.errors import ParameterError
from betweencut.mechanism.calibration import calibrate, check_privacy_budget
from betweencut.numbers.bisection import certified_bisect, grid_midpoint
from betweencut.numbers.certified import bounds, certified_compare, midpoint, q

MIN_DELTA = Fraction(1, 10**300)  # measured: 1e-300 about 10-35 s, 1e-1000 over 2 min
BASELINES = ("laplace", "gaussian", "ghazi", "lumberjack")
DETERMINISTIC = {"betweencut": True, "eq25_L": True, "eq25_log2h": True, "laplace": False,
                 "gaussian": False, "ghazi": False, "lumberjack": True}


def _ln_node_count(arity: int, height: int) -> Any:
    """`ln N` for the complete k-ary tree, `N = (k^h - 1)/(k - 1)`, without forming `k^h`
    when it is huge: `ln N = h·ln k + ln((1 - k^-h)/(k - 1))`."""
    if arity == 1:
        return iv.log(height)
    if height <= 4096:
        return iv.log(q((arity**height - 1) // (arity - 1)))
    return height * iv.log(arity) + iv.log((1 - iv.mpf(arity) ** (-height)) / (arity - 1))


def _iv_max(x: Any, y: Any) -> Any:
    return iv.mpf([max(x.a, y.a), max(x.b, y.b)])


@dataclass(frozen=True)
class MarginSetting:
    """The public parameters of the comparison."""

    epsilon: Fraction
    delta: Fraction
    beta: Fraction
    arity: int
    tau: Fraction
    ghazi_m: Fraction

    @staticmethod
    def of(epsilon: object, delta: object, beta: object = Fraction(1, 100), arity: object = 2,
           tau: object = 1000, ghazi_m: object = 100000) -> MarginSetting:
        eps, dlt = check_privacy_budget(epsilon, delta)
        if dlt < MIN_DELTA:
            raise ParameterError(
                "delta", dlt, "delta >= 1e-300 for the margins comparison",
                "the Lumberjack-style crossover scans about 4.5*ln(1/delta) height blocks",
            )
        b = exact_value(beta, "beta")
        if not 0 < b < Fraction(1, 2):
            raise ParameterError("beta", b, "0 < beta < 1/2 (failure probability, Table 1)")
        k = bounded_int(arity, "arity", 1, MAX_ARITY)
        t = positive_rational(tau, "tau", " (Ghazi et al.'s margin divides by tau)", text=True)
        m = exact_value(ghazi_m, "M")
        if m < 1:
            raise ParameterError("M", m, "M >= 1 (a public upper bound on n)")
        return MarginSetting(eps, dlt, b, k, t, m)

    # -- formulas: each returns a zero-argument interval builder, or None if undefined -------
    def betweencut(self, h: int) -> Callable[[], Any]:
        e = calibrate(h, self.epsilon, self.delta).E
        return lambda: q(e.const) + q(e.coeff) * iv.log(q(e.arg))

    def eq25(self, h: int, reading: str) -> Callable[[], Any] | None:
        big_l = h.bit_length()
        if reading == "L":
            x: Callable[[], Any] = lambda: iv.mpf(big_l)  # noqa: E731
        elif h == 1:
            return None  # log2(1) = 0: ln(0/δ) is undefined (the bound is -infinity)
        else:
            x = lambda: iv.log(h) / iv.log(2)  # noqa: E731
        eps, dlt = self.epsilon, self.delta
        return lambda: 1 + 5 * iv.log(q(2 / dlt)) / q(eps) * (1 + iv.log(x() / q(dlt)))

    def laplace(self, h: int) -> Callable[[], Any]:
        eps, beta, k = self.epsilon, self.beta, self.arity
        return lambda: h / q(eps) * (_ln_node_count(k, h) - iv.log(q(beta)))

    def gaussian(self, h: int) -> Callable[[], Any]:
        eps, dlt, beta, k = self.epsilon, self.delta, self.beta, self.arity

        def f() -> Any:
            sigma = iv.sqrt(2 * h * iv.log(q(Fraction(5, 4) / dlt))) / q(eps)
            return sigma * iv.sqrt(2 * (iv.log(2) + _ln_node_count(k, h) - iv.log(q(beta))))

        return f

    def ghazi(self, h: int) -> Callable[[], Any]:
        eps, dlt, beta, tau, m = self.epsilon, self.delta, self.beta, self.tau, self.ghazi_m

        def f() -> Any:
            first = 48 * iv.log(2 * h / q(beta))
            second = 6 * iv.log(1 + (iv.exp(q(eps) / 2) - 1) / q(dlt))
            return 2 * q(m) / (q(eps) * q(tau)) * _iv_max(first, second)

        return f

    def lumberjack(self, h: int) -> Callable[[], Any]:
        """`R` of the calibration the Lumberjack-style mechanism runs with."""
        return lumberjack_calibrate(h, self.epsilon, self.delta).R_iv

    def formula(self, name: str, h: int) -> Callable[[], Any] | None:
        if name == "eq25_L":
            return self.eq25(h, "L")
        if name == "eq25_log2h":
            return self.eq25(h, "log2h")
        fn: Callable[[int], Callable[[], Any]] = getattr(self, name)
        return fn(h)

    def notes(self) -> list[str]:
        out = [
            "betweencut, eq25_*, lumberjack: deterministic margins (beta = 0).",
            f"laplace, gaussian, ghazi: hold except with probability beta = {self.beta}.",
            f"ghazi: Eq. (10) with public M = {self.ghazi_m} >= n and tau = {self.tau}.",
            "lumberjack: the Lumberjack-style baseline of betweencut.baselines.lumberjack "
            "(Gaussian noise for L = ceil(log2(h+1)) composed tests, delta split in halves).",
            "Biswas et al. (Eq. (11)): no constants are given, not tabulated.",
        ]
        if self.epsilon >= 1:
            out.append("gaussian: the classical Gaussian bound (Eq. (28)) is stated for "
                       "epsilon < 1; at epsilon = 1 it is shown for comparison only. "
                       "lumberjack: its calibration is checked against the exact Gaussian "
                       "privacy profile, epsilon = 1 included (betweencut audit baselines).")
        return out


ALL = ("betweencut", "eq25_L", "eq25_log2h", "laplace", "gaussian", "ghazi", "lumberjack")
LABELS = {  # each margin's name in tables and plots (the command line's and the notebooks')
    "betweencut": "BetweenCut (Eq. 24)", "eq25_L": "Eq. 25, X = L",
    "eq25_log2h": "Eq. 25, X = log2 h",
    "laplace": "full-tree Laplace (Eq. 27)", "gaussian": "full-tree Gaussian (Eq. 30)",
    "ghazi": "Ghazi et al. (Eq. 10)", "lumberjack": "Lumberjack-style",
}


def margin_row(setting: MarginSetting, h: int) -> dict[str, Any]:
    """All margins at height `h` (floats for display) and which Eq. (25) reading bounds `E`."""
    if not isinstance(h, int) or isinstance(h, bool) or h < 1:
        raise ParameterError("height", h, "an integer h >= 1")
    row: dict[str, Any] = {"h": h, "L": h.bit_length()}
    bc = setting.betweencut(h)
    for name in ALL:
        f = setting.formula(name, h)
        row[name] = None if f is None else midpoint(f)
    for reading in ("L", "log2h"):
        g = setting.eq25(h, reading)
        row[f"eq25_{reading}_bounds_E"] = None if g is None else certified_compare(bc, g) <= 0
    return row


@dataclass(frozen=True)
class Crossover:
    """`height`: least h* with BetweenCut's margin <= the baseline's at every searched h >= h*
    (None if it is larger at the last searched height); searched `1 <= h < 2^max_L`."""

    baseline: str
    height: int | None
    max_L: int
    all_heights: bool = False

    def as_json(self) -> dict[str, Any]:
        h = self.height
        return {"baseline": self.baseline, "height": h,
                "log2_height": None if h is None else round(_log2(h), 3),
                "searched_heights_below": f"2^{self.max_L}",
                "certified_for_all_larger_h": self.all_heights}


def _log2(h: int) -> float:
    """log2 of a possibly huge int, for display."""
    shift = max(h.bit_length() - 60, 0)
    from math import log2

    return log2(h >> shift) + shift


def crossover(setting: MarginSetting, baseline: str, max_L: int = 1024) -> Crossover:
    """The crossover height of Section 5.3 for `baseline`, by certified comparisons.

    For `lumberjack` (both margins depend on `h` only through `L`) the blocks from
    `L_a = max(r0, ⌈r0²/(2c)⌉)` on are searched by doubling and bisection, which is exact there
    (see `lumberjack_tail`), up to `L = 2^40`; the answer then holds for all larger `h`.
    """
    if baseline not in BASELINES:
        raise ParameterError("baseline", baseline, f"one of {', '.join(BASELINES)}")

    def bc_le(h: int) -> bool:
        other = setting.formula(baseline, h)
        if other is None:
            return False
        return certified_compare(setting.betweencut(h), other) <= 0

    scan_to = max_L
    if baseline == "lumberjack":
        scan_to = _lumberjack_monotone_from(setting) - 1
    last_fail = 0
    for big_l in range(1, scan_to + 1):
        lo, hi = 1 << (big_l - 1), (1 << big_l) - 1
        if bc_le(lo):
            continue
        if not bc_le(hi):
            last_fail = hi
            continue
        _, last_fail = certified_bisect(bc_le, hi, lo, grid_midpoint)
    if baseline == "lumberjack":
        start = scan_to + 1
        if not bc_le(1 << (start - 1)):
            bound = 1 << 40
            step = 1
            while start + step <= bound and not bc_le(1 << (start + step - 1)):
                step *= 2
            if start + step > bound and not bc_le(1 << (bound - 1)):
                return Crossover(baseline, None, bound)
            lo_l, hi_l = start + step // 2, min(start + step, bound)  # fails at lo_l, holds hi_l
            if step == 1:
                lo_l = start
            hi_l, _ = certified_bisect(lambda big_l: bc_le(1 << (big_l - 1)), hi_l, lo_l,
                                       grid_midpoint)
            last_fail = (1 << hi_l - 1) - 1
        return Crossover(baseline, last_fail + 1, max(max_L, start), True)
    final = (1 << max_L) - 1
    if last_fail == final:
        return Crossover(baseline, None, max_L)
    return Crossover(baseline, last_fail + 1, max_L)


def _lumberjack_monotone_from(setting: MarginSetting) -> int:
    """`L_a = max(r0, ⌈r0²/(2c)⌉)`, `c = ln(2.5/δ)`, with a certified ceiling.

    For `L >= r0` both margins are `1 + (1/ε)·(...)`, and BetweenCut <= LJ iff
    `f(x) = 4δc·e^x·x - r0²(1 + x)² >= 0` with `x = ln(L/δ)` (square both sides, `L = δe^x`).
    `f'(x) = (1 + x)(4δc·e^x - 2r0²) >= 0` once `L >= r0²/(2c)`: from `L_a` on, the set of `L`
    where BetweenCut <= LJ is an up-set, so bisection over `L` finds its least element.
    """
    r0 = calibrate(1, setting.epsilon, setting.delta).r0
    _lo, hi = bounds(lambda: iv.mpf(r0 * r0) / (2 * iv.log(q(Fraction(5, 2) / setting.delta))))
    return max(r0, math.ceil(hi), 1)
