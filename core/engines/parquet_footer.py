"""The schema of a Parquet file, read from its footer without a Parquet library.

Every engine reads Parquet through a different library (DuckDB's reader, Spark's), and they
disagree on files that do not share one schema (DuckDB takes the first file's columns, Spark
fills a missing column with nulls). So the schema is read here, once, from the footer's
`FileMetaData` (Thrift compact protocol, field 2: the list of `SchemaElement`), and the engines
are given only inputs whose files agree. Only the footer is read: the last 8 bytes (its length
and the magic `PAR1`), then at most `MAX_FOOTER_BYTES` of it.

**Bounded by the footer's length** (issue 40, item 2): every step of the reader consumes at least
one byte or raises, a list or map may not claim more elements than bytes remain, a boolean inside
a list or map is one byte, and structs, lists and maps nest at most `MAX_DEPTH` deep. So reading
a footer of n bytes takes O(n) steps, and a truncated or corrupt footer is a `FooterError`,
never a loop.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass

MAGIC = b"PAR1"
MAX_FOOTER_BYTES = 16 << 20
MAX_DEPTH = 64
PHYSICAL = ("BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY",
            "FIXED_LEN_BYTE_ARRAY")
UTF8, INTEGER_CONVERTED = 0, range(11, 19)  # ConvertedType UTF8; UINT_8 .. INT_64
MAP_CONVERTED, LIST_CONVERTED = (1, 2), 3  # ConvertedType MAP, MAP_KEY_VALUE; LIST
STRING_LOGICAL, INTEGER_LOGICAL = 1, 10  # LogicalType union fields STRING and INTEGER
MAP_LOGICAL, LIST_LOGICAL = 2, 3  # LogicalType union fields MAP and LIST
REPEATED = 2  # FieldRepetitionType


class FooterError(ValueError):
    """The file is not a readable Parquet file; `offset` is where in the file, if known."""

    def __init__(self, message: str, offset: int | None = None) -> None:
        self.offset = offset
        super().__init__(message)


@dataclass(frozen=True)
class Column:
    """A column or a field of a struct: its name, its kind (`string`, `integer`, the physical
    type, or for a group `struct`, `list` or `map`; `list` too for a repeated field) and, for a
    struct, its fields in file order."""

    name: str
    kind: str
    fields: tuple[Column, ...] = ()


def schema(path: str) -> tuple[Column, ...]:
    """The top-level columns of the Parquet file at `path`, in file order."""
    size = os.path.getsize(path)
    with open(path, "rb") as handle:
        if size < 12:
            raise FooterError(f"it holds {size} bytes, too few for a Parquet file", 0)
        if handle.read(4) != MAGIC:
            raise FooterError("it does not start with the Parquet magic bytes PAR1", 0)
        handle.seek(size - 8)
        tail = handle.read(8)
        if tail[4:] != MAGIC:
            hint = " (an encrypted footer)" if tail[4:] == b"PARE" else ""
            raise FooterError(f"it does not end with the Parquet magic bytes PAR1{hint}",
                              size - 4)
        length = struct.unpack("<I", tail[:4])[0]
        if length > size - 12:
            raise FooterError(f"its footer length {length} exceeds the file", size - 8)
        handle.seek(size - 8 - length)
        footer = handle.read(min(length, MAX_FOOTER_BYTES))
    try:
        elements = _Reader(footer).file_schema()
    except (IndexError, UnicodeDecodeError, struct.error) as exc:
        raise FooterError(f"its footer cannot be decoded ({type(exc).__name__})",
                          size - 8 - length) from None
    return _top_level(elements)


def _top_level(elements: list[dict[int, object]]) -> tuple[Column, ...]:
    if not elements:
        raise FooterError("its footer has no schema")
    columns, _ = _children(elements, 1, _int(elements[0].get(5, 0)))
    return columns


def _children(elements: list[dict[int, object]], i: int, count: int
              ) -> tuple[tuple[Column, ...], int]:
    """`count` columns from `elements[i]` on, each with its subtree (the schema is the tree's
    pre-order, each group saying how many children follow); and the index after them. Every
    step takes one element or raises, so a schema of n elements takes O(n) steps; nesting is
    bounded by `MAX_DEPTH`."""
    columns: list[Column] = []
    stack: list[tuple[int, list[Column], dict[int, object]]] = []  # (children left, found, group)
    left, found = count, columns
    while True:
        while left == 0:
            if not stack:
                return tuple(columns), i
            left, parent, group = stack.pop()
            parent.append(_column(group, tuple(found)))
            found = parent
        if i >= len(elements):
            raise FooterError("its schema is shorter than it says")
        element = elements[i]
        i += 1
        left -= 1
        children = _int(element.get(5, 0))
        if children:
            if len(stack) >= MAX_DEPTH:
                raise FooterError(f"its schema nests groups more than {MAX_DEPTH} deep")
            stack.append((left, found, element))
            left, found = children, []
        else:
            found.append(_column(element, ()))


def _column(element: dict[int, object], fields: tuple[Column, ...]) -> Column:
    name = str(element.get(4, ""))
    converted, logical = element.get(6), element.get(10)
    if element.get(3) == REPEATED or converted == LIST_CONVERTED or logical == LIST_LOGICAL:
        return Column(name, "list")
    if not fields:
        return Column(name, _kind(element))
    if converted in MAP_CONVERTED or logical == MAP_LOGICAL:
        return Column(name, "map")
    return Column(name, "struct", fields)


def _int(value: object) -> int:
    return value if isinstance(value, int) else 0


def _kind(element: dict[int, object]) -> str:
    physical = _int(element.get(1, -1))
    converted = element.get(6)
    logical = element.get(10)
    if physical == 6 and (converted == UTF8 or logical == STRING_LOGICAL):
        return "string"
    if physical in (1, 2) and (converted is None or converted in INTEGER_CONVERTED
                               or logical == INTEGER_LOGICAL):
        return "integer"
    name = PHYSICAL[physical] if 0 <= physical < len(PHYSICAL) else f"type {physical}"
    return name.lower() + (f" (converted type {converted})" if converted is not None else "")


class _Reader:
    """Just enough of the Thrift compact protocol to read `FileMetaData.schema`.

    Every method either consumes at least one byte of `data` or raises `IndexError`; container
    sizes are checked against the bytes that remain, and nesting against `MAX_DEPTH`.
    """

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0
        self.depth = 0

    def remaining(self) -> int:
        return len(self.data) - self.pos

    def byte(self) -> int:
        if self.pos >= len(self.data):
            raise IndexError("read past the footer")
        value = self.data[self.pos]
        self.pos += 1
        return value

    def skip(self, n: int) -> None:
        if n < 0 or n > self.remaining():
            raise IndexError("skip past the footer")
        self.pos += n

    def varint(self) -> int:
        shift = result = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return result
            shift += 7
            if shift > 70:
                raise IndexError("varint too long")

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def binary(self) -> bytes:
        n = self.varint()
        start = self.pos
        self.skip(n)
        return self.data[start:self.pos]

    def struct_fields(self) -> Iterator[tuple[int, int]]:
        """Walk one struct: (field id, type) of each field, leaving the reader on its value."""
        last = 0
        while True:
            header = self.byte()
            if header == 0:
                return
            kind, delta = header & 0x0F, header >> 4
            last = last + delta if delta else self.zigzag()
            yield last, kind

    def value(self, kind: int) -> object:
        """Read (and return, for scalars) one value of compact type `kind` in a struct field
        (where a boolean is held in the field header and takes no byte of its own)."""
        if kind in (1, 2):
            return kind == 1
        return self.element(kind)

    def element(self, kind: int) -> object:
        """One value of compact type `kind`, a boolean being one byte (as in lists and maps)."""
        if kind in (1, 2):
            return self.byte() == 1
        if kind == 3:
            return self.byte()
        if kind in (4, 5, 6):
            return self.zigzag()
        if kind == 7:
            self.skip(8)
            return None
        if kind == 8:
            return self.binary()
        if kind in (9, 10, 11, 12):
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise IndexError(f"values nested more than {MAX_DEPTH} deep")
            try:
                self.container(kind)
            finally:
                self.depth -= 1
            return None
        raise IndexError(f"unknown compact type {kind}")

    def container(self, kind: int) -> None:
        if kind in (9, 10):
            size, element = self.list_header()
            for _ in range(size):
                self.element(element)
        elif kind == 11:
            size = self.varint()
            if size:
                types = self.byte()
                if 2 * size > self.remaining():
                    raise IndexError("a map longer than the footer")
                for _ in range(size):
                    self.element(types >> 4)
                    self.element(types & 0x0F)
        else:
            for _, inner in self.struct_fields():
                self.value(inner)

    def list_header(self) -> tuple[int, int]:
        header = self.byte()
        size = header >> 4
        if size == 15:
            size = self.varint()
        if size > self.remaining():
            raise IndexError("a list longer than the footer")
        return size, header & 0x0F

    def union_field(self) -> int | None:
        """The field id set in a union struct (LogicalType), its value skipped."""
        chosen = None
        for field_id, kind in self.struct_fields():
            chosen = field_id
            self.value(kind)
        return chosen

    def schema_element(self) -> dict[int, object]:
        element: dict[int, object] = {}
        for field_id, kind in self.struct_fields():
            if field_id == 4 and kind == 8:
                element[4] = self.binary().decode("utf-8")
            elif field_id == 10 and kind == 12:
                element[10] = self.union_field()
            else:
                element[field_id] = self.value(kind)
        return element

    def file_schema(self) -> list[dict[int, object]]:
        for field_id, kind in self.struct_fields():
            if field_id == 2 and kind == 9:
                size, element = self.list_header()
                if element != 12:
                    raise IndexError("schema is not a list of structs")
                return [self.schema_element() for _ in range(size)]
            self.value(kind)
        raise IndexError("no schema field")
