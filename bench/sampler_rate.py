"""Exact GuardedBT outcome draws per second, beside OpenDP's integer Laplace sampler.

Our side: `GuardedBT` (Alg. 1) at the Theorem 5.5 calibration for h = 15, ε = 1, δ = 1/20,
τ = 30 (λ = 1/4, a = 26, b = 34, R = 1 + 4 ln 80), with counts cycling through the noisy band
`floor(a - R) < c < ceil(b + R)`, i.e. 8..52, so every call draws (Alg. 4 via `ExactSampler`),
with the OS CSPRNG (release default) and with a seeded generator.

Baseline, measured in the same run: OpenDP's `make_laplace` on `atom_domain(T=int)` /
`absolute_distance(T=int)` at scale 1/λ = 4, called once per draw from Python (its exact
discrete Laplace, its own CSPRNG). Also shown for reference: OpenDP on a vector of 1000 counts
per call. Goal (issue 2): at least 2x OpenDP's per-call rate. OpenDP is an optional,
benchmark-only dependency (`pip install -e .[bench]`).

Run: python bench/sampler_rate.py [--draws N] [--repeats R]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from betweencut.mechanism.calibration import calibrate
from betweencut.mechanism.guarded_bt import GuardedBT
from betweencut.noise.bt_sampler import ExactSampler

TAU = 30


def best_rate(run: Callable[[int], object], draws: int, repeats: int) -> float:
    best = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        run(draws)
        best = max(best, draws / (time.perf_counter() - start))
    return best


def guarded_runner(seed: int | None) -> tuple[Callable[[int], object], GuardedBT]:
    params = calibrate(15, 1, "0.05").params(TAU)
    query = GuardedBT.of(params.a, params.b, params.R, params.lam)
    band = list(range(query.lower_cut + 1, query.upper_cut))
    sampler = ExactSampler(seed)

    def run(draws: int) -> object:
        out = None
        for i in range(draws):
            out = query(band[i % len(band)], sampler)
        if sampler.draws < draws:
            raise SystemExit("a count outside the noisy band was decided by a guard")
        return out

    return run, query


def prebuilt_runner(seed: int | None) -> Callable[[int], object]:
    """The sampler alone on prebuilt `BTQuery`s (no guard, no query construction)."""
    _, query = guarded_runner(seed)
    queries = [query.query(c) for c in range(query.lower_cut + 1, query.upper_cut)]
    sampler = ExactSampler(seed)

    def run(draws: int) -> object:
        out = None
        for i in range(draws):
            out = sampler(queries[i % len(queries)])
        return out

    return run


def opendp_runners() -> tuple[Callable[[int], object], Callable[[int], object]] | None:
    try:
        import opendp.prelude as dp
    except ImportError:
        return None
    dp.enable_features("contrib")
    scalar = dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=4.0)
    vector = dp.m.make_laplace(
        dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int), scale=4.0
    )
    band = list(range(8, 53))
    batch = [band[i % len(band)] for i in range(1000)]

    def per_call(draws: int) -> object:
        out = None
        for i in range(draws):
            out = scalar(band[i % len(band)])
        return out

    def batched(draws: int) -> object:
        out = None
        for _ in range(max(1, draws // len(batch))):
            out = vector(batch)
        return out

    return per_call, batched


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    os_run, query = guarded_runner(None)
    seeded_run, _ = guarded_runner(2026)
    prebuilt_os, prebuilt_seeded = prebuilt_runner(None), prebuilt_runner(2026)
    print(f"GuardedBT: lambda = {query.lam}, a = {query.a}, b = {query.b}, R = {query.R}; "
          f"noisy band {query.lower_cut + 1}..{query.upper_cut - 1}")
    opendp = opendp_runners()
    rates: dict[str, float] = {}
    baseline_draws = max(1, args.draws // 10)  # OpenDP per call is slow: fewer draws, same rate
    for _ in range(args.repeats):  # interleaved, best of the repeats for each
        for name, run, draws in [
            ("betweencut GuardedBT, OS CSPRNG", os_run, args.draws),
            ("betweencut GuardedBT, seeded", seeded_run, args.draws),
            ("ExactSampler alone on prebuilt BTQuery, OS CSPRNG", prebuilt_os, args.draws),
            ("ExactSampler alone on prebuilt BTQuery, seeded", prebuilt_seeded, args.draws),
            *([("OpenDP make_laplace int, per call", opendp[0], baseline_draws),
               ("OpenDP make_laplace int, vector of 1000 (reference)", opendp[1], args.draws)]
              if opendp else []),
        ]:
            rates[name] = max(rates.get(name, 0.0), best_rate(run, draws, 1))
    width = max(len(name) for name in rates)
    for name, rate in rates.items():
        print(f"  {name:<{width}}  {rate:>12,.0f} draws/s")
    if opendp is None:
        print("OpenDP is not installed (pip install opendp): no baseline ratio")
        return
    base = rates["OpenDP make_laplace int, per call"]
    for name in ("betweencut GuardedBT, OS CSPRNG", "betweencut GuardedBT, seeded"):
        print(f"ratio {name} / OpenDP per call = {rates[name] / base:.1f}  (goal >= 2)")
    vec = rates["OpenDP make_laplace int, vector of 1000 (reference)"]
    print(f"(reference: OS CSPRNG / OpenDP vector = "
          f"{rates['betweencut GuardedBT, OS CSPRNG'] / vec:.1f})")


if __name__ == "__main__":
    main()
