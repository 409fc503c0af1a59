"""Optimal composition (Kairouz, Oh, Viswanath 2015) in exact arithmetic, and its checkable steps.

KOV's theorem: under `k`-fold adaptive composition every class of `(ε0, δ0)`-DP mechanisms is
dominated by the `k`-fold product of the four-outcome pair

    P̃ = (δ0, (1-δ0)·e^{ε0}/(1+e^{ε0}), (1-δ0)/(1+e^{ε0}), 0),
    Q̃ = (0, (1-δ0)/(1+e^{ε0}), (1-δ0)·e^{ε0}/(1+e^{ε0}), δ0),

whose hockey-stick divergence at `e^ε` is (FORMULAS.md, "Beyond the paper")

    δ_k(ε) = 1 - (1-δ0)^k·(1 - Σ_{l=0..k} C(k,l)·max(0, e^{(k-l)ε0} - e^ε·e^{l·ε0}) / (1+e^{ε0})^k).

`kov_delta` computes it exactly: with rational `ε0`, `ε` the sign of each term is the rational
comparison `(k - 2l)·ε0 > ε`, so the sum is an `ExpPoly` over `(1+e^{ε0})^k`, and `δ0` is a
`Fraction` or an `ExpPoly` (`½·e^{-λ(R-1)}`). `product_hockey_stick` recomputes the same number by
brute force over the `4^k` outcomes of the product (small `k`), and `pair_hockey_stick` is the
exact divergence of any two finite laws, used to check that every GuardedBT pair of the band is
`(λ, δ0)`-indistinguishable (Lemma 5.3) before KOV is applied to it.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TypeVar, Union

from betweencut.data.validate import positive_rational
from betweencut.errors import ParameterError
from betweencut.proofs.exact.arith import ExpPoly, ExpRational, certainly_le, exact_str, sign

__all__ = [
    "ExactValue", "kov_delta", "kov_delta_float", "kov_pair", "pair_hockey_stick",
    "product_hockey_stick",
]

ExactValue = Union[Fraction, int, ExpPoly, ExpRational]  # noqa: UP007
K = TypeVar("K")


def _check_inputs(k: int, eps0: Fraction, delta0: ExactValue, eps: Fraction
                  ) -> tuple[Fraction, Fraction]:
    """`(eps0, eps)` checked, as `Fraction`s."""
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise ParameterError("k", k, "an integer k >= 1 (number of composed mechanisms)")
    eps0 = positive_rational(eps0, "eps0", " (each composed mechanism's)")
    eps = positive_rational(eps, "eps", zero=True)
    if not (certainly_le(0, delta0) and certainly_le(delta0, 1)):
        raise ParameterError("delta0", exact_str(delta0), "0 <= delta0 <= 1")
    return eps0, eps


def kov_delta(k: int, eps0: Fraction, delta0: ExactValue, eps: Fraction) -> ExpRational:
    """`δ_k(ε)` of KOV's optimal composition of `k` `(ε0, δ0)`-DP mechanisms, exactly.

    Preconditions (checked): integer `k >= 1`, rational `ε0 > 0`, rational `ε >= 0`,
    `0 <= δ0 <= 1` exact. Returns an `ExpRational` equal to the formula in the module docstring
    (no rounding anywhere). It is increasing in `δ0` and in `k`, decreasing in `ε`.
    """
    eps0, eps = _check_inputs(k, eps0, delta0, eps)
    num = ExpPoly()
    for i in range(k + 1):
        if (k - 2 * i) * eps0 > eps:  # e^{(k-i)ε0} > e^{ε + iε0}: a rational comparison
            c = Fraction(math.comb(k, i))
            num = num + ExpPoly({(k - i) * eps0: c}) - ExpPoly({eps + i * eps0: c})
    den = (ExpPoly.const(1) + ExpPoly.exp(eps0)) ** k
    if isinstance(delta0, ExpRational):  # stay in quotients
        return 1 - (1 - delta0) ** k * ExpRational(den - num, den)
    d = delta0 if isinstance(delta0, ExpPoly) else ExpPoly.const(Fraction(delta0))
    keep = ExpPoly.const(1) - d
    return ExpRational(den - keep**k * (den - num), den)


def kov_delta_float(k: int, eps0: float, delta0: float, eps: float) -> float:
    """A float estimate of `kov_delta` (a search's speed path only: never a verdict)."""
    s = sum(math.comb(k, i) * max(0.0, math.exp((k - i) * eps0) - math.exp(eps + i * eps0))
            for i in range(k + 1)) / (1 + math.exp(eps0)) ** k
    return 1 - (1 - delta0) ** k * (1 - s)


def kov_pair(eps0: Fraction, delta0: ExactValue) -> tuple[list[ExpRational], list[ExpRational]]:
    """KOV's dominating pair `(P̃, Q̃)` for `(ε0, δ0)` (four outcomes), exactly."""
    xi = ExpRational.of(ExpPoly.exp(Fraction(eps0)))
    d = ExpRational.of(delta0)
    rest = (1 - d) / (xi + 1)
    zero = ExpRational.of(0)
    P = [d, rest * xi, rest, zero]
    Q = [zero, rest, rest * xi, d]
    return P, Q


def pair_hockey_stick(P: Mapping[K, ExactValue], Q: Mapping[K, ExactValue],
                      eps: Fraction) -> ExpRational:
    """`Σ_o (P(o) - e^ε·Q(o))_+` exactly (one direction); outcomes missing count as mass 0."""
    factor = ExpRational.of(ExpPoly.exp(Fraction(eps)))
    total = ExpRational.of(0)
    for o in set(P) | set(Q):
        term = ExpRational.of(P.get(o, 0)) - factor * ExpRational.of(Q.get(o, 0))
        if sign(term) > 0:
            total = total + term
    return total


def product_hockey_stick(P: Sequence[ExactValue], Q: Sequence[ExactValue], k: int,
                         eps: Fraction) -> ExpRational:
    """`H_{e^ε}(P^k ‖ Q^k)` by brute force over every outcome of the `k`-fold product.

    Outcomes are grouped by their count vector (the product masses only depend on it), so the
    work is the number of compositions of `k` into `len(P)` parts, each weighed by its
    multinomial coefficient; every term's sign is decided exactly by the gate.
    """
    if not isinstance(k, int) or k < 1:
        raise ParameterError("k", k, "an integer k >= 1")
    m = len(P)
    if len(Q) != m:
        raise ParameterError("Q", len(Q), f"{m} outcomes, as P")
    Ps = [ExpRational.of(p) for p in P]
    Qs = [ExpRational.of(q) for q in Q]
    factor = ExpRational.of(ExpPoly.exp(Fraction(eps)))
    total = ExpRational.of(0)
    for counts in itertools.product(range(k + 1), repeat=m):
        if sum(counts) != k:
            continue
        multinomial = math.factorial(k)
        p, q = ExpRational.of(1), ExpRational.of(1)
        for i, n in enumerate(counts):
            multinomial //= math.factorial(n)
            if n:
                p, q = p * Ps[i] ** n, q * Qs[i] ** n
        term = p - factor * q
        if sign(term) > 0:
            total = total + term * multinomial
    return total
