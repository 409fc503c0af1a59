"""Checkers of the baselines: Appendix E tree counting (`appendix_e`), the Lumberjack-style
calibration (`lumberjack`), PrivTree (`privtree`) and the SVT / noisy-max corpus (`corpus`).

May import: core, and `exact`, `laws`, `privacy` of `betweencut.proofs`, and `registry`.
"""
