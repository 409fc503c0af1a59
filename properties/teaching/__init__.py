"""Helpers of the teaching notebooks (`notebooks/`): `basics` (notebooks 1-2 and number
formatting), `privacy` (notebooks 3 and 5), `margins` (notebook 4) and the exercise checkers
(`exercises`). They only read what the package computes; they are not Hypothesis properties.

May import: core, `betweencut.proofs`, and the rest of `betweencut.properties`.
"""
