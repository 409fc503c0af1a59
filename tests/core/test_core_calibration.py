"""Calibration (Theorem 5.5, Eq. (23)) and the margin (Theorem 5.6, Eq. (24)), checked by hand.

Each expected value below is worked out in the comment beside it, from the formulas
`L = ceil(log2(h + 1))`, `r0 = ceil(ln(2/δ)/ln(5/4))`, `r = min(L, r0)`, `λ = ε/r`, `w = r/ε`,
`R = 1 + (r/ε)·ln(L/δ)`, `E = w + R`.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import pytest

from betweencut.errors import ParameterError
from betweencut.mechanism.calibration import calibrate, path_query_bound, residual_calls
from betweencut.numbers.exact import LogReal


def test_theorem_5_5_h15_eps1_delta_1_20() -> None:
    # L = ceil(log2 16) = 4; 2/δ = 40, ln 40 / ln 1.25 = 3.689/0.2231 = 16.53 -> r0 = 17;
    # r = min(4, 17) = 4; λ = 1/4; w = 4; R = 1 + 4 ln(4/(1/20)) = 1 + 4 ln 80; E = 5 + 4 ln 80.
    cal = calibrate(15, "1", "0.05")
    assert (cal.L, cal.r0, cal.r) == (4, 17, 4)
    assert cal.lam == F(1, 4) and cal.w == 4
    assert LogReal(F(1), F(4), F(80)) == cal.R
    assert LogReal(F(5), F(4), F(80)) == cal.E
    assert cal.R.exact_str() == "1 + 4*log(80)"
    assert cal.R.approx() == pytest.approx(1 + 4 * math.log(80), rel=1e-15)
    # (5/4)^16 = 35.53 < 40 <= (5/4)^17 = 44.41
    assert F(5, 4) ** 16 < 40 <= F(5, 4) ** 17


def test_theorem_5_5_r_equals_r0_below_L() -> None:
    # h = 10^6: 2^19 = 524288 < 10^6 + 1 <= 2^20 -> L = 20. δ = 99/1000: 2/δ = 2000/99 = 20.20;
    # (5/4)^13 = 18.19 < 20.20 <= (5/4)^14 = 22.74 -> r0 = 14 < L, r = 14.
    # ε = 1/2: λ = 1/28, w = 28, R = 1 + 28 ln(20 / (99/1000)) = 1 + 28 ln(20000/99).
    cal = calibrate(10**6, "1/2", "0.099")
    assert (cal.L, cal.r0, cal.r) == (20, 14, 14)
    assert cal.lam == F(1, 28) and cal.w == 28
    assert LogReal(F(1), F(28), F(20000, 99)) == cal.R
    assert LogReal(F(29), F(28), F(20000, 99)) == cal.E
    assert F(5, 4) ** 13 < F(2000, 99) <= F(5, 4) ** 14


def test_theorem_5_5_height_one() -> None:
    # h = 1: L = ceil(log2 2) = 1, r0 = 17 (δ = 1/20 as above), r = 1; ε = 1/2: λ = 1/2, w = 2,
    # R = 1 + 2 ln(1/(1/20)) = 1 + 2 ln 20, E = 3 + 2 ln 20.
    cal = calibrate(1, F(1, 2), F(1, 20))
    assert (cal.L, cal.r0, cal.r) == (1, 17, 1)
    assert cal.lam == F(1, 2) and cal.w == 2
    assert LogReal(F(1), F(2), F(20)) == cal.R
    assert LogReal(F(3), F(2), F(20)) == cal.E


def test_theorem_5_5_small_delta() -> None:
    # h = 3: L = 2. δ = 10^-6: ln(2·10^6)/ln 1.25 = 14.51/0.2231 = 65.02 -> r0 = 66; r = 2.
    # ε = 1/10: λ = 1/20, w = 20, R = 1 + 20 ln(2·10^6).
    cal = calibrate(3, "0.1", "1e-6")
    assert (cal.L, cal.r0, cal.r) == (2, 66, 2)
    assert cal.lam == F(1, 20) and cal.w == 20
    assert LogReal(F(1), F(20), F(2_000_000)) == cal.R


@pytest.mark.parametrize(("h", "L"), [(1, 1), (2, 2), (3, 2), (4, 3), (7, 3), (8, 4), (15, 4),
                                      (16, 5), (2**20 - 1, 20), (2**20, 21)])
def test_eq_14_path_query_bound(h: int, L: int) -> None:
    assert path_query_bound(h) == L
    assert 2 ** (L - 1) < h + 1 <= 2**L


def test_r0_is_the_least_power() -> None:
    for den in (11, 20, 100, 1000, 10**6):
        d = F(1, den)
        r0 = residual_calls(d)
        assert F(5, 4) ** (r0 - 1) < 2 / d <= F(5, 4) ** r0
        assert r0 == math.ceil(math.log(2 * den) / math.log(1.25))


@pytest.mark.parametrize(
    ("name", "h", "eps", "delta"),
    [
        ("epsilon", 15, "0", "0.05"),
        ("epsilon", 15, "-1", "0.05"),
        ("epsilon", 15, "1.5", "0.05"),
        ("epsilon", 15, "1.0000001", "0.05"),
        ("delta", 15, "1", "0.1"),
        ("delta", 15, "1", "0.5"),
        ("delta", 15, "1", "0"),
        ("delta", 15, "1", "-0.01"),
        ("height", 0, "1", "0.05"),
        ("height", -1, "1", "0.05"),
        ("height", True, "1", "0.05"),
        ("height", 15.0, "1", "0.05"),
        ("epsilon", 15, 0.5, "0.05"),
        ("delta", 15, "1", 0.05),
        ("epsilon", 15, "abc", "0.05"),
    ],
)
def test_theorem_5_5_range_errors(name: str, h: object, eps: object, delta: object) -> None:
    with pytest.raises(ParameterError) as info:
        calibrate(h, eps, delta)
    assert info.value.name == name
    assert name in str(info.value)


def test_theorem_5_5_range_error_message_names_the_range() -> None:
    with pytest.raises(ParameterError, match=r"0 < delta < 1/10"):
        calibrate(15, 1, F(1, 10))
    with pytest.raises(ParameterError, match=r"0 < epsilon <= 1"):
        calibrate(15, F(3, 2), F(1, 20))


def test_theorem_5_5_boundary_values_allowed() -> None:
    cal = calibrate(15, 1, F(1, 10) - F(1, 10**30))
    assert cal.r0 == 14
    assert calibrate(1, F(1, 10**9), F(1, 10**9)).lam == F(1, 10**9)


def test_theorem_5_6_params_margin_matches_calibration() -> None:
    cal = calibrate(15, 1, "0.05")
    params = cal.params(30)
    assert params.margin == cal.E
    assert (params.a, params.b) == (26, 34)
