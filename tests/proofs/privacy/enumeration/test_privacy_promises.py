"""The enumeration keeps its promises or says why not (issue 12): laws of total exactly 1,
replays that meet the same queries, impossible answer sequences that weigh 0, and a stated
cost with a budget that fires."""

from __future__ import annotations

import io
from fractions import Fraction

import numpy as np
import pytest

from betweencut.data.tree import kary_tree
from betweencut.errors import ParameterError
from betweencut.mechanism.betweencut import BetweenCut, path_counts
from betweencut.mechanism.params import Params
from betweencut.noise.noisy_test import BTQuery, NoisyTest, Outcome
from betweencut.progress import BudgetExceeded, Tracker, tracking
from betweencut.proofs.exact.arith import ExpPoly
from betweencut.proofs.privacy.audit.pairs import audit_pairs
from betweencut.proofs.privacy.claims.setup import betweencut_cache
from betweencut.proofs.privacy.enumeration import transcripts as enum_module
from betweencut.proofs.privacy.enumeration.cache import LawCache
from betweencut.proofs.privacy.enumeration.outcome_tree import weights_total
from betweencut.proofs.privacy.enumeration.pair_classes import IMPOSSIBLE, OutcomeTable, Weights
from betweencut.proofs.privacy.enumeration.transcripts import (
    EnumerationBudgetExceeded,
    MechanismNotReplayable,
    enumerate_mechanism,
    estimate_sequences,
)

HALF = Fraction(1, 2)


def _hidden_state():  # type: ignore[no-untyped-def]
    """Asks a noisy test on its first run only, then releases the exact count."""
    state = {"first": True}

    def run(db: tuple[tuple[int, ...], ...], test: NoisyTest) -> object:
        if state["first"]:
            state["first"] = False
            return test(BTQuery(Fraction(len(db)), Fraction(-1), Fraction(1), HALF))
        return len(db)

    return run


def test_enumeration_refuses_a_mechanism_with_hidden_state() -> None:
    """It used to enumerate to a 'law' of total 2 - e^(-1/2)/2 and get a verdict."""
    hidden = _hidden_state()
    with pytest.raises(MechanismNotReplayable, match="hidden state"):
        enumerate_mechanism(lambda test: hidden((), test))
    run = _hidden_state()
    with pytest.raises(MechanismNotReplayable):
        audit_pairs(run, [((), (0,))], [(Fraction(1), Fraction(0))])


def test_enumeration_refuses_a_replay_that_meets_another_query() -> None:
    calls = [0]

    def run(test: NoisyTest) -> object:
        calls[0] += 1  # the threshold drifts from run to run
        return test(BTQuery(Fraction(0), Fraction(-calls[0]), Fraction(1), HALF))

    with pytest.raises(MechanismNotReplayable, match="noisy test 0 was"):
        enumerate_mechanism(run)


def test_enumeration_refuses_a_law_whose_total_is_not_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The total check itself can fail: with one outcome of BT dropped from the support, every
    replay is consistent but the probabilities sum to less than 1."""
    from betweencut.proofs.laws import factors

    real = factors._support
    monkeypatch.setattr(factors, "_support", lambda key: real(key)[:2])
    monkeypatch.setattr(factors, "_QUERY_IDS", {})

    def run(test: NoisyTest) -> object:
        return test(BTQuery(Fraction(0), Fraction(-1), Fraction(1), HALF))

    with pytest.raises(MechanismNotReplayable, match="not exactly 1"):
        enumerate_mechanism(run)


def test_enumeration_of_alg_3_keeps_its_promises() -> None:
    bc = BetweenCut(kary_tree(2, 3), Params.of(2, HALF, 2))
    out = enumerate_mechanism(lambda test: bc.run([(0, 0)], test))
    assert out.total() == ExpPoly.const(1)


def _tests(n: int):  # type: ignore[no-untyped-def]
    def run(test: NoisyTest) -> object:
        return tuple(test(BTQuery(Fraction(0), Fraction(-1), Fraction(1), HALF, i))
                     for i in range(n))
    return run


def test_enumeration_estimates_its_cost() -> None:
    """Knuth's estimate is exact on a uniform outcome tree: n three-outcome tests, 3^n."""
    assert estimate_sequences(_tests(5)) == 3**5
    assert estimate_sequences(_tests(31)) == 3**31


def test_enumeration_budget_fires_at_once_on_a_huge_tree() -> None:
    """15 and 31 noisy tests (3^15, 3^31 answer sequences) used to run for minutes in silence
    before (or without ever) reaching the limit: the estimate stops them after the warm-up."""
    for n in (15, 31):
        with pytest.raises(EnumerationBudgetExceeded) as info:
            enumerate_mechanism(_tests(n))
        err = info.value
        assert isinstance(err, ParameterError)
        assert err.done == enum_module.WARMUP and err.estimate == 3**n
        assert "stopped after 256 answer sequences" in str(err)


def test_enumeration_budget_fires_on_the_count_too() -> None:
    with pytest.raises(EnumerationBudgetExceeded, match="stopped after 10 answer sequences"):
        enumerate_mechanism(_tests(3), limit=10)


def test_enumeration_budget_fires_on_a_mechanism_that_never_halts() -> None:
    """The depth-first walk answers L first: a loop 'until not L' never completed a run, so
    the per-run limit could never fire."""

    def run(test: NoisyTest) -> object:
        while test(BTQuery(Fraction(0), Fraction(-1), Fraction(1), HALF)) is Outcome.L:
            pass
        return None

    with pytest.raises(EnumerationBudgetExceeded, match="max_queries"):
        enumerate_mechanism(run, max_queries=50)


def test_enumeration_reports_its_public_count_to_the_tracker(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Outside a tracked computation nothing is shown; under a tracker asked to show, the
    answer sequences done and the estimate (public: a function of the mechanism and the public
    database), no time; `progress=False` reports nothing."""
    enumerate_mechanism(_tests(6))
    assert capsys.readouterr().err == ""
    stream = io.StringIO()
    with tracking(Tracker("audit", show=True, stream=stream)) as tracker:
        tracker.last = -10.0
        out = enumerate_mechanism(_tests(6))
    assert out.transcripts == 3**6
    assert "audit: 256 answer sequences of about 729" in stream.getvalue()
    assert " s)" not in stream.getvalue()
    quiet = io.StringIO()
    with tracking(Tracker("audit", show=True, stream=quiet)):
        enumerate_mechanism(_tests(6), progress=False)
    assert quiet.getvalue() == ""


def test_enumeration_keeps_the_time_budget() -> None:
    with tracking(Tracker(budget=1e-9)), pytest.raises(BudgetExceeded, match="answer sequences"):
        enumerate_mechanism(_tests(7))


def test_impossible_answer_sequences_weigh_zero() -> None:
    """On the outcome tree of D = () (tau = 1, lambda = 1, R = 1: H guard from count 3), the
    database with three records at leaf 0/0 is decided H at the root, so every answer sequence
    that answers the root otherwise is impossible: group IMPOSSIBLE, no bag, packed 0, and the
    remaining weights sum to exactly 1."""
    tree, params = kary_tree(2, 3), Params.of(1, 1, 1)
    cache = betweencut_cache(tree, params)
    cache.enumeration(())
    table = OutcomeTable(cache.enumerations[()])
    db = ((0, 0), (0, 0), (0, 0))
    root_decided = {c: cache.law_at(c) for c in (0, 3)}  # type: ignore[attr-defined]
    assert root_decided[3] == {Outcome.H: None}
    weights = Weights.of(table, path_counts(db), cache.law_at)  # type: ignore[attr-defined]
    impossible = weights.group == IMPOSSIBLE
    assert impossible.any() and (~impossible).any()
    assert weights.bags[IMPOSSIBLE] is None
    assert all(weights.bag_of(i) is None for i in np.flatnonzero(impossible).tolist())
    packer = cache.packer  # type: ignore[attr-defined]
    packer.admit([b for b in weights.bags if b is not None], table.transcripts)
    assert weights.packed(packer)[IMPOSSIBLE] == 0
    assert weights_total(weights) == ExpPoly.const(1)
    # the last group is a real bag: reading IMPOSSIBLE as -1 would have weighed it
    assert weights.bags[-1] is not None or len(weights.bags) == 1


def test_user_mechanism_audit_still_works_through_the_checked_enumeration() -> None:
    def run(db: tuple[tuple[int, ...], ...], test: NoisyTest) -> Outcome:
        return test(BTQuery(Fraction(len(db)), HALF, HALF, Fraction(1)))

    cache = LawCache(run)
    verdict = audit_pairs(run, [((), (0,))], [(Fraction(1), Fraction(0))], cache=cache)
    assert verdict.holds


def test_shared_tree_falls_back_when_a_weighed_total_is_not_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The shared path checks the law promise too: a weighed database whose packed total is
    not exactly 1 is compared through direct enumeration instead (same delta)."""
    from betweencut.proofs.privacy.enumeration.pair_classes import AlignedJoint

    tree, params = kary_tree(2, 3), Params.of(2, HALF, 2)
    pair = (((0, 0),), (0, 1))
    honest = betweencut_cache(tree, params).joint(*pair, "transcript")
    assert isinstance(honest, AlignedJoint)
    monkeypatch.setattr(Weights, "packed_total", lambda self, packer: 0)
    broken = betweencut_cache(tree, params).joint(*pair, "transcript")
    assert not isinstance(broken, AlignedJoint)
    assert broken.hockey_stick(HALF).delta == honest.hockey_stick(HALF).delta
