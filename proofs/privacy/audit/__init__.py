"""Auditing any mechanism on neighbouring pairs: `mechanism` (`audit_pairs`: every pair and
claimed point decided by the gate, `PointResult`, `AuditVerdict`), `search` (a derandomised
Hypothesis search for the worst pair and the ε lower bound over the pairs audited) and
`regression` (every pair and ε range where a candidate leaks more than a baseline), `renyi`
(Rényi and zCDP claims), and `run` (`audit_run`: the whole audit of a mechanism orchestrated
in one function: the claim, the law cache, the pairs, the budget, the rows, the facts, the
regressions and what the verdict rests on).

The library entry point for users is `betweencut.audit_mechanism` (`betweencut.api`), which
resolves the user's input (the mechanism loaded, the public tree, the parameters, the
accountant chosen) and calls `run.audit_run`; it answers with a
`betweencut.proofs.verdict.Verdict`.

May import: everything below it in `proofs` and `divergence`, `enumeration`.
"""

from betweencut.proofs.privacy.audit.pairs import AuditVerdict, PointResult, audit_pairs
from betweencut.proofs.privacy.audit.regression import find_regressions
from betweencut.proofs.privacy.audit.search import epsilon_lower_bound, search_pairs

__all__ = ["AuditVerdict", "PointResult", "audit_pairs", "epsilon_lower_bound",
           "find_regressions", "search_pairs"]
