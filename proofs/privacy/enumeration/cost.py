"""The cost of an audit on given pairs, estimated before any work, for its time budget (issue 26).

The enumeration keeps the budget as it goes (`transcripts._runs` projects one database's
enumeration from its first answer sequences; every pair checks the clock), but only for the
step at hand: an audit of 360 pairs whose every pair is slow, or of one pair whose exact values
are huge, used to run to its budget before saying so. `audit_cost` projects the whole job from
public inputs alone (the mechanism, the public databases of the pairs, the claim's points),
without enumerating anything:

* the outcome trees the cache will enumerate: for `SharedTreeCache` one per guard pattern, in
  the order its own `tree_for` picks them; for a plain cache every database; and, on a
  shortcut cache, the two databases of every pair whose exact curve is drawn by direct
  enumeration (`fresh()`);
* each tree's answer sequences, estimated by `PROBES` random walks of the real mechanism
  (`probe_sequences`: Knuth's estimator, unbiased, not a bound), at the CPU time per run those
  walks took (a walk costs less than an enumerated sequence: that side errs low);
* on a shared outcome tree, per pair and release, the grouping of its answer sequences
  (`WEIGH_SECONDS` each, a quarter of the time measured) and the comparisons: per point and
  direction, the hockey stick decodes `DECODES` values packed on one lattice
  (`betweencut.proofs.exact.packed`), the lattice the walks' bags need (a sample of the bags:
  the others can only widen it). A decode is linear in the bits (one binary text cut into
  `bits / width` digits), at `DECODE_RATE` digits a second: about three times the rate measured
  on values whose every digit is non-zero (each becomes an exact coefficient), about a tenth of
  the rate on values whose digits are mostly zero (a slice and a comparison each). So this term
  errs low on dense values and high on sparse ones (`bench/audit_cost.py`: 5x high on its
  `h = 3, lambda = 1/1000` case): erring low throughout would start `--height 4 --lam 1/1000
  --R 1000 --tau 1000 --exhaustive 2`, which takes 6 minutes and 8 GB. The products that pack
  the bags are not counted (GMP's, when installed: a few seconds on million-bit values; that
  side errs low). Every comparison is counted at full width, although an empty event decodes
  nothing, and every pair is counted, although an audit stops at its first refuting pair: an
  upper bound on the comparisons, said so in the message ("at most").

The same projection priced at fixed rates (`REFERENCE_SEQUENCE_SECONDS` per answer sequence
instead of the CPU time the walks took; the comparisons and the grouping are priced at fixed
rates already) is the audit's `work`, in reference seconds: counted from public inputs by
seeded walks, it is the same on every machine, busy or not, and it is what the command line's
default limit refuses (`betweencut.progress.DEFAULT_WORK`; issue 35, item 7); a wall-clock
`--budget` uses `seconds` instead.

Nothing here decides a verdict: it decides only whether to start. A mechanism whose walks fail
(its error, a shared-noise query, a walk past `max_queries`) gets no estimate (None): the
enumeration meets the failure itself and reports it, and the running budget stays the safety
net. `bench/audit_cost.py` prints the measured time of audits against this projection.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from betweencut.boundary.isolation import ChildEnded
from betweencut.noise.noisy_test import NoisyTest
from betweencut.progress import BudgetExceeded, Tracker, current
from betweencut.proofs.exact.packed import Packer
from betweencut.proofs.laws.factors import factor_value
from betweencut.proofs.privacy.enumeration.cache import (
    Database,
    LawCache,
    Neighbour,
    with_record,
)
from betweencut.proofs.privacy.enumeration.outcome_tree import Pattern, SharedTreeCache
from betweencut.proofs.privacy.enumeration.transcripts import Probe, probe_sequences

__all__ = ["DECODES", "DECODE_RATE", "PROBES", "REFERENCE_SEQUENCE_SECONDS", "WEIGH_SECONDS",
           "AuditCost", "audit_cost"]

PROBES = 64  # random walks per outcome tree (as one enumeration's own estimate)
DECODES = 3  # values a hockey stick decodes: P(S) - e^eps Q(S), P(S) and Q(S)
DECODE_RATE = 6e5  # digits a second (measured about 1.5e5: bench/audit_cost.py)
WEIGH_SECONDS = 2e-7  # per answer sequence, pair and release on a shared tree (measured 7e-7)
REFERENCE_SEQUENCE_SECONDS = 1e-4  # an answer sequence, at the reference rate (BetweenCut's
# walks at binary h = 4, lambda = 1/2: about 1e-4 s each on the development machine)


@dataclass(frozen=True)
class AuditCost:
    """An audit's projected work: `pairs`, the outcome `trees` enumerated and their estimated
    answer `sequences`, the `comparisons` on a packed lattice of `lattice_bits` bits (at
    most), the projected `seconds` (at the rate the walks ran here) and `work` (the same
    projection at fixed rates, in reference seconds: the same on every machine)."""

    pairs: int
    trees: int
    sequences: int
    comparisons: int
    lattice_bits: int
    seconds: float
    work: float = 0.0

    def text(self) -> str:
        """The estimate in words (public counts only)."""
        out = (f"{_count(self.pairs, 'pair')}; {_count(self.trees, 'outcome tree')} of about "
               f"{self.sequences:,} answer sequences")
        if self.comparisons:
            out += f"; at most {self.comparisons:,} comparisons of {self.lattice_bits:,}-bit values"
        return out

    def afford(self, tracker: Tracker | None = None) -> None:
        """Refuse at once (`BudgetExceeded`, naming the estimate, the budget and what to change)
        when the projection passes what is left of the time budget of `tracker` (default: the
        computation's, `current()`); without a time budget, (`WorkLimitExceeded`) when its
        `work` passes the tracker's work limit, if any."""
        tracker = tracker or current()
        if tracker.budget is None:
            tracker.afford_work(self.work, f"the audit ({self.text()})")
            return
        tracker.afford(self.seconds, f"the audit ({self.text()})",
                       advice=f"raise --budget to {tracker.needed(self.seconds)} or more, "
                              "or audit fewer pairs (--height, --exhaustive) or simpler "
                              "parameters (smaller tau + R, a lambda of fewer digits)")


def audit_cost(
    cache: LawCache, pairs: Iterable[tuple[Database, Any] | Neighbour], points: int,
    releases: int, curves: Iterable[tuple[Database, Any] | Neighbour] = (),
    probes: int = PROBES,
) -> AuditCost | None:
    """The projected work of comparing every pair at `points` claimed points on `releases`
    projections through `cache` (fresh: nothing enumerated yet), and of drawing the exact curve
    of every pair of `curves` by direct enumeration (module doc).

    Preconditions: the pairs are `(D, z)` or `Neighbour`s of the cache's mechanism.
    Returns: an `AuditCost`, or None when a walk of the mechanism fails (no estimate).
    Raises: `BudgetExceeded` when the budget of the computation runs out while walking.
    """
    tracker = current()
    pairs = list(pairs)
    probed: dict[Database, Probe] = {}

    def probe(db: Database) -> Probe:
        found = probed.get(db)
        if found is None:
            run = cache.run

            def walk(test: NoisyTest) -> object:
                tracker.check()  # the walks run the user's code: the budget holds there too
                return run(db, test)

            user = getattr(cache, "user", None)
            if user is not None:  # the user's code: the walks run in a child
                from betweencut.proofs.privacy.enumeration.cache import where
                from betweencut.proofs.privacy.enumeration.isolated import probe_isolated

                found = probed[db] = probe_isolated(run, db, where(db), user, probes)
            else:
                found = probed[db] = probe_sequences(walk, probes)
        return found

    try:
        shared, trees, weighed = _plan(cache, pairs, lambda db: probe(db).sequences)
        if cache.fresh() is not cache:  # a shortcut: each curve enumerates both directly
            for pair in curves:
                if not isinstance(pair, Neighbour) or pair.replaced is None:
                    trees += _databases(pair)
        walks = [probe(db) for db in [*shared, *trees]]
    except (BudgetExceeded, ChildEnded):  # the budget, or the user's code ended its child
        raise
    except Exception:  # a failing walk: the enumeration meets it and says so
        return None
    seconds = sum(w.sequences * w.seconds for w in walks)
    work = sum(w.sequences for w in walks) * REFERENCE_SEQUENCE_SECONDS
    comparisons = bits = 0
    if weighed and isinstance(cache, SharedTreeCache):
        largest = max(probed[db].sequences for db in shared)
        seconds += weighed * releases * largest * WEIGH_SECONDS
        work += weighed * releases * largest * WEIGH_SECONDS
        packer = Packer(cache.mechanism.params.lam, factor_value)  # as the cache packs
        packer.admit({bag for db in shared for bag in probed[db].bags}, largest)
        lattice = packer.lattice
        if lattice.reaches(0):  # else the cache compares without packing
            bits = lattice.width * (1 - lattice.low)
            comparisons = weighed * points * releases * 2
            seconds += comparisons * DECODES * bits / lattice.width / DECODE_RATE
            work += comparisons * DECODES * bits / lattice.width / DECODE_RATE
    return AuditCost(len(pairs), len(walks), sum(w.sequences for w in walks), comparisons,
                     bits, seconds, work)


def _count(n: int, unit: str) -> str:
    return f"{n:,} {unit}" + ("" if n == 1 else "s")


def _databases(pair: tuple[Database, Any] | Neighbour) -> tuple[Database, Database]:
    if isinstance(pair, Neighbour):
        return pair.first, pair.second
    db, z = pair
    return db, with_record(db, z)


def _plan(cache: LawCache, pairs: list[tuple[Database, Any] | Neighbour],
          size: Callable[[Database], int]) -> tuple[list[Database], list[Database], int]:
    """The outcome trees `cache` will enumerate for `pairs`: the shared trees (one per guard
    pattern: `SharedTreeCache.tree_for` for each add/remove pair, in order, or each database's
    own pattern on the general path), the databases enumerated directly (a plain cache's, a
    database without a pattern, replace-one pairs through `direct()`), and how many pairs are
    weighed on a shared tree."""
    shortcut = cache if isinstance(cache, SharedTreeCache) else None
    known: dict[Pattern, Database] = {}
    direct: dict[Database, None] = {}
    replaced: dict[Database, None] = {}
    weighed = 0
    for pair in pairs:
        first, second = _databases(pair)
        if isinstance(pair, Neighbour) and pair.replaced is not None:
            (replaced if shortcut is not None else direct).update({first: None, second: None})
            continue
        if shortcut is None:
            direct.update({first: None, second: None})
            continue
        found = shortcut.tree_for(first, second, known, size)
        if found is not None:
            rep, new = found
            pattern = shortcut.pattern(rep)
            if new and pattern is not None:
                known[pattern] = rep
            weighed += 1
            continue
        for db in (first, second):
            pattern = shortcut.pattern(db)
            if pattern is None:
                direct[db] = None
            elif pattern not in known:
                known[pattern] = db
    return list(known.values()), [*direct, *replaced], weighed
