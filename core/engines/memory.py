"""The in-memory engine: records read into Python by the one record parser
(`betweencut.data.records`).

Text files (one record a line, as `classify` always read them) and CSV files (the record in one
column). The leaves then go to the dense Alg. 3 or the sparse Appendix D as before; this engine
is the reference the others are tested against.
"""

from __future__ import annotations

from betweencut.data.records import parse_records
from betweencut.data.tree import Node, PublicTree
from betweencut.data.validate import text_lines
from betweencut.engines.common import Source, SourceRecordError, csv_rows, null_record
from betweencut.engines.sources import reading
from betweencut.errors import ParameterError, RecordError


def read_leaves(source: Source, tree: PublicTree) -> tuple[list[Node], dict[str, object]]:
    """The leaves of every record of `source`, in file order, and the diagnostics (nulls skipped).

    A malformed record raises `SourceRecordError` naming its file and row; a null CSV field is an
    error unless `source.skip_null`.
    """
    if source.format == "parquet":
        raise ParameterError("engine", "memory", "duckdb or spark for Parquet input")
    leaves: list[Node] = []
    skipped = 0
    if source.format == "text":
        for path in source.files:  # the bounded UTF-8 line reader, as for one file
            with open(path, "rb") as handle, reading([path], "memory"):
                try:
                    leaves.extend(parse_records(text_lines(handle, path), tree))
                except RecordError as exc:
                    raise SourceRecordError(
                        path, exc.line, str(exc).removeprefix(f"line {exc.line}: "), "line"
                    ) from None
        return leaves, {"null_records_skipped": 0}
    values: list[str] = []
    where: list[tuple[str, int]] = []
    for path, row, value in csv_rows(source):
        if value is None:
            if not source.skip_null:
                raise null_record(path, row)
            skipped += 1
            continue
        values.append(value)
        where.append((path, row))
    try:
        leaves = parse_records(values, tree)
    except RecordError as exc:
        path, row = where[exc.line - 1]
        raise SourceRecordError(path, row, str(exc).removeprefix(f"line {exc.line}: ")) from None
    return leaves, {"null_records_skipped": skipped}
