"""Marking routines, Alg. 6: MarkUp labels ancestors Heavy, MarkDown labels descendants Light.

Every assignment is logged as `(node, previous label or None, new label)` so that Lemma B.1
(every assignment is `? -> H` or `? -> L`, never an overwrite) can be checked on each run.
"""

from __future__ import annotations

from collections.abc import Callable

from betweencut.data.tree import Node
from betweencut.noise.noisy_test import Outcome

Assignment = tuple[Node, Outcome | None, Outcome]


class Labels:
    """The label map of one run (`?` is absence) with its assignment log."""

    def __init__(self, children: Callable[[Node], tuple[Node, ...]]) -> None:
        self.children = children
        self.label: dict[Node, Outcome] = {}
        self.log: list[Assignment] = []

    def _set(self, u: Node, value: Outcome) -> None:
        self.log.append((u, self.label.get(u), value))
        self.label[u] = value

    def mark_up(self, u: Node | None) -> None:
        """MarkUp(u) (Alg. 6, l. 1-4): label `u` and its ancestors H, stopping at an H node."""
        while u is not None and self.label.get(u) is not Outcome.H:
            self._set(u, Outcome.H)
            u = u[:-1] if u else None

    def mark_down(self, u: Node) -> None:
        """MarkDown(u) (Alg. 6, l. 5-10), depth first in public child order, without recursion."""
        stack = [u]
        while stack:
            v = stack.pop()
            if self.label.get(v) is Outcome.L:
                continue
            self._set(v, Outcome.L)
            stack.extend(reversed(self.children(v)))
