"""Transcript enumeration (issue 4): exact laws of the real mechanism, and the user-code audit."""

from __future__ import annotations

from fractions import Fraction

import pytest

from betweencut.data.tree import kary_tree
from betweencut.errors import ParameterError
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.mechanism.params import Params
from betweencut.noise.noisy_test import BTQuery, NoisyTest, Outcome
from betweencut.proofs.exact.arith import ExpPoly, exact_str
from betweencut.proofs.privacy.audit.pairs import audit_pairs
from betweencut.proofs.privacy.divergence.joint import Joint, Law, epsilon_for_delta
from betweencut.proofs.privacy.enumeration.transcripts import enumerate_mechanism


def test_enumeration_total_is_exactly_one() -> None:
    tree = kary_tree(2, 3)
    bc = BetweenCut(tree, Params.of(2, Fraction(1, 2), 2))
    enum = enumerate_mechanism(lambda test: bc.run([(0, 0), (1, 1)], test))
    assert enum.total() == ExpPoly.const(1)
    assert enum.transcripts == len({run.transcript for run, _ in enum.leaves})
    heavy = enum.law(lambda run: run.heavy)
    total = ExpPoly()
    for value in heavy.values():
        total = total + value
    assert total == ExpPoly.const(1)


def test_guards_cost_no_branching() -> None:
    """tau = 0, lambda = 1, R = 1: a = -1, b = 1, every count >= ceil(b + R) = 2 is guarded H,
    count 0 is noisy; with every leaf holding two records every node is guarded."""
    tree = kary_tree(2, 2)
    bc = BetweenCut(tree, Params.of(0, 1, 1))
    enum = enumerate_mechanism(lambda test: bc.run([(0,), (0,), (1,), (1,)], test))
    assert enum.transcripts == 1
    (run, bag), = enum.leaves
    assert bag == () and run.heavy == frozenset({(), (0,), (1,)})


def test_enumeration_limit_is_a_parameter_error() -> None:
    tree = kary_tree(2, 3)
    bc = BetweenCut(tree, Params.of(2, Fraction(1, 2), 2))
    with pytest.raises(ParameterError):
        enumerate_mechanism(lambda test: bc.run([], test), limit=3)


def _randomized_response(lam: Fraction):  # type: ignore[no-untyped-def]
    """A user mechanism written against the interface: one two-outcome BT on the count."""

    def run(db: tuple[tuple[int, ...], ...], test: NoisyTest) -> Outcome:
        return test(BTQuery(Fraction(len(db)), Fraction(1, 2), Fraction(1, 2), lam))

    return run


def test_audit_user_mechanism_holds_with_exact_margin() -> None:
    """A one-query BT with rate lam is (lam, 0)-DP: the audit holds, margin exactly >= 0."""
    run = _randomized_response(Fraction(1))
    verdict = audit_pairs(run, [((), (0,)), (((0,),), (0,))], [(Fraction(1), Fraction(0))])
    assert verdict.holds and verdict.tightest is not None
    assert verdict.tightest.delta == ExpPoly()


def test_audit_user_mechanism_refuted_with_counterexample() -> None:
    """The same mechanism does not satisfy (lam/2, 0): refuted, with the event and both laws."""
    run = _randomized_response(Fraction(1))
    verdict = audit_pairs(run, [((), (0,))], [(Fraction(1, 2), Fraction(0))])
    assert not verdict.holds and verdict.refutation is not None
    cex = verdict.refutation.counterexample()
    assert cex["D"] == "{}" and cex["z"] == "0"
    assert cex["event_size"] == 1 and cex["excess"] > 0
    # P_{D+z}(H) = 1 - e^{-1/2}/2, P_D(H) = e^{-1/2}/2: the first exceeds e^{1/2} times the second
    stick = verdict.refutation.stick
    assert exact_str(stick.p_event) and stick.delta.sign() > 0


def test_epsilon_for_delta_brackets_the_smallest_epsilon() -> None:
    run = _randomized_response(Fraction(1))
    p = Law(enumerate_mechanism(lambda t: run((), t)).grouped(lambda o: o))
    q = Law(enumerate_mechanism(lambda t: run(((0,),), t)).grouped(lambda o: o))
    joint = Joint(p, q)
    lo, hi = epsilon_for_delta(joint, Fraction(0))  # type: ignore[misc]
    # the largest privacy loss is ln((1 - e^{-1/2}/2) / (e^{-1/2}/2)) = ln(2e^{1/2} - 1)
    worst = ExpPoly.exp(Fraction(1, 2), 2) - 1
    assert (ExpPoly.exp(lo) - worst).sign() < 0 <= (ExpPoly.exp(hi) - worst).sign()
    assert hi - lo <= Fraction(1, 1024)
    assert joint.divergence(hi).delta.sign() <= 0 < joint.divergence(lo).delta.sign()


def test_epsilon_for_delta_takes_an_exact_expression_target() -> None:
    """A claim's `δ` given as an `ExpPoly` (`e^{-2}/8`) is compared exactly: the bracket meets
    the definition at that target, and sits between the brackets of two rationals around it."""
    run = _randomized_response(Fraction(1))
    p = Law(enumerate_mechanism(lambda t: run((), t)).grouped(lambda o: o))
    q = Law(enumerate_mechanism(lambda t: run(((0,),), t)).grouped(lambda o: o))
    joint = Joint(p, q)
    target = ExpPoly.exp(Fraction(-2), Fraction(1, 8))  # 0.0169...
    lo, hi = epsilon_for_delta(joint, target)  # type: ignore[misc]
    delta_at = {eps: joint.divergence(eps).delta - target for eps in (lo, hi)}
    assert delta_at[hi].sign() <= 0 < delta_at[lo].sign()
    below = epsilon_for_delta(joint, Fraction(169, 10000))
    above = epsilon_for_delta(joint, Fraction(17, 1000))
    assert below is not None and above is not None
    assert above[0] <= lo and hi <= below[1]
    with pytest.raises(ParameterError):
        epsilon_for_delta(joint, ExpPoly.exp(Fraction(-2), Fraction(-1, 8)))


@pytest.mark.parametrize("tau, lam, R", [(2, Fraction(1, 2), 2), (0, 1, 1), (1, 1, 1)])
def test_shared_outcome_tree_equals_direct_enumeration(tau: int, lam: Fraction, R: int) -> None:
    """The re-weighted laws (one enumeration per guard pattern) equal the directly enumerated
    laws, factor bag by factor bag, on every database of size <= 3 of the binary tree h = 3."""
    from itertools import combinations_with_replacement

    from betweencut.proofs.privacy.claims.setup import PROJECTIONS, betweencut_cache
    from betweencut.proofs.privacy.enumeration.cache import LawCache

    tree = kary_tree(2, 3)
    params = Params.of(tau, lam, R)
    shared = betweencut_cache(tree, params)
    mechanism = BetweenCut(tree, params)
    direct = LawCache(lambda db, test: mechanism.run(db, test), PROJECTIONS)
    leaves = list(tree.level(2))
    for n in range(4):
        for db in combinations_with_replacement(leaves, n):
            for on in ("transcript", "heavy"):
                assert shared.law(db, on).bags == direct.law(db, on).bags
    assert shared.direct_runs < direct.transcripts  # type: ignore[attr-defined]
