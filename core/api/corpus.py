"""`audit_corpus`: the exact verdicts on the sparse-vector corpus and report-noisy-max, or on a
user's `run(q, test)` over the same pairs (issue 16), as one `CorpusVerdict`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from betweencut.api.load import FUNCTION, guarded, resolve
from betweencut.boundary.seal import sealing
from betweencut.errors import ParameterError
from betweencut.proofs.assumes import Assumes
from betweencut.proofs.assumes import strict as strict_items
from betweencut.proofs.privacy.enumeration.transcripts import MechanismNotReplayable
from betweencut.proofs.verdict import EXIT_HOLDS, EXIT_REFUTED, Verdict
from betweencut.schemas import header


@dataclass
class CorpusVerdict:
    """One `Verdict` per row (its claim audited exactly, with the literature's verdict and
    whether they agree, `facts["agrees"]`). `holds`: every row agrees with the literature (for
    a user's mechanism, which has none: its claim holds on every pair audited)."""

    rows: list[Verdict] = field(default_factory=list)
    size: int = 0
    neighbours: str = "add-remove"

    @property
    def holds(self) -> bool:
        return all(bool(row.facts.get("agrees")) for row in self.rows)

    @property
    def worst(self) -> Verdict | None:
        """The first row that disagrees with the literature, else None."""
        return next((row for row in self.rows if not row.facts.get("agrees")), None)

    @property
    def refutation(self) -> dict[str, Any] | None:
        """The first disagreeing row's counterexample (None: every row agrees, or it has none)."""
        worst = self.worst
        if worst is None or worst.refutation is None:
            return None
        return worst.refutation.as_json()

    @property
    def exit_status(self) -> int:
        return EXIT_HOLDS if self.holds else EXIT_REFUTED

    def as_json(self) -> dict[str, Any]:
        worst = self.worst
        return {**header("corpus"), "size": self.size, "neighbours": self.neighbours,
                "holds": self.holds,
                "worst": None if worst is None else worst.facts.get("name"),
                "refutation": self.refutation,
                "rows": [row.as_json(with_header=False) for row in self.rows]}


    def __str__(self) -> str:
        """`text()`: printing the answer shows what `betweencut audit corpus` prints."""
        return self.text()

    def __repr__(self) -> str:
        return (f"CorpusVerdict(rows={len(self.rows)}, size={self.size}, "
                f"neighbours={self.neighbours!r}, holds={self.holds})")

    def text(self) -> str:
        rows = [row.as_json(with_header=False) for row in self.rows]
        width = max((len(str(r["name"])) for r in rows), default=4)
        common = Assumes.common(row.assumes for row in self.rows)  # said once, at the end
        out = [f"neighbours: {self.neighbours} (a row stated under one relation says so); "
               f"databases of at most {self.size + 1} records",
               f"{'name':<{width}}  m    eps  holds  agrees  verdict (literature)"]
        for row, r in zip(self.rows, rows, strict=True):
            eps = row.claim.points[0][0] if row.claim.points else row.claim.text
            own = "" if r["neighbours"] == self.neighbours else f" [{r['neighbours']}]"
            out.append(f"{r['name']:<{width}}  {r['queries']!s:<3}  {eps!s:<3}  "
                       f"{r['holds']!s:<5}  {r['agrees']!s:<6}  {r['found']} "
                       f"({r['literature']}){own}; {r['pairs']} pairs, "
                       f"{r.get('method', 'listing')}")
            out += [f"    {item.line()}" for item in row.assumes.without(common).items
                    if not item.checked]  # the row's own assumptions (the JSON: every item)
            report = r.get("report")
            if isinstance(report, dict):
                out.append(f"    report: {report['where']}, {report['date']}: {report['url']}")
            if row.refutation is not None:
                out += ["    " + line for line in row.refutation.lines()[1:]]
                out += _worst_lines(r)
            for member in r.get("loss_family", {}).get("members", []):
                out.append(f"    t = {member['t']}: moves {member['moves']}, event "
                           f"{member['output']}, loss in {member['loss_approx']}")
        agreeing = sum(bool(r["agrees"]) for r in rows)
        out.append(f"{agreeing} of {len(rows)} rows agree with the literature")
        out += common.block("")
        return "\n".join(out)


def _worst_lines(r: dict[str, Any]) -> list[str]:
    """A refuted row's worst pair (issue 35, item 4): the largest `δ(ε)` at the claim and the
    largest `ε` at `δ = 0` over the pairs audited, each with its pair (display floats beside
    the exact values of the JSON row: `worst`, `epsilon_at_delta_0_exact`)."""
    out: list[str] = []

    def where(pair: dict[str, Any]) -> str:
        return f"D = {pair['D']}, " + (f"z = {pair['z']}" if pair.get("D_prime") is None
                                       else f"D' = {pair['D_prime']} ({pair['z']})")

    worst, at = r.get("worst"), r.get("epsilon_at_delta_0_pair")
    which = ("first refuting pair (--first: not the worst)", "eps at delta = 0 on it") if \
        r["first"] else ("worst pair", "largest eps at delta = 0")
    if isinstance(worst, dict) and not worst["holds"]:
        out.append(f"    {which[0]}: delta({worst['eps']}) = {worst['delta']:.6g} (exact: "
                   f"{worst['delta_exact']}) on {where(worst)}")
    if isinstance(at, dict):
        value = ("inf (no finite eps)" if r.get("epsilon_at_delta_0") is None else
                 f"{r['epsilon_at_delta_0_approx']:.6g} (exact: {r['epsilon_at_delta_0_exact']})")
        out.append(f"    {which[1]}: {value} on {where(at)}")
    gauss = r.get("epsilon_at_delta_pair")  # a Gaussian row: certified, at the claimed delta
    if isinstance(gauss, dict) and "epsilon_at_delta_in" in r:
        lo, hi = r["epsilon_at_delta_in"]
        label = "eps at delta on it" if r["first"] else "largest eps at delta"
        out.append(f"    {label} = {r['epsilon_at_delta_delta_exact']}: in [{lo}, {hi}] "
                   f"(certified) on {where(gauss)}")
    return out


@sealing
def audit_corpus(
    size: int = 0,
    names: tuple[str, ...] | list[str] = (),
    *,
    mechanism: object = None,
    queries: int | None = None,
    epsilon: object = 1,
    neighbours: object = "add-remove",
    method: str = "auto",
    progress: Callable[[str], None] | None = None,
    published: bool = False,
    strict: bool = False,
    first: bool = False,
) -> CorpusVerdict:
    """Every corpus row (or those `names`d) audited exactly on every neighbouring pair of
    databases of at most `size + 1` records under `neighbours` ("add-remove", the default,
    "replace-one" or "add-remove-bounded:N"; each row states the relation it used), with `m =
    queries` query answers for the rows that scale (default: each row's own m); or, with
    `mechanism` (a `run(q, test)` on `m = queries` answers, default 2, or its
    `MODULE:CALLABLE`), that mechanism's claimed `epsilon`. `method`: "auto" (lists up to the
    729 pairs of m = 6, past that decides every pair at once by the proved reduction, listing
    where it does not apply; a mechanism of your own is listed, up to 20,000 pairs), "listing"
    or "reduction" (for your own mechanism it assumes what the row's `assumes` says).
    `progress(line)` receives public cost estimates and progress lines on long runs.
    `published=True` audits the published privacy bugs instead, each row a bug as published
    or its fix, citing its report (`names` picks rows; `size` sets the tree rows' databases,
    the other rows state their own pairs). `strict=True` (with `mechanism`): its source is
    first verified pure (`betweencut.boundary.purity`, issue 34), before any of it runs; the
    verdict states "pure: verified". `first=True`: a refuted row listed pair by pair stops at
    its first refuting pair (by default it goes on and reports the worst pair, the
    largest `δ` at the claim and the largest `ε` at `δ = 0`: issue 35, item 4)."""
    from betweencut.data.validate import exact_value
    from betweencut.proofs.baselines.corpus_checks.corpus import audit_corpus as rows_of
    from betweencut.proofs.baselines.corpus_checks.corpus import audit_row, user_row
    from betweencut.proofs.verdict import Relation

    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise ParameterError("size", size, "a database size >= 0")
    if not isinstance(strict, bool) or (strict and mechanism is None):
        raise ParameterError("strict", strict, "True with a mechanism of your own, or False")
    if not isinstance(first, bool):
        raise ParameterError("first", repr(first), "True or False")
    relation = Relation.of(neighbours)
    if published:
        from betweencut.proofs.baselines.corpus_checks.published_rows import audit_published_corpus

        if mechanism is not None or queries is not None or method != "auto" or (
                relation != Relation()):
            raise ParameterError("published", True, "no mechanism, queries, method or "
                                 "neighbours (each published row states its own pairs)")
        return CorpusVerdict(audit_published_corpus(tuple(names), size), size,
                             "as each row states")
    if mechanism is None:
        rows = rows_of(size, tuple(names), queries=queries, neighbours=relation, method=method,
                       progress=progress, first=first)
        return CorpusVerdict([r.as_verdict() for r in rows], size, relation.text())
    if names:
        raise ParameterError("names", list(names), "none with a mechanism of your own")
    user = resolve(mechanism, strict=strict)
    if user.kind != FUNCTION:
        raise ParameterError("mechanism", user.name, "a function run(q, test) -> output")
    row = user_row(user.name, guarded(user.name, user.target, _answers),
                   2 if queries is None else queries, exact_value(epsilon, "epsilon"))
    try:
        result = audit_row(row, size, neighbours=relation, method=method, progress=progress,
                           first=first)
    except MechanismNotReplayable as exc:
        raise MechanismNotReplayable(f"the mechanism {user.name} is not replayable: {exc}") \
            from None
    verdict = result.as_verdict()
    verdict.assumes = strict_items(verdict.assumes, user.pure)
    return CorpusVerdict([verdict], size, relation.text())


def _answers(q: Any) -> str:
    from betweencut.noise.answers import QueryAnswer

    try:  # a symbol by its name: its text would be a read of q (a trip)
        return ("the query answers "
                f"{tuple(x.symbol if isinstance(x, QueryAnswer) else str(x) for x in q)}")
    except Exception:  # never from the audit, which hands tuples of Fractions
        return f"the query answers {q!r}"
