"""`PrivTreeLawCache` (laws from the reachable decomposition) against a plain `LawCache` (direct
enumeration of the whole real `run`), on the same pairs, in the same run (issue 16).

For each box and rule: `audit_pairs` at the claim `(ε, 0)` on every pair with `|D| <= N`
(one per class of equal law), once per cache; prints both CPU times, their ratio, the answer
sequences enumerated, and whether the two verdicts agree exactly (same holds, the same worst
pair's `δ` equal as exact numbers).

Run: python bench/privtree_audit_cache.py [--size 2]
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

from betweencut.baselines.privtree import PrivTree
from betweencut.proofs.baselines.privtree_checks.privtree_audit import (
    PrivTreeLawCache,
    exhaustive_pairs,
    privtree_run,
)
from betweencut.proofs.baselines.privtree_checks.privtree_search import closed_member
from betweencut.proofs.exact.arith import sign
from betweencut.proofs.privacy.audit.pairs import audit_pairs
from betweencut.proofs.privacy.enumeration.cache import LawCache


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=2)
    args = parser.parse_args()
    cases = [("[0,8) half-open", PrivTree.of(((0, 8),), 1)),
             ("[0,8) closed", PrivTree.of(((0, 8),), 1, member=closed_member)),
             ("[0,16) half-open", PrivTree.of(((0, 16),), 1))]
    for name, mech in cases:
        pairs = exhaustive_pairs(mech, args.size, 10**6)
        claim = [(Fraction(mech.epsilon), 0)]
        timings, verdicts, caches = [], [], []
        for cache in (LawCache(privtree_run(mech)), PrivTreeLawCache(mech)):
            cpu = time.process_time()
            verdicts.append(audit_pairs(cache.run, pairs, claim, cache=cache))
            timings.append(time.process_time() - cpu)
            caches.append(cache)
        slow, fast = verdicts
        same = slow.holds == fast.holds and slow.worst is not None and fast.worst is not None \
            and sign(slow.worst.delta - fast.worst.delta) == 0 and slow.pairs == fast.pairs
        print(f"{name:>17}, |D| <= {args.size}: {len(pairs)} pairs; direct {timings[0]:.2f} s "
              f"CPU ({caches[0].transcripts} sequences), decomposition {timings[1]:.2f} s "
              f"({caches[1].transcripts}): ratio {timings[0] / max(timings[1], 1e-9):.1f}x; "
              f"holds {fast.holds}; verdicts agree exactly: {same}", flush=True)


if __name__ == "__main__":
    main()
