"""BetweenCut's claims confirmed by enumeration on small trees: `checkers` (Lemma C.1,
Theorem 5.4 and Theorem 5.5 by exact transcript enumeration, the registered default cases),
`gallery` (broken variants every checker must refute) and `power` (an instance's power: a
known-violating variant refuted on it). A search for BetweenCut's worst pair is the one search
of any mechanism (`audit_mechanism(..., search=N)`, `betweencut.proofs.privacy.audit.search`).

May import: everything below it in `proofs` and `divergence`, `enumeration`, `audit`.
"""

from betweencut.proofs.privacy.claims.theorems import (
    check_lemma_c_1,
    check_theorem_5_4_enumerated,
    check_theorem_5_5_enumerated,
)

__all__ = ["check_lemma_c_1", "check_theorem_5_4_enumerated", "check_theorem_5_5_enumerated"]
