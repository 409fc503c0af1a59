"""The sparse-vector corpus's rows and results: what a row claims (`CorpusRow`: the mechanism,
its claimed `ε` or `(ε, δ)` points, the literature's verdict), what its audit found
(`RowResult`, as a `Verdict`), and the pairs every row is audited on. Shared by the exact
Laplace rows (`corpus`) and the certified Gaussian ones (`gaussian_corpus`).

The pairs depend on the neighbour relation (`betweencut.proofs.verdict.Relation`), chosen so
that one record moves each query by at most `Δ = 1` under each (the sensitivity the literature's
theorems assume):

* add/remove: records `r ∈ {0, 1, 2}^m` move query `i` by `r_i - 1`; every `(D, D + z)` with
  `|D| <= size` (bounded: and `|D + z| <= n`);
* replace-one: records `r ∈ {1, 2}^m` (counting queries: `q_i` counts the records with
  `r_i = 2`); every `(D, D')` of at most `size + 1` records where `D'` replaces one record of
  `D` (so that both relations cover the databases of at most `size + 1` records).

A row on other records (a tree's leaves, PrivTree's points) gives its own `universe` and a
mechanism on databases (`run_db`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from betweencut.baselines import svt_corpus as sc
from betweencut.data.tree import Node
from betweencut.noise.noisy_queries import LAPLACE, QueryTest
from betweencut.proofs import assumes as a
from betweencut.proofs.assumes import Assumes
from betweencut.proofs.exact.arith import exact_str
from betweencut.proofs.privacy.audit.pairs import ClaimPoint, PointResult
from betweencut.proofs.privacy.enumeration.cache import (
    Database,
    Neighbour,
    neighbouring_pairs,
    replace_pairs,
)
from betweencut.proofs.verdict import Claim, Neighbours, Refutation, Relation, Verdict

__all__ = ["EPS", "NOWHERE", "PRIVATE", "PRIVATE_AT", "UNKNOWN", "CorpusRow", "RowResult",
           "moves", "moves_of", "pair_count", "pairs_for", "pairs_of", "pairs_scope",
           "records_for"]

PRIVATE, PRIVATE_AT, NOWHERE = "private", "private at", "private at no eps"
UNKNOWN = "unknown"  # a user's mechanism: no literature verdict, `agrees` means `holds`
EPS = Fraction(1)
Run = Callable[[tuple[Fraction, ...], QueryTest], Hashable]



@dataclass(frozen=True)
class CorpusRow:
    """One algorithm: `run(q, test)` on query answers `q`, `m` queries, claimed `ε`, the
    literature's verdict (and its `ε'` for `private at`), and where the verdict is proved."""

    name: str
    title: str
    make: Callable[[int], Run]
    m: int
    literature: str
    source: str
    eps: Fraction = EPS
    eps_private: Fraction | None = None
    family: tuple[int, ...] = ()  # Alg. 6: the members t (m = 2t queries) of the loss family
    noise: str = LAPLACE  # GAUSSIAN: decided by `gaussian_corpus` (certified)
    claim: tuple[ClaimPoint, ...] = ()  # (ε, δ) points; empty: the pure claim (eps, 0)
    claim_private: tuple[ClaimPoint, ...] = ()  # `private at` a weaker (ε, δ) claim
    relation: Relation | None = None  # a row stated under one relation only (None: any)
    # the literature's verdict under another relation: kind -> (verdict, eps_private)
    under: tuple[tuple[Neighbours, str, Fraction | None], ...] = ()
    scalable: bool = True  # `--queries` sets its m (False: the claim is stated at its own m)
    run_db: Callable[[Database, Any], Hashable] | None = None  # records: `universe`
    universe: tuple[Node, ...] = ()
    fresh_noise: bool = False  # `run_db` asks fresh-noise BTQuery tests (factor-bag laws)

    def mechanism(self, m: int | None = None) -> Callable[[Database, QueryTest], Hashable]:
        if self.run_db is not None:
            return self.run_db
        m = self.m if m is None else m
        from betweencut.boundary.isolation import carried

        run = self.make(m)
        return carried(lambda db, test: run(sc.query_answers(db, m), test), run)

    def stated(self, relation: Relation) -> CorpusRow:
        """This row under `relation` (its own, if it has one): the literature's verdict there."""
        from dataclasses import replace

        chosen = self.relation or relation
        for kind, verdict, eps_private in self.under:
            if kind is chosen.kind:
                return replace(self, relation=chosen, literature=verdict,
                               eps_private=eps_private)
        return replace(self, relation=chosen)


@dataclass
class RowResult:
    """The exact verdict of one row: whether its claim holds, the literature's verdict and
    whether they agree, the worst point and refutation found, and the row's evidence
    (`detail`: the largest loss, the ε' at which it holds, the loss family)."""

    row: CorpusRow
    holds: bool
    verdict: str
    agrees: bool
    pairs: int = 0
    detail: dict[str, Any] = field(default_factory=dict)
    worst: PointResult | None = None
    refutation: Refutation | None = None
    first: bool = False  # stopped at the first refuting pair (else every pair: the worst)

    def as_verdict(self) -> Verdict:
        """The row as a `Verdict` (the same shape as every audit), with the corpus's facts."""
        claim = (Claim.dp(self.row.eps, Fraction(0)) if not self.row.claim else Claim(
            "; ".join(f"({e}, {exact_str(d)})-DP" for e, d in self.row.claim),
            tuple(self.row.claim))).under(self.row.relation or Relation())
        literature = self.row.literature + (
            f" {self.row.eps_private}" if self.row.eps_private is not None else "")
        relation = self.row.relation or Relation()
        subject = {"name": self.row.name, "title": self.row.title, "queries": self.row.m,
                   "literature": literature, "source": self.row.source,
                   "neighbours": relation.text()}
        out = Verdict("corpus", subject, claim, self.holds, pairs=self.pairs, first=self.first)
        out.rows = [] if self.worst is None else [self.worst.row()]
        out.refutation = self.refutation
        out.facts = {"name": self.row.name, "queries": self.row.m, "literature": literature,
                     "neighbours": relation.text(),
                     "agrees": self.agrees, "found": self.verdict, "noise": self.row.noise,
                     **self.detail}
        out.assumes = self.assumes()
        return out

    def assumes(self) -> Assumes:
        """What the row's verdict rests on (`betweencut.proofs.assumes`): the package's own
        row or your mechanism (replayed), the pairs (listed, or every input at once by the
        reduction and its premise), the arithmetic (certified for the Gaussian rows)."""
        own = self.row.literature != UNKNOWN
        reduced = self.detail.get("method") == "reduction"
        pairs = a.reduction_items(own) if reduced else (
            a.pairs_listed(self.pairs, self.first and not self.holds),)
        return Assumes.of(a.code_items(own), pairs, a.arithmetic(self.row.noise != LAPLACE),
                          a.OTHER_PAIRS)

    def as_json(self) -> dict[str, Any]:
        return self.as_verdict().as_json(with_header=False)


def moves(z: Node) -> str:
    """How record `z` moves the queries: `z - 1` entry by entry."""
    return str(tuple(x - 1 for x in z))


def moves_of(pair: Neighbour) -> str:
    """How a pair moves the queries: `z - 1` (add/remove), `y - x` (replace `x` by `y`)."""
    if pair.replaced is None:
        return moves(pair.z)
    x, y = pair.replaced
    return str(tuple(b - a for a, b in zip(x, y, strict=True)))


def pairs_scope(size: int, m: int) -> str:
    """The pairs audited, in words (`|D| <= 0` is the empty database)."""
    databases = "D the empty database" if size == 0 else f"every D with |D| <= {size}"
    return f"{databases}, every z in {{0,1,2}}^{m}"


def pairs_of(m: int, size: int) -> list[tuple[Database, Node]]:
    """Every `(D, z)` with `|D| <= size`, `z ∈ {0, 1, 2}^m` (the add/remove pairs)."""
    records = list(itertools.product((0, 1, 2), repeat=m))
    return list(neighbouring_pairs(records, size))


def records_for(m: int, relation: Relation) -> list[Node]:
    """The record universe of the sparse-vector rows under `relation` (module docstring)."""
    values = (1, 2) if relation.is_replace else (0, 1, 2)
    return list(itertools.product(values, repeat=m))


def pairs_for(row: CorpusRow, size: int, relation: Relation) -> list[Neighbour]:
    """Every pair a row is audited on under `relation` (module docstring)."""
    records = list(row.universe) if row.run_db is not None else records_for(row.m, relation)
    if relation.is_replace:
        return list(replace_pairs(records, size + 1))
    return [Neighbour.add(db, z) for db, z in neighbouring_pairs(records,
                                                                 relation.largest(size))]


def pair_count(row: CorpusRow, size: int, relation: Relation) -> int:
    """How many pairs `pairs_for` lists (computed, not listed: the cost estimate)."""

    k = len(row.universe) if row.run_db is not None else (
        (2 if relation.is_replace else 3) ** row.m)
    if relation.is_replace:
        return sum(math.comb(k + n - 1, n) for n in range(size + 1)) * math.comb(k, 2)
    return sum(math.comb(k + n - 1, n) for n in range(relation.largest(size) + 1)) * k
