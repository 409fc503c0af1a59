"""Exact numbers written as text: one small grammar, read here and nowhere else, never run.

A parameter, a command-line flag or a student's answer may be text. It is read by this module's
parser, which knows numbers, four operations, integer powers, `exp`, `log` and `E`, and nothing
else: no name is looked up and no code is evaluated (unlike `sympy.sympify`, which runs
`__import__('os').system(...)`). The grammar, with whitespace ignored between tokens:

    expr   := term (('+' | '-') term)*
    term   := factor (('*' | '/') factor)*
    factor := ('+' | '-') factor | power
    power  := atom [('**' | '^') ['+' | '-'] INTEGER]
    atom   := NUMBER | 'E' | ('exp' | 'log') '(' expr ')' | '(' expr ')'
    NUMBER := integer, decimal or scientific: 12, 0.1, .5, 1e-3, 2.5E+7, 1_000 (an underscore
              only between two digits); a rational is a quotient: 1/3

What a text means depends on where it goes (`evaluate` with an `Arithmetic`): a parameter is a
rational (`read_rational`: `exp` and `log` refused), a guard width may be `a + b·log(c)`
(`betweencut.data.validate.exact_log_real`), an exercise answer a quotient of sums of
`exp(rational)` (`betweencut.properties.teaching.exercises.as_exact`).

Limits, checked before anything is built, so no text costs more than a few milliseconds:
at most `MAX_NUMBER_TEXT` characters (counted with the underscores: `1e99_999_999` is refused
for its exponent before any digit is converted), decimal exponents within `MAX_EXPONENT`, powers
within `MAX_POWER`, and every intermediate value within `MAX_EXACT_BITS` bits (numerator and
denominator), checked after each operation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Final, Protocol, TypeVar

from betweencut.errors import ParameterError

__all__ = [
    "MAX_EXACT_BITS", "MAX_EXPONENT", "MAX_NUMBER_TEXT", "MAX_POWER", "RATIONAL", "Arithmetic",
    "Expr", "NotExact", "Rationals", "bound_text", "bounded", "evaluate", "parse",
    "read_integer", "read_rational",
]

MAX_NUMBER_TEXT: Final = 200
MAX_EXPONENT: Final = 1000
MAX_POWER: Final = 64
MAX_EXACT_BITS: Final = 4096

_DIGITS: Final = r"[0-9](?:_?[0-9])*"
_TOKEN = re.compile(
    rf"\s*(?:(?P<num>(?:{_DIGITS}(?:\.(?:{_DIGITS})?)?|\.{_DIGITS})(?:[eE][+-]?{_DIGITS})?)"
    r"|(?P<name>[A-Za-z_]\w*)|(?P<op>\*\*|[-+*/^()]))"
)
_NUMERAL = re.compile(
    rf"(?P<whole>{_DIGITS})?(?:\.(?P<frac>{_DIGITS})?)?(?:[eE](?P<exp>[+-]?{_DIGITS}))?")
_INTEGER = re.compile(rf"\s*(?P<sign>[+-]?)(?P<digits>{_DIGITS})\s*")
NAMES: Final = ("exp", "log", "E")


class NotExact(ValueError):
    """Raised by an `Arithmetic` for a value it does not hold (`exp` of a rational, a value past
    the size bound); `evaluate` reports it as a `ParameterError` naming the parameter."""


# -- the parse tree ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Num:
    value: Fraction


@dataclass(frozen=True, slots=True)
class Call:
    name: str  # "exp" or "log"
    arg: Expr


@dataclass(frozen=True, slots=True)
class Neg:
    arg: Expr


@dataclass(frozen=True, slots=True)
class BinOp:
    op: str  # + - * /
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Pow:
    base: Expr
    k: int


Expr = Num | Call | Neg | BinOp | Pow


class _Refused(Exception):
    """Internal: the text is not in the grammar (`parse` reports it as a `ParameterError`)."""


def _numeral(text: str) -> Fraction:
    """One NUMBER token as an exact rational; the exponent's size is checked on its digits."""
    found = _NUMERAL.fullmatch(text)
    if found is None:  # pragma: no cover - the tokenizer only hands numerals here
        raise _Refused(f"{text!r} is not a number")
    whole = (found["whole"] or "").replace("_", "")
    frac = (found["frac"] or "").replace("_", "")
    exp_text = (found["exp"] or "0").replace("_", "")
    significant = exp_text.lstrip("+-").lstrip("0")  # its length first: int() comes after
    if len(significant) > len(str(MAX_EXPONENT)) or abs(int(exp_text)) > MAX_EXPONENT:
        raise _Refused(f"a decimal exponent between -{MAX_EXPONENT} and {MAX_EXPONENT}")
    shift = int(exp_text) - len(frac)
    mantissa = int(whole + frac or "0")
    return Fraction(mantissa * 10**shift) if shift >= 0 else Fraction(mantissa, 10**-shift)


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    position, end = 0, len(text.rstrip())
    while position < end:
        found = _TOKEN.match(text, position)
        if found is None or found.end() == position:
            raise _Refused(f"cannot read {text[position:position + 12].strip()!r}")
        kind = found.lastgroup or ""
        word = found[kind]
        if kind == "name" and word not in NAMES:
            raise _Refused(f"unknown name {word!r} (only exp, log and E)")
        out.append((kind, word))
        position = found.end()
    return out


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens, self.at = tokens, 0

    def peek(self) -> str:
        return self.tokens[self.at][1] if self.at < len(self.tokens) else ""

    def take(self, word: str) -> bool:
        if self.at < len(self.tokens) and self.tokens[self.at] in (("op", word), ("name", word)):
            self.at += 1
            return True
        return False

    def expect(self, word: str) -> None:
        if not self.take(word):
            raise _Refused(f"expected {word!r}, found {self.peek() or 'the end'!r}")

    def expr(self) -> Expr:
        node = self.term()
        while self.peek() in ("+", "-"):
            op = self.tokens[self.at][1]
            self.at += 1
            node = BinOp(op, node, self.term())
        return node

    def term(self) -> Expr:
        node = self.factor()
        while self.peek() in ("*", "/"):
            op = self.tokens[self.at][1]
            self.at += 1
            node = BinOp(op, node, self.factor())
        return node

    def factor(self) -> Expr:
        if self.take("-"):
            return Neg(self.factor())
        if self.take("+"):
            return self.factor()
        base = self.atom()
        if self.take("**") or self.take("^"):
            sign = -1 if self.take("-") else 1
            if sign == 1:
                self.take("+")
            if self.at >= len(self.tokens) or self.tokens[self.at][0] != "num":
                raise _Refused("a power is an integer such as x**2 or x**-1")
            k = _numeral(self.tokens[self.at][1])
            self.at += 1
            if k.denominator != 1 or k > MAX_POWER:
                raise _Refused(f"a power is an integer between -{MAX_POWER} and {MAX_POWER}")
            return Pow(base, sign * k.numerator)
        return base

    def atom(self) -> Expr:
        if self.at >= len(self.tokens):
            raise _Refused("the text ends where a number was expected")
        kind, word = self.tokens[self.at]
        self.at += 1
        if kind == "num":
            return Num(_numeral(word))
        if word == "E":
            return Call("exp", Num(Fraction(1)))
        if word in ("exp", "log"):
            self.expect("(")
            inner = self.expr()
            self.expect(")")
            return Call(word, inner)
        if word == "(":
            inner = self.expr()
            self.expect(")")
            return inner
        raise _Refused(f"{word!r} where a number was expected")


def parse(text: object, name: str, allowed: str = "a number written as text") -> Expr:
    """The parse tree of `text` (see the module docstring); `ParameterError(name, text,
    allowed)` for anything else, refused by its length before it is read."""
    if not isinstance(text, str):
        raise ParameterError(name, text, allowed)
    if len(text) > MAX_NUMBER_TEXT:
        raise ParameterError(name, text, f"{allowed}, in at most {MAX_NUMBER_TEXT} characters")
    try:
        parser = _Parser(_tokens(text))
        tree = parser.expr()
        if parser.at != len(parser.tokens):
            raise _Refused(f"unexpected {parser.peek()!r}")
    except _Refused as exc:
        raise ParameterError(name, text, allowed, str(exc)) from None
    return tree


# -- meanings -------------------------------------------------------------------------------------
T = TypeVar("T")


class Arithmetic(Protocol[T]):
    """What a parsed text means: each operation returns a value of the domain or raises
    `NotExact` (a form the domain does not hold, or a value past its size bound)."""

    what: str  # what the domain holds, with examples, for error messages

    def number(self, q: Fraction) -> T: ...
    def exp(self, x: T) -> T: ...
    def log(self, x: T) -> T: ...
    def neg(self, x: T) -> T: ...
    def add(self, x: T, y: T) -> T: ...
    def sub(self, x: T, y: T) -> T: ...
    def mul(self, x: T, y: T) -> T: ...
    def div(self, x: T, y: T) -> T: ...


def bounded(q: Fraction) -> Fraction:
    """`q`, or `NotExact` if its numerator or denominator has more than `MAX_EXACT_BITS` bits."""
    if q.numerator.bit_length() > MAX_EXACT_BITS or q.denominator.bit_length() > MAX_EXACT_BITS:
        raise NotExact(f"a rational whose numerator and denominator have at most {MAX_EXACT_BITS} "
                       "bits (about 1233 digits)")
    return q


class Rationals:
    """The rationals: `exp` and `log` are refused (their values are not rational)."""

    what = "a rational number such as 12, 0.1, 1/10 or 1e-3"

    def number(self, q: Fraction) -> Fraction:
        return bounded(q)

    def exp(self, x: Fraction) -> Fraction:
        raise NotExact("exp(...) is not a rational number")

    def log(self, x: Fraction) -> Fraction:
        raise NotExact("log(...) is not a rational number")

    def neg(self, x: Fraction) -> Fraction:
        return -x

    def add(self, x: Fraction, y: Fraction) -> Fraction:
        return bounded(x + y)

    def sub(self, x: Fraction, y: Fraction) -> Fraction:
        return bounded(x - y)

    def mul(self, x: Fraction, y: Fraction) -> Fraction:
        return bounded(x * y)

    def div(self, x: Fraction, y: Fraction) -> Fraction:
        return bounded(x / y)


RATIONAL: Final = Rationals()


def _power(arith: Arithmetic[T], base: T, k: int) -> T:
    """`base**k` by repeated multiplication, each step checked by the arithmetic's bound."""
    out = arith.number(Fraction(1))
    for _ in range(abs(k)):
        out = arith.mul(out, base)
    return arith.div(arith.number(Fraction(1)), out) if k < 0 else out


def _value(tree: Expr, arith: Arithmetic[T]) -> T:
    if isinstance(tree, Num):
        return arith.number(tree.value)
    if isinstance(tree, Neg):
        return arith.neg(_value(tree.arg, arith))
    if isinstance(tree, Call):
        inner = _value(tree.arg, arith)
        return arith.exp(inner) if tree.name == "exp" else arith.log(inner)
    if isinstance(tree, Pow):
        return _power(arith, _value(tree.base, arith), tree.k)
    left, right = _value(tree.left, arith), _value(tree.right, arith)
    if tree.op == "+":
        return arith.add(left, right)
    if tree.op == "-":
        return arith.sub(left, right)
    if tree.op == "*":
        return arith.mul(left, right)
    return arith.div(left, right)


def evaluate(text: object, name: str, arith: Arithmetic[T]) -> T:
    """The value of `text` in `arith`; `ParameterError` naming `name` for a text outside the
    grammar, a division by zero or a form `arith` does not hold."""
    tree = parse(text, name, arith.what)
    try:
        return _value(tree, arith)
    except ZeroDivisionError:
        raise ParameterError(name, text, arith.what, "division by zero") from None
    except NotExact as exc:
        raise ParameterError(name, text, arith.what, str(exc)) from None


def read_rational(text: object, name: str) -> Fraction:
    """A rational parameter written as text: `"0.1"` is 1/10, `"1/3"`, `"1e-3"`, `"2**-10"`."""
    return evaluate(text, name, RATIONAL)


def bound_text(n: int) -> str:
    """An integer bound as a reader would write it: `2^64 - 1`, `2^4096`, digits up to 40,
    `10^50`, or how many digits it has."""
    for offset, suffix in ((0, ""), (1, " - 1")):
        m = n + offset
        if m >= 1 << 20 and m & (m - 1) == 0:
            return f"2^{m.bit_length() - 1}{suffix}"
    if abs(n) < 10**40:
        return str(n)
    text = str(abs(n)) if n.bit_length() < 12000 else ""
    if text and text.rstrip("0") == "1":
        return f"{'-' if n < 0 else ''}10^{len(text) - 1}"
    return f"{'-' if n < 0 else ''}(an integer of {_digit_count(n)} digits)"


def _digit_count(n: int) -> int:
    """The number of decimal digits of `|n|`, or an upper bound past Python's str() limit."""
    bits = abs(n).bit_length()
    return len(str(abs(n))) if bits < 12000 else int(bits * 0.30103) + 2


def read_integer(text: str, name: str, low: int, high: int, what: str = "") -> int:
    """An integer numeral (`1000`, `1_000`, `-3`) in `[low, high]`; a numeral longer than the
    bound is refused on its digit count, never converted."""
    allowed = f"an integer in [{bound_text(low)}, {bound_text(high)}]" + (
        f" ({what})" if what else "")
    if not isinstance(text, str) or len(text) > MAX_NUMBER_TEXT * 32:
        raise ParameterError(name, text, allowed)
    found = _INTEGER.fullmatch(text)
    if found is None:
        raise ParameterError(name, text, allowed)
    digits = found["digits"].replace("_", "").lstrip("0") or "0"
    if len(digits) > max(_digit_count(low), _digit_count(high)):  # before int(): no huge work
        raise ParameterError(name, text.strip(), allowed)
    value = int(found["sign"] + digits)
    if not low <= value <= high:
        raise ParameterError(name, value, allowed)
    return value
