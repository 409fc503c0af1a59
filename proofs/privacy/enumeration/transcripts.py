"""Exact output laws by transcript enumeration: the real mechanism, run on every answer sequence.

A mechanism written against the noisy-test interface (`betweencut.noise.noisy_test`) is
deterministic given the answers of its noisy tests, so its output law is a finite sum over answer
sequences. `enumerate_mechanism(run)` walks that outcome tree depth first by running the *real* code
through `BranchingTest`, a `ReplayTest` that, instead of stopping at its first unanswered query,
answers it with the first outcome of non-zero probability (under `exact_law`, the exact law of one
BT query) and remembers the other outcomes as prefixes still to explore. Each run therefore ends in
one complete answer sequence (one leaf of the outcome tree); deterministic decisions (the guards
of GuardedBT, Alg. 1, l. 1-4) never reach the test and cost no branching.

Probabilities are kept factored (`betweencut.proofs.laws.factors`): the probability of one
answer sequence is the product of the law values of its answers, a multiset of factor keys (a
`Bag`). Many leaves share a bag (every count-0 node off the data answers with the same law),
`bag_value` turns a bag into an exact `ExpPoly` once, and the profiles
(`betweencut.proofs.privacy.divergence.joint`) cancel the factors two neighbouring databases
share (off the added record's path both answer with the same law: Eq. 4) before any comparison.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any, Generic, TypeVar

from betweencut.errors import BetweenCutError, MechanismError, ParameterError
from betweencut.noise.noisy_test import BTQuery, NoisyTest, Outcome, ReplayTest, UnansweredQuery
from betweencut.progress import current
from betweencut.proofs.exact.arith import ExpPoly
from betweencut.proofs.laws.bt_laws import OUTCOMES
from betweencut.proofs.laws.factors import (
    Bag,
    FactorKey,
    bag_enclosure,
    bag_value,
    bags_value,
    factor_id,
    factor_key,
    factor_value,
    law_key,
    make_bag,
    query_factor_ids,
    query_factors,
)

__all__ = [
    "Bag", "BranchingTest", "Enumeration", "EnumerationBudgetExceeded", "FactorKey", "ForeignQuery",
    "MechanismNotReplayable", "Probe", "ProbeTest", "bag_enclosure", "bag_value",
    "complete_outcome_tree",
    "enumerate_mechanism", "estimate_sequences", "fork_prefixes", "law_key", "make_bag",
    "probe_sequences", "query_factor_ids", "walk_estimate",
]

T = TypeVar("T")
A = TypeVar("A")
DEFAULT_LIMIT = 2_000_000  # answer sequences of one enumeration (the budget)
DEFAULT_MAX_QUERIES = 10_000  # noisy tests on one answer sequence
WARMUP = 256  # answer sequences enumerated before the cost is estimated
PROBES = 64  # random root-to-leaf walks of the estimate


def fork_prefixes(given: Sequence[A], forks: Iterable[tuple[int, A]]) -> list[tuple[A, ...]]:
    """The prefixes `given[:k] + (a,)` of a run's forks `(k, a)`, built when a depth-first
    search asks for them: a run records each fork as two values, not the answers so far (which
    is quadratic in the run's length: 1.3 GB for a mechanism asking 10,000 tests)."""
    answers = tuple(given)
    return [(*answers[:k], a) for k, a in forks]


class BranchingTest(ReplayTest):
    """A `ReplayTest` that extends its prefix instead of raising `UnansweredQuery`.

    At a query past the prefix it answers the first outcome of non-zero exact probability (the
    last with `reverse`: `betweencut.proofs.privacy.enumeration.isolated` enumerates each
    database in both orders) and records where the other outcomes fork: one run explores one
    complete answer sequence, and `branches` (`answers so far + other outcome`, built when
    asked: a run that asks n tests holds n forks, not n prefixes) are the prefixes a
    depth-first search still has to replay.
    """

    def __init__(self, answers: Sequence[Outcome] = (),
                 max_queries: int = DEFAULT_MAX_QUERIES, reverse: bool = False) -> None:
        super().__init__(answers)
        self.max_queries = max_queries
        self.reverse = reverse  # answer the last outcome first (the purity check's other order)
        self.given: list[Outcome] = []
        self.factors: list[int] = []
        self.forks: list[tuple[int, Outcome]] = []  # (answers before it, the other outcome)

    @property
    def branches(self) -> list[tuple[Outcome, ...]]:
        return fork_prefixes(self.given, self.forks)

    def __call__(self, query: BTQuery) -> Outcome:
        if not isinstance(query, BTQuery):
            raise ForeignQuery(query, len(self.given))
        if len(self.given) >= self.max_queries:
            raise EnumerationBudgetExceeded(
                "max_queries", self.max_queries, 0, None, 0.0,
                f"one answer sequence asks more than {self.max_queries} noisy tests (does it "
                f"halt on every answer sequence?)")
        support = query_factors(query)
        try:
            outcome = super().__call__(query)
        except UnansweredQuery:
            (outcome, _), *others = support[::-1] if self.reverse else support
            self.forks.extend((len(self.given), s) for s, _ in others)
            self.queries.append(query)
        self.given.append(outcome)
        self.factors.append(next(fid for s, fid in support if s is outcome))
        return outcome


@dataclass
class Enumeration(Generic[T]):
    """Every complete answer sequence of one mechanism on one database: `(output, bag)` pairs.

    The output law of a projection `f` is `P(o) = Σ_{leaves with f(output) = o} bag_value(bag)`.
    """

    leaves: list[tuple[T, Bag]] = field(default_factory=list)
    steps: list[tuple[tuple[object, Outcome], ...]] = field(default_factory=list)
    sequences: list[tuple[int, ...]] = field(default_factory=list)  # factor ids, in order
    # (each leaf's, when enumerated with `structural=True`; empty otherwise)


    @property
    def transcripts(self) -> int:
        return len(self.leaves)

    def grouped(self, project: Callable[[T], Hashable]) -> dict[Hashable, Counter[Bag]]:
        """For each projected output, the multiset of bags of the answer sequences giving it."""
        out: dict[Hashable, Counter[Bag]] = {}
        for output, bag in self.leaves:
            out.setdefault(project(output), Counter())[bag] += 1
        return out

    def law(self, project: Callable[[T], Hashable]) -> dict[Hashable, ExpPoly]:
        """The exact law of the projected output."""
        return {o: bags_value(bags) for o, bags in self.grouped(project).items()}

    def total(self) -> ExpPoly:
        """`Σ` over all answer sequences: exactly 1 for a mechanism that always halts."""
        return bags_value(Counter(bag for _, bag in self.leaves))

    def sums_to_one(self) -> None:
        """The structural form of `total() == 1`, without expanding a product: raises
        `MechanismNotReplayable` unless `complete_outcome_tree` accepts the answer sequences
        (needs `sequences`, the factor ids of each leaf in the order answered)."""
        if len(self.sequences) != len(self.leaves):
            raise ParameterError("sequences", len(self.sequences),
                                 f"one factor sequence per leaf ({len(self.leaves)})")
        why = complete_outcome_tree(self.sequences, [bag for _, bag in self.leaves])
        if why is not None:
            raise MechanismNotReplayable(
                f"the probabilities of its {self.transcripts} answer sequences do not sum to "
                f"exactly 1: {why} (its run depends on more than the answers of its noisy "
                "tests)")


_LEAF = -1  # the trie's mark of a complete answer sequence (factor ids are >= 0)


@lru_cache(maxsize=4096)
def _law_sums_to_one(key: tuple[Fraction, Fraction, Fraction]) -> bool:
    """The exact law of one BT query (`(a - c, b - c, λ)`) sums to 1 over its outcomes."""
    total = ExpPoly.const(0)
    for outcome in OUTCOMES:
        total = total + factor_value((*key, outcome))
    return total == ExpPoly.const(1)


def complete_outcome_tree(sequences: Sequence[Sequence[int]], bags: Sequence[Bag]
                          ) -> str | None:
    """Why `Σ_leaves Π factors` is not exactly 1, or None: the structural sum-to-1 check.

    Claim: if (1) each leaf's bag is the multiset of its factor sequence, (2) no sequence is
    repeated or a proper prefix of another, (3) at every prefix that some longer sequence
    extends, the next factor ids are *exactly* the factors of the outcomes of non-zero
    probability of one BT law `(a - c, b - c, λ)` (`factor_key(id)[:3]` the same for all,
    every outcome of the law's support present once), and (4) each such law sums to exactly
    1 over its outcomes (`exact_law`, checked once per law, 3 small `ExpPoly`s), then the sum
    over the leaves of the product of their factors is exactly 1. Proof: by induction from
    the leaves, the sum below a prefix `u` of the products of the factors after `u` is 1: a
    leaf's empty product is 1, and at an inner prefix it is `Σ_s P(s)·1 = 1` by (3) and (4).
    At the root it is the total. Cost: linear in the total length of the sequences (a trie);
    no product is expanded (the exact `total()` expands one `ExpPoly` per bag: about `2^k`
    terms for `k` two-term factors). Preconditions: none; it only reads factor keys.
    Returns: None when (1)-(4) hold; else the first broken condition, in words (the sum may
    still be 1 by accident: the caller treats a refusal as the exact check failing).
    """
    if len(sequences) != len(bags):
        return f"{len(sequences)} factor sequences for {len(bags)} leaves"
    root: dict[int, Any] = {}
    for seq, bag in zip(sequences, bags, strict=True):
        if tuple(sorted(seq)) != tuple(bag):
            return "a leaf's bag is not the multiset of its answers' factors"
        node = root
        for fid in seq:
            if _LEAF in node:
                return "an answer sequence is a prefix of another"
            node = node.setdefault(fid, {})
        if node:
            return ("an answer sequence is repeated" if _LEAF in node
                    else "an answer sequence is a prefix of another")
        node[_LEAF] = True
    stack = [root]
    while stack:
        node = stack.pop()
        if _LEAF in node:
            continue
        if not node:
            return "an empty outcome tree"
        keys = {factor_key(fid)[:3] for fid in node}
        if len(keys) != 1:
            return "one noisy test's outcomes come from different laws"
        (key,) = keys
        expected = {factor_id((*key, s)) for s in OUTCOMES if not factor_value(
            (*key, s)).is_zero()}
        if set(node) != expected:
            return (f"the outcomes answered at one noisy test ({len(node)}) are not its "
                    f"outcomes of non-zero probability ({len(expected)})")
        if not _law_sums_to_one(key):
            return f"the law {key} does not sum to exactly 1"
        stack.extend(node.values())
    return None


class ForeignQuery(BetweenCutError):
    """Raised by `BranchingTest` when the mechanism asks something that is not a `BTQuery` (a
    shared-noise primitive of `betweencut.noise.noisy_queries`, say): this enumeration cannot answer
    it, and `betweencut.proofs.privacy.audit.pairs.LawCache` hands the mechanism to the
    enumeration kind that can. `query` is what was asked, `position` how many BT answers came
    before."""

    def __init__(self, query: object, position: int) -> None:
        self.query, self.position = query, position
        super().__init__(f"noisy query {position} is a {type(query).__name__}, not a BTQuery: "
                         "the fresh-noise enumeration cannot answer it")


class MechanismNotReplayable(MechanismError):
    """The mechanism is not a function of the database and the answers of its noisy tests
    (hidden state, its own randomness, a clock...), so no enumeration of its answers is its
    output law: a refusal (the command line exits 2). The message says what it did: which
    query differed on a replay, what two fresh processes disagreed on
    (`betweencut.proofs.privacy.enumeration.isolated`), or what the "law" summed to."""


class EnumerationBudgetExceeded(ParameterError):
    """The enumeration would pass (or passed) its stated budget. Says how far it got: answer
    sequences done, the estimate of the whole, the time spent."""

    def __init__(self, budget: str, value: int, done: int, estimate: int | None,
                 elapsed: float, why: str, counted: bool = False) -> None:
        self.done, self.estimate, self.elapsed = done, estimate, elapsed
        about = "" if estimate is None else (
            f", exactly {estimate} in all (counted)" if counted else
            f", about {estimate:.3g} in all (a random-walk estimate, not a bound)")
        super().__init__(
            budget, value, f"an enumeration within {budget} = {value}",
            f"{why}; stopped after {done} answer sequences{about}, {elapsed:.1f} s: use a "
            f"smaller tree/database or raise {budget}")




class ProbeTest:
    """A `NoisyTest` that answers each query with a uniformly drawn outcome of non-zero
    probability and multiplies the branching factors (Knuth's estimate of a tree's leaves);
    `factors` are the factor ids of the answers drawn (the walk's bag)."""

    def __init__(self, rng: random.Random, max_queries: int) -> None:
        self.rng, self.max_queries = rng, max_queries
        self.leaves, self.asked = 1, 0
        self.factors: list[int] = []

    def __call__(self, query: BTQuery) -> Outcome:
        if not isinstance(query, BTQuery):
            raise ForeignQuery(query, self.asked)
        self.asked += 1
        if self.asked > self.max_queries:
            raise EnumerationBudgetExceeded(
                "max_queries", self.max_queries, 0, None, 0.0,
                f"one answer sequence asks more than {self.max_queries} noisy tests")
        support = query_factors(query)
        self.leaves *= len(support)
        outcome, factor = self.rng.choice(support)
        self.factors.append(factor)
        return outcome


@dataclass(frozen=True)
class Probe:
    """What `probes` random walks saw of one outcome tree: Knuth's estimate of its answer
    sequences, the bags of the walks (the exact values its enumeration will meet: a sample) and
    the CPU seconds of one run of the mechanism (their mean)."""

    sequences: int
    bags: frozenset[Bag]
    seconds: float


def walk_estimate(run: Callable[[random.Random], int], probes: int = PROBES, seed: int = 0
                  ) -> int:
    """Knuth's estimate of the answer sequences of an outcome tree: the mean over `probes`
    random walks (`run(rng)` walks once and returns the product of the branching factors it
    met), rounded up. Unbiased, not a bound; seeded, so the same mechanism gets the same
    estimate. Display and budgeting only: no verdict depends on it."""
    if probes < 1:
        raise ParameterError("probes", probes, "a positive integer")
    rng = random.Random(seed)
    return -(-sum(run(rng) for _ in range(probes)) // probes)


def probe_sequences(
    run: Callable[[NoisyTest], object], probes: int = PROBES,
    max_queries: int = DEFAULT_MAX_QUERIES, seed: int = 0,
) -> Probe:
    """`probes` random walks down the outcome tree of `run` (`ProbeTest`): Knuth's estimate of
    the number of answer sequences `enumerate_mechanism(run)` will visit (`walk_estimate`), the
    walks' bags and the CPU time of a run. Costs `probes` runs."""
    bags: set[Bag] = set()
    started = time.process_time()

    def once(rng: random.Random) -> int:
        test = ProbeTest(rng, max_queries)
        run(test)
        bags.add(make_bag(test.factors))
        return test.leaves

    sequences = walk_estimate(once, probes, seed)
    return Probe(sequences, frozenset(bags), (time.process_time() - started) / probes)


def estimate_sequences(
    run: Callable[[NoisyTest], object], probes: int = PROBES,
    max_queries: int = DEFAULT_MAX_QUERIES, seed: int = 0,
) -> int:
    """An estimate of the number of answer sequences `enumerate_mechanism(run)` will visit
    (`probe_sequences`)."""
    return probe_sequences(run, probes, max_queries, seed).sequences


def _mismatch(prefix: Sequence[Outcome], seen: Sequence[BTQuery],
              before: Sequence[BTQuery]) -> str | None:
    """Why replaying `prefix` did not meet the queries the first run met, or None."""
    k = len(prefix)
    if len(seen) < k:
        return (f"replaying the answers {''.join(s.value for s in prefix)} it asked only "
                f"{len(seen)} noisy tests where its earlier run asked {k} (its run depends on "
                f"more than the answers: hidden state or its own randomness)")
    for i in range(k):
        if seen[i] != before[i]:
            return (f"replaying the answers {''.join(s.value for s in prefix)} its noisy test "
                    f"{i} was {seen[i]} where its earlier run asked {before[i]} (its run "
                    f"depends on more than the answers)")
    return None


def _runs(
    run: Callable[[NoisyTest], T], limit: int, max_queries: int = DEFAULT_MAX_QUERIES,
    progress: bool = True, count: int | None = None, reverse: bool = False,
) -> Iterator[tuple[T, Bag, tuple[tuple[object, Outcome], ...], tuple[int, ...]]]:
    stack: list[tuple[tuple[Outcome, ...], tuple[BTQuery, ...]]] = [((), ())]
    done = 0
    started = time.monotonic()
    tracker = current()
    estimate: int | None = count  # exact when the caller counted the answer sequences
    if count is not None and count > limit:
        raise EnumerationBudgetExceeded("limit", limit, 0, count, 0.0,
                                        "the number of answer sequences exceeds the budget",
                                        counted=True)
    try:
        while stack:
            prefix, before = stack.pop()
            test = BranchingTest(prefix, max_queries, reverse)
            output = run(test)
            seen = tuple(test.queries)
            why = _mismatch(prefix, seen, before)
            if why is not None:
                raise MechanismNotReplayable(why)
            stack.extend((branch, seen) for branch in reversed(test.branches))
            done += 1
            if done > limit:
                raise EnumerationBudgetExceeded(
                    "limit", limit, done - 1, None, time.monotonic() - started,
                    f"more than {limit} answer sequences")
            if done == WARMUP and stack:
                probing = time.monotonic()
                if count is None:
                    estimate = estimate_sequences(run, max_queries=max_queries)
                    if estimate > limit:
                        raise EnumerationBudgetExceeded(
                            "limit", limit, done, estimate, time.monotonic() - started,
                            "the estimated number of answer sequences exceeds the budget")
                rate = (probing - started) / done
                about = "" if count is not None else "about "
                if estimate is not None:
                    tracker.afford(rate * (estimate - done),
                                   f"the enumeration of {about}{estimate} answer sequences")
            if done % WARMUP == 0:
                if progress and count is not None:  # exact: counted by the caller
                    tracker.stage(f"{done} answer sequences of {count}", "answer sequences")
                elif progress:
                    tracker.tick(done, estimate, "answer sequences")
                else:
                    tracker.check()
            steps = tuple((q.node, s) for q, s in zip(test.queries, test.given, strict=True))
            yield output, make_bag(test.factors), steps, tuple(test.factors)
    finally:
        tracker.finish("answer sequences")


def enumerate_mechanism(
    run: Callable[[NoisyTest], T], limit: int = DEFAULT_LIMIT,
    max_queries: int = DEFAULT_MAX_QUERIES, progress: bool = True, count: int | None = None,
    reverse: bool = False, structural: bool = False,
) -> Enumeration[T]:
    """Every answer sequence of `run(test)` with its exact probability (as a factor bag).

    Preconditions: `run` is deterministic given the answers of `test` and asks finitely many
    queries on every answer sequence; its only randomness is `test`.
    Checks (the promises every verdict built on the result relies on): every replay of a prefix
    meets the same noisy tests as the run that created it (the mechanism is a function of its
    answers), and the probabilities of all answer sequences sum to exactly 1.
    Cost: `count`, when the caller knows the exact number of answer sequences (a PrivTree
    counts them on its public split tree), is checked against the budget before any run;
    otherwise, after the first `WARMUP` answer sequences, if the enumeration is not finished,
    the whole is estimated (`estimate_sequences`: Knuth's random walks are unbiased, not a
    bound); past `limit` it stops at once, and so it does when the count or estimate, at the
    rate of the first sequences, would pass the time budget of the computation it runs in
    (`betweencut.progress.current()`, `BudgetExceeded`), which it checks every `WARMUP`
    sequences; the count of sequences (a function of the public inputs) goes to that tracker's
    progress (if `progress`). `reverse`: the search explores the outcomes of every noisy test
    in the reverse order (the same law, other runs first: the purity check's second order).
    `structural`: the sum to 1 is checked on the outcome tree's structure
    (`complete_outcome_tree`, proved in its docstring; linear in the answers) instead of by
    expanding every answer sequence's product (`total()`, whose cost grows as `2^k` in the
    number `k` of distinct two-term factors of a sequence: a deep PrivTree path).
    Returns: an `Enumeration` whose bag values sum to exactly 1.
    Raises: `MechanismNotReplayable` if the mechanism breaks either promise;
    `EnumerationBudgetExceeded` (a `ParameterError`) past `limit` answer sequences (or an
    estimate past it), or past `max_queries` noisy tests on one answer sequence.
    """
    if limit < 1:
        raise ParameterError("limit", limit, "a positive integer")
    if max_queries < 1:
        raise ParameterError("max_queries", max_queries, "a positive integer")
    out: Enumeration[T] = Enumeration()
    for output, bag, steps, factors in _runs(run, limit, max_queries, progress, count,
                                             reverse):
        out.leaves.append((output, bag))
        out.steps.append(steps)
        if structural:  # kept only for the structural check (memory: one tuple per leaf)
            out.sequences.append(factors)
    if structural:
        out.sums_to_one()
        return out
    total = out.total()
    if total != ExpPoly.const(1):
        raise MechanismNotReplayable(
            f"the probabilities of its {out.transcripts} answer sequences sum to {total}, not "
            f"exactly 1 (its run depends on more than the answers of its noisy tests)")
    return out
