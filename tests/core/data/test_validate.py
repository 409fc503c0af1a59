"""`betweencut.data.validate.positive_rational`: the one check of "an exact rational > 0" (and
`>= 0`), its table of accepted and refused values, and a scan of the package's source so that
no copy of the check (a `ParameterError` saying "rational > 0" of its own) comes back."""

from __future__ import annotations

import ast
import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from betweencut.data.validate import MAX_EXACT_BITS, positive_rational
from betweencut.errors import ParameterError

ROOT = Path(__file__).resolve().parents[3]
WHY = " (the noise is Lap(1/lam))"

ACCEPTED = [
    # value, text, zero, the Fraction returned
    (1, False, False, Fraction(1)),
    (Fraction(1, 3), False, False, Fraction(1, 3)),
    (np.int64(2), False, False, Fraction(2)),
    ("1/2", True, False, Fraction(1, 2)),
    ("0.1", True, False, Fraction(1, 10)),
    (0, False, True, Fraction(0)),
    ("0", True, True, Fraction(0)),
    (Fraction(0), False, True, Fraction(0)),
]

REFUSED = [
    # value, text, zero, a piece of the message past the allowed range ("" if none)
    (True, False, False, "an int or a Fraction"),
    (False, False, True, "an int or a Fraction"),
    (0.5, False, False, "a float is not an exact value"),
    (0.5, True, False, "a float is not an exact value"),
    (math.nan, False, False, "a float is not an exact value"),
    (math.inf, True, True, "a float is not an exact value"),
    (np.float64(2), False, False, "a float is not an exact value"),
    (np.float32(2), False, False, "float32"),
    ("1/2", False, False, "an int or a Fraction"),
    ("abc", True, False, "a rational number"),
    (None, False, False, "an int or a Fraction"),
    (b"1", False, False, "an int or a Fraction"),
    ([1], False, False, "a rational number"),
    (Fraction(1, 2 ** (MAX_EXACT_BITS + 1)), False, False, "bits"),
    (0, False, False, ""),
    (Fraction(0), False, False, ""),
    ("0", True, False, ""),
    (-1, False, False, ""),
    (-1, False, True, ""),
    (Fraction(-1, 3), False, True, ""),
    ("-1/3", True, True, ""),
]


@pytest.mark.parametrize(("value", "text", "zero", "expected"), ACCEPTED,
                         ids=[f"{v!r}-text={t}-zero={z}" for v, t, z, _ in ACCEPTED])
def test_positive_rational_accepts_exact_values_in_range(
        value: object, text: bool, zero: bool, expected: Fraction) -> None:
    got = positive_rational(value, "lam", WHY, text=text, zero=zero)
    assert got == expected
    assert type(got) is Fraction and type(got.numerator) is int


@pytest.mark.parametrize(("value", "text", "zero", "detail"), REFUSED,
                         ids=[f"{v!r}-text={t}-zero={z}"[:60] for v, t, z, _ in REFUSED])
def test_positive_rational_refuses_with_the_range_and_the_reason(
        value: object, text: bool, zero: bool, detail: str) -> None:
    with pytest.raises(ParameterError) as caught:
        positive_rational(value, "lam", WHY, text=text, zero=zero)
    error = caught.value
    assert error.name == "lam"
    message = str(error)
    assert message.startswith("lam=")
    if detail != "bits":  # too many bits: the size is the range that was broken
        relation = ">= 0" if zero else "> 0"
        assert error.allowed == f"an exact rational {relation}{WHY}", message
    assert detail in message


def test_positive_rational_quotes_text_it_does_not_read() -> None:
    """`"15"` refused as text must not read as the number 15 in the message."""
    with pytest.raises(ParameterError, match=r"lam='15' is not allowed"):
        positive_rational("15", "lam")


# "a rational > 0", "an exact rational eps >= 0 (...)", "a rational sigma^2 > 0"...
COPY = re.compile(r"rational\b[^()]*?>=? ?0(?![\d/.])")


def _message_texts(call: ast.Call) -> str:
    """The string constants of a `ParameterError(name, value, allowed, why)` call's message."""
    parts = [*call.args[2:], *(k.value for k in call.keywords)]
    return " ".join(node.value for part in parts for node in ast.walk(part)
                    if isinstance(node, ast.Constant) and isinstance(node.value, str))


def copies_of_the_check(root: Path) -> list[str]:
    """`file:line` of every `ParameterError(...)` under `root`'s `core/` and `proofs/` whose
    message says "rational > 0" (or `>= 0`, or names the value between) outside `validate.py`."""
    found = []
    for folder in ("core", "proofs"):
        for path in sorted((root / folder).rglob("*.py")):
            if path == root / "core" / "data" / "validate.py":
                continue
            source = path.read_text(encoding="utf-8")
            if "ParameterError" not in source:
                continue
            lines = []
            for node in ast.walk(ast.parse(source)):
                if not isinstance(node, ast.Call):
                    continue
                func = node.func
                called = func.id if isinstance(func, ast.Name) else (
                    func.attr if isinstance(func, ast.Attribute) else "")
                if called == "ParameterError" and COPY.search(_message_texts(node)):
                    lines.append(node.lineno)
            found += [f"{path.relative_to(root).as_posix()}:{line}" for line in sorted(lines)]
    return found


def test_no_copy_of_the_positive_rational_check() -> None:
    copies = copies_of_the_check(ROOT)
    assert copies == [], ("a ParameterError saying 'rational > 0' of its own: use "
                          f"betweencut.data.validate.positive_rational at {', '.join(copies)}")


def test_the_scan_finds_a_copy(tmp_path: Path) -> None:
    """The scan can fail: a planted copy is found, with its file and line."""
    planted = tmp_path / "core" / "noise" / "planted.py"
    planted.parent.mkdir(parents=True)
    planted.write_text("from betweencut.errors import ParameterError\n\n\n"
                       "def f(x):\n"
                       "    if x <= 0:\n"
                       "        raise ParameterError('x', x, 'a rational x > 0')\n"
                       "    raise errors.ParameterError('y', x, f'an exact rational >= 0{x}')\n")
    assert copies_of_the_check(tmp_path) == ["core/noise/planted.py:6",
                                             "core/noise/planted.py:7"]
