"""The accountant a user chose (`AccountantKind`), as a value the audits ask: its calibration
of `(h, ε, δ)`, its certified bound, the claimed points `(rλ, δ_r)` of Theorem 5.4's form and
the words of that claim. The API reads the name once (`Chosen.of`) and passes this value on;
nothing past the parser compares an accountant's name.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final

from betweencut.mechanism.calibration import AccountantKind, Calibration
from betweencut.mechanism.params import Params
from betweencut.numbers.exact import LogReal
from betweencut.proofs.privacy.accountants.accountant import Accountant, accountant
from betweencut.proofs.privacy.accountants.tight_calibration import CALIBRATE

__all__ = ["Chosen"]

CLAIM_TEXT: Final = {AccountantKind.PAPER: "Theorem 5.4, Eq. (22):",
                     AccountantKind.TIGHT: "the tight accountant's"}
DEPTH_TEXT: Final = {AccountantKind.PAPER: "Theorem 5.4, Eq. (22)",
                     AccountantKind.TIGHT: "the tight accountant's bound"}


@dataclass(frozen=True)
class Chosen:
    """The accountant chosen: `kind` (`AccountantKind.PAPER` or `TIGHT`)."""

    kind: AccountantKind = AccountantKind.PAPER

    @classmethod
    def of(cls, value: object) -> Chosen:
        """`value` (a `Chosen`, an `AccountantKind` or its name) read once;
        `ParameterError("accountant", ...)` otherwise."""
        return value if isinstance(value, Chosen) else cls(AccountantKind.of(value))

    def __str__(self) -> str:
        return self.kind.value

    @property
    def claim_text(self) -> str:
        """The words of the claim its points make ("Theorem 5.4, Eq. (22):" for `paper`)."""
        return CLAIM_TEXT[self.kind]

    @property
    def depth_text(self) -> str:
        """The words of the claim at depth (`betweencut.audit_depth`)."""
        return DEPTH_TEXT[self.kind]

    def calibrate(self, height: object, epsilon: object, delta: object) -> Calibration:
        """Its calibration of public `(h, ε, δ)` (Theorem 5.5, or `calibrate_tight`)."""
        return CALIBRATE[self.kind](height, epsilon, delta)

    def bound(self, L: int, lam: Fraction, R: LogReal | Fraction | int) -> Accountant:
        """Its certified upper bound on the transcript's `δ(ε)` (`accountant.accountant`)."""
        return accountant(self.kind.value, L=L, lam=lam, R=R)

    def points(self, L: int, params: Params) -> list[tuple[Fraction, Any]]:
        """The claimed `(rλ, δ_r)`, `r = 1..L`, at `params`: Eq. (22)'s bound (`paper`:
        `PaperAccountant`, Theorem 5.4 at `rλ`) or the tight accountant's."""
        if self.kind is AccountantKind.PAPER:  # Eq. (22) itself, exact: where its δ0 has no
            # exact form this raises; an upper bound of it would audit a weaker claim than
            # the paper's and could say "holds" where Eq. (22) fails
            from betweencut.proofs.laws.tct import theorem_5_4_bound

            return [(r * params.lam, theorem_5_4_bound(L, params.lam, params.R, r))
                    for r in range(1, L + 1)]
        acc = self.bound(L, params.lam, params.R)
        return [(r * params.lam, acc.delta_upper(r * params.lam)) for r in range(1, L + 1)]

    def depth_bounds(self, L: int, params: Params) -> list[Any]:
        """The claimed `(r, rλ, δ_r)` at depth (`depth.transcript.ClaimedBound`): Eq. (22)'s
        own bounds (`depth.audit.paper_bounds`) or the tight accountant's."""
        from betweencut.proofs.privacy.depth.depth_audit import paper_bounds
        from betweencut.proofs.privacy.depth.transcript import ClaimedBound

        if self.kind is AccountantKind.PAPER:
            return paper_bounds(L, params)
        acc = self.bound(L, params.lam, params.R)
        return [ClaimedBound.of(r, r * params.lam, acc.delta_upper(r * params.lam))
                for r in range(1, L + 1)]
