"""The registered default cases of BetweenCut's claims on small trees (`betweencut audit`), each
with its power: a known-violating gallery variant refuted on the same instance.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction

from betweencut.data.tree import Node, PublicTree, kary_tree
from betweencut.mechanism.calibration import Calibration, calibrate
from betweencut.mechanism.params import Params
from betweencut.proofs.exact.arith import exact_str
from betweencut.proofs.exact.certificate import Certificate
from betweencut.proofs.privacy.audit.pairs import check_point
from betweencut.proofs.privacy.claims.gallery import PRIVACY_BREAKING
from betweencut.proofs.privacy.claims.power import NoPower, power_witness
from betweencut.proofs.privacy.claims.setup import betweencut_cache, pair_parameters
from betweencut.proofs.privacy.claims.theorems import (
    check_lemma_c_1,
    check_theorem_5_4_enumerated,
    check_theorem_5_5_enumerated,
)
from betweencut.proofs.privacy.enumeration.cache import Database, neighbouring_pairs
from betweencut.proofs.registry import register_audit
from betweencut.proofs.verdict import Release

__all__ = ["AUDIT_CASES", "GUARD_PAIRS", "audit_default", "calibrated_power"]

# The default cases, chosen for power (issue 12): Theorem 5.4's bound is < 1 at some r (R of
# 12 in the calibrated regime, or R = 3 with pairs whose counts cross the H guard at 4), and a
# known-violating gallery variant is refuted on each same instance (`power.power_witness`,
# reported as a certificate beside the case's own).
AUDIT_CASES = [  # (arity, height, lambda, R, tau)
    (2, 3, Fraction(1, 2), Fraction(12), Fraction(2)),
    (3, 2, Fraction(1, 2), Fraction(12), Fraction(1)),
    (2, 3, Fraction(1), Fraction(3), Fraction(0)),
]
GUARD_PAIRS: dict[int, list[tuple[Database, Node]]] = {  # extra pairs crossing a guard
    2: [(((0, 0), (0, 0), (0, 0)), (0, 0)), (((0, 0), (0, 0), (0, 1)), (0, 1))],
}


@register_audit("privacy", "Lemma C.1 / Theorem 5.4 by enumeration, every pair |D| <= 1, "
                "with power")
def audit_default() -> list[Certificate]:
    """Small trees, every neighbouring pair with `|D| <= 1` (and guard-crossing pairs), each
    instance also refuting a known-violating variant (its power); a few seconds."""
    certificates = []
    for i, (k, h, lam, R, tau) in enumerate(AUDIT_CASES):
        tree = kary_tree(k, h)
        params = Params.of(tau, lam, R)
        cache = betweencut_cache(tree, params)
        pairs = [*neighbouring_pairs(list(tree.level(h - 1)), 1), *GUARD_PAIRS.get(i, [])]
        for db, z in pairs:
            certificates.append(check_lemma_c_1(tree, params, db, z, cache))
            certificates.append(check_theorem_5_4_enumerated(tree, params, db, z, cache))
        certificates.append(power_witness(tree, params, pairs).certificate(tree, params))
    cal = calibrate(3, Fraction(1), Fraction(1, 20))
    tree = kary_tree(2, 3)
    certificates.append(check_theorem_5_5_enumerated(tree, cal, Fraction(2), ((0, 0),), (0, 0)))
    certificates.append(calibrated_power(tree, cal, Fraction(2),
                                         neighbouring_pairs(list(tree.level(2)), 1)))
    return certificates


def calibrated_power(
    tree: PublicTree, cal: Calibration, tau: Fraction, pairs: Iterable[tuple[Database, Node]],
    variants: Sequence[str] = ("Laplace scale lambda", "guards without R"),
) -> Certificate:
    """The power of a Theorem 5.5 case: a known-violating gallery variant (default: noise
    `Lap(λ)`, then guards without `R`) with the same calibrated parameters must be refuted at
    the same `(ε, δ)` on one of `pairs` (else `NoPower`)."""
    params = cal.params(tau)
    chosen = list(pairs)
    for name in variants:
        cache = betweencut_cache(tree, params, PRIVACY_BREAKING[name].variant)
        for db, z in chosen:
            res = check_point(cache, db, z, Release.TRANSCRIPT, cal.epsilon, cal.delta)
            if not res.holds:
                return Certificate(
                    "Theorem 5.5 (enumerated)", {**pair_parameters(tree, params, db, z),
                                                 "epsilon": cal.epsilon, "delta": cal.delta},
                    "enumerated", {"refuted variant": name,
                                   "excess": exact_str(res.delta - cal.delta)},
                    scope="power: a known-violating variant is refuted on the same instance")
    raise NoPower(f"no variant of {list(variants)} is refuted at (eps, delta) = ({cal.epsilon}, "
                  f"{cal.delta}) on the pairs given: the Theorem 5.5 case has no power")
