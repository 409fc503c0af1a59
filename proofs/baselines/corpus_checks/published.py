"""Published privacy bugs, each a pair of corpus rows: the code as published, refuted with its
exact counterexample, and the fix, certified on the same pairs (issue 37).

A `PublishedRow` names a mechanism of `betweencut.baselines.published` (the privacy-relevant
step of the published code, written against the seam), the neighbouring pairs it is audited on,
the claim the library or paper made (`Claim`: `(ε, δ)`-DP points, `ρ`-zCDP at every order, or
`(α, ε)`-RDP at one order), the verdict the report implies (`expected`), its sibling row (the
fix, or the bug) and the report itself (`Report`: where, when, what was published).
`audit_published(row)` decides the claim on every pair by exact enumeration of the real code
(`betweencut.proofs.privacy.enumeration.noise_kind`):

* `(ε, δ)` claims through `audit_pairs` (the hockey stick, exact or certified);
* `ρ`-zCDP through `betweencut.proofs.privacy.divergence.renyi.zcdp` on both directions of every
  pair: refuted at a stated order with the exact divergence, or certified for every `α > 1`;
* `(α, ε)`-RDP at its one order (exact at integer orders).

The answer is a `Verdict` (the corpus's row shape: `name`, `literature`, `agrees`, `found`),
with the report in its facts. The rows themselves are in `published_rows`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Union, cast

from betweencut.data.tree import Node
from betweencut.proofs import assumes as a
from betweencut.proofs.assumes import Assumes
from betweencut.proofs.exact.arith import ExpPoly, exact_str
from betweencut.proofs.privacy.audit.pairs import audit_pairs
from betweencut.proofs.privacy.audit.renyi_claims import (
    RenyiClaim,
    audit_renyi,
    renyi_refutation,
    renyi_row,
)
from betweencut.proofs.privacy.enumeration.cache import (
    Database,
    LawCache,
    Mechanism,
    Neighbour,
    neighbouring_pairs,
    replace_pairs,
)
from betweencut.proofs.verdict import Claim as VerdictClaim
from betweencut.proofs.verdict import Relation, Verdict

__all__ = ["DP", "HOLDS", "RDP", "REFUTED", "ZCDP", "Claim", "PublishedRow", "Report",
           "add_remove", "audit_published", "replace_exact", "replace_one"]

DP, ZCDP, RDP = "dp", "zcdp", "rdp"
HOLDS, REFUTED = "holds", "refuted"
Rho = Union[Fraction, ExpPoly]  # noqa: UP007
Run = Callable[[Database, Any], Hashable]


@dataclass(frozen=True)
class Report:
    """Where the claim or the bug was published: `where` (repository and number, or venue),
    `url`, `date` (ISO, of the report) and what `published` says."""

    where: str
    url: str
    date: str
    published: str


@dataclass(frozen=True)
class Claim:
    """A claim: `(ε, δ)` points (`DP`), `ρ`-zCDP (`ZCDP`: `D_α <= ρα` for every `α > 1`), or
    `(α, ε)`-RDP at one order (`RDP`)."""

    kind: str
    points: tuple[tuple[Fraction, Fraction], ...] = ()
    rho: Rho = Fraction(0)
    order: Fraction = Fraction(0)
    eps: Fraction = Fraction(0)
    shown: str = ""  # the claim in the report's words (e.g. "rho = eps^2/8 = 1/2")

    @property
    def text(self) -> str:
        if self.kind == DP:
            return "; ".join(f"({e}, {d})-DP" for e, d in self.points)
        if self.kind == ZCDP:
            return (f"{self.rho}-zCDP" if isinstance(self.rho, Fraction) else
                    f"rho-zCDP, rho = {exact_str(self.rho)}")
        return f"({self.order}, {self.eps})-RDP"

    def verdict_claim(self, relation: Relation) -> VerdictClaim:
        if self.kind == DP:
            return VerdictClaim(self.text, tuple(self.points)).under(relation)
        parameters: dict[str, object] = {"measure": self.kind, "as_published": self.shown}
        if self.kind == ZCDP:
            parameters["rho"] = exact_str(self.rho)
        else:
            parameters.update(order=str(self.order), eps=str(self.eps))
        return VerdictClaim(self.text, (), parameters=parameters).under(relation)


def add_remove(records: Sequence[Node], size: int) -> list[Neighbour]:
    """Every `(D, D + z)`, `|D| <= size`, records from `records`."""
    return [Neighbour.add(db, z) for db, z in neighbouring_pairs(list(records), size)]


def replace_one(records: Sequence[Node], size: int) -> list[Neighbour]:
    """Every replace-one pair of databases of `1..size + 1` records from `records`."""
    return list(replace_pairs(list(records), size + 1))


def replace_exact(records: Sequence[Node], n: int) -> list[Neighbour]:
    """Every replace-one pair of databases of exactly `n` records (a public `n`)."""
    return [pair for pair in replace_pairs(list(records), n) if len(pair.first) == n]


@dataclass(frozen=True)
class PublishedRow:
    """One row: the mechanism `run(D, test)`, its pairs (`pairs()`), the claim, the verdict the
    report implies (`expected`), the sibling row (`sibling`) and the report."""

    name: str
    title: str
    report: Report
    run: Run
    pairs: Callable[[], list[Neighbour]]
    claim: Claim
    expected: str
    sibling: str
    relation: Relation = field(default_factory=Relation)
    reduced: str = ""  # how the published code is reduced to the step audited
    first: tuple[Neighbour, ...] = ()  # the report's own reproducer, audited first

    def audited_pairs(self) -> list[Neighbour]:
        rest = [p for p in self.pairs() if p not in self.first]
        return [*self.first, *rest]


def audit_published(row: PublishedRow) -> Verdict:
    """Decide `row`'s claim on every pair it lists (module docstring); the `Verdict` of a
    corpus row, with the report, whether the exact verdict agrees with the report's
    (`agrees`) and what was found (`found`)."""
    run = cast(Mechanism, row.run)
    cache = LawCache(run)
    pairs = row.audited_pairs()
    claim = row.claim
    facts: dict[str, Any] = {
        "name": row.name, "queries": 0, "literature": row.expected,
        "neighbours": row.relation.text(), "pair_row": row.sibling,
        "report": {"where": row.report.where, "url": row.report.url, "date": row.report.date,
                   "published": row.report.published},
        "reduced": row.reduced, "method": "exact enumeration of the real code"}
    subject = {"name": row.name, "title": row.title, "source": row.report.where,
               "date": row.report.date, "neighbours": row.relation.text()}
    out = Verdict("corpus", subject, claim.verdict_claim(row.relation), True, pairs=len(pairs))
    renyi_claim = (RenyiClaim(ZCDP, rho=claim.rho) if claim.kind == ZCDP else
                   RenyiClaim(RDP, order=claim.order, eps=claim.eps))
    if claim.kind == DP:
        found = audit_pairs(run, pairs, list(claim.points), cache=cache)
        out.holds = found.holds
        worst = found.worst
        out.rows = [] if worst is None else [worst.row()]
        if found.refutation is not None:
            out.refutation = found.refutation.refutation(claim.text, row.reduced)
            infinite = found.refutation.stick.q_event.is_zero()
            facts["found"] = ("refuted; private at no eps (an event with Q = 0 < P)"
                              if infinite else "refuted")
            out.pairs = found.pairs
        else:
            facts["found"] = "holds on every pair audited"
    else:
        renyi = audit_renyi(cache, pairs, renyi_claim)
        out.holds = renyi.holds
        if renyi.witness is not None:
            pair, forward, result, parts = renyi.witness
            out.rows = [renyi_row(pair, forward, result)]
            out.refutation = renyi_refutation(claim.text, pair, forward, result, parts)
            facts["found"] = (f"refuted at order {result.alpha}: D_{result.alpha} = "
                              f"{result.divergence.text()}")
            facts["witness_order"] = str(result.alpha)
            out.pairs = renyi.pairs
        else:
            if renyi.closest is not None:
                out.rows = [renyi_row(*renyi.closest)]
            facts["found"] = ("certified for every order alpha > 1 on every pair audited"
                              if claim.kind == ZCDP else "holds on every pair audited")
            facts["argument"] = renyi.arguments
    facts["agrees"] = out.holds == (row.expected == HOLDS)
    out.facts = facts
    out.assumes = Assumes.of(
        a.OWN_CODE, a.TRANSCRIBED,
        a.ARITHMETIC_EXACT if claim.kind == DP else a.ARITHMETIC_RENYI,
        a.pairs_given(out.pairs, len(pairs)), a.OTHER_PAIRS)
    return out

