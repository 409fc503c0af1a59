"""One notation for records and databases, in text and in JSON (issue 22).

A **record** is a tuple of non-negative integers: a leaf of a public tree (its child indices
from the root), a PrivTree point (its coordinates), a sparse-vector record (how it moves each
query). It is written as its integers joined by `/`: `0/1/1`, `8`, `3/4`; a run of `k` equal
integers may be written `i^k` (`0^14` is fourteen zeros: a leaf at depth `2^64 - 2` stays
short); the empty record (the root of a tree of height 1) is `()`.

A **database** is a multiset of records, written in braces with `*k` for `k` copies, records in
sorted order: `{0/0*2, 0/1}`, `{8*4}`; the empty database is `{}`. Text output and JSON carry
the same strings; `parse_record` and `parse_database` read them back (braces optional, so the
command line's `--db 0/0*2,0/1` is the same notation). A replace-one move, record `x` of a
database replaced by `y`, is written `x->y` (`0/1->1/1`); its second database is `D'`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from betweencut.errors import ParameterError

Record = tuple[int, ...]
EMPTY_RECORD = "()"
MAX_TEXT = 100_000  # characters of one record or database text read back
RUN_FROM = 4  # runs of at least this many equal integers are written `i^k`


def record_text(record: Iterable[int]) -> str:
    """`(0, 1, 1)` -> `0/1/1`; runs of `RUN_FROM` or more equal integers as `i^k`."""
    items = list(record)
    if not items:
        return EMPTY_RECORD
    parts: list[str] = []
    i = 0
    while i < len(items):
        j = i
        while j < len(items) and items[j] == items[i]:
            j += 1
        k = j - i
        parts.extend([str(items[i])] * k if k < RUN_FROM else [f"{items[i]}^{k}"])
        i = j
    return "/".join(parts)


def run_text(value: int, repeat: int) -> str:
    """A record of `repeat` copies of `value` without building it (`0^(2^64 - 2)`)."""
    if repeat == 0:
        return EMPTY_RECORD
    return "/".join([str(value)] * repeat) if repeat < RUN_FROM else f"{value}^{repeat}"


def replacement_text(x: Iterable[int], y: Iterable[int]) -> str:
    """A replace-one move, record `x` replaced by `y`: `0/1->1/1`."""
    return f"{record_text(x)}->{record_text(y)}"


def neighbours_text(first: Iterable[Iterable[int]], z: Iterable[int] | None = None,
                    second: Iterable[Iterable[int]] | None = None) -> str:
    """A neighbouring pair for messages: `D = {0/0}, z = 0/1` (add/remove, `z` given) or
    `D = {0/0}, D' = {0/1}` (replace-one, `second` given)."""
    if second is not None:
        return f"D = {database_text(first)}, D' = {database_text(second)}"
    return f"D = {database_text(first)}, z = {record_text(() if z is None else z)}"


def database_text(database: Iterable[Iterable[int]] | Counter[str]) -> str:
    """A multiset of records as `{r1*k1, r2, ...}` (sorted; `*k` for `k > 1` copies). A
    `Counter` of record texts (for records too long to build) is written as it is."""
    if isinstance(database, Counter):
        counts = database
    else:
        counts = Counter(record_text(r) for r in database)
    items = sorted(counts.items(), key=lambda kv: _sort_key(kv[0]))
    return "{" + ", ".join(text if k == 1 else f"{text}*{k}" for text, k in items) + "}"


def _sort_key(text: str) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    if text == EMPTY_RECORD:
        return ()
    for part in text.split("/"):
        value, _, repeat = part.partition("^")
        out.append((int(value), int(repeat) if repeat else 1))
    return tuple(out)


def parse_record(text: str, name: str = "record") -> Record:
    """`0/1/1` (or `0^2/1`, or `()`) -> `(0, 1, 1)`; `ParameterError` naming `name` otherwise.
    A run `i^k` is expanded, so only runs up to `MAX_TEXT` entries are read back."""
    raw = text.strip() if isinstance(text, str) else None
    if raw is None or len(raw) > MAX_TEXT:
        raise ParameterError(name, text, "a record such as 0/1/1 (non-negative integers "
                             "joined by '/')")
    if raw == EMPTY_RECORD:
        return ()
    out: list[int] = []
    for part in raw.strip("/").split("/"):
        value, hat, repeat = part.strip().partition("^")
        if not value.isdigit() or (hat and not repeat.isdigit()):
            raise ParameterError(name, text, "a record such as 0/1/1 (non-negative integers "
                                 "joined by '/'; i^k for k copies of i)")
        k = int(repeat) if hat else 1
        if len(out) + k > MAX_TEXT:
            raise ParameterError(name, text, f"a record of at most {MAX_TEXT} entries")
        out.extend([int(value)] * k)
    return tuple(out)


def parse_database(text: str, name: str = "db") -> tuple[Record, ...]:
    """`{0/0*2, 0/1}` (braces optional, `''` or `{}` empty) -> sorted records with copies."""
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        raise ParameterError(name, text, "a database such as {0/0*2, 0/1}")
    body = text.strip()
    if body.startswith("{") and body.endswith("}"):
        body = body[1:-1]
    records: list[Record] = []
    for item in (x for x in body.split(",") if x.strip()):
        record, star, copies = item.partition("*")
        k = 1
        if star:
            if not copies.strip().isdigit() or int(copies) < 1:
                raise ParameterError(name, item.strip(), "copies after '*' an integer >= 1")
            k = int(copies)
        if len(records) + k > MAX_TEXT:
            raise ParameterError(name, text, f"a database of at most {MAX_TEXT} records")
        records.extend([parse_record(record, f"{name} record")] * k)
    return tuple(sorted(records))
