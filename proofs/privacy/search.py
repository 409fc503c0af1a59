"""Search mode: Hypothesis, steered by `target()`, toward the pair with the largest `δ(ε)/bound`.

Exhaustive mode (`betweencut.proofs.privacy.claims.exhaustive`) covers every database up to a size;
on larger trees or databases the search samples neighbouring pairs `(D, D + z)` and `r`, and
`hypothesis.target` pushes it toward a large ratio `δ(rλ) / bound(r)` (Theorem 5.4, Eq. (22)).
The float given to `target` only steers; the worst pair is kept by the exact comparison
`tighter`, and every verdict is decided exactly. A refutation stops the search.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck, Phase, given, settings, target
from hypothesis import strategies as st

from betweencut.betweencut import BetweenCut
from betweencut.calibration import path_query_bound
from betweencut.errors import ParameterError
from betweencut.params import Params
from betweencut.proofs.privacy.audit import PointResult, check_point, tighter
from betweencut.proofs.privacy.claims import betweencut_cache, theorem_5_4_points
from betweencut.tree import PublicTree

__all__ = ["SearchResult", "search_worst_pair"]


@dataclass
class SearchResult:
    """The worst point seen (largest certified `δ/bound`), the number of points tried, and the
    refuting point if one was found."""

    worst: PointResult | None = None
    tried: int = 0
    refutation: PointResult | None = None


def search_worst_pair(
    tree: PublicTree, params: Params, on: str = "heavy", max_size: int = 3,
    max_examples: int = 40, variant: type[BetweenCut] = BetweenCut, seed: int = 0,
) -> SearchResult:
    """Hypothesis search over `(D, z, r)` with `|D| <= max_size`, maximising `δ(rλ)/bound(r)`.

    Returns: a `SearchResult` (the worst pair by exact comparison; a refutation if found).
    """
    if max_size < 0 or max_examples < 1:
        raise ParameterError("max_examples", max_examples, "max_size >= 0, max_examples >= 1")
    leaves = sorted(tree.level(tree.height - 1))
    points = theorem_5_4_points(tree, params)
    cache = betweencut_cache(tree, params, variant)
    result = SearchResult()

    @settings(max_examples=max_examples, database=None, deadline=None, derandomize=seed == 0,
              phases=[Phase.generate, Phase.target],
              suppress_health_check=list(HealthCheck))
    @given(
        db=st.lists(st.sampled_from(leaves), max_size=max_size),
        z=st.sampled_from(leaves),
        r=st.integers(1, path_query_bound(tree.height)),
    )
    def probe(db: list[tuple[int, ...]], z: tuple[int, ...], r: int) -> None:
        if result.refutation is not None:
            return
        eps, bound = points[r - 1]
        res = check_point(cache, tuple(sorted(db)), z, on, eps, bound)
        result.tried += 1
        lo, hi = res.tightness()
        target(float((lo + hi) / 2), label="delta/bound")  # steering only
        if not res.holds:
            result.refutation = res
        elif result.worst is None or tighter(res, result.worst):
            result.worst = res

    probe()
    return result
