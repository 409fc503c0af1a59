"""The package's one bisection (`betweencut.numbers.bisection`): the least fitting grid point, a
bracket narrowed to a width, a bounded number of halvings, bad input refused."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from hypothesis import given
from hypothesis import strategies as st

import betweencut.numbers.bisection as bisection
from betweencut.errors import ParameterError


@given(st.integers(0, 10**6), st.integers(1, 10**6))
def test_certified_bisect_finds_the_least_fitting_grid_point(threshold: int, top: int) -> None:
    tested: list[int] = []

    def fits(i: int) -> bool:
        tested.append(i)
        return i >= threshold

    good, bad = bisection.certified_bisect(fits, max(top, threshold), -1,
                                           bisection.grid_midpoint)
    assert good == threshold and bad == threshold - 1
    assert len(tested) <= max(top, threshold).bit_length() + 1


@given(st.fractions(min_value=F(0), max_value=F(10), max_denominator=1000))
def test_certified_bisect_brackets_to_a_width(x: F) -> None:
    good, bad = bisection.certified_bisect(lambda e: e >= x, F(16), F(0), bisection.halving(
        F(1, 1024)))
    assert bad < x <= good or (x == 0 and good <= F(1, 1024))
    assert good - bad <= F(1, 1024)


def test_certified_bisect_stops_after_steps_and_refuses_bad_input() -> None:
    good, bad = bisection.certified_bisect(lambda i: i >= 3, 1000, -1, bisection.grid_midpoint,
                                           steps=2)
    assert (good, bad) == (249, -1)
    with pytest.raises(ParameterError):
        bisection.certified_bisect(lambda i: True, 1, 0, bisection.grid_midpoint, steps=-1)
    with pytest.raises(ParameterError):
        bisection.halving(F(0))
