"""Range checks made before any work: sizes that can run, records that fit the public tree.

Every public entry point (the API functions and the CLI) checks its parameters here first, so a
value that cannot be handled in reasonable time or memory is refused up front with a
`ParameterError` (or a `RecordError` naming the line), never met later as a hang, a
`MemoryError`, an `OverflowError` or Python's 4300-digit limit. The limits are public constants,
chosen far above any run the package is meant for and far below what would exhaust a machine:

* `MAX_NUMBER_TEXT` characters and a decimal exponent of at most `MAX_EXPONENT` for a number
  written as text (`Fraction("1e999999999")` would build a billion-digit integer);
* `MAX_EXACT_BITS` bits for the numerator and the denominator of an exact parameter (so
  `delta >= 2^-4096`, about 1e-1233: every exact value prints within Python's digit limit);
* `MAX_ARITY` children per node, `MAX_RUN_HEIGHT` for a run of the mechanism on records;
* `MAX_LINE_BYTES` bytes per input line (`/dev/zero` as input is refused at its first line).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from fractions import Fraction
from typing import BinaryIO, Final

from betweencut.errors import ParameterError, RecordError, shown
from betweencut.exact import as_rational
from betweencut.tree import MAX_ARITY as MAX_ARITY
from betweencut.tree import Node, PublicTree

MAX_NUMBER_TEXT: Final = 200
MAX_EXPONENT: Final = 1000
MAX_EXACT_BITS: Final = 4096
MAX_RUN_HEIGHT: Final = 4096
MAX_LINE_BYTES: Final = 1 << 16

_EXPONENT = re.compile(r"[eE]([+-]?\d+)\s*$")
FLOAT_HINT = "pass a Fraction or a string such as '0.1' (a float is not an exact value)"


def number_text(text: str, name: str) -> Fraction:
    """Read a number written as text exactly, refusing before parsing what cannot be built.

    `"0.1"` is 1/10, `"1/3"` is 1/3, `"1e-3"` is 1/1000; at most `MAX_NUMBER_TEXT` characters,
    a decimal exponent of magnitude at most `MAX_EXPONENT`, then `exact_value`'s bit bound.
    """
    if not isinstance(text, str):
        raise ParameterError(name, text, "a number written as text")
    if len(text) > MAX_NUMBER_TEXT:
        raise ParameterError(
            name, text, f"a number written in at most {MAX_NUMBER_TEXT} characters")
    found = _EXPONENT.search(text)
    if found is not None and abs(int(found.group(1))) > MAX_EXPONENT:
        raise ParameterError(
            name, text, f"a decimal exponent between -{MAX_EXPONENT} and {MAX_EXPONENT}"
        )
    return _bounded(as_rational(text, name), name)


def exact_value(value: object, name: str) -> Fraction:
    """An exact parameter: an int, a Fraction or a string (`number_text`); floats are refused
    with how to pass an exact value; numerator and denominator of at most `MAX_EXACT_BITS`
    bits each."""
    if isinstance(value, str):
        return number_text(value, name)
    if isinstance(value, float):
        raise ParameterError(name, value, f"an exact rational: {FLOAT_HINT}")
    return _bounded(as_rational(value, name), name)


def _bounded(q: Fraction, name: str) -> Fraction:
    if q.numerator.bit_length() > MAX_EXACT_BITS or q.denominator.bit_length() > MAX_EXACT_BITS:
        raise ParameterError(
            name, q, f"a rational whose numerator and denominator have at most {MAX_EXACT_BITS} "
            "bits (about 1233 digits)",
        )
    return q


def bounded_int(value: object, name: str, low: int, high: int, what: str = "") -> int:
    """An integer `low <= value <= high` (bools refused); `what` says why the bound is there."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParameterError(name, value, f"an integer in [{low}, {high}]")
    if not low <= value <= high:
        allowed = f"an integer in [{low}, {high}]" + (f" ({what})" if what else "")
        raise ParameterError(name, value, allowed)
    return value


def int_text(text: str, name: str, low: int, high: int, what: str = "") -> int:
    """An integer written as text, in `[low, high]`; a text too long to be in range is refused
    without converting it (Python refuses more than 4300 digits anyway)."""
    stripped = text.strip()
    if not re.fullmatch(r"[+-]?\d+", stripped):
        raise ParameterError(name, text, f"an integer in [{low}, {high}]")
    if len(stripped) > max(len(str(low)), len(str(high))) + 1:
        allowed = f"an integer in [{low}, {high}]" + (f" ({what})" if what else "")
        raise ParameterError(name, stripped, allowed)
    return bounded_int(int(stripped), name, low, high, what)


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
        raise ParameterError(name, tree, "a betweencut.tree.PublicTree (e.g. kary_tree(2, 4))")
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
