"""The sparse-vector corpus's rows and results: what a row claims (`CorpusRow`: the mechanism,
its claimed `ε` or `(ε, δ)` points, the literature's verdict), what its audit found
(`RowResult`, as a `Verdict`), and the pairs every row is audited on. Shared by the exact
Laplace rows (`corpus`) and the certified Gaussian ones (`gaussian_corpus`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from betweencut.baselines import svt_corpus as sc
from betweencut.errors import ParameterError
from betweencut.noisy_queries import LAPLACE, QueryTest
from betweencut.proofs.exact.arith import exact_str
from betweencut.proofs.privacy.audit.mechanism import ClaimPoint, PointResult
from betweencut.proofs.privacy.enumeration.cache import Database, neighbouring_pairs
from betweencut.proofs.verdict import Claim, Refutation, Verdict
from betweencut.tree import Node

__all__ = ["EPS", "MAX_CORPUS_PAIRS", "NOWHERE", "PRIVATE", "PRIVATE_AT", "UNKNOWN", "CorpusRow",
           "RowResult", "check_size", "moves", "pair_count", "pairs_of", "pairs_scope"]

PRIVATE, PRIVATE_AT, NOWHERE = "private", "private at", "private at no eps"
UNKNOWN = "unknown"  # a user's mechanism: no literature verdict, `agrees` means `holds`
EPS = Fraction(1)
Run = Callable[[tuple[Fraction, ...], QueryTest], Hashable]

MAX_CORPUS_PAIRS = 20_000  # pairs of one row's audit (two queries: size <= 5; three: <= 2)


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

    def mechanism(self, m: int | None = None) -> Callable[[Database, QueryTest], Hashable]:
        m = self.m if m is None else m
        run = self.make(m)
        return lambda db, test: run(sc.query_answers(db, m), test)


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

    def as_verdict(self) -> Verdict:
        """The row as a `Verdict` (the same shape as every audit), with the corpus's facts."""
        claim = (Claim.dp(self.row.eps, Fraction(0)) if not self.row.claim else Claim(
            "; ".join(f"({e}, {exact_str(d)})-DP" for e, d in self.row.claim),
            tuple(self.row.claim)))
        literature = self.row.literature + (
            f" {self.row.eps_private}" if self.row.eps_private is not None else "")
        subject = {"name": self.row.name, "title": self.row.title, "queries": self.row.m,
                   "literature": literature, "source": self.row.source}
        out = Verdict("corpus", subject, claim, self.holds, pairs=self.pairs)
        out.rows = [] if self.worst is None else [self.worst.row()]
        out.refutation = self.refutation
        out.facts = {"name": self.row.name, "queries": self.row.m, "literature": literature,
                     "agrees": self.agrees, "found": self.verdict, "noise": self.row.noise,
                     **self.detail}
        return out

    def as_json(self) -> dict[str, Any]:
        return self.as_verdict().as_json(with_header=False)


def moves(z: Node) -> str:
    """How record `z` moves the queries: `z - 1` entry by entry."""
    return str(tuple(x - 1 for x in z))


def pair_count(m: int, size: int) -> int:
    """The number of pairs `(D, z)`, `|D| <= size`, `z ∈ {0, 1, 2}^m` (public: `m`, `size`)."""
    records: int = 3**m
    return sum(math.comb(records + n - 1, n) for n in range(size + 1)) * records


def pairs_scope(size: int, m: int) -> str:
    """The pairs audited, in words (`|D| <= 0` is the empty database)."""
    databases = "D the empty database" if size == 0 else f"every D with |D| <= {size}"
    return f"{databases}, every z in {{0,1,2}}^{m}"


def check_size(m: int, size: int) -> None:
    """Refuse up front an audit of more than `MAX_CORPUS_PAIRS` pairs (its laws and pairs are
    held in memory: `--size 64` on two queries is about 10^12 pairs)."""
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise ParameterError("size", size, "a database size >= 0")
    count = pair_count(m, size)
    if count > MAX_CORPUS_PAIRS:
        fits = [n for n in range(min(size, 64) + 1) if pair_count(m, n) <= MAX_CORPUS_PAIRS]
        hint = f"size <= {max(fits)} fits" if fits else "no size fits"
        raise ParameterError("size", size, f"at most {MAX_CORPUS_PAIRS} neighbouring pairs "
                             f"(m = {m} queries: {count} pairs; {hint})")


def pairs_of(m: int, size: int) -> list[tuple[Database, Node]]:
    """Every `(D, z)` with `|D| <= size`, `z ∈ {0, 1, 2}^m` (every row, Gaussian ones too),
    refused up front past `MAX_CORPUS_PAIRS` (`check_size`)."""
    check_size(m, size)
    records = list(itertools.product((0, 1, 2), repeat=m))
    return list(neighbouring_pairs(records, size))
