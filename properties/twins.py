"""Hypothesis strategies of near-twin outputs: two releases that Python's `==`, `hash` or
`repr` could take for one (issue 34, "Adversarial tests in CI").

A near twin is a pair `(a, b)` of outputs of the types the audit encodes
(`betweencut.boundary.encoding`) that are different releases: equal under `==` across types
(`1`, `True`, `Fraction(1)`, `1.0`), equal with another sign of zero (`0.0`/`-0.0` as floats,
complex parts, numpy float16/32/64, `Decimal`), `Decimal`s of equal value and other digits,
NaNs of other payloads, mappings in another order, a tuple and a list, `bytes` and
`bytearray`, dataclasses whose `==` ignores a field (`compare=False`, or an `__eq__` of their
own); each pair possibly placed, identically, inside the same container (a tuple, list, dict
value or key, set, dataclass field). `twins()` draws them; it shrinks towards a base pair at
the top level (the first bases listed are the simplest). `releasable()` draws accepted outputs,
for round-trip checks (equal encodings for the same value built twice).
"""

from __future__ import annotations

import struct
from collections import OrderedDict
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import strategies as st

__all__ = ["BASES", "Noted", "OwnEquality", "nan_with_payload", "releasable", "twins"]


@dataclass(frozen=True)
class Noted:
    """A release whose `==` and `hash` ignore `note` (`compare=False`), which its fields hold."""

    value: int
    note: str = field(default="", compare=False)


@dataclass(frozen=True, eq=False)
class OwnEquality:
    """A release whose own `__eq__`/`__hash__` read `value` only; its `repr` shows `shown`."""

    value: int
    shown: str = ""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OwnEquality) and other.value == self.value

    def __hash__(self) -> int:
        return hash(self.value)


def nan_with_payload(payload: int, negative: bool = False) -> float:
    """A quiet NaN with `payload` in its low mantissa bits (`0 <= payload < 2**51`)."""
    bits = (0xFFF8 if negative else 0x7FF8) << 48 | payload
    return float(struct.unpack(">d", bits.to_bytes(8, "big"))[0])


# (name, a, b): the base pairs, simplest first
BASES: tuple[tuple[str, Any, Any], ...] = (
    ("int vs bool", 1, True),
    ("int vs Fraction", 1, Fraction(1)),
    ("int vs float", 1, 1.0),
    ("int vs Decimal", 1, Decimal(1)),
    ("signed zero", 0.0, -0.0),
    ("complex signed zero", complex(0.0, 0.0), complex(0.0, -0.0)),
    ("Decimal signed zero", Decimal("0"), Decimal("-0")),
    ("Decimal digits", Decimal("1.0"), Decimal("1.00")),
    ("numpy float32 signed zero", np.float32(0.0), np.float32(-0.0)),
    ("numpy float16 signed zero", np.float16(0.0), np.float16(-0.0)),
    ("numpy float64 vs float", np.float64(1.0), 1.0),
    ("numpy int64 vs int", np.int64(1), 1),
    ("NaN payloads", nan_with_payload(0), nan_with_payload(1)),
    ("NaN sign", nan_with_payload(0), nan_with_payload(0, negative=True)),
    ("tuple vs list", (1, 2), [1, 2]),
    ("bytes vs bytearray", b"x", bytearray(b"x")),
    ("str vs bytes", "x", b"x"),
    ("dict order", {"a": 1, "b": 2}, {"b": 2, "a": 1}),
    ("OrderedDict order", OrderedDict(a=1, b=2), OrderedDict(b=2, a=1)),
    ("dict vs OrderedDict", {"a": 1}, OrderedDict(a=1)),
    ("set vs frozenset", {1}, frozenset({1})),
    ("compare=False field", Noted(1, "a"), Noted(1, "b")),
    ("own __eq__", OwnEquality(1, "a"), OwnEquality(1, "b")),
)


def _wrap(kind: int, x: Any, other: Any) -> Any:
    """`x` placed in a container of kind `kind`, beside `other` (the same for both twins)."""
    if kind == 0:
        return (x, other)
    if kind == 1:
        return [other, x]
    if kind == 2:
        return {"k": x, "other": other}
    if kind == 3:
        return _Pair(x, other)
    return frozenset({(x, "in a set")})


@dataclass(frozen=True, eq=False)
class _Pair:
    first: Any
    second: Any


@st.composite
def twins(draw: st.DrawFn, max_depth: int = 3) -> tuple[str, Any, Any]:
    """`(name, a, b)`: a base pair of `BASES`, both placed in the same `0..max_depth`
    containers. Shrinks to fewer containers and to the earlier (simpler) bases."""
    name, a, b = draw(st.sampled_from(BASES))
    for _ in range(draw(st.integers(0, max_depth))):
        kind = draw(st.integers(0, 4))
        if kind == 4 and not _hashable(a, b):
            kind = 0
        other = draw(st.one_of(st.none(), st.integers(-3, 3), st.text(max_size=2)))
        a, b = _wrap(kind, a, other), _wrap(kind, b, other)
    return name, a, b


def _hashable(*xs: Any) -> bool:
    try:
        for x in xs:
            hash(x)
    except TypeError:
        return False
    return True


_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.fractions(), st.text(max_size=4),
    st.binary(max_size=4), st.floats(allow_nan=True), st.complex_numbers(),
    st.decimals(allow_nan=True), st.sampled_from([np.float32(-0.0), np.float16(1.5),
                                                 np.int8(-3), np.bool_(True)]),
)


def releasable(max_leaves: int = 12) -> st.SearchStrategy[Any]:
    """Outputs of the accepted types, nested (tuples, lists, dicts, frozensets, dataclasses):
    shrinks towards `None` and flat values."""
    return st.recursive(
        _SCALARS,
        lambda inner: st.one_of(
            st.tuples(inner, inner), st.lists(inner, max_size=3),
            st.dictionaries(st.text(max_size=2), inner, max_size=3),
            st.frozensets(st.integers(-5, 5), max_size=3),
            st.builds(_Pair, inner, inner),
        ),
        max_leaves=max_leaves,
    )
