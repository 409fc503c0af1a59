"""Values are checked where they enter (issue 29, item 4; issue 26): `BTQuery` and every
noisy-query primitive convert and check their fields at construction through the converter of
every exact parameter (`betweencut.data.validate.exact_number`), and every sampler's seed is an
integer or bytes."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from betweencut.baselines.full_tree import FullTreeGaussian
from betweencut.baselines.lumberjack import LumberjackStyle, lumberjack_calibrate
from betweencut.data.tree import kary_tree
from betweencut.data.validate import MAX_EXACT_BITS, check_seed, exact_fractions, exact_number
from betweencut.errors import ParameterError
from betweencut.mechanism.classifier import classify
from betweencut.noise.bt_sampler import ExactSampler
from betweencut.noise.noisy_queries import (
    AboveThreshold,
    DrawNoise,
    ExactQuerySampler,
    NoisyMax,
    SharedNoise,
)
from betweencut.noise.noisy_test import BTQuery

F = Fraction
NOT_EXACT = [0.5, math.nan, math.inf, None, True, False, "1/2", b"1", np.float64(0.5),
             np.float32(2), Decimal("NaN"), 1j, [1], object()]


def _shown(value: object) -> str:
    """A test id: the value's repr, but for a bare `object()` (its repr holds its address, which
    differs between pytest-xdist's workers, and they must collect the same ids)."""
    return "object()" if type(value) is object else repr(value)


def test_a_wrapped_uint64_count_is_refused_at_construction() -> None:
    """Issue 29: `ExactSampler(1)(BTQuery(np.uint64(2**64 - 1), 1, 2, 1/2))` drew L 161, H 26,
    B 13 times in 200 (numpy overflowed inside the draw); it must always be H. The query is now
    refused before any draw: a uint64 past 2^63 - 1 is most often a wrapped-around negative."""
    with pytest.raises(ParameterError, match="count") as info:
        BTQuery(np.uint64(2**64 - 1), 1, 2, F(1, 2))  # type: ignore[arg-type]
    assert info.value.name == "count"
    wrapped = np.array([0], dtype=np.uint64) - np.uint64(1)  # how such a value arises
    with pytest.raises(ParameterError, match="count"):
        BTQuery(wrapped[0], 1, 2, F(1, 2))  # type: ignore[arg-type]


@pytest.mark.parametrize("field", ["count", "a", "b", "lam"])
@pytest.mark.parametrize("value", NOT_EXACT, ids=_shown)
def test_bt_query_refuses_inexact_fields_naming_the_field(field: str, value: object) -> None:
    """Issue 26: a float in `BTQuery` failed only at a draw (`AttributeError: 'float' object has
    no attribute 'numerator'`), a string rate as a TypeError of a comparison."""
    fields: dict[str, object] = {"count": 3, "a": 1, "b": 2, "lam": F(1, 2)}
    fields[field] = value
    with pytest.raises(ParameterError) as info:
        BTQuery(**fields)  # type: ignore[arg-type]
    assert info.value.name == field


@pytest.mark.parametrize("value", [
    3, F(3), np.int64(3), np.uint64(3), np.int8(3), sympy.Integer(3), Decimal(3)], ids=repr)
def test_bt_query_converts_exact_numbers_of_other_libraries(value: object) -> None:
    query = BTQuery(value, 1, 2, F(1, 2))  # type: ignore[arg-type]
    assert query == BTQuery(F(3), F(1), F(2), F(1, 2))
    for x in (query.count, query.a, query.b, query.lam):
        assert type(x) is Fraction and type(x.numerator) is int and type(x.denominator) is int


def test_bt_query_converts_python_flint_and_gmpy2_rationals() -> None:
    flint = pytest.importorskip("flint")
    gmpy2 = pytest.importorskip("gmpy2")
    for lam in (flint.fmpq(1, 2), gmpy2.mpq(1, 2), F(gmpy2.mpz(1), gmpy2.mpz(2))):
        query = BTQuery(3, 1, 2, lam)
        assert query.lam == F(1, 2) and type(query.lam.numerator) is int
    with pytest.raises(ParameterError, match="lam"):
        BTQuery(3, 1, 2, flint.arb(0.5))  # type: ignore[arg-type]


def test_bt_query_checks_sizes_order_and_band() -> None:
    with pytest.raises(ParameterError, match="bits"):
        BTQuery(F(1, 2**5000), 1, 2, 1)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="a <= b"):
        BTQuery(3, 2, 1, 1)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="lam"):
        BTQuery(3, 1, 2, 0)  # type: ignore[arg-type]
    for band in ((3, 1), (1.0, 2), [1, 2], (1, 2, 3), "12"):
        with pytest.raises(ParameterError, match="band"):
            BTQuery(3, 1, 2, 1, None, band)  # type: ignore[arg-type]


BIG = st.integers(-(2**4100), 2**4100)
FRACTIONS = st.one_of(
    st.fractions(), st.builds(F, BIG, st.integers(1, 2**4100)),
    st.builds(F, st.integers(-(2**64), 2**64), st.integers(1, 2**64)),
)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.lists(FRACTIONS, min_size=1, max_size=4))
def test_the_hot_path_test_answers_to_the_converter(values: list[Fraction]) -> None:
    """`exact_fractions` (one `bit_length` for all parts) says True exactly when the converter
    would return every value unchanged; near and past `MAX_EXACT_BITS` included."""
    def unchanged(q: Fraction) -> bool:
        try:
            return exact_number(q, "x") is q
        except ParameterError:
            return False

    assert exact_fractions(*values) == all(unchanged(q) for q in values)
    edge = F(2**MAX_EXACT_BITS - 1, 3)
    assert exact_fractions(edge, F(1)) and not exact_fractions(F(2**MAX_EXACT_BITS), F(1))
    assert not exact_fractions(F(1), 1)


def test_noisy_query_primitives_refuse_inexact_fields_naming_them() -> None:
    big = np.uint64(2**64 - 1)
    cases = [
        (lambda: DrawNoise(0.5), "scale"),  # type: ignore[arg-type]
        (lambda: DrawNoise(None), "scale"),  # type: ignore[arg-type]
        (lambda: AboveThreshold(big, 1, 1), "count"),  # type: ignore[arg-type]
        (lambda: AboveThreshold(1, math.nan, 1), "threshold"),  # type: ignore[arg-type]
        (lambda: AboveThreshold(1, 1, True), "scale"),  # type: ignore[arg-type]
        (lambda: NoisyMax((F(1), 2.5), 1), "counts[1]"),  # type: ignore[arg-type]
        (lambda: NoisyMax((big,), 1), "counts[0]"),  # type: ignore[arg-type]
        (lambda: NoisyMax((1,), "1"), "scale"),  # type: ignore[arg-type]
        (lambda: SharedNoise(0, 0.5), "scale"),  # type: ignore[arg-type]
        (lambda: SharedNoise(True, 1), "ident"),  # type: ignore[arg-type]
    ]
    for make, name in cases:
        with pytest.raises(ParameterError) as info:
            make()
        assert info.value.name == name
    query = AboveThreshold(np.int64(3), sympy.Rational(1, 2), Decimal("0.5"))  # type: ignore[arg-type]
    assert (query.count, query.threshold, query.scale) == (F(3), F(1, 2), F(1, 2))
    assert type(query.count.numerator) is int


BAD_SEEDS = [1.5, math.nan, True, -1, "1", 2**5000, b"x" * 513, np.float64(1), None.__class__]


@pytest.mark.parametrize("seed", BAD_SEEDS, ids=repr)
def test_every_sampler_refuses_a_seed_that_is_not_an_integer_or_bytes(seed: object) -> None:
    """Issue 29: `ExactSampler(seed=...)` accepted float, NaN and bool seeds."""
    cal = lumberjack_calibrate(4, 1, "1/20")
    makers = [
        lambda: ExactSampler(seed),  # type: ignore[arg-type]
        lambda: ExactQuerySampler(seed),  # type: ignore[arg-type]
        lambda: classify(kary_tree(2, 4), [], tau=10, epsilon=1, delta="1/20",
                         seed=seed),  # type: ignore[arg-type]
        lambda: LumberjackStyle(kary_tree(2, 4), 10, cal, allow_float_gaussian=True,
                                seed=seed),  # type: ignore[arg-type]
        lambda: FullTreeGaussian.of(10, "1/2", "1/20", 4).run(
            kary_tree(2, 4), [], allow_float_gaussian=True, seed=seed),  # type: ignore[arg-type]
    ]
    for make in makers:
        with pytest.raises(ParameterError, match="seed"):
            make()


def test_integer_and_bytes_seeds_reproduce_their_draws() -> None:
    query = BTQuery(3, 1, 5, F(1, 2))
    for seed in (0, 7, np.int64(7), b"seed", bytes(64)):
        samplers = (ExactSampler(seed), ExactSampler(seed))  # type: ignore[arg-type]
        runs = [[sampler(query) for _ in range(30)] for sampler in samplers]
        assert runs[0] == runs[1]
    assert check_seed(np.int64(7)) == 7 and type(check_seed(np.int64(7))) is int
    assert check_seed(b"ab") == b"ab" and check_seed(None) is None
