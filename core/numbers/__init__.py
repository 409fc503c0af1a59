"""Exact numbers: the one grammar for numbers written as text, the precision context, and
certified comparisons (principle 1: no float decides a verdict).

* `exact_text`: numbers written as text (`read_rational`, the size limits), never `sympify`;
* `exact`: `LogReal` (`a + b·ln c`, exact sign, floor, ceiling), the precision context
  `iv_precision`, the one rising-precision loop `refine`, the sign gate `certified_sign` and the
  package's one precision cap `MAX_PRECISION_BITS`;
* `certified`: `certified_compare` of margin formulas on mpmath `iv` intervals;
* `bisection`: `certified_bisect`, the one bisection of the package (core and proofs).

May import: the top-level plumbing (`betweencut.errors`, `betweencut.interop`) and the
standard library, mpmath, sympy. Nothing above it (data, noise, mechanism) is imported here.
"""
