"""Exact and certified checkers of the paper's claims.

Every checker is registered with `@claim(...)` (see `registry`), cites its claim in its docstring,
and returns a `Certificate` or raises `ClaimRefuted` with a concrete counterexample.
"""

from betweencut.proofs.exact.certificate import Certificate, ClaimRefuted
from betweencut.proofs.registry import CLAIMS, AuditCase, claim, register_audit, registered

__all__ = [
    "CLAIMS", "AuditCase", "Certificate", "ClaimRefuted", "audit_cases", "claim",
    "register_audit",
]


def audit_cases(group: str | None = None) -> list[AuditCase]:
    """The registered audit cases (all groups, or one), importing every checker module first
    (`checkers`, a registration side effect; on demand, so importing `betweencut.proofs` stays
    light), in `checkers.ORDER`, whichever module an earlier import reached first."""
    from betweencut.proofs.checkers import ORDER

    def rank(case: AuditCase) -> int:  # cases registered outside proofs (properties) come last
        module = case.run.__module__
        return ORDER.index(module) if module in ORDER else len(ORDER)

    return sorted(registered(group), key=rank)
