"""PrivTree: the mechanism, its replaceable parts, and its pure eps-DP claim by enumeration."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import pytest

from betweencut.baselines.privtree import MIDPOINT_SPLIT, PrivTree, box_of, ln_upper
from betweencut.errors import ParameterError
from betweencut.noise.bt_sampler import ExactSampler
from betweencut.noise.noisy_test import Outcome, RecordingTest, ReplayTest
from betweencut.numbers.exact import LogReal
from betweencut.proofs import ClaimRefuted
from betweencut.proofs.baselines.privtree_checks.privtree import (
    check_privtree_dp,
    domain_points,
    privtree_1d,
)


def test_privtree_parameters_and_score() -> None:
    m = privtree_1d(8, 1)
    assert m.scale == 3  # (2*2 - 1)/((2 - 1)*1)
    assert LogReal(Fraction(0), Fraction(1), Fraction(2)).compare(ln_upper(2)) <= 0
    assert m.depth_penalty == 3 * ln_upper(2)
    assert m.score(5, 0) == 5
    assert m.score(0, 3) == -m.depth_penalty  # clamped at theta - delta


def test_privtree_decisions_are_threshold_tests() -> None:
    rec = RecordingTest(ExactSampler(seed=2))
    m = privtree_1d(8, 1)
    leaves = m.run([(3,)] * 20, rec)
    assert sum(b[1] - b[0] for (b,) in leaves) == 8  # a partition of the box
    for query, outcome in rec.log:
        assert query.a == query.b == 0 and query.lam == Fraction(1, 3)
        assert outcome is not Outcome.B


def test_privtree_min_bins_uses_public_choice_only() -> None:
    m = PrivTree.of(box_of((0, 8)), 1, min_bins=4)
    out = m.run([], ReplayTest([Outcome.L]))  # the root is not split
    assert out == frozenset({((0, 2),), ((2, 4),), ((4, 6),), ((6, 8),)})


def test_privtree_2d_splits_widest_side() -> None:
    m = PrivTree.of(box_of((0, 2), (0, 4)), 1)
    assert MIDPOINT_SPLIT.children(m.box) == (((0, 2), (0, 2)), ((0, 2), (2, 4)))
    out = m.run([(1, 3)], ReplayTest([Outcome.H, Outcome.L, Outcome.L]))
    assert out == frozenset({((0, 2), (0, 2)), ((0, 2), (2, 4))})


def test_privtree_refuses_points_outside_the_public_box() -> None:
    with pytest.raises(ParameterError):
        privtree_1d(8, 1).run([(8,)])
    with pytest.raises(ParameterError):
        PrivTree.of(box_of((0, 8)), 0)


def test_privtree_epsilon_dp_holds_on_8_cells_every_database_of_at_most_one_point() -> None:
    m = privtree_1d(8, 1)
    cert = check_privtree_dp(m, domain_points(m), max_size=2)
    # 72 pairs = (the empty database + 8 one-point ones) x 8 added points: |D| <= 1
    assert cert.method == "enumerated" and cert.quantities["pairs"] == 72
    assert cert.scope.startswith("|D| <= 1")


@dataclass(frozen=True)
class HalvedEpsilon(PrivTree):
    """Claims epsilon but calibrates its noise for 2*epsilon (noise scale halved)."""

    @property
    def scale(self) -> Fraction:
        return super().scale / 2


def test_privtree_epsilon_dp_rejects_a_halved_noise_variant() -> None:
    m = privtree_1d(8, 1)
    leaky = HalvedEpsilon(m.box, m.epsilon, m.theta, m.split, m.member, m.min_bins,
                          m.ln_beta_upper)
    with pytest.raises(ClaimRefuted) as info:
        check_privtree_dp(leaky, domain_points(leaky), max_size=2)
    assert "D'" in info.value.counterexample


def test_privtree_epsilon_dp_certificate_states_the_claim_rederived_independently() -> None:
    """Issue 28, item 2 and sweep (PrivTree's ε vs the claim's): the claim is the `epsilon`
    given (a PrivTree built with `ε = 2` is refuted against 1), and the certificate states it,
    `δ = 0`, the bound `e^ε` (re-derived here from the claimed `ε`) and the mechanism's own `ε`
    apart."""
    from betweencut.proofs.exact.arith import ExpPoly, exact_str

    m = privtree_1d(8, 2)
    with pytest.raises(ClaimRefuted):
        check_privtree_dp(m, domain_points(m), max_size=2, epsilon=Fraction(1))
    cert = check_privtree_dp(m, domain_points(m), max_size=2, epsilon=Fraction(2))
    p = cert.parameters
    assert (p["epsilon"], p["delta"], p["mechanism_epsilon"]) == (2, 0, 2)
    assert p["bound"] == exact_str(ExpPoly.exp(Fraction(2)))
