"""Accountants: certified UPPER bounds on BetweenCut's transcript profile δ(ε), chosen by name.

Holds one class per accountant, each implementing the `Accountant` protocol (inputs, claim,
`errs = "upper"`, `delta_upper(ε)`, `epsilon_upper(δ)`): `PaperAccountant` (Theorem 5.4),
`KovAccountant` (Kairouz et al. 2015, `kov`), `EnvelopeAccountant` (the GuardedBT family's
dominating pair, `envelope`), and `Minimum`, the pointwise minimum of accountants (`tight`)
(`accountant`); the calibration by the tight accountant (`tight_calibration`); the accountants'
checkable steps and their validation by enumeration (`claims`). The lookups by name are here:
`accountant(name, L=, lam=, R=)` and `calibrate_by(name, h, ε, δ)`; the accountant a user
chose, as a value the API reads once and the audits ask (`chosen.Chosen`: calibration, claimed
points, the claim's words).

May import: everything below it in `proofs` and every other subpackage of `proofs.privacy`.
"""

from betweencut.proofs.privacy.accountants.accountant import (
    ACCOUNTANTS,
    Accountant,
    EnvelopeAccountant,
    KovAccountant,
    Minimum,
    PaperAccountant,
    accountant,
)
from betweencut.proofs.privacy.accountants.chosen import Chosen
from betweencut.proofs.privacy.accountants.tight_calibration import (
    CALIBRATIONS,
    calibrate_by,
    calibrate_tight,
)

__all__ = [
    "ACCOUNTANTS", "CALIBRATIONS", "Accountant", "Chosen", "EnvelopeAccountant", "KovAccountant",
    "Minimum", "PaperAccountant", "accountant", "calibrate_by", "calibrate_tight",
]
