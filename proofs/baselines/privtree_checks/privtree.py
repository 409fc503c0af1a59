"""PrivTree's pure ε-DP claim, checked exactly by transcript enumeration on small domains.

The mechanism (ours, `betweencut.baselines.privtree.PrivTree`, or any variant with the same
`run(points,
test)` and `epsilon`) is run through
`betweencut.proofs.privacy.enumeration.transcripts.enumerate_mechanism`: every
split decision is a two-outcome BT query, so each database's output law (the released set of
leaf boxes) is an exact sum of exponential polynomials. For every database `D` with at most
`max_size - 1` points and every point `z` of the domain, the laws of `D` and `D + z` are compared
pointwise: `P0(o) <= e^ε·P1(o)` and `P1(o) <= e^ε·P0(o)` for every output `o`, each decided by
the exact sign of an exponential polynomial (pure DP on a finite output space is exactly this
pointwise bound of Def. 2.7; `e^ε·P` only shifts the exponents of `P`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from typing import Protocol

from betweencut.baselines.privtree import Point, PrivTree, box_of
from betweencut.noise.noisy_test import NoisyTest
from betweencut.proofs.exact.arith import ExpPoly, exact_str
from betweencut.proofs.exact.certificate import Certificate, ClaimRefuted
from betweencut.proofs.privacy.enumeration.transcripts import enumerate_mechanism
from betweencut.proofs.registry import claim, register_audit

CLAIM = "PrivTree epsilon-DP"


class TreeMechanism(Protocol):
    @property
    def epsilon(self) -> Fraction: ...

    def run(self, points: Sequence[Point], test: NoisyTest | None = None) -> Hashable: ...


def domain_points(mech: PrivTree) -> list[Point]:
    """Every integer cell of the mechanism's public box."""
    return [tuple(p) for p in itertools.product(*(range(lo, hi) for lo, hi in mech.box))]


@claim(CLAIM, "PrivTree Theorem (Zhang-Xiao-Xie 2016)")
def check_privtree_dp(mech: TreeMechanism, cells: Sequence[Point], max_size: int = 2,
                      epsilon: Fraction | None = None) -> Certificate:
    """Claim: PrivTree is `ε`-DP (FORMULAS.md, last section), for `mech` as given.

    Preconditions: `cells` lists the domain's points; `max_size >= 1`; `epsilon` the claimed
    budget (default `mech.epsilon`).
    Checks: for every multiset `D` of at most `max_size - 1` cells and every cell `z`, the exact
    laws of `mech.run(D)` and `mech.run(D + z)` satisfy Def. 2.7 with `λ = ε` (both directions).
    Returns: a Certificate, method `enumerated`, scope `|D| <= max_size - 1` (the larger
    database of a pair holds at most `max_size` points), stating the claim (`epsilon`,
    `delta = 0`, the `bound` `e^ε`) and the mechanism's own `ε` apart.
    Raises: `ClaimRefuted` with the two databases and the worst output's ratio.
    """
    eps = Fraction(epsilon if epsilon is not None else mech.epsilon)
    laws: dict[tuple[Point, ...], dict[Hashable, ExpPoly]] = {}
    scale = ExpPoly.exp(eps)
    claimed = {"epsilon": eps, "delta": Fraction(0), "bound": exact_str(scale),
               "mechanism_epsilon": Fraction(mech.epsilon)}

    def law(db: tuple[Point, ...]) -> dict[Hashable, ExpPoly]:
        if db not in laws:
            enum = enumerate_mechanism(lambda test: mech.run(list(db), test))
            laws[db] = enum.law(lambda out: out)
        return laws[db]

    def violation(p0: dict[Hashable, ExpPoly], p1: dict[Hashable, ExpPoly]
                  ) -> tuple[Hashable, str] | None:
        zero = ExpPoly.const(0)
        for o in set(p0) | set(p1):
            a, b = p0.get(o, zero), p1.get(o, zero)
            if (scale * b - a).sign() < 0:
                return o, f"P(D)(o) > e^eps P(D')(o), P(D)(o) = {a}, P(D')(o) = {b}"
            if (scale * a - b).sign() < 0:
                return o, f"P(D')(o) > e^eps P(D)(o), P(D)(o) = {a}, P(D')(o) = {b}"
        return None

    pairs = 0
    for size in range(max_size):
        for db in itertools.combinations_with_replacement(sorted(cells), size):
            for z in cells:
                bigger = tuple(sorted((*db, z)))
                bad = violation(law(db), law(bigger))
                if bad is not None:
                    raise ClaimRefuted(CLAIM, "an output's probability ratio exceeds e^epsilon",
                                       {**claimed, "D": db, "D'": bigger,
                                        "output": sorted(bad[0]),  # type: ignore[call-overload]
                                        "detail": bad[1]})
                pairs += 1
    return Certificate(CLAIM, {**claimed, "cells": len(cells)}, "enumerated",
                       {"pairs": pairs, "databases": len(laws)},
                       scope=f"|D| <= {max_size - 1} (so |D + z| <= {max_size})")


def privtree_1d(cells: int, epsilon: object, theta: object = 0) -> PrivTree:
    return PrivTree.of(box_of((0, cells)), epsilon, theta)


PRIVTREE_CASES: list[tuple[Callable[[], PrivTree], int]] = [
    (lambda: privtree_1d(8, 1), 2),
    (lambda: privtree_1d(8, Fraction(1, 2), -1), 2),
    (lambda: PrivTree.of(box_of((0, 2), (0, 4)), 1), 2),
]


@register_audit("baselines", "PrivTree epsilon-DP by enumeration (1-D 8 cells, 2-D 2x4)")
def audit_privtree() -> list[Certificate]:
    certs = []
    for make, size in PRIVTREE_CASES:
        mech = make()
        certs.append(check_privtree_dp(mech, domain_points(mech), size))
    return certs
