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

from betweencut.errors import ParameterError, Undecided
from betweencut.notation import database_text, record_text, replacement_text
from betweencut.proofs.exact.arith import ExpPoly, ExpRational, exact_str
from betweencut.proofs.exact.enclosure import Enclosure
from betweencut.proofs.privacy.audit.mechanism import audit_pairs, output_text
from betweencut.proofs.privacy.divergence.components import Component, ComponentJoint
from betweencut.proofs.privacy.divergence.renyi import OrderResult, check_order, zcdp
from betweencut.proofs.privacy.enumeration.cache import (
    Database,
    LawCache,
    Mechanism,
    Neighbour,
    neighbouring_pairs,
    replace_pairs,
)
from betweencut.proofs.verdict import Claim as VerdictClaim
from betweencut.proofs.verdict import Direction, Refutation, Relation, Row, Verdict, enclosure
from betweencut.tree import Node

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


def _texts(pair: Neighbour) -> tuple[str, str, str | None]:
    if pair.replaced is None:
        return database_text(pair.first), record_text(pair.z), None
    return (database_text(pair.first), replacement_text(*pair.replaced),
            database_text(pair.second))


def _direction(pair: Neighbour, forward: bool) -> Direction:
    d = Direction.of(forward)
    return d if pair.replaced is None else d.replaced()


@dataclass
class _Renyi:
    """What the Rényi audit of a row found: the refuting order (with its pair and direction)
    or, when it holds, the arguments of every direction; the largest order-2 divergence."""

    holds: bool = True
    witness: tuple[Neighbour, bool, OrderResult, Sequence[Component]] | None = None
    arguments: list[dict[str, object]] = field(default_factory=list)
    closest: tuple[Neighbour, bool, OrderResult] | None = None


def _components(cache: LawCache, pair: Neighbour) -> ComponentJoint:
    joint = cache.pair_joint(pair, "output")
    if not isinstance(joint, ComponentJoint):
        raise ParameterError("mechanism", type(joint).__name__, "a mechanism asking the field's "
                             "primitives (betweencut.noise) for a Renyi or zCDP claim")
    return joint


def _renyi_audit(row: PublishedRow, cache: LawCache, pairs: list[Neighbour]) -> _Renyi:
    claim = row.claim
    found = _Renyi()
    for pair in pairs:
        joint = _components(cache, pair)
        for forward in (True, False):
            parts = joint.direction(forward)
            if claim.kind == ZCDP:
                result = zcdp(parts, claim.rho)
                if result.undecided:
                    raise Undecided(f"{row.name}: {result.undecided} (pair {_texts(pair)})")
                if not result.holds and result.witness is not None:
                    found.holds = False
                    found.witness = (pair, forward, result.witness, parts)
                    return found
                found.arguments.append({"pair": " ~ ".join(t for t in _texts(pair) if t),
                                        "direction": _direction(pair, forward).value,
                                        **result.argument})
                at_two = check_order(parts, Fraction(2), claim.rho * 2)
            else:
                at_two = check_order(parts, claim.order, claim.eps)
                if not at_two.holds:
                    found.holds = False
                    found.witness = (pair, forward, at_two, parts)
                    return found
            if not at_two.divergence.infinite and (found.closest is None or enclosure(
                    cast(Any, at_two.divergence), 64)[1] > enclosure(
                    cast(Any, found.closest[2].divergence), 64)[1]):
                found.closest = (pair, forward, at_two)
    return found


def _renyi_row(pair: Neighbour, forward: bool, result: OrderResult) -> Row:
    d, z, d_prime = _texts(pair)
    div = result.divergence
    value: Any = _DivergenceValue(div)
    return Row(d, z, "output", result.alpha, value, enclosure(value), result.bound,
               result.holds, _direction(pair, forward), {"exact": result.exact}, d_prime,
               order=result.alpha)


class _DivergenceValue(Enclosure):
    """`D_α` as an `Enclosure` whose exact text is its closed form (`log(S)/(α - 1)`)."""

    def __init__(self, divergence: Any) -> None:
        super().__init__(divergence.enclose, divergence.text())
        self.divergence = divergence

    def text(self) -> str:
        return str(self.divergence.text())


def _renyi_refutation(row: PublishedRow, pair: Neighbour, forward: bool, result: OrderResult,
                      parts: Sequence[Component]) -> Refutation:
    d, z, d_prime = _texts(pair)
    direction = _direction(pair, forward)
    bound: Any = result.bound
    if result.divergence.infinite:
        part = next(p for p in parts if not p.p.is_zero() and p.q.is_zero())
        return Refutation(
            row.claim.text, d, z, "output", direction, result.alpha,
            (output_text(part.output),), 1, part.p, ExpRational(ExpPoly()), part.p, bound,
            "D_alpha = oo at every order alpha > 1: this output has Q = 0 < P", d_prime,
            order=result.alpha)
    s = result.divergence.S
    limit: Any = (ExpPoly.exp((result.alpha - 1) * bound) if isinstance(bound, Fraction) else
                  _exp_enclosure(Enclosure.of(bound) * (result.alpha - 1)))
    return Refutation(
        row.claim.text, d, z, "output", direction, result.alpha, (), 0, cast(Any, s), limit,
        _DivergenceValue(result.divergence), bound,
        f"order {result.alpha}: P is the Renyi moment S, Q = e^((alpha - 1) * claimed), "
        f"D_alpha = ln(S)/(alpha - 1) against the claimed {exact_str(bound)}"
        + ("" if result.exact else " (certified)"), d_prime, order=result.alpha)


def _exp_enclosure(x: Enclosure) -> Enclosure:
    """`e^x` of an enclosed `x` (outward-rounded intervals)."""
    from mpmath import iv

    from betweencut.exact import iv_endpoints, iv_precision

    def at(prec: int) -> tuple[Fraction, Fraction]:
        lo, hi = x.enclose(prec)
        with iv_precision(prec + 16):
            a = iv_endpoints(iv.exp(iv.mpf(lo.numerator) / lo.denominator))[0]
            b = iv_endpoints(iv.exp(iv.mpf(hi.numerator) / hi.denominator))[1]
        return a, b

    return Enclosure(at, f"exp({x.label})")


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
        renyi = _renyi_audit(row, cache, pairs)
        out.holds = renyi.holds
        if renyi.witness is not None:
            pair, forward, result, parts = renyi.witness
            out.rows = [_renyi_row(pair, forward, result)]
            out.refutation = _renyi_refutation(row, pair, forward, result, parts)
            facts["found"] = (f"refuted at order {result.alpha}: D_{result.alpha} = "
                              f"{result.divergence.text()}")
            facts["witness_order"] = str(result.alpha)
        else:
            if renyi.closest is not None:
                out.rows = [_renyi_row(*renyi.closest)]
            facts["found"] = ("certified for every order alpha > 1 on every pair audited"
                              if claim.kind == ZCDP else "holds on every pair audited")
            facts["argument"] = renyi.arguments
    facts["agrees"] = out.holds == (row.expected == HOLDS)
    out.facts = facts
    return out

