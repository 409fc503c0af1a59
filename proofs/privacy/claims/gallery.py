"""A gallery of deliberately broken BetweenCut variants: plausible coding mistakes, one step each.

Each variant subclasses `BetweenCut` (Alg. 3) and overrides one step (`make_query`,
`level_order` or `apply`). `PRIVACY_BREAKING` pins, for every variant that breaks Theorem 5.4,
the small tree, parameters and neighbouring pair where exact enumeration refutes it
(`refute(name)` re-runs it and returns the refuting point with its counterexample).
`STRUCTURAL_ONLY` lists the variants that keep the privacy bound on the audited cases but break
a structural lemma: those are the properties issue's (`betweencut.properties.broken`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from betweencut.data.tree import Node, kary_tree
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.mechanism.guarded_bt import BT, GuardedBT
from betweencut.mechanism.marking import Labels
from betweencut.mechanism.params import Params
from betweencut.noise.noisy_test import NoisyTest, Outcome
from betweencut.proofs.privacy.audit.pairs import AuditVerdict, audit_pairs
from betweencut.proofs.privacy.claims.setup import betweencut_cache, theorem_5_4_points
from betweencut.proofs.privacy.enumeration.cache import Database
from betweencut.proofs.verdict import Release

__all__ = [
    "PRIVACY_BREAKING", "STRUCTURAL_ONLY", "BrokenCase", "audit_variant", "refute",
]


class BAnswerDoesNotCut(BetweenCut):
    """A `B` answer labels `u` Heavy and its ancestors (as if `H`) instead of cutting the path
    (`MarkUp(parent(u)); MarkDown(u)`, Alg. 3, l. 14): below a `B` node the path stays open."""

    def apply(self, labels: Labels, u: Node, outcome: Outcome) -> None:
        super().apply(labels, u, Outcome.H if outcome is Outcome.B else outcome)


class GuardsWrongSign(BetweenCut):
    """Guards `c <= a + R -> L` and `c >= b - R -> H` (Alg. 1, l. 1-4 with `±R` swapped): the
    guarded zones overlap the noisy band, a neighbouring count jumps between point masses."""

    def make_query(self) -> BT:
        p = self.params
        return GuardedBT(p.a, p.b, p.lam, p.R, (p.R + p.a).floor(), (p.b - p.R).ceil())


class GuardsWithoutR(BetweenCut):
    """Guards at `a` and `b` themselves (`c <= a -> L`, `c >= b -> H`): `R` forgotten."""

    def make_query(self) -> BT:
        p = self.params
        return GuardedBT(p.a, p.b, p.lam, p.R, int(p.a // 1), -int(-p.b // 1))


class HalfWidthThresholds(BetweenCut):
    """Thresholds with `w = 1/(2λ)` instead of `w = 1/λ` (Eq. (13)): `b - a = 1/λ`."""

    def make_query(self) -> BT:
        p = self.params
        w = 1 / (2 * p.lam)
        return GuardedBT.of(p.tau - w, p.tau + w, p.R, p.lam)


class LaplaceScaleLambda(BetweenCut):
    """Noise `Lap(λ)` (scale `λ`, rate `1/λ`) instead of `Lap(1/λ)` (Alg. 4)."""

    def make_query(self) -> BT:
        p = self.params
        return GuardedBT.of(p.a, p.b, p.R, 1 / p.lam)


class TopDownOrder(BetweenCut):
    """Levels visited top-down (`0, 1, ..., h-1`) instead of `DepO(0, h-1)` (Alg. 3, l. 4)."""

    def level_order(self) -> list[int]:
        return list(range(self.tree.height))


@dataclass(frozen=True, slots=True)
class _NoiselessAtOne(GuardedBT):
    """GuardedBT whose call answers `H` without noise at count 1 (`guard()` and `query()` are
    Alg. 1's: only the code the mechanism runs differs)."""

    def __call__(self, count: int, test: NoisyTest, node: object = None) -> Outcome:
        if count == 1:
            return Outcome.H
        return GuardedBT.__call__(self, count, test, node)


class NoiselessAtOne(BetweenCut):
    """A query (through the documented `make_query` seam) that answers `H` without noise at
    count 1, keeping Alg. 1's `guard()` and `query()`: a deterministic answer that tells a
    count of 1 from a count of 0. Pinned (issue 12): the shared outcome tree must not trust
    `guard()` and `query()` over the call itself."""

    def make_query(self) -> BT:
        p = self.params
        g = GuardedBT.of(p.a, p.b, p.R, p.lam)
        return _NoiselessAtOne(g.a, g.b, g.lam, g.R, g.lower_cut, g.upper_cut)


class NoGuards(BetweenCut):
    """Plain BT (Alg. 4) without the guards: keeps the privacy bound (the guards only spend
    `δ`), breaks the deterministic margin (Theorem C.2); structural only."""

    def make_query(self) -> BT:
        p = self.params
        return BT(p.a, p.b, p.lam)


@dataclass(frozen=True)
class BrokenCase:
    """Where a variant is refuted: tree `k`-ary of height `h`, `(τ, λ, R)`, pair `(D, D + z)`."""

    variant: type[BetweenCut]
    arity: int
    height: int
    tau: Fraction
    lam: Fraction
    R: Fraction
    db: Database
    z: Node
    on: Release = Release.HEAVY
    mistake: str = ""


def _case(variant: type[BetweenCut], k: int, h: int, tau: str, lam: str, R: str,
          db: Database, z: Node, on: Release, mistake: str) -> BrokenCase:
    return BrokenCase(variant, k, h, Fraction(tau), Fraction(lam), Fraction(R), db, z, on, mistake)


PRIVACY_BREAKING: dict[str, BrokenCase] = {
    "guards wrong sign": _case(GuardsWrongSign, 2, 2, "0", "1", "2", ((0,),), (0,), Release.HEAVY,
                               "guards at a + R and b - R"),
    "guards without R": _case(GuardsWithoutR, 2, 2, "2", "1", "3", ((0,),), (0,), Release.HEAVY,
                              "guards at a and b"),
    "Laplace scale lambda": _case(LaplaceScaleLambda, 2, 2, "0", "1/2", "4", ((0,),), (0,),
                                  Release.HEAVY, "Lap(lambda) instead of Lap(1/lambda)"),
    "top-down levels": _case(TopDownOrder, 2, 3, "0", "1", "4", (), (0, 0), Release.HEAVY,
                             "levels top-down instead of DepO"),
    "noiseless at count 1": _case(NoiselessAtOne, 2, 3, "2", "1/2", "3", (), (0, 0), Release.HEAVY,
                                  "the query's call answers H without noise at count 1"),
}

# Audited without a refutation on every pair with |D| <= 2 of the binary trees h = 2, 3 and
# |D| <= 1 of the ternary tree h = 2, at lambda in {1, 1/2}, R in {1, 2, 4, 8}, tau in {0, 1, 2,
# 4}, on both the transcript and the Heavy set: each breaks a structural claim instead.
STRUCTURAL_ONLY: dict[str, tuple[type[BetweenCut], str]] = {
    "B does not cut": (BAnswerDoesNotCut, "Lemma 4.3 (at most one B per path)"),
    "no guards": (NoGuards, "Theorem C.2 (deterministic margin)"),
    "half-width thresholds": (HalfWidthThresholds,
                              "Eq. (16)/(99): q_lambda needs b - a = 2/lambda"),
}


def audit_variant(
    variant: type[BetweenCut], k: int, h: int, tau: Fraction, lam: Fraction, R: Fraction,
    pairs: list[tuple[Database, Node]], on: Release = Release.HEAVY,
) -> AuditVerdict:
    """Audit `variant` against Theorem 5.4's profile (every `r`) on the given pairs."""
    tree = kary_tree(k, h)
    params = Params.of(tau, lam, R)
    cache = betweencut_cache(tree, params, variant)
    return audit_pairs(cache.run, pairs, theorem_5_4_points(tree, params), on=on, cache=cache)


def refute(name: str) -> AuditVerdict:
    """Re-run the pinned refutation of the gallery variant `name` (holds is False on success)."""
    c = PRIVACY_BREAKING[name]
    return audit_variant(c.variant, c.arity, c.height, c.tau, c.lam, c.R, [(c.db, c.z)], c.on)
