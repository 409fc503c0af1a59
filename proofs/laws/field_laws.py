"""Exact laws of the field's finite primitives (`betweencut.noise`): every probability an
`ExpRational` in `e^(rational)`.

* `Bernoulli(p)`: `p` and `1 - p`; `BernoulliExp(x)`: `e^(-x)` and `1 - e^(-x)`;
* `UniformChoice(n)`: `1/n` each; `UniformPermutation(n)`: `1/n!` each;
* `ExponentialMechanism(s, T)`: `e^((s_i - s*)/T) / Σ_j e^((s_j - s*)/T)`, `s* = max s`;
* `PermuteAndFlip(s, T)`, with `p_j = e^((s_j - s*)/T)`: candidate `i` is answered when it is
  kept and every candidate before it in the uniform order was not. Its position is uniform, and
  given `k` predecessors they are a uniform `k`-subset of the others, so

      P(i) = p_i · (1/n) · Σ_{k=0}^{n-1} e_k(1 - p_j : j ≠ i) / C(n - 1, k),

  `e_k` the elementary symmetric polynomials: an `ExpPoly` (a sum over the `n!` orders in a test);
* `RandomizedResponse(v, ε)`: `e^ε/(1 + e^ε)` for `v`, `1/(1 + e^ε)` for `not v`;
* `KaryRandomizedResponse(v, k, ε)`: `e^ε/(e^ε + k - 1)` for `v`, `1/(e^ε + k - 1)` for each
  other value.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from fractions import Fraction
from functools import lru_cache

from betweencut.errors import ParameterError
from betweencut.noise.primitives import (
    Bernoulli,
    BernoulliExp,
    ExponentialMechanism,
    KaryRandomizedResponse,
    PermuteAndFlip,
    RandomizedResponse,
    UniformChoice,
    UniformPermutation,
    answers_of,
)
from betweencut.proofs.exact.arith import ExpPoly, ExpRational

__all__ = ["finite_law", "permute_and_flip_law"]


def _const(x: Fraction | int) -> ExpRational:
    return ExpRational(ExpPoly.const(x))


def _elementary(values: list[ExpPoly]) -> list[ExpPoly]:
    """`e_0, ..., e_m` of `values` (the coefficients of `Π (1 + v·t)`)."""
    out = [ExpPoly.const(1)]
    for v in values:
        out = [*(out[k] + (v * out[k - 1] if k else ExpPoly()) for k in range(len(out))),
               v * out[-1]]
    return out


@lru_cache(maxsize=1 << 10)
def permute_and_flip_law(scores: tuple[Fraction, ...], scale: Fraction) -> tuple[ExpPoly, ...]:
    """`P(i)` of permute-and-flip for every `i` (module docstring), exactly."""
    top = max(scores)
    keep = [ExpPoly.exp((s - top) / scale) for s in scores]
    n = len(scores)
    out = []
    for i in range(n):
        e = _elementary([1 - keep[j] for j in range(n) if j != i])
        total = ExpPoly()
        for k, ek in enumerate(e):
            total = total + ek * Fraction(1, n * math.comb(n - 1, k))
        out.append(keep[i] * total)
    return tuple(out)


def finite_law(query: object) -> dict[Hashable, ExpRational]:
    """Every answer of a finite primitive with its exact probability (they sum to exactly 1)."""
    if isinstance(query, Bernoulli):
        return {True: _const(query.p), False: _const(1 - query.p)}
    if isinstance(query, BernoulliExp):
        kept = ExpPoly.exp(-query.x)
        return {True: ExpRational(kept), False: ExpRational(1 - kept)}
    if isinstance(query, UniformChoice | UniformPermutation):
        answers = answers_of(query)
        return {a: _const(Fraction(1, len(answers))) for a in answers}
    if isinstance(query, ExponentialMechanism):
        top = max(query.scores)
        weights = [ExpPoly.exp((s - top) / query.scale) for s in query.scores]
        total = sum(weights, ExpPoly())
        return {i: ExpRational(w, total) for i, w in enumerate(weights)}
    if isinstance(query, PermuteAndFlip):
        law = permute_and_flip_law(query.scores, query.scale)
        return {i: ExpRational(p) for i, p in enumerate(law)}
    if isinstance(query, RandomizedResponse):
        grow = ExpPoly.exp(query.eps)
        total = grow + 1
        return {query.value: ExpRational(grow, total),
                not query.value: ExpRational(ExpPoly.const(1), total)}
    if isinstance(query, KaryRandomizedResponse):
        grow = ExpPoly.exp(query.eps)
        total = grow + (query.k - 1)
        return {i: ExpRational(grow if i == query.value else ExpPoly.const(1), total)
                for i in range(query.k)}
    raise ParameterError("query", repr(query), "a finite primitive of betweencut.noise")
