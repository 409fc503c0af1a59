"""`margins`: the additive margin against the tree height for BetweenCut and its baselines
(Table 1 / Section 5.3): BetweenCut (Eq. (24)), Eq. (25) in both readings, the full-tree
Laplace and Gaussian baselines (Eq. (27), (30)), Ghazi et al. (Eq. (10)), the Lumberjack-style
baseline, and per baseline the crossover height (certified, `betweencut.baselines.margins`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from betweencut.baselines.margins import (
    ALL,
    BASELINES,
    LABELS,
    MarginSetting,
    crossover,
    margin_row,
)
from betweencut.mechanism.calibration import AccountantKind
from betweencut.schemas import header


@dataclass(frozen=True)
class Margins:
    """The margins table: `parameters`, one row per height, the crossovers (`crossover_all`:
    the largest, None if one is not found) and notes; `as_json()` is `betweencut margins
    --json`'s object (schema `margins`), `text()` the table it prints."""

    parameters: dict[str, Any]
    rows: list[dict[str, Any]]
    crossover: list[dict[str, Any]]
    crossover_all: int | None
    notes: list[str]

    def as_json(self) -> dict[str, Any]:
        data = {**header("margins"), "parameters": self.parameters, "rows": self.rows,
                "crossover": self.crossover, "crossover_all": self.crossover_all,
                "notes": self.notes}
        found: dict[str, Any] = _finite(data)
        return found

    def text(self) -> str:
        data = self.as_json()
        par, rows = data["parameters"], data["rows"]
        lines = [
            f"Additive margins, eps = {par['epsilon']}, delta = {par['delta']}, beta = "
            f"{par['beta']}, arity = {par['arity']}, Ghazi: M = {par['ghazi_M']}, "
            f"tau = {par['tau']}",
            f"{'margin':<28}" + "".join(f"{'h=' + str(r['h']):>14}" for r in rows),
        ]
        for name in ALL:
            cells = "".join(
                f"{'undefined':>14}" if r[name] is None else _cell(r[name]) for r in rows)
            lines.append(f"{LABELS[name]:<28}{cells}")
        if any("betweencut_tight" in r for r in rows):  # asked of the tight accountant
            cells = "".join(_cell(r["betweencut_tight"]) for r in rows)
            lines.append(f"{'BetweenCut, tight accountant':<28}{cells}")
        for reading in ("L", "log2h"):
            cells = "".join(f"{r[f'eq25_{reading}_bounds_E']!s:>14}" for r in rows)
            lines.append(f"{'Eq. 25 X=' + reading + ' bounds E':<28}{cells}")
        lines.append("crossover (least h from which BetweenCut's margin is <= the baseline's):")
        for c in data["crossover"]:
            h = c["height"]
            where = ("none below " + c["searched_heights_below"]) if h is None else (
                f"h = {h}" if h < 10**9 else f"h = 2^{h.bit_length() - 1}" if h & (h - 1) == 0
                else f"h ~ 2^{c['log2_height']}")
            tail = " (certified for every larger h)" if c["certified_for_all_larger_h"] else (
                "" if h is None else f" (checked up to {c['searched_heights_below']})")
            lines.append(f"  {LABELS[c['baseline']]:<28}{where}{tail}")
        lines += [f"  note: {note}" for note in data["notes"]]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()


def _cell(value: object) -> str:
    """A table cell: a float to 6 significant digits, or its text ("inf")."""
    return f"{value:>14.6g}" if isinstance(value, float | int) else f"{value!s:>14}"


def margins(epsilon: object, delta: object, *, beta: object = "1/100", arity: int = 2,
            heights: Sequence[int] = (3, 15, 1000), tau: object = "1000",
            ghazi_m: object = "100000", max_log2_height: int = 1024,
            accountant: str | AccountantKind = AccountantKind.PAPER) -> Margins:
    """The margins table (`Margins`: `as_json()` has schema `margins`): one row per height,
    the crossovers, and notes; with `accountant="tight"` also BetweenCut's `E` under the tight
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
    return Margins(
        {"epsilon": str(setting.epsilon), "delta": str(setting.delta), "beta": str(setting.beta),
         "arity": setting.arity, "tau": str(setting.tau), "ghazi_M": str(setting.ghazi_m),
         "accountant": str(chosen)},
        rows, crossings, overall, setting.notes())


def _finite(x: Any) -> Any:
    """JSON without Infinity: a margin beyond the float range is shown as the string "inf"."""
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_finite(v) for v in x]
    return x
