"""Issue 40, item 2: the Parquet footer reader is bounded by the file's length.

Every truncated or corrupt footer is refused with a `FooterError` (one line and exit 2 from the
CLI), never a loop: the issue's 31-byte file, a list of doubles and a map of booleans that claim
more elements than the footer holds, every truncation of a real footer, and random footers.
"""

from __future__ import annotations

import contextlib
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from betweencut.engines import parquet_footer
from betweencut.engines.parquet_footer import FooterError, schema

ISSUE_40_FILE = (b"PAR1\0\0\0\0\0\0\0\0\x19\xf7\x80\x80\x80\x80\x80\x80\x80\x02\0\x0b\0\0\0"
                 b"PAR1")
MAP_OF_BOOLS = b"\x1b\xff\xff\xff\xff\x0f\x11"  # field 1: a map of 2^32-1 (bool, bool) entries
SECONDS = 5.0  # far above the milliseconds a footer of a few hundred bytes takes


def _framed(footer: bytes) -> bytes:
    """`footer` as the footer of a Parquet file: magic, footer, its length, magic."""
    return b"PAR1" + footer + struct.pack("<I", len(footer)) + b"PAR1"


def _schema_or_refusal(path: Path, data: bytes) -> None:
    path.write_bytes(data)
    start = time.monotonic()
    try:
        schema(str(path))
    except FooterError as exc:
        assert "\n" not in str(exc)
    assert time.monotonic() - start < SECONDS


def test_the_issues_31_byte_file_is_refused_at_once(tmp_path: Path) -> None:
    path = tmp_path / "f.parquet"
    path.write_bytes(ISSUE_40_FILE)
    assert len(ISSUE_40_FILE) == 31
    with pytest.raises(FooterError, match="cannot be decoded"):
        schema(str(path))


@pytest.mark.parametrize("footer", [MAP_OF_BOOLS, b"\x19\xf7\xff\xff\xff\x0f",
                                    b"\x1c" * 200 + b"\0" * 200, b"\x17"])
def test_containers_longer_than_the_footer_are_refused(tmp_path: Path, footer: bytes) -> None:
    """A map of booleans, a list of doubles, structs nested past `MAX_DEPTH`, a double cut."""
    path = tmp_path / "f.parquet"
    path.write_bytes(_framed(footer))
    with pytest.raises(FooterError):
        schema(str(path))


def test_every_truncation_of_a_real_footer_is_refused_or_holds_its_schema(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    real = tmp_path / "real.parquet"
    duckdb.connect().execute(f"COPY (SELECT '0/1' AS rec, 1::BIGINT AS n) TO '{real}' "
                             "(FORMAT parquet)")
    data = real.read_bytes()
    length = struct.unpack("<I", data[-8:-4])[0]
    footer = data[-8 - length:-8]
    assert [c.name for c in schema(str(real))] == ["rec", "n"]
    for cut in range(len(footer)):
        path = tmp_path / f"cut{cut}.parquet"
        path.write_bytes(_framed(footer[:cut]))
        start = time.monotonic()
        with contextlib.suppress(FooterError):  # a cut after the schema field: all of it
            assert schema(str(path)) == schema(str(real)), cut
        assert time.monotonic() - start < SECONDS


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
@example(ISSUE_40_FILE[12:-8])
@example(MAP_OF_BOOLS)
def test_random_footers_end_in_a_schema_or_a_refusal(footer: bytes) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        _schema_or_refusal(Path(tmp) / "f.parquet", _framed(footer))


def test_the_reader_steps_are_bounded_by_the_footer_length() -> None:
    """Every step consumes a byte: a footer of n bytes is read in at most n `byte` calls."""
    calls = 0
    reader = parquet_footer._Reader(b"\x19\xf5" + b"\x00" * 50)
    original = reader.byte

    def counted() -> int:
        nonlocal calls
        calls += 1
        return original()

    reader.byte = counted  # type: ignore[method-assign]
    with pytest.raises(IndexError):
        reader.file_schema()
    assert calls <= 52


def test_the_cli_refuses_the_issues_file_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "f.parquet"
    path.write_bytes(ISSUE_40_FILE)
    done = subprocess.run([sys.executable, "-m", "betweencut", "classify", str(path),
                           "--height", "4", "--tau", "40", "--epsilon", "1", "--delta", "0.05"],
                          capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "not a readable Parquet file" in done.stderr


def test_nested_columns_are_read_with_their_fields(tmp_path: Path) -> None:
    """Structs keep their fields (nested too); lists and maps are `list` and `map` and keep
    none, so a `--field` path never goes into them; the top-level order is the file's."""
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "nested.parquet"
    duckdb.connect().execute(
        "COPY (SELECT '0/0/0' AS \"a.b\", {'b': '1/1/1', 'c': {'d': 3}} AS a, ['x'] AS l, "
        "MAP {'k': 'v'} AS m, [{'b': 'y'}] AS ls FROM range(2)) "
        f"TO '{path}' (FORMAT parquet)")
    columns = {c.name: c for c in schema(str(path))}
    assert list(columns) == ["a.b", "a", "l", "m", "ls"]
    assert columns["a.b"] == parquet_footer.Column("a.b", "string")
    assert columns["a"] == parquet_footer.Column("a", "struct", (
        parquet_footer.Column("b", "string"),
        parquet_footer.Column("c", "struct", (parquet_footer.Column("d", "integer"),))))
    assert [columns[n].kind for n in ("l", "m", "ls")] == ["list", "map", "list"]
    assert all(columns[n].fields == () for n in ("l", "m", "ls"))
