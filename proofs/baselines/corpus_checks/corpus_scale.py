"""How a corpus row's pairs are decided: listed one by one, or all at once by the reduction.

`evidence(row, ...)` answers the questions `corpus.decide` asks (the point at a claimed `ε`, the
largest loss, an event with `Q = 0 < P`) either by listing every pair (`Listing`, through
`audit_pairs` on the real code) or by the monotone-vertex reduction (`Reduced`,
`betweencut.proofs.privacy.enumeration.every_input`, proved there) on the pairs it covers: the
add/remove pairs of the empty database (`A = {0}`, `B = [-1, 1]^m`) and the replace-one pairs
of one record (`A = B = [0, 1]^m`, records `{1, 2}^m`). Every pair the reduction reports is
re-decided by direct enumeration of the real code (`check_point`) and must agree, and its
probabilities must equal the symbolic run's (`cross_check`); a disagreement refuses the
reduction (`ReductionRefused`), never a verdict.
`tests/proofs/privacy/enumeration/test_every_input.py` checks that both
answer alike wherever both run (m <= 6), including on a mechanism that is not oblivious.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from fractions import Fraction
from typing import TYPE_CHECKING, Any, cast

from betweencut.data.notation import database_text, record_text, replacement_text
from betweencut.errors import ParameterError
from betweencut.noise.noisy_queries import LAPLACE
from betweencut.numbers.exact import midpoint_float
from betweencut.proofs.assumes import REDUCTION_PREMISE
from betweencut.proofs.baselines.corpus_checks.corpus_rows import UNKNOWN, CorpusRow, moves_of
from betweencut.proofs.exact.arith import ExpPoly, ExpRational, exact_str, sign
from betweencut.proofs.privacy.audit.pairs import (
    AuditVerdict,
    PointResult,
    audit_pairs,
    check_point,
    output_text,
)
from betweencut.proofs.privacy.divergence.curve import LogOf
from betweencut.proofs.privacy.enumeration.cache import LawCache, Mechanism, Neighbour
from betweencut.proofs.privacy.enumeration.every_input import (
    Box,
    Extremes,
    ReductionRefused,
    Violation,
    cross_check,
    decide_families,
    symbolic_outcomes,
)
from betweencut.proofs.privacy.enumeration.shared_noise import (
    ExactJoint,
    QueryLawCache,
    infinite_loss_event,
)
from betweencut.proofs.verdict import Direction, Refutation, Relation, Release

if TYPE_CHECKING:
    from betweencut.proofs.privacy.audit.search import EpsilonBound

__all__ = ["AUTO_LISTED", "MAX_LISTED", "Listing", "Reduced", "check_listing", "evidence",
           "family", "infinite_witness", "largest_loss", "loss_enclosure", "loss_facts",
           "precheck"]

AUTO_LISTED = 3**6  # "auto" lists up to the 729 pairs of m = 6 (today's listing), then reduces
MAX_LISTED = 20_000  # pairs listed at most (measured: 729 pairs of m = 6 in about 7 s)
USER_REDUCTION = ("a mechanism of your own is reduced only under method reduction, which "
                  "assumes that " + REDUCTION_PREMISE)
Progress = Callable[[str], None]


def check_listing(row: CorpusRow, size: int, count: int, reason: str) -> None:
    """Refuse, with its cost, a listing past `MAX_LISTED` pairs (`ParameterError` naming the
    database size and the row's number of queries, the two public inputs that set `count`)."""
    if count > MAX_LISTED:
        raise ParameterError(
            "size", f"{size} with m = {row.m} queries", f"{row.name}: at most {MAX_LISTED} "
            f"pairs listed; this relation, size and m give {count} pairs (about {count // 100} "
            f"s at 100 pairs a second), and the reduction does not apply: {reason}")


def precheck(row: CorpusRow, size: int, relation: Relation, count: int, method: str) -> None:
    """Refuse early, before any row is audited, a row that `evidence` would refuse after the
    rows before it (a listing too large and no reduction: no family, or a first answer
    sequence that reads its answers). Raises what `evidence` raises; never decides a row."""
    if count <= MAX_LISTED:
        return
    if row.noise != LAPLACE or row.run_db is not None:  # listed: Gaussian and database rows
        check_listing(row, size, count, "it reduces only the Laplace rows on query answers")
    if method == "listing":
        check_listing(row, size, count, "method listing")
    if method == "auto" and row.literature == UNKNOWN:
        check_listing(row, size, count, USER_REDUCTION)
    boxes = family(row, size, relation) if not row.claim else None
    if boxes is None:
        check_listing(row, size, count, "the reduction covers the add/remove pairs of the empty "
                      "database and the replace-one pairs of one record, for the rows that "
                      "scale")
        return
    try:
        next(symbolic_outcomes(row.make(row.m), row.m), None)
    except ReductionRefused as exc:
        if method == "reduction":
            raise ReductionRefused(exc.reason, row.name) from exc
        check_listing(row, size, count, exc.reason)


def family(row: CorpusRow, size: int, relation: Relation) -> tuple[Box, Box] | None:
    """The reduction's family of the row's pairs, when they form one (module docstring)."""
    if row.run_db is not None:
        return None
    m = row.m
    if relation.is_replace:
        return (Box((0,) * m, (1,) * m), Box((0,) * m, (1,) * m)) if size == 0 else None
    if relation.largest(size) == 0:
        return Box((0,) * m, (0,) * m), Box((-1,) * m, (1,) * m)
    return None


def _cache(row: CorpusRow) -> LawCache:
    run = row.mechanism()
    return LawCache(cast(Mechanism, run)) if row.fresh_noise else QueryLawCache(run)


class Listing:
    """Every pair, one by one (`audit_pairs` on the real code; each law enumerated once)."""

    def __init__(self, row: CorpusRow, pairs: list[Neighbour],
                 progress: Progress | None = None, first: bool = False) -> None:
        self.row, self.pairs_list, self.first = row, pairs, first
        self.cache = _cache(row)
        self.pairs = len(pairs)
        self.detail: dict[str, Any] = {"method": "listing"}
        self.progress = progress
        self.verdicts: dict[Fraction, AuditVerdict] = {}

    def verdict(self, eps: Fraction) -> AuditVerdict:
        found = self.verdicts.get(eps)
        if found is None:
            found = audit_pairs(cast(Mechanism, self.row.mechanism()), self.pairs_list,
                                [(eps, Fraction(0))], cache=self.cache, first=self.first)
            if self.progress is not None:
                self.progress(f"{self.row.name}: {found.pairs} pairs listed")
            if self.first and not self.verdicts and found.refutation is not None:
                self.pairs = found.pairs  # the audit at the claim stopped there
            self.verdicts[eps] = found
        return found

    def check(self, eps: Fraction) -> PointResult:
        found = self.verdict(eps)
        point = found.refutation if found.refutation is not None else found.tightest
        if point is None:
            raise ParameterError("pairs", 0, "at least one pair to audit")
        return point

    def largest_loss(self) -> dict[str, Any]:
        if not isinstance(self.cache, QueryLawCache):
            return {}
        return largest_loss(self.cache, self.pairs_list, queries=self.row.run_db is None)

    def largest_epsilon(self, delta: Fraction) -> EpsilonBound | None:
        """The largest `ε` at `delta` over every pair listed (each pair's exact curve), with
        its pair: the worst pair's `ε` (issue 35, item 4); with `first`, the first refuting
        pair's (the audit stopped there)."""
        from betweencut.proofs.privacy.audit.search import epsilon_lower_bound

        pairs = self.pairs_list
        if self.first:
            stopped = next(iter(self.verdicts.values()), None)
            if stopped is not None and stopped.refutation is not None:
                pairs = [stopped.refutation.neighbour]
        return epsilon_lower_bound(self.cache, pairs, delta)

    def infinite(self, eps: Fraction, prefer: Neighbour | None = None) -> Refutation | None:
        """An output with `Q = 0 < P` on some pair, on `prefer` (the worst pair) if it has
        one."""
        if isinstance(self.cache, QueryLawCache):
            pairs = self.pairs_list if prefer is None else [prefer, *self.pairs_list]
            return infinite_witness(self.cache, pairs, eps, queries=self.row.run_db is None)
        point = self.check(eps)  # factor-bag laws: the refuting event itself, when Q(S) = 0
        if not point.holds and point.stick.q_event.is_zero():
            return point.refutation("eps-DP for any eps", "Q(S) = 0 < P(S): private at no eps")
        return None


class Reduced:
    """Every pair of the family at once (the reduction), each reported pair re-decided."""

    def __init__(self, row: CorpusRow, size: int, relation: Relation, boxes: tuple[Box, Box],
                 count: int, progress: Progress | None = None) -> None:
        self.row, self.relation, self.progress = row, relation, progress
        self.confirmed = False  # the progress line of `confirm`, said once
        self.run = row.make(row.m)

        def tick(n: int, about: int | None) -> None:  # public counts; time under --diagnostics
            if progress is not None and n % 5000 == 0:
                of = "" if about is None else f" of about {about}"
                progress(f"{row.name}: {n}{of} answer sequences of the symbolic run")

        self.extremes: Extremes = decide_families(self.run, row.m, *boxes, progress=tick)
        if progress is not None:
            progress(f"{row.name}: every input at once: {self.extremes.sequences} answer "
                     f"sequences, {len(self.extremes.outputs)} outputs")
        self.cache = QueryLawCache(row.mechanism())
        self.pairs = count
        self.detail: dict[str, Any] = {
            "method": "reduction", "answer_sequences": self.extremes.sequences,
            "outputs": len(self.extremes.outputs)}

    def pair(self, found: Violation) -> Neighbour:
        """The databases of a reported pair of answer vectors."""
        a, b = found.sides()
        if not self.relation.is_replace:
            return Neighbour.add((), tuple(x + 1 for x in b))
        x, y = tuple(t + 1 for t in a), tuple(t + 1 for t in b)
        if x == y:  # equal laws (a loss of 0): any pair of the family attains it
            y = (3 - y[0], *y[1:])
        return Neighbour.replace((x,), x, y)

    def confirm(self, found: Violation) -> None:
        """The guard of the reduction: `found`'s pair through the real code (`cross_check`)."""
        if self.progress is not None and self.row.m > 8 and not self.confirmed:
            self.confirmed = True
            self.progress(f"{self.row.name}: re-deciding the pair it reports by direct "
                          "enumeration of the real code")
        cross_check(self.run, self.extremes, found)

    def point(self, found: Violation, eps: Fraction, refuted: bool) -> PointResult:
        self.confirm(found)
        pair = self.pair(found)
        point = check_point(self.cache, pair.first, pair.z, Release.OUTPUT, eps, Fraction(0),
                            pair if pair.replaced is not None else None)
        if point.holds == refuted:
            raise ReductionRefused(f"direct enumeration of the pair it reports disagrees at "
                                   f"eps = {eps}")
        return point

    def check(self, eps: Fraction) -> PointResult:
        found = self.extremes.check(eps)
        if found is not None:
            return self.point(found, eps, True)
        largest = self.extremes.largest_loss()
        if largest is None:
            raise ReductionRefused("no output has a positive probability on both sides")
        return self.point(largest, eps, False)

    def largest_loss(self) -> dict[str, Any]:
        found = self.extremes.largest_loss()
        if found is None:
            return {}
        self.confirm(found)
        return loss_facts(self.pair(found), found.output, found.p, found.q)

    def largest_epsilon(self, delta: Fraction) -> EpsilonBound | None:
        """The largest `ε` at `delta = 0` over every input at once: the pair of the largest
        loss `P(o)/Q(o)` the reduction reports (an output with `Q = 0 < P` first: no finite
        `ε`), re-decided by its exact curve through the real code."""
        if delta != 0:
            raise ReductionRefused("the reduction reports the largest epsilon at delta = 0 only")
        found = self.extremes.infinite() or self.extremes.largest_loss()
        if found is None:
            return None
        self.confirm(found)
        from betweencut.proofs.privacy.audit.search import epsilon_lower_bound

        return epsilon_lower_bound(self.cache, [self.pair(found)], delta)

    def infinite(self, eps: Fraction, prefer: Neighbour | None = None) -> Refutation | None:
        found = self.extremes.infinite()
        if found is None:
            return None
        self.confirm(found)
        witness = infinite_witness(self.cache, [self.pair(found)], eps)
        if witness is None:
            raise ReductionRefused("direct enumeration of its Q = 0 < P pair disagrees")
        return witness


def evidence(row: CorpusRow, size: int, relation: Relation, count: int, method: str,
             progress: Progress | None = None, first: bool = False) -> Listing | Reduced:
    """The listing or the reduction for `row` (see `corpus.audit_row` for `method`)."""
    from betweencut.proofs.baselines.corpus_checks.corpus_rows import pairs_for

    boxes = family(row, size, relation) if not row.claim else None
    user = row.literature == UNKNOWN
    if method == "listing" or (method == "auto" and (count <= AUTO_LISTED or boxes is None
                                                     or user)):
        check_listing(row, size, count, "method listing" if method == "listing" else
                      USER_REDUCTION if user and boxes is not None else
                      "it covers the add/remove pairs of the empty database and the "
                      "replace-one pairs of one record, for the rows that scale")
        if progress is not None and count > AUTO_LISTED:
            progress(f"{row.name}: listing {count} pairs")
        return Listing(row, pairs_for(row, size, relation), progress, first)
    if boxes is None:
        raise ParameterError("method", method, "listing for these pairs: the reduction covers "
                             "the add/remove pairs of the empty database and the replace-one "
                             "pairs of one record, for the rows that scale")
    try:
        return Reduced(row, size, relation, boxes, count, progress)
    except ReductionRefused as exc:
        if method == "reduction":  # name the row: the corpus asks many
            raise ReductionRefused(exc.reason, row.name) from exc
        check_listing(row, size, count, exc.reason)
        if progress is not None:
            progress(f"{row.name}: the reduction does not apply ({exc.reason}); listing "
                     f"{count} pairs")
        return Listing(row, pairs_for(row, size, relation), progress, first)


def loss_enclosure(p: ExpPoly, q: ExpPoly) -> tuple[float, float]:
    """Display only: bounds of `ln(P/Q)` (`P, Q > 0`) from its certified enclosure, of any
    size (never decides)."""
    lo, hi = LogOf(ExpRational(p, q)).enclose()
    return midpoint_float(lo, lo), midpoint_float(hi, hi)


def largest_loss(cache: QueryLawCache, pairs: Iterable[Neighbour], *, queries: bool = True
                 ) -> dict[str, Any]:
    """The pair and output with the largest `P(o)/Q(o)` (both directions), compared exactly
    (`P1·Q2` against `P2·Q1`); its loss `ln(P/Q)` is shown as an enclosure (display only).
    `queries`: the records are moves of query answers (False: a tree row's records)."""
    best: tuple[ExpPoly, ExpPoly, Neighbour, Hashable] | None = None
    for pair in pairs:
        joint = cast(ExactJoint, cache.pair_joint(pair, Release.OUTPUT))
        for o in joint.outputs:
            po, qo = joint.p.get(o, ExpPoly()), joint.q.get(o, ExpPoly())
            for p, q in ((po, qo), (qo, po)):
                if q.is_zero():
                    continue
                if best is None or sign(p * best[1] - best[0] * q) > 0:
                    best = (p, q, pair, o)
    if best is None:
        return {}
    p, q, pair, o = best
    return loss_facts(pair, o, p, q, queries=queries)


def loss_facts(pair: Neighbour, o: Hashable, p: ExpPoly, q: ExpPoly, *, queries: bool = True
               ) -> dict[str, Any]:
    """The largest loss's pair, output and exact `P`, `Q` as the corpus reports them (`moves`
    only where the records are moves of query answers)."""
    out = {"D": database_text(pair.first), "z": record_text(pair.z),
           **({"moves": moves_of(pair)} if queries else {}),
           "output": output_text(o), "P": exact_str(p), "Q": exact_str(q),
           "loss_approx": [round(x, 6) for x in loss_enclosure(p, q)]}
    if pair.replaced is not None:
        out["z"] = replacement_text(*pair.replaced)
        out["D_prime"] = database_text(pair.second)
    return out


def infinite_witness(cache: QueryLawCache, pairs: Iterable[Neighbour], eps: Fraction, *,
                     queries: bool = True) -> Refutation | None:
    """A refutation at every ε: an output with `P > 0 = Q` exactly, on the first pair that has
    one (`queries`: as in `largest_loss`)."""
    for pair in pairs:
        joint = cast(ExactJoint, cache.pair_joint(pair, Release.OUTPUT))
        found = infinite_loss_event(joint)
        if found is not None:
            o, p, direction = found
            replaced = pair.replaced is not None
            return Refutation(
                "eps-DP for any eps", database_text(pair.first),
                replacement_text(*pair.replaced) if pair.replaced else record_text(pair.z),
                Release.OUTPUT,
                Direction(direction).replaced() if replaced else Direction(direction),
                eps, (output_text(o),), 1, p, ExpPoly(), p, Fraction(0),
                "Q(S) = 0 < P(S): private at no eps" + (
                    f"; the pair moves the queries by {moves_of(pair)}" if queries else ""),
                database_text(pair.second) if replaced else None)
    return None
