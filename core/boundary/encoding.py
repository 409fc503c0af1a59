"""The release is its bytes (issue 34): the one canonical encoder of a mechanism's output.

Two outputs are the same release exactly when `release_bytes` gives them the same bytes. Every
place that groups outputs keys them so (the laws of the enumeration, the shared outcome trees,
the every-input reduction, the snapshots and the JSON of a verdict): `ReleaseKey` is that key.
No `__eq__`, `__hash__`, `__repr__` or `__str__` of the user's objects is ever called, so an
object whose equality ignores a field, an `int` subclass with its own `repr`, `Decimal('0')`
against `Decimal('-0')` or two dicts in another order are different releases, as they are when
printed or serialised.

The types encoded, each encoding starting with its type's tag (so `1`, `True`, `1.0`,
`Fraction(1)` and `Decimal(1)` are five releases, a tuple is never a list):

* `None`, `bool`, `int` (exact, any size), `fractions.Fraction`, `str`, `bytes`, `bytearray`
  (a release of its own type, distinct from the same `bytes`: a reader tells them apart);
* `float` and `complex` by their exact IEEE bits: the sign of zero and a NaN's payload count;
* `decimal.Decimal` by its exact sign, digits and exponent (`as_tuple`): `Decimal('1.0')` and
  `Decimal('1.00')` differ, as their text does;
* numpy scalars by their dtype and bytes, numpy arrays (not of objects) by dtype, shape and
  bytes (numpy is never imported here: only read when the output's module already did); a
  structured dtype (its text, `|V8`, would hide the field names and types) or one carrying
  metadata is refused;
* `tuple`, `list`, `set` and `frozenset` (a set in the order of its elements' encodings);
* `dict` and `collections.OrderedDict` as ORDERED item sequences (the order is what a printout
  or a JSON file shows; a read-only view of a mapping, whose items would be read by the
  user's code, is refused);
* an `enum.Enum` member (the package's `Outcome` among them) by its type, member name and
  value (a member is one object shared by every run: one holding attributes of its own is
  refused, and a value the code changed is seen);
* a dataclass or a named tuple by its qualified type name and all its fields (every field of
  `dataclasses.fields`, `compare=False` ones too; an instance holding attributes that are not
  fields is refused), the package's result types (`Run`, `FullTreeRun`, ...) among them;
* the proof path's `Released` handle (`betweencut.noise.primitives`) by its index and noise law.

Anything else, a subclass of one of these built-in types included (never encoded silently as
its base), is refused with `OutputRefused` (a `ParameterError`) naming the type and what is
accepted; so is an output nested deeper than `MAX_DEPTH` (a cycle).
"""

from __future__ import annotations

import dataclasses
import enum
import struct
import sys
from collections import OrderedDict
from collections.abc import Callable, Hashable
from decimal import Decimal
from fractions import Fraction
from typing import Any

from betweencut.errors import ParameterError
from betweencut.noise.noisy_test import Outcome

__all__ = ["ACCEPTED", "MAX_DEPTH", "OutputRefused", "ReleaseKey", "Shown", "decoded", "keyed",
           "project_key", "release_bytes", "release_of", "release_text", "written"]

MAX_DEPTH = 200  # containers nested deeper (or a cycle) are refused
ACCEPTED = ("None, bool, int, Fraction, str, bytes, bytearray, float, complex, Decimal, numpy, "
            "tuple, list, set, frozenset, dict, OrderedDict, Enum, dataclass, namedtuple "
            "(exact types, not subclasses)")


class OutputRefused(ParameterError):
    """An output (or a part of it) that the audit does not encode: the message names its type
    and the types accepted."""

_MAPPINGS: dict[type, str] = {dict: "dict", OrderedDict: "OrderedDict"}


def _name(t: type) -> str:
    return f"{t.__module__}.{t.__qualname__}"


def _refuse(x: object, why: str = "") -> OutputRefused:
    t = type(x)
    where = "" if t.__module__ == "builtins" else f"from module {t.__module__}"
    return OutputRefused("output", t.__name__, f"one of the types the audit encodes: {ACCEPTED}",
                         "; ".join(w for w in (why, where) if w))


def _length(n: int) -> bytes:
    if n < _KEPT:
        return _LENGTHS[n]
    return n.to_bytes(4, "big") if n < 0xFFFFFFFF else b"\xff\xff\xff\xff" + _int_bytes(n)


def _int_bytes(n: int) -> bytes:
    raw = n.to_bytes((n.bit_length() + 8) // 8, "big", signed=True)
    return _length(len(raw)) + raw


def _text(s: str) -> bytes:
    raw = s.encode("utf-8", "surrogatepass")
    return _length(len(raw)) + raw


class _Encoder:
    """Writes one output's canonical bytes into `out` (a list of chunks)."""

    def __init__(self) -> None:
        self.out: list[bytes] = []
        self.depth = 0

    def put(self, x: Any) -> None:
        t = type(x)
        if t is int:
            small = _SMALL_INTS.get(x)
            self.out.append(small if small is not None else b"i" + _int_bytes(x))
            return
        if t is tuple or t is list:
            self.nested(x, b"(" if t is tuple else b"[")
            return
        if t is Outcome:
            self.out.append(_OUTCOMES[x])
            return
        simple = _SIMPLE.get(t)
        if simple is not None:
            self.out.append(simple(x))
            return
        if t is ReleaseKey:
            self.out.append(x.data)  # a key already: its bytes are the value's own
            return
        self.other(x, t)

    def deeper(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise OutputRefused("output", f"a value nested deeper than {MAX_DEPTH}",
                                f"an output nested at most {MAX_DEPTH} deep (not a cycle)")

    def nested(self, items: Any, tag: bytes, name: bytes = b"") -> None:
        self.deeper()
        out, put = self.out, self.put
        out.append(tag + name + _length(len(items)))
        for item in items:  # the commonest parts inline (ints, outcomes, None): the same bytes
            t = type(item)
            if t is int:
                small = _SMALL_INTS.get(item)
                out.append(small if small is not None else b"i" + _int_bytes(item))
            elif t is Outcome:
                out.append(_OUTCOMES[item])
            elif item is None:
                out.append(b"N")
            elif t is tuple and self.depth < MAX_DEPTH - 1:  # a node or a step, inline
                flat = _inline(item)
                if flat is None:
                    put(item)
                else:
                    out.append(flat)
            else:
                put(item)
        self.depth -= 1

    def other(self, x: Any, t: type) -> None:
        if t is set or t is frozenset:
            self.deeper()
            parts = sorted(release_bytes(e, self.depth) for e in x)
            self.out.append((b"{" if t is set else b"}") + _length(len(parts)))
            self.out.extend(parts)
            self.depth -= 1
            return
        mapping = _MAPPINGS.get(t)
        if mapping is not None:
            self.nested([v for item in x.items() for v in item], b"m", _text(mapping))
            return
        if isinstance(x, enum.Enum):
            member = object.__getattribute__(x, "_name_")
            if type(member) is not str:  # a flag combination without a name of its own
                raise _refuse(x, "an Enum value that is not one named member")
            if _extra(x, _ENUM_SLOTS):  # a member is one object for every run: no side channel
                raise _refuse(x, "an Enum member holding attributes of its own")
            self.out.append(b"e" + _text(_name(t)) + _text(member))
            self.put(object.__getattribute__(x, "_value_"))  # a value the code may have changed
            return
        if dataclasses.is_dataclass(x) and not isinstance(x, type):
            self.record(x, t)
            return
        if isinstance(x, tuple) and isinstance(getattr(t, "_fields", None), tuple):
            names = t._fields  # type: ignore[attr-defined]
            if len(names) != len(x) or _extra(x, ()):
                raise _refuse(x, "a named tuple holding more than its fields")
            self.nested([v for pair in zip(names, tuple.__iter__(x), strict=True)
                         for v in pair], b"t", _text(_name(t)))
            return
        numpy = sys.modules.get("numpy")
        if numpy is not None and isinstance(x, numpy.generic | numpy.ndarray):
            self.numeric(x, t, numpy)
            return
        released = _released_type()
        if released is not None and t is released:
            self.nested((x.index, x.noise), b"R")
            return
        raise _refuse(x)

    def record(self, x: Any, t: type) -> None:
        if isinstance(x, _BUILTIN):
            raise _refuse(x, "a dataclass that is also a built-in value")
        names = [f.name for f in dataclasses.fields(x)]
        if _extra(x, names):
            raise _refuse(x, "a dataclass instance holding attributes that are not fields")
        values = [object.__getattribute__(x, n) for n in names]
        self.nested([v for pair in zip(names, values, strict=True) for v in pair], b"C",
                    _text(_name(t)))

    def numeric(self, x: Any, t: type, numpy: Any) -> None:
        dtype = x.dtype
        if dtype.names is not None or dtype.subdtype is not None or dtype.metadata:
            # `dtype.str` would be `|V8` for every record layout: field names and types (and
            # a dtype's metadata) would be released without being seen
            raise _refuse(x, "a numpy value of a structured dtype, or a dtype with metadata "
                          "(release a dict or tuple of plain arrays)")
        if t is numpy.ndarray:
            if x.dtype.hasobject:
                raise _refuse(x, "an array of Python objects")
            shape = b"".join(_int_bytes(n) for n in x.shape)
            data = numpy.ascontiguousarray(x).tobytes()
            self.out.append(b"A" + _text(x.dtype.str) + _length(len(x.shape)) + shape
                            + _length(len(data)) + data)
            return
        if not isinstance(x, numpy.generic) or type(x).__module__ != "numpy" or x.dtype.hasobject:
            raise _refuse(x, "a subclass of a numpy type")
        data = x.tobytes()
        self.out.append(b"n" + _text(x.dtype.str) + _length(len(data)) + data)


_DICT_SLOT = type(type.__dict__["__dict__"])  # the interpreter's own `__dict__` descriptor
_ENUM_SLOTS = frozenset({"_value_", "_name_", "__objclass__", "_sort_order_", "__init__"})
_BUILTIN = (int, float, complex, str, bytes, bytearray, tuple, list, dict, set, frozenset,
            Decimal, Fraction)


def _inline(x: tuple[Any, ...]) -> bytes | None:
    """What `put` writes for a tuple of small ints, outcomes, None and tuples of small ints (a
    node, a step `(node, outcome)`), or None for any other tuple: the fast path of the
    commonest outputs (tested against `put`)."""
    parts: list[bytes] = []
    for c in x:
        t = type(c)
        if t is int:
            b = _SMALL_INTS.get(c)
            if b is None:
                return None
        elif t is Outcome:
            b = _OUTCOMES[c]
        elif c is None:
            b = b"N"
        elif t is tuple:
            inner = [_SMALL_INTS.get(d) if type(d) is int else None for d in c]
            if None in inner:
                return None
            b = b"(" + _length(len(inner)) + b"".join(inner)  # type: ignore[arg-type]
        else:
            return None
        parts.append(b)
    return b"(" + _length(len(parts)) + b"".join(parts)


def _extra(x: object, names: Any) -> bool:
    """Does `x` hold instance attributes besides `names` (read without its own code), or could
    it hide them (a class of its MRO defines its own `__dict__`, or a slot that is not one of
    `names`)?"""
    for cls in type.__getattribute__(type(x), "__mro__"):
        space = type.__getattribute__(cls, "__dict__")
        own = space.get("__dict__")
        if own is not None and type(own) is not _DICT_SLOT:
            return True
        slots = space.get("__slots__", ())
        if any(slot not in names and slot not in ("__dict__", "__weakref__")
               for slot in ((slots,) if isinstance(slots, str) else slots)):
            return True  # a slot that is not a field: a value kept beside the fields
    try:
        own = object.__getattribute__(x, "__dict__")
    except AttributeError:
        return False
    return type(own) is not dict or any(k not in names for k in own)


def _released_type() -> type | None:
    module = sys.modules.get("betweencut.noise.primitives")
    return getattr(module, "Released", None) if module is not None else None


def _float(x: float) -> bytes:
    return b"f" + struct.pack(">d", x)


def _decimal(x: Decimal) -> bytes:
    sign, digits, exponent = x.as_tuple()
    exp = _text(exponent) if isinstance(exponent, str) else _int_bytes(exponent)
    return (b"d" + bytes((sign,)) + _text("".join(map(str, digits)))
            + (b"s" if isinstance(exponent, str) else b"i") + exp)


_KEPT = 1025  # lengths and ints below it are encoded once, at import
_LENGTHS = [n.to_bytes(4, "big") for n in range(_KEPT)]
_SMALL_INTS = {n: b"i" + _int_bytes(n) for n in range(-_KEPT, _KEPT)}
_OUTCOMES = {o: b"O" + o.value.encode() for o in Outcome}

_SIMPLE: dict[type, Callable[[Any], bytes]] = {
    type(None): lambda x: b"N",
    bool: lambda x: b"T" if x else b"F",
    int: lambda x: b"i" + _int_bytes(x),
    Outcome: lambda x: b"O" + x.value.encode(),
    str: lambda x: b"s" + _text(x),
    bytes: lambda x: b"b" + _length(len(x)) + x,
    bytearray: lambda x: b"a" + _length(len(x)) + bytes(x),
    float: _float,
    complex: lambda x: b"c" + struct.pack(">dd", x.real, x.imag),
    Fraction: lambda x: b"q" + _int_bytes(x.numerator) + _int_bytes(x.denominator),
    Decimal: _decimal,
}


def release_bytes(output: object, depth: int = 0) -> bytes:
    """The canonical bytes of `output` (module docstring): equal exactly when the two outputs
    are the same release. Raises `ParameterError` naming the type of an output (or a part of
    it) that is not of an accepted type, or nested deeper than `MAX_DEPTH`."""
    enc = _Encoder()
    enc.depth = depth
    enc.put(output)
    return b"".join(enc.out)


class ReleaseKey:
    """An output as the audit keys it: equal and hashed by its canonical bytes (`data`) only.

    `shown` is the output written from those bytes (`release_text`), never by the user's
    `repr`: what a counterexample, a JSON verdict or a snapshot shows."""

    __slots__ = ("_shown", "data")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self._shown: str | None = None

    def __eq__(self, other: object) -> bool:
        return type(other) is ReleaseKey and other.data == self.data

    def __hash__(self) -> int:
        return hash(self.data)

    def __lt__(self, other: ReleaseKey) -> bool:
        return self.data < other.data

    @property
    def shown(self) -> str:
        if self._shown is None:
            self._shown = release_text(self.data)
        return self._shown

    def decoded(self) -> object:
        """The release read back from its bytes (`decoded`)."""
        return decoded(self.data)

    def __repr__(self) -> str:
        return self.shown


def release_of(output: object) -> ReleaseKey:
    """`output` as its key (a `ReleaseKey` as itself)."""
    if type(output) is ReleaseKey:
        return output
    return ReleaseKey(release_bytes(output))


release_of.keyed = True  # type: ignore[attr-defined]  # the whole output's projection


def keyed(project: Callable[[object], Hashable]) -> Callable[[object], Hashable]:
    """`project` followed by `release_of`: a projection whose outputs are keys (idempotent;
    `release_of` itself is the whole output's)."""
    if getattr(project, "keyed", False):
        return project

    def key(o: object) -> Hashable:
        return release_of(project(o))

    key.keyed = True  # type: ignore[attr-defined]
    return key


# -- reading a release back (for showing it: never for comparing) -------------------------------


@dataclasses.dataclass(frozen=True)
class Shown:
    """A decoded container: `kind` one of set, frozenset, mapping, enum, record (a dataclass),
    named (a named tuple), released, numpy, array; `name` its type's name; `items` its parts
    (a mapping's and a record's as `(key, value)` pairs)."""

    kind: str
    name: str
    items: tuple[Any, ...]


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def take(self, n: int) -> bytes:
        out = self.data[self.at:self.at + n]
        self.at += n
        return out

    def length(self) -> int:
        n = int.from_bytes(self.take(4), "big")
        return self.integer() if n == 0xFFFFFFFF else n

    def integer(self) -> int:
        return int.from_bytes(self.take(self.length()), "big", signed=True)

    def text(self) -> str:
        return self.take(self.length()).decode("utf-8", "surrogatepass")

    def pairs(self, n: int) -> tuple[tuple[Any, Any], ...]:
        flat = [self.value() for _ in range(n)]
        return tuple(zip(flat[::2], flat[1::2], strict=True))

    def value(self) -> Any:
        tag = self.take(1)
        if tag == b"N":
            return None
        if tag in (b"T", b"F"):
            return tag == b"T"
        if tag == b"i":
            return self.integer()
        if tag == b"O":
            return Outcome(self.take(1).decode())
        if tag == b"s":
            return self.text()
        if tag in (b"b", b"a"):
            raw = self.take(self.length())
            return raw if tag == b"b" else bytearray(raw)
        if tag == b"f":
            return struct.unpack(">d", self.take(8))[0]
        if tag == b"c":
            real, imag = struct.unpack(">dd", self.take(16))
            return complex(real, imag)
        if tag == b"q":
            return Fraction(self.integer(), self.integer())
        if tag == b"d":
            sign, digits = self.take(1)[0], self.text()
            kind = self.take(1)
            exponent: int | str = self.text() if kind == b"s" else self.integer()
            return Decimal((sign, tuple(map(int, digits)), exponent))  # type: ignore[arg-type]
        if tag in (b"(", b"["):
            items = [self.value() for _ in range(self.length())]
            return tuple(items) if tag == b"(" else items
        if tag in (b"{", b"}"):
            return Shown("set" if tag == b"{" else "frozenset", "",
                         tuple(self.value() for _ in range(self.length())))
        if tag in (b"m", b"C", b"t"):
            name = self.text()
            part = {b"m": "mapping", b"C": "record", b"t": "named"}[tag]
            return Shown(part, name, self.pairs(self.length()))
        if tag == b"e":
            return Shown("enum", self.text(), (self.text(), self.value()))
        if tag == b"R":
            return Shown("released", "Released", tuple(self.value() for _ in range(self.length())))
        if tag in (b"n", b"A"):
            dtype = self.text()
            shape = () if tag == b"n" else tuple(self.integer() for _ in range(self.length()))
            raw = self.take(self.length())
            return Shown("numpy" if tag == b"n" else "array", dtype, (shape, raw))
        raise ValueError(f"not a release encoding (tag {tag!r} at byte {self.at - 1})")


def decoded(data: bytes) -> Any:
    """The release `data` encodes, built of built-in values and `Shown` parts only (never the
    user's types): for showing an output, or finding the `Released` handles in it."""
    return _Reader(data).value()


def release_text(data: bytes) -> str:
    """The release `data` encodes as one line of Python-like text, written by this module (a
    float's NaN and a numpy value with their bits, so two releases never look the same)."""
    return written(decoded(data))


def written(v: Any) -> str:
    t = type(v)
    if t is float:
        return f"nan[{struct.pack('>d', v).hex()}]" if v != v else repr(v)
    if t is complex:
        return f"complex({written(v.real)}, {written(v.imag)})"
    if t is Outcome:
        return str(v.value)
    if t is Fraction:
        return f"Fraction({v.numerator}, {v.denominator})"
    if t is Decimal:
        return f"Decimal('{v}')"
    if t is int and v.bit_length() > 12000:
        return f"(an integer of {v.bit_length()} bits)"
    if t is tuple:
        inner = ", ".join(map(written, v))
        return f"({inner},)" if len(v) == 1 else f"({inner})"
    if t is list:
        return "[" + ", ".join(map(written, v)) + "]"
    if t is Shown:
        return _written_part(v)
    return repr(v)  # None, bool, int, str, bytes, bytearray: built by the decoder


def _written_part(v: Shown) -> str:
    if v.kind in ("set", "frozenset"):
        inner = ", ".join(map(written, v.items))
        if v.kind == "set":
            return "{" + inner + "}" if v.items else "set()"
        return "frozenset({" + inner + "})" if v.items else "frozenset()"
    if v.kind == "mapping":
        inner = ", ".join(f"{written(k)}: {written(x)}" for k, x in v.items)
        return "{" + inner + "}" if v.name == "dict" else f"{v.name}({{{inner}}})"
    if v.kind in ("record", "named"):
        inner = ", ".join(f"{k}={written(x)}" for k, x in v.items)
        return f"{v.name.rsplit('.', 1)[-1]}({inner})"
    if v.kind == "enum":
        return f"{v.name.rsplit('.', 1)[-1]}.{v.items[0]}"
    if v.kind == "released":
        return f"released#{v.items[0]}"
    shape, raw = v.items
    if v.kind == "numpy":
        numpy = sys.modules.get("numpy")
        if numpy is None:
            return f"numpy({v.name}, 0x{raw.hex()})"
        item = numpy.frombuffer(raw, dtype=numpy.dtype(v.name))[0]
        value = item.item()
        text = written(value) if type(value) in (float, complex, int, bool) else repr(value)
        if type(value) is float and (value != value or value == 0):
            text = f"{text}, 0x{raw.hex()}"  # the bits (a NaN's payload, the sign of zero)
        return f"{item.dtype.name}({text})"
    return f"array({v.name}, shape={shape}, 0x{raw.hex()[:64]})"


def project_key(project: Callable[[object], Hashable], key: ReleaseKey,
                output: object) -> Hashable:
    """The key of `project(output)` where `key` is `output`'s own (not encoded again for the
    whole output's projection)."""
    return key if project is release_of else project(output)
