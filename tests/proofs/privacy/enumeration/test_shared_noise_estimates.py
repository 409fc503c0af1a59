"""Issue 27, item 1: cost estimates and progress for long shared-noise runs. The enumeration of
a shared-noise mechanism (`answer_sequences`) and the symbolic run of the every-input reduction
(`symbolic_outcomes`) estimate their answer sequences by Knuth's random walks of the real code
after their first `WARMUP`, show `k of about N`, and refuse at once a run whose projected time
passes what is left of the time budget. The estimates are checked against the exact counts."""

from __future__ import annotations

import random
from collections.abc import Hashable
from fractions import Fraction

import pytest

from betweencut.errors import ParameterError
from betweencut.noise.noisy_queries import AboveThreshold, NoisyMax, QueryTest
from betweencut.progress import BudgetExceeded, Tracker, tracking
from betweencut.proofs.baselines.corpus_checks.corpus import CORPUS
from betweencut.proofs.privacy.enumeration.every_input import (
    estimate_symbolic_sequences,
    symbolic_outcomes,
)
from betweencut.proofs.privacy.enumeration.shared_noise import (
    answer_sequences,
    estimate_query_sequences,
)
from betweencut.proofs.privacy.enumeration.transcripts import walk_estimate

ROWS = {row.name: row for row in CORPUS}


def _exact(run: object) -> int:
    return sum(1 for _ in answer_sequences(run))  # type: ignore[arg-type]


def _uneven(db: object, test: QueryTest) -> Hashable:
    """A lopsided outcome tree: a noisy max of 3, then 0, 1 or 4 more comparisons."""
    first = test(NoisyMax((Fraction(0), Fraction(1), Fraction(2)), Fraction(1)))
    out: list[bool] = []
    for _ in range((0, 1, 4)[first]):
        out.append(test(AboveThreshold(Fraction(0), Fraction(1), Fraction(1))))
    return first, tuple(out)


@pytest.mark.parametrize("name", ["svt-alg5", "noisy-max", "svt-alg4"])
def test_walk_estimate_is_exact_on_a_uniform_outcome_tree(name: str) -> None:
    """Every walk of a tree whose every leaf has the same branching product sees the count:
    svt-alg5 at m = 6 has 2^6 answer sequences, noisy max m of them."""
    run = ROWS[name].mechanism(6)
    exact = _exact(lambda test: run((), test))
    estimate = estimate_query_sequences(lambda test: run((), test))
    if name == "svt-alg4":  # cutoff c: not uniform; Knuth's estimate is unbiased, not exact
        assert exact / 4 <= estimate <= exact * 4, (estimate, exact)
    else:
        assert estimate == exact, (estimate, exact)


def test_walk_estimate_is_unbiased_on_a_lopsided_tree() -> None:
    """Leaves 1 + 2 + 16 = 19; each walk sees 3, 6 or 48: their mean over many seeds is 19."""
    assert _exact(lambda test: _uneven((), test)) == 19
    estimates = [walk_estimate(_walk_once, probes=1, seed=s) for s in range(3000)]
    assert set(estimates) == {3, 6, 48}
    assert abs(sum(estimates) / len(estimates) - 19) < 1.5


def _walk_once(rng: random.Random) -> int:
    from betweencut.proofs.privacy.enumeration.shared_noise import WalkingQueries

    test = WalkingQueries(rng)
    _uneven((), test)
    return test.leaves


def test_symbolic_run_estimate_matches_its_count() -> None:
    row = ROWS["svt-alg5"]
    exact = sum(1 for _ in symbolic_outcomes(row.make(10), 10))
    assert exact == 1 << 10
    assert estimate_symbolic_sequences(row.make(10), 10) == exact


def test_shared_noise_enumeration_refuses_up_front_past_the_budget() -> None:
    """svt-alg5 at m = 16 (65,536 answer sequences, 256 times its first `WARMUP`) under a
    budget of half a second: refused after its first sequences, naming the estimate, not after
    running to the budget (whose check comes later, its alarm a second past it)."""
    run = ROWS["svt-alg5"].mechanism(16)
    tracker = Tracker(budget=0.5)
    with tracking(tracker), pytest.raises(BudgetExceeded,
                                          match="enumeration of about 65536 answer sequences"):
        for _ in answer_sequences(lambda test: run((), test)):
            pass


def test_shared_noise_enumeration_refuses_an_estimate_past_its_limit() -> None:
    run = ROWS["svt-alg5"].mechanism(14)
    with pytest.raises(ParameterError, match="about 16384, estimated"):
        for _ in answer_sequences(lambda test: run((), test), limit=1000):
            pass


def test_symbolic_run_refuses_up_front_past_the_budget() -> None:
    tracker = Tracker(budget=0.5)
    with tracking(tracker), pytest.raises(
            BudgetExceeded, match="symbolic run of about 65536 answer sequences"):
        for _ in symbolic_outcomes(ROWS["svt-alg5"].make(16), 16):
            pass


def test_symbolic_run_progress_hears_the_estimate() -> None:
    heard: list[tuple[int, int | None]] = []
    for _ in symbolic_outcomes(ROWS["svt-alg5"].make(10), 10,
                               progress=lambda n, about: heard.append((n, about))):
        pass
    assert heard[0] == (1, None) and heard[-1] == (1024, 1024)


def _reads_late(q: tuple[Fraction, ...], test: QueryTest) -> Hashable:
    """Nine comparisons, and a read of q[0]'s value when the first is answered False: the
    symbolic run visits the 256 sequences under True first (depth first, True first), so its
    estimate's walks, half of which go False first, meet the read before the run does."""
    answers = tuple(test(AboveThreshold(Fraction(0), Fraction(0), Fraction(1)))
                    for _ in range(9))
    if not answers[0]:
        return q[0] > 0
    return answers


def test_a_walk_that_meets_a_read_of_a_value_refuses_the_reduction() -> None:
    """The estimate's walks run the symbolic run's own branches: a value read there refuses the
    reduction (`ReductionRefused`), as the run itself would, never escapes as `DataDependent`."""
    from betweencut.proofs.privacy.enumeration.every_input import ReductionRefused

    with pytest.raises(ReductionRefused):
        estimate_symbolic_sequences(_reads_late, 1)
    with pytest.raises(ReductionRefused):
        for _ in symbolic_outcomes(_reads_late, 1):
            pass
