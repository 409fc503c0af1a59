"""The sparse-vector corpus and report-noisy-max, written against `betweencut.noise.noisy_queries`.

From the pseudocode of Lyu, Su and Li, "Understanding the Sparse Vector Technique for
Differential Privacy" (PVLDB 10(6), 2017), Figure 1: their algorithms 1, 2, 4, 5 and 6 (the ones
whose output is a finite answer sequence), and report-noisy-max with Laplace noise (Dwork and
Roth 2014, Section 3.3) with two usual bugs. Every algorithm gets public inputs only: the
thresholds, the cutoff `c`, the claimed `ε` and the sensitivity `Δ`; the private input is the
vector of query answers `q_i(D)`.

Databases are multisets of records; a record is a tuple `r ∈ {0, 1, 2}^m` (a leaf of the
complete ternary tree of height `m`, so records are ordinary nodes) that moves query `i` by
`r_i - 1 ∈ {-1, 0, +1}`: `q_i(D) = Σ_{r ∈ D} (r_i - 1)`. Adding one record moves every query by at
most 1 and in either direction: exactly the neighbouring notion (`|q_i(D) - q_i(D')| <= Δ = 1`)
under which these algorithms are stated.

Gaussian noise (`noise=GAUSSIAN` on the same primitives): Zhu and Wang's Gaussian SVT
("Improving Sparse Vector Technique with Renyi Differential Privacy", NeurIPS 2020) with its
no-query-noise bug, report-noisy-max with Gaussian noise, and the Gaussian mechanism released on
a public grid (`gaussian_on_grid`, a finite view of the continuous Gaussian mechanism).

Algorithm 3 (Roth's lecture notes) releases the noisy value `q_i + ν_i` of a positive answer:
its output space is continuous, so it has no finite answer sequence. It could be audited here by
releasing instead the interval of a public rational grid that contains `q_i + ν_i` (a finite
refinement: another primitive whose answer is the cell index, law `F(b) - F(a)` given `ρ`);
the loss then grows without bound as the grid is refined, which is Lyu et al.'s ∞-DP verdict.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from betweencut.data.validate import exact_number, positive_rational
from betweencut.errors import ParameterError
from betweencut.noise.noisy_queries import (
    GAUSSIAN,
    LAPLACE,
    AboveThreshold,
    DrawNoise,
    NoisyMax,
    QueryTest,
)

__all__ = [
    "Grid",
    "gaussian_noisy_max",
    "gaussian_on_grid",
    "gaussian_svt",
    "gaussian_svt_no_query_noise",
    "noisy_max",
    "noisy_max_shared_noise",
    "noisy_max_small_scale",
    "query_answers",
    "svt_alg1",
    "svt_alg2",
    "svt_alg4",
    "svt_alg5",
    "svt_alg6",
]

Answers = tuple[bool, ...]


def query_answers(db: Sequence[tuple[int, ...]], m: int) -> tuple[Fraction, ...]:
    """`q_i(D) = Σ_{r ∈ D} (r_i - 1)` for records `r ∈ {0, 1, 2}^m` (sensitivity 1 per query)."""
    if m < 1:
        raise ParameterError("m", m, "at least one query")
    totals = [Fraction(0)] * m
    for record in db:
        if len(record) != m or any(x not in (0, 1, 2) for x in record):
            raise ParameterError("record", record, f"a tuple of {m} entries in {{0, 1, 2}}")
        for i, x in enumerate(record):
            totals[i] += x - 1
    return tuple(totals)


def _check(eps: Fraction, c: int | None, thresholds: Sequence[Fraction]) -> Fraction:
    """`eps` checked (returned as a `Fraction`), with the cutoff `c` and the thresholds."""
    checked = positive_rational(eps, "eps")
    if c is not None and (not isinstance(c, int) or c < 1):
        raise ParameterError("c", c, "an integer cutoff c >= 1")
    if not thresholds:
        raise ParameterError("thresholds", thresholds, "one public threshold per query")
    return checked


def _thresholds(q: Sequence[Fraction], thresholds: Sequence[Fraction]) -> list[Fraction]:
    if len(thresholds) != len(q):
        raise ParameterError("thresholds", len(thresholds), f"{len(q)} thresholds (one per query)")
    return [exact_number(t, f"thresholds[{i}]") for i, t in enumerate(thresholds)]


def _svt(q: Sequence[Fraction], thresholds: Sequence[Fraction], rho_scale: Fraction,
         nu_scale: Fraction, c: int | None, test: QueryTest, redraw: bool = False,
         noise: str = LAPLACE) -> Answers:
    """The shared skeleton: `⊤` iff `q_i + ν_i >= T_i + ρ`; stop after `c` ⊤ (None: never);
    `redraw` draws a fresh `ρ` after every ⊤ (Alg. 2); `noise` is the law of `ρ` and `ν_i`
    (scales: Laplace `b`, Gaussian `σ`)."""
    rho = test(DrawNoise(rho_scale, noise))
    out: list[bool] = []
    count = 0
    for qi, ti in zip(q, _thresholds(q, thresholds), strict=True):
        above = test(AboveThreshold(qi, ti, nu_scale, rho, noise))
        out.append(above)
        if above:
            count += 1
            if c is not None and count >= c:
                break  # abort: the remaining queries get no answer
            if redraw:
                rho = test(DrawNoise(rho_scale, noise))
    return tuple(out)


def svt_alg1(q: Sequence[Fraction], thresholds: Sequence[Fraction], c: int, eps: Fraction,
             test: QueryTest, sensitivity: Fraction = Fraction(1)) -> Answers:
    """Lyu et al.'s Alg. 1: `ε1 = ε/2`, `ρ = Lap(Δ/ε1)`, `ε2 = ε - ε1`, `ν_i = Lap(2cΔ/ε2)`,
    abort after `c` ⊤. Claimed (and proved) ε-DP."""
    eps = _check(eps, c, thresholds)
    e1 = Fraction(eps) / 2
    return _svt(q, thresholds, sensitivity / e1, 2 * c * sensitivity / (eps - e1), c, test)


def svt_alg2(q: Sequence[Fraction], thresholds: Sequence[Fraction], c: int, eps: Fraction,
             test: QueryTest, sensitivity: Fraction = Fraction(1)) -> Answers:
    """Dwork and Roth 2014 (Lyu et al.'s Alg. 2): `ε1 = ε/2`, `ρ = Lap(cΔ/ε1)`,
    `ν_i = Lap(2cΔ/ε1)`, a fresh `ρ` after every ⊤, abort after `c` ⊤. ε-DP."""
    eps = _check(eps, c, thresholds)
    e1 = Fraction(eps) / 2
    return _svt(q, thresholds, c * sensitivity / e1, 2 * c * sensitivity / e1, c, test,
                redraw=True)


def svt_alg4(q: Sequence[Fraction], thresholds: Sequence[Fraction], c: int, eps: Fraction,
             test: QueryTest, sensitivity: Fraction = Fraction(1)) -> Answers:
    """Lee and Clifton 2014 (Lyu et al.'s Alg. 4): `ε1 = ε/4`, `ρ = Lap(Δ/ε1)`,
    `ν_i = Lap(Δ/ε2)` with `ε2 = ε - ε1` (not scaled by `c`), abort after `c` ⊤. Claimed ε-DP;
    Lyu et al. prove only `((1 + 6c)/4)·ε`-DP."""
    eps = _check(eps, c, thresholds)
    e1 = Fraction(eps) / 4
    return _svt(q, thresholds, sensitivity / e1, sensitivity / (eps - e1), c, test)


def svt_alg5(q: Sequence[Fraction], thresholds: Sequence[Fraction], eps: Fraction,
             test: QueryTest, sensitivity: Fraction = Fraction(1)) -> Answers:
    """Stoddard et al. 2014 (Lyu et al.'s Alg. 5): `ρ = Lap(Δ/(ε/2))`, no query noise
    (`ν_i = 0`), no cutoff. Claimed ε-DP; private at no ε (∞-DP)."""
    eps = _check(eps, None, thresholds)
    return _svt(q, thresholds, 2 * sensitivity / eps, Fraction(0), None, test)


def svt_alg6(q: Sequence[Fraction], thresholds: Sequence[Fraction], eps: Fraction,
             test: QueryTest, sensitivity: Fraction = Fraction(1)) -> Answers:
    """Chen et al. 2015 (Lyu et al.'s Alg. 6): `ρ = Lap(Δ/ε1)`, `ν_i = Lap(Δ/ε2)`,
    `ε1 = ε2 = ε/2`, no cutoff. Claimed ε-DP; private at no ε (∞-DP): the loss grows with the
    number of queries."""
    eps = _check(eps, None, thresholds)
    return _svt(q, thresholds, 2 * sensitivity / eps, 2 * sensitivity / eps, None, test)


def noisy_max(q: Sequence[Fraction], eps: Fraction, test: QueryTest,
              sensitivity: Fraction = Fraction(1)) -> int:
    """Report-noisy-max: `argmax_i (q_i + Lap(2Δ/ε))`, ε-DP for queries of sensitivity `Δ`
    (Dwork and Roth 2014, Section 3.3; scale `Δ/ε` suffices only for monotone queries)."""
    eps = _check(eps, None, [Fraction(0)])
    return test(NoisyMax(tuple(q), 2 * sensitivity / eps))


def noisy_max_small_scale(q: Sequence[Fraction], eps: Fraction, test: QueryTest,
                          sensitivity: Fraction = Fraction(1)) -> int:
    """Bug: the noise scale is too small, `Lap(Δ/(2ε))` instead of `Lap(2Δ/ε)`."""
    eps = _check(eps, None, [Fraction(0)])
    return test(NoisyMax(tuple(q), sensitivity / (2 * eps)))


def noisy_max_shared_noise(q: Sequence[Fraction], eps: Fraction, test: QueryTest,
                           sensitivity: Fraction = Fraction(1)) -> int:
    """Bug: one draw `ν ~ Lap(2Δ/ε)` added to every entry. The draw cancels in every comparison
    `q_i + ν >= q_best + ν`, so the comparisons asked carry no noise: the argmax of the exact
    answers (first index on ties) is released."""
    eps = _check(eps, None, [Fraction(0)])
    test(DrawNoise(2 * sensitivity / eps))  # drawn once, as the buggy code does
    best = 0
    for i in range(1, len(q)):
        if test(AboveThreshold(q[i], q[best], Fraction(0))) and q[i] != q[best]:
            best = i
    return best


def _sigma(value: Fraction, name: str) -> Fraction:
    return positive_rational(value, name, " (a standard deviation)")


def gaussian_svt(q: Sequence[Fraction], thresholds: Sequence[Fraction], sigma_rho: Fraction,
                 sigma_nu: Fraction, test: QueryTest, c: int = 1) -> Answers:
    """Zhu and Wang 2020, Gaussian SVT: `ρ ~ N(0, σ_ρ²)` once, `ν_i ~ N(0, σ_ν²)` per query,
    `⊤` iff `q_i + ν_i >= T_i + ρ`, stop after `c` ⊤. Its privacy is stated in Rényi DP (their
    Theorem 8 for `c = 1`: `ε(α) = ln k/(α - 1) + αΔ²/σ_ρ² + 2αΔ²/σ_ν²`, `k` the number of
    queries)."""
    _check(Fraction(1), c, thresholds)
    return _svt(q, thresholds, _sigma(sigma_rho, "sigma_rho"), _sigma(sigma_nu, "sigma_nu"), c,
                test, noise=GAUSSIAN)


def gaussian_svt_no_query_noise(q: Sequence[Fraction], thresholds: Sequence[Fraction],
                                sigma_rho: Fraction, test: QueryTest) -> Answers:
    """Bug (Lyu et al.'s Alg. 5 with Gaussian threshold noise): no query noise (`ν_i = 0`) and
    no cutoff. Two queries moved in opposite directions give an answer sequence impossible on
    one database and possible on the other: private at no `(ε, δ)` with `δ` below its
    probability."""
    _check(Fraction(1), None, thresholds)
    return _svt(q, thresholds, _sigma(sigma_rho, "sigma_rho"), Fraction(0), None, test,
                noise=GAUSSIAN)


def gaussian_noisy_max(q: Sequence[Fraction], sigma: Fraction, test: QueryTest) -> int:
    """Report-noisy-max with Gaussian noise: `argmax_i (q_i + N(0, σ²))`. The argmax is a
    post-processing of the Gaussian mechanism on the vector `q`, whose ℓ2 sensitivity is
    `√m·Δ` when every query moves by at most `Δ`."""
    return test(NoisyMax(tuple(q), _sigma(sigma, "sigma"), GAUSSIAN))


@dataclass(frozen=True)
class Grid:
    """A public, strictly increasing grid of rational points (validated once)."""

    points: tuple[Fraction, ...]

    def __post_init__(self) -> None:
        points = tuple(Fraction(x) for x in self.points)
        if not points or any(b <= a for a, b in itertools.pairwise(points)):
            raise ParameterError("grid", len(points), "a non-empty strictly increasing grid")
        object.__setattr__(self, "points", points)

    @staticmethod
    def uniform(start: Fraction, stop: Fraction, step: Fraction) -> Grid:
        """`start, start + step, ...` up to the first point `>= stop`."""
        if step <= 0 or stop <= start:
            raise ParameterError("(start, stop, step)", (start, stop, step),
                                 "start < stop and step > 0")
        return Grid(tuple(start + j * step for j in range(math.ceil((stop - start) / step) + 1)))


def gaussian_on_grid(count: Fraction, grid: Grid, sigma: Fraction, test: QueryTest) -> int:
    """The Gaussian mechanism `x = count + N(0, σ²)` released as its cell on a public grid: the
    number of grid points `<= x` (binary search, `⌈log2(len(grid) + 1)⌉` comparisons with one
    shared draw `ρ` and no fresh noise: `x = count - ρ`)."""
    if not isinstance(grid, Grid):
        raise ParameterError("grid", type(grid).__name__, "a Grid (validated public points)")
    points = grid.points
    rho = test(DrawNoise(_sigma(sigma, "sigma"), GAUSSIAN))
    lo, hi = 0, len(points)
    while lo < hi:
        mid = (lo + hi) // 2
        if test(AboveThreshold(count, points[mid], Fraction(0), rho, GAUSSIAN)):
            lo = mid + 1
        else:
            hi = mid
    return lo
