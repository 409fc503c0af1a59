"""Exact and certified checkers of the paper's claims.

Every checker is registered with `@claim(...)` (see `registry`), cites its claim in its docstring,
and returns a `Certificate` or raises `ClaimRefuted` with a concrete counterexample.
"""

from betweencut.proofs.exact.certificate import Certificate, ClaimRefuted
from betweencut.proofs.registry import CLAIMS, AuditCase, audit_cases, claim, register_audit

__all__ = [
    "CLAIMS", "AuditCase", "Certificate", "ClaimRefuted", "audit_cases", "claim",
    "register_audit",
]
