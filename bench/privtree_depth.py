"""PrivTree at depth (issue 27, item 4): the symmetric search over every database of copies of
one point against listing every pair, and the closed-cell PrivTree on `[0, 2^20)`.

1. Baseline in the same run: on `[0, 2^m)` for small `m`, every `(p, k, z)` listed, each pair's
   loss by `pair_loss` (the reachable decomposition, exact), against `copies_worst_pair` (by
   symmetry) with the same number of copies: CPU seconds, ratio, maxima checked equal exactly.
2. `copies_worst_pair` on the closed cells of `[0, 2^20)` with up to 100 copies (about
   1.1·10^14 pairs): wall and CPU seconds, peak memory, the largest loss and its pair.
3. The same search on the half-open cells (they hold at `ε = 1`).
4. One pair on `[0, 2^20)`, the worst, audited through `audit_mechanism` (the real run cut back
   to `T_z`: the event, `P(S)`, `Q(S)`): wall and CPU seconds.

The machine these figures come from has 2 cores shared with other jobs: wall time varies,
CPU time and the ratios less.

With `--table`: the README's table instead, the largest loss over every database of at most
`--copies` copies of one point on `[0, 2^m)` for several `m`, both rules.

Run: python bench/privtree_depth.py [--copies 100] [--bits 20] [--skip-audit] [--table]
"""

from __future__ import annotations

import argparse
import math
import resource
import time
from typing import Any

from betweencut.baselines.privtree import PrivTree
from betweencut.proofs.baselines.privtree_checks.privtree_audit import domain
from betweencut.proofs.baselines.privtree_checks.privtree_depth import copies_worst_pair
from betweencut.proofs.baselines.privtree_checks.privtree_search import closed_member, pair_loss


def timed(fn):  # type: ignore[no-untyped-def]
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def listing(mech: PrivTree, copies: int) -> Any:
    best = None
    cells = domain(mech)
    for k in range(copies + 1):
        for p in cells if k else [None]:
            for z in cells:
                ratio = pair_loss(mech, {p: k} if p is not None else {}, z).worst()[0]
                if best is None or ratio.exceeds(best):
                    best = ratio
    return best


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=100)
    parser.add_argument("--bits", type=int, default=20)
    parser.add_argument("--skip-audit", action="store_true")
    parser.add_argument("--table", action="store_true")
    args = parser.parse_args()
    if args.table:
        table(args.copies)
        return
    for bits, copies in ((3, 6), (4, 6), (5, 8)):
        mech = PrivTree.of(((0, 1 << bits),), 1, member=closed_member)
        slow, _, slow_cpu = timed(lambda m=mech, c=copies: listing(m, c))
        fast, _, fast_cpu = timed(lambda m=mech, c=copies: copies_worst_pair(m, c))
        same = slow.log.compare(fast.found.ratio.log) == 0
        print(f"closed [0, 2^{bits}), <= {copies} copies: listing {slow_cpu:.2f} s CPU, by "
              f"symmetry {fast_cpu:.3f} s: ratio {slow_cpu / max(fast_cpu, 1e-9):.0f}x; "
              f"maxima equal exactly: {same}", flush=True)
    width = 1 << args.bits
    for name, member in (("closed", closed_member), ("half-open", None)):
        mech = PrivTree.of(((0, width),), 1, **({"member": member} if member else {}))
        found, wall, cpu = timed(lambda m=mech: copies_worst_pair(m, args.copies))
        lo, hi = found.found.ratio.loss_bounds()
        print(f"{name} [0, 2^{args.bits}), <= {args.copies} copies of one point, every added "
              f"point ({found.found.pairs:.3g} pairs): largest loss in [{lo:.6f}, {hi:.6f}] at "
              f"D = {found.found.db}, z = {found.found.z}, {found.found.direction}; "
              f"{wall:.1f} s wall, {cpu:.1f} s CPU, peak {peak_mb():.0f} MB", flush=True)
    if not args.skip_audit:
        from betweencut.api import audit_mechanism

        mech = PrivTree.of(((0, width),), 1, member=closed_member)
        worst = copies_worst_pair(mech, args.copies).found
        (p, k), = worst.db.items()
        verdict, wall, cpu = timed(lambda: audit_mechanism(
            lambda: mech, [([p] * k, worst.z)], epsilon=1, delta=0))
        print(f"audit_mechanism on that pair (the real run cut back to T_z): holds "
              f"{verdict.holds}, epsilon_at_delta {verdict.facts['epsilon_at_delta']:.6f}; "
              f"{wall:.1f} s wall, {cpu:.1f} s CPU, peak {peak_mb():.0f} MB", flush=True)


def table(copies: int) -> None:
    """Rows: the box; columns: the two rules, each its largest loss (certified, rounded
    outward to 4 decimals; `> ε` decided exactly) and its worst pair."""
    from betweencut.proofs.baselines.privtree_checks.privtree_ratio import Ratio
    from betweencut.proofs.exact.arith import ExpPoly

    print(f"| box | half-open cells, <= {copies} copies | worst pair | closed cells, <= "
          f"{copies} copies | worst pair | seconds (CPU, both) |")
    print("|---|---|---|---|---|---|")
    for bits in (3, 4, 5, 6, 8, 10, 12, 16, 20):
        cells, cpu_all = [], 0.0
        for member in (None, closed_member):
            mech = PrivTree.of(((0, 1 << bits),), 1, **({"member": member} if member else {}))
            found, _, cpu = timed(lambda m=mech: copies_worst_pair(m, copies).found)
            cpu_all += cpu
            lo, hi = found.ratio.log.log_bounds()
            above = found.ratio.exceeds(Ratio(ExpPoly.exp(mech.epsilon), ExpPoly.const(1)))
            text = f"[{math.floor(lo * 10**4) / 10**4:.4f}, {math.ceil(hi * 10**4) / 10**4:.4f}]"
            (p, k), = found.db.items() if found.db else ((None, 0),)
            cells += [f"**{text} > ε**" if above else text,
                      f"{k} copies of {p[0] if p else '-'}, z = {found.z[0]}"]
        print(f"| `[0, 2^{bits})` | " + " | ".join(cells) + f" | {cpu_all:.1f} |", flush=True)


if __name__ == "__main__":
    main()
