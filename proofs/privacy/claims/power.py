"""The power of an enumerated privacy check: could this instance refute anything at all?

An audit that compares an exact `δ(rλ)` with Theorem 5.4's bound (Eq. (22)) proves nothing
where the bound is `>= 1` (no `δ` exceeds 1), and at `r = L` the exact `δ` of BetweenCut is 0
on every pair (at most `L` noisy answers per path, each `λ`-indistinguishable, Lemma 4.2): a
holding verdict is worth only as much as the instance's power to refute a mechanism that is
wrong. Small `R` (<= 3) makes `(L/2)·e^{-λ(R-1)}` close to or above 1; `R` of 12 to 40, the
calibrated regime (Theorem 5.5), leaves a bound far below 1 at `r = L` and below 1 at `r < L`.

`power_witness` shows the power of one instance: it runs the gallery's known-violating
variants (`betweencut.proofs.privacy.claims.gallery`, plausible mistakes first) on the *same* tree,
parameters and pairs, and returns the first refutation; `NoPower` says that none was refuted
(or that the bound is `>= 1` at every `r`, so none could be).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from betweencut.data.tree import Node, PublicTree
from betweencut.errors import BetweenCutError
from betweencut.mechanism.params import Params
from betweencut.proofs.exact.arith import exact_str, sign
from betweencut.proofs.exact.certificate import Certificate
from betweencut.proofs.privacy.audit.pairs import PointResult, audit_pairs, display
from betweencut.proofs.privacy.claims.gallery import PRIVACY_BREAKING
from betweencut.proofs.privacy.claims.setup import betweencut_cache, theorem_5_4_points
from betweencut.proofs.privacy.enumeration.cache import Database
from betweencut.proofs.verdict import Release

__all__ = ["KNOWN_VIOLATORS", "NoPower", "PowerWitness", "informative_r", "power_witness"]

# the gallery's privacy-breaking variants, the plausible coding mistakes first
KNOWN_VIOLATORS: tuple[str, ...] = (
    "Laplace scale lambda", "top-down levels", "guards without R", "guards wrong sign",
    "noiseless at count 1",
)


class NoPower(BetweenCutError):
    """No known-violating variant is refuted on the instance: a holding verdict there says
    little. Choose a larger `R` (the calibrated regime), or pairs whose counts cross a guard."""


def informative_r(tree: PublicTree, params: Params) -> list[int]:
    """The `r` in `1..L` where Theorem 5.4's bound is `< 1` (decided exactly): the only points
    where any mechanism's `δ(rλ)` can exceed it."""
    return [r for r, (_, bound) in enumerate(theorem_5_4_points(tree, params), start=1)
            if sign(bound - 1) < 0]


@dataclass(frozen=True)
class PowerWitness:
    """A known-violating variant refuted on the instance: its name and refuting point."""

    variant: str
    refutation: PointResult
    informative: tuple[int, ...]

    def certificate(self, tree: PublicTree, params: Params) -> Certificate:
        res = self.refutation
        return Certificate(
            "Theorem 5.4 (enumerated)",
            {"tree": tree.description, "tau": params.tau, "lambda": params.lam,
             "R": params.R.exact_str()},
            "enumerated",
            {"refuted variant": self.variant, "D": res.db, "z": res.z, "on": res.on,
             "eps": res.eps, "excess": exact_str(res.delta - res.bound),
             "excess_approx": display(res.delta - res.bound),
             "informative r (bound < 1)": list(self.informative)},
            scope="power: a known-violating variant is refuted on the same instance",
        )


def power_witness(
    tree: PublicTree, params: Params, pairs: Sequence[tuple[Database, Node]],
    on: Sequence[Release] = (Release.HEAVY, Release.TRANSCRIPT),
    variants: Sequence[str] = KNOWN_VIOLATORS,
) -> PowerWitness:
    """Claim: the instance `(tree, params, pairs)` has power: some known-violating variant is
    refuted on it by the same enumerated Theorem 5.4 check (every `r`).

    Preconditions: `pairs` are neighbouring pairs of leaves of `tree`; `variants` are names of
    `PRIVACY_BREAKING`. Checks: pair by pair, each variant and projection in order (the first
    refutation ends it, so the cost is that of the pairs up to it). A Heavy-set refutation
    implies a transcript one (the Heavy set is a function of the transcript).
    Returns: the `PowerWitness`. Raises: `NoPower` if the bound is `>= 1` at every `r`, or if
    no variant is refuted on these pairs.
    """
    useful = informative_r(tree, params)
    if not useful:
        raise NoPower(f"Theorem 5.4's bound is >= 1 at every r on the {tree.description} with "
                      f"lambda = {params.lam}, R = {params.R.exact_str()}: nothing can exceed it")
    caches = {name: betweencut_cache(tree, params, PRIVACY_BREAKING[name].variant)
              for name in variants}
    points = theorem_5_4_points(tree, params)
    for pair in pairs:
        for name in variants:
            cache = caches[name]
            for projection in on:
                verdict = audit_pairs(cache.run, [pair], points, on=projection, cache=cache)
                if verdict.refutation is not None:
                    return PowerWitness(name, verdict.refutation, tuple(useful))
    raise NoPower(f"no known-violating variant ({', '.join(variants)}) is refuted on these "
                  f"{len(pairs)} pairs of the {tree.description} with tau = {params.tau}, "
                  f"lambda = {params.lam}, R = {params.R.exact_str()}")
