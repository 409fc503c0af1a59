"""The path profiles the depth tests compare with direct enumeration on small trees: the
single-leaf band and two-segment profiles with guarded siblings (L and H), and from height 4
one with two H siblings."""

from __future__ import annotations

from betweencut.data.tree import PublicTree
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.mechanism.params import Params
from betweencut.proofs.privacy.depth.depth_audit import single_leaf_band
from betweencut.proofs.privacy.depth.paths import PathProfile


def guarded_profiles(tree: PublicTree, params: Params, *, two_heavy_siblings: bool = True
                     ) -> list[PathProfile]:
    mechanism = BetweenCut(tree, params)
    out = single_leaf_band(mechanism)
    if tree.max_arity(0) >= 2:
        h = tree.height
        query = mechanism.count_query
        for s in {1, query.lower_cut, query.upper_cut} - {0}:  # type: ignore[attr-defined]
            if query.guard(s) is None:
                continue
            for d in range(1, h):
                for c in (0, 1, query.upper_cut - 1):  # type: ignore[attr-defined]
                    out.append(PathProfile(h, ((0, c + s), (d, c))))
        if two_heavy_siblings and h >= 4:
            u = query.upper_cut  # type: ignore[attr-defined]
            out.append(PathProfile(h, ((0, 2 * u + 1), (1, u + 1), (3, 1))))
    return out
