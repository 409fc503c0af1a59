"""Exact `delta_exact` in every row of `audit depth` (issue 13): cost and size at h = 2^64 - 1.

The job: `audit depth`'s family (the single-leaf band C vs C + 1 and the two-segment profiles)
for BetweenCut calibrated to (eps, delta) = (1, 0.05) at h = 2^64 - 1 (L = 64), tau = ceil(E),
every r = 1..L against Theorem 5.4, as `betweencut audit depth` runs it.

Measured in the same run, CPU seconds of this process:
1. baseline: the rows only (certified enclosures, exact only where they straddle);
2. the same rows plus every row's exact value and its text (`DepthRow.delta_exact_str`), with
   python-flint (`fmpz_mpoly`), and the JSON of the rows as `audit depth --json` prints them;
3. flint against the pure-Python fallback on every `--sample`-th pair (the fallback is slower;
   the two give identical strings, checked here too).

Ratios printed: (2)/(1), pure/flint on the sample. Goal: (2) well under 60 s.

Run: python bench/depth_exact.py [--height H] [--epsilon E] [--delta D] [--sample K]
"""

from __future__ import annotations

import argparse
import json
import time

from _common import add_depth_arguments, depth_job, depth_job_text

from betweencut.data.tree import kary_tree
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.proofs.exact import intpoly
from betweencut.proofs.privacy.depth.depth_audit import (
    audit_profiles,
    paper_bounds,
    single_leaf_band,
    step_profiles,
)

GOAL_SECONDS = 60.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_depth_arguments(parser)
    parser.add_argument("--sample", type=int, default=8)
    args = parser.parse_args()
    h = args.height
    cal, params = depth_job(args)
    mechanism = BetweenCut(kary_tree(2, h), params)
    profiles = single_leaf_band(mechanism) + step_profiles(mechanism)
    bounds = paper_bounds(cal.L, params)
    print(f"{depth_job_text(cal)}, tau = {params.tau}; {len(profiles)} profiles; "
          f"flint available: {intpoly.flint_available()}")

    start = time.process_time()
    audit = audit_profiles(mechanism, profiles, bounds)
    base = time.process_time() - start
    print(f"baseline, rows without exact values: {len(audit.rows)} rows, {base:.1f} s CPU")

    backend = intpoly.resolve_backend()
    start = time.process_time()
    audit = audit_profiles(mechanism, profiles, bounds)
    texts = [row.delta_exact_str() for row in audit.rows]
    full = time.process_time() - start
    start = time.process_time()
    size = len(json.dumps([row.to_row("transcript").as_json() for row in audit.rows]))
    dump = time.process_time() - start
    exact_chars = sum(map(len, texts))
    print(f"with every row's delta_exact ({backend}): {full:.1f} s CPU, ratio "
          f"{full / base:.2f} x baseline (goal < {GOAL_SECONDS:.0f} s: "
          f"{'met' if full < GOAL_SECONDS else 'missed'}); rows as JSON {size / 1e6:.1f} MB "
          f"({dump:.1f} s), of which delta_exact {exact_chars / 1e6:.1f} MB, "
          f"longest {max(map(len, texts))} chars, mean {exact_chars // len(texts)}")

    if intpoly.flint_available():
        sample = profiles[:: args.sample]
        timings: dict[str, float] = {}
        outputs: dict[str, list[str]] = {}
        for name in ("flint", "pure"):
            with intpoly.use_backend(name):
                rows = audit_profiles(mechanism, sample, bounds).rows
            start = time.process_time()
            outputs[name] = [row.delta_exact_str() for row in rows]
            timings[name] = time.process_time() - start
        same = outputs["flint"] == outputs["pure"]
        print(f"exact values of {len(sample)} pairs (every {args.sample}th): flint "
              f"{timings['flint']:.2f} s, pure {timings['pure']:.2f} s CPU, ratio pure/flint "
              f"{timings['pure'] / timings['flint']:.2f}; identical strings: {same}")


if __name__ == "__main__":
    main()
