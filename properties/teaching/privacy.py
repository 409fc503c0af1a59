"""Helpers for the teaching notebooks on privacy, exactly (notebook 3) and PrivTree (notebook 5).

Like `betweencut.properties.teaching.basics`, they only read what the package computes: the exact
enumerated `δ(ε)` curves of `betweencut.proofs.privacy.claims.theorems`, Theorem 5.4's bound,
PrivTree's release and its exact check. Floats are made at the last moment, for plotting, from
certified enclosures; every comparison printed as a verdict goes through the gate
`betweencut.proofs.exact.arith.sign`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from betweencut.data.tree import Node, PublicTree
from betweencut.errors import BetweenCutError, ParameterError
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.mechanism.params import Params
from betweencut.proofs.exact.arith import exact_str, sign
from betweencut.proofs.verdict import Release
from betweencut.properties.teaching.basics import certified_decimal, midpoint


# -- privacy, exactly (notebook 3) -------------------------------------------------------------
@dataclass(frozen=True)
class CurvePoint:
    """`δ(ε)` of one neighbouring pair at one rational `ε`, exact (an `ExpPoly`)."""

    eps: Fraction
    delta: Any


def delta_curve(
    tree: PublicTree, params: Params, db: Sequence[Node], z: Node, eps_grid: Iterable[Fraction],
    variant: type[BetweenCut] = BetweenCut, on: Release = Release.TRANSCRIPT,
) -> list[CurvePoint]:
    """The exact privacy curve `δ(ε) = max` of both hockey-stick divergences between the
    enumerated laws of `variant` on `D` and `D + z` (`betweencut.proofs.privacy.claims.theorems`),
    on a grid."""
    from betweencut.proofs.privacy.claims.setup import betweencut_cache

    cache = betweencut_cache(tree, params, variant)
    d = tuple(sorted(db))
    return [CurvePoint(Fraction(e), cache.divergence(d, z, on, Fraction(e)).delta)
            for e in eps_grid]


def bound_steps(tree: PublicTree, params: Params) -> list[tuple[Fraction, Any]]:
    """Theorem 5.4's points `(rλ, δ_r)`, `r = 1..L` (Eq. (22)), exact."""
    from betweencut.proofs.privacy.claims.setup import theorem_5_4_points

    return list(theorem_5_4_points(tree, params))


def crossings(
    curves: Mapping[str, Sequence[CurvePoint]], bound: Sequence[tuple[Fraction, Any]],
) -> list[tuple[str, int, CurvePoint, Any]]:
    """Every `(curve, r, point, δ_r)` where the enumerated `δ(rλ)` exceeds the bound `δ_r`,
    decided by the exact gate `betweencut.proofs.exact.arith.sign` (never by the plotted float)."""
    found = []
    for name, points in curves.items():
        for r, (eps, delta_r) in enumerate(bound, start=1):
            at = next((p for p in points if p.eps == eps), None)
            if at is not None and sign(at.delta - delta_r) > 0:
                found.append((name, r, at, delta_r))
    return found


def _draw_curves(ax: Any, curves: Mapping[str, Sequence[CurvePoint]],
                   bound: Sequence[tuple[Fraction, Any]], log: bool, labels: bool) -> None:
    for k, (name, points) in enumerate(curves.items()):
        shown = [p for p in points if not log or sign(p.delta) > 0]  # log scale: drop exact 0s
        ax.plot([float(p.eps) for p in shown], [midpoint(p.delta) for p in shown],
                "o-" if k == 0 else "s--", ms=4, color=f"C{k}", label=name if labels else None)
    right = max(float(p.eps) for points in curves.values() for p in points)
    for i, (eps, delta) in enumerate(bound):
        stop = float(bound[i + 1][0]) if i + 1 < len(bound) else right
        y = midpoint(delta)
        ax.hlines(y, float(eps), stop, colors="black", lw=2,
                  label="Theorem 5.4 bound (r·λ, δ_r)" if i == 0 and labels else None)
        ax.plot([float(eps)], [y], "k^")
        ax.annotate(f"r={i + 1}", (float(eps), y), textcoords="offset points", xytext=(3, 5),
                    fontsize=8)
    for _, _, at, _ in crossings(curves, bound):
        ax.plot([float(at.eps)], [midpoint(at.delta)], "o", ms=13, mfc="none", mec="red",
                mew=2, zorder=5, label=None)


def plot_curves(
    ax: Any, curves: Mapping[str, Sequence[CurvePoint]], bound: Sequence[tuple[Fraction, Any]],
    log: bool = False,
) -> None:
    """Each enumerated curve against `ε`, and Theorem 5.4's bound as a staircase: `δ(ε)` is
    non-increasing, so the point `(rλ, δ_r)` bounds `δ` on `[rλ, (r+1)λ)` too.

    Every point where a curve crosses the bound (decided exactly, see `crossings`) is ringed
    in red and named, with both numbers, on either scale."""
    _draw_curves(ax, curves, bound, log, labels=True)
    for k, (name, r, at, delta_r) in enumerate(crossings(curves, bound)):
        text = (f"{name.split(' (')[0]} crosses the bound at r = {r}:\n"
                f"δ({at.eps}) = {certified_decimal(at.delta, 3)} > "
                f"δ_{r} = {certified_decimal(delta_r, 3)}")
        ax.annotate(text, (float(at.eps), midpoint(at.delta)), fontsize=8, color="red",
                    xytext=(0.3, 0.32 - 0.12 * k) if log else (0.46, 0.6 - 0.12 * k),
                    textcoords="axes fraction",
                    arrowprops={"arrowstyle": "->", "color": "red", "lw": 1.2})
    if log:
        ax.set_yscale("log")
    ax.set_xlabel("ε")
    ax.set_ylabel("δ(ε)")
    ax.legend(fontsize="small", loc="lower left" if log else "center left")


def format_bound_check(
    curves: Mapping[str, Sequence[CurvePoint]], bound: Sequence[tuple[Fraction, Any]],
    digits: int = 5,
) -> str:
    """For each `r`: the exact bound and, per curve, `δ(rλ)` with the verdict of the exact
    comparison `δ(rλ) <= δ_r` (decided by the gate `betweencut.proofs.exact.arith.sign`)."""
    lines = []
    for r, (eps, delta_r) in enumerate(bound, start=1):
        lines.append(f"r = {r}, eps = r*lambda = {eps}: bound delta_r = {exact_str(delta_r)} "
                     f"= {certified_decimal(delta_r, digits)}")
        for name, points in curves.items():
            at = next((p for p in points if p.eps == eps), None)
            if at is None:
                continue
            ok = sign(at.delta - delta_r) <= 0
            lines.append(f"    {name:<28} delta = {certified_decimal(at.delta, digits):<12} "
                         f"{'<=' if ok else '>'} bound   ({'holds' if ok else 'CROSSES'})")
    return "\n".join(lines)


def expect_refuted(check: Any, *args: Any, **kwargs: Any) -> Mapping[str, object]:
    """Run a checker that must refuse (a broken variant): return the `ClaimRefuted`'s concrete
    counterexample, and raise `BetweenCutError` if the checker accepted instead."""
    from betweencut.proofs.exact.certificate import ClaimRefuted

    try:
        certificate = check(*args, **kwargs)
    except ClaimRefuted as refuted:
        return {"claim": refuted.claim, **refuted.counterexample}
    raise BetweenCutError(f"expected a refutation, the checker accepted: {certificate}")


# -- PrivTree (notebook 5) ---------------------------------------------------------------------
def unicode_plane_points(category_prefix: str | tuple[str, ...] = "L",
                         plane: int = 0) -> list[tuple[int, int]]:
    """A real 2-D point set: every assigned code point of one Unicode plane whose general
    category starts with `category_prefix` (or one of them; Python's `unicodedata`), placed at
    `(cp mod 256, (cp div 256) mod 256)` on the public 256 x 256 grid of the plane."""
    import unicodedata

    if not isinstance(plane, int) or not 0 <= plane <= 16:
        raise ParameterError("plane", plane, "an integer Unicode plane 0..16")
    base = plane << 16
    return [(cp % 256, (cp >> 8) % 256) for cp in range(base, base + (1 << 16))
            if unicodedata.category(chr(cp)).startswith(category_prefix)]


def plot_partition(ax: Any, leaves: Iterable[Any], points: Sequence[tuple[int, int]],
                   title: str = "") -> None:
    """The released PrivTree leaf boxes (2-D, `((x0, x1), (y0, y1))` half-open) drawn as
    rectangles shaded by their (true, unreleased) point density, over the points."""
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import Rectangle

    boxes = sorted(leaves)
    if any(len(b) != 2 for b in boxes):
        raise ParameterError("leaves", "boxes", "two-dimensional boxes")
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    ax.scatter(xs, ys, s=1.5, color="black", alpha=0.6, lw=0, zorder=1)
    patches = [Rectangle((x0, y0), x1 - x0, y1 - y0) for (x0, x1), (y0, y1) in boxes]
    collection = PatchCollection(patches, facecolor="none", edgecolor="#d62728", lw=0.5,
                                 zorder=2)
    ax.add_collection(collection)
    lo_x = min(x0 for (x0, _), _ in boxes)
    hi_x = max(x1 for (_, x1), _ in boxes)
    lo_y = min(y0 for _, (y0, _) in boxes)
    hi_y = max(y1 for _, (_, y1) in boxes)
    ax.set_xlim(lo_x, hi_x)
    ax.set_ylim(hi_y, lo_y)  # code points grow downwards, like a code chart
    ax.set_aspect("equal")
    ax.set_xlabel("code point mod 256")
    ax.set_ylabel("code point div 256 (row of the plane)")
    ax.set_title(title, fontsize=9)
