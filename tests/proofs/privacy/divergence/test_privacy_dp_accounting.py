"""Cross-check of the exact profiles against dp-accounting's privacy loss distributions.

dp-accounting builds a PLD from the two enumerated laws (floats: a cross-check, not a verdict)
with the pessimistic discretisation of interval `Δ`, so for each direction

    δ_exact(ε) <= δ_PLD(ε) <= δ_exact(ε - Δ)    (up to float rounding).
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from betweencut.data.tree import kary_tree
from betweencut.mechanism.params import Params
from betweencut.proofs.privacy.audit.pairs import display
from betweencut.proofs.privacy.claims.setup import betweencut_cache, theorem_5_4_points
from betweencut.proofs.privacy.divergence.joint import Joint, Law
from betweencut.proofs.privacy.enumeration.cache import with_record

pld_module = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")

DISCRETISATION = 1e-4
TOLERANCE = 1e-9
CASES = [  # (k, h, tau, lambda, R, D, z, on)
    (2, 3, 2, Fraction(1, 2), 2, ((0, 0), (0, 1)), (0, 0), "transcript"),
    (2, 3, 2, Fraction(1, 2), 2, ((0, 0), (0, 1)), (0, 0), "heavy"),
    (2, 3, 1, Fraction(1), 1, ((1, 1),), (1, 0), "heavy"),
    (2, 3, 0, Fraction(1), 3, (), (0, 0), "transcript"),
    (3, 2, 1, Fraction(1, 2), Fraction(3, 2), ((2,),), (2,), "heavy"),
]


def _log_pmf(law: Law) -> dict[object, float]:
    return {o: math.log(display(law.value(o))) for o in law.bags}


def _pld_delta(p: Law, q: Law, eps: float) -> float:
    """dp-accounting's `δ_{P‖Q}(ε)`: with `symmetric=True` its PLD of `(mu_lower, mu_upper)`
    gives the hockey stick of `mu_upper` over `mu_lower`, so `mu_upper` plays `P`."""
    pld = pld_module.from_two_probability_mass_functions(
        _log_pmf(q), _log_pmf(p), pessimistic_estimate=True,
        value_discretization_interval=DISCRETISATION, symmetric=True)
    return float(pld.get_delta_for_epsilon(eps))


@pytest.mark.parametrize("k, h, tau, lam, R, db, z, on", CASES)
def test_dp_accounting_pld_agrees_with_exact_profile(k, h, tau, lam, R, db, z, on) -> None:  # type: ignore[no-untyped-def]
    tree = kary_tree(k, h)
    params = Params.of(tau, lam, R)
    cache = betweencut_cache(tree, params)
    p, q = cache.law(db, on), cache.law(with_record(db, z), on)
    joint = Joint(p, q)
    for eps, _ in theorem_5_4_points(tree, params):
        below = eps - Fraction(DISCRETISATION)
        for forward, (x, y) in ((True, (p, q)), (False, (q, p))):
            exact = display(joint.hockey_stick(eps, forward).delta)
            looser = display(joint.hockey_stick(below, forward).delta)
            pld = _pld_delta(x, y, float(eps))
            assert exact - TOLERANCE <= pld <= looser + TOLERANCE, (eps, forward, exact, pld)
