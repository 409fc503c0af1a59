"""Full-tree baselines (Alg. 5): exact Laplace release, gated Gaussian, margins Eq. (27), (30)."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from betweencut.baselines.full_tree import (
    FullTreeGaussian,
    FullTreeLaplace,
    kary_node_count,
    laplace_margin,
    margin_violations,
)
from betweencut.data.tree import kary_tree
from betweencut.errors import ParameterError
from betweencut.mechanism.betweencut import path_counts
from betweencut.noise.bt_sampler import ExactSampler
from betweencut.noise.noisy_test import BTQuery, Outcome, RecordingTest, ReplayTest


def _zipf_leaves(height: int, n: int, seed: int) -> list[tuple[int, ...]]:
    rnd = random.Random(seed)
    return [tuple(0 if rnd.random() < 0.8 else 1 for _ in range(height - 1)) for _ in range(n)]


def test_laplace_queries_are_two_outcome_threshold_tests() -> None:
    m = FullTreeLaplace.of(5, "1/2", 3)
    rec = RecordingTest(ExactSampler(seed=1))
    m.run(kary_tree(2, 3), [(0, 0)] * 4, rec)
    assert len(rec.log) == 7
    for query, outcome in rec.log:
        assert isinstance(query, BTQuery)
        assert query.a == query.b == 5 and query.lam == Fraction(1, 6)
        assert outcome is not Outcome.B


def test_laplace_replayed_b_means_heavy() -> None:
    m = FullTreeLaplace.of(1, 1, 1)
    run = m.run(kary_tree(2, 1), [], ReplayTest([Outcome.B]))
    assert run.heavy == frozenset({()})


@pytest.mark.parametrize("seed", range(5))
def test_laplace_within_margin_on_seeded_runs(seed: int) -> None:
    h, eps, tau, beta = 5, Fraction(1), Fraction(40), Fraction(1, 100)
    tree = kary_tree(2, h)
    leaves = _zipf_leaves(h, 300, seed)
    m = FullTreeLaplace.of(tau, eps, h)
    run = m.run(tree, leaves, ExactSampler(seed=seed))
    margin = m.margin(kary_node_count(2, h), beta)
    worst_h, worst_l = margin_violations(run.heavy, dict(path_counts(leaves)), tree.nodes(), tau)
    assert margin.compare(worst_h) > 0 and margin.compare(worst_l) > 0


def test_laplace_margin_eq_27_by_hand() -> None:
    # h = 3, eps = 1/2, N = 7, beta = 1/20: (3/(1/2))·ln(140) = 6·ln 140.
    e = laplace_margin(3, "1/2", 7, "1/20")
    assert (e.const, e.coeff, e.arg) == (0, 6, 140)
    assert 29.64 < e.approx() < 29.66


def test_gaussian_requires_explicit_opt_in() -> None:
    g = FullTreeGaussian.of(10, "1/2", "1/20", 4)
    with pytest.raises(ParameterError, match="allow_float_gaussian"):
        g.run(kary_tree(2, 4), [])


def test_gaussian_sigma_eq_28_and_range() -> None:
    g = FullTreeGaussian.of(10, "1/2", "1/20", 4)
    # sigma^2 = 2·4·ln(25)/(1/4) = 32 ln 25
    assert abs(g.sigma() ** 2 - 32 * 3.2188758248682006) < 1e-9
    with pytest.raises(ParameterError):
        FullTreeGaussian.of(10, 1, "1/20", 4)  # Eq. (28) needs eps < 1
    with pytest.raises(ParameterError):
        FullTreeGaussian.of(10, "1/2", "1/2", 4)


@pytest.mark.parametrize("seed", range(3))
def test_gaussian_within_margin_on_seeded_runs(seed: int) -> None:
    from betweencut.baselines.margins import MarginSetting

    h, tau = 5, Fraction(60)
    tree = kary_tree(2, h)
    leaves = _zipf_leaves(h, 300, seed)
    g = FullTreeGaussian.of(tau, "1/2", "1/20", h)
    run = g.run(tree, leaves, allow_float_gaussian=True, seed=seed)
    margin = MarginSetting.of("1/2", "1/20", "1/100").gaussian(h)
    from betweencut.numbers.certified import bounds

    lo, _ = bounds(margin)
    worst_h, worst_l = margin_violations(run.heavy, dict(path_counts(leaves)), tree.nodes(), tau)
    assert worst_h < lo and worst_l < lo


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(ParameterError):
        FullTreeLaplace.of(-1, 1, 3)
    with pytest.raises(ParameterError):
        FullTreeLaplace.of(1, 0, 3)
    with pytest.raises(ParameterError):
        laplace_margin(3, 1, 7, 0)
