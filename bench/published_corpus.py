"""The published-bugs corpus (issue 37): the cost of every row, against a baseline row of the
sparse-vector corpus measured in the same run.

Each row of `betweencut.proofs.baselines.corpus_checks.published_rows` is audited `1 + repeat`
times (its laws enumerated again each time, the process's caches of exact constants kept);
printed: the CPU seconds of the first run (cold caches) and the median of the others (warm),
the pairs, the verdict found, and the ratio of the first run's CPU to the baseline's first
run: the corpus's `noisy-max` row (report-noisy-max on 3 queries, every record added to the
empty database: 27 pairs, exact), timed the same way in the same run, before any row.
The tree rows of the published listing (HHH, BinAgg) are `audit corpus` rows already measured
with the corpus.

Timings are wall seconds on a shared machine (2 cores, other jobs running): compare the ratios
of one run, not absolute seconds across runs.

Run: python bench/published_corpus.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

from betweencut.proofs.baselines.corpus_checks.corpus import CORPUS, audit_row
from betweencut.proofs.baselines.corpus_checks.published import audit_published
from betweencut.proofs.baselines.corpus_checks.published_rows import PUBLISHED


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float, object]:
    """CPU seconds of the first run and the median of `repeat` more, and the last result."""
    cpus = []
    result: object = None
    for _ in range(1 + repeat):
        cpu = time.process_time()
        result = fn()
        cpus.append(time.process_time() - cpu)
    return cpus[0], statistics.median(cpus[1:]), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    baseline = next(row for row in CORPUS if row.name == "noisy-max")
    base_cold, base_warm, _ = timed(lambda: audit_row(baseline, 0), args.repeat)
    print(f"baseline noisy-max (27 pairs): {base_cold:.3f} s CPU cold, {base_warm:.3f} s warm\n")
    print("| row | pairs | verdict | CPU s, cold | CPU s, warm | cold / baseline's cold |")
    print("|---|---|---|---|---|---|")
    total = 0.0
    for row in PUBLISHED:
        cold, warm, verdict = timed(lambda row=row: audit_published(row), args.repeat)
        total += cold
        facts = verdict.facts  # type: ignore[attr-defined]
        found = str(facts["found"]).split(":")[0].replace(" on every pair audited", "")
        pairs = verdict.pairs  # type: ignore[attr-defined]
        print(f"| `{row.name}` | {pairs} | {found} | {cold:.3f} | {warm:.3f} | "
              f"{cold / base_cold:.2f} |")
    print(f"\nall published rows, cold: {total:.2f} s CPU ({total / base_cold:.1f} x the "
          "baseline's cold run)")
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
