"""Range checks made before any work: sizes that can run, records that fit the public tree.

Every public entry point (the API functions and the CLI) checks its parameters here first, so a
value that cannot be handled in reasonable time or memory is refused up front with a
`ParameterError` (or a `RecordError` naming the line), never met later as a hang, a
`MemoryError`, an `OverflowError` or Python's 4300-digit limit. The limits are public constants,
chosen far above any run the package is meant for and far below what would exhaust a machine:

* `MAX_NUMBER_TEXT` characters and a decimal exponent of at most `MAX_EXPONENT` for a number
  written as text (`Fraction("1e999999999")` would build a billion-digit integer), read by the
  one parser of `betweencut.numbers.exact_text` (no text is ever evaluated as code);
* `MAX_EXACT_BITS` bits for the numerator and the denominator of an exact parameter (so
  `delta >= 2^-4096`, about 1e-1233: every exact value prints within Python's digit limit);
* `MAX_ARITY` children per node, `MAX_RUN_HEIGHT` for a run of the mechanism on records;
* `MAX_LINE_BYTES` bytes per input line (`/dev/zero` as input is refused at its first line).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from fractions import Fraction
from typing import BinaryIO, Final

from betweencut.data.tree import MAX_ARITY as MAX_ARITY
from betweencut.data.tree import MAX_RUN_HEIGHT as MAX_RUN_HEIGHT
from betweencut.data.tree import Node, PublicTree
from betweencut.errors import ParameterError, RecordError, shown
from betweencut.interop import exact_integer
from betweencut.numbers.exact import LogReal, as_rational
from betweencut.numbers.exact_text import MAX_EXACT_BITS as MAX_EXACT_BITS
from betweencut.numbers.exact_text import MAX_EXPONENT as MAX_EXPONENT
from betweencut.numbers.exact_text import MAX_NUMBER_TEXT as MAX_NUMBER_TEXT
from betweencut.numbers.exact_text import (
    NotExact,
    bound_text,
    bounded,
    evaluate,
    read_integer,
    read_rational,
)

MAX_LINE_BYTES: Final = 1 << 16
MAX_SEED_BYTES: Final = 512
#: numpy's unsigned 64-bit integers above this are refused: most often a wrapped-around negative
#: (`np.uint64(0) - 1`), and numpy turns them into floats when mixed with signed integers.
MAX_NUMPY_INTEGER: Final = (1 << 63) - 1

FLOAT_HINT = "pass a Fraction or a string such as '0.1' (a float is not an exact value)"
EXACT_NUMBER = ("an exact number: an int, a Fraction, or an exact integer/rational of numpy, "
                "gmpy2, python-flint or sympy")


def number_text(text: str, name: str) -> Fraction:
    """Read a number written as text exactly (`betweencut.numbers.exact_text`), refusing before
    parsing what cannot be built: `"0.1"` is 1/10, `"1/3"` is 1/3, `"1e-3"` is 1/1000; at most
    `MAX_NUMBER_TEXT` characters, a decimal exponent of magnitude at most `MAX_EXPONENT`,
    numerator and denominator of at most `MAX_EXACT_BITS` bits."""
    return read_rational(text, name)


def exact_number(value: object, name: str) -> Fraction:
    """The one converter of an exact number that is not text (a query's count, a threshold, a
    rate): `int`, `Fraction`, or an exact integer/rational of another library, as a `Fraction`
    with `int` parts and at most `MAX_EXACT_BITS` bits each. Floats, NaN, None, bools, text and
    numpy integers above `MAX_NUMPY_INTEGER` are refused with a `ParameterError` naming `name`."""
    if type(value) is Fraction:  # the hot path (every noisy query): no call but bit_length
        num, den = value.numerator, value.denominator
        if (type(num) is int and type(den) is int and num.bit_length() <= MAX_EXACT_BITS
                and den.bit_length() <= MAX_EXACT_BITS):
            return value
    elif type(value) is int and value.bit_length() <= MAX_EXACT_BITS:
        return Fraction(value)
    if isinstance(value, float):
        raise ParameterError(name, value, "an exact rational: pass an int or a Fraction (a float "
                             "is not an exact value)")
    if value is None or isinstance(value, bool | str | bytes):
        raise ParameterError(name, repr(value), EXACT_NUMBER)
    if type(value).__module__ == "numpy":
        big = exact_integer(value)
        if big is not None and big > MAX_NUMPY_INTEGER:
            raise ParameterError(
                name, big, f"a numpy integer at most 2^63 - 1 ({EXACT_NUMBER})",
                "a uint64 this large is most often a wrapped-around negative")
    return _bounded(as_rational(value, name), name)


def exact_fractions(*values: object) -> bool:
    """True if every value is already what `exact_number` returns for it (a `Fraction` with
    `int` parts of at most `MAX_EXACT_BITS` bits): the hot path's one test (every noisy query
    asks it), a sufficient condition only; callers convert with `exact_number` otherwise.

    One `bit_length` for all parts: for `x, y >= 0`, `(x | y).bit_length()` is the larger of
    theirs (so numerators enter as `abs`), and the `|` of Python `int`s is an `int`.
    """
    joined = 0
    for value in values:
        if type(value) is not Fraction:
            return False
        joined |= abs(value._numerator) | value._denominator  # type: ignore[attr-defined]
    return type(joined) is int and joined.bit_length() <= MAX_EXACT_BITS


def exact_value(value: object, name: str) -> Fraction:
    """An exact parameter: a string (`number_text`) or an exact number (`exact_number`); floats
    are refused with how to pass an exact value."""
    if isinstance(value, str):
        return number_text(value, name)
    if isinstance(value, float):
        raise ParameterError(name, value, f"an exact rational: {FLOAT_HINT}")
    return exact_number(value, name)


def positive_rational(value: object, name: str, why: str = "", *, text: bool = False,
                      zero: bool = False) -> Fraction:
    """The one check of "an exact rational > 0" (`>= 0` with `zero=True`), as a `Fraction`.

    `value` is converted by `exact_number` (an int, a Fraction, an exact number of another
    library), or with `text=True` also read from text by `number_text` (`"1/2"`, `"0.1"`).
    Bools, floats (NaN too), None, other objects, text without `text=True`, and values out of
    range are refused with one message, `ParameterError(name, value, "an exact rational > 0" +
    why)`: `why` is the caller's reason, with its leading space (`" (the noise is
    Lap(1/lam))"`); a value refused for its type or size says why in the error's `why`.
    """
    try:
        q = (exact_number(value, name) if type(value) is Fraction or type(value) is int
             else _rational_for(value, name, text))
    except ParameterError as exc:  # not a number, a float, too many bits: the range first
        raise ParameterError(name, exc.value, _positive_allowed(why, zero), exc.allowed + (
            f"; {exc.why}" if exc.why else "")) from None
    if q > 0 or (zero and q == 0):
        return q
    raise ParameterError(name, value, _positive_allowed(why, zero))


def _positive_allowed(why: str, zero: bool) -> str:
    return ("an exact rational >= 0" if zero else "an exact rational > 0") + why


def _rational_for(value: object, name: str, text: bool) -> Fraction:
    """`value` (not an `int` or a `Fraction`) as an exact rational for `positive_rational`; a
    refusal's `allowed` says what was wrong (`positive_rational` puts the range first)."""
    if isinstance(value, float):
        raise ParameterError(name, value, FLOAT_HINT if text else
                             "pass an int or a Fraction: a float is not an exact value")
    if isinstance(value, str) and text:
        return number_text(value, name)
    if value is None or isinstance(value, bool | str | bytes):
        raise ParameterError(name, repr(value), "an int or a Fraction" + (
            " or a text such as '1/2'" if text else ""))
    return exact_number(value, name)


class _LogReals:
    """`betweencut.numbers.exact_text`'s arithmetic for `a + b·log(c)`, rational `a`, `b`, `c >
    0`."""

    what = "a number such as 2, 1/3 or 1 + 17*log(8580) (a + b*log(c), rationals a, b, c > 0)"

    def number(self, q: Fraction) -> LogReal:
        return LogReal(bounded(q))

    def exp(self, x: LogReal) -> LogReal:
        raise NotExact("exp(...) is not of the form a + b*log(c)")

    def log(self, x: LogReal) -> LogReal:
        if not x.is_rational or x.const <= 0:
            raise NotExact("log of a positive rational only")
        return LogReal(Fraction(0), Fraction(1), x.const)

    def neg(self, x: LogReal) -> LogReal:
        return -x

    def add(self, x: LogReal, y: LogReal) -> LogReal:
        if not (x.is_rational or y.is_rational or x.arg == y.arg):
            raise NotExact("a sum of logarithms of one argument only")
        return x + y

    def sub(self, x: LogReal, y: LogReal) -> LogReal:
        return self.add(x, -y)

    def mul(self, x: LogReal, y: LogReal) -> LogReal:
        if not (x.is_rational or y.is_rational):
            raise NotExact("a product of two logarithms")
        k, other = (x.const, y) if x.is_rational else (y.const, x)
        return LogReal(bounded(other.const * k), bounded(other.coeff * k), other.arg)

    def div(self, x: LogReal, y: LogReal) -> LogReal:
        if not y.is_rational:
            raise NotExact("a division by a logarithm")
        return self.mul(x, LogReal(bounded(1 / y.const)))


def exact_log_real(value: object, name: str) -> LogReal:
    """An exact real `a + b·ln(c)` (a guard width `R`): a `LogReal`, an exact number, or text
    such as `"1 + 17*log(8580)"` (what `LogReal.exact_str` writes) read by `exact_text`."""
    if isinstance(value, LogReal):
        return value
    if isinstance(value, str):
        return evaluate(value, name, _LogReals())
    return LogReal(exact_number(value, name))


def _bounded(q: Fraction, name: str) -> Fraction:
    try:
        return bounded(q)
    except NotExact as exc:
        raise ParameterError(name, q, str(exc)) from None


def bounded_int(value: object, name: str, low: int, high: int, what: str = "") -> int:
    """An integer `low <= value <= high` (bools refused); `what` says why the bound is there."""
    allowed = f"an integer in [{bound_text(low)}, {bound_text(high)}]" + (
        f" ({what})" if what else "")
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ParameterError(name, value, allowed)
    return value


def int_text(text: str, name: str, low: int, high: int, what: str = "") -> int:
    """An integer written as text (`1000`, `1_000`), in `[low, high]`; a text too long to be in
    range is refused without converting it (`betweencut.numbers.exact_text.read_integer`)."""
    return read_integer(text, name, low, high, what)


def check_seed(seed: object, name: str = "seed") -> int | bytes | None:
    """A seed for a reproducible run: `None` (the OS CSPRNG), a non-negative integer (numpy's
    too, as an `int`) or `bytes`, of at most `MAX_SEED_BYTES` bytes. Floats, NaN, bools and
    text are refused: `random.Random(0.5)` hashes a float, and `Random(-1)` equals `Random(1)`."""
    if seed is None or type(seed) is bytes:
        if seed is not None and len(seed) > MAX_SEED_BYTES:
            raise ParameterError(name, f"{len(seed)} bytes", f"at most {MAX_SEED_BYTES} bytes")
        return seed
    whole = None if isinstance(seed, bool) else exact_integer(seed)
    if whole is None or whole < 0 or whole.bit_length() > 8 * MAX_SEED_BYTES:
        raise ParameterError(name, seed, f"a non-negative integer below 2^{8 * MAX_SEED_BYTES} "
                             "or bytes (or None for the OS CSPRNG)")
    return whole


def seed_integer(seed: object, name: str = "seed") -> int | None:
    """`check_seed` for a generator that takes integers only (numpy's `default_rng`): bytes
    become the integer they spell (big-endian)."""
    checked = check_seed(seed, name)
    return int.from_bytes(checked, "big") if isinstance(checked, bytes) else checked


def check_leaves(tree: PublicTree, leaves: Iterable[object], name: str = "leaves") -> list[Node]:
    """Every record as a leaf of the public `tree`: a tuple of child indices, each within the
    arity of the public tree at its depth, ending at a node without children. Raises
    `RecordError` naming the record's position (1-based) otherwise; returns the records."""
    if isinstance(leaves, str | bytes) or not isinstance(leaves, Iterable):
        raise ParameterError(name, leaves, "an iterable of leaves (tuples of child indices)")
    checked: list[Node] = []
    known: set[Node] = set()
    for number, leaf in enumerate(leaves, start=1):
        if type(leaf) is tuple and leaf in known:
            checked.append(leaf)
            continue
        if not isinstance(leaf, tuple) or (leaf and set(map(type, leaf)) != {int}):
            # bool, float, str and numpy scalars are refused
            raise RecordError(number, f"record {shown(leaf)} is not a tuple of child indices")
        if tree.is_leaf_path(leaf):
            known.add(leaf)
            checked.append(leaf)
            continue
        if len(leaf) > tree.height - 1:
            raise RecordError(
                number, f"record {shown(leaf)} is deeper than the public height h = {tree.height} "
                f"allows (at most {tree.height - 1} indices)",
            )
        node: Node = ()
        for depth, c in enumerate(leaf):
            arity = tree.arity(node)
            if not 0 <= c < arity:
                raise RecordError(
                    number, f"record {shown(leaf)}: index {c} at depth {depth + 1} is not a child "
                    f"there (the public tree has {arity} children: 0..{arity - 1})",
                )
            node = (*node, c)
        if tree.arity(node):
            raise RecordError(
                number, f"record {shown(leaf)} ends at an internal node of the public tree "
                "(a record is a leaf)",
            )
        raise RecordError(number, f"record {shown(leaf)} is not a leaf of the public tree")
    return checked


def check_tree(tree: object, name: str = "tree") -> PublicTree:
    if not isinstance(tree, PublicTree):
        raise ParameterError(name, tree, "a betweencut.data.tree.PublicTree (e.g. kary_tree(2, 4))")
    return tree


def text_lines(stream: BinaryIO, source: str = "input") -> Iterator[str]:
    """The lines of a binary stream as text, each checked before it is used: at most
    `MAX_LINE_BYTES` bytes (read with that bound, so an endless line is refused at once) and
    valid UTF-8 (a `RecordError` names the line and the byte offset in the file)."""
    offset = 0
    number = 0
    while True:
        raw = stream.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE_BYTES:
            raise RecordError(
                number, f"line longer than {MAX_LINE_BYTES} bytes in {source} (a record is a "
                "short path such as a/b/c)",
            )
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RecordError(
                number, f"not UTF-8: byte 0x{raw[exc.start]:02x} at byte offset "
                f"{offset + exc.start} of {source} (byte {exc.start + 1} of the line)",
            ) from None
        offset += len(raw)
        yield text
