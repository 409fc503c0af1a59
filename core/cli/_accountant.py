"""`--accountant paper|tight`: which certified accountant calibrates `(λ, R)` (issue 13).

`paper` (the default) is Theorem 5.5's calibration, computed in core. `tight` is
`betweencut.proofs.privacy.accountants.tight_calibration.calibrate_tight` (KOV's optimal composition
or Theorem 5.4, whichever is smaller, certified; never a larger margin than `paper`): the CLI is
the only part of core allowed to import proofs, and it hands the resulting `λ`, `R` to the
mechanism.
"""

from __future__ import annotations

import argparse

from betweencut.calibration import Calibration, calibrate

ACCOUNTANT_CHOICES = ("paper", "tight")


def add_accountant_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--accountant", choices=ACCOUNTANT_CHOICES, default="paper",
                   help="paper: Theorem 5.5 (default); tight: the smallest margin E whose "
                        "certified delta(eps) <= delta under KOV's optimal composition or "
                        "Theorem 5.4 (never above paper's E)")


def calibrate_with(accountant: str, height: object, epsilon: object,
                   delta: object) -> Calibration:
    """The calibration of `accountant` for public `(h, ε, δ)`."""
    if accountant == "tight":
        from betweencut.proofs.privacy.accountants.tight_calibration import calibrate_tight

        return calibrate_tight(height, epsilon, delta)
    return calibrate(height, epsilon, delta)
