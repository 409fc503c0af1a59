"""DepO, Alg. 2: the paper's worked example and the permutation property."""

from __future__ import annotations

import pytest

from betweencut.errors import ParameterError
from betweencut.mechanism.depo import depo, depth_order

PAPER_DEPO_0_14 = [7, 11, 13, 14, 12, 9, 10, 8, 3, 5, 6, 4, 1, 2, 0]


def test_alg_2_depo_worked_example_h_15() -> None:
    """The worked value in the paper (Alg. 2): DepO(0, 14)."""
    assert depo(0, 14) == PAPER_DEPO_0_14
    assert depth_order(15) == PAPER_DEPO_0_14


def test_alg_2_depo_small_cases_by_hand() -> None:
    assert depo(1, 0) == []
    assert depth_order(1) == [0]
    assert depth_order(2) == [1, 0]
    assert depth_order(3) == [1, 2, 0]
    assert depth_order(4) == [2, 3, 1, 0]


@pytest.mark.parametrize("h", range(1, 65))
def test_alg_2_depo_is_a_permutation_of_the_levels(h: int) -> None:
    order = depth_order(h)
    assert sorted(order) == list(range(h))


def test_alg_2_depo_subranges_are_permutations() -> None:
    for i in range(0, 20):
        for j in range(i - 1, 40):
            assert sorted(depo(i, j)) == list(range(i, j + 1))


def test_alg_2_depo_head_is_the_middle() -> None:
    """Alg. 2, l. 3: the first level is m = i + floor((j - i + 1)/2)."""
    for h in range(1, 65):
        assert depth_order(h)[0] == h // 2


@pytest.mark.parametrize("bad", [0, -3, True, 2.0, "4"])
def test_alg_2_depo_refuses_bad_height(bad: object) -> None:
    with pytest.raises(ParameterError, match="height"):
        depth_order(bad)  # type: ignore[arg-type]
