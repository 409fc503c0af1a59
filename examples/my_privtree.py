"""A user's PrivTree, audited from the command line (docs/how-to/privtree.md).

A callable without parameters that returns a `PrivTree` is audited through the reachable
decomposition, on databases given as multiplicities (`--db 4*2 --add 4`: two copies of 4 and an
added 4). `privtree` is PrivTree on the public interval `[0, 8)` with `ε = 1` and the default
half-open cells; `privtree_closed` counts a point on a boundary in both children (closed cells),
which breaks ε-DP once `D` holds two copies of that point; `privtree_closed_16` is the closed
rule on the deeper `[0, 16)`, where four copies of 8 against five lose more (ε at δ = 0 at least
1.3395: the loss of the closed rule grows with the depth of the domain).

    betweencut audit privacy --mechanism my_privtree:privtree --exhaustive 100 --epsilon 1 --delta 0
    betweencut audit privacy --mechanism my_privtree:privtree_closed --search 2 --json \\
        --epsilon 1 --delta 0
    betweencut audit privacy --mechanism my_privtree:privtree_closed_16 --search 4 \\
        --epsilon 1 --delta 0
"""

from __future__ import annotations

from betweencut.baselines.privtree import Box, Point, PrivTree


def closed_cells(point: Point, box: Box) -> bool:
    """Closed cells `lo <= x <= hi`: a boundary point belongs to both children."""
    return all(lo <= x <= hi for x, (lo, hi) in zip(point, box, strict=True))


def privtree() -> PrivTree:
    """PrivTree on `[0, 8)`, `ε = 1`, `θ = 0`, half-open cells: ε-DP."""
    return PrivTree.of(((0, 8),), 1)


def privtree_closed() -> PrivTree:
    """The same with closed cells: not ε-DP (two copies of 4, add a third)."""
    return PrivTree.of(((0, 8),), 1, member=closed_cells)


def privtree_closed_16() -> PrivTree:
    """Closed cells on `[0, 16)`, `ε = 1`: its largest loss, four copies of 8 and a fifth."""
    return PrivTree.of(((0, 16),), 1, member=closed_cells)
