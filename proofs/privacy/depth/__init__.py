"""Theorem 5.4 at any height up to `2^64 - 1` by path grouping: `paths` (path profiles and
answer signatures), `transcript` (the grouped transcript pair, its certified rows at the
claim's points), `exact_values` (the rows' exact values as integer tables), `heavy` (the
released Heavy set), `audit` and `heavy_audit` (the checkers and the families of pairs) and
`search` (a Hypothesis search over profiles).

May import: everything below it in `proofs` and `divergence`, `enumeration`, `audit`, `claims`.
"""

from betweencut.proofs.privacy.depth.depth_audit import check_theorem_5_4_at_depth
from betweencut.proofs.privacy.depth.heavy_audit import check_theorem_5_4_heavy_at_depth

__all__ = ["check_theorem_5_4_at_depth", "check_theorem_5_4_heavy_at_depth"]
