"""Accountants: certified upper bounds on BetweenCut's `δ(ε)` (`accountant`: Theorem 5.4's,
KOV's optimal composition `kov`, the GuardedBT `envelope`, and the smallest of them, "tight"),
the tight calibration (`tight_calibration`) and the checkers that validate the accountants
against enumerated pairs (`claims`).

May import: everything below it in `proofs` and every other subpackage of `proofs.privacy`.
"""

from betweencut.proofs.privacy.accountants.accountant import accountant
from betweencut.proofs.privacy.accountants.tight_calibration import calibrate_tight

__all__ = ["accountant", "calibrate_tight"]
