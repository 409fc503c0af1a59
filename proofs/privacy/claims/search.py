"""Search mode: Hypothesis, steered by `target()`, toward the pair with the largest `δ(ε)/bound`.

Exhaustive mode (`betweencut.proofs.privacy.claims.checkers.exhaustive`) covers every database up to
a size; on larger trees or databases the search samples neighbouring pairs `(D, D + z)`, `r` (only
where the bound is below 1) and, when asked, `λ`, `R`, `τ` from given lists, and
`hypothesis.target` pushes it toward a large ratio `δ(rλ) / bound(r)` (Theorem 5.4, Eq. (22)).
The float given to `target` only steers; the worst pair is kept by the exact comparison
`tighter`, and every verdict is decided exactly. A refutation stops the search.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from hypothesis import HealthCheck, Phase, given, settings, target
from hypothesis import strategies as st

from betweencut.betweencut import BetweenCut
from betweencut.calibration import path_query_bound
from betweencut.errors import ParameterError
from betweencut.exact import midpoint_float
from betweencut.params import Params
from betweencut.proofs.privacy.audit.mechanism import PointResult, check_point, tighter
from betweencut.proofs.privacy.claims.power import informative_r
from betweencut.proofs.privacy.claims.setup import betweencut_cache, theorem_5_4_points
from betweencut.proofs.privacy.enumeration.cache import LawCache
from betweencut.tree import PublicTree

__all__ = ["SearchResult", "search_worst_pair"]


@dataclass
class SearchResult:
    """The worst point seen (largest certified `δ/bound`), the number of points tried, the
    refuting point if one was found, and the parameters of the worst/refuting point."""

    worst: PointResult | None = None
    tried: int = 0
    refutation: PointResult | None = None
    worst_params: Params | None = None
    refutation_params: Params | None = None
    skipped: int = 0  # draws whose parameters have no r with bound < 1 (no power)


def search_worst_pair(
    tree: PublicTree, params: Params, on: str = "heavy", max_size: int = 3,
    max_examples: int = 40, variant: type[BetweenCut] = BetweenCut, seed: int = 0,
    lams: Sequence[Fraction] | None = None, Rs: Sequence[Fraction] | None = None,
    taus: Sequence[Fraction] | None = None,
) -> SearchResult:
    """Hypothesis search over `(D, z, r)` with `|D| <= max_size`, and over `λ`, `R`, `τ` drawn
    from `lams`, `Rs`, `taus` when given (else those of `params`), maximising `δ(rλ)/bound(r)`.

    Only `r` with Theorem 5.4's bound `< 1` are drawn (`power.informative_r`): elsewhere no
    `δ` can exceed it; parameters with no such `r` are skipped (counted in `skipped`). Steer
    toward power with large `R` (the calibrated regime, 12 to 40) and small `λ`.
    Returns: a `SearchResult` (the worst pair by exact comparison; a refutation if found).
    """
    if max_size < 0 or max_examples < 1:
        raise ParameterError("max_examples", max_examples, "max_size >= 0, max_examples >= 1")
    grid = [Params.of(t, lam, R)
            for lam in (lams if lams is not None else [params.lam])
            for R in (Rs if Rs is not None else [params.R])
            for t in (taus if taus is not None else [params.tau])]
    if not grid:
        raise ParameterError("lams", lams, "non-empty lists of lambda, R and tau")
    leaves = sorted(tree.level(tree.height - 1))
    caches: dict[Params, LawCache] = {}
    result = SearchResult()

    @settings(max_examples=max_examples, database=None, deadline=None, derandomize=seed == 0,
              phases=[Phase.generate, Phase.target],
              suppress_health_check=list(HealthCheck))
    @given(
        p=st.sampled_from(grid),
        db=st.lists(st.sampled_from(leaves), max_size=max_size),
        z=st.sampled_from(leaves),
        pick=st.integers(0, path_query_bound(tree.height) - 1),
    )
    def probe(p: Params, db: list[tuple[int, ...]], z: tuple[int, ...], pick: int) -> None:
        if result.refutation is not None:
            return
        useful = informative_r(tree, p)
        if not useful:
            result.skipped += 1
            return
        r = useful[pick % len(useful)]
        if p not in caches:
            caches[p] = betweencut_cache(tree, p, variant)
        eps, bound = theorem_5_4_points(tree, p)[r - 1]
        res = check_point(caches[p], tuple(sorted(db)), z, on, eps, bound)
        result.tried += 1
        lo, hi = res.tightness()
        target(midpoint_float(lo, hi), label="delta/bound")  # steering only
        if not res.holds:
            result.refutation, result.refutation_params = res, p
        elif result.worst is None or tighter(res, result.worst):
            result.worst, result.worst_params = res, p

    probe()
    return result
