"""Checkers of the baselines: Appendix E tree counting (`appendix_e`), the Lumberjack-style
calibration (`lumberjack`) and PrivTree (`privtree`).

May import: core, and `exact`, `laws`, `privacy` of `betweencut.proofs`, and `registry`.
"""
