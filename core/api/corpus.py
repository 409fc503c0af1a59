"""`audit_corpus`: the exact verdicts on the sparse-vector corpus and report-noisy-max, or on a
user's `run(q, test)` over the same pairs (issue 16), as one `CorpusVerdict`."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from betweencut.api.load import FUNCTION, guarded, resolve
from betweencut.errors import ParameterError
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
        return {**header("corpus"), "size": self.size, "neighbours": "add-remove",
                "holds": self.holds,
                "worst": None if worst is None else worst.facts.get("name"),
                "refutation": self.refutation,
                "rows": [row.as_json(with_header=False) for row in self.rows]}

    def to_json(self) -> str:
        return json.dumps(self.as_json())

    def text(self) -> str:
        rows = [row.as_json(with_header=False) for row in self.rows]
        width = max((len(str(r["name"])) for r in rows), default=4)
        out = [f"{'name':<{width}}  eps  holds  agrees  verdict (literature)"]
        for row, r in zip(self.rows, rows, strict=True):
            eps = row.claim.points[0][0]
            out.append(f"{r['name']:<{width}}  {eps!s:<3}  {r['holds']!s:<5}  "
                       f"{r['agrees']!s:<6}  {r['found']} ({r['literature']})")
            if row.refutation is not None:
                out += ["    " + line for line in row.refutation.lines()[1:]]
            for member in r.get("loss_family", {}).get("members", []):
                out.append(f"    t = {member['t']}: moves {member['moves']}, event "
                           f"{member['output']}, loss in {member['loss_approx']}")
        agreeing = sum(bool(r["agrees"]) for r in rows)
        out.append(f"{agreeing} of {len(rows)} rows agree with the literature")
        return "\n".join(out)


def audit_corpus(
    size: int = 0,
    names: tuple[str, ...] | list[str] = (),
    *,
    mechanism: object = None,
    queries: int = 2,
    epsilon: object = 1,
) -> CorpusVerdict:
    """Every corpus row (or those `names`d) audited exactly on every pair with `|D| <= size`
    and every added record `z ∈ {0, 1, 2}^m`; or, with `mechanism` (a `run(q, test)` on `m =
    queries` query answers, or its `MODULE:CALLABLE`), that mechanism's claimed `epsilon`."""
    from betweencut.exact import as_rational
    from betweencut.proofs.baselines.corpus import audit_corpus as rows_of
    from betweencut.proofs.baselines.corpus import audit_row, user_row

    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise ParameterError("size", size, "a database size >= 0")
    if mechanism is None:
        return CorpusVerdict([r.as_verdict() for r in rows_of(size, tuple(names))], size)
    if names:
        raise ParameterError("names", list(names), "none with a mechanism of your own")
    user = resolve(mechanism)
    if user.kind != FUNCTION:
        raise ParameterError("mechanism", user.name, "a function run(q, test) -> output")
    row = user_row(user.name, guarded(user.name, user.target, _answers), queries,
                   as_rational(epsilon, "epsilon"))
    try:
        return CorpusVerdict([audit_row(row, size).as_verdict()], size)
    except MechanismNotReplayable as exc:
        raise MechanismNotReplayable(f"the mechanism {user.name} is not replayable: {exc}") \
            from None


def _answers(q: Any) -> str:
    try:
        return f"the query answers {tuple(str(x) for x in q)}"
    except Exception:  # never from the audit, which hands tuples of Fractions
        return f"the query answers {q!r}"
