"""The mechanisms BetweenCut is compared with: full-tree Laplace/Gaussian (`full_tree`, Alg. 5),
the Lumberjack-style baseline (`lumberjack`), Appendix E tree counting (`tree_counting`),
PrivTree (`privtree`), the margin formulas of all of them (`margins`, Section 5.3), and the
sparse-vector corpus with report-noisy-max (`svt_corpus`).

May import: the rest of `betweencut` (core). Never `betweencut.proofs` or `.properties`.
"""
