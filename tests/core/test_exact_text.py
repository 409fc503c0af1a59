"""One grammar for numbers written as text (issue 29, item 3; issue 26's number cases): no text
is evaluated as code, every documented form is read exactly, and a text too large to build is
refused by its length or exponent before any digit is converted."""

from __future__ import annotations

import os
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from betweencut.data.validate import exact_log_real, exact_value, int_text, number_text
from betweencut.errors import ParameterError
from betweencut.mechanism.calibration import calibrate
from betweencut.mechanism.params import Params
from betweencut.numbers.exact import as_rational
from betweencut.numbers.exact_text import MAX_EXPONENT, MAX_NUMBER_TEXT, read_integer, read_rational
from betweencut.proofs.baselines.appendix_e import check_eq130_instance, e_h
from betweencut.proofs.exact.arith import enclose
from betweencut.proofs.exact.symbolic import expr_sign
from betweencut.properties.teaching.exercises import WrongAnswer, as_exact

INJECTIONS = [
    "__import__('os').system('touch x')",
    "exp(__import__('os').system('touch x'))",
    "exec(\"open('x', 'w')\")",
    "().__class__.__bases__[0].__subclasses__()",
    "E.__class__", "lambda: 1", "[1][0]", "1 if 1 else 2", "f'{1}'", "1; 2", "x", "pi",
    "sqrt(2)", "Symbol('x')", "open('x', 'w')", "1 + __builtins__",
]

# every entry point that reads text as a number
READERS = {
    "as_exact": as_exact,
    "number_text": lambda t: number_text(t, "x"),
    "exact_value": lambda t: exact_value(t, "x"),
    "as_rational": lambda t: as_rational(t, "x"),
    "exact_log_real": lambda t: exact_log_real(t, "R"),
    "Params.of R": lambda t: Params.of(1, 1, t),
    "calibrate": lambda t: calibrate(15, t, "1/20"),
    "e_h eps": lambda t: e_h(15, t, "1/20"),
    "e_h delta": lambda t: e_h(15, 1, t),
    "check_eq130_instance": lambda t: check_eq130_instance(15, 1, t),
    "enclose": enclose,
    "expr_sign": expr_sign,
}


@pytest.mark.parametrize("reader", READERS.values(), ids=list(READERS))
@pytest.mark.parametrize("text", INJECTIONS)
def test_no_user_string_is_evaluated(reader: object, text: str, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29: `as_exact` and `e_h` passed text to `sympy.sympify`, which ran
    `__import__('os').system('touch x')`. Every reader refuses it and creates nothing."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises((ParameterError, WrongAnswer)):
        reader(text)  # type: ignore[operator]
    assert os.listdir(tmp_path) == []


def test_as_exact_refuses_the_issue_29_injection_and_creates_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(WrongAnswer, match="unknown name '__import__'"):
        as_exact("__import__('os').system('touch x')")
    assert not (tmp_path / "x").exists()


def test_sympy_objects_are_read_but_other_objects_are_never_sympified(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class Sneaky:
        def __str__(self) -> str:
            return "__import__('os').system('touch x')"

    monkeypatch.chdir(tmp_path)
    for reader in (as_exact, enclose):
        with pytest.raises((WrongAnswer, ParameterError)):
            reader(Sneaky())
    assert os.listdir(tmp_path) == []
    assert as_exact(1 - sympy.exp(-1)) == as_exact("1 - exp(-1)")


@pytest.mark.parametrize(("text", "value"), [
    ("12", Fraction(12)), ("-3", Fraction(-3)), ("+7", Fraction(7)), (" 1/3 ", Fraction(1, 3)),
    ("0.1", Fraction(1, 10)), (".5", Fraction(1, 2)), ("5.", Fraction(5)),
    ("1e-3", Fraction(1, 1000)), ("2.5E+2", Fraction(250)), ("1_000", Fraction(1000)),
    ("1_000.000_1", Fraction(10000001, 10000)), ("1e1_0", Fraction(10**10)),
    ("0.999999999999999999999999", Fraction(10**24 - 1, 10**24)),
    ("2**-10", Fraction(1, 1024)), ("2^10", Fraction(1024)), ("(1 + 2) * 3 / 4", Fraction(9, 4)),
    ("-1/-3", Fraction(1, 3)), ("1 - 1/2 - 1/4", Fraction(1, 4)), ("--1", Fraction(1)),
    ("1" * 130, Fraction(int("1" * 130))),
])
def test_the_documented_forms_are_read_exactly(text: str, value: Fraction) -> None:
    assert read_rational(text, "x") == value
    assert type(read_rational(text, "x").numerator) is int


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(st.one_of(
    st.fractions(max_denominator=10**30).map(str),
    st.decimals(allow_nan=False, allow_infinity=False, places=12).map(str),
    st.integers(-10**40, 10**40).map(lambda n: f"{n:_}"),
    st.integers(-10**40, 10**40).map(str),
))
def test_read_rational_agrees_with_fraction_where_fraction_reads_the_text(text: str) -> None:
    assert read_rational(text, "x") == Fraction(text)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.text(alphabet="0123456789._eE+-*/^()expolgE xyz_'", max_size=40))
def test_any_text_is_a_rational_or_a_parameter_error(text: str) -> None:
    """No other exception (OverflowError, RecursionError, ValueError of int(), ...)."""
    try:
        value = read_rational(text, "x")
    except ParameterError as exc:
        assert exc.name == "x" and "\n" not in str(exc) and len(str(exc)) < 600
    else:
        assert isinstance(value, Fraction)


EXPONENT_BOMBS = [
    "1e99_999_999", "1E99_999_999", "1e+99_999_999", "1e-99_999_999", "1.0e99_999_999",
    "0.1e99_999_999", "1_0e99_999_999", "1e9_9_9_9_9_9_9_9", "1/1e99_999_999", "-1e99_999_999",
    "1e0_099_999_999", "9e99999999", " 1e99_999_999 ", "2**1e99_999_999", "1e9_999_999",
    "1e-9_999_999", f"1e{MAX_EXPONENT + 1}", "exp(1e99_999_999)",
]


@pytest.mark.parametrize("text", EXPONENT_BOMBS)
def test_underscored_and_huge_exponents_are_refused_before_building(text: str) -> None:
    """Issue 26: `--epsilon 1e99_999_999` hung (underscores hid the exponent from the length
    check) and `--delta 1e9_999_999` was refused after 12 s; the exponent is checked on its
    digits now, before anything is converted."""
    with pytest.raises(ParameterError, match=r"exponent|rational"):
        read_rational(text, "epsilon")
    with pytest.raises(WrongAnswer):
        as_exact(text)


@pytest.mark.parametrize("text", [
    "9" * (MAX_NUMBER_TEXT + 1), "2**65", "2**64**2", "(10**64)**64", "1e1000*1e1000*1e1000",
    "1/0", "(((", "1 +", ")", "1 2", "1__0", "1_", "_1", "١٢", "0x10", "1j", "inf", "nan",
])
def test_texts_outside_the_grammar_or_its_limits_are_refused(text: str) -> None:
    with pytest.raises(ParameterError) as info:
        read_rational(text, "x")
    assert info.value.name == "x" and len(str(info.value)) < 600


def test_answers_past_the_term_bound_are_refused() -> None:
    with pytest.raises(WrongAnswer, match="terms"):
        as_exact("(1 + exp(1/3))**64")
    assert as_exact("exp(1/3)**64") == as_exact("exp(64/3)")


EXP_ATOMS = st.one_of(
    st.fractions(max_denominator=20, min_value=-5, max_value=5).map(lambda q: f"({q})"),
    st.fractions(max_denominator=6, min_value=-3, max_value=3).map(lambda q: f"exp({q})"),
    st.just("E"),
)


@st.composite
def exp_texts(draw: st.DrawFn, depth: int = 3) -> str:
    if depth == 0 or draw(st.booleans()):
        return draw(EXP_ATOMS)
    left, right = draw(exp_texts(depth - 1)), draw(exp_texts(depth - 1))
    op = draw(st.sampled_from(["+", "-", "*", "/"]))
    text = f"({left} {op} {right})"
    return f"{text}**{draw(st.integers(-2, 2))}" if draw(st.booleans()) else text


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(exp_texts())
def test_exercise_answers_mean_what_sympy_meant(text: str) -> None:
    """The grammar reads an answer to the same exact number as the sympy reading it replaces
    (`sympify(text, rational=True)`, run here on texts this test wrote, then converted by
    `as_exact`'s own sympy path), or refuses a division by zero where sympy gives `zoo`/`nan`."""
    reference = sympy.sympify(text, rational=True)
    if reference.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        with pytest.raises(WrongAnswer):
            as_exact(text)
        return
    try:
        mine = as_exact(text)
    except WrongAnswer as exc:
        assert "division by zero" in str(exc) or "terms" in str(exc), exc
        return
    assert mine == as_exact(reference)


def test_integer_numerals_are_read_and_bounded_without_converting() -> None:
    assert int_text("1_000", "height", 1, 2**64 - 1) == 1000
    assert int_text(" 12 ", "height", 1, 100) == 12
    for bad in ("1e3", "1.0", "0x10", "1__0", "", "-", "2**3"):
        with pytest.raises(ParameterError):
            read_integer(bad, "height", 1, 10**6)
    with pytest.raises(ParameterError) as info:
        int_text("1" * 130, "height", 1, 2**64 - 1)
    assert "2^64 - 1" in str(info.value) and len(str(info.value)) < 300
    with pytest.raises(ParameterError) as info:
        int_text("9" * 5000, "height", 1, 1 << 4096)
    assert "2^4096" in str(info.value) and len(str(info.value)) < 300


@pytest.mark.parametrize(("h", "eps", "delta"), [(15, 1, "1/20"), (2**20 - 1, "1/3", "1e-6"),
                                                 (1, "0.5", "0.05")])
def test_a_guard_width_as_calibrate_prints_it_reads_back_exactly(h: int, eps: str,
                                                                 delta: str) -> None:
    R = calibrate(h, eps, delta).R
    assert exact_log_real(R.exact_str(), "R") == R
    assert Params.of(1, 1, R.exact_str()).R == R


@pytest.mark.parametrize("text", ["log(2)*log(3)", "exp(1)", "log(-1)", "log(0)",
                                  "1 + log(2) + log(3)", "1/log(2)", "log(log(2))"])
def test_a_guard_width_outside_a_plus_b_log_c_is_refused(text: str) -> None:
    with pytest.raises(ParameterError, match="R"):
        exact_log_real(text, "R")


def test_e_h_reads_exact_numbers_and_refuses_floats() -> None:
    assert e_h(15, "1/2", "1/20") == e_h(15, Fraction(1, 2), sympy.Rational(1, 20))
    assert e_h(15, Decimal("0.5"), "0.05") == e_h(15, Fraction(1, 2), Fraction(1, 20))
    with pytest.raises(ParameterError):
        e_h(15, 0.5, "1/20")
