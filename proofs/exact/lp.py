"""An exact feasibility test for `A x = b, x >= 0` over the rationals, with a witness either way.

Phase 1 of the simplex method on a dense `Fraction` tableau with Bland's rule (no cycling).
Feasible: a point `x`. Infeasible: a Farkas certificate `y` with `yᵀA >= 0` and `yᵀb < 0`.
Either answer is re-verified exactly by `verify_point` / `verify_farkas`, so the verdict never
rests on the pivoting code being right. Small problems only (tens of rows and columns).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

__all__ = ["Feasibility", "solve", "verify_farkas", "verify_point"]

Matrix = Sequence[Sequence[Fraction]]


@dataclass(frozen=True)
class Feasibility:
    """`point` when feasible, else `farkas` (`yᵀA >= 0`, `yᵀb < 0`)."""

    feasible: bool
    point: tuple[Fraction, ...] = ()
    farkas: tuple[Fraction, ...] = ()


def verify_point(A: Matrix, b: Sequence[Fraction], x: Sequence[Fraction]) -> bool:
    return all(v >= 0 for v in x) and all(
        sum((a * v for a, v in zip(row, x, strict=True)), Fraction(0)) == bi
        for row, bi in zip(A, b, strict=True))


def verify_farkas(A: Matrix, b: Sequence[Fraction], y: Sequence[Fraction]) -> bool:
    n = len(A[0]) if A else 0
    cols_ok = all(sum((y[i] * A[i][j] for i in range(len(A))), Fraction(0)) >= 0
                  for j in range(n))
    return cols_ok and sum((yi * bi for yi, bi in zip(y, b, strict=True)), Fraction(0)) < 0


def solve(A: Matrix, b: Sequence[Fraction]) -> Feasibility:
    """Decide `A x = b, x >= 0` exactly (phase-1 simplex, Bland's rule)."""
    m, n = len(A), (len(A[0]) if A else 0)
    # Make b >= 0 by flipping rows; remember the flips for the certificate.
    flip = [Fraction(-1) if bi < 0 else Fraction(1) for bi in b]
    rows = [[flip[i] * Fraction(v) for v in A[i]] + [Fraction(int(k == i)) for k in range(m)]
            + [flip[i] * Fraction(b[i])] for i in range(m)]
    width = n + m
    basis = [n + i for i in range(m)]
    # Phase-1 objective: minimise the sum of artificials; reduced-cost row z_j = c_j - c_Bᵀ B⁻¹A_j.
    cost = [Fraction(0)] * n + [Fraction(1)] * m + [Fraction(0)]
    z = list(cost)
    for i in range(m):
        z = [zj - rij for zj, rij in zip(z, rows[i], strict=True)]
    while True:
        entering = next((j for j in range(width) if z[j] < 0), None)
        if entering is None:
            break
        ratios = [(rows[i][-1] / rows[i][entering], basis[i], i)
                  for i in range(m) if rows[i][entering] > 0]
        if not ratios:  # unbounded cannot happen in phase 1 (objective >= 0)
            break
        _, _, leave = min(ratios)
        pivot = rows[leave][entering]
        prow = [v / pivot if v else v for v in rows[leave]]
        rows[leave] = prow
        nonzero = [(j, w) for j, w in enumerate(prow) if w]  # the tableau is sparse
        for i, target in enumerate([*rows, z]):
            f = target[entering]
            if i == leave or not f:
                continue
            for j, w in nonzero:
                target[j] -= f * w
        basis[leave] = entering
    objective = -z[-1]
    if objective == 0:
        x = [Fraction(0)] * n
        for i, var in enumerate(basis):
            if var < n:
                x[var] = rows[i][-1]
        return Feasibility(True, point=tuple(x))
    # Dual of phase 1: y_i = c_Bᵀ B⁻¹ e_i = cost of artificial i minus its reduced cost.
    y = [(cost[n + i] - z[n + i]) * flip[i] for i in range(m)]
    # Then yᵀA_j <= 0 for all j and yᵀb = objective > 0: negate for the Farkas form.
    return Feasibility(False, farkas=tuple(-v for v in y))
