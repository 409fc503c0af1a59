"""What every counting engine shares: the input, the public tree's codes, the cut, the exact stage.

An engine (`memory`, `duckdb`, `spark`) reads the private records and computes the prefix
counts of the public tree; it returns only the *candidates*, the nodes whose count exceeds the
cut `floor(a - R)`. The exact stage (`betweencut.engines.candidates`) builds the sparse levels of
those candidates and runs the one traversal of Appendix D (`betweencut.mechanism.sparse.run_levels`)
on them, with the exact sampler.

Why the candidates suffice (Alg. 3, Appendix D, GuardedBT's guard, Alg. 1 l. 1-2). Let
`cut = floor(a - R)` (an integer, certified by `LogReal.floor`) and `C = {u : c_u > cut}`.

1. For an integer count, `c <= a - R` iff `c <= cut`, so GuardedBT answers `L` on every node
   outside `C` without asking the noisy test (no draw).
2. Counts never grow downwards (`c_child <= c_parent`), so `C` is closed under taking parents
   and its complement is closed under taking children: a non-candidate has only
   non-candidate descendants.
3. A node becomes Heavy only by a query answering `H` (then MarkUp from it) or `B` (then
   MarkUp from its parent), both of which need a noisy draw or the upper guard
   (`c >= ceil(b + R) > cut`), or by MarkUp from a Heavy descendant. By induction from the
   leaves up, no non-candidate is ever Heavy; every MarkUp starts in `C` and stays in `C`.
4. A query on a non-candidate answers `L`; its MarkDown labels only that node's subtree, all
   non-candidates (2). MarkDown from a candidate stops at nodes already Light, and below a
   Light non-candidate there are only non-candidates, so it labels the same candidates
   whether or not the non-candidates are stored.
5. So the candidates are visited in the same (DepO, then public) order, ask the same noisy
   queries with the same arguments in the same order, and receive the same labels; under a
   shared `NoisyTest` the Heavy set is the same, and every non-candidate is Light with
   probability 1. With `tau >= E` we have `cut = floor(tau - E) >= 0`, so `C` is a subset
   of `V+ = {u : c_u >= 1}` and this is the sparse run of Appendix D restricted further.

Size of the candidate set: the counts of one depth add up to at most `n` and each candidate
has count at least `cut + 1`, so a depth holds at most `n / (cut + 1)` candidates and the whole
set at most `n * h / (cut + 1)` nodes. Whatever that number, the run releases:
`betweencut.engines.candidates` keeps the candidates in memory up to a public budget and on disk
beyond it (its docstring says what memory a run needs as a function of public inputs).

Rows: a record is named by its file and its row, counted from 1 (Parquet rows in file order;
CSV data rows after the header); in a text file by its line.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib import import_module
from types import ModuleType
from typing import Any, NoReturn

import numpy as np
import numpy.typing as npt

from betweencut.data.records import parse_records
from betweencut.data.tree import END_OF_RECORD, Node, PublicTree
from betweencut.engines.sources import FORMATS as FORMATS
from betweencut.engines.sources import column_index as column_index
from betweencut.engines.sources import csv_rows as sources_csv_rows
from betweencut.engines.sources import no_field, resolve
from betweencut.errors import BetweenCutError, MissingExtra, ParameterError, RecordError
from betweencut.mechanism.classifier import Progress as Progress  # the engines' progress(message)
from betweencut.mechanism.guarded_bt import GuardedBT
from betweencut.mechanism.params import Params
from betweencut.mechanism.sparse import Encoding

IntArray = npt.NDArray[np.int64]
ENGINES = ("memory", "duckdb", "spark")
# Python's str.strip() strips exactly these (str.isspace, Python 3.11 to 3.13's Unicode; checked
# against a scan of every code point by tests/core/engines/test_engines.py); the engines' SQL
# trims the same set. Written out: the scan cost every command 60 ms at import.
WHITESPACE = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004"
              "\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")


class EngineError(BetweenCutError):
    """An engine broke its contract (candidates not closed under taking parents)."""


class SourceRecordError(RecordError):
    """A record of an input file does not fit the public tree: names the file and the row."""

    def __init__(self, file: str, row: int, message: str, unit: str = "row") -> None:
        self.file = file
        self.row = row
        self.line = row
        ValueError.__init__(self, f"{file}, {unit} {row}: {message}")


def require(module: str, extra: str, engine: str) -> ModuleType:
    """Import an optional engine's library, or say which extra installs it."""
    try:
        return import_module(module)
    except ImportError:
        raise MissingExtra(extra, f"--engine {engine} (the {module} package)") from None


# -- the input -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Source:
    """The private input: files of one format, the record column (and the path of fields into
    it, when it is a struct: `betweencut.engines.sources.record_column`), and what to do with
    nulls."""

    files: tuple[str, ...]
    format: str
    column: str | None = None
    skip_null: bool = False
    field: tuple[str, ...] = ()

    @staticmethod
    def of(path: str, column: str | None = None, *, skip_null: bool = False,
           pattern: bool = False, field: Sequence[str] = ()) -> Source:
        """`path` is a file or a directory (its data files), read as named; with `pattern` a
        glob. Resolved by `betweencut.engines.sources.resolve`, in its public order."""
        field = check_field(field)
        files, kind = resolve(path, pattern=pattern)
        if kind == "text" and column is not None:
            raise ParameterError("column", column, "no --column for a text file (one record "
                                 "a line)")
        if kind == "text":
            no_field(field, column)
        return Source(files, kind, column, skip_null, field)


def check_field(field: object) -> tuple[str, ...]:
    """A path of struct fields: a sequence of non-empty names (`--field`, repeated)."""
    if isinstance(field, str) or not isinstance(field, Sequence):
        raise ParameterError("field", field, "a list of field names (--field b --field c: the "
                             "field c of the struct field b)")
    for name in field:
        if not isinstance(name, str) or not name or "\x00" in name:
            raise ParameterError("field", name, "a field name: non-empty text without NUL")
    return tuple(field)


def csv_rows(source: Source) -> Iterator[tuple[str, int, str | None]]:
    """(file, row, value) of the record column of CSV files, rows from 1 after the header; an
    empty field is a null record (`betweencut.engines.sources.CsvTable`)."""
    no_field(source.field, source.column)
    return sources_csv_rows(source.files, source.column)


def null_record(file: str, row: int) -> SourceRecordError:
    return SourceRecordError(file, row, "null record (give --skip-null to skip null records; "
                             "they are then counted under --diagnostics)")


# -- the public tree's codes ------------------------------------------------------------------

@dataclass(frozen=True)
class TreeCodec:
    """The public tree as the engines see it: one radix at every depth (a uniform tree), the
    child names in public order (`⊣` first where records may end early), and the sparse
    implementation's `Encoding`, whose leaf codes the engines compute."""

    tree: PublicTree
    encoding: Encoding
    names: tuple[str, ...]  # public child names, without ⊣
    first_digit: int  # digit of names[0]: child index (1 after ⊣) + the encoding's shift

    @staticmethod
    def of(tree: PublicTree) -> TreeCodec:
        names = tree.uniform_child_names
        if names is None:
            raise ParameterError("tree", tree.description, "a complete k-ary tree or a prefix "
                                 "tree over an alphabet (one child rule at every depth)")
        encoding = Encoding.of(tree)
        return TreeCodec(tree, encoding, names, int(tree.end_of_record) + encoding.shift)

    @property
    def height(self) -> int:
        return self.tree.height

    @property
    def radix(self) -> int:
        return self.encoding.radix[0] if self.encoding.radix else 1

    @property
    def leaves(self) -> int:
        """The number of leaf codes of a complete tree (integer records are `0..leaves-1`)."""
        return int(self.radix ** (self.height - 1))

    def leaf_of_number(self, value: int, file: str, row: int) -> Node:
        """The leaf whose index in public order is `value` (complete k-ary trees only)."""
        if self.tree.end_of_record:
            raise ParameterError("column", "an integer column", "string records for a prefix "
                                 "tree (integers name leaves of a complete k-ary tree)")
        if not 0 <= value < self.leaves:
            raise SourceRecordError(file, row, f"leaf number {value} is not in 0..{self.leaves - 1}"
                                    f" (the leaves of the {self.tree.description})")
        digits = []
        for _ in range(self.height - 1):
            value, digit = divmod(value, self.radix)
            digits.append(digit)
        return tuple(reversed(digits))


def explain(tree: PublicTree, file: str, row: int, value: str | None, skip_null: bool) -> None:
    """Raise the error of a record an engine refused, in the words of the text reader."""
    if value is None:
        if skip_null:
            return
        raise null_record(file, row)
    try:
        parse_records([value], tree)
    except RecordError as exc:
        raise SourceRecordError(file, row, str(exc).removeprefix("line 1: ")) from None
    if END_OF_RECORD in value:
        raise SourceRecordError(file, row, f"record {value!r} writes {END_OF_RECORD} out: leave "
                                "it off (a shorter record ends in it)")



def refuse_record(codec: TreeCodec, source: Source, kind: str, file: str, row: int,
                  value: Any) -> NoReturn:
    """Raise the error of the first record an engine refused (`value` as the engine read it,
    in an integer or string column), in the words of the text reader."""
    if value is None:
        raise null_record(file, row)
    if kind == "integer":
        codec.leaf_of_number(int(value), file, row)
    explain(codec.tree, file, row, str(value), source.skip_null)
    raise SourceRecordError(file, row, f"record {value!r} was refused by the engine")


def refuse_in_text(codec: TreeCodec, source: Source, column: str) -> NoReturn:
    """The engine refused a record its own search did not find: for CSV files, raise the error
    of the first record the text reader refuses (the rows found again by Python's csv reader,
    in file order); else, or if none, say that the engine and the text reader disagree."""
    if source.format == "csv":
        for file, number, value in csv_rows(Source(source.files, "csv", column,
                                                   source.skip_null)):
            explain(codec.tree, file, number, value, source.skip_null)
    raise SourceRecordError(source.files[0], 0, "the engine refused a record that the text "
                            "reader accepts")


def silent(_message: str) -> None:
    """A progress callback that says nothing."""
    return None

# -- the cut and the exact stage ------------------------------------------------------------------

def candidate_cut(params: Params) -> int:
    """`floor(a - R)`: nodes with a count at most this are guarded `L` (Alg. 1, l. 1-2).

    Requires `tau >= E` (then the cut is at least 0, and the engines' candidates are a subset
    of the sparse implementation's stored nodes, Prop. D.1)."""
    margin = params.margin
    if margin.compare(params.tau) > 0:
        raise ParameterError(
            "tau", params.tau, f"tau >= E = {margin.exact_str()} ~ {margin.approx():.4g} for "
            "the counting engines", "below E only the dense Alg. 3 applies, in memory: "
            "--engine memory with a text or CSV input",
        )
    return GuardedBT.of(params.a, params.b, params.R, params.lam).lower_cut


def split_depth(codec: TreeCodec, groups: int) -> int:
    """The depth `D` of a two-scan plan's first pass: the deepest with at most `groups` possible
    nodes, and at least 1 (public: from the tree alone)."""
    depth, size = 0, 1
    while depth < codec.height - 1 and size * codec.radix <= groups:
        depth, size = depth + 1, size * codec.radix
    return max(depth, 1)


@dataclass(frozen=True)
class EngineResult:
    """The Heavy set, and diagnostics (record counts, timings) that are never released: ints
    and floats keyed by name (`engine` names the engine)."""

    heavy: frozenset[Node]
    diagnostics: dict[str, object]
