"""The default band of the depth audit is read off the guard cuts: a variant whose count query
has another `guard` may tell `C` from `C + 1` outside it. Such a variant was certified at
h = 15 (calibrated (1, 1/20), tau = 24) by `check_theorem_5_4_at_depth` and `audit_depth`
although it releases a different transcript, with probability 1, at C = 60 and C = 61."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import pytest

from betweencut import audit_depth
from betweencut.data.tree import kary_tree
from betweencut.errors import ParameterError
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.mechanism.calibration import calibrate
from betweencut.mechanism.guarded_bt import BT, GuardedBT
from betweencut.noise.noisy_test import BTQuery, Outcome
from betweencut.proofs.exact.certificate import ClaimRefuted
from betweencut.proofs.privacy.depth.depth_audit import check_theorem_5_4_at_depth

LEAK = 61


@dataclass(frozen=True, slots=True)
class _FarGuard(GuardedBT):
    """Alg. 1's guard except at count 61, far above the band, decided L."""

    def guard(self, count: int) -> Outcome | None:
        return Outcome.L if count == LEAK else GuardedBT.guard(self, count)


class FarGuard(BetweenCut):
    def make_query(self) -> BT:
        p = self.params
        g = GuardedBT.of(p.a, p.b, p.R, p.lam)
        return _FarGuard(g.a, g.b, g.lam, g.R, g.lower_cut, g.upper_cut)


def _no_noise(query: BTQuery) -> Outcome:
    raise AssertionError(f"a guarded run asked {query}")


def test_theorem_5_4_at_depth_default_band_refuses_a_guard_that_is_not_alg_1s() -> None:
    params = calibrate(15, 1, Fraction(1, 20)).params(24)
    mechanism = FarGuard(kary_tree(2, 15), params)
    # independently: at C = 60 and C = 61 every node is guarded (the path H or, at 61, L; the
    # rest L), so each run is one deterministic transcript, and they differ: delta(eps) = 1
    leaf = (0,) * 14
    first = mechanism.run([leaf] * (LEAK - 1), _no_noise).transcript
    second = mechanism.run([leaf] * LEAK, _no_noise).transcript
    assert first != second  # delta = 1 > every claimed bound (< 1 here)
    with pytest.raises(ParameterError, match="counts"):
        check_theorem_5_4_at_depth(15, params, variant=FarGuard)
    with pytest.raises(ParameterError, match="counts"):
        audit_depth(15, tau=24, epsilon=1, delta=Fraction(1, 20), variant=FarGuard)
    with pytest.raises(ClaimRefuted):  # given, the count is audited and refuted
        check_theorem_5_4_at_depth(15, params, variant=FarGuard, counts=[LEAK - 1])
