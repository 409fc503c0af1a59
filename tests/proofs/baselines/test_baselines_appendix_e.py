"""Appendix E and Eq. (25): the general (symbolic + certified) checkers and instances."""

from __future__ import annotations

from fractions import Fraction

import pytest

from betweencut.baselines.tree_counting import CountingSchedule, alpha_for_rho
from betweencut.proofs import CLAIMS, ClaimRefuted
from betweencut.proofs.baselines.appendix_e import (
    audit_appendix_e,
    check_eq25_general,
    check_eq25_instance,
    check_eq130_general,
    check_eq130_instance,
    check_eq147_all_rounds,
    check_eq147_schedule,
    check_eq159,
)


def test_eq_25_reading_L_holds_for_all_parameters() -> None:
    cert = check_eq25_general("L")
    assert cert.method == "symbolic+interval" and cert.parameters["h"] == ">= 1"


def test_eq_25_reading_log2h_holds_for_h_at_least_2() -> None:
    cert = check_eq25_general("log2h")
    assert cert.parameters["h"] == ">= 2"


@pytest.mark.parametrize("reading", ["L", "log2h"])
@pytest.mark.parametrize("h", [2, 3, 8, 2**13, 2**13 - 1, 10**9])
@pytest.mark.parametrize("delta", ["1/1000000", "1/20", "99/1000"])
def test_eq_25_instances(reading: str, h: int, delta: str) -> None:
    check_eq25_instance(h, 1, delta, reading)


def test_eq_25_reading_log2h_fails_at_h1_with_counterexample() -> None:
    with pytest.raises(ClaimRefuted) as info:
        check_eq25_instance(1, 1, "1/20", "log2h")
    assert info.value.counterexample["h"] == 1
    check_eq25_instance(1, 1, "1/20", "L")  # the other reading holds there


def test_eq_130_general_and_instances() -> None:
    check_eq130_general()
    for h in (2, 3, 4, 1000, 2**64):
        check_eq130_instance(h, "1/10", "1/20")
        check_eq130_instance(h, 1, "99/1000")


def test_eq_130_rejects_a_wrong_constant() -> None:
    with pytest.raises(ClaimRefuted):
        check_eq130_instance(1000, 1, "1/20", constant=1)


def test_theorem_e_1_eq_147_all_rounds_symbolic() -> None:
    cert = check_eq147_all_rounds()
    assert cert.parameters["j"] == ">= 1"


def test_theorem_e_1_eq_147_on_the_running_schedule() -> None:
    s = CountingSchedule.of(3, alpha_for_rho("8/9"), 1, "1/20")
    check_eq147_schedule(s, 40)


def test_theorem_e_1_eq_147_rejects_a_too_low_threshold() -> None:
    s = CountingSchedule.of(3, alpha_for_rho("8/9"), 1, "1/20")
    from dataclasses import replace

    with pytest.raises(ClaimRefuted):
        check_eq147_schedule(replace(s, theta1=s.theta1 // 2), 3)


def test_theorem_e_1_eq_159() -> None:
    check_eq159()
    for a in ("1/100", "17/32", "99/100"):
        check_eq159(Fraction(a))


def test_claims_registered_and_audit_runs() -> None:
    for name in ("Eq. (25)", "Eq. (130)", "Theorem E.1"):
        assert name in CLAIMS
    assert all(c.verdict == "holds" for c in audit_appendix_e())
