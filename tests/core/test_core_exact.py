"""`betweencut.numbers.exact`: rationals read without floats, and certified sign/floor/ceil of
`a + b·ln(c)` even when the value is within 1e-30 of an integer.

The expected answers near an integer come from an mpmath oracle at 200 significant digits: a
numeric oracle in a test is fine, it is the library that must not decide by floats.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath
import pytest

from betweencut.errors import ParameterError, Undecided
from betweencut.numbers import exact as core_exact
from betweencut.numbers.exact import LogReal, as_rational


@pytest.mark.parametrize(
    ("text", "value"),
    [("0.1", F(1, 10)), ("1/10", F(1, 10)), ("1e-1", F(1, 10)), ("1e-3", F(1, 1000)),
     (" 0.05 ", F(1, 20)), ("3", F(3)), ("-2/4", F(-1, 2)), ("0.099", F(99, 1000))],
)
def test_as_rational_reads_strings_exactly(text: str, value: F) -> None:
    assert as_rational(text, "x") == value


def test_as_rational_ints_and_fractions() -> None:
    assert as_rational(7, "x") == 7
    assert as_rational(F(2, 3), "x") == F(2, 3)


@pytest.mark.parametrize("bad", [0.1, 1.0, float("nan"), True, None, "abc", "1/0", "", [1]])
def test_as_rational_refuses(bad: object) -> None:
    with pytest.raises(ParameterError) as info:
        as_rational(bad, "epsilon")
    assert info.value.name == "epsilon"


def test_as_rational_float_message_says_why() -> None:
    with pytest.raises(ParameterError, match="float"):
        as_rational(0.1, "delta")


def _rational_near(c: int, x: int, digits: int, side: str) -> F:
    """A rational within 10^-digits of `c·ln(x)`: just below (`floor`) or just above (`ceil`)."""
    with mpmath.workdps(digits + 60):
        scaled = mpmath.mpf(c) * mpmath.log(x) * mpmath.mpf(10) ** digits
        n = int(mpmath.floor(scaled)) if side == "floor" else int(mpmath.ceil(scaled))
    return F(n, 10**digits)


@pytest.mark.parametrize(("c", "x"), [(1, 2), (4, 80), (28, F(20000, 99)), (F(1, 3), 7)])
@pytest.mark.parametrize("digits", [31, 40, 60])
def test_logreal_sign_within_1e_30_of_zero(c: int, x: int, digits: int) -> None:
    coeff, arg = F(c), F(x)
    with mpmath.workdps(digits + 60):
        exact = mpmath.mpf(coeff.numerator) / coeff.denominator * mpmath.log(
            mpmath.mpf(arg.numerator) / arg.denominator)
        scaled = exact * mpmath.mpf(10) ** digits
        below = F(int(mpmath.floor(scaled)), 10**digits)
        above = F(int(mpmath.ceil(scaled)), 10**digits)
    assert 0 < above - below <= F(1, 10**digits)
    # const + coeff·ln(arg) with const = -below is in (0, 1e-digits]: positive.
    assert LogReal(-below, coeff, arg).sign() == 1
    assert LogReal(-above, coeff, arg).sign() == -1
    assert LogReal(below, -coeff, arg).sign() == -1
    assert LogReal(above, -coeff, arg).sign() == 1


@pytest.mark.parametrize("k", [-3, 0, 1, 17])
def test_logreal_floor_ceil_within_1e_30_of_an_integer(k: int) -> None:
    below = _rational_near(4, 80, 35, "floor")  # 4 ln 80 - 1e-35 < below < 4 ln 80
    above = _rational_near(4, 80, 35, "ceil")
    just_above_k = LogReal(k - below, F(4), F(80))  # k + (4 ln 80 - below), in (k, k + 1e-35)
    just_below_k = LogReal(k - above, F(4), F(80))  # in (k - 1e-35, k)
    assert just_above_k.floor() == k and just_above_k.ceil() == k + 1
    assert just_below_k.floor() == k - 1 and just_below_k.ceil() == k
    assert just_above_k.compare(k) == 1 and just_below_k.compare(k) == -1


def test_logreal_undecided_instead_of_guessing(monkeypatch: pytest.MonkeyPatch) -> None:
    below = _rational_near(1, 2, 60, "floor")
    monkeypatch.setattr(core_exact, "MAX_PRECISION_BITS", 64)  # the package's one cap, lowered
    with pytest.raises(Undecided):
        LogReal(-below, F(1), F(2)).sign()
    monkeypatch.undo()
    assert LogReal(-below, F(1), F(2)).sign() == 1  # at the package's precision cap


def test_logreal_exact_zero_and_rational_cases() -> None:
    assert LogReal(F(0)).sign() == 0
    assert LogReal(F(3), F(5), F(1)).sign() == 1  # ln 1 = 0: rational
    assert LogReal(F(0), F(2), F(1, 3)).sign() == -1  # 2 ln(1/3) < 0
    assert LogReal(F(0), F(-2), F(1, 3)).sign() == 1
    assert LogReal(F(7, 2)).floor() == 3 and LogReal(F(7, 2)).ceil() == 4
    assert LogReal(F(-7, 2)).floor() == -4 and LogReal(F(-7, 2)).ceil() == -3
    assert LogReal(F(5)).floor() == 5 == LogReal(F(5)).ceil()


def test_logreal_floor_of_calibrated_R() -> None:
    # R = 1 + 4 ln 80 = 18.528...; a - R at tau = 30 (a = 26) is 7.47..., b + R = 52.53...
    big_r = LogReal(F(1), F(4), F(80))
    assert big_r.floor() == math.floor(1 + 4 * math.log(80)) == 18
    assert (26 - big_r).floor() == 7
    assert (big_r + 34).ceil() == 53


def test_logreal_arithmetic_and_refusals() -> None:
    x = LogReal(F(1), F(4), F(80))
    assert x + 4 == LogReal(F(5), F(4), F(80))
    assert 2 * x == LogReal(F(2), F(8), F(80))
    assert (x - x).sign() == 0
    with pytest.raises(ParameterError):
        LogReal(F(1), F(1), F(0))
    with pytest.raises(ParameterError):
        _ = x + LogReal(F(0), F(1), F(3))


def test_refine_climbs_past_a_step_that_cannot_answer_yet() -> None:
    """An enclosure that cannot answer at a precision (`NotYet`, e.g. a divisor whose
    enclosure contains 0) makes the one loop climb; only the cap raises `Undecided`."""
    from betweencut.errors import NotYet
    from betweencut.numbers.exact import refine

    seen: list[int] = []

    def step(prec: int) -> int:
        seen.append(prec)
        if prec < 256:
            raise NotYet(f"not at {prec} bits")
        return prec

    assert refine(step, lambda: "a step") == (256, 256)
    assert seen == [64, 128, 256]

    def never(prec: int) -> int:
        raise NotYet(f"not at {prec} bits")

    with pytest.raises(Undecided, match="not decided at") as caught:
        refine(never, lambda: "a step that never answers")
    assert not isinstance(caught.value, NotYet)  # the cap's Undecided, not a step's NotYet


def test_refine_does_not_swallow_an_inner_loop_at_its_cap() -> None:
    """An inner loop that reached the cap is an answer (`Undecided`), not a precision too low:
    the outer loop stops at once."""
    from betweencut.numbers.exact import refine

    calls: list[int] = []

    def step(prec: int) -> int:
        calls.append(prec)
        raise Undecided("an inner loop reached the cap")

    with pytest.raises(Undecided, match="inner loop"):
        refine(step, lambda: "outer")
    assert calls == [64]


def test_midpoint_float_is_a_finite_float_for_any_rationals() -> None:
    """Display and JSON floats: the largest double in size past the double range (JSON has no
    infinity), 0.0 below it, never an OverflowError (a Renyi row at order 1 + 10^-1000)."""
    from betweencut.numbers.exact import midpoint_float

    huge = F(2) ** 4096
    assert midpoint_float(huge, huge + 1) == 1.7976931348623157e308
    assert midpoint_float(-huge - 1, -huge) == -1.7976931348623157e308
    assert midpoint_float(F(1, 10**1000), F(1, 10**999)) == 0.0
    assert midpoint_float(F(1, 3), F(2, 3)) == 0.5
