"""Appendix E (numerical tree counting) and Eq. (25): the margin bounds, for all parameters.

Each general checker proves its inequality for the whole allowed range by a short symbolic
argument whose steps are sympy identities and whose numeric facts are certified interval
bounds (`betweencut.proofs.exact.symbolic`); each instance checker re-checks one `(h, ε, δ)` with
certified numbers. Notation: `s = ln(2/δ)`, `u = ln(1/δ)`, `c = 1/ln(5/4)`,
`E = 1 + (r/ε)(1 + ln(L/δ))` (Eq. (24)), `r = min(L, r0)`, `r0 = ⌈ln(2/δ)/ln(5/4)⌉ < 1 + c·s`.

Eq. (25) / (127): `E <= 1 + (5s/ε)(1 + ln(X/δ))`. Subtracting 1 and multiplying by `ε` it reads
`r·(1 + ln(L/δ)) <= 5s·(1 + ln(X/δ))`, independent of `ε`.
* `X = L`: it suffices that `r <= 5s`; `r <= r0 < 1 + c·s <= 5s` iff `(5 - c)·s >= 1`, and
  `s > ln 20`. Holds for every `h >= 1`.
* `X = log2 h`: fails at `h = 1` (`log2 1 = 0`, the bound is `-inf`). For `h >= 2`, with
  `A = 1 + ln(X/δ) >= 1 + ln 10` and `ln(L/X) <= 1/(L - 1)` (as `X >= L - 1 >= 1`):
  if `r = r0 <= L`: `r0 >= 14`, so `X >= 13` and LHS `<= (1 + c·s)(A + 1/13)`;
  if `r = L < r0`: `L < c·s` and LHS `<= c·s·A + L/(L - 1) <= c·s·A + 2`.
  Both are `<= 5·s·A` by polynomial positivity on `s >= ln 20, A >= 1 + ln 10`.
Eq. (130): `1 + (5s/ε')(1 + ln(L/δ')) <= (16/ε')·u·(u + t)`, `t = ln ln h`; with `1 <= 1/ε'`,
`s = u + ln 2` and, for `h >= 3`, `ln L <= t + ln(1/ln 2 + 1/ln 3)`, it is the positivity of a
polynomial in `u >= ln 10`, `t >= 0`; `h = 2` is one more polynomial in `u`.
Eq. (147)-(152): ratio `e_h(ε_j, δ_j)/(γθ_j) = e^{-x}·(A + x)(A + x + t)/(A(A + t))`
(`A = ln(1/(δp))`, `x = (j - 1)·ln(1/ρ)`), `<= e^{-x}(1 + x/A)^2 <= e^{-x + 2x/A} <= 1` since
`t >= 0` (h >= 3) and `A > ln 10 > 2`: every round `j`, proved once.
Eq. (159): `g(1 + γ)/(1 - γ) = 1 + α - α(4 - 3α)/(16(1 - α/8)) <= 1 + α` on `0 < α < 1`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy as sp

from betweencut.baselines.tree_counting import CountingSchedule
from betweencut.data.validate import exact_value, positive_rational
from betweencut.errors import ParameterError
from betweencut.mechanism.calibration import calibrate
from betweencut.proofs.exact.arith import enclose
from betweencut.proofs.exact.certificate import Certificate, ClaimRefuted
from betweencut.proofs.exact.symbolic import expr_sign, nonnegative_on_box
from betweencut.proofs.registry import claim, register_audit

LN = sp.log
C_INV = 1 / LN(sp.Rational(5, 4))  # c = 1/ln(5/4)
S0 = LN(20)  # s = ln(2/δ) > ln 20 for δ < 1/10
U0 = LN(10)  # u = ln(1/δ) > ln 10


def _require(ok: bool, claim_name: str, step: str, **numbers: object) -> None:
    if not ok:
        raise ClaimRefuted(claim_name, step, numbers)


def _exact_margin(h: int, eps: Fraction, dlt: Fraction) -> Any:
    cal = calibrate(h, eps, dlt)
    e = cal.E
    return sp.Rational(e.const) + sp.Rational(e.coeff) * LN(sp.Rational(e.arg))


def eq25_bound(h: int, eps: Fraction, dlt: Fraction, reading: str) -> Any:
    """The right side of Eq. (25) as an exact sympy expression (`None` where undefined)."""
    if reading == "L":
        x: Any = sp.Integer(h.bit_length())
    elif reading == "log2h":
        if h == 1:
            return None
        x = LN(h) / LN(2)
    else:
        raise ParameterError("reading", reading, "'L' or 'log2h'")
    d = sp.Rational(dlt)
    return 1 + 5 * LN(2 / d) / sp.Rational(eps) * (1 + LN(x / d))


@claim("Eq. (25)", "Eq. (127)")
def check_eq25_instance(h: int, epsilon: object, delta: object, reading: str) -> Certificate:
    """Claim: Eq. (25) (= Eq. (127) with X = L) at one `(h, ε, δ)`, in reading `X = L` or
    `X = log2 h`.

    Preconditions: `h >= 1`, `0 < ε <= 1`, `0 < δ < 1/10` (checked by `calibrate`).
    Checks: `E(h, ε, δ) <= 1 + (5·ln(2/δ)/ε)(1 + ln(X/δ))` by a certified sign.
    Returns: a Certificate, method `interval`.
    Raises: `ClaimRefuted` with both sides if it fails or the bound is undefined (`h = 1`,
    `X = log2 h = 0`: the bound is `-inf`).
    """
    cal = calibrate(h, epsilon, delta)
    name = f"Eq. (25), X = {reading}"
    params = {"h": h, "epsilon": cal.epsilon, "delta": cal.delta}
    bound = eq25_bound(h, cal.epsilon, cal.delta, reading)
    margin = _exact_margin(h, cal.epsilon, cal.delta)
    if bound is None:
        raise ClaimRefuted(name, "log2 h = 0, so ln(X/delta) = -inf and the bound is -inf < E",
                           {**params, "E": margin})
    sign = expr_sign(bound - margin)
    _require(sign >= 0, name, "E exceeds the bound", **params, E=margin, bound=bound)
    return Certificate(name, params, "interval", {"E": str(margin), "bound": str(bound)})


@claim("Eq. (25)", "Eq. (127)")
def check_eq25_general(reading: str) -> Certificate:
    """Claim: Eq. (25) for every `0 < ε <= 1`, `0 < δ < 1/10` and every `h >= 1` (`X = L`)
    or every `h >= 2` (`X = log2 h`; it fails at `h = 1`, see `check_eq25_instance`).

    Preconditions: `reading` in {"L", "log2h"}.
    Checks: the case analysis of the module docstring: `(5 - c)·ln 20 >= 1` (X = L); for
    X = log2 h the two polynomial inequalities on `s >= ln 20`, `A >= 1 + ln 10`, by
    nonnegative shifted coefficients, and `ln(20)/ln(5/4) > 13` (so `r0 >= 14`).
    Returns: a Certificate, method `symbolic+interval`. Raises: `ClaimRefuted` on a failed step.
    """
    name = f"Eq. (25), X = {reading}"
    if reading == "L":
        step = (5 - C_INV) * S0 - 1
        _require(expr_sign(step) > 0, name, "(5 - 1/ln(5/4))·ln 20 < 1", value=step)
        return Certificate(name, {"h": ">= 1", "epsilon": "(0, 1]", "delta": "(0, 1/10)"},
                           "symbolic+interval", {"(5 - c)·ln 20 - 1": enclose(step, 96)})
    if reading != "log2h":
        raise ParameterError("reading", reading, "'L' or 'log2h'")
    s, a = sp.symbols("s A", positive=True)
    _require(expr_sign(S0 * C_INV - 13) > 0, name, "r0 >= 14 fails")
    case_r0 = 5 * s * a - (1 + C_INV * s) * (a + sp.Rational(1, 13))
    case_l = 5 * s * a - (C_INV * s * a + 2)
    quantities: dict[str, object] = {}
    for label, poly in (("r = r0 <= L", case_r0), ("r = L < r0", case_l)):
        ok, coeffs = nonnegative_on_box(poly, {s: S0, a: 1 + U0})
        _require(ok, name, f"case {label}: a shifted coefficient is negative", coeffs=coeffs)
        quantities[label] = coeffs
    return Certificate(name, {"h": ">= 2", "epsilon": "(0, 1]", "delta": "(0, 1/10)"},
                       "symbolic+interval", quantities)


def e_h(h: int, eps: object, dlt: object, constant: int = 16) -> Any:
    """`e_h(ε', δ') = (16/ε')·ln(1/δ')·(ln(1/δ') + ln ln h)` (Eq. (131)), exact sympy, for exact
    `ε' > 0`, `0 < δ' < 1` (read by `betweencut.data.validate.exact_value`: text such as `"1/20"` is
    parsed, never evaluated); `constant` replaces 16 only to test that the checkers reject a
    wrong bound."""
    e, d = positive_rational(eps, "epsilon", text=True), exact_value(dlt, "delta")
    if not 0 < d < 1:
        raise ParameterError("delta", d, "0 < delta < 1")
    ell = LN(1 / sp.Rational(d.numerator, d.denominator))
    return constant / sp.Rational(e.numerator, e.denominator) * ell * (ell + LN(LN(h)))


@claim("Eq. (130)")
def check_eq130_instance(h: int, epsilon: object, delta: object,
                         constant: int = 16) -> Certificate:
    """Claim: Eq. (127)-(130) at one point: `E_h(ε', δ') <= e_h(ε', δ')`.

    Preconditions: `h >= 2`, `0 < ε' <= 1`, `0 < δ' < 1/10`.
    Checks: the certified sign of `e_h - E_h`. Returns: Certificate, method `interval`.
    Raises: `ClaimRefuted` with both numbers.
    """
    if not isinstance(h, int) or h < 2:
        raise ParameterError("h", h, "an integer h >= 2 (ln ln h must exist)")
    cal = calibrate(h, epsilon, delta)
    margin = _exact_margin(h, cal.epsilon, cal.delta)
    bound = e_h(h, cal.epsilon, cal.delta, constant)
    params = {"h": h, "epsilon": cal.epsilon, "delta": cal.delta}
    _require(expr_sign(bound - margin) >= 0, "Eq. (130)", "E_h > e_h", **params,
             E=margin, e_h=bound)
    return Certificate("Eq. (130)", params, "interval", {"E_h": str(margin), "e_h": str(bound)})


@claim("Eq. (130)")
def check_eq130_general() -> Certificate:
    """Claim: Eq. (130): `1 + (5/ε')·ln(2/δ')·(1 + ln(L/δ')) <= (16/ε')·ℓ·(ℓ + t)` for every
    `h >= 2`, `0 < ε' <= 1`, `0 < δ' < 1/10` (`ℓ = ln(1/δ')`, `t = ln ln h`); with Eq. (127)
    this gives `E_h <= e_h`.

    Preconditions: none. Checks: `1 <= 1/ε'` reduces it to `P(u, t) = 16u(u + t) - 1 -
    5(u + ln 2)(1 + ln L + u) >= 0`; for `h >= 3`, `ln L <= t + ln(1/ln 2 + 1/ln 3)` (as
    `L <= log2 h + 1`) and `P >= 0` on `u >= ln 10, t >= 0` by shifted coefficients; for
    `h = 2` (`L = 2`, `t = ln ln 2`), the polynomial in `u` the same way.
    Returns: Certificate, method `symbolic+interval`. Raises: `ClaimRefuted` on a failed step.
    """
    u, t = sp.symbols("u t", positive=True)
    c2 = LN(1 / LN(2) + 1 / LN(3))
    big = 16 * u * (u + t) - 1 - 5 * (u + LN(2)) * (1 + t + c2 + u)
    ok, coeffs = nonnegative_on_box(big, {u: U0, t: sp.Integer(0)})
    _require(ok, "Eq. (130)", "h >= 3: a shifted coefficient is negative", coeffs=coeffs)
    _require(expr_sign(LN(LN(3))) > 0, "Eq. (130)", "ln ln 3 <= 0")
    two = 16 * u * (u + LN(LN(2))) - 1 - 5 * (u + LN(2)) * (1 + LN(2) + u)
    ok2, coeffs2 = nonnegative_on_box(two, {u: U0})
    _require(ok2, "Eq. (130)", "h = 2: a shifted coefficient is negative", coeffs=coeffs2)
    return Certificate("Eq. (130)", {"h": ">= 2", "epsilon'": "(0, 1]", "delta'": "(0, 1/10)"},
                       "symbolic+interval", {"h>=3": coeffs, "h=2": coeffs2})


@claim("Theorem E.1", "Eq. (147)", "Eq. (152)")
def check_eq147_all_rounds() -> Certificate:
    """Claim: Theorem E.1, Eq. (147)-(152): `e_h(ε_j, δ_j) <= γ·θ_j` for every round `j >= 1`,
    every `h >= 3`, `0 < α < 1`, `0 < ε <= 1`, `0 < δ < 1/10`.

    Preconditions: none (the statement is quantified over all of them).
    Checks: (i) sympy: with `ρ = e^{-y}` (`y = ln(1/ρ) > 0`), `ε_j = εpρ^{j-1}`,
    `δ_j = δpρ^{j-1}`, `θ_j = (e_h(εp, δp)/γ)·ρ^{-2(j-1)}`, the ratio `e_h(ε_j, δ_j)/(γθ_j)`
    equals `e^{-x}(A + x)(A + x + t)/(A(A + t))` with `x = (j - 1)y`, `A = ln(1/(δp))`;
    (ii) sympy: `(A + x)/A - (A + x + t)/(A + t) = xt/(A(A + t)) >= 0`;
    (iii) `1 + z <= e^z` (so `(1 + x/A)^2 <= e^{2x/A}`) and `2/A < 1` from `A > ln 10 > 2`
    (certified), so the ratio is `<= e^{-x(1 - 2/A)} <= 1`; (iv) `t = ln ln h >= ln ln 3 > 0`.
    Returns: Certificate, method `symbolic+interval`. Raises: `ClaimRefuted` on a failed step.
    """
    name = "Theorem E.1"
    eps, dlt, p, y, t, j, gam = sp.symbols("epsilon delta p y t j gamma", positive=True)
    big_c = 16

    def e(eps_: Any, dlt_: Any) -> Any:
        ell = sp.log(1 / dlt_)
        return big_c / eps_ * ell * (ell + t)

    rho = sp.exp(-y)
    theta_1 = e(eps * p, dlt * p) / gam
    ratio = e(eps * p * rho ** (j - 1), dlt * p * rho ** (j - 1)) / (
        gam * theta_1 * rho ** (-2 * (j - 1)))
    x, a = (j - 1) * y, sp.log(1 / (dlt * p))
    claimed = sp.exp(-x) * (a + x) * (a + x + t) / (a * (a + t))
    diff = sp.simplify(sp.expand_log(ratio - claimed, force=True))
    _require(diff == 0, name, "Eq. (145)/(146): the ratio is not e^-x (A+x)(A+x+t)/(A(A+t))",
             difference=diff)
    aa, xx = sp.symbols("A x", positive=True)
    step = sp.simplify((aa + xx) / aa - (aa + xx + t) / (aa + t) - xx * t / (aa * (aa + t)))
    _require(step == 0, name, "Eq. (149): (A+x+t)/(A+t) <= 1 + x/A identity fails", diff=step)
    _require(expr_sign(U0 - 2) > 0, name, "A > ln 10 > 2 fails")
    _require(expr_sign(LN(LN(3))) > 0, name, "t = ln ln h > 0 for h >= 3 fails")
    return Certificate(name, {"j": ">= 1", "h": ">= 3", "alpha": "(0, 1)",
                              "epsilon": "(0, 1]", "delta": "(0, 1/10)"},
                       "symbolic+interval",
                       {"ratio": str(claimed), "ln 10 - 2": enclose(U0 - 2, 96),
                        "ln ln 3": enclose(LN(LN(3)), 96)})


@claim("Theorem E.1", "Eq. (147)")
def check_eq147_schedule(schedule: CountingSchedule, rounds: int) -> Certificate:
    """Claim: Theorem E.1, Eq. (147): `e_h(ε_j, δ_j) <= γ·θ_j` for `j = 1..rounds` of the
    schedule the counting mechanism runs with (integer `θ_1`, rational `ρ`).

    Preconditions: `rounds >= 1`. Checks: each inequality by a certified sign.
    Returns: Certificate, method `interval`. Raises: `ClaimRefuted` naming the round.
    """
    s = schedule
    params = {"h": s.height, "alpha": s.alpha, "epsilon": s.epsilon, "delta": s.delta,
              "theta1": s.theta1}
    for j in range(1, rounds + 1):
        gap = sp.Rational(s.gamma * s.theta(j)) - e_h(
            s.height, s.epsilon_j(j), s.delta_j(j))
        _require(expr_sign(gap) >= 0, "Theorem E.1", "Eq. (147): e_h(eps_j, delta_j) > "
                 "gamma*theta_j", **params, j=j)
    return Certificate("Theorem E.1", params, "interval", {"rounds": rounds},
                       scope=f"j <= {rounds}")


@claim("Theorem E.1", "Eq. (159)")
def check_eq159(alpha: Any = None) -> Certificate:
    """Claim: Eq. (159): `g(1 + γ)/(1 - γ) = 1 + α - α(4 - 3α)/(16(1 - α/8)) <= 1 + α` with
    `g = 1 + α/2`, `γ = α/8`, for every `0 < α < 1` (or the one rational `alpha` given).

    Preconditions: `alpha` None (symbolic, all α) or a rational in (0, 1).
    Checks: the identity by sympy; the sign of `α(4 - 3α)` and of `1 - α/8` on (0, 1) (roots of
    each factor lie outside the open interval, and each is positive at α = 1/2).
    Returns: Certificate, method `exact`. Raises: `ClaimRefuted` on a failed step.
    """
    a = sp.Symbol("alpha", positive=True) if alpha is None else sp.Rational(alpha)
    if alpha is not None and not 0 < a < 1:
        raise ParameterError("alpha", alpha, "0 < alpha < 1")
    g, gam = 1 + a / 2, a / 8
    lhs = g * (1 + gam) / (1 - gam)
    rhs = 1 + a - a * (4 - 3 * a) / (16 * (1 - a / 8))
    _require(sp.simplify(lhs - rhs) == 0, "Theorem E.1", "Eq. (159) identity fails",
             alpha=a, lhs=lhs, rhs=rhs)
    if alpha is None:
        for factor in (a * (4 - 3 * a), 1 - a / 8):
            roots = sp.solve(factor, a)
            inside = [r for r in roots if 0 < r < 1]
            _require(not inside and factor.subs(a, sp.Rational(1, 2)) > 0, "Theorem E.1",
                     "Eq. (159): a factor changes sign on (0, 1)", factor=factor)
    else:
        _require(lhs <= 1 + a, "Theorem E.1", "Eq. (159) fails", alpha=a, ratio=lhs)
    return Certificate("Theorem E.1", {"alpha": "(0, 1)" if alpha is None else a}, "exact",
                       {"identity": f"{lhs} = {rhs}"})


E_GRID = [(h, Fraction(e), Fraction(d)) for h in (1, 2, 3, 4, 7, 8, 1000, 2**20, 2**40)
          for e in ("1/10", "1") for d in ("1/1000000", "1/20", "99/1000")]


@register_audit("baselines", "Eq. (25) both readings, Eq. (127)-(130), (147)-(152), (159)")
def audit_appendix_e() -> list[Certificate]:
    certs = [check_eq25_general("L"), check_eq25_general("log2h"), check_eq130_general(),
             check_eq147_all_rounds(), check_eq159()]
    for h, e, d in E_GRID:
        certs.append(check_eq25_instance(h, e, d, "L"))
        if h >= 2:
            certs.append(check_eq25_instance(h, e, d, "log2h"))
            certs.append(check_eq130_instance(h, e, d))
    return certs
