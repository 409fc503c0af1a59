"""Outputs equal only across types (`False == 0`, `Outcome.H == "H"`, `0.0 == -0.0`) are
different releases: an audit must not merge them (it certified a deterministic mechanism that
tells `D` from `D + z` by its output's type as `(0, 0)`-DP)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import pytest

from betweencut import audit_mechanism
from betweencut.boundary.encoding import release_of
from betweencut.errors import ParameterError
from betweencut.noise.noisy_queries import AboveThreshold, DrawNoise, QueryTest
from betweencut.noise.noisy_test import BTQuery, NoisyTest, Outcome
from betweencut.proofs.privacy.enumeration.cache import Database
from betweencut.proofs.privacy.enumeration.shared_noise import enumerate_queries

F = Fraction


@dataclass(frozen=True)
class Release:
    value: object


# (output under D = {}, output under D + z): equal as Python values, told apart by their types
TYPED = {
    "bool vs int": (False, 0),
    "str vs Outcome": ("H", Outcome.H),
    "-0.0 vs 0.0": (-0.0, 0.0),
    "int vs Fraction": (1, F(1)),
    "list of bool vs of int": ([False], [0]),
    "tuple of bool vs of int": ((0, False), (0, 0)),
    "nested tuple of bool vs of int": ((0, (1, (False,))), (0, (1, (0,)))),
    "set of bool vs of int": (frozenset({True}), frozenset({1})),
    "dataclass field": (Release(False), Release(0)),
}


@pytest.mark.parametrize("name", sorted(TYPED))
def test_outputs_equal_only_across_types_are_different_releases(name: str) -> None:
    on_empty, on_one = TYPED[name]

    def typed(db: Database, test: NoisyTest) -> object:
        return on_empty if not db else on_one

    # independently: each database releases one output with probability 1, and the two outputs
    # differ (by type), so P_D(S) = 1, P_D+z(S) = 0 for S = {on_empty}: delta(0) = 1
    assert type(on_empty) is not type(on_one) or repr(on_empty) != repr(on_one)
    verdict = audit_mechanism(typed, [((), "0")], height=2, epsilon=0, delta=F(1, 2))
    assert not verdict.holds
    assert verdict.refutation is not None and verdict.rows[0].delta == 1


def test_a_noisy_answer_released_as_int_or_bool_is_not_merged() -> None:
    """One BT(|D|; 0, 0, 1) test; `H` released as `1` under `D = {}` and as `True` under
    `D + z`. Independently (Lap(1) noise): under `D` the outputs are `0`, `1` with probability
    1/2 each; under `D + z`, `True` with P(Z > -1) = 1 - e^-1/2 and `0` with e^-1/2. `True` is
    impossible under `D`: delta(eps) >= 1 - e^-1/2 = 0.816... at every eps (merged with `1`,
    the two laws are within e^3 of each other: delta(3) = 0)."""

    def typed(db: Database, test: NoisyTest) -> object:
        high = test(BTQuery(F(len(db)), F(0), F(0), F(1))) is Outcome.H
        return (1 if not db else True) if high else 0

    assert 0.81 < 1 - math.exp(-1) / 2 < 0.82
    verdict = audit_mechanism(typed, [((), "0")], height=2, epsilon=3, delta=F(81, 100))
    assert not verdict.holds
    assert audit_mechanism(typed, [((), "0")], height=2, epsilon=3, delta=F(82, 100)).holds


def test_equal_outputs_share_a_key_and_typed_ones_are_told_apart() -> None:
    assert release_of((((0, 1), Outcome.H),)) == release_of((((0, 1), Outcome.H),))
    assert release_of(frozenset({(0,), (1,)})) == release_of(frozenset({(1,), (0,)}))
    assert release_of(False) != release_of(0) and release_of(-0.0) != release_of(0.0)
    assert release_of(Release((1, 2))) == release_of(Release((1, 2)))


def test_shared_noise_outputs_equal_only_across_types_are_two_outputs_of_one_law() -> None:
    def typed(test: QueryTest) -> object:
        rho = test(DrawNoise(F(2)))
        return 0 if test(AboveThreshold(F(0), F(0), F(4), rho)) else False

    law = enumerate_queries(typed)
    assert set(law.values) == {release_of(0), release_of(False)}


def test_an_output_of_a_type_the_encoder_refuses_is_refused_naming_it() -> None:
    class Opaque:
        pass

    def opaque(test: QueryTest) -> object:
        rho = test(DrawNoise(F(2)))
        return Opaque() if test(AboveThreshold(F(0), F(0), F(4), rho)) else 0

    with pytest.raises(ParameterError, match="Opaque"):
        enumerate_queries(opaque)


def test_shared_noise_outputs_equal_only_across_types_are_different_releases() -> None:
    def typed(db: Database, test: QueryTest) -> object:
        rho = test(DrawNoise(F(2)))
        above = test(AboveThreshold(F(len(db)), F(0), F(4), rho))
        return (0 if not db else False) if above else None

    # independently: the output `0` has probability P(above) > 0 under D only, so
    # delta(eps) >= P_D(0) > 0 at every eps; claimed (5, 0)
    verdict = audit_mechanism(typed, [((), "0")], height=2, epsilon=5, delta=0)
    assert not verdict.holds
