"""Helpers for the teaching notebook on error against height (notebook 4).

The margins come from `betweencut.baselines.margins` (the module of the `betweencut margins`
command); the
measured errors from running each method of the package on a dataset. A margin shown as a float
is for display; whether an error is within an exact margin is decided exactly (`LogReal`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from betweencut.data.tree import Node, PublicTree
from betweencut.mechanism.betweencut import path_counts
from betweencut.numbers.exact import LogReal


# -- error against height (notebook 4) ---------------------------------------------------------
def margin_table(setting: Any, heights: Iterable[int]) -> list[dict[str, Any]]:
    """`betweencut.baselines.margins.margin_row` (the module of `betweencut margins`) at each
    height."""
    from betweencut.baselines.margins import margin_row

    return [margin_row(setting, h) for h in heights]


def log_spaced_heights(max_log2: int, per_octave: int = 2) -> list[int]:
    """Heights `round(2^(k/per_octave))`, `k = 0..max_log2·per_octave`, deduplicated."""
    out = sorted({max(1, round(2 ** (k / per_octave))) for k in range(max_log2 * per_octave + 1)})
    return out


def plot_margins(ax: Any, rows: Sequence[Mapping[str, Any]],
                 crossovers: Sequence[Any] = (), names: Sequence[str] | None = None,
                 log: bool = True, max_log2_h: float | None = None,
                 frame: Sequence[str] = ()) -> None:
    """The margins of `margin_row` (all, or `names`) against `log2 h`, with each baseline's
    crossover height (least `h*` from which BetweenCut's margin is the smallest) dotted and
    named inside the frame.

    `max_log2_h` cuts the x range; `frame` names the curves the y range is fitted to (the
    others may leave the frame, which the legend then says), so that the curves that matter
    are not flattened by one that grows like `h²`."""
    from math import log2

    from betweencut.baselines.margins import ALL, DETERMINISTIC, LABELS

    shown = [r for r in rows if max_log2_h is None or log2(r["h"]) <= max_log2_h]
    fitted: list[float] = []
    for name in ALL if names is None else names:
        pts = [(log2(r["h"]), r[name]) for r in shown if r.get(name) is not None]
        if not pts:
            continue
        xs, ys = zip(*pts, strict=True)
        if not frame or name in frame:
            fitted.extend(ys)
        label = LABELS[name] + ("" if not frame or name in frame else " (leaves the frame)")
        ax.plot(xs, ys, "-" if DETERMINISTIC[name] else "--",
                lw=2.5 if name == "betweencut" else 1.2, label=label)
    if log:
        ax.set_yscale("log")
    if fitted:
        low, high = min(fitted), max(fitted)
        ax.set_ylim(low / 1.5, high * 3) if log else ax.set_ylim(0, high * 1.1)
    right = max(log2(r["h"]) for r in shown)
    for c in crossovers:
        if c.height is not None and c.height > 1 and _log2_int(c.height) <= right:
            x = _log2_int(c.height)
            ax.axvline(x, color="grey", ls=":", lw=1)
            ax.text(x, 0.03, f"crossover vs {c.baseline}: h = 2^{x:.0f} ", rotation=90,
                    ha="right", va="bottom", fontsize=7, transform=ax.get_xaxis_transform())
    ax.set_xlim(0, right)
    ax.set_xlabel("log2 h")
    ax.set_ylabel("margin E (solid: deterministic, dashed: w.p. 1 - β)")
    ax.legend(fontsize="small", loc="lower right" if log else "upper left")


def baseline_margins(setting: Any, heights: Iterable[int],
                     names: Sequence[str] = ("lumberjack",)) -> dict[str, list[float]]:
    """The margins `names` of `margin_row` at each height, keyed by the command's label
    (floats, for display beside `depth.plot_margin_pairs`)."""
    from betweencut.baselines.margins import LABELS

    rows = margin_table(setting, heights)
    return {LABELS[n]: [float(r[n]) for r in rows] for n in names}


def _log2_int(h: int) -> float:
    from math import log2

    shift = max(h.bit_length() - 60, 0)
    return log2(h >> shift) + shift


def format_crossovers(crossovers: Sequence[Any]) -> str:
    """One line per baseline: the crossover height, or that none was found in the search."""
    lines = []
    for c in crossovers:
        if c.height is None:
            where = f"none below 2^{c.max_L}"
        elif c.height < 10**9:
            where = f"h* = {c.height}"
        else:
            where = f"h* ~ 2^{_log2_int(c.height):.1f}"
        lines.append(f"  {c.baseline:<12} {where}")
    return "\n".join(lines)


@dataclass(frozen=True)
class MeasuredError:
    """One run of one method: its margin and the worst error it made, i.e. the largest
    `τ - c_u` over its Heavy nodes or `c_u - τ` over its Light nodes (0 if none). `within` is
    decided exactly when the margin is an exact `LogReal` (BetweenCut, Laplace), else it is a
    display comparison against a float margin (`exact_within = False`)."""

    method: str
    tau: Fraction
    margin: float
    deterministic: bool
    worst: Fraction
    within: bool
    exact_within: bool


def _exact_row(method: str, tau: Fraction, margin: LogReal, deterministic: bool,
               worst: Fraction) -> MeasuredError:
    return MeasuredError(method, tau, margin.approx(), deterministic, worst,
                         margin.compare(worst) >= 0, True)


def _float_row(method: str, tau: Fraction, margin: float, deterministic: bool,
               worst: Fraction) -> MeasuredError:
    return MeasuredError(method, tau, margin, deterministic, worst, float(worst) <= margin, False)


def measured_errors(
    tree: PublicTree, leaves: Sequence[Node], taus: Iterable[object], epsilon: object,
    delta: object, beta: object, seed: int,
) -> list[MeasuredError]:
    """Run BetweenCut (calibrated, Theorem 5.5; exact sampler), the Lumberjack-style baseline
    and the full-tree Laplace and Gaussian baselines (Alg. 5; the Gaussian ones draw unvetted
    float noise, explicitly opted in here for comparison only) on `leaves`, at each `τ`, and
    measure the worst error of each against its margin (Eq. (24), (27), (30))."""
    from math import log, sqrt

    from betweencut.baselines.full_tree import FullTreeGaussian, FullTreeLaplace, margin_violations
    from betweencut.baselines.lumberjack import LumberjackStyle, lumberjack_calibrate
    from betweencut.mechanism.betweencut import between_cut
    from betweencut.mechanism.calibration import calibrate
    from betweencut.noise.bt_sampler import ExactSampler
    from betweencut.numbers.exact import as_rational

    eps, dlt, b = (as_rational(epsilon, "epsilon"), as_rational(delta, "delta"),
                   as_rational(beta, "beta"))
    h = tree.height
    counts = dict(path_counts(leaves))
    n_nodes = tree.size()
    cal = calibrate(h, eps, dlt)
    lj = lumberjack_calibrate(h, eps, dlt)

    def worst(heavy: frozenset[Node], tau: Fraction) -> Fraction:
        light_side, heavy_side = margin_violations(heavy, counts, tree.nodes(), tau)
        return Fraction(max(light_side, heavy_side))

    out = []
    for t in taus:
        tau = as_rational(t, "tau")
        bc = between_cut(tree, leaves, cal.params(tau), ExactSampler(seed)).heavy
        out.append(_exact_row("betweencut", tau, cal.E, True, worst(bc, tau)))
        ljs = LumberjackStyle(tree, tau, lj, allow_float_gaussian=True, seed=seed)
        out.append(_float_row("lumberjack", tau, lj.margin, True,
                              worst(ljs.run(leaves).heavy, tau)))
        lap = FullTreeLaplace.of(tau, eps, h)
        out.append(_exact_row("laplace", tau, lap.margin(n_nodes, b), False,
                              worst(lap.run(tree, leaves, ExactSampler(seed)).heavy, tau)))
        gau = FullTreeGaussian.of(tau, eps, dlt, h)
        g_margin = gau.sigma() * sqrt(2 * (log(2 * n_nodes) - log(b.numerator)
                                           + log(b.denominator)))  # Eq. (30), display
        heavy = gau.run(tree, leaves, allow_float_gaussian=True, seed=seed).heavy
        out.append(_float_row("gaussian", tau, g_margin, False, worst(heavy, tau)))
    return out


def format_measured(rows: Sequence[MeasuredError]) -> str:
    """A table: method, τ, margin, worst error, and whether the error stayed within the margin
    (for the deterministic margins it must, on every run; the others may fail w.p. β)."""
    lines = [f"{'method':<12} {'tau':>7} {'margin E':>10} {'kind':<14} {'worst error':>11}  "
             "within E"]
    for r in rows:
        kind = "deterministic" if r.deterministic else "w.p. 1 - beta"
        within = ("yes" if r.within else "NO") + ("" if r.exact_within else " (float margin)")
        lines.append(f"{r.method:<12} {r.tau!s:>7} {r.margin:>10.2f} {kind:<14} "
                     f"{r.worst!s:>11}  {within}")
    return "\n".join(lines)
