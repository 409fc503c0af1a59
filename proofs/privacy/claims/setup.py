"""The setup of BetweenCut's claims on small trees: the projections of a run (transcript, Heavy
set), Theorem 5.4's claimed points at the claimed parameters (Eq. (22)), the enumerated laws of
Alg. 3 or a variant (`betweencut_cache`, through the shared outcome tree) and one pair's rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from betweencut.data.tree import Node, PublicTree
from betweencut.errors import ParameterError
from betweencut.mechanism.betweencut import BetweenCut, Run
from betweencut.mechanism.calibration import path_query_bound
from betweencut.mechanism.params import Params
from betweencut.noise.noisy_test import NoisyTest
from betweencut.numbers.exact import midpoint_float
from betweencut.proofs.exact.arith import exact_str
from betweencut.proofs.exact.certificate import Certificate, ClaimRefuted
from betweencut.proofs.laws.tct import theorem_5_4_bound
from betweencut.proofs.privacy.audit.pairs import ClaimPoint, PointResult, check_point, display
from betweencut.proofs.privacy.enumeration.cache import Database, LawCache, as_database, as_node
from betweencut.proofs.verdict import Release

__all__ = ["PROJECTIONS", "PairReport", "audited_cache", "betweencut_cache", "certify",
           "claimed_points", "mechanism_name", "pair_parameters", "pair_report",
           "theorem_5_4_points", "validate_pair"]

PROJECTIONS: dict[Release, Callable[[object], Any]] = {
    Release.TRANSCRIPT: lambda run: run.transcript,  # type: ignore[attr-defined]
    Release.HEAVY: lambda run: run.heavy,  # type: ignore[attr-defined]
}


def theorem_5_4_points(tree: PublicTree, params: Params) -> list[ClaimPoint]:
    """`(rλ, (L/2)e^{-λ(R-1)} + 1{r<L}(1 - q_λ)^r)` for `r = 1..L` (Eq. (22)), exact."""
    L = path_query_bound(tree.height)
    return [(r * params.lam, theorem_5_4_bound(L, params.lam, params.R, r))
            for r in range(1, L + 1)]


def betweencut_cache(
    tree: PublicTree, params: Params, variant: type[BetweenCut] = BetweenCut
) -> LawCache:
    """Enumerated laws of `variant` (default: Alg. 3 itself) on `tree` with `params`."""
    from betweencut.proofs.privacy.enumeration.outcome_tree import SharedTreeCache

    mechanism = variant(tree, params)

    def run(db: Database, test: NoisyTest) -> Run:
        return mechanism.run(db, test)

    return SharedTreeCache(mechanism, run, PROJECTIONS)


@dataclass(frozen=True)
class PairReport:
    """The rows of one neighbouring pair: per `r`, the exact `δ(rλ)` and the bound."""

    db: Database
    z: Node
    transcript: list[PointResult]
    heavy: list[PointResult]

    def rows(self, on: Release) -> list[dict[str, object]]:
        results = self.transcript if on == "transcript" else self.heavy
        out = []
        for r, res in enumerate(results, start=1):
            lo, hi = res.tightness()
            out.append({
                "r": r, "eps": display(res.eps), "eps_exact": str(res.eps),
                "delta": display(res.delta), "delta_exact": exact_str(res.delta),
                "bound": display(res.bound), "bound_exact": exact_str(res.bound),
                "holds": res.holds,
                "tightness": [midpoint_float(lo, lo), midpoint_float(hi, hi)],
                "direction": res.stick.direction,
            })
        return out

    @property
    def holds(self) -> bool:
        return all(r.holds for r in (*self.transcript, *self.heavy))


def pair_report(
    cache: LawCache, tree: PublicTree, params: Params, db: Database, z: Node,
    points: Sequence[ClaimPoint] | None = None,
) -> PairReport:
    """Rows `r = 1..L` at `ε = rλ` against Theorem 5.4's bound, or against `points` (one
    `(rλ, bound)` per `r`, e.g. an accountant's certified upper bounds)."""
    points = theorem_5_4_points(tree, params) if points is None else points
    rows = {on: [check_point(cache, db, z, on, eps, bound) for eps, bound in points]
            for on in (Release.TRANSCRIPT, Release.HEAVY)}
    return PairReport(db, z, rows[Release.TRANSCRIPT], rows[Release.HEAVY])


def validate_pair(
    tree: PublicTree, params: Params, db: Iterable[Node], z: Node
) -> tuple[Database, Node]:
    if params.lam > 1:
        raise ParameterError("lambda", params.lam, "0 < lambda <= 1 (Theorem 5.4)")
    h = tree.height
    db, z = as_database(db), as_node(z, "z")  # lists work; anything else: ParameterError
    leaves = [*db, z]
    for leaf in leaves:
        if len(leaf) != h - 1 or tree.arity(leaf) != 0 or any(
            not 0 <= c < tree.arity(leaf[:i]) for i, c in enumerate(leaf)
        ):
            raise ParameterError("leaf", "/".join(map(str, leaf)),
                                 f"a leaf of the {tree.description}")
    return db, z


def pair_parameters(tree: PublicTree, params: Params, db: Database, z: Node) -> dict[str, object]:
    return {"tree": tree.description, "tau": params.tau, "lambda": params.lam,
            "R": params.R.exact_str(), "D": db, "z": z}


def certify(name: str, results: Sequence[PointResult], params: dict[str, object]) -> Certificate:
    for res in results:
        if not res.holds:
            raise ClaimRefuted(name, f"delta({res.eps}) exceeds the claimed delta",
                               res.counterexample())
    quantities = {f"delta({res.eps})": exact_str(res.delta) for res in results}
    quantities.update({f"bound({res.eps})": exact_str(res.bound) for res in results})
    return Certificate(name, params, "enumerated", quantities, scope="one neighbouring pair")


def claimed_points(tree: PublicTree, params: Params) -> dict[str, object]:
    """The claim a Theorem 5.4 certificate certifies: `L` and every `(r, ε, δ_r)`, exact."""
    return {"L": path_query_bound(tree.height), "claimed": [
        {"r": r, "eps": eps, "bound_exact": exact_str(bound)}
        for r, (eps, bound) in enumerate(theorem_5_4_points(tree, params), start=1)]}


def audited_cache(tree: PublicTree, params: Params, cache: LawCache | None) -> LawCache:
    """The cache whose laws are audited against the claim of `(tree, params)`: `cache`, or
    BetweenCut's own. A cache of a mechanism built with other parameters or on another tree is
    refused (`ParameterError`): its certificate would state a claim for `params` that no run
    with them was checked against. A variant built with `params` is audited against the claim."""
    if cache is None:
        return betweencut_cache(tree, params)
    mechanism = getattr(cache, "mechanism", None)
    if isinstance(mechanism, BetweenCut) and (
        mechanism.params != params or mechanism.tree.description != tree.description
        or mechanism.tree.height != tree.height
    ):
        raise ParameterError(
            "cache", f"{type(mechanism).__name__} on the {mechanism.tree.description}, lambda "
            f"= {mechanism.params.lam}, R = {mechanism.params.R.exact_str()}",
            f"a cache of a mechanism built with the claimed parameters (lambda = {params.lam}, "
            f"R = {params.R.exact_str()}, tau = {params.tau}) on the {tree.description}")
    return cache


def mechanism_name(cache: LawCache) -> str:
    """The audited mechanism's class (or `LawCache.run` for a bare callable)."""
    mechanism = getattr(cache, "mechanism", None)
    return type(mechanism).__name__ if mechanism is not None else "LawCache.run"
