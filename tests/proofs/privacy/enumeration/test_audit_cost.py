"""The cost of an audit, projected before any work (`betweencut.proofs.privacy.enumeration.cost`,
issue 26): it plans the outcome trees the cache really enumerates, counts the issue's commands
past their budget, and gives no estimate (never a wrong one) where the mechanism's walks fail."""

from __future__ import annotations

from fractions import Fraction

import pytest
from test_privacy_aligned import CASES

from betweencut.data.tree import kary_tree
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.mechanism.params import Params
from betweencut.noise.noisy_queries import AboveThreshold
from betweencut.noise.noisy_test import BTQuery, NoisyTest
from betweencut.progress import BudgetExceeded, Tracker
from betweencut.proofs.privacy.audit.pairs import audit_pairs
from betweencut.proofs.privacy.claims.setup import betweencut_cache
from betweencut.proofs.privacy.enumeration.cache import LawCache, neighbouring_pairs
from betweencut.proofs.privacy.enumeration.cost import audit_cost


@pytest.mark.parametrize("k, h, tau, lam, R", CASES)
def test_audit_cost_plans_the_outcome_trees_the_cache_enumerates(
    k: int, h: int, tau: Fraction, lam: Fraction, R: Fraction
) -> None:
    """Every pair `|D| <= 2`: the trees the estimate plans (without enumerating) are the
    shared outcome trees the cache enumerates when the pairs are audited, one per guard
    pattern (several where the guards fire), and every pair is weighed on one of them."""
    tree = kary_tree(k, h)
    params = Params.of(tau, lam, R)
    pairs = list(neighbouring_pairs(sorted(tree.level(h - 1)), 2))
    cost = audit_cost(betweencut_cache(tree, params), pairs, 1, 1)
    cache = betweencut_cache(tree, params)
    audit_pairs(cache.run, pairs, [(lam, Fraction(1))], on="transcript", cache=cache)
    assert cost is not None and cost.pairs == len(pairs)
    assert cost.trees == len(cache.representatives)  # type: ignore[attr-defined]
    assert cost.comparisons == 2 * len(pairs)  # one point, one release, both directions


def test_audit_cost_counts_the_issue_commands_past_their_budget() -> None:
    """`--height 4 --lam 1/1000 --R 1000 --tau 1000 --exhaustive 2`: 360 pairs weighed on one
    outcome tree of about 16,752 answer sequences (Knuth's estimate; 15,131 enumerated), 3
    points of Theorem 5.4 on 2 releases, exact values of about 700,000 bits (about 24,000
    digits to decode per value): several minutes. The same flags at height 2 are within one."""
    pairs = list(neighbouring_pairs(sorted(kary_tree(2, 4).level(3)), 2))
    params = Params.of(1000, Fraction(1, 1000), 1000)
    cost = audit_cost(betweencut_cache(kary_tree(2, 4), params), pairs, 3, 2)
    assert cost is not None
    assert (cost.pairs, cost.trees, cost.sequences, cost.comparisons) == (360, 1, 16752, 4320)
    assert 600_000 < cost.lattice_bits < 800_000 and cost.seconds > 300
    small = list(neighbouring_pairs(sorted(kary_tree(2, 2).level(1)), 2))
    cheap = audit_cost(betweencut_cache(kary_tree(2, 2), params), small, 2, 2)
    assert cheap is not None and cheap.seconds < 10


def _raises(db: object, test: NoisyTest) -> object:
    test(BTQuery(Fraction(0), Fraction(1), Fraction(3), Fraction(1, 2)))
    raise RuntimeError("the user's bug")


def _shared_noise(db: object, test: NoisyTest) -> object:
    return test(AboveThreshold((Fraction(len(db)),), Fraction(0), Fraction(2)))  # type: ignore[arg-type]


@pytest.mark.parametrize("run", [_raises, _shared_noise])
def test_audit_cost_gives_no_estimate_where_the_walks_fail(run: object) -> None:
    """A mechanism that raises, or asks a shared-noise query this enumeration cannot walk: no
    estimate (None), so the audit meets the failure itself and names the pair."""
    cache = LawCache(run)  # type: ignore[arg-type]
    assert audit_cost(cache, [((), (0,))], 1, 1) is None


def test_audit_cost_keeps_the_budget_while_walking() -> None:
    """The walks run the user's code: the budget of the computation is checked between them."""
    from betweencut.progress import tracking

    tracker = Tracker(budget=1e-9)
    with tracking(tracker), pytest.raises(BudgetExceeded):
        audit_cost(betweencut_cache(kary_tree(2, 3), Params.of(2, Fraction(1, 2), 2)),
                   [((), (0, 0))], 1, 1)


def test_audit_cost_counts_the_curves_a_shortcut_cache_enumerates_again() -> None:
    """A shared-tree cache draws a pair's exact curve from both databases enumerated directly,
    every time: each curve adds two trees; a plain cache reuses its own enumerations."""
    tree, params = kary_tree(2, 3), Params.of(2, Fraction(1, 2), 2)
    pairs = [((), (0, 0)), (((0, 0),), (0, 1))]
    shared = audit_cost(betweencut_cache(tree, params), pairs, 1, 1, curves=pairs)
    mechanism = BetweenCut(tree, params)
    plain = audit_cost(LawCache(lambda db, test: mechanism.run(db, test)), pairs, 1, 1,
                       curves=pairs)
    assert shared is not None and plain is not None
    assert (shared.trees, plain.trees) == (1 + 4, 3)
