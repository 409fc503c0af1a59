"""`betweencut audit laws`: time of the built-in grid, split by arithmetic model.

Runs the three registered cases of the `laws` audit group (rational model, exact model,
interval model; see `betweencut.proofs.laws.laws_audit`) and prints, for each, the number of
certificates, wall and CPU seconds, and the ratio to a baseline measured in the same run: only
computing every output law of the same grid (no witness, no check). Goal (issue 3): the whole
grid under 30 s wall on the 2-core machine. The wall/CPU gap shows contention with other work.

Run: python bench/audit_laws.py [--repeats R]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from betweencut.proofs.laws.laws_audit import (
    EXACT_GRID,
    RATIONAL_GRID,
    ROOM,
    audit_laws_exact,
    audit_laws_interval,
    audit_laws_rational,
)
from betweencut.proofs.laws.models import exact_model, rational_model

BUDGET_SECONDS = 30.0


def laws_only() -> int:
    """Baseline: every law the rational and exact grids read, computed once, nothing checked."""
    n = 0
    for xi, a, gap, R in RATIONAL_GRID:
        model = rational_model(a, a + gap, xi, R)
        for c in model.window(ROOM):
            model.law(c)
            n += 1
    for lam, tau, Rs in EXACT_GRID:
        for R in [None, *Rs]:
            model_e = exact_model(tau, lam, R)
            for c in model_e.window(ROOM):
                model_e.law(c)
                n += 1
    return n


def timed(run: Callable[[], object], repeats: int) -> tuple[float, float, object]:
    best_wall, best_cpu, out = float("inf"), float("inf"), None
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        out = run()
        best_wall = min(best_wall, time.perf_counter() - w)
        best_cpu = min(best_cpu, time.process_time() - c)
    return best_wall, best_cpu, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    base_wall, base_cpu, n_laws = timed(laws_only, args.repeats)
    print(f"baseline: {n_laws} laws computed, {base_wall:.2f} s wall, {base_cpu:.2f} s CPU")
    print(f"{'model':<10} {'certificates':>12} {'wall s':>8} {'CPU s':>8} {'CPU / baseline':>15}")
    total_wall = 0.0
    for name, run in (("rational", audit_laws_rational), ("exact", audit_laws_exact),
                      ("interval", audit_laws_interval)):
        wall, cpu, certs = timed(run, args.repeats)
        total_wall += wall
        count = len(certs) if isinstance(certs, list) else 0
        print(f"{name:<10} {count:>12} {wall:>8.2f} {cpu:>8.2f} {cpu / base_cpu:>15.1f}")
    verdict = "within" if total_wall < BUDGET_SECONDS else "OVER"
    print(f"total {total_wall:.2f} s wall: {verdict} the {BUDGET_SECONDS:.0f} s budget")


if __name__ == "__main__":
    main()
