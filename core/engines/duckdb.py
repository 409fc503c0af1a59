"""The DuckDB engine (`betweencut[duckdb]`): prefix counts of CSV or Parquet files, out of core.

One query reads the record column twice (`prefix_sql`): each record becomes its leaf code of
the sparse implementation's `Encoding` (`betweencut.mechanism.sparse`), a malformed record NULL and
a null record -1; the prefixes at a shallow depth are grouped and rolled up to the root, then only
the records under a candidate there are grouped by leaf and rolled up. Only the candidates
(count > floor(a - R), see `betweencut.engines.common`) leave DuckDB, in DepO order, with the
numbers of malformed and null records. A malformed record is then found again (file and row)
and explained by the text reader's parser (`betweencut.data.records.parse_records`): the SQL only
encodes, and accepts exactly the records the parser accepts (`⊣` written out is refused by
name), which `tests/core/engines/test_engines.py` checks.

Text components: the record is trimmed of Python's whitespace, then of `/`, split at `/`, and
each component trimmed and looked up among the public child names (`⊣` excluded). Integer
columns (Parquet) name leaves of a complete k-ary tree by their index in public order.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from betweencut.engines.candidates import CandidateSink
from betweencut.engines.common import (
    WHITESPACE,
    EngineResult,
    Progress,
    Source,
    TreeCodec,
    candidate_cut,
    column_index,
    refuse_in_text,
    refuse_record,
    require,
    silent,
    split_depth,
)
from betweencut.engines.sources import duckdb_sql, duckdb_value
from betweencut.errors import ParameterError
from betweencut.mechanism.depo import depth_order
from betweencut.mechanism.params import Params
from betweencut.noise.noisy_test import NoisyTest

INTEGER_TYPES = {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT",
                 "UINTEGER", "UBIGINT", "HUGEINT"}


def quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def reader_sql(source: Source, *, locate: bool = False) -> str:
    """The table reading `source` (files as the `$files` parameter), as named and in the one
    CSV dialect (`betweencut.engines.sources.duckdb_sql`)."""
    if source.format not in ("parquet", "csv"):
        raise ParameterError("engine", "duckdb", "CSV or Parquet input (text files: --engine "
                             "memory)")
    return duckdb_sql(source.files, source.format, source.column, locate=locate,
                      field=source.field)


# Python's str.strip() as one regular expression (RE2 matches code points): DuckDB's
# trim(x, characters) decodes the whole string, ten times slower on long records.
EDGE_WHITESPACE = "".join(f"\\x{{{ord(c):x}}}" for c in WHITESPACE)
STRIP_SQL = f"'^[{EDGE_WHITESPACE}]+|[{EDGE_WHITESPACE}]+$'"


def columns_sql(kind: str, column: str, field: Sequence[str] = ()) -> str:
    """The select list that names the record `rec` (the column, or the field path `field` into
    it: `betweencut.engines.sources.duckdb_value`) and, for text records, its components `p`."""
    rec = duckdb_value(column, field)
    if kind == "integer":
        return f"{rec} AS rec"
    return f"{rec} AS rec, string_split(trim(regexp_replace({rec}, {STRIP_SQL}, '', 'g'), '/'), " \
           "'/') AS p"


def code_sql(codec: TreeCodec, kind: str, *, validate: bool = True) -> str:
    """The SQL expression of a record's leaf code over `columns_sql`; NULL if the record is
    malformed, -1 if it is null. `validate=False` gives the bare encoding of well-formed
    records (the benchmark's floor)."""
    h, r = codec.height, codec.radix
    if kind == "integer":
        if not validate:
            return "rec::BIGINT"
        return f"CASE WHEN rec IS NULL THEN -1 WHEN rec >= 0 AND rec < {codec.leaves} " \
               "THEN rec::BIGINT END"
    # a component is looked up as it is, and trimmed only if that fails (trimming every
    # component cost 50 us a record of 31 components); a name with whitespace at its edges is
    # never matched untrimmed, as the parser strips every component first
    found = "list_position($names, trim(x, $ws))"
    if all(name == name.strip(WHITESPACE) for name in codec.names):
        found = f"coalesce(list_position($names, x), {found})"
    digit = f"{found} + {codec.first_digit - 1}"
    reduce = (f"list_reduce(list_transform(p, lambda x: {digit}), "
              f"lambda acc, x: acc * {r} + x, 0::BIGINT)")
    if codec.tree.end_of_record:  # shorter records end in ⊣ (digit 1), then "ended" digits 0
        powers = "[" + ", ".join(str(r ** i) for i in range(h)) + "]::BIGINT[]"
        body = (f"CASE WHEN len(p) = {h - 1} THEN {reduce} WHEN len(p) < {h - 1} THEN "
                f"({reduce} * {r} + 1) * ({powers})[{h - 1} - len(p)] END")
    else:
        body = f"CASE WHEN len(p) = {h - 1} THEN {reduce} END"
    if not validate:
        return body
    return f"CASE WHEN rec IS NULL THEN -1 ELSE {body} END"


SPLIT_GROUPS = 1 << 16  # the first scan's groups at most (tests lower it to force two scans)


def prefix_sql(codec: TreeCodec, code_expr: str, columns: str, reader: str, cut: int, *,
               diagnostics: bool = True, plan: str = "split", distinct: str | None = None
               ) -> str:
    """Candidates (rank, depth, code, count) with count > cut, in DepO order then code order;
    with `diagnostics`, rows of depth -1 (malformed), -2 (null), -3 (valid records) first.

    `distinct` (the quoted record column, for text records): group the records by their text
    first and encode each distinct text once, weighted by its number of records (the encoding
    costs microseconds a record, the grouping a tenth of that); the codes are then kept
    (materialised) for both scans, which read them instead of the files.

    `plan = "chain"`: group the leaves, then each depth from the one below (one scan).
    `plan = "split"` (two scans, small groupings): group every record's prefix at a depth `D`
    with few possible nodes (`split_depth`) and roll up to the root; then group, by leaf, only
    the records under a depth-`D` candidate and roll up to depth `D + 1`. Exact for every
    candidate: a candidate below `D` has count > cut, so its depth-`D` ancestor does too and
    all its records are in the second scan.
    """
    h, r = codec.height, codec.radix
    split = split_depth(codec, SPLIT_GROUPS)
    if plan == "chain" or split >= h - 1:
        split = h - 1
    top = h - 1 - split  # prefix at depth `split` = code // r^top

    def up(name: str) -> str:
        return f"{name} >> {r.bit_length() - 1}" if r & (r - 1) == 0 else f"{name} // {r}"

    if distinct is None:
        count = "count(*)"
        ctes = [f"src AS NOT MATERIALIZED (SELECT {code_expr} AS code FROM "
                f"(SELECT {columns} FROM {reader}))"]
    else:
        count = "sum(w)::BIGINT"
        ctes = [f"texts AS (SELECT {distinct}, count(*) AS w FROM {reader} GROUP BY 1)",
                f"src AS MATERIALIZED (SELECT {code_expr} AS code, w FROM "
                f"(SELECT {columns}, w FROM texts))"]
    ctes += ["grouped AS (SELECT CASE WHEN code IS NULL THEN -2 WHEN code < 0 THEN -1 ELSE "
             f"code // {r ** top} END AS code, {count} AS c FROM src GROUP BY 1)",
            f"l{split} AS (SELECT code, c FROM grouped WHERE code >= 0)"]
    for d in range(split - 1, -1, -1):
        ctes.append(f"l{d} AS (SELECT {up('code')} AS code, sum(c)::BIGINT AS c FROM l{d + 1} "
                    "GROUP BY 1)")
    if split < h - 1:
        ctes += [f"sel AS (SELECT code FROM l{split} WHERE c > {cut})",
                 f"l{h - 1} AS (SELECT code, {count} AS c FROM src WHERE code >= 0 AND "
                 f"code // {r ** top} IN (SELECT code FROM sel) GROUP BY code)"]
        for d in range(h - 2, split, -1):
            ctes.append(f"l{d} AS (SELECT {up('code')} AS code, sum(c)::BIGINT AS c FROM "
                        f"l{d + 1} GROUP BY 1)")
    rank = {d: i for i, d in enumerate(depth_order(h))}
    selects = []
    if diagnostics:
        selects += [
            "SELECT -1 AS rank, -1 AS depth, 0::BIGINT AS code, "
            "coalesce(sum(c) FILTER (WHERE code = -2), 0)::BIGINT AS c FROM grouped",
            "SELECT -1, -2, 0, coalesce(sum(c) FILTER (WHERE code = -1), 0)::BIGINT FROM grouped",
            "SELECT -1, -3, 0, coalesce(sum(c) FILTER (WHERE code >= 0), 0)::BIGINT FROM grouped",
        ]
    for d in range(h):
        ended = f" AND code % {r} != 0" if codec.tree.end_of_record and d > 0 else ""
        selects.append(f"SELECT {rank[d]}, {d}, code, c FROM l{d} WHERE c > {cut}{ended}")
    return ("WITH " + ",\n".join(ctes) + "\n" + "\nUNION ALL ".join(selects)
            + "\nORDER BY 1, 3")


def connect(threads: int | None = None, memory_limit: str | None = None,
            temp_directory: str | None = None) -> Any:
    """An in-memory DuckDB connection; `memory_limit` (e.g. "3GB") makes large groupings spill
    to `temp_directory` (default: DuckDB's, `.tmp` under the working directory) instead of
    growing past it."""
    duckdb = require("duckdb", "duckdb", "duckdb")
    con = duckdb.connect()
    if threads is not None:
        con.execute(f"SET threads = {int(threads)}")
    if memory_limit is not None:
        con.execute("SET memory_limit = $limit", {"limit": memory_limit})
    if temp_directory is not None:
        con.execute("SET temp_directory = $dir", {"dir": temp_directory})
    return con


def column_kind(con: Any, source: Source, codec: TreeCodec) -> tuple[str, str]:
    """The record column (named, or the only one) and its kind, `string` or `integer`; read
    from the files' schema (public metadata), before any record is read."""
    described = con.execute(f"DESCRIBE SELECT * FROM {reader_sql(source)}",
                            {"files": list(source.files)}).fetchall()
    names = [row[0] for row in described]
    column = names[column_index(names, source.column, source.files[0])]
    kind = str(described[names.index(column)][1]).upper()
    if source.field:  # the field's type (the path was resolved from the footers already)
        kind = str(con.execute(f"DESCRIBE SELECT {duckdb_value(column, source.field)} AS rec "
                               f"FROM {reader_sql(source)}",
                               {"files": list(source.files)}).fetchall()[0][1]).upper()
    if kind == "VARCHAR":
        return column, "string"
    if kind in INTEGER_TYPES:
        if codec.tree.end_of_record:
            raise ParameterError("column", column, "a string column for a prefix tree",
                                 f"it holds {kind}")
        return column, "integer"
    raise ParameterError("column", column, "a VARCHAR column (paths) or an integer column "
                         "(leaf numbers)", f"it holds {kind}")


def classify(
    source: Source,
    codec: TreeCodec,
    params: Params,
    test: NoisyTest | None = None,
    *,
    threads: int | None = None,
    memory_limit: str | None = None,
    max_candidates: int | None = None,
    progress: Progress | None = None,
) -> EngineResult:
    """The Heavy set of `source` on the public tree of `codec`: DuckDB counts, the exact stage
    labels (`betweencut.engines.candidates`). Requires `tau >= E`. The candidates stay in
    DuckDB (a temporary table, spilled under `memory_limit`) and are fetched one depth at a
    time into a `CandidateSink` (in memory up to `max_candidates`, on disk beyond).
    `progress(message)` hears the stages and depths (public facts only)."""
    say = progress if progress is not None else silent
    start = time.perf_counter()
    cut = candidate_cut(params)
    with CandidateSink(codec.height, max_candidates) as sink:
        con = connect(threads, memory_limit, sink.path("duckdb"))
        say("duckdb: reading the schema")
        column, kind = column_kind(con, source, codec)
        if kind == "string":  # each distinct text, named rec in `texts`, encoded once
            columns = columns_sql(kind, "rec")
            distinct: str | None = f"{duckdb_value(column, source.field)} AS rec"
        else:
            columns, distinct = columns_sql(kind, column, source.field), None
        query = prefix_sql(codec, code_sql(codec, kind), columns, reader_sql(source), cut,
                           distinct=distinct)
        bind: dict[str, object] = {"files": list(source.files)}
        if kind == "string":
            bind |= {"names": list(codec.names), "ws": WHITESPACE}
        say("duckdb: counting the prefixes of every depth")
        con.execute(f"CREATE TEMP TABLE candidates AS {query}", bind)
        stats = dict.fromkeys((-1, -2, -3), 0) | {
            int(d): int(c) for d, c in
            con.execute("SELECT depth, c FROM candidates WHERE depth < 0").fetchall()}
        counted = time.perf_counter()
        if stats[-1] or (stats[-2] and not source.skip_null):
            _raise_first_bad(con, source, codec, kind, column, bind)
        for d in range(codec.height):
            say(f"duckdb: fetching the candidates of depth {d} ({d + 1} of {codec.height})")
            rows = con.execute("SELECT code, c FROM candidates WHERE depth = $d ORDER BY code",
                               {"d": d}).fetchnumpy()
            sink.add(d, rows["code"], rows["c"])
        con.close()
        fetched = time.perf_counter()
        run, found = sink.exact_stage(codec, params, test, say)
        done = time.perf_counter()
        return EngineResult(run.heavy, {
            "engine": "duckdb", "records": stats[-3], "null_records_skipped": stats[-2],
            **found,
            "seconds_counting": round(counted - start, 4),
            "seconds_fetching": round(fetched - counted, 4),
            "seconds_exact_stage": round(done - fetched, 4),
        })


def _raise_first_bad(con: Any, source: Source, codec: TreeCodec, kind: str, column: str,
                     bind: dict[str, object]) -> None:
    """Find the first malformed (or null) record in file order and raise its error."""
    expr = code_sql(codec, kind)
    bad = f"({expr}) IS NULL" + ("" if source.skip_null else f" OR ({expr}) = -1")
    if source.format == "parquet":
        row = con.execute(
            f"SELECT filename, file_row_number, rec FROM (SELECT filename, file_row_number, "
            f"{columns_sql(kind, column, source.field)} FROM {reader_sql(source, locate=True)}) "
            f"WHERE {bad} ORDER BY list_position($files, filename), file_row_number LIMIT 1",
            bind,
        ).fetchone()
        if row is not None:
            refuse_record(codec, source, kind, str(row[0]), int(row[1]) + 1, row[2])
    refuse_in_text(codec, source, column)
