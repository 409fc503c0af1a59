"""Numerical tree counting (Appendix E): Theorem E.1 as a property of every run."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from betweencut.baselines.tree_counting import (
    CountingSchedule,
    alpha_for_rho,
    theorem_e1_violations,
    tree_counting,
)
from betweencut.data.tree import kary_tree
from betweencut.errors import ParameterError
from betweencut.noise.bt_sampler import ExactSampler
from betweencut.noise.noisy_test import BTQuery, Outcome

SCHEDULE = CountingSchedule.of(3, alpha_for_rho("5/6"), 1, "99/1000")


class ArbitraryAnswers:
    """A NoisyTest answering anything (Theorem E.1 holds with probability one, so on every
    answer sequence)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def __call__(self, query: BTQuery) -> Outcome:
        return self.rng.choice([Outcome.L, Outcome.B, Outcome.H])


def test_schedule_eq_133_135() -> None:
    s = SCHEDULE
    assert s.alpha == Fraction(22, 25) and s.rho == Fraction(5, 6) and s.p == Fraction(1, 6)
    assert s.gamma == Fraction(11, 100) and s.g == Fraction(36, 25)
    assert s.theta(3) == s.theta1 * Fraction(36, 25) ** 2
    assert s.epsilon_j(2) == Fraction(1, 6) * Fraction(5, 6)
    # Eq. (136): the budgets of any number of rounds sum to less than eps, delta
    assert sum(s.epsilon_j(j) for j in range(1, 60)) < 1
    assert sum(s.delta_j(j) for j in range(1, 60)) < Fraction(99, 1000)


def test_schedule_refuses_irrational_rho_and_bad_ranges() -> None:
    with pytest.raises(ParameterError, match="rational square"):
        CountingSchedule.of(3, "1/2", 1, "1/20")
    with pytest.raises(ParameterError):
        CountingSchedule.of(2, alpha_for_rho("8/9"), 1, "1/20")  # Theorem E.1: h >= 3
    with pytest.raises(ParameterError):
        CountingSchedule.of(3, alpha_for_rho("8/9"), 2, "1/20")


@settings(max_examples=8, deadline=None)
@given(
    sizes=st.tuples(*[st.integers(0, 25_000)] * 4),
    seed=st.integers(0, 2**32),
    adversarial=st.booleans(),
)
def test_theorem_e_1_counting_property(sizes: tuple[int, int, int, int], seed: int,
                                       adversarial: bool) -> None:
    leaves = [leaf for leaf, n in zip([(0, 0), (0, 1), (1, 0), (1, 1)], sizes, strict=True)
              for _ in range(n)]
    test = ArbitraryAnswers(seed) if adversarial else ExactSampler(seed=seed)
    run = tree_counting(kary_tree(2, 3), leaves, SCHEDULE, test)
    assert theorem_e1_violations(run, leaves) == []
    assert not leaves or run.first_light[()] == run.rounds


def test_theorem_e_1_sparse_equals_property() -> None:
    leaves = [(0, 0)] * 30_000 + [(0, 1)] * 12_000 + [(1, 1)] * 3_000
    run = tree_counting(kary_tree(2, 3), leaves, SCHEDULE, ExactSampler(seed=5), sparse=True)
    assert run.rounds >= 2 and theorem_e1_violations(run, leaves) == []


def test_theorem_e_1_checker_rejects_a_broken_estimate() -> None:
    leaves = [(0, 0)] * 30_000
    run = tree_counting(kary_tree(2, 3), leaves, SCHEDULE, ExactSampler(seed=1))
    run.estimates[(0, 0)] = Fraction(0)  # a wrong estimate for a count far above B
    assert theorem_e1_violations(run, leaves) != []
