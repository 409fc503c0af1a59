"""Helpers for the teaching notebook on privacy at depth (notebook 6).

At each public height `h` the parameters are Theorem 5.5's calibration to `(ε, δ)` (`λ = ε/r`,
so `ε = rλ` is a claim point of Theorem 5.4) and the smallest integer threshold `τ >= E` (every
off-path node of count 0 is then guarded Light, which the path grouping of
`betweencut.proofs.privacy.depth.transcript` needs). Three numbers are compared at `ε`:

* the paper's bound (Theorem 5.4, Eq. (22)), `accountant("paper", ...)`;
* the certified accountant `accountant("tight", ...)` (the least of paper, KOV and envelope);
* the largest exact transcript `δ(ε)` found among single-leaf pairs `C` vs `C + 1` at depth
  (`betweencut.proofs.privacy.depth.depth_audit`): the whole band of counts at small heights, the
  counts straddling the two guard cuts at large ones (a lower bound on the worst pair).

Every verdict (`exact <= tight <= paper`) goes through the exact gate (`certainly_le`); floats
are made from certified enclosures for the plots only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from betweencut.data.tree import kary_tree
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.mechanism.calibration import Calibration, calibrate
from betweencut.mechanism.params import Params
from betweencut.numbers.exact import LogReal, as_rational
from betweencut.proofs.exact.arith import ExpPoly, certainly_le
from betweencut.proofs.privacy.accountants.accountant import UpperDelta, accountant
from betweencut.proofs.privacy.depth.depth_audit import (
    audit_profiles,
    paper_bounds,
    single_leaf_band,
)
from betweencut.proofs.privacy.depth.paths import PathProfile
from betweencut.properties.teaching.basics import certified_decimal, midpoint

#: Heights up to this one audit the whole single-leaf band; deeper ones the guard pairs only.
FULL_BAND_MAX_HEIGHT = 1023


@dataclass(frozen=True)
class DepthPoint:
    """One height: its calibration, the bounds at `ε` and the best exact `δ(ε)` found."""

    height: int
    cal: Calibration
    params: Params
    r: int
    paper: UpperDelta
    tight: UpperDelta
    exact: ExpPoly
    worst_count: int
    counts: tuple[int, ...]
    exact_le_tight: bool
    tight_le_paper: bool


def threshold_for(cal: Calibration) -> Fraction:
    """The smallest integer `τ >= E` (certified: `E <= τ` by the exact gate)."""
    hi = cal.E.bounds(64)[1]
    tau = Fraction(math.ceil(hi))
    while tau > 0 and certainly_le(cal.E, tau - 1):
        tau -= 1
    return tau


def guard_counts(mechanism: BetweenCut) -> list[int]:
    """The single-leaf counts `C` whose pair `C`, `C + 1` straddles a guard cut of the
    mechanism's own query (`C = lower_cut`, `C = upper_cut - 1`; `C >= 0`)."""
    query = mechanism.count_query
    cuts = [getattr(query, "lower_cut", 0), getattr(query, "upper_cut", 1) - 1]
    return sorted({max(0, int(c)) for c in cuts})


def depth_point(height: int, epsilon: object, delta: object,
                counts: Iterable[int] | None = None) -> DepthPoint:
    """Paper bound, tight bound and the best exact `δ(ε)` at `height` (see the module text).

    `counts` defaults to the whole band (`single_leaf_band`) for `h <= FULL_BAND_MAX_HEIGHT`
    and to `guard_counts` above."""
    eps = as_rational(epsilon, "epsilon")
    cal = calibrate(height, eps, delta)
    params = cal.params(threshold_for(cal))
    r = cal.r  # calibrate: lambda = eps / r, so eps = r * lambda
    mechanism = BetweenCut(kary_tree(2, height), params)
    if counts is not None:
        profiles = [PathProfile.single_leaf(height, c) for c in counts]
    elif height <= FULL_BAND_MAX_HEIGHT:
        profiles = single_leaf_band(mechanism)
    else:
        profiles = [PathProfile.single_leaf(height, c) for c in guard_counts(mechanism)]
    audit = audit_profiles(mechanism, profiles, paper_bounds(cal.L, params)[:r])
    rows = [row for row in audit.rows if row.r == r]
    best = max(rows, key=lambda row: row.delta_hi)
    exact = best.delta_exact()
    for row in rows:  # rows whose enclosure overlaps the best one's: decided exactly
        if row is not best and row.delta_hi >= best.delta_lo and row.delta_hi > 0 \
                and not certainly_le(row.delta_exact(), exact):
            best, exact = row, row.delta_exact()
    paper = accountant("paper", L=cal.L, lam=params.lam, R=params.R).delta_upper(eps)
    tight = accountant("tight", L=cal.L, lam=params.lam, R=params.R).delta_upper(eps)
    return DepthPoint(height, cal, params, r, paper, tight, exact, best.profile.counts[0],
                      tuple(p.counts[0] for p in profiles),
                      certainly_le(exact, tight), certainly_le(tight, paper))


def single_leaf_delta(height: int, params: Params, count: int, eps: Fraction) -> ExpPoly:
    """The exact transcript `δ(ε)` (the larger direction, Def. 2.7) of `count` records on one
    leaf of the binary tree of `height` against `count + 1`, at `ε = rλ`, `r = 1..L`."""
    from betweencut.errors import ParameterError
    from betweencut.mechanism.calibration import path_query_bound
    from betweencut.proofs.privacy.depth.transcript import depth_pair, profile_rows

    r = Fraction(eps) / params.lam
    L = path_query_bound(height)
    if r.denominator != 1 or not 1 <= r <= L:
        raise ParameterError("eps", eps, f"r*lambda with r = 1..{L}")
    profile = PathProfile.single_leaf(height, count)
    pair = depth_pair(BetweenCut(kary_tree(2, height), params), profile)
    return profile_rows(pair, profile, paper_bounds(L, params)[: int(r)])[-1].delta_exact()


def depth_points(heights: Iterable[int], epsilon: object, delta: object) -> list[DepthPoint]:
    """`depth_point` at each height."""
    return [depth_point(h, epsilon, delta) for h in heights]


def height_name(h: int) -> str:
    """`2^k - 1` for heights of that form above 1000, else the number."""
    k = (h + 1).bit_length() - 1
    return f"2^{k} - 1" if h > 1000 and h + 1 == 1 << k else str(h)


def format_depth_table(points: Sequence[DepthPoint]) -> str:
    """Height, L, r, λ, the three δ's (certified decimals) and the exact verdicts."""
    lines = [f"{'h':>10} {'L':>3} {'r':>3} {'lambda':>7} {'paper bound':>13} "
             f"{'tight bound':>13} {'best exact':>13} {'at C':>5}  exact<=tight<=paper"]
    for p in points:
        verdict = "yes" if p.exact_le_tight and p.tight_le_paper else "NO"
        lines.append(f"{height_name(p.height):>10} {p.cal.L:>3} {p.r:>3} {p.params.lam!s:>7} "
                     f"{certified_decimal(p.paper):>13} {certified_decimal(p.tight):>13} "
                     f"{certified_decimal(p.exact):>13} {p.worst_count:>5}  {verdict}")
    return "\n".join(lines)


def plot_depth(ax: Any, points: Sequence[DepthPoint]) -> None:
    """δ at `ε` against `log2(h + 1)`: paper bound, tight bound and the best exact `δ` found
    (floats from certified enclosures, display only; the y range is fitted to the curves)."""
    xs = [math.log2(p.height + 1) for p in points]
    ax.plot(xs, [midpoint(p.paper) for p in points], "o-", color="tab:red",
            label="paper bound (Theorem 5.4)")
    ax.plot(xs, [midpoint(p.tight) for p in points], "s--", color="tab:blue",
            label="certified accountant (tight)")
    ax.plot(xs, [midpoint(p.exact) for p in points], "^-", color="tab:green",
            label="best exact δ found (single-leaf pairs)")
    ax.set_xlabel("log2(h + 1)  (= L, the queries on one path)")
    ax.set_ylabel("δ(ε)")
    ys = [midpoint(x) for p in points for x in (p.paper, p.tight, p.exact)]
    ax.set_ylim(min(ys) * 0.97, max(ys) * 1.02)
    ax.legend(fontsize="small", loc="lower right")


@dataclass(frozen=True)
class MarginPair:
    """Theorem 5.5's margin `E` and the tight calibration's at one height."""

    height: int
    paper: LogReal
    tight: LogReal
    tight_smaller: bool


def margin_pairs(heights: Iterable[int], epsilon: object, delta: object) -> list[MarginPair]:
    """`calibrate` and `calibrate_tight` at each height; `tight_smaller` is certified by
    interval bounds (the two `LogReal`s have different logarithms, so no single exact form)."""
    from betweencut.proofs.privacy.accountants.tight_calibration import calibrate_tight

    out = []
    for h in heights:
        paper, tight = calibrate(h, epsilon, delta).E, calibrate_tight(h, epsilon, delta).E
        out.append(MarginPair(h, paper, tight, tight.bounds(80)[1] < paper.bounds(80)[0]))
    return out


def format_margin_pairs(pairs: Sequence[MarginPair]) -> str:
    """Height, both margins (certified decimals) and the ratio (display)."""
    lines = [f"{'h':>10} {'E paper':>12} {'E tight':>12} {'ratio':>6}  tight < paper"]
    for p in pairs:
        lines.append(f"{height_name(p.height):>10} {certified_decimal(p.paper, 3):>12} "
                     f"{certified_decimal(p.tight, 3):>12} "
                     f"{p.tight.approx() / p.paper.approx():>6.3f}  "
                     f"{'yes' if p.tight_smaller else 'no'}")
    return "\n".join(lines)


def plot_margin_pairs(ax: Any, pairs: Sequence[MarginPair],
                      others: Mapping[str, Sequence[float]] | None = None) -> None:
    """`E` under both calibrations against `log2(h + 1)`, the ratio printed at each point;
    `others` (label -> margins at the same heights) are drawn grey for comparison."""
    xs = [math.log2(p.height + 1) for p in pairs]
    paper = [p.paper.approx() for p in pairs]
    tight = [p.tight.approx() for p in pairs]
    for (label, values), style in zip((others or {}).items(), (":", "-."), strict=False):
        ax.plot(xs, list(values), style, color="grey", marker="x", label=label)
    ax.plot(xs, paper, "o-", color="tab:red", label="E, paper calibration (Theorem 5.5)")
    ax.plot(xs, tight, "s--", color="tab:blue", label="E, tight calibration")
    for x, a, b in zip(xs, paper, tight, strict=True):
        ax.annotate(f"×{b / a:.2f}", (x, b), textcoords="offset points", xytext=(0, -14),
                    ha="center", fontsize=8, color="tab:blue")
    ax.set_xlabel("log2(h + 1)")
    ax.set_ylabel("margin E")
    ax.set_ylim(0, max([*paper, *(v for vs in (others or {}).values() for v in vs)]) * 1.15)
    ax.legend(fontsize="small", loc="lower right")
