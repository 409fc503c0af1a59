"""Reading the private input: one record per line, a path `a/b/c` or leaf indices `0/1/1`.

Blank lines are refused, not skipped (nothing is silently dropped); a trailing newline at the
end of the file is not a record. Errors name the line.
"""

from __future__ import annotations

from collections.abc import Iterable

from betweencut.data.tree import Node, PublicTree
from betweencut.errors import RecordError


def parse_records(lines: Iterable[str], tree: PublicTree) -> list[Node]:
    """The leaves named by `lines` (one record each), validated against the public tree."""
    leaves: list[Node] = []
    cache: dict[str, Node] = {}
    for number, raw in enumerate(lines, start=1):
        text = raw.rstrip("\r\n")
        leaf = cache.get(text)
        if leaf is None:
            stripped = text.strip().strip("/")
            if not stripped:
                raise RecordError(number, "empty record (a record is a path such as a/b/c)")
            parts = stripped.split("/")
            if any(p == "" for p in parts):
                raise RecordError(number, f"malformed record {text!r}: empty path component")
            leaf = tree.leaf_of([p.strip() for p in parts], number)
            cache[text] = leaf
        leaves.append(leaf)
    return leaves
