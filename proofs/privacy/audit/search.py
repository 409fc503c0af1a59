"""Auditing a user's mechanism against one claim `(ε, δ)`: the worst pair, by search or over a
given list, and the largest certified lower bound on `ε` at `δ` those pairs show.

`search_pairs` is the search mode for any mechanism `run(database, test) -> output` (not only
BetweenCut): Hypothesis draws neighbouring pairs `(D, D + z)` with `|D| <= max_size`, and
`hypothesis.target` pushes it toward a large `δ_pair(ε)`; the float given to `target` only steers,
the pairs are compared by the exact `δ_pair(ε)` through the gate; the search goes on past a
refutation and keeps the worst (issue 35, item 4), unless asked to stop at the first (`first`).
`epsilon_lower_bound` computes every pair's exact curve
(`betweencut.proofs.privacy.divergence.curve`) and keeps the pair with the largest `ε_at_δ`:
the mechanism's true `ε` at `δ` is at least that (a certified lower bound; `None` means no
finite `ε` suffices).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import hypothesis
from hypothesis import HealthCheck, Phase, given, settings, target
from hypothesis import strategies as st

from betweencut.data.tree import Node
from betweencut.errors import ParameterError
from betweencut.proofs.exact.arith import sign
from betweencut.proofs.privacy.audit.pairs import (
    ExactDelta,
    PointResult,
    check_point,
    display,
    pair_curve,
    worse,
)
from betweencut.proofs.privacy.divergence.certified_curve import Curve
from betweencut.proofs.privacy.divergence.curve import LogOf
from betweencut.proofs.privacy.enumeration.cache import (
    Database,
    LawCache,
    Neighbour,
    as_database,
    as_node,
)
from betweencut.proofs.verdict import Release

__all__ = ["EpsilonBound", "PairSearch", "epsilon_lower_bound", "search_pairs"]


@dataclass
class PairSearch:
    """The pairs tried (in order), the worst holding point by exact `δ_pair(ε)`, and the worst
    refuting point if any (the first one with `first`)."""

    tried: list[tuple[Database, Node]]
    worst: PointResult | None = None
    refutation: PointResult | None = None


def search_pairs(
    cache: LawCache, leaves: Sequence[Node], eps: Fraction, delta: ExactDelta,
    on: Release = Release.OUTPUT,
    max_size: int = 3, max_examples: int = 40, seed: int | None = 0,
    hypothesis_seed: int | None = None, first: bool = False,
) -> PairSearch:
    """Hypothesis search over `(D, z)`, `|D| <= max_size`, maximising the exact `δ_pair(ε)`.

    Preconditions: `cache.run` is a mechanism whose randomness is its test; `leaves` non-empty.
    Returns: a `PairSearch` (worst by exact comparison; every draw is audited and the worst
    refutation kept, or with `first` the search stops at the first refutation). With
    `seed` an int the search is derandomised (the same pairs every run); None: random;
    `hypothesis_seed=S` instead runs the search seeded with `S` (other pairs, the same for `S`
    on every run).
    """
    if max_size < 0 or max_examples < 1 or not leaves:
        raise ParameterError("max_examples", max_examples,
                             "max_size >= 0, max_examples >= 1 and at least one leaf")
    found = PairSearch([])
    options = sorted(as_node(u, "leaf") for u in leaves)

    @settings(max_examples=max_examples, database=None, deadline=None,
              derandomize=seed is not None and hypothesis_seed is None,
              phases=[Phase.generate, Phase.target], suppress_health_check=list(HealthCheck))
    @given(db=st.lists(st.sampled_from(options), max_size=max_size),
           z=st.sampled_from(options))
    def probe(db: list[Node], z: Node) -> None:
        if first and found.refutation is not None:
            return
        pair = (as_database(db), z)
        found.tried.append(pair)
        res = check_point(cache, pair[0], z, on, eps, delta)
        target(display(res.delta), label="delta(eps)")  # steering only
        if not res.holds:
            if found.refutation is None or worse(res, found.refutation):
                found.refutation = res
        elif found.worst is None or sign(res.delta - found.worst.delta) > 0:
            found.worst = res

    (probe if hypothesis_seed is None else hypothesis.seed(hypothesis_seed)(probe))()
    return found


@dataclass
class EpsilonBound:
    """The pair with the largest `ε_at_δ` among those given, with its curve (`epsilon` None:
    no finite `ε` reaches `δ` on that pair)."""

    epsilon: LogOf | None
    db: Database
    z: Node
    curve: Curve
    pair: Neighbour | None = None  # a replace-one pair (None: `(db, db + z)`)


def epsilon_lower_bound(
    cache: LawCache, pairs: Iterable[tuple[Database, Node] | Neighbour], delta: ExactDelta,
    on: Release = Release.OUTPUT,
) -> EpsilonBound | None:
    """`max` over the pairs of the smallest `ε` with `δ_pair(ε) <= delta`, exactly (None when
    no pair is given). Every pair's curve is computed from laws enumerated directly. A pair is
    `(D, z)` or a `Neighbour` (a replace-one pair too)."""
    best: EpsilonBound | None = None
    for item in pairs:
        replaced = item if isinstance(item, Neighbour) and item.replaced is not None else None
        if replaced is not None:
            db, z = replaced.first, replaced.z
            curve = cache.neighbour_curve(replaced, on)
        else:
            db, z = (item.first, item.z) if isinstance(item, Neighbour) else item
            curve = pair_curve(cache, db, z, on)
        eps = curve.epsilon_at_delta(delta)
        if best is None or _larger(eps, best.epsilon):
            best = EpsilonBound(eps, db, z, curve, replaced)
        if eps is None:
            break  # nothing is larger than +inf
    return best


def _larger(a: LogOf | None, b: LogOf | None) -> bool:
    if a is None:
        return b is not None
    return b is not None and a.compare(b) > 0
