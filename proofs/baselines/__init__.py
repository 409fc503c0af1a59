"""Checkers of the baselines: Appendix E tree counting (`appendix_e`), the Lumberjack-style
calibration (`lumberjack`), PrivTree (`privtree`; its worst pair over many points,
`privtree_search`, with exact factored ratios, `privtree_ratio`; its `LawCache` for
`audit_pairs`, `privtree_audit`, counting its answer sequences, `privtree_count`; at depth, over
copies of one point by symmetry, `privtree_depth`) and the SVT / noisy-max corpus (`corpus`).

May import: core, and `exact`, `laws`, `privacy` of `betweencut.proofs`, and `registry`.
"""
