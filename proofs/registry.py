"""Which checker checks which claim, and which checks the main `betweencut audit` runs.

`@claim("Lemma 5.2", "Eq. (86)")` records a checker under the paper's numbering, so a test can
check that the claims table (docs/reference/claims.md, generated) and the code agree.
`register_audit` adds a default case to `betweencut audit`: a function returning
`Certificate`s (or raising `ClaimRefuted`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from betweencut.proofs.exact.certificate import Certificate

F = TypeVar("F", bound=Callable[..., object])

CLAIMS: dict[str, list[Callable[..., object]]] = {}


def claim(name: str, *equations: str) -> Callable[[F], F]:
    """Register the decorated checker under claim `name` (e.g. "Lemma 5.2")."""

    def register(fn: F) -> F:
        CLAIMS.setdefault(name, []).append(fn)
        fn.__betweencut_claim__ = (name, equations)  # type: ignore[attr-defined]
        return fn

    return register


@dataclass(frozen=True)
class AuditCase:
    """One group of the main audit: `run()` returns its certificates."""

    group: str
    title: str
    run: Callable[[], Sequence[Certificate]]


_AUDIT: list[AuditCase] = []


def register_audit(group: str, title: str) -> Callable[[F], F]:
    """Add the decorated zero-argument function to the main `betweencut audit`."""

    def register(fn: F) -> F:
        _AUDIT.append(AuditCase(group, title, fn))  # type: ignore[arg-type]
        return fn

    return register


def registered(group: str | None = None) -> list[AuditCase]:
    """The audit cases registered so far (all groups, or one); `betweencut.proofs.audit_cases`
    imports every checker module first (the registry imports none: no cycle)."""
    return [case for case in _AUDIT if group is None or case.group == group]
