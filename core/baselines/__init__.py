"""The mechanisms BetweenCut is compared with: full-tree Laplace/Gaussian (`full_tree`, Alg. 5),
the Lumberjack-style baseline (`lumberjack`), Appendix E tree counting (`tree_counting`),
PrivTree (`privtree`) and the margin formulas of all of them (`margins`, Section 5.3).

May import: the rest of `betweencut` (core). Never `betweencut.proofs` or `.properties`.
"""
