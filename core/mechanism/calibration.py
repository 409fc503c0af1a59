"""Calibration (Theorem 5.5, Eq. (23)) and the deterministic margin (Theorem 5.6, Eq. (24)).

Everything rational is a `Fraction`; `R` and `E` contain `ln(L/δ)` and are exact `LogReal`s.
`r0 = ⌈ln(2/δ)/ln(5/4)⌉` is computed without logarithms: it is the least integer `r` with
`(5/4)^r >= 2/δ`, a comparison of rationals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Any

from betweencut.data.tree import MAX_CALIBRATION_HEIGHT
from betweencut.data.validate import exact_value
from betweencut.errors import ParameterError, public_height, shown
from betweencut.mechanism.params import Params
from betweencut.numbers.exact import LogReal
from betweencut.schemas import header


class AccountantKind(StrEnum):
    """The accountant that certifies a calibration and the claimed points, a value from the
    command line's parser and the API's boundary on (`AccountantKind.of`, the one reading of
    its name): `PAPER`, Theorem 5.5 (and Theorem 5.4, Eq. (22)'s points); `TIGHT`, the
    certified tight accountant (the least of Theorem 5.4, KOV and the GuardedBT envelope,
    `betweencut.proofs.privacy.accountants`). Its value is the name written in JSON."""

    PAPER = "paper"
    TIGHT = "tight"

    @classmethod
    def of(cls, value: object, name: str = "accountant") -> AccountantKind:
        """`value` (a member, or its name "paper" or "tight") as a member; `ParameterError`
        naming `name` otherwise."""
        if isinstance(value, cls):
            return value
        try:
            return cls(value)
        except ValueError:
            raise ParameterError(name, value, ", ".join(k.value for k in cls)) from None

    @property
    def calibration_title(self) -> str:
        """How its calibration is titled: "Theorem 5.5" or "tight-accountant"."""
        return _TITLES[self]


_TITLES = {AccountantKind.PAPER: "Theorem 5.5", AccountantKind.TIGHT: "tight-accountant"}


def path_query_bound(height: int) -> int:
    """`L = ⌈log2(h + 1)⌉` (Eq. (14)): for `h >= 1` it is the bit length of `h`."""
    return height.bit_length()


def residual_calls(delta: Fraction) -> int:
    """`r0 = ⌈ln(2/δ)/ln(5/4)⌉` (Theorem 5.5): the least `r` with `(5/4)^r >= 2/δ`."""
    if not 0 < delta < 2:
        raise ParameterError("delta", delta, "0 < delta < 2")
    num, den = 2 * delta.denominator, delta.numerator  # 2/delta = num/den

    def reaches(r: int) -> bool:  # (5/4)^r >= num/den, exactly in integers
        return 5**r * den >= num * 4**r

    # a float only proposes a start; the exact comparisons decide (at most a few steps)
    r = max(0, int((num.bit_length() - den.bit_length()) / math.log2(1.25)) - 2)
    while r > 0 and reaches(r - 1):
        r -= 1
    while not reaches(r):
        r += 1
    return r


def check_privacy_budget(epsilon: object, delta: object) -> tuple[Fraction, Fraction]:
    """Read `(ε, δ)` exactly and enforce the paper's range `0 < ε <= 1`, `0 < δ < 1/10`."""
    eps = exact_value(epsilon, "epsilon")
    if not 0 < eps <= 1:
        raise ParameterError("epsilon", eps, "0 < epsilon <= 1 (the range of Theorem 5.5)")
    dlt = exact_value(delta, "delta")
    if not 0 < dlt < Fraction(1, 10):
        raise ParameterError("delta", dlt, "0 < delta < 1/10 (the range of Theorem 5.5)")
    return eps, dlt


def _number(x: Fraction | LogReal) -> int | float | str:
    """A JSON number for reading: an int when exact, else the nearest float (display only);
    the exact form as a string when no float can hold it (beyond about 1.8e308)."""
    if isinstance(x, LogReal):
        value = x.approx()
        return value if math.isfinite(value) else x.exact_str()
    if x.denominator == 1 and x.numerator.bit_length() <= 1024:
        return int(x)
    try:
        return float(x)
    except OverflowError:
        return str(x)


@dataclass(frozen=True)
class Calibration:
    """The numbers of Theorem 5.5 and 5.6 for public `(h, ε, δ)`."""

    height: int
    epsilon: Fraction
    delta: Fraction
    L: int
    r0: int
    r: int
    lam: Fraction
    w: Fraction
    R: LogReal
    E: LogReal
    accountant: AccountantKind = AccountantKind.PAPER  # which accountant certifies (lam, R)

    def params(self, tau: object) -> Params:
        """Public parameters of Alg. 3 at threshold `τ` with this calibration."""
        return Params.of(tau, self.lam, self.R)

    def as_json(self, with_header: bool = True) -> dict[str, Any]:
        """`betweencut calibrate --json`'s object (schema `calibrate`, issue 36 item 3): numbers
        for reading (floats: display only), and exact forms as strings; `with_header=False`
        drops `schema` and `version` (a calibration nested in a release)."""
        return {
            **(header("calibrate") if with_header else {}),
            "height": self.height if self.height <= MAX_CALIBRATION_HEIGHT else shown(self.height),
            "epsilon": _number(self.epsilon), "delta": _number(self.delta),
            "L": self.L, "r0": self.r0, "r": self.r,
            "lambda": _number(self.lam), "w": _number(self.w),
            "R": _number(self.R), "E": _number(self.E),
            "epsilon_exact": str(self.epsilon), "delta_exact": str(self.delta),
            "lambda_exact": str(self.lam), "w_exact": str(self.w),
            "R_exact": self.R.exact_str(), "E_exact": self.E.exact_str(),
            "accountant": self.accountant.value,
        }

    def text(self) -> str:
        """`betweencut calibrate`'s text: the numbers, each with its exact form, and what `E`
        means (Theorem 5.6)."""
        data = self.as_json(with_header=False)
        how = self.accountant.calibration_title
        out = [f"{how} calibration for h = {self.height}, eps = {self.epsilon}, "
               f"delta = {self.delta}"]
        out += [f"  {key:<7} {data[key]}" for key in ("L", "r0", "r")]
        for key in ("lambda", "w", "R", "E"):
            value = data[key] if isinstance(data[key], str) else f"{data[key]:.12g}"
            out.append(f"  {key:<7} {value:<22} = {data[key + '_exact']}")
        if self.accountant is AccountantKind.TIGHT:
            out += ["  lambda and R minimise E subject to the certified delta(eps) <= delta of "
                    "the",
                    "  tight accountant (KOV, the GuardedBT envelope or Theorem 5.4, the "
                    "smallest);",
                    "  L, r0 and r are Theorem 5.5's."]
        out += ["  E is the deterministic margin of Theorem 5.6: nodes with c >= tau + E are "
                "Heavy and",
                "  nodes with c <= tau - E are Light, on every run."]
        return "\n".join(out)

    def __str__(self) -> str:
        return self.text()


def calibrate(height: object, epsilon: object, delta: object) -> Calibration:
    """Theorem 5.5, Eq. (23): `L`, `r0`, `r = min(L, r0)`, `λ = ε/r`, `w = r/ε`,
    `R = 1 + (r/ε)·ln(L/δ)`; and `E = w + R` (Theorem 5.6, Eq. (24))."""
    height = public_height(height)  # any size: only L = bit length of h enters (Eq. (14))
    eps, dlt = check_privacy_budget(epsilon, delta)
    big_l = path_query_bound(height)
    r0 = residual_calls(dlt)
    r = min(big_l, r0)
    lam = eps / r
    w = r / eps
    big_r = LogReal(Fraction(1), r / eps, big_l / dlt)
    return Calibration(height, eps, dlt, big_l, r0, r, lam, w, big_r, big_r + w)
