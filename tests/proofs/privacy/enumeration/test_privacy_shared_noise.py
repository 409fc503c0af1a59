"""Exact enumeration of shared-noise mechanisms, their profiles through `audit_pairs`, and a
user's own SVT-style mechanism audited the same way."""

from __future__ import annotations

from fractions import Fraction

import pytest

from betweencut.baselines.svt_corpus import query_answers, svt_alg5
from betweencut.boundary.encoding import release_of
from betweencut.errors import ParameterError
from betweencut.noise.noisy_queries import AboveThreshold, DrawNoise, QueryTest
from betweencut.proofs.exact.arith import ExpPoly
from betweencut.proofs.laws.noisy_laws import shared_answers_probability
from betweencut.proofs.privacy.audit.pairs import audit_pairs
from betweencut.proofs.privacy.divergence.joint import epsilon_for_delta
from betweencut.proofs.privacy.enumeration.cache import Database
from betweencut.proofs.privacy.enumeration.shared_noise import (
    ExactJoint,
    QueryLawCache,
    enumerate_queries,
    epsilon_at_delta,
    infinite_loss_event,
)
from betweencut.proofs.privacy.enumeration.transcripts import MechanismNotReplayable

F = Fraction


def two_above(db: Database, test: QueryTest) -> tuple[bool, bool]:
    """A user's SVT-style mechanism: one shared draw, two noisy comparisons of the count."""
    q = query_answers(db, 1)[0]
    rho = test(DrawNoise(F(2)))
    first = test(AboveThreshold(q, F(0), F(4), rho))
    second = test(AboveThreshold(q, F(1), F(4), rho))
    return first, second


def test_enumeration_sums_to_one_and_matches_the_direct_integral() -> None:
    law = enumerate_queries(lambda t: two_above(((2,),), t))  # q = 1
    assert law.total() == ExpPoly.const(1) and law.transcripts == 4
    direct = shared_answers_probability(F(2), tuple(sorted([(F(-1), F(4), True),
                                                             (F(0), F(4), False)])))
    assert law.values[release_of((True, False))] == direct


def test_deterministic_comparisons_do_not_branch_and_impossible_sequences_drop() -> None:
    law = enumerate_queries(lambda t: svt_alg5((F(0), F(1)), (F(0), F(0)), F(1), t))
    assert law.total() == ExpPoly.const(1)
    assert (True, False) not in law.values  # q1 < q2 with one ρ: ⊤⊥ has probability 0
    assert len(law.values) == 3


def test_user_mechanism_audited_through_audit_mechanism() -> None:
    pairs = [((), (2,)), ((), (0,)), (((2,),), (2,))]  # moves +1, -1, +1
    # scales 2 and 4 spend 1/2 + 2/4 per comparison pair: eps = 3/2 holds (a loose bound)
    assert audit_pairs(two_above, pairs, [(F(3, 2), F(0))], cache=QueryLawCache(two_above)).holds
    verdict = audit_pairs(two_above, pairs, [(F(1, 10), F(0))],
                          cache=QueryLawCache(two_above))
    assert not verdict.holds and verdict.refutation is not None
    cex = verdict.refutation.counterexample()
    assert {"D", "z", "P", "Q", "event", "excess"} <= set(cex)


def test_epsilon_at_delta_is_certified_by_bisection() -> None:
    cache = QueryLawCache(two_above)
    joint = cache.make_joint((), (2,), "output")
    lo, hi = epsilon_for_delta(joint, F(0), width=F(1, 256)) or (None, None)
    assert lo is not None and hi is not None and 0 < lo < hi <= F(3, 2)
    assert joint.divergence(hi).delta.sign() <= 0 < joint.divergence(lo).delta.sign()


def test_epsilon_at_delta_of_a_user_mechanism_and_of_an_infinite_loss() -> None:
    found = epsilon_at_delta(two_above, (), (2,), F(0), width=F(1, 64))
    assert found is not None and found[1] - found[0] <= F(1, 64)
    alg5 = lambda db, t: svt_alg5(query_answers(db, 2), (F(0), F(0)), F(1), t)  # noqa: E731
    assert epsilon_at_delta(alg5, (), (0, 1), F(0), eps_max=F(8)) is None


def test_infinite_loss_event_is_exact() -> None:
    p = {"a": ExpPoly.const(F(1, 2)), "b": ExpPoly.const(F(1, 2))}
    q = {"a": ExpPoly.const(1)}
    assert infinite_loss_event(ExactJoint(p, q)) == ("b", ExpPoly.const(F(1, 2)), "D||D+z")
    assert infinite_loss_event(ExactJoint(q, q)) is None


def test_enumeration_limit_is_a_parameter_error() -> None:
    with pytest.raises(ParameterError):
        enumerate_queries(lambda t: two_above((), t), limit=2)
    with pytest.raises(ParameterError):
        enumerate_queries(lambda t: two_above((), t), limit=0)


def test_enumeration_refuses_a_mechanism_with_hidden_state() -> None:
    """Issue 12's promise for the shared-noise seam too: a mechanism that asks its noisy test on
    the first run only (then releases the exact answer) is not a function of its answers; the
    enumeration says so instead of handing a 'law' to a verdict."""
    calls = [0]

    def hidden(test: QueryTest) -> bool:
        calls[0] += 1
        if calls[0] == 1:
            return bool(test(AboveThreshold(Fraction(1), Fraction(1), Fraction(1))))
        return True

    with pytest.raises(MechanismNotReplayable, match="not a function of its noisy answers"):
        enumerate_queries(hidden)
