"""The field's enumeration kind (`proofs.privacy.enumeration.noise_kind`): the law of the real
code equals the product of the primitives' laws written out here; released values split into
components whose hockey stick matches a window sum with its tails bounded; what cannot be
decided exactly is refused, and a mechanism that is not a function of its answers is caught."""

from __future__ import annotations

from fractions import Fraction as F
from typing import Any

import pytest

from betweencut.errors import ParameterError
from betweencut.noise import (
    Bernoulli,
    ExponentialMechanism,
    Noise,
    NoisyValue,
    RandomizedResponse,
    ReleasedUse,
    UniformChoice,
)
from betweencut.noise.noisy_queries import AboveThreshold
from betweencut.proofs.exact.arith import ExpPoly, ExpRational, sign
from betweencut.proofs.privacy.audit.pairs import audit_pairs
from betweencut.proofs.privacy.divergence.components import ComponentJoint
from betweencut.proofs.privacy.enumeration.cache import LawCache
from betweencut.proofs.privacy.enumeration.noise_kind import NoiseLawCache, enumerate_noise
from betweencut.proofs.privacy.enumeration.transcripts import MechanismNotReplayable


def coin_then_choice(test: Any) -> tuple[bool, int]:
    first = test(Bernoulli(F(1, 3)))
    if first:
        return True, test(UniformChoice(3))
    return False, test(ExponentialMechanism((F(0), F(1)), F(1)))


def test_the_law_is_the_product_of_the_primitives_laws() -> None:
    law = enumerate_noise(coin_then_choice)
    found: dict[Any, ExpRational] = {}
    for output, p, _ in law.sequences:
        found[output] = found.get(output, ExpRational(ExpPoly())) + p
    z = 1 + ExpPoly.exp(1)
    expected = {(True, i): F(1, 9) for i in range(3)}
    assert set(found) == {*expected, (False, 0), (False, 1)}
    for key, value in expected.items():
        assert (found[key] - value).is_zero()
    assert (found[(False, 0)] - ExpRational(ExpPoly.const(F(2, 3)), z)).is_zero()
    assert (found[(False, 1)] - ExpRational(ExpPoly.exp(1, F(2, 3)), z)).is_zero()


def test_a_shared_noise_query_after_a_field_primitive_is_enumerated_too() -> None:
    def run(test: Any) -> tuple[bool, bool]:
        bit = test(RandomizedResponse(True, F(1)))
        return bit, test(AboveThreshold(F(1), F(0), F(1)))  # 1 + Lap(1) >= 0

    law = enumerate_noise(run)
    found = {o: p for o, p, _ in law.sequences}
    above = 1 - ExpPoly.exp(-1, F(1, 2))
    keep = ExpRational(ExpPoly.exp(1), 1 + ExpPoly.exp(1))
    assert (found[(True, True)] - keep * above).is_zero()


def two_counts(db: tuple[tuple[int, ...], ...], test: Any) -> tuple[Any, Any]:
    b = Noise.discrete_laplace(F(1))
    return (test(NoisyValue(len(db), b)),
            test(NoisyValue(sum(1 for r in db if r == (0,)), b)))


def test_discrete_laplace_components_match_a_window_sum_and_its_tail() -> None:
    """`δ(ε)` of `(0, 0)` against `(1, 1)` released with discrete Laplace noise: the sum over
    the window `|y_i| <= W` is within the tails' mass of the component split's exact value."""
    cache = NoiseLawCache(two_counts)
    joint = cache.make_joint((), (0,), "output")
    assert isinstance(joint, ComponentJoint)
    eps = F(3, 2)
    exact = joint.hockey_stick(eps).delta
    window = 12
    q = ExpPoly.exp(-1)
    kappa = ExpRational(1 - q, 1 + q)

    def mass(y: int, c: int) -> ExpRational:
        return kappa * ExpPoly.exp(-F(abs(y - c)))

    total = ExpRational(ExpPoly())
    for y0 in range(-window, window + 1):
        for y1 in range(-window, window + 1):
            excess = mass(y0, 0) * mass(y1, 0) - mass(y0, 1) * mass(y1, 1) * ExpPoly.exp(eps)
            if sign(excess) > 0:
                total = total + excess
    tail = 4 * ExpPoly.exp(-F(window - 1))  # P(|Y| > W - 1) <= 2 e^-(W-1), two coordinates
    assert sign(exact - total) >= 0 and sign(total + tail - exact) >= 0


def test_audit_through_the_kind_switch_equals_the_kind_itself() -> None:
    pairs = [((), (0,)), (((0,),), (1,))]
    direct = audit_pairs(two_counts, pairs, [(F(2), 0), (F(1), F(1, 10))],
                         cache=NoiseLawCache(two_counts))
    switched = audit_pairs(two_counts, pairs, [(F(2), 0), (F(1), F(1, 10))],
                           cache=LawCache(two_counts))
    assert direct.holds == switched.holds
    assert direct.worst is not None and switched.worst is not None
    assert sign(direct.worst.delta - switched.worst.delta) == 0
    curve = LawCache(two_counts).curve((), (0,), "output")  # every part an atom: exact curve
    at = curve.epsilon_at_delta(F(0))
    assert at is not None and at.as_rational() == 2


def test_two_moving_continuous_values_are_refused() -> None:
    def run(db: tuple[tuple[int, ...], ...], test: Any) -> tuple[Any, Any]:
        return (test(NoisyValue(len(db), Noise.laplace(1))),
                test(NoisyValue(2 * len(db), Noise.laplace(1))))

    with pytest.raises(ParameterError, match="at most one released continuous"):
        NoiseLawCache(run).make_joint((), (0,), "output").hockey_stick(F(1))


def test_a_released_value_used_in_the_mechanism_fails_the_audit() -> None:
    def run(db: tuple[tuple[int, ...], ...], test: Any) -> bool:
        return bool(test(NoisyValue(len(db), Noise.laplace(1))) > 0)

    with pytest.raises(ReleasedUse):
        NoiseLawCache(run).make_joint((), (0,), "output")


def test_a_mechanism_with_hidden_state_is_not_replayable() -> None:
    calls = {"n": 0}

    def run(test: Any) -> int:
        calls["n"] += 1
        first = test(Bernoulli(F(1, 2)))
        return int(test(UniformChoice(2 + calls["n"] % 2))) + int(first)

    with pytest.raises(MechanismNotReplayable):
        enumerate_noise(run)
