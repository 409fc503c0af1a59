"""`audit`: the main job as a library call: every registered claim checked (or one group's),
answered as a `ClaimsVerdict` (`holds`, `worst`, `refutation`, `rows`, `as_json()`, `text()`).
"""

from __future__ import annotations

import textwrap
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from betweencut.errors import MissingExtra, ParameterError, Undecided
from betweencut.proofs import CLAIMS, AuditCase, Certificate, ClaimRefuted, audit_cases
from betweencut.proofs import assumes as a
from betweencut.proofs.assumes import Assumes
from betweencut.proofs.exact.certificate import jsonable
from betweencut.proofs.verdict import EXIT_HOLDS, EXIT_REFUTED, EXIT_UNDECIDED
from betweencut.schemas import header

HOLDS, REFUTED, UNDECIDED = "holds", "REFUTED", "undecided"
TEXT_COLUMNS = 100  # the text report wraps to this width (a refuted claim's detail aside)
NOT_CHECKED = "not checked"  # needs an optional extra that is not installed
EXIT_MISSING_EXTRA = 2


def cases(group: str | None = None) -> list[AuditCase]:
    """The registered cases, the structural claims included: `betweencut.properties.structure_audit`
    registers them (proofs may not import properties; this composition layer joins both)."""
    audit_cases()  # the proofs' cases first, so the table lists them first
    from betweencut.properties import structure_audit as _structure  # noqa: F401  (registers them)

    return audit_cases(group)


def groups() -> list[str]:
    """The audit's groups, sorted."""
    return sorted({case.group for case in cases()})


@dataclass(frozen=True)
class ClaimRow:
    """One registered claim: its verdict, how it was checked, over what."""

    group: str
    claim: str
    verdict: str
    method: str
    checks: int
    checked: str
    detail: str = ""
    counterexample: dict[str, Any] | None = None
    seconds: float = 0.0
    extra: str = ""  # the optional extra a "not checked" claim needs

    @property
    def holds(self) -> bool:
        return self.verdict == HOLDS

    def as_json(self, diagnostics: bool = False) -> dict[str, Any]:
        out = {"group": self.group, "claim": self.claim, "verdict": self.verdict,
               "holds": self.holds, "method": self.method, "checks": self.checks,
               "checked": self.checked, "detail": self.detail,
               "counterexample": jsonable(self.counterexample)}
        if diagnostics:
            out["seconds"] = round(self.seconds, 3)
        return out


@dataclass
class ClaimsVerdict:
    """The answer of `audit()`: one row per registered claim; `refutation` the first refuted
    claim's counterexample; `exit_status` 0 all hold, 1 one refuted, 3 one undecided.

    A claim whose checker needs an optional extra that is not installed is "not checked" (its
    `detail` names the extra): `holds` speaks of the claims checked, `not_checked` lists the
    others, and `exit_status` is 2 when a group was asked for and some of it could not be
    checked. The whole audit (no group) checks what the installation can and exits 0 when all
    of that holds; its last line names the extra that checks the rest."""

    rows: list[ClaimRow] = field(default_factory=list)
    group: str | None = None

    @property
    def holds(self) -> bool:
        return all(row.holds for row in self.rows if row.verdict != NOT_CHECKED)

    @property
    def not_checked(self) -> list[ClaimRow]:
        return [row for row in self.rows if row.verdict == NOT_CHECKED]

    def missing_extras(self) -> str:
        """`pip install 'betweencut[fast]'` for the extras the not-checked claims need."""
        extras = sorted({row.extra for row in self.not_checked})
        return f"pip install 'betweencut[{','.join(extras)}]'" if extras else ""

    @property
    def worst(self) -> ClaimRow | None:
        """The first claim that does not hold (refuted before undecided), else None."""
        for verdict in (REFUTED, UNDECIDED):
            for row in self.rows:
                if row.verdict == verdict:
                    return row
        return None

    @property
    def refutation(self) -> dict[str, Any] | None:
        for row in self.rows:
            if row.verdict == REFUTED:
                return {"claim": row.claim, "detail": row.detail,
                        "counterexample": jsonable(row.counterexample)}
        return None

    @property
    def exit_status(self) -> int:
        verdicts = {row.verdict for row in self.rows}
        if verdicts - {HOLDS, UNDECIDED, NOT_CHECKED}:
            return EXIT_REFUTED
        if UNDECIDED in verdicts:
            return EXIT_UNDECIDED
        if NOT_CHECKED in verdicts and self.group is not None:
            return EXIT_MISSING_EXTRA
        return EXIT_HOLDS

    @property
    def assumes(self) -> Assumes:
        """What these verdicts rest on (`betweencut.proofs.assumes`): the package's own code,
        each claim on its grid by its method, the claims checked as properties only tested,
        and those not checked here for want of an optional extra."""
        sampled = any("property" in row.method for row in self.rows)
        missing = len(self.not_checked)
        return Assumes.of(a.OWN_CODE, a.CLAIMS_ARITHMETIC, a.CLAIMS_GRID,
                          [a.CLAIMS_SAMPLED] if sampled else [],
                          [a.claims_not_checked(missing, self.missing_extras())] if missing
                          else [])

    def as_json(self, diagnostics: bool = False) -> dict[str, Any]:
        worst = self.worst
        return {**header("claims"), "group": self.group, "holds": self.holds,
                "worst": None if worst is None else worst.as_json(),
                "refutation": self.refutation,
                "not_checked": [row.claim for row in self.not_checked],
                "rows": [row.as_json(diagnostics) for row in self.rows],
                "assumes": self.assumes.as_json()}


    def __str__(self) -> str:
        """`text()`: printing the answer shows what `betweencut audit` prints (issue 36)."""
        return self.text()

    def __repr__(self) -> str:
        verdicts = [row.verdict for row in self.rows]
        tally = ", ".join(f"{v}={verdicts.count(v)}" for v in dict.fromkeys(verdicts))
        return f"ClaimsVerdict(group={self.group!r}, claims={len(self.rows)}: {tally})"

    def text(self, columns: int = TEXT_COLUMNS) -> str:
        """One block per claim: verdict and claim, then its groups, method and what was
        checked, wrapped to `columns` (a refuted or undecided claim's detail on one line)."""
        out: list[str] = []
        indent = " " * 12
        for r in self.rows:
            out.append(f"{r.verdict:<11} {r.claim}")
            for label, text in (("group", r.group), ("method", r.method),
                                ("checked", r.checked)):
                out += textwrap.wrap(f"{label}: {text}", columns, initial_indent=indent,
                                     subsequent_indent=indent + "  ", break_on_hyphens=False)
            if not r.holds:
                out.append(f"{indent}{r.detail}")
        held = sum(r.holds for r in self.rows)
        last = f"{held} of {len(self.rows)} claims hold"
        if self.not_checked:
            last += (f"; {len(self.not_checked)} not checked here, for want of an optional "
                     f"extra: {self.missing_extras()} checks them")
        out += self.assumes.block("")
        out.append(last)  # the last line: the tally, and the extra that checks the rest
        return "\n".join(out)


def registry_claim(name: str) -> str:
    """The registered claim a certificate's claim belongs to: itself, or the longest registered
    name it starts with (`Eq. (25), X = L` belongs to `Eq. (25)`)."""
    if name in CLAIMS:
        return name
    prefixes = [c for c in CLAIMS if name.startswith(c)]
    return max(prefixes, key=len) if prefixes else name


def _checked(certs: Sequence[Certificate]) -> str:
    """What was checked, in a few words: how many checks over which parameters, or the runs
    ("nothing" when no check completed, never "0 check")."""
    if not certs:
        return "nothing"
    runs = [c for c in certs if c.method == "property" or "runs" in c.quantities
            or "heights" in c.quantities]
    if runs:
        return "; ".join(c.scope for c in runs)
    values: dict[str, set[str]] = {}
    for cert in certs:
        for key, value in cert.parameters.items():
            values.setdefault(key, set()).add(str(value))
    grid = ", ".join(f"{k} ({len(v)} value{'s' if len(v) > 1 else ''})"
                     for k, v in sorted(values.items()))
    return f"{len(certs)} check{'s' if len(certs) > 1 else ''}" + (f" over {grid}" if grid else "")


def audit(
    group: str | None = None,
    progress: Callable[[Iterable[Any], int], Iterable[Any]] | None = None,
) -> ClaimsVerdict:
    """Every registered claim checked on its built-in grid (or one `group`'s): a
    `ClaimsVerdict` with one row per claim (verdict, method, number of checks, what was
    checked) and, for a refuted claim, its counterexample."""
    known = groups()
    if group is not None and group not in known:
        raise ParameterError("group", group, f"one of {', '.join(known)}")
    todo = cases(group)
    order: list[str] = []
    certs: dict[str, list[Certificate]] = {}
    where: dict[str, list[str]] = {}
    failed: dict[str, dict[str, Any]] = {}
    seconds: dict[str, float] = {}
    for case in (progress(todo, len(todo)) if progress else todo):
        start = time.perf_counter()
        try:
            found = list(case.run())
        except ClaimRefuted as exc:
            name = registry_claim(exc.claim)
            failed[name] = {"verdict": REFUTED, "detail": str(exc),
                            "counterexample": exc.counterexample}
            found = []
            _note(name, case.group, order, where)
        except Undecided as exc:
            name = registry_claim(case.title)
            failed[name] = {"verdict": UNDECIDED, "detail": str(exc)}
            found = []
            _note(name, case.group, order, where)
        except MissingExtra as exc:
            name = registry_claim(case.title)
            failed[name] = {"verdict": NOT_CHECKED, "detail": str(exc), "extra": exc.extra}
            found = []
            _note(name, case.group, order, where)
        took = time.perf_counter() - start
        for cert in found:
            name = registry_claim(cert.claim)
            _note(name, case.group, order, where)
            certs.setdefault(name, []).append(cert)
            seconds[name] = seconds.get(name, 0.0) + took / max(len(found), 1)
    out = ClaimsVerdict(group=group)
    for name in order:
        mine = certs.get(name, [])
        methods = sorted({c.method + (f" ({c.scope})" if c.scope and c.method != "property"
                                      else "") for c in mine})
        verdicts = {c.verdict for c in mine}
        verdict = HOLDS if verdicts == {HOLDS} else ", ".join(sorted(verdicts)) or "none"
        extra = failed.get(name, {})
        method = "; ".join(methods) or (  # nothing completed: say why, never an empty method
            f"not run: needs the '{extra['extra']}' extra" if "extra" in extra
            else "no check completed")
        out.rows.append(ClaimRow(
            ", ".join(where[name]), name, extra.get("verdict", verdict), method,
            len(mine), _checked(mine), extra.get("detail", ""), extra.get("counterexample"),
            seconds.get(name, 0.0), extra.get("extra", "")))
    return out


def _note(name: str, group: str, order: list[str], where: dict[str, list[str]]) -> None:
    if name not in where:
        order.append(name)
        where[name] = []
    if group not in where[name]:
        where[name].append(group)
