"""The shared-noise seam: query validation, replay, and the exact release sampler against the
exact laws (the fast path answers to the slow one)."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest

from betweencut.baselines.svt_corpus import noisy_max, svt_alg1
from betweencut.boundary.encoding import release_of
from betweencut.errors import ParameterError
from betweencut.noise.noisy_queries import (
    AboveThreshold,
    DrawNoise,
    ExactQuerySampler,
    NoisyMax,
    ReplayQueries,
    SharedNoise,
    UnansweredNoisyQuery,
)
from betweencut.proofs.privacy.audit.pairs import display
from betweencut.proofs.privacy.enumeration.shared_noise import enumerate_queries

F = Fraction


def test_queries_validate_their_parameters() -> None:
    with pytest.raises(ParameterError):
        DrawNoise(F(0))
    with pytest.raises(ParameterError):
        AboveThreshold(F(0), F(0), F(-1))
    with pytest.raises(ParameterError):
        AboveThreshold(0.5, F(0), F(1))  # type: ignore[arg-type]  # a float is refused
    with pytest.raises(ParameterError):
        NoisyMax((), F(1))
    with pytest.raises(ParameterError):
        NoisyMax((F(1),), F(0))
    assert AboveThreshold(1, 2, 0).count == F(1)


def test_replay_answers_in_order_and_stops() -> None:
    test = ReplayQueries([True, 1])
    h = test(DrawNoise(F(2)))
    assert h == SharedNoise(0, F(2))
    assert test(AboveThreshold(F(0), F(0), F(1), h)) is True
    assert test(NoisyMax((F(0), F(1)), F(1))) == 1
    with pytest.raises(UnansweredNoisyQuery):
        test(AboveThreshold(F(0), F(0), F(1), h))


def test_sampler_rejects_a_foreign_handle() -> None:
    with pytest.raises(ParameterError):
        ExactQuerySampler(seed=1)(AboveThreshold(F(0), F(0), F(1), SharedNoise(5, F(1))))


def _frequencies_match(run: object, law: dict[object, float], n: int, seed: int) -> None:
    sampler = ExactQuerySampler(seed=seed)
    counts = Counter(release_of(run(sampler)) for _ in range(n))  # type: ignore[operator]
    for output, p in law.items():
        sd = (p * (1 - p) / n) ** 0.5
        assert abs(counts[output] / n - p) <= 5 * sd + 1e-9, (output, counts[output], p)
    assert set(counts) <= set(law)


def test_release_sampler_matches_the_exact_svt_law() -> None:
    q, t = (F(0), F(1), F(-1)), (F(0),) * 3

    def run(test: object) -> object:
        return svt_alg1(q, t, 2, F(1), test)  # type: ignore[arg-type]

    law = {o: display(v) for o, v in enumerate_queries(run).values.items()}
    _frequencies_match(run, law, 1500, seed=7)


def test_release_sampler_matches_the_exact_noisy_max_law() -> None:
    q = (F(0), F(1), F(3, 2))

    def run(test: object) -> object:
        return noisy_max(q, F(1), test)  # type: ignore[arg-type]

    law = {o: display(v) for o, v in enumerate_queries(run).values.items()}
    _frequencies_match(run, law, 1500, seed=11)
