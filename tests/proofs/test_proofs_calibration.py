"""Theorem 5.5 and 5.6: the calibration facts, and their rejection of wrong calibrations."""

from __future__ import annotations

import dataclasses
import re
from fractions import Fraction

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from betweencut.mechanism.calibration import calibrate
from betweencut.numbers.exact import LogReal
from betweencut.proofs import ClaimRefuted
from betweencut.proofs.calibration_claims import (
    audit_calibration,
    check_theorem_5_5,
    check_theorem_5_6_margin,
)

epsilons = st.fractions(min_value=Fraction(1, 1000), max_value=1, max_denominator=1000)
deltas = st.fractions(min_value=Fraction(1, 10**9), max_value=Fraction(99, 1000),
                      max_denominator=10**9).filter(lambda d: 0 < d < Fraction(1, 10))


@given(st.integers(1, 10**9), epsilons, deltas)
@example(15, Fraction(1), Fraction(1, 20))
@example(10**9, Fraction(1), Fraction(99, 1000))
def test_theorem_5_5_calibration_facts(h: int, eps: Fraction, delta: Fraction) -> None:
    cert = check_theorem_5_5(calibrate(h, eps, delta))
    assert cert.verdict == "holds" and cert.method == "exact"


@given(st.integers(1, 10**6), epsilons, deltas)
def test_theorem_5_6_margin_identity(h: int, eps: Fraction, delta: Fraction) -> None:
    cert = check_theorem_5_6_margin(calibrate(h, eps, delta))
    assert cert.quantities["E"] == calibrate(h, eps, delta).E.exact_str()


def test_theorem_5_5_worked_example_h15() -> None:
    cert = check_theorem_5_5(calibrate(15, 1, "0.05"))
    assert cert.quantities["R"] == "1 + 4*log(80)"
    assert (cert.quantities["L"], cert.quantities["r0"], cert.quantities["r"]) == (4, 17, 4)


@pytest.mark.parametrize(
    ("field", "value", "step"),
    [
        ("L", 5, "L is not"),
        ("r0", 16, "r0 is not"),
        ("r", 3, "r is not"),
        ("lam", Fraction(1, 3), "lambda"),
        ("R", LogReal(Fraction(1), Fraction(4), Fraction(81)), "Eq. (119)"),
        ("R", LogReal(Fraction(1), Fraction(3), Fraction(80)), "Eq. (119)"),
        ("R", LogReal(Fraction(2), Fraction(4), Fraction(80)), "Eq. (119)"),
        ("R", LogReal(Fraction(1), Fraction(4), Fraction(160)), "Eq. (119)"),
    ],
)
def test_theorem_5_5_rejects_a_wrong_calibration(field: str, value: object, step: str) -> None:
    wrong = dataclasses.replace(calibrate(15, 1, "0.05"), **{field: value})
    with pytest.raises(ClaimRefuted, match=re.escape(step)) as info:
        check_theorem_5_5(wrong)
    assert info.value.counterexample["h"] == 15


def test_theorem_5_5_rejects_eq_120_failure() -> None:
    """r < L with r too small for (4/5)^r <= delta/2: r0 claimed as 5 at delta = 1/20."""
    cal = calibrate(10**6, 1, "0.05")  # L = 20 > r0 = 17, so r = r0
    wrong = dataclasses.replace(cal, r0=5, r=5, lam=Fraction(1, 5), w=Fraction(5),
                                R=LogReal(Fraction(1), Fraction(5), Fraction(20) / cal.delta))
    with pytest.raises(ClaimRefuted):
        check_theorem_5_5(wrong)


def test_theorem_5_6_rejects_a_wrong_margin() -> None:
    cal = calibrate(15, 1, "0.05")
    with pytest.raises(ClaimRefuted, match="E is not"):
        check_theorem_5_6_margin(dataclasses.replace(cal, E=cal.R))


def test_calibration_audit_grid_holds() -> None:
    certs = audit_calibration()
    assert len(certs) == 2 * 84 and all(c.verdict == "holds" for c in certs)


def test_theorem_5_5_eq_119_is_decided_on_the_value_of_the_real_r() -> None:
    """Eq. (119) is an equation in the calibration's own lambda and R, not an identity: the
    same R spelled differently (4 ln 80 = 2 ln 6400) holds, an R off by one factor 2 inside
    the log (the guards a little too narrow) is refuted, and so is a perturbed calibrate()."""
    from betweencut.proofs.calibration_claims import eq_119_holds

    cal = calibrate(15, 1, "0.05")  # L = 4, lambda = 1/4, R = 1 + 4 ln 80
    same = LogReal(Fraction(1), Fraction(2), Fraction(6400))
    assert eq_119_holds(cal.L, cal.lam, same, cal.delta)
    assert check_theorem_5_5(dataclasses.replace(cal, R=same)).verdict == "holds"
    for wrong in (LogReal(Fraction(1), Fraction(4), Fraction(40)),
                  LogReal(Fraction(1), Fraction(4), Fraction(80)) + Fraction(1, 1000)):
        assert not eq_119_holds(cal.L, cal.lam, wrong, cal.delta)
    for h, e, d in [(3, "1", "1/20"), (1000, "1/2", "1/1000"), (1, "1/10", "99/1000")]:
        good = calibrate(h, e, d)
        assert eq_119_holds(good.L, good.lam, good.R, good.delta)
        assert not eq_119_holds(good.L, good.lam, good.R + good.w, good.delta)  # R <- E
