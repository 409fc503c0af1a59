"""Search over path profiles at depth: Hypothesis, steered by `target()`, toward large `δ/bound`.

A profile (`betweencut.proofs.privacy.depth.paths.PathProfile`) is drawn as up to three count
segments whose steps are guarded siblings (sizes the mechanism's own guard decides: at most
`floor(a - R)` or at least `ceil(b + R)`), with the last count anywhere in the band. Each drawn
profile is audited exactly by path grouping (`profile_rows`); the float handed to `target` only
steers (it is the midpoint of a certified enclosure of the largest `δ/bound`), the kept worst
row is chosen by certified bounds (`worst_row`) and every verdict is decided by the gate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from hypothesis import HealthCheck, Phase, given, settings, target
from hypothesis import strategies as st

from betweencut.errors import ParameterError
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.numbers.exact import midpoint_float
from betweencut.proofs.privacy.depth.heavy import check_on, rows_on
from betweencut.proofs.privacy.depth.paths import PathProfile, check_seams
from betweencut.proofs.privacy.depth.transcript import (
    ClaimedBound,
    DepthRow,
    worst_row,
)
from betweencut.proofs.verdict import Release

__all__ = ["ProfileSearch", "path_profiles", "search_profiles"]


@dataclass
class ProfileSearch:
    """The rows of the worst profile seen (or of the first refuted one) and the number tried."""

    rows: list[DepthRow] = field(default_factory=list)
    tried: int = 0
    refuted: bool = False


@st.composite
def path_profiles(draw: st.DrawFn, height: int, lower: int, upper: int,
                  max_segments: int = 3) -> PathProfile:
    """A profile of `height` whose sibling sizes are guarded (`<= lower`, `>= upper`).

    Shrinks toward one segment, small depths, the smallest counts.
    """
    top = max(upper, 0) + 1
    last = draw(st.integers(0, top))
    if height < 2:
        return PathProfile.single_leaf(height, last)
    n = draw(st.integers(1, max_segments)) - 1
    depths = sorted(set(draw(st.lists(st.integers(1, height - 1), min_size=n, max_size=n))))
    sizes = ([st.integers(1, lower)] if lower >= 1 else []) + [st.integers(upper, upper + 2)]
    counts = [last]
    for _ in depths:
        counts.append(counts[-1] + draw(st.one_of(*sizes)))
    counts.reverse()
    return PathProfile(height, tuple(zip([0, *depths], counts, strict=True)))


def search_profiles(
    mechanism: BetweenCut, bounds: Sequence[ClaimedBound], max_examples: int = 20,
    seed: int = 0, on: Release = Release.TRANSCRIPT,
) -> ProfileSearch:
    """Hypothesis search over profiles maximising `δ(rλ)/bound(r)` (every `r` of `bounds`).

    Returns: a `ProfileSearch` with the rows of the worst profile (a refuted one stops it).
    `on`: `"transcript"` (default) or `"heavy"` (the released Heavy set, `depth_heavy`).
    Raises: `ParameterError` if the mechanism overrides a modelled seam.
    """
    if max_examples < 1:
        raise ParameterError("max_examples", max_examples, "an integer >= 1")
    check_on(on)
    query = check_seams(mechanism)
    lower = int(getattr(query, "lower_cut", 0))
    upper = int(getattr(query, "upper_cut", 1))
    result = ProfileSearch()
    best: list[DepthRow | None] = [None]

    @settings(max_examples=max_examples, database=None, deadline=None, derandomize=seed == 0,
              phases=[Phase.generate, Phase.target], suppress_health_check=list(HealthCheck))
    @given(profile=path_profiles(mechanism.tree.height, lower, upper))
    def probe(profile: PathProfile) -> None:
        if result.refuted:
            return
        try:
            rows = rows_on(mechanism, profile, bounds, on=on)
        except ParameterError:
            return
        result.tried += 1
        worst = worst_row(rows)
        if worst is None:
            return
        lo, hi = worst.tightness()
        target(midpoint_float(lo, hi), label="delta/bound")  # steering only
        current = best[0]
        if not worst.holds or current is None or worst_row([worst, current]) is worst:
            best[0] = worst
            result.rows = rows
            result.refuted = not worst.holds

    probe()
    return result
