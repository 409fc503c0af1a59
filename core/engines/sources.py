"""What the engines read: the files an INPUT names, one CSV reading, and errors in our words.

**Files are read as named** (`resolve`). INPUT is a path, never a pattern, unless asked for:

* a regular file is read as named, whatever characters its name holds (`lit[1]/a.csv`, a file
  named `*.csv`, `a?.csv`, `{x,secret}.csv` each name only themselves);
* a directory stands for its data files: the entries whose names end in `.parquet`, `.pq`,
  `.csv` or `.txt` (any case) and do not start with `.` or `_` (the names Spark and Hadoop keep
  for metadata, such as `_SUCCESS`); subdirectories are not entered, and an entry with such a
  name that is not a regular file (a directory, a FIFO) is refused;
* with `pattern=True` (`classify --glob`), INPUT is a pattern of Python's `glob` (`*`, `?`,
  `[...]`; `*` does not match a leading `.`; no `**`, no braces), and every match must be a
  regular file;
* files are read in one public order: sorted by the bytes of their paths (`os.fsencode`), which
  depends on the names alone. One file in a directory, or one match, is a valid input;
* FIFOs, devices and sockets are refused at once (a FIFO would block, a device never ends):
  pipe the records to stdin with INPUT `-` instead, which is read with the line limits;
* all files of one input have one format (by extension; any other extension is text).

The engines get the explicit list: DuckDB with each `*`, `?`, `[`, `]` escaped as a one-character
class (`[*]`), so its glob matches the path alone; Spark as `file:` paths with its globbing off.
Where a dependency cannot name a file at all it is refused with what to do (`duckdb_files`,
`spark_paths`).

**One record column** (`record_column`): `--column NAME` is the column of that exact name
(`a.b` is the column named `a.b`, never a field of a struct `a`; no quoting, no pattern). A
field of a struct column is asked for by its own syntax, `--column a --field b` (repeated for a
path of fields into nested structs, `--field b --field c`; each field's name exact too), and
only in Parquet, read by DuckDB or Spark. The column and its fields are resolved once, from
the Parquet footers (`check_parquet`), before any engine reads a record; each engine is then
given the same path (`duckdb_value`, `spark_value`), written so that neither parses a dot.

**One CSV reading** for the memory, DuckDB and Spark engines: see `csv_table`. **Errors**: every
exception a dependency raises while an engine reads (DuckDB, Spark, the csv module, codecs, the
OS) becomes an `InputFileError` naming the file, where in it when known, and what to do; the
dependency's text is kept for `classify --debug` (`reading`).
"""

from __future__ import annotations

import csv
import functools
import glob
import os
import re
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from betweencut.data.validate import MAX_LINE_BYTES, text_lines
from betweencut.engines import parquet_footer
from betweencut.errors import BetweenCutError, InputFileError, ParameterError

FORMATS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".txt": "text"}
STDIN_HINT = "give a regular file, or pipe the records to stdin with INPUT -"
CHUNK_BYTES = 1 << 24


# -- which files ----------------------------------------------------------------------------

def resolve(path: str, *, pattern: bool = False) -> tuple[tuple[str, ...], str]:
    """The files INPUT names (absolute, in public order) and their format; see the module
    docstring. Raises `ParameterError` (or `InputFileError` naming the file)."""
    if not isinstance(path, str) or not path or "\x00" in path:
        raise ParameterError("INPUT", path, "a file, a directory, or a pattern with --glob")
    files = _matches(path) if pattern else _named(path)
    kinds = {FORMATS.get(os.path.splitext(f)[1].lower(), "text") for f in files}
    if len(kinds) > 1:
        raise ParameterError("INPUT", path, "files of one format",
                             f"found {', '.join(sorted(kinds))}")
    return tuple(os.path.abspath(f) for f in files), kinds.pop()


def _stat(path: str) -> os.stat_result:
    try:
        return os.stat(path)
    except OSError as exc:
        raise InputFileError(path, f"cannot be opened ({exc.strerror})",
                             "check the path and its permissions", detail=str(exc)) from None


def _regular(path: str, mode: int) -> None:
    if stat.S_ISREG(mode):
        return
    kind = ("a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode)
            else "a character device" if stat.S_ISCHR(mode)
            else "a block device" if stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
    raise InputFileError(path, f"is {kind}, not a regular file", STDIN_HINT)


def _named(path: str) -> list[str]:
    if not os.path.lexists(path):
        hint = ("read as a file name; to read the files a pattern matches, give --glob"
                if glob.has_magic(path) else "")
        raise ParameterError("INPUT", path, "an existing file or directory",
                             "no such file" + (f"; {hint}" if hint else ""))
    mode = _stat(path).st_mode
    if not stat.S_ISDIR(mode):
        _regular(path, mode)
        return [path]
    files = []
    for name in sorted(os.listdir(path), key=os.fsencode):
        if name.startswith((".", "_")) or os.path.splitext(name)[1].lower() not in FORMATS:
            continue
        full = os.path.join(path, name)
        _regular(full, _stat(full).st_mode)
        files.append(full)
    if not files:
        raise ParameterError("INPUT", path, "a directory holding files ending in .parquet, "
                             ".pq, .csv or .txt (names starting with . or _ are not read)")
    return files


def _matches(pattern: str) -> list[str]:
    found = sorted(glob.glob(pattern), key=os.fsencode)
    if not found:
        raise ParameterError("INPUT", pattern, "a --glob pattern that matches files",
                             "it matches none")
    for match in found:
        _regular(match, _stat(match).st_mode)
    return found


def duckdb_files(files: Sequence[str]) -> list[str]:
    """The paths as DuckDB globs that match exactly these files: `*`, `?`, `[`, `]` each
    escaped as a one-character class. DuckDB's glob has no escape for a backslash once a path
    holds one of those characters: such a path is refused."""
    out = []
    for path in files:
        if re.search(r"[*?\[\]]", path) and "\\" in path:
            raise InputFileError(path, "DuckDB cannot name a path that holds both a backslash "
                                 "and one of * ? [ ]", "rename it, or use --engine memory")
        out.append(re.sub(r"([*?\[\]])", r"[\1]", path))
    return out


def spark_paths(files: Sequence[str]) -> list[str]:
    """The paths as `file:` URIs for Spark (read with `__globPaths__` off). Hadoop cannot name
    a path holding `:` or `\\`, and skips files whose names start with `.` or `_`."""
    for path in files:
        if ":" in path or "\\" in path or os.path.basename(path).startswith((".", "_")):
            raise InputFileError(path, "Spark (Hadoop) cannot read a file whose path holds : "
                                 "or \\ or whose name starts with . or _",
                                 "rename it, or use --engine duckdb")
    return ["file://" + path for path in files]


# -- one CSV reading ------------------------------------------------------------------------

@dataclass(frozen=True)
class CsvTable:
    """The CSV files of one input, checked, with their common header and the record column.

    The one CSV reading, the same for every engine (memory, DuckDB, Spark):

    1. Encoding: UTF-8. A byte-order mark at the start of a file is not part of the header;
       any invalid UTF-8 or a NUL byte is refused, naming the byte offset.
    2. Lines end in `\\n` or `\\r\\n`, the last line may lack it; a carriage return anywhere
       else is refused. A line, its line break included, holds at most `MAX_LINE_BYTES`
       (65,536) bytes, the limit of a text record line, so a field is never longer. A blank
       line is refused, at the end of the file too.
    3. Fields are separated by `,`. A field is quoted with `"` or not at all; inside quotes
       `""` stands for one `"` and `,` is text; a `"` elsewhere is refused. A row is one line:
       a quoted field never spans lines. A backslash is an ordinary character (no escapes).
    4. The first line is the header, required: an empty file (or one holding only a
       byte-order mark) is refused. Column names are taken exactly (` rec ` is not `rec`) and
       must be distinct. Every file of a directory or pattern has the same header.
    5. Every row has as many fields as the header; a ragged row is refused, never guessed at
       (no dialect or header sniffing, no type inference: every field is text).
    6. An empty field of the record column (`1,` or `1,""`) is a null record: refused, or
       skipped and counted with `--skip-null`.

    The checks of 1-5 run here, once, over every file before an engine reads it (`scan_csv`,
    vectorised); the engines are then told the same dialect (`duckdb_sql`, `spark_frame`,
    `csv_rows`), so they read the same rows. A refusal names the file and the line (the header
    is line 1, row `n` is line `n + 1`) or the byte offset.
    """

    files: tuple[str, ...]
    header: tuple[str, ...]
    index: int

    @property
    def column(self) -> str:
        return self.header[self.index]


def csv_table(files: Sequence[str], column: str | None) -> CsvTable:
    """Check every file (`scan_csv`) and find the record column: `column`, or the only one."""
    return _csv_table(tuple(files), column, tuple(_signature(f) for f in files))


def _signature(path: str) -> tuple[int, int, int]:
    st = _stat(path)
    return st.st_ino, st.st_size, st.st_mtime_ns


@functools.lru_cache(maxsize=16)
def _csv_table(files: tuple[str, ...], column: str | None,
               signature: tuple[tuple[int, int, int], ...]) -> CsvTable:
    header: tuple[str, ...] | None = None
    for path in files:
        found = scan_csv(path)
        if header is None:
            header = found
        elif found != header:
            raise InputFileError(path, f"its header ({', '.join(found[:20])}) differs from "
                                 f"the header of {files[0]} ({', '.join(header[:20])})",
                                 "every CSV file of one input has the same columns",
                                 where="line 1")
    if header is None:  # pragma: no cover - resolve never returns no files
        raise ParameterError("INPUT", files, "at least one file")
    return CsvTable(files, header, column_index(header, column, files[0]))


def column_index(header: Sequence[str], column: str | None, path: str) -> int:
    """Where the record column is: `column`, or the only column."""
    names = ", ".join(repr(n) if n != n.strip() or not n else n for n in header[:20])
    if column is None:
        if len(header) == 1:
            return 0
        raise ParameterError("column", None, f"one of the columns of {path}: {names}",
                             "--column names the record column")
    if column not in header:
        raise ParameterError("column", column, f"one of the columns of {path} (names are "
                             f"matched exactly): {names}")
    return list(header).index(column)


def scan_csv(path: str) -> tuple[str, ...]:
    """Check points 1-5 of `CsvTable` on the whole file, in chunks of `CHUNK_BYTES` of whole
    lines; return its header. Refuses with `InputFileError` naming the line or byte offset."""
    header: tuple[str, ...] | None = None
    with open(path, "rb") as handle:
        carry, offset, line = b"", 0, 1  # offset and line number of carry's first byte
        while True:
            chunk = handle.read(CHUNK_BYTES)
            data = carry + chunk if carry else chunk
            last = not chunk
            cut = len(data) if last else data.rfind(b"\n") + 1
            if cut:
                block = data if cut == len(data) else data[:cut]
                virtual = not block.endswith(b"\n")
                header = _scan_block(path, block + b"\n" if virtual else block, offset, line,
                                     header, virtual=virtual)
                line += block.count(b"\n") + virtual
                offset += cut
            carry = data[cut:]
            if len(carry) > MAX_LINE_BYTES:
                _refuse(path, line, offset, f"a line longer than {MAX_LINE_BYTES} bytes")
            if last:
                break
    if header is None:
        raise InputFileError(path, "is empty: a CSV file starts with its header line",
                             "write the header, or leave the file out of the input")
    return header


def _refuse(path: str, line: int, offset: int, problem: str) -> None:
    where = "the header (line 1)" if line == 1 else f"row {line - 1} (line {line})"
    raise InputFileError(path, problem, "CSV input is described in `betweencut classify "
                         "--help`", where=f"{where}, byte offset {offset}")


def _scan_block(path: str, block: bytes, offset: int, line: int,
                header: tuple[str, ...] | None, *, virtual: bool) -> tuple[str, ...]:
    """Check whole lines `block` (ending in a newline, `virtual` if it was added)."""
    a = np.frombuffer(block, np.uint8)
    nl = np.flatnonzero(a == 10)
    starts = np.concatenate(([0], nl[:-1] + 1))
    # (byte position, priority, problem): the first line with one is reported, so the verdict
    # does not depend on where the chunks end; on one line a long line comes first (as from
    # the carry) and a ragged row last (its count means little on a broken line)
    problems: list[tuple[int, int, str]] = []
    try:
        block.decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.append((exc.start, 1, f"not UTF-8: byte 0x{block[exc.start]:02x}"))
    if (nul := block.find(b"\0")) >= 0:
        problems.append((nul, 1, "a NUL byte"))
    if b"\r" in block:
        cr = np.flatnonzero(a == 13)
        for pos in cr[a[cr + 1] != 10][:1]:
            problems.append((int(pos), 1, "a carriage return that does not end a line"))
    lengths = nl - starts + 1
    if virtual:
        lengths[-1] -= 1
    for i in np.flatnonzero(lengths > MAX_LINE_BYTES)[:1]:
        problems.append((int(starts[i]), 0, f"a line longer than {MAX_LINE_BYTES} bytes"))
    content = nl - starts - ((a[np.maximum(nl - 1, 0)] == 13) & (nl > starts))
    for i in np.flatnonzero(content == 0)[:1]:
        problems.append((int(starts[i]), 1, "a blank line (a row has as many fields as the "
                                            "header; write a null record as an empty field)"))
    # positions of quotes and commas, counted per line by binary search (no full-length sums)
    q = np.flatnonzero(a == 34) if b'"' in block else np.empty(0, np.int64)
    through_q = np.searchsorted(q, nl)  # lines hold no quote at their newline
    first_q = np.concatenate(([0], through_q[:-1]))  # index in q of each line's first quote
    odd = (through_q - first_q) % 2 == 1
    for i in np.flatnonzero(odd)[:1]:
        problems.append((int(starts[i]), 1, 'a quoted field not closed on its line (a line '
                                            'break inside quotes, or a stray ")'))
    if q.size:
        q_line = np.searchsorted(nl, q)
        opening = (np.arange(q.size) - first_q[q_line]) % 2 == 0
        prev = np.where(q > 0, a[np.maximum(q - 1, 0)], 10)
        ok = odd[q_line] | np.where(opening, np.isin(prev, (10, 44, 34)) | (q == 0),
                                    np.isin(a[q + 1], (10, 13, 44, 34)))
        for pos in q[~ok][:1]:
            problems.append((int(pos), 1, 'a " inside an unquoted field or after a closing '
                                          'quote (quote the whole field and double the ")'))
    if header is None and not any(pos <= nl[0] for pos, _, _ in problems):
        first = block[: int(nl[0]) + 1].decode("utf-8").removeprefix("\ufeff")
        header = tuple(next(csv.reader([first], strict=True)))
        if len(set(header)) != len(header):
            twice = sorted({n for n in header if header.count(n) > 1})
            raise InputFileError(path, f"its header names a column twice ({', '.join(twice)})",
                                 "give every column a distinct name", where="line 1")
    if header is not None:
        c = np.flatnonzero(a == 44)
        if q.size:  # a comma inside quotes (an odd number of quotes before it on its line)
            inside = (np.searchsorted(q, c) - first_q[np.searchsorted(nl, c)]) % 2 == 1
            c = c[~inside]
        fields = np.diff(np.searchsorted(c, nl), prepend=0) + 1
        for i in np.flatnonzero(fields != len(header))[:1]:
            problems.append((int(starts[i]), 2, f"{int(fields[i])} fields where the header has "
                                                f"{len(header)} (a ragged row)"))
    if problems:  # the first line with a problem; on it, by priority, then position
        at, _, pos, problem = min((int(np.searchsorted(nl, p)), k, p, m) for p, k, m in problems)
        _refuse(path, line + at, offset + pos, problem)
    if header is None:  # pragma: no cover - a problem on line 1 was refused above
        raise InputFileError(path, "has no header", "write the header line")
    return header


def csv_rows(files: Sequence[str], column: str | None) -> Iterator[tuple[str, int, str | None]]:
    """(file, row, value) of the record column, rows from 1 after each header, read by
    Python's csv module in the `CsvTable` dialect after the checks; an empty field is None."""
    table = csv_table(files, column)
    for path in table.files:
        with open(path, "rb") as handle, reading([path], "memory"):
            reader = csv.reader(text_lines(handle, path), strict=True)
            next(reader, None)
            for row, fields in enumerate(reader, start=1):
                if len(fields) != len(table.header):
                    raise InputFileError(path, "changed while it was read", "read it again",
                                         where=f"row {row}")
                value = fields[table.index]
                yield path, row, (value if value != "" else None)


# -- the engines' readers ---------------------------------------------------------------------

def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def duckdb_sql(files: Sequence[str], kind: str, column: str | None, *,
               locate: bool = False, field: Sequence[str] = ()) -> str:
    """DuckDB's table expression for the files (bound as `$files`, escaped in SQL): Parquet as
    it is, CSV in the `CsvTable` dialect with only the record column, named as in the header."""
    duckdb_files(files)  # refuses what DuckDB cannot name
    names = r"list_transform($files, lambda f: regexp_replace(f, '([*?\[\]])', '[\1]', 'g'))"
    if kind == "parquet":
        check_parquet(files, column, field)
        extra = ", filename = true, file_row_number = true" if locate else ""
        return f"read_parquet({names}{extra})"
    no_field(field, column)
    table = csv_table(files, column)
    columns = ", ".join(f"'c{i}': 'VARCHAR'" for i in range(len(table.header)))
    located = ", filename" if locate else ""
    return (f"(SELECT c{table.index} AS {_quoted(table.column)}{located} FROM read_csv("
            f"{names}, header = true, auto_detect = false, columns = {{{columns}}}, "
            "strict_mode = true, null_padding = false, delim = ',', quote = '\"', "
            f"escape = '\"', encoding = 'utf-8'{', filename = true' if locate else ''}))")


def spark_frame(spark: Any, files: Sequence[str], kind: str, column: str | None,
                field: Sequence[str] = ()) -> Any:
    """Spark's DataFrame of the files: Parquet as it is, CSV in the `CsvTable` dialect with
    only the record column, named as in the header (an empty field null)."""
    paths = spark_paths(files)
    reader = spark.read.option("__globPaths__", "false")
    if kind == "parquet":
        check_parquet(files, column, field)
        return reader.parquet(*paths)
    no_field(field, column)
    from pyspark.sql import functions as F

    table = csv_table(files, column)
    schema = ", ".join(f"c{i} STRING" for i in range(len(table.header)))
    frame = reader.csv(paths, schema=schema, header=True, enforceSchema=True, sep=",",
                       quote='"', escape='"', mode="FAILFAST", multiLine=False,
                       unescapedQuoteHandling="RAISE_ERROR", encoding="UTF-8")
    value = F.col(f"c{table.index}")
    return frame.select(F.when(value != "", value).alias(table.column))


def spark_name(column: str) -> str:
    """A column name as Spark's `col` reads it literally (dots are not struct fields)."""
    return "`" + column.replace("`", "``") + "`"


def duckdb_value(column: str, field: Sequence[str] = ()) -> str:
    """The record value in DuckDB's SQL: the column quoted (a dot in it is part of the name),
    then each field of `field` by `struct_extract` with the name as a string literal."""
    value = _quoted(column)
    for name in field:
        value = f"struct_extract({value}, '{name.replace(chr(39), chr(39) * 2)}')"
    return value


def spark_value(column: str, field: Sequence[str] = ()) -> Any:
    """The record value as a Spark column: the column by its literal name (`spark_name`),
    then each field by `getField`, which takes the name as a literal (no dot is parsed)."""
    from pyspark.sql import functions as F

    value = F.col(spark_name(column))
    for name in field:
        value = value.getField(name)
    return value


def no_field(field: Sequence[str], column: str | None) -> None:
    """Refuse a field path where the input has no struct column (CSV or text)."""
    if field:
        raise ParameterError("field", field[0], "only for a struct column of Parquet input "
                             "(a CSV column or a text line holds text, which has no fields)")


def record_column(columns: Sequence[parquet_footer.Column], column: str | None,
                  field: Sequence[str], path: str) -> parquet_footer.Column:
    """The record column of a Parquet input: `column` by its exact name (or the only column),
    then down `field`, a path of fields into nested structs (`--field`, each name exact). Ends
    on a column that is not a struct; a struct reached without a field left, a field of a
    column that is not a struct, or a field not there is refused naming `--field`."""
    if field and column is None:
        raise ParameterError("column", None, "the struct column whose field --field names")
    names = [c.name for c in columns]
    found = columns[column_index(names, column, path)]
    walked = found.name
    for name in field:
        if found.kind != "struct":
            raise ParameterError("field", name, f"a field of a struct column; {walked} in "
                                 f"{path} is not a struct (it holds {found.kind})")
        inner = [c.name for c in found.fields]
        if name not in inner:
            shown = ", ".join(inner[:20])
            raise ParameterError("field", name, f"one of the fields of the struct {walked} in "
                                 f"{path} (names are matched exactly): {shown}")
        found = found.fields[inner.index(name)]
        walked += f" --field {name}"
    if found.kind == "struct":
        shown = ", ".join(c.name for c in found.fields[:20])
        raise ParameterError("field" if field else "column", field[-1] if field else walked,
                             f"a column of paths or leaf numbers; {walked} is a struct: "
                             f"--field names one of its fields ({shown})")
    return found


def check_parquet(files: Sequence[str], column: str | None, field: Sequence[str] = ()
                  ) -> tuple[parquet_footer.Column, ...]:
    """Every file is Parquet (magic bytes, a footer that decodes) with the same columns, and
    holds the record column, and `field` down it (`record_column`); returns the columns. Read
    from the footers alone."""
    return _check_parquet(tuple(files), column, tuple(field),
                          tuple(_signature(f) for f in files))


@functools.lru_cache(maxsize=16)
def _check_parquet(files: tuple[str, ...], column: str | None, field: tuple[str, ...],
                   signature: tuple[tuple[int, int, int], ...]
                   ) -> tuple[parquet_footer.Column, ...]:
    first: tuple[parquet_footer.Column, ...] | None = None
    for path in files:
        try:
            columns = parquet_footer.schema(path)
        except parquet_footer.FooterError as exc:
            where = "" if exc.offset is None else f"byte offset {exc.offset}"
            raise InputFileError(path, f"is not a readable Parquet file: {exc}",
                                 "replace it, or leave it out of the input", where=where
                                 ) from None
        if first is None:
            first = columns
        elif columns != first:
            shown = ", ".join(f"{c.name} {c.kind}" for c in columns[:12])
            raise InputFileError(path, f"its columns ({shown}) differ from those of "
                                 f"{files[0]}", "every Parquet file of one input has the "
                                 "same columns and types")
    record_column(first or (), column, field, files[0])
    return first or ()


# -- errors in our words --------------------------------------------------------------------

@contextmanager
def reading(files: Sequence[str], engine: str) -> Iterator[None]:
    """Turn any exception of a dependency raised inside into an `InputFileError`."""
    try:
        yield
    except BetweenCutError:
        raise
    except Exception as exc:
        raise dependency_error(exc, files, engine) from exc


def dependency_error(exc: Exception, files: Sequence[str], engine: str) -> InputFileError:
    """`exc` in the package's words: the file (named in the text, or the only one), where in
    it when the text says, what is wrong and what to do; the text itself as `detail`."""
    text = str(exc)
    named = [f for f in files if f in text]
    file = (max(named, key=len) if named else files[0] if len(files) == 1
            else f"one of the {len(files)} files of INPUT")
    where = ""
    found = re.search(r"CSV Error on Line: (\d+)", text)
    if isinstance(exc, UnicodeDecodeError):
        where = f"byte offset {exc.start}"
    elif found:
        where = f"line {found.group(1)}"
    lowered = text.lower()
    hint = f"--debug shows the {engine} engine's message"
    if isinstance(exc, MemoryError):
        problem, remedy = "ran out of memory while reading it", "use --engine duckdb"
    elif isinstance(exc, OSError):
        problem, remedy = f"cannot be read ({exc.strerror or type(exc).__name__})", \
            "check the file and its permissions"
    elif isinstance(exc, UnicodeDecodeError):
        problem, remedy = "is not UTF-8", "write it in UTF-8"
    elif isinstance(exc, csv.Error):
        problem, remedy = f"is not CSV as betweencut reads it ({exc})", \
            "see `betweencut classify --help`"
    elif "parquet" in lowered or "magic" in lowered:
        problem, remedy = "is not a readable Parquet file", f"replace it ({hint})"
    elif "csv" in lowered or "malformed" in lowered:
        problem, remedy = "is not CSV as betweencut reads it", \
            f"see `betweencut classify --help` ({hint})"
    else:
        problem, remedy = f"could not be read by the {engine} engine", hint
    detail = f"{type(exc).__name__}: {text}"
    return InputFileError(file, problem, remedy, where=where, detail=detail)
