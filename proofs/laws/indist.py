"""λ-indistinguishability (Def. 2.7) and q-targets (Def. 2.8 / 5.1) of two finite laws, decided.

Tightest λ: for laws on a finite set, `max_S |ln P0(S) - ln P1(S)|` over events equals the max
over single outcomes, because `P0(S)/P1(S)` is a mediant of the outcome ratios (it lies between
the smallest and largest of them) and singletons are events. So the tightest `ξ = e^λ` is
`max_y max(P0(y)/P1(y), P1(y)/P0(y))` over outcomes with positive mass, infinite if the supports
differ; it is returned exactly, `λ* = ln ξ*` as an exact form (a `LogReal` for rational laws).

q-target: with unnormalised parts `c = (1-κ)p·C`, `n_b = (1-κ)(1-p)·N_b`, `f_b = κ·F_b`,
"`T` is a q-target of `(P0, P1)` with `(λ, κ)`" is the linear feasibility problem

    c + n_b + f_b = P_b (b = 0, 1),  Σ n_0 = Σ n_1,  Σ f_0 <= κ,
    n_0 <= ξ·n_1,  n_1 <= ξ·n_0,  n_b(T) >= q·Σ n_b,  all parts >= 0

(an exceptional mass `κ' <= κ` suffices: `(1-κ')M + κ'F = (1-κ)M + κF'` with
`F' = ((κ-κ')M + κ'F)/κ`). For rational laws and rational `ξ` it is decided exactly by
`betweencut.proofs.exact.lp`: feasible gives a witness re-checked by `verify_target_witness`,
infeasible gives a Farkas certificate naming the constraints it combines.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeVar

from mpmath import iv

from betweencut.data.validate import positive_rational
from betweencut.errors import ParameterError
from betweencut.noise.noisy_test import Outcome
from betweencut.numbers.exact import LogReal, iv_precision, refine
from betweencut.proofs.exact.arith import ExpPoly, ExpRational, enclose, exact_str, sign
from betweencut.proofs.exact.certificate import Certificate, ClaimRefuted
from betweencut.proofs.exact.interval import bounds
from betweencut.proofs.exact.lp import solve, verify_farkas, verify_point
from betweencut.proofs.laws.witness import TargetWitness, verify_target_witness
from betweencut.proofs.registry import claim

__all__ = [
    "Indistinguishability", "TargetDecision", "check_indistinguishable", "check_q_target",
    "check_q_target_lambda", "decide_q_target", "decide_q_target_lambda", "laws_of",
    "tightest_lambda",
]

Value = Fraction | ExpRational
K = TypeVar("K")
OUTCOMES = (Outcome.L, Outcome.B, Outcome.H)


@dataclass(frozen=True)
class Indistinguishability:
    """The tightest `ξ* = e^{λ*}` (None: infinite) and the outcome attaining it."""

    xi: Value | None
    outcome: object
    lam_exact: str
    lam_bounds: tuple[Fraction, Fraction] | None


def _ratio(x: Value, y: Value) -> Value:
    return x / y


def tightest_lambda(P0: Mapping[K, Value], P1: Mapping[K, Value],
                    prec: int = 64) -> Indistinguishability:
    """The least `λ` with `P0 ≈λ P1` (Def. 2.7), exactly: `ξ* = max` outcome ratio.

    Returns `lam_exact` (`ln(ξ*)`, a `LogReal` string for rational laws) and certified
    bounds of `λ*` at `prec` bits. Outcomes missing from one law count as mass 0.
    """
    best: Value | None = None
    arg: object = None
    for y in set(P0) | set(P1):
        p0, p1 = P0.get(y, Fraction(0)), P1.get(y, Fraction(0))
        s0, s1 = sign(p0), sign(p1)
        if s0 < 0 or s1 < 0:
            raise ParameterError("P", y, "non-negative probabilities")
        if s0 == 0 and s1 == 0:
            continue
        if s0 == 0 or s1 == 0:
            return Indistinguishability(None, y, "oo", None)
        for r in (_ratio(p0, p1), _ratio(p1, p0)):
            if best is None or sign(r - best) > 0:
                best, arg = r, y
    if best is None:
        raise ParameterError("P", "all zero", "laws with positive mass")
    if isinstance(best, Fraction):
        lam = LogReal(Fraction(0), Fraction(1), best)
        return Indistinguishability(best, arg, lam.exact_str(), lam.bounds(prec))
    lo, hi = enclose(best, prec)
    with iv_precision(prec):
        low = iv.log(iv.mpf(lo.numerator) / lo.denominator)
        high = iv.log(iv.mpf(hi.numerator) / hi.denominator)
        lam_iv = iv.mpf([low.a, high.b])  # ln is increasing: the hull of the two ends
    return Indistinguishability(best, arg, f"log({exact_str(best)})", bounds(lam_iv))


@claim("Def. 2.7", "lambda-indistinguishability")
def check_indistinguishable(P0: Mapping[K, Value], P1: Mapping[K, Value],
                            lam: Fraction | None = None, *, xi: Value | None = None
                            ) -> Certificate:
    """Claim: Def. 2.7: `P0(S) <= e^λ·P1(S)` and `P1(S) <= e^λ·P0(S)` for every event `S`.

    Preconditions: two finite laws (Fractions or exact `ExpRational`s); either a rational
    `λ > 0` or `xi = e^λ >= 1` given exactly (a Fraction in the rational model).
    Checks: the tightest `ξ*` (see `tightest_lambda`) is `<= e^λ`, decided exactly by the gate.
    Returns: a Certificate (method `exact`) with `ξ*`, `λ*` and its bounds.
    Raises: `ClaimRefuted` naming the worst outcome and its ratio.
    """
    if (lam is None) == (xi is None):
        raise ParameterError("lam", lam, "exactly one of lam and xi")
    if lam is not None:
        lam = positive_rational(lam, "lam", " (the rate lambda)", text=True)
        xi = ExpRational.of(ExpPoly.exp(lam))
    if xi is None or sign(xi - 1) < 0:
        raise ParameterError("xi", xi, "xi >= 1")
    t = tightest_lambda(P0, P1)
    params = {"lambda": lam if lam is not None else f"log({exact_str(xi)})",
              "P0": {str(k): exact_str(v) for k, v in P0.items()},
              "P1": {str(k): exact_str(v) for k, v in P1.items()}}
    if t.xi is None:
        raise ClaimRefuted("Def. 2.7", "supports differ: no finite lambda",
                           {**params, "outcome": str(t.outcome)})
    if sign(xi - t.xi) < 0:
        raise ClaimRefuted("Def. 2.7", "an outcome ratio exceeds e^lambda",
                           {**params, "outcome": str(t.outcome), "ratio": exact_str(t.xi),
                            "tightest_lambda": t.lam_exact, "lambda_bounds": t.lam_bounds})
    return Certificate("Def. 2.7", params, "exact", {
        "tightest_xi": exact_str(t.xi), "tightest_lambda": t.lam_exact,
        "lambda_bounds": t.lam_bounds, "outcome": str(t.outcome)})


@dataclass(frozen=True)
class TargetDecision:
    """The decision of `decide_q_target`: a witness, or a Farkas certificate with its rows."""

    feasible: bool
    witness: TargetWitness[Fraction] | None
    farkas: dict[str, Fraction]


def _constraints(P0: Mapping[Outcome, Fraction], P1: Mapping[Outcome, Fraction], xi: Fraction,
                 kappa: Fraction, q: Fraction, target: frozenset[Outcome]
                 ) -> tuple[list[list[Fraction]], list[Fraction], list[str]]:
    """Rows of `A x = b` over x = (c, n0, n1, f0, f1, slacks), each with its name."""
    k = len(OUTCOMES)
    n_main = 5 * k
    names: list[str] = []
    A: list[list[Fraction]] = []
    b: list[Fraction] = []
    slack_rows: list[int] = []

    def row(coeffs: dict[int, Fraction], rhs: Fraction, name: str, slack: bool) -> None:
        A.append([coeffs.get(j, Fraction(0)) for j in range(n_main)])
        b.append(rhs)
        names.append(name)
        if slack:
            slack_rows.append(len(A) - 1)

    def c(y: int) -> int:
        return y

    def n(bit: int, y: int) -> int:
        return k * (1 + bit) + y

    def f(bit: int, y: int) -> int:
        return k * (3 + bit) + y

    one = Fraction(1)
    for bit, P in ((0, P0), (1, P1)):
        for y, s in enumerate(OUTCOMES):
            row({c(y): one, n(bit, y): one, f(bit, y): one}, P[s],
                f"P{bit}({s.value}) = c + n{bit} + f{bit}", False)
    row({**{n(0, y): one for y in range(k)}, **{n(1, y): -one for y in range(k)}}, Fraction(0),
        "mass n0 = mass n1", False)
    row({f(0, y): one for y in range(k)}, kappa, "mass f0 <= kappa", True)
    for y, s in enumerate(OUTCOMES):
        row({n(0, y): one, n(1, y): -xi}, Fraction(0), f"n0({s.value}) <= xi*n1({s.value})", True)
        row({n(1, y): one, n(0, y): -xi}, Fraction(0), f"n1({s.value}) <= xi*n0({s.value})", True)
    for bit in (0, 1):
        coeffs = {n(bit, y): q - (one if s in target else 0) for y, s in enumerate(OUTCOMES)}
        row(coeffs, Fraction(0), f"n{bit}(T) >= q*mass n{bit}", True)
    for r in slack_rows:  # one slack column per inequality row
        for j, other in enumerate(A):
            other.append(Fraction(1) if j == r else Fraction(0))
    return A, b, names


def decide_q_target(P0: Mapping[Outcome, Fraction], P1: Mapping[Outcome, Fraction],
                    xi: Fraction, kappa: Fraction, q: Fraction,
                    target: frozenset[Outcome] = frozenset({Outcome.B})) -> TargetDecision:
    """Decide exactly whether `target` is a `q`-target of `(P0, P1)` with `(ln ξ, κ)`.

    Rational laws, `ξ >= 1`, `0 <= κ <= 1`, `q` rational. Feasible: a `TargetWitness` (its
    `κ` is the exceptional mass used, `<= kappa`). Infeasible: the Farkas multipliers by
    constraint name (`yᵀA >= 0`, `yᵀb < 0`), re-verified exactly.
    """
    for name, v in (("xi", xi), ("kappa", kappa), ("q", q)):
        if not isinstance(v, Fraction | int) or isinstance(v, bool):
            raise ParameterError(name, v, "a rational (the LP is decided in Fractions)")
    xi, kappa, q = Fraction(xi), Fraction(kappa), Fraction(q)
    if xi < 1 or not 0 <= kappa <= 1:
        raise ParameterError("xi", xi, "xi >= 1 and 0 <= kappa <= 1")
    if q > 1:  # N_b(T) <= 1 always
        return TargetDecision(False, None, {"N_b(T) <= 1 < q": q})
    A, b, names = _constraints(P0, P1, xi, kappa, q, target)
    result = solve(A, b)
    if not result.feasible:
        if not verify_farkas(A, b, result.farkas):
            raise ArithmeticError("the simplex returned a certificate that does not verify")
        return TargetDecision(False, None, {names[i]: y for i, y in enumerate(result.farkas)
                                            if y != 0})
    if not verify_point(A, b, result.point):
        raise ArithmeticError("the simplex returned a point that does not verify")
    x, k = result.point, len(OUTCOMES)
    part = {name: {s: x[k * idx + y] for y, s in enumerate(OUTCOMES)}
            for idx, name in enumerate(("c", "n0", "n1", "f0", "f1"))}
    return TargetDecision(True, _witness(part, target), {})


def _normalise(part: Mapping[Outcome, Fraction], fallback: Outcome
               ) -> tuple[Fraction, dict[Outcome, Fraction]]:
    mass = sum(part.values(), Fraction(0))
    if mass == 0:
        return mass, {s: Fraction(int(s is fallback)) for s in OUTCOMES}
    return mass, {s: part[s] / mass for s in OUTCOMES}


def _witness(part: Mapping[str, Mapping[Outcome, Fraction]], target: frozenset[Outcome]
             ) -> TargetWitness[Fraction]:
    hit = min(target, key=lambda s: OUTCOMES.index(s))
    c_mass, C = _normalise(part["c"], Outcome.L)
    _, N0 = _normalise(part["n0"], hit)
    _, N1 = _normalise(part["n1"], hit)
    kappa, F0 = _normalise(part["f0"], Outcome.B)
    _, F1 = _normalise(part["f1"], Outcome.B)
    p = Fraction(1) if kappa == 1 else c_mass / (1 - kappa)
    return TargetWitness(p, C, N0, N1, kappa, F0, F1, "LP (Def. 5.1)")


@claim("Def. 5.1", "q-target")
def check_q_target(P0: Mapping[Outcome, Fraction], P1: Mapping[Outcome, Fraction],
                   xi: Fraction, kappa: Fraction, q: Fraction,
                   target: frozenset[Outcome] = frozenset({Outcome.B})) -> Certificate:
    """Claim: Def. 2.8 / 5.1: `target` is a `q`-target of `(P0, P1)` with `(ln ξ, κ)`.

    Preconditions: rational laws on {L, B, H}, rational `ξ >= 1`, `0 <= κ <= 1`, rational `q`.
    Checks: the LP of the module docstring, decided exactly; a found witness is re-verified by
    `verify_target_witness` (mixture identity, `N0 ≈ N1`, `N_b(T) >= q`, `κ' <= κ`).
    Returns: a Certificate (method `exact`) holding the witness.
    Raises: `ClaimRefuted` holding the Farkas multipliers (the violated combination).
    """
    decision = decide_q_target(P0, P1, xi, kappa, q, target)
    params = {"P0": {s.value: P0[s] for s in OUTCOMES}, "P1": {s.value: P1[s] for s in OUTCOMES},
              "xi": xi, "kappa": kappa, "q": q, "target": sorted(s.value for s in target)}
    if not decision.feasible or decision.witness is None:
        raise ClaimRefuted("Def. 5.1", "no decomposition: Farkas certificate",
                           {**params, "farkas": decision.farkas})
    w = decision.witness
    verify_target_witness("Def. 5.1", P0, P1, w, Fraction(xi), Fraction(q), Fraction(kappa),
                          target, params)
    return Certificate("Def. 5.1", params, "exact", {"witness": w.as_json()})


def decide_q_target_lambda(P0: Mapping[Outcome, Fraction], P1: Mapping[Outcome, Fraction],
                           lam: Fraction, kappa: Fraction, q: Fraction,
                           target: frozenset[Outcome] = frozenset({Outcome.B}),
                           ) -> tuple[TargetDecision, Fraction]:
    """As `decide_q_target` for a rational `λ` (so `ξ = e^λ` is transcendental), exactly.

    The feasible set grows with `ξ` (only `n_0 <= ξ·n_1`, `n_1 <= ξ·n_0` involve it), so with
    certified rationals `ξ_lo < e^λ < ξ_hi`: feasible at `ξ_lo` gives a witness valid at `e^λ`;
    infeasible at `ξ_hi` gives a Farkas certificate that also excludes `e^λ`. Otherwise the
    bracket is narrowed (precision doubled, `betweencut.numbers.exact.refine`); `Undecided` at the
    package's precision cap (the answer changes exactly at `e^λ`). Returns the decision and the
    rational `ξ` it was made at.
    """
    lam = positive_rational(lam, "lam", " (the rate lambda)", text=True)

    def decided(prec: int) -> tuple[TargetDecision, Fraction] | None:
        lo, hi = enclose(ExpPoly.exp(lam), prec)
        low = decide_q_target(P0, P1, lo, kappa, q, target)
        if low.feasible:
            return low, lo
        high = decide_q_target(P0, P1, hi, kappa, q, target)
        if not high.feasible:
            return high, hi
        return None

    return refine(decided, lambda: f"the q-target at lambda = {lam} (it may flip at e^lambda)")[0]


@claim("Def. 5.1", "q-target, rational lambda")
def check_q_target_lambda(P0: Mapping[Outcome, Fraction], P1: Mapping[Outcome, Fraction],
                          lam: Fraction, kappa: Fraction, q: Fraction,
                          target: frozenset[Outcome] = frozenset({Outcome.B})) -> Certificate:
    """Claim: Def. 5.1 with a rational `λ`: `target` is a `q`-target of `(P0, P1)` with `(λ, κ)`.

    Preconditions: rational laws on {L, B, H}, rational `λ > 0`, `0 <= κ <= 1`, rational `q`.
    Checks: `decide_q_target_lambda` (a certified bracket of `e^λ` and the exact LP); a witness
    is re-verified by `verify_target_witness` at the rational `ξ_lo <= e^λ` (stronger).
    Returns: a Certificate (method `exact`) with the witness and `ξ_lo`.
    Raises: `ClaimRefuted` with the Farkas multipliers at `ξ_hi >= e^λ`; `Undecided`.
    """
    decision, xi = decide_q_target_lambda(P0, P1, lam, kappa, q, target)
    params = {"P0": {s.value: P0[s] for s in OUTCOMES}, "P1": {s.value: P1[s] for s in OUTCOMES},
              "lambda": lam, "kappa": kappa, "q": q, "target": sorted(s.value for s in target)}
    if not decision.feasible or decision.witness is None:
        raise ClaimRefuted("Def. 5.1", "no decomposition: Farkas certificate at xi >= e^lambda",
                           {**params, "xi_hi": xi, "farkas": decision.farkas})
    verify_target_witness("Def. 5.1", P0, P1, decision.witness, xi, Fraction(q),
                          Fraction(kappa), target, params)
    return Certificate("Def. 5.1", params, "exact",
                       {"witness": decision.witness.as_json(), "xi_lo <= e^lambda": xi})


def laws_of(values: Sequence[Fraction]) -> dict[Outcome, Fraction]:
    """`(ℓ, m, u)` as a law on {L, B, H}."""
    return dict(zip(OUTCOMES, values, strict=True))
