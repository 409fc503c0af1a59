"""`--accountant paper|tight`: which certified accountant calibrates `(λ, R)` (issue 13).

`paper` (the default) is Theorem 5.5's calibration, `tight` the tight accountant's
(`betweencut.proofs.privacy.accountants.calibrate_by`, the one lookup by name, which the
library calls too; never a larger margin than `paper`): the CLI is the only part of core allowed
to import proofs, and it hands the resulting `λ`, `R` to the mechanism.
"""

from __future__ import annotations

import argparse

from betweencut.calibration import Calibration

ACCOUNTANT_CHOICES = ("paper", "tight")


def add_accountant_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--accountant", choices=ACCOUNTANT_CHOICES, default="paper",
                   help="paper: Theorem 5.5 (default); tight: the smallest margin E whose "
                        "certified delta(eps) <= delta under KOV's optimal composition or "
                        "Theorem 5.4 (never above paper's E)")


def calibrate_with(accountant: str, height: object, epsilon: object,
                   delta: object) -> Calibration:
    """The calibration of `accountant` for public `(h, ε, δ)` (`accountants.calibrate_by`)."""
    from betweencut.proofs.privacy.accountants import calibrate_by

    return calibrate_by(accountant, height, epsilon, delta)
