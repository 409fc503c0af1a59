"""Counting engines for `classify` (issue 14): `memory` (Python), `duckdb` and `spark`.

`common` holds what they share: the input, the public tree's codes, the candidate cut
`floor(a - R)` with the proof that the candidates decide the Heavy set, and the exact stage.
May import the mechanism (`betweencut.*` of core), never `proofs` or `properties`.
"""
