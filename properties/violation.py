"""What a property check reads (a run record) and what it raises (`PropertyViolation`).

A *run record* is anything with the four attributes of `betweencut.mechanism.betweencut.Run`: the
dense `Run` is the reference shape, and a user's implementation is checked by returning one (or any
object with the same attributes). Nothing here runs the mechanism; the predicates only read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from betweencut.data.tree import Node
from betweencut.errors import BetweenCutError
from betweencut.mechanism.marking import Assignment
from betweencut.noise.noisy_test import Outcome


class RunRecord(Protocol):
    """One run of a heavy-node classifier, as the predicates read it (`Run` has this shape).

    * `heavy`: the released Heavy set.
    * `transcript`: `Tr(D)` (Eq. (112)), every queried node with its answer `L`, `B` or `H`, in
      query order, guarded answers included.
    * `assignments`: the marking log of Alg. 6 in order, one `(node, previous, new)` per label
      write, `previous` being `None` for `?`.
    * `labels`: the final label of every node (`Outcome.H` or `Outcome.L`).
    """

    @property
    def heavy(self) -> frozenset[Node]: ...

    @property
    def transcript(self) -> Sequence[tuple[Node, Outcome]]: ...

    @property
    def assignments(self) -> Sequence[Assignment]: ...

    @property
    def labels(self) -> Mapping[Node, Outcome]: ...


class PropertyViolation(BetweenCutError, AssertionError):
    """A structural claim fails on one run: names the claim, says why, carries the witness.

    `counterexample` is the smallest piece of the run that shows the failure (a path, a pair
    of transcript steps, one assignment), as a plain dict that prints readably.
    """

    def __init__(self, claim: str, message: str, counterexample: Mapping[str, object]) -> None:
        self.claim = claim
        self.message = message
        self.counterexample = dict(counterexample)
        shown = ", ".join(f"{k}={v!r}" for k, v in self.counterexample.items())
        super().__init__(f"{claim}: {message} [{shown}]")


def is_ancestor_or_self(u: Node, v: Node) -> bool:
    """`u` lies on the root-to-`v` path (node tuples are paths of child indices)."""
    return len(u) <= len(v) and v[: len(u)] == u


def comparable(u: Node, v: Node) -> bool:
    """`u` and `v` lie on one root-to-leaf path."""
    return is_ancestor_or_self(u, v) or is_ancestor_or_self(v, u)
