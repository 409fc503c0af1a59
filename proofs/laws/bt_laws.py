"""Output laws of BT (Alg. 4) and GuardedBT (Alg. 1), exact.

`Z ~ Lap(1/λ)` has `P(Z < x) = ½·e^(λx)` for `x <= 0` and `1 - ½·e^(-λx)` for `x >= 0`, so with
`d_a = a - c`, `d_b = b - c`:

    ℓ = P(L) = P(Z < d_a),   u = P(H) = P(Z > d_b),   m = P(B) = 1 - ℓ - u.

Two exact models share this one formula through `exp_lam(d) = e^(λ·d)`:

* the exact transcendental model (`exact_law`): `λ`, `a`, `b`, `c` rational, values `ExpPoly`;
* the rational model (`rational_law`): `ξ = e^λ` a rational `> 1`, `a`, `b`, `c` integers, so
  `e^(λ·d) = ξ^d` and every value is a `Fraction` (Lemma 5.2 in its general form).

The guards of GuardedBT are decided by `betweencut.mechanism.guarded_bt.GuardedBT.guard`, the code
the mechanism runs, so a guarded answer is a point mass and costs no branching.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import TypeVar

from betweencut.errors import ParameterError
from betweencut.mechanism.guarded_bt import BT
from betweencut.noise.noisy_test import BTQuery, Outcome
from betweencut.proofs.exact.arith import ExpPoly

V = TypeVar("V", ExpPoly, Fraction)
Law = Mapping[Outcome, V]
OUTCOMES = (Outcome.L, Outcome.B, Outcome.H)


def _law(
    d_a: Fraction, d_b: Fraction, exp_lam: Callable[[Fraction], V], one: V
) -> dict[Outcome, V]:
    half = Fraction(1, 2)
    below = exp_lam(d_a) * half if d_a <= 0 else one - exp_lam(-d_a) * half
    above = exp_lam(-d_b) * half if d_b >= 0 else one - exp_lam(d_b) * half
    return {Outcome.L: below, Outcome.B: one - below - above, Outcome.H: above}


def exact_law(query: BTQuery) -> dict[Outcome, ExpPoly]:
    """The law of BT(c; a, b, λ) for rational `c, a, b, λ`, as exact `ExpPoly`s."""
    lam = query.lam
    return _law(
        query.a - query.count, query.b - query.count,
        lambda d: ExpPoly.exp(lam * d), ExpPoly.const(1),
    )


def rational_law(count: int, a: int, b: int, xi: Fraction) -> dict[Outcome, Fraction]:
    """The law of BT(c; a, b, λ) with `ξ = e^λ` rational `> 1` and integer `c, a < b`."""
    if xi <= 1:
        raise ParameterError("xi", xi, "a rational xi = e^lambda > 1")
    if a >= b:
        raise ParameterError("a", a, f"an integer a < b = {b}")

    def power(d: Fraction) -> Fraction:
        if d.denominator != 1:
            raise ParameterError("count", count, "an integer (the rational model needs integers)")
        return xi ** int(d)

    return _law(Fraction(a - count), Fraction(b - count), power, Fraction(1))


def point_mass(outcome: Outcome, one: V, zero: V) -> dict[Outcome, V]:
    return {s: (one if s is outcome else zero) for s in OUTCOMES}


def guarded_exact_law(mechanism: BT, count: int) -> dict[Outcome, ExpPoly]:
    """The law of `mechanism(count)` (GuardedBT, Alg. 1, or BT) in the exact model."""
    decided = mechanism.guard(count)
    if decided is not None:
        return point_mass(decided, ExpPoly.const(1), ExpPoly())
    return exact_law(mechanism.query(count))
