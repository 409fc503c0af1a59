"""The arithmetic every checker stands on.

Exact: exponential polynomials and rationals, the comparison gate `sign`, the one `enclose`
(`arith`); packed exact sums and packed products (`packed`); piecewise `x^k e^(ax)` with exact
integrals (`polyexp`); an exact simplex (`lp`); integer polynomials with a flint or pure-Python
backend chosen by argument or context (`intpoly`). Certified: interval laws (`interval`), sympy
forms (`symbolic`), dyadic intervals (`dyadic`), outward-rounded float boxes (`boxes`), the one
bisection (`bisection`). The `Certificate` a checker returns (`certificate`).

Precision: the one precision context (`iv_precision`), the one rising-precision loop (`refine`),
the one sign gate on it (`certified_sign`) and the one cap (`MAX_PRECISION_BITS`) live in
`betweencut.numbers.exact`, because core needs them too; everything here uses those, never a second.

May import: `betweencut` (core) only. Nothing else of `betweencut.proofs`.
"""
