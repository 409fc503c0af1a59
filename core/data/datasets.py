"""The embedded real dataset: the characters of the Unicode Character Database.

Every machine with Python has it (`unicodedata`). Each assigned code point (general category
other than `Cn`) is one record, filed under the path

    major class / general category / bidirectional class / East Asian width

e.g. `L/Lu/L/Na` for `A`. The public tree is fixed by the Unicode standard's property value
lists (hard-coded below, never read off the records): 7 major classes, their 29 categories,
23 bidirectional classes, 6 widths; height 5, 7 + 29 + 667 + 4002 + 1 = 4706 nodes.
"""

from __future__ import annotations

import sys
import unicodedata

from betweencut.data.tree import LevelRule, Node, PublicTree

CATEGORIES: dict[str, tuple[str, ...]] = {
    "C": ("Cc", "Cf", "Co", "Cs"),
    "L": ("Ll", "Lm", "Lo", "Lt", "Lu"),
    "M": ("Mc", "Me", "Mn"),
    "N": ("Nd", "Nl", "No"),
    "P": ("Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps"),
    "S": ("Sc", "Sk", "Sm", "So"),
    "Z": ("Zl", "Zp", "Zs"),
}
BIDI_CLASSES = (
    "AL", "AN", "B", "BN", "CS", "EN", "ES", "ET", "FSI", "L", "LRE", "LRI", "LRO", "NSM",
    "ON", "PDF", "PDI", "R", "RLE", "RLI", "RLO", "S", "WS",
)
EAST_ASIAN_WIDTHS = ("A", "F", "H", "N", "Na", "W")
UNICODE_HEIGHT = 5
DESCRIPTION = (
    f"Unicode {unicodedata.unidata_version} characters by category/bidi class/width "
    "(Python's unicodedata)"
)


def unicode_tree() -> PublicTree:
    """The public tree of the embedded dataset (height 5)."""
    rule = LevelRule((
        {"": tuple(sorted(CATEGORIES))},
        {major: subs for major, subs in CATEGORIES.items()},
        {"*": BIDI_CLASSES},
        {"*": EAST_ASIAN_WIDTHS},
    ))
    return PublicTree(UNICODE_HEIGHT, rule, description=DESCRIPTION)


def unicode_records() -> list[tuple[str, ...]]:
    """One path per assigned code point, in code point order."""
    out: list[tuple[str, ...]] = []
    for cp in range(sys.maxunicode + 1):
        ch = chr(cp)
        cat = unicodedata.category(ch)
        if cat == "Cn":
            continue
        out.append((cat[0], cat, unicodedata.bidirectional(ch), unicodedata.east_asian_width(ch)))
    return out


def unicode_leaves(tree: PublicTree) -> list[Node]:
    """The embedded dataset as leaves of `unicode_tree()`."""
    index: dict[tuple[str, ...], Node] = {}
    leaves = []
    for line, path in enumerate(unicode_records(), start=1):
        leaf = index.get(path)
        if leaf is None:
            leaf = index[path] = tree.leaf_of(path, line)
        leaves.append(leaf)
    return leaves
