"""A deep PrivTree audit costs what its search costs (issue 35, item 5).

`audit_mechanism(privtree, search=N, epsilon=1, delta=0)` on `[0, 2^bits)` (the command line's
`audit privacy --search N`) against its own search alone, measured in the same run: the
symmetric search over every database of at most `N` copies of one point
(`privtree_depth.copies_worst_pair`, the baseline). Both cells: half-open (`cell_member`) and
closed (`closed_member`). The worst pair's curve is no longer drawn past `CURVE_BOXES` boxes of
`T_z` (its answer sequences' values are products of one two-term factor per box); what is left
is the worst pair audited through the real run cut back to `T_z`.

Prints, per cell: CPU seconds of the search and of the audit, their ratio, the audit's wall
seconds and its `epsilon_at_delta`. The machine these figures come from has 2 cores shared
with other jobs: wall time varies, CPU time and the ratio less.

Run: python bench/privtree_deep_search.py [--bits 40] [--size 100] [--cell half-open|closed]
"""

from __future__ import annotations

import argparse
import time

from betweencut.api import audit_mechanism
from betweencut.baselines.privtree import PrivTree
from betweencut.proofs.baselines.privtree_depth import copies_worst_pair
from betweencut.proofs.baselines.privtree_search import closed_member


def _factory(mech: PrivTree) -> object:
    def privtree() -> PrivTree:  # a callable without parameters returning a PrivTree
        return mech

    return privtree


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bits", type=int, default=40)
    ap.add_argument("--size", type=int, default=100)
    ap.add_argument("--cell", choices=("half-open", "closed"), action="append")
    args = ap.parse_args()
    for cell in args.cell or ["half-open", "closed"]:
        box = ((0, 2**args.bits),)
        mech = (PrivTree.of(box, 1, member=closed_member) if cell == "closed"
                else PrivTree.of(box, 1))
        cpu = time.process_time()
        copies_worst_pair(mech, args.size)
        search = time.process_time() - cpu
        wall, cpu = time.monotonic(), time.process_time()
        verdict = audit_mechanism(_factory(mech), search=args.size, epsilon=1, delta=0)
        audit, wall = time.process_time() - cpu, time.monotonic() - wall
        print(f"{cell:9s} [0, 2^{args.bits}) search={args.size}: search {search:.1f} s CPU, "
              f"audit {audit:.1f} s CPU ({audit / search:.1f}x the search), {wall:.1f} s wall; "
              f"holds {verdict.holds}, epsilon_at_delta {verdict.facts['epsilon_at_delta']:.6f}")


if __name__ == "__main__":
    main()
