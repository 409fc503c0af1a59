"""Reading records (`betweencut.data.records`) against a public tree: every refusal names its
line."""

from __future__ import annotations

import pytest

from betweencut.data.records import parse_records
from betweencut.data.tree import END_OF_RECORD, kary_tree, prefix_tree
from betweencut.errors import RecordError


def _line_of(lines: list[str], tree: object) -> RecordError:
    with pytest.raises(RecordError) as info:
        parse_records(lines, tree)  # type: ignore[arg-type]
    return info.value


def test_kary_records_parse_to_leaves() -> None:
    tree = kary_tree(2, 4)
    assert parse_records(["0/0/1\n", "1/1/0\n", "0/0/1"], tree) == [(0, 0, 1), (1, 1, 0), (0, 0, 1)]


def test_empty_input_is_an_empty_database() -> None:
    assert parse_records([], kary_tree(2, 4)) == []


@pytest.mark.parametrize(
    ("lines", "line", "words"),
    [
        (["0/0/1", "0//1"], 2, "empty path component"),
        (["0/0/1", "0/1/1", "\n"], 3, "empty record"),
        (["   \n"], 1, "empty record"),
        (["0/0/1", "0/0/0/0/1"], 2, "deeper than the public height"),
        (["0/0/1", "0/1/1", "0/5/1"], 3, "not a child"),
        (["0/x/1"], 1, "not a child"),
        (["0/0/1", "0/1"], 2, "full leaf path"),
    ],
)
def test_kary_bad_records_name_their_line(lines: list[str], line: int, words: str) -> None:
    err = _line_of(lines, kary_tree(2, 4))
    assert err.line == line
    assert str(err).startswith(f"line {line}: ")
    assert words in str(err)


def test_deeper_record_message_states_the_height() -> None:
    err = _line_of(["0/0/0/0/1"], kary_tree(2, 4))
    assert "h = 4" in str(err)


def test_cached_record_still_reports_first_bad_line() -> None:
    err = _line_of(["0/0/1", "0/0/1", "1/1/9"], kary_tree(2, 4))
    assert err.line == 3


def test_prefix_tree_short_record_gets_end_of_record_child() -> None:
    tree = prefix_tree(["b", "a", "c"], 4)  # children: ⊣, a, b, c
    leaves = parse_records(["a/b/c", "a", "c/a", "b/b/b"], tree)
    assert leaves == [(1, 2, 3), (1, 0), (3, 1, 0), (2, 2, 2)]
    assert tree.path_names((1, 0)) == ("a", END_OF_RECORD)
    assert tree.arity((1, 0)) == 0  # the end-of-record child is a leaf


def test_prefix_tree_refusals() -> None:
    tree = prefix_tree(["a", "b"], 3)
    assert _line_of(["a/b", "a/b/a"], tree).line == 2  # deeper than h allows
    assert _line_of(["a", "z"], tree).line == 2  # unknown component
    assert _line_of(["a", "a//b"], tree).line == 2  # empty component
    assert _line_of(["a", "", "b"], tree).line == 2  # blank line
