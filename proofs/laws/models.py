"""The two exact models of one BT/GuardedBT call, behind one interface.

A `Model` fixes the public parameters of BT (Alg. 4) or GuardedBT (Alg. 1) and gives, for each
integer count, the exact output law, together with `ξ = e^λ` and `γ = 1 - e^{-λ(b-a)}` (Eq. (67))
in the same number type:

* `rational_model(a, b, xi, R)`: `ξ` a rational `> 1` and integer thresholds, so every value is a
  `Fraction` (Lemma 5.2 in its general form, any gap `b - a`);
* `exact_model(tau, lam, R)`: rational `λ` and `τ`, thresholds of Eq. (13) (`b - a = 2/λ`),
  values are `ExpRational`s (exact sums of `e^x` over rational `x`).

Laws come from `betweencut.proofs.laws.bt_laws` and the guards from the mechanism's own
`GuardedBT.guard`, so no second copy of the algorithm exists here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Generic, TypeVar

from betweencut.data.validate import positive_rational
from betweencut.errors import ParameterError
from betweencut.mechanism.guarded_bt import BT, GuardedBT
from betweencut.noise.noisy_test import Outcome
from betweencut.numbers.exact import LogReal
from betweencut.proofs.exact.arith import ExpPoly, ExpRational
from betweencut.proofs.laws.bt_laws import OUTCOMES, exact_law, rational_law
from betweencut.proofs.laws.tct import delta0

__all__ = ["OUTCOMES", "Model", "V", "exact_model", "rational_model"]

V = TypeVar("V", Fraction, ExpRational)


@dataclass(frozen=True)
class Model(Generic[V]):
    """One BT or GuardedBT call: `law(c)` is the exact law of the call on count `c`.

    `mechanism` is the real `BT`/`GuardedBT` object; `law` applies its guard then the noisy law.
    `exp_lam(d)` is `e^{λd}` (`ξ^d` for integer `d` in the rational model). `R` is None for BT.
    `delta0` is `½·e^{-λ(R-1)}` (Eq. (19)) when it is exact, else None.
    """

    name: str
    mechanism: BT
    xi: V
    gamma: V
    one: V
    zero: V
    noisy_law: Callable[[int], dict[Outcome, V]]
    exp_lam: Callable[[Fraction], V]
    R: LogReal | None
    delta0: V | None

    @property
    def a(self) -> Fraction:
        return self.mechanism.a

    @property
    def b(self) -> Fraction:
        return self.mechanism.b

    def law(self, count: int) -> dict[Outcome, V]:
        """The law of the mechanism on `count` (guard first, Alg. 1, l. 1-4)."""
        decided = self.mechanism.guard(count)
        if decided is not None:
            return {s: (self.one if s is decided else self.zero) for s in OUTCOMES}
        return self.noisy_law(count)

    def randomized(self, count: int) -> bool:
        return self.mechanism.guard(count) is None

    def window(self, room: int = 2) -> range:
        """Counts spanning both thresholds and both guard cuts, `room` more on each side."""
        mech = self.mechanism
        if isinstance(mech, GuardedBT):
            lo, hi = mech.lower_cut, mech.upper_cut
        else:
            lo, hi = int(mech.a) - 1, -int(-mech.b) + 1
        return range(max(0, lo - room), hi + room + 1)

    def describe(self) -> dict[str, object]:
        out: dict[str, object] = {"model": self.name, "a": self.a, "b": self.b, "xi": str(self.xi)}
        if self.R is not None:
            out["R"] = self.R.exact_str()
        return out


def _xi_power(xi: Fraction, d: Fraction) -> Fraction:
    if d.denominator != 1:
        raise ParameterError("d", d, "an integer exponent in the rational model")
    return xi ** int(d)


def _logreal(R: LogReal | Fraction | int) -> LogReal:
    if isinstance(R, LogReal):
        return R
    return LogReal(Fraction(R))


def rational_model(
    a: int, b: int, xi: Fraction, R: LogReal | Fraction | int | None = None
) -> Model[Fraction]:
    """The rational model: `ξ = e^λ` rational `> 1`, integer `a < b`; GuardedBT if `R` given.

    The guard code never reads `λ`, so the mechanism object carries the placeholder `λ = 1`;
    every probability is computed from `ξ` (`e^{λd} = ξ^d`). `δ0 = ½·ξ^{-(R-1)}` needs an
    integer `R` here (else `delta0` is None).
    """
    xi = Fraction(xi)
    if xi <= 1:
        raise ParameterError("xi", xi, "a rational xi = e^lambda > 1")
    if not (isinstance(a, int) and isinstance(b, int)) or a >= b:
        raise ParameterError("a", a, f"integers a < b (b = {b})")
    mechanism: BT
    d0: Fraction | None = None
    R_exact = None
    if R is None:
        mechanism = BT(Fraction(a), Fraction(b), Fraction(1))
    else:
        R_exact = _logreal(R)
        if R_exact.compare(1) < 0:
            raise ParameterError("R", R_exact, "R >= 1")
        mechanism = GuardedBT.of(Fraction(a), Fraction(b), R_exact, Fraction(1))
        if R_exact.is_rational and R_exact.const.denominator == 1:
            d0 = xi ** (1 - int(R_exact.const)) / 2
    return Model(
        "rational", mechanism, xi, 1 - xi ** (a - b), Fraction(1), Fraction(0),
        lambda c: rational_law(c, a, b, xi), lambda d: _xi_power(xi, d), R_exact, d0,
    )


def exact_model(
    tau: Fraction, lam: Fraction, R: LogReal | Fraction | int | None = None
) -> Model[ExpRational]:
    """The exact model: rational `λ > 0`, `τ`; `a = τ - 1/λ`, `b = τ + 1/λ` (Eq. (13)).

    GuardedBT if `R` is given (a rational or a `LogReal`); `delta0` is exact when `λ·coeff` is
    an integer (see `betweencut.proofs.laws.tct.delta0`), else None (use the interval model).
    """
    tau, lam = Fraction(tau), positive_rational(lam, "lam", " (the rate lambda)", text=True)
    a, b = tau - 1 / lam, tau + 1 / lam
    mechanism: BT
    d0: ExpRational | None = None
    R_exact = None
    if R is None:
        mechanism = BT(a, b, lam)
    else:
        R_exact = _logreal(R)
        mechanism = GuardedBT.of(a, b, R_exact, lam)
        try:
            d0 = ExpRational.of(delta0(lam, R_exact))
        except ParameterError:
            d0 = None
    bt = BT(a, b, lam)

    cache: dict[int, dict[Outcome, ExpRational]] = {}

    def noisy(count: int) -> dict[Outcome, ExpRational]:
        if count not in cache:  # the values are immutable; callers get a fresh dict
            cache[count] = {s: ExpRational.of(v) for s, v in exact_law(bt.query(count)).items()}
        return dict(cache[count])

    one = ExpRational.of(1)
    return Model(
        "exact", mechanism, ExpRational.of(ExpPoly.exp(lam)), one - ExpPoly.exp(-2),
        one, ExpRational.of(0), noisy, lambda d: ExpRational.of(ExpPoly.exp(lam * d)), R_exact, d0,
    )
