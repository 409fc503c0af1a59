"""Depth Traversal Ordering, Alg. 2: the middle level first, then the lower half, then the upper."""

from __future__ import annotations

from betweencut.errors import public_height


def depo(i: int, j: int) -> list[int]:
    """DepO(i, j) (Alg. 2). `DepO(0, 14) = [7, 11, 13, 14, 12, 9, 10, 8, 3, 5, 6, 4, 1, 2, 0]`."""
    if i > j:  # Alg. 2, l. 1
        return []
    m = i + (j - i + 1) // 2  # Alg. 2, l. 3
    return [m, *depo(m + 1, j), *depo(i, m - 1)]


def depth_order(height: int) -> list[int]:
    """The public level order of a tree of height `h`: DepO(0, h - 1)."""
    return depo(0, public_height(height) - 1)
