"""Auditing privacy at depth: families of path profiles, the claim checker, gallery variants.

Everything here runs the path grouping of `betweencut.proofs.privacy.depth.transcript` on the
mechanism object built for the public tree (`BetweenCut(kary_tree(k, h), params)`, or a variant
class), for heights up to `2^64 - 1`; see that module for what is modelled and what is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from betweencut.boundary.seams import overrides
from betweencut.data.tree import kary_tree
from betweencut.errors import ParameterError
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.mechanism.calibration import path_query_bound
from betweencut.mechanism.guarded_bt import BT, GuardedBT
from betweencut.mechanism.guarded_bt import SEAMS as QUERY_SEAMS
from betweencut.mechanism.params import Params
from betweencut.proofs.exact.arith import exact_str
from betweencut.proofs.exact.certificate import Certificate, ClaimRefuted
from betweencut.proofs.laws.tct import theorem_5_4_bound
from betweencut.proofs.privacy.depth.heavy import check_on, rows_on
from betweencut.proofs.privacy.depth.paths import MAX_HEIGHT, PathProfile, check_seams
from betweencut.proofs.privacy.depth.transcript import (
    ClaimedBound,
    DepthRow,
    check_offpath,
    worst_row,
)
from betweencut.proofs.registry import claim, register_audit
from betweencut.proofs.verdict import Release

__all__ = [
    "DepthAudit", "audit_profiles", "band_setup", "check_theorem_5_4_at_depth",
    "claimed_points", "gallery_at_depth", "paper_bounds", "row_facts", "single_leaf_band",
    "step_profiles",
]


def paper_bounds(L: int, params: Params) -> list[ClaimedBound]:
    """Theorem 5.4, Eq. (22): `(rλ, (L/2)e^{-λ(R-1)} + 1{r<L}(1 - q_λ)^r)`, `r = 1..L`, with
    `λ`, `R` of the claimed `params` (never of the audited query)."""
    return [ClaimedBound.of(r, r * params.lam, theorem_5_4_bound(L, params.lam, params.R, r))
            for r in range(1, L + 1)]


def single_leaf_band(mechanism: BetweenCut, claimed: Params | None = None) -> list[PathProfile]:
    """The single-leaf family: `C` from `floor(a - R) - 1` to `ceil(b + R)` (both guards, both
    thresholds and the noisy band between them; `C >= 0`), read off the mechanism's query and,
    when given, also off the `claimed` parameters (the union: a variant whose band differs from
    the claim's is audited on both). Outside the band Alg. 1's guard decides `C` and `C + 1`
    alike; a count query with another `guard` is refused (`ParameterError`: give the counts)."""
    query = check_seams(mechanism)
    if overrides(query, QUERY_SEAMS, ("guard",)):
        # the band is read off the cuts: outside it Alg. 1's guard decides C and C + 1 alike,
        # another guard may not (a count that leaks outside the band would go unaudited)
        raise ParameterError(
            "counts", "the band", "the counts to audit, given: the count query's guard is not "
                                  "Alg. 1's (BT.guard or GuardedBT.guard), so no band covers "
                                  "every count where it may tell C from C + 1")
    low, high = _cuts(query)
    if claimed is not None:
        c_low, c_high = _cuts(GuardedBT.of(claimed.a, claimed.b, claimed.R, claimed.lam))
        low, high = min(low, c_low), max(high, c_high)
    h = mechanism.tree.height
    return [PathProfile.single_leaf(h, c) for c in range(max(0, low - 1), high + 1)]


def _cuts(query: BT) -> tuple[int, int]:
    """The query's guard cut points (its thresholds `floor(a) - 1`, `ceil(b) + 1` for a BT
    without guards), lowest first (a variant's cuts may cross)."""
    lower, upper = getattr(query, "lower_cut", None), getattr(query, "upper_cut", None)
    if lower is None or upper is None:
        lower = int(query.a // 1) - 1
        upper = -int(-query.b // 1) + 1
    return min(lower, upper), max(lower, upper)


def step_profiles(mechanism: BetweenCut, depths: Iterable[int] | None = None) -> list[PathProfile]:
    """Two-segment profiles whose sibling is guarded: the path holds `c + s` above depth `d`
    and `c` from `d` on, `s` the largest L-guarded sibling count (if `floor(a - R) >= 1`) or
    the smallest H-guarded one, `c` at the thresholds. Depths: 1, the middle, `h - 1`."""
    query = check_seams(mechanism)
    h = mechanism.tree.height
    if h < 2:
        return []
    lower, upper = getattr(query, "lower_cut", 0), getattr(query, "upper_cut", 0)
    sizes = [s for s in (lower, upper) if s >= 1 and query.guard(s) is not None]
    chosen = sorted({d for d in (depths if depths is not None else (1, h // 2, h - 1))
                     if 1 <= d < h})
    counts = sorted({c for c in (lower, lower + 1, upper - 1) if c >= 0})
    out = []
    for d in chosen:
        for s in sizes:
            for c in counts:
                out.append(PathProfile(h, ((0, c + s), (d, c))))
    return out


@dataclass
class DepthAudit:
    """Rows of every audited profile, the worst one, and whether every row holds."""

    rows: list[DepthRow] = field(default_factory=list)
    refused: list[tuple[PathProfile, str]] = field(default_factory=list)

    @property
    def holds(self) -> bool:
        return all(row.holds for row in self.rows)

    @property
    def worst(self) -> DepthRow | None:
        return worst_row(self.rows)


def audit_profiles(
    mechanism: BetweenCut, profiles: Iterable[PathProfile], bounds: Sequence[ClaimedBound],
    exact: bool = False, skip_refused: bool = False,
    progress: Callable[[list[PathProfile]], Iterable[PathProfile]] | None = None,
    on: Release = Release.TRANSCRIPT,
    each: Callable[[list[DepthRow]], None] | None = None,
) -> DepthAudit:
    """Every profile's rows against `bounds` (see `profile_rows`; `on="heavy"`: the released
    Heavy set, `depth_heavy.heavy_rows`). A profile the depth DP cannot model raises
    `ParameterError`, or is listed in `refused` with `skip_refused`. `each` is called with
    every profile's rows as soon as they are decided (e.g. to write them out)."""
    check_on(on)
    audit = DepthAudit()
    todo = list(profiles)
    for profile in progress(todo) if progress else todo:
        try:
            rows = rows_on(mechanism, profile, bounds, on=on, exact=exact)
        except ParameterError as exc:
            if not skip_refused:
                raise
            audit.refused.append((profile, str(exc)))
            continue
        audit.rows.extend(rows)
        if each is not None:
            each(rows)
    return audit


def _check_height(height: int) -> int:
    if not isinstance(height, int) or isinstance(height, bool) or not 1 <= height <= MAX_HEIGHT:
        raise ParameterError("height", height, f"an integer 1 <= h <= 2^64 - 1 = {MAX_HEIGHT}")
    return height


def band_setup(
    height: int, params: Params, counts: Iterable[int] | None, arity: int,
    variant: type[BetweenCut],
) -> tuple[BetweenCut, list[PathProfile], list[ClaimedBound], dict[str, object]]:
    """The Theorem 5.4 checkers' inputs at depth: the mechanism on the public tree, the
    single-leaf pairs (`counts`, default the whole band of the mechanism's query and of the
    claim), Eq. (22)'s bounds from the claimed `params` and the facts a certificate reports
    (the claim: its `λ`, `R`, `L` and every `(r, ε, bound)` point); `height`, `λ <= 1`
    validated."""
    h = _check_height(height)
    if params.lam > 1:
        raise ParameterError("lambda", params.lam, "0 < lambda <= 1 (Theorem 5.4)")
    mechanism = variant(kary_tree(arity, h), params)
    profiles = (single_leaf_band(mechanism, params) if counts is None
                else [PathProfile.single_leaf(h, c) for c in counts])
    L = path_query_bound(h)
    bounds = paper_bounds(L, params)
    info: dict[str, object] = {
        "h": h, "arity": arity, "tau": params.tau, "lambda": params.lam,
        "R": params.R.exact_str(), "L": L, "counts": [p.counts[0] for p in profiles],
        "variant": variant.__name__, "claimed": claimed_points(bounds)}
    return mechanism, profiles, bounds, info


def claimed_points(bounds: Sequence[ClaimedBound]) -> list[dict[str, object]]:
    """The claim a certificate certifies: every `(r, ε, δ bound)` point, exact."""
    return [{"r": b.r, "eps": b.eps, "bound_exact": exact_str(b.exact)}  # type: ignore[arg-type]
            for b in bounds]


@claim("Theorem 5.4", "Eq. (22)")
def check_theorem_5_4_at_depth(
    height: int, params: Params, counts: Iterable[int] | None = None, arity: int = 2,
    variant: type[BetweenCut] = BetweenCut,
) -> Certificate:
    """Claim: Theorem 5.4, Eq. (22), on the full transcript, at any height `h <= 2^64 - 1`.

    Preconditions: `0 < λ <= 1`, `R >= 1`, `τ >= E` (every off-path node of count 0 guarded
    `L`); `variant` keeps Alg. 3's `level_order`, `apply`, `run` (checked); without `counts`,
    its count query keeps Alg. 1's `guard` (checked: the band covers every other count).
    Checks: for the single-leaf pairs `C` vs `C + 1` (`counts`, default the whole band from
    `floor(a - R) - 1` to `ceil(b + R)`, of the variant's query and of `params`), the exact
    `δ(rλ)` of `Tr(D)` vs `Tr(D + z)`, by path grouping (answer sequences with one signature
    counted, not enumerated), is `<=` the bound for every `r = 1..L`; `λ`, `R` (so every `ε`
    and bound) are the claimed `params`', never the variant query's own; decided by certified
    enclosures, exactly where they straddle.
    Returns: a Certificate (method `enumerated`, every answer sequence by grouping) stating the
    claim (`claimed`: every `(r, ε, bound)`) with the worst `δ/bound`. Raises: `ClaimRefuted`
    with the pair, `r`, `ε`, the exact `δ`, the bound and the excess.
    """
    mechanism, profiles, bounds, info = band_setup(height, params, counts, arity, variant)
    audit = audit_profiles(mechanism, profiles, bounds)
    worst = audit.worst
    if worst is not None and not worst.holds:
        raise ClaimRefuted("Theorem 5.4", "delta(eps) exceeds the claimed bound at depth",
                           {**info, **row_facts(worst, exact=True)})
    quantities = row_facts(worst, exact=False) if worst is not None else {}
    return Certificate("Theorem 5.4", info, "enumerated", quantities,
                       scope=f"single-leaf pairs at h = {info['h']}, every answer sequence by "
                             "grouping")


def row_facts(row: DepthRow, exact: bool) -> dict[str, object]:
    """The compared numbers: the certified enclosure of `δ` that decided the row (and the exact
    `δ` and excess of a refuted row) and the exact bound."""
    lo, hi = row.tightness()
    facts: dict[str, object] = {
        "count": row.profile.counts[-1], "profile": row.profile.describe(), "r": row.r,
        "eps": row.eps, "delta_in": [str(row.delta_lo), str(row.delta_hi)],
        "bound_exact": exact_str(row.bound.exact), "direction": row.direction,  # type: ignore[arg-type]
        "tightness": [str(lo), str(hi)]}
    if exact:
        facts["delta"] = exact_str(row.delta_exact())
        facts["excess"] = exact_str(row.delta_exact() - row.bound.exact)  # type: ignore[operator]
    return facts


def gallery_at_depth(
    heights: Sequence[int], params: Params, variants: dict[str, type[BetweenCut]] | None = None,
) -> dict[str, dict[int, DepthAudit | str]]:
    """Run the gallery's variants that change only the query law (`make_query`) at depth.

    Returns per variant and height the `DepthAudit` of the single-leaf band against Theorem
    5.4, or the reason it was refused (a modelled seam overridden, an unguarded off-path node).
    """
    from betweencut.proofs.privacy.claims import gallery

    if variants is None:
        variants = {name: case.variant for name, case in gallery.PRIVACY_BREAKING.items()}
        variants.update({name: v for name, (v, _) in gallery.STRUCTURAL_ONLY.items()})
    out: dict[str, dict[int, DepthAudit | str]] = {}
    for name, variant in variants.items():
        out[name] = {}
        for h in heights:
            mechanism = variant(kary_tree(2, _check_height(h)), params)
            try:
                query = check_seams(mechanism)
                check_offpath(mechanism, query, PathProfile.single_leaf(h, 0))
                profiles = single_leaf_band(mechanism, params)
            except ParameterError as exc:
                out[name][h] = str(exc)
                continue
            out[name][h] = audit_profiles(mechanism, profiles,
                                          paper_bounds(path_query_bound(h), params))
    return out


@register_audit("privacy", "Theorem 5.4 at depth (path grouping): h = 15 band, 2 pairs at 2^64 - 1")
def audit_default() -> list[Certificate]:
    """Two single-leaf pairs at `h = 2^64 - 1` and the whole band at `h = 15` (a few seconds)."""
    params = Params.of(Fraction(8), Fraction(1, 2), Fraction(2))
    return [check_theorem_5_4_at_depth(15, params),
            check_theorem_5_4_at_depth(MAX_HEIGHT, params, counts=(6, 8))]
