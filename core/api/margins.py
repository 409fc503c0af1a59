"""`margins`: the additive margin against the tree height for BetweenCut and its baselines
(Table 1 / Section 5.3): BetweenCut (Eq. (24)), Eq. (25) in both readings, the full-tree
Laplace and Gaussian baselines (Eq. (27), (30)), Ghazi et al. (Eq. (10)), the Lumberjack-style
baseline, and per baseline the crossover height (certified, `betweencut.baselines.margins`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from betweencut.baselines.margins import BASELINES, MarginSetting, crossover, margin_row
from betweencut.calibration import AccountantKind
from betweencut.schemas import header


def margins(epsilon: object, delta: object, *, beta: object = "1/100", arity: int = 2,
            heights: Sequence[int] = (3, 15, 1000), tau: object = "1000",
            ghazi_m: object = "100000", max_log2_height: int = 1024,
            accountant: str | AccountantKind = AccountantKind.PAPER) -> dict[str, Any]:
    """The margins table as JSON-ready data (schema `margins`): one row per height, the
    crossovers, and notes; with `accountant="tight"` also BetweenCut's `E` under the tight
    accountant (the crossovers stay Eq. (24)'s)."""
    from betweencut.proofs.privacy.accountants import Chosen

    chosen = Chosen.of(accountant)  # the accountant's name read once, on this route
    setting = MarginSetting.of(epsilon, delta, beta, arity, tau, ghazi_m)
    rows = [margin_row(setting, h) for h in heights]
    if chosen.kind is AccountantKind.TIGHT:
        for row in rows:
            tight = chosen.calibrate(row["h"], setting.epsilon, setting.delta)
            row["betweencut_tight"] = tight.E.approx()
            row["betweencut_tight_exact"] = tight.E.exact_str()
    crossings = [crossover(setting, b, max_log2_height).as_json() for b in BASELINES]
    known = [c["height"] for c in crossings]
    overall = None if any(h is None for h in known) else max(known)
    data = {
        **header("margins"),
        "parameters": {"epsilon": str(setting.epsilon), "delta": str(setting.delta),
                       "beta": str(setting.beta), "arity": setting.arity,
                       "tau": str(setting.tau), "ghazi_M": str(setting.ghazi_m),
                       "accountant": str(chosen)},
        "rows": rows, "crossover": crossings, "crossover_all": overall,
        "notes": setting.notes(),
    }
    found: dict[str, Any] = _finite(data)
    return found


def _finite(x: Any) -> Any:
    """JSON without Infinity: a margin beyond the float range is shown as the string "inf"."""
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_finite(v) for v in x]
    return x
