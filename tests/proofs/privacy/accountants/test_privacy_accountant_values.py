"""The accountants' values, pinned exactly (issue 22): restructuring them must not move a number.

Each `delta_upper(ε)` is pinned by the SHA-256 (first 16 hex digits) of its exact text
(`exact_str`: the same value in the same form), `epsilon_upper(δ)` and the tight calibration by
their exact rationals and forms. The pins were taken on main before the accountants became one
class each (commit a95f7b7).
"""

from __future__ import annotations

import hashlib
from fractions import Fraction as F

import pytest

from betweencut.mechanism.calibration import calibrate
from betweencut.numbers.exact import LogReal
from betweencut.proofs.exact.arith import exact_str
from betweencut.proofs.privacy.accountants.accountant import accountant
from betweencut.proofs.privacy.accountants.tight_calibration import calibrate_tight

CASES = [(4, F(1, 4), LogReal(F(1), F(4), F(80))), (20, F(1, 17), F(40)),
         (3, F(2, 3), LogReal(F(1), F(1, 2), F(7)))]  # the last: δ0 a certified upper bound
NAMES = ("paper", "kov", "envelope", "tight")
DELTA_DIGESTS = {  # (case, name) -> digests at ε = 0, λ, 3λ/2, 1, Lλ
    (0, "paper"): ("6b86b273ff34fce1", "20daa9e686d8fba0", "20daa9e686d8fba0",
                   "e6e817c6b69a1715", "e6e817c6b69a1715"),
    (0, "kov"): ("2e0e9c4257587ac8", "8f8f993ba242c504", "438b5bdc76b9d0bb", "3b94b5174128fa85",
                 "3b94b5174128fa85"),
    (0, "envelope"): ("8e7a2fb1b9a963ab", "c2c9c044ff0cf7e4", "67e7b4ebf26f4d1f",
                      "277fc7e40484682d", "277fc7e40484682d"),
    (0, "tight"): ("8e7a2fb1b9a963ab", "c2c9c044ff0cf7e4", "67e7b4ebf26f4d1f",
                   "3b94b5174128fa85", "3b94b5174128fa85"),
    (1, "paper"): ("6b86b273ff34fce1", "abafe0d8891f3a92", "abafe0d8891f3a92",
                   "c65bd209a01e93bb", "19532f34a0458831"),
    (1, "kov"): ("76f5097f3c1ae99f", "512c83a7f1aef4a6", "5f5ff99acc626884", "ab3a8468e5ed46bc",
                 "a7a3b795e8b199d4"),
    (1, "envelope"): ("9a5cea88344077c0",) * 5,
    (1, "tight"): ("9a5cea88344077c0",) * 4 + ("a7a3b795e8b199d4",),
    (2, "paper"): ("6b86b273ff34fce1", "ace53fc0d165abed", "ace53fc0d165abed",
                   "ace53fc0d165abed", "bb0f1dff8fc97f94"),
    (2, "kov"): ("0cf0c4046bd905dd", "6f4c121276396ae8", "d6e090ddddb39ca8", "d6e090ddddb39ca8",
                 "80fc96cc04b6c35d"),
    (2, "envelope"): ("fd2767e60c76e4a4",) + ("4c4c7cba380fdc3d",) * 4,
    (2, "tight"): ("fd2767e60c76e4a4",) + ("4c4c7cba380fdc3d",) * 3 + ("80fc96cc04b6c35d",),
}


def _digest(value: object) -> str:
    return hashlib.sha256(exact_str(value).encode()).hexdigest()[:16]  # type: ignore[arg-type]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("name", NAMES)
def test_accountants_delta_upper_pinned(case: int, name: str) -> None:
    L, lam, R = CASES[case]
    acc = accountant(name, L=L, lam=lam, R=R)
    got = tuple(_digest(acc.delta_upper(eps)) for eps in (F(0), lam, lam * 3 / 2, F(1), L * lam))
    assert got == DELTA_DIGESTS[(case, name)]


def test_accountants_epsilon_upper_pinned() -> None:
    cal = calibrate(2**20 - 1, 1, F(1, 20))
    pinned = {"paper": F(7, 17), "kov": F(33445, 131072), "envelope": F(159, 680),
              "tight": F(159, 680)}
    for name, eps in pinned.items():
        assert accountant(name, L=cal.L, lam=cal.lam, R=cal.R).epsilon_upper(cal.delta) == eps
    small = {"paper": F(1), "kov": F(183549, 262144), "envelope": F(3, 5), "tight": F(3, 5)}
    for name, eps in small.items():
        acc = accountant(name, L=4, lam=F(1, 4), R=LogReal(F(1), F(4), F(80)))
        assert acc.epsilon_upper(F(1, 20)) == eps


@pytest.mark.parametrize("h, eps, delta, lam, R", [
    (15, F(1), F(1, 20), F(3203, 10000), "1 + (10000/3203)*log(50000000000/918083109)"),
    (2**10 - 1, F(1), F(1, 10**6), F(1, 10), "1 + 10*log(100000000000000/20000009)"),
    (2**20 - 1, F(1), F(1, 20), F(3049, 20000), "1 + (20000/3049)*log(25000000000/56579933)"),
    (1, F(1, 2), F(1, 1000), F(1, 2), "1 + 2*log(500)"),
])
def test_tight_calibration_pinned(h: int, eps: F, delta: F, lam: F, R: str) -> None:
    cal = calibrate_tight(h, eps, delta)
    assert (cal.lam, cal.R.exact_str()) == (lam, R)
    assert cal.R + 1 / lam == cal.E
