"""The arithmetic every checker stands on: exact exponential polynomials and rationals
(`arith`), packed exact sums (`packed`), certified intervals (`interval`), sympy forms with
certified constants (`symbolic`), an exact simplex (`lp`), piecewise `x^k e^(ax)` with exact
integrals (`polyexp`) and the `Certificate` a checker returns.

May import: `betweencut` (core) only. Nothing else of `betweencut.proofs`.
"""
