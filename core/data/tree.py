"""Public trees (Section 2): rooted, ordered, of height h, given implicitly.

A node is the tuple of child indices on the path from the root: `()` is the root, `(0, 2)` the
third child of the root's first child. Depth is the tuple's length; the public order of a level is
the lexicographic order of these tuples (the order induced by the public child order).

Everything here is public: the height, the arity, the alphabet and the child order are inputs
the user states, never read off the records (deriving them from the data would leak).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import product

from betweencut.errors import ParameterError, RecordError, public_height
from betweencut.interop import exact_integer

Node = tuple[int, ...]
END_OF_RECORD = "⊣"
MAX_ARITY = 1 << 16  # children per node: more cannot be named or traversed in reasonable time
MAX_RUN_HEIGHT = 4096  # the height of a tree the mechanism runs on records over
MAX_CALIBRATION_HEIGHT = 1 << 4096  # the command line's bound: heights it reads and prints


class PublicTree:
    """A public tree of height `h` (depths `0..h-1`) whose children are named by a public rule.

    `child_names(path_names)` gives the ordered names of the children of the node whose
    path from the root has the given names; it must return `()` at depth `h - 1`.
    """

    def __init__(
        self,
        height: int,
        child_names: Callable[[tuple[str, ...]], Sequence[str]],
        *,
        end_of_record: bool = False,
        description: str = "public tree",
    ) -> None:
        self.height = public_height(height)
        self._child_names = child_names
        self.end_of_record = end_of_record
        self.description = description
        self._names_cache: dict[Node, tuple[str, ...]] = {}

    def __repr__(self) -> str:
        """What the tree is, publicly (issue 36, item 9)."""
        eor = ", end_of_record=True" if self.end_of_record else ""
        return f"PublicTree(height={self.height}, description={self.description!r}{eor})"

    # -- structure -------------------------------------------------------------------------
    def names_of_children(self, node: Node) -> tuple[str, ...]:
        cached = self._names_cache.get(node)
        if cached is not None:
            return cached
        if len(node) >= self.height - 1:
            names: tuple[str, ...] = ()
        elif isinstance(self._child_names, _Uniform):
            ended = self.end_of_record and bool(node) and node[-1] == 0
            uniform = self._child_names.names
            names = () if ended else (END_OF_RECORD, *uniform) if self.end_of_record else uniform
            return names
        else:
            path = self.path_names(node)
            if self.end_of_record and path and path[-1] == END_OF_RECORD:
                names = ()
            else:
                names = tuple(self._child_names(path))
                if self.end_of_record:
                    names = (END_OF_RECORD, *names)
        if len(self._names_cache) < 1 << 16:
            self._names_cache[node] = names
        return names

    def arity(self, node: Node) -> int:
        return len(self.names_of_children(node))

    def children(self, node: Node) -> tuple[Node, ...]:
        return tuple((*node, i) for i in range(self.arity(node)))

    @staticmethod
    def parent(node: Node) -> Node | None:
        return node[:-1] if node else None

    @staticmethod
    def depth(node: Node) -> int:
        return len(node)

    def level(self, d: int) -> Iterator[Node]:
        """The nodes of depth `d` in public order (depth first, with a stack of `d` iterators:
        nothing recursive runs on the height, which may be 4096)."""
        if d == 0:
            yield ()
            return
        if isinstance(self._child_names, _Uniform) and not self.end_of_record:
            if d < self.height:  # a closed form: every path of d indices, in public order
                yield from product(range(len(self._child_names.names)), repeat=d)
            return
        stack = [iter(self.children(()))]
        while stack:
            u = next(stack[-1], None)
            if u is None:
                stack.pop()
            elif len(u) == d:
                yield u
            else:
                stack.append(iter(self.children(u)))

    def nodes(self) -> Iterator[Node]:
        for d in range(self.height):
            yield from self.level(d)

    def size(self, limit: int | None = None) -> int:
        """N = |V|; stops counting (and returns a number > limit) once `limit` is passed. One
        depth-first walk (not a walk from the root for each level: h^2 / 2 steps on a path); the
        uniform trees of `kary_tree` and `prefix_tree` by `node_count`'s closed form (a walk to
        `limit` nodes copies paths of up to h indices: a minute at h = 4096, issue 39 item 3)."""
        if isinstance(self._child_names, _Uniform):
            count = self.node_count()
            return count if limit is None else min(count, limit + 1)
        total = 0
        stack = [iter(((),))]
        while stack:
            u = next(stack[-1], None)
            if u is None:
                stack.pop()
                continue
            total += 1
            if limit is not None and total > limit:
                return total
            if len(u) + 1 < self.height:
                stack.append(iter(self.children(u)))
        return total

    def node_count(self) -> int:
        """N = |V| without a traversal for the uniform trees of `kary_tree` and `prefix_tree`
        (a closed form per level: public, and fast for trees of any size); others are counted."""
        if not isinstance(self._child_names, _Uniform):
            return self.size()
        k = len(self._child_names.names)
        total, open_nodes, ended = 0, 1, 0  # open: may have children; ended: a ⊣ child
        for _ in range(self.height):
            total += open_nodes + ended
            open_nodes, ended = open_nodes * k, (open_nodes if self.end_of_record else 0)
        return total

    def is_leaf_path(self, node: Node) -> bool:
        """True when `node` (a tuple of ints) is a leaf of this tree: every index within the
        arity at its depth, and no children at the end. Closed form for uniform trees."""
        if isinstance(self._child_names, _Uniform):
            k = len(self._child_names.names)
            if not node:
                return self.height == 1
            if min(node) < 0:
                return False
            if not self.end_of_record:
                return len(node) == self.height - 1 and max(node) < k
            # children: ⊣ (index 0, which ends the record) then the k symbols 1..k
            if max(node) > k or 0 in node[:-1] or len(node) > self.height - 1:
                return False
            return node[-1] == 0 or len(node) == self.height - 1
        here: Node = ()
        for c in node:
            if not 0 <= c < self.arity(here):
                return False
            here = (*here, c)
        return self.arity(here) == 0

    def max_arity(self, d: int) -> int:
        """The largest arity at depth `d` (public: read off the tree, not the data)."""
        if d >= self.height - 1:
            return 0
        if isinstance(self._child_names, _Uniform):
            return len(self._child_names.names) + int(self.end_of_record)
        return max((self.arity(u) for u in self.level(d)), default=0)

    @property
    def uniform_child_names(self) -> tuple[str, ...] | None:
        """The names every inner node gives its children (after `⊣` where records may end
        early), when one public rule names them at every depth; None otherwise."""
        if isinstance(self._child_names, _Uniform):
            return self._child_names.names
        return None

    @property
    def leaves_at_full_depth(self) -> bool:
        """True when every leaf is known, without a traversal, to sit at depth `h - 1` (the
        complete trees of `kary_tree`); False when leaves may be shallower (irregular trees,
        end-of-record trees), which the sparse encoding must then mark (Appendix D)."""
        return isinstance(self._child_names, _Uniform) and not self.end_of_record

    # -- names -----------------------------------------------------------------------------
    def path_names(self, node: Node) -> tuple[str, ...]:
        if isinstance(self._child_names, _Uniform) and not self.end_of_record \
                and len(node) < self.height:  # the same names at every depth: O(d), not O(d^2)
            uniform = self._child_names.names
            return tuple(uniform[child] for child in node)
        names: list[str] = []
        for i, child in enumerate(node):
            names.append(self.names_of_children(node[:i])[child])
        return tuple(names)

    def name(self, node: Node) -> str:
        return "/" + "/".join(self.path_names(node)) if node else "/"

    def leaf_of(self, components: Sequence[str], line: int = 0) -> Node:
        """The leaf a record's path components name; raises `RecordError` naming the line."""
        node: Node = ()
        for depth, part in enumerate(components):
            names = self.names_of_children(node)
            if not names:
                raise RecordError(
                    line,
                    f"record has {len(components)} components, deeper than the public height "
                    f"h = {self.height} allows (at most {self.height - 1})",
                )
            try:
                index = names.index(part)
            except ValueError:
                shown = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
                raise RecordError(
                    line,
                    f"component {part!r} at depth {depth + 1} is not a child of the public "
                    f"tree there (children: {shown})",
                ) from None
            node = (*node, index)
        if self.arity(node):
            if self.end_of_record:
                return (*node, 0)
            raise RecordError(
                line,
                f"record has {len(components)} components but leaves of this tree are at "
                f"depth {self.height - 1}: give the full leaf path",
            )
        return node


@dataclass(frozen=True)
class _Uniform:
    names: tuple[str, ...]

    def __call__(self, path: tuple[str, ...]) -> tuple[str, ...]:
        return self.names


def kary_tree(arity: int, height: int) -> PublicTree:
    """The complete `k`-ary tree of height `h`; children are named `0..k-1`."""
    k = exact_integer(arity)  # numpy and gmpy2 integers too, as a Python int
    if k is None or not 1 <= k <= MAX_ARITY:
        raise ParameterError("arity", arity, f"an integer 1 <= k <= {MAX_ARITY}")
    arity = k
    names = tuple(str(i) for i in range(arity))
    return PublicTree(height, _Uniform(names), description=f"complete {arity}-ary tree, h={height}")


def prefix_tree(alphabet: Sequence[str], height: int) -> PublicTree:
    """Every path of at most `h - 1` symbols over a public alphabet, children in lexicographic
    order after the end-of-record child `⊣` that ends a record shorter than a leaf path."""
    if isinstance(alphabet, str | bytes) or not isinstance(alphabet, Iterable):
        raise ParameterError("alphabet", alphabet, "a sequence of symbols (strings)")
    given = list(alphabet)
    wrong = [s for s in given if not isinstance(s, str)]
    if wrong:
        raise ParameterError("alphabet", wrong[0], "symbols that are strings")
    symbols = tuple(sorted(set(given)))
    if len(symbols) > MAX_ARITY:
        raise ParameterError("alphabet", f"{len(symbols)} symbols", f"at most {MAX_ARITY} symbols")
    if not symbols:
        raise ParameterError("alphabet", "(empty)", "a non-empty public alphabet")
    bad = [s for s in symbols if not s or "/" in s or s == END_OF_RECORD]
    if bad:
        raise ParameterError("alphabet", bad[0], f"symbols without '/' other than {END_OF_RECORD}")
    return PublicTree(
        height, _Uniform(symbols), end_of_record=True,
        description=f"prefix tree over {len(symbols)} symbols, h={height}",
    )


@dataclass(frozen=True)
class LevelRule:
    """Children named by a per-depth table: `levels[d]` maps a parent's last name (or `""` for
    the root) to its children's names, or `"*"` to the names every parent at that depth gets."""

    levels: tuple[dict[str, tuple[str, ...]], ...] = field(default_factory=tuple)

    def __call__(self, path: tuple[str, ...]) -> tuple[str, ...]:
        table = self.levels[len(path)]
        if "*" in table:
            return table["*"]
        return table.get(path[-1] if path else "", ())


def all_leaves(tree: PublicTree) -> Iterator[Node]:
    """Every leaf (node without children) in public order."""
    for u in tree.nodes():
        if tree.arity(u) == 0:
            yield u
