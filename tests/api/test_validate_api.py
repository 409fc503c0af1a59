"""Bad input at the API (issue 18): refused up front with the package's errors, never placed
silently, never an AttributeError/TypeError/IndexError/KeyError, never a hang or a huge message."""

from __future__ import annotations

import io
import math
from fractions import Fraction

import pytest
from mpmath import iv

from betweencut.data.tree import kary_tree, prefix_tree
from betweencut.data.validate import MAX_LINE_BYTES, exact_value, number_text, text_lines
from betweencut.errors import ParameterError, RecordError, shown
from betweencut.mechanism.betweencut import between_cut
from betweencut.mechanism.calibration import calibrate, residual_calls
from betweencut.mechanism.guarded_bt import GuardedBT
from betweencut.mechanism.params import Params
from betweencut.mechanism.sparse import sparse_between_cut
from betweencut.noise.noisy_test import BTQuery, Outcome
from betweencut.numbers.exact import LogReal, iv_precision

BINARY = kary_tree(2, 4)


def _sparse_params() -> Params:
    cal = calibrate(4, 1, Fraction(1, 20))
    return cal.params(cal.E.ceil())


def _dense_params() -> Params:
    return calibrate(4, 1, Fraction(1, 20)).params(1)


@pytest.mark.parametrize("records", [
    [(0, 2, 0)] * 60,  # index 2 on a binary tree: was placed at (1, 0, 0)
    [(0, 0, 5)], [(0, -1, 0)], [(1,)],  # out of range, negative, an internal node
    [(0, 0, 0, 0)], ["0/0/0"], [(0.0, 0, 0)], [(True, 0, 0)], [None],
])
def test_records_off_the_public_tree_are_refused_by_sparse_and_dense(records: list[object]) -> None:
    with pytest.raises(RecordError, match="line 1"):
        sparse_between_cut(BINARY, records, _sparse_params())  # type: ignore[arg-type]
    with pytest.raises(RecordError, match="line 1"):
        between_cut(BINARY, records, _dense_params())  # type: ignore[arg-type]


def test_a_bad_record_is_named_by_its_position() -> None:
    with pytest.raises(RecordError, match="line 3"):
        between_cut(BINARY, [(0, 0, 0), (1, 1, 1), (0, 0, 2)], _dense_params())


def test_valid_records_still_run() -> None:
    run = sparse_between_cut(BINARY, [(0, 0, 1)] * 40, _sparse_params())
    assert () in run.heavy


@pytest.mark.parametrize("call", [
    lambda: between_cut(None, [], _dense_params()),  # type: ignore[arg-type]
    lambda: between_cut(BINARY, [], None),  # type: ignore[arg-type]
    lambda: sparse_between_cut(BINARY, [], "params"),  # type: ignore[arg-type]
    lambda: between_cut(BINARY, [], _dense_params(), test=5),  # type: ignore[arg-type]
    lambda: prefix_tree([1, 2], 4),  # type: ignore[list-item]
    lambda: prefix_tree("ab", 4),
    lambda: kary_tree(10**9, 3),
    lambda: GuardedBT.of(Fraction(3), Fraction(1), LogReal.of(1), Fraction(1)),  # a > b
    lambda: GuardedBT.of(Fraction(1), Fraction(3), -5, Fraction(1)),  # R = -5
    lambda: GuardedBT.of(Fraction(1), Fraction(3), 1, 0),  # lam = 0
    lambda: Params.of(1, "1e-999999999", 2),
    lambda: calibrate(15, 1, "1e-10000"),
    lambda: calibrate(0, 1, "0.05"),
])
def test_api_misuse_raises_the_packages_errors(call: object) -> None:
    with pytest.raises(ParameterError) as info:
        call()  # type: ignore[operator]
    assert len(str(info.value)) < 400 and "\n" not in str(info.value)


@pytest.mark.parametrize("answer", ["X", None, 3])
def test_a_noisy_test_answering_nonsense_is_refused(answer: object) -> None:
    def test(query: BTQuery) -> Outcome:
        return answer  # type: ignore[return-value]

    records = [(0, 0, 1)] * 3
    with pytest.raises(ParameterError, match="test"):
        between_cut(BINARY, records, _dense_params(), test)
    cal = calibrate(4, 1, Fraction(1, 20))
    at_band = cal.params(cal.E.ceil())  # tau >= E, counts in the noisy band of the root
    with pytest.raises(ParameterError, match="test"):
        sparse_between_cut(BINARY, [(0, 0, 1)] * int(at_band.tau), at_band, test)


def test_errors_stay_one_short_line_for_huge_values_and_newlines() -> None:
    huge = ParameterError("delta", Fraction(1, 10**10000), "0 < delta < 1/10")
    assert len(str(huge)) < 200 and "digits" in str(huge)
    beyond = ParameterError("x", 10**20000, "small")  # past Python's 4300-digit str() limit
    assert "digits" in str(beyond) and len(str(beyond)) < 200
    assert "\n" not in ParameterError("name", "a\nb", "no newlines").args[0]
    assert shown("x" * 5000).endswith("(5000 characters)")


def test_number_text_refuses_before_building() -> None:
    for text in ("1e999999999", "1e-100000", "9" * 500):
        with pytest.raises(ParameterError):
            number_text(text, "x")
    assert number_text("1e-3", "x") == Fraction(1, 1000)
    with pytest.raises(ParameterError, match="bits"):
        exact_value(Fraction(1, 2**5000), "delta")


def test_interval_precision_is_restored_after_a_failing_call() -> None:
    """mpmath's global interval precision is restored on every exit path (issue 18)."""
    before = iv.prec
    with pytest.raises(ZeroDivisionError), iv_precision(300):
        raise ZeroDivisionError
    assert iv.prec == before
    calibrate(15, "1e-400", "0.05").as_json()  # an OverflowError before issue 18
    with pytest.raises(ParameterError):
        calibrate(15, 1, "1e-10000")
    assert iv.prec == before
    assert calibrate(15, 1, Fraction(1, 20)).E.exact_str() == "5 + 4*log(80)"


def test_floor_of_a_huge_logreal_is_certified_and_fast() -> None:
    """Rounding a guard cut at tau = 1e100 or eps = 1e-30 used to step by one from a 64-bit
    guess; the floor is now exact at any magnitude."""
    for x in (LogReal(Fraction(10**100) + Fraction(1, 3), Fraction(-4 * 10**30), Fraction(80)),
              LogReal(Fraction(1), Fraction(4 * 10**30), Fraction(80, 1))):
        k = x.floor()
        assert x.compare(k) >= 0 and x.compare(k + 1) < 0
        assert x.ceil() == k + 1


def test_residual_calls_agrees_with_the_direct_loop() -> None:
    """The fast r0 (a float proposes, integers decide) equals the definition's loop."""
    for delta in [Fraction(1, 20), Fraction(1, 10**6), Fraction(3, 7) / 5, Fraction(1, 2**200),
                  Fraction(99, 1000), Fraction(1, 3)]:
        r, power = 0, Fraction(1)
        while power < 2 / delta:
            r, power = r + 1, power * Fraction(5, 4)
        assert residual_calls(delta) == r, delta


def test_text_lines_names_the_line_and_byte_offset() -> None:
    with pytest.raises(RecordError, match=r"line 2: not UTF-8: byte 0xff at byte offset 8"):
        list(text_lines(io.BytesIO(b"0/0/0\n0/\xff/1\n"), "f"))
    with pytest.raises(RecordError, match="line 1: line longer than"):
        list(text_lines(io.BytesIO(b"\0" * (MAX_LINE_BYTES + 10)), "f"))
    assert list(text_lines(io.BytesIO(b"a\nb"), "f")) == ["a\n", "b"]


def test_calibrate_takes_any_height_and_displays_it() -> None:
    """Only L = bit length of h enters (Eq. (14)); the margins' crossover search asks for
    heights far beyond 2^4096, so the API has no height cap (the command line has one)."""
    cal = calibrate(2**20000, 1, "0.05")
    assert cal.L == 20001 and "digits" in str(cal.as_json()["height"])


def test_extreme_accepted_values_display_without_overflow() -> None:
    cal = calibrate(15, "1e-400", "0.05").as_json()
    assert isinstance(cal["w"], str) and cal["w"].startswith("4")
    assert isinstance(cal["E"], str)
    assert math.isfinite(calibrate(15, 1, "0.05").as_json()["E"])


def test_is_leaf_path_closed_form_agrees_with_the_tree_walk() -> None:
    """The uniform trees' closed form for 'is this a leaf' equals the leaves enumerated from
    the public tree, for every tuple of indices in a box around it (fast path vs slow)."""
    import itertools

    from betweencut.data.tree import all_leaves

    for tree in (kary_tree(2, 4), kary_tree(3, 3), kary_tree(1, 3), kary_tree(2, 1),
                 prefix_tree(["a", "b"], 4), prefix_tree(["a", "b", "c"], 3),
                 prefix_tree(["a"], 1)):
        leaves = set(all_leaves(tree))
        k = max([tree.max_arity(d) for d in range(tree.height)] + [1])
        for n in range(tree.height + 1):
            for node in itertools.product(range(-1, k + 1), repeat=n):
                assert tree.is_leaf_path(node) == (node in leaves), (tree.description, node)


def test_btquery_validates_every_new_triple_after_remembering_a_valid_one() -> None:
    """BTQuery skips its comparisons only for the (a, b, lam) it validated last: a valid triple
    asked again is accepted, a new one is checked (and refused if wrong) every time."""
    a, b, lam = Fraction(26), Fraction(34), Fraction(1, 4)
    for count in (0, 30, 99):
        assert BTQuery(Fraction(count), a, b, lam).a is a
    for bad_a, bad_b, bad_lam, name in [(b, a, lam, "a"), (a, b, Fraction(0), "lam"),
                                        (a, b, -lam, "lam")]:
        with pytest.raises(ParameterError, match=name):
            BTQuery(Fraction(30), bad_a, bad_b, bad_lam)
        BTQuery(Fraction(30), a, b, lam)  # remembered again in between
        with pytest.raises(ParameterError, match=name):
            BTQuery(Fraction(30), bad_a, bad_b, bad_lam)
