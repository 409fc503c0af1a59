"""What several benchmarks share, written once: the folder of the data files they make and
reuse, and the depth benchmarks' job (BetweenCut calibrated by Theorem 5.5 at `tau = ceil(E)`).

Imported as `from _common import ...`: running `python bench/X.py` puts this folder first on
`sys.path`.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from fractions import Fraction

from betweencut.mechanism.calibration import Calibration, calibrate
from betweencut.mechanism.params import Params

# the user's module the audit benchmarks write (bench/isolation.py, bench/release_replay.py)
USER_MODULE = '''
from fractions import Fraction
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.noise.noisy_test import BTQuery


class MyCut(BetweenCut):
    """A user's subclass: user code, so the audit isolates and replays it."""


def small(db, test):
    return tuple(test(BTQuery(len(db) + i, 1, 3, Fraction(1, 2))) for i in range(3))
'''
# the README's audit, as a command and as a library call (the audit benchmarks' first rows)
README_AUDITS = {
    "README, command line: flag, exhaustive 1, h = 3": (
        "cli(['audit', 'privacy', '--mechanism', 'my_mechanism:flag', '--height', '3', "
        "'--exhaustive', '1', '--epsilon', '1/4', '--delta', '0'])"),
    "README: flag, exhaustive 1, h = 3": (
        "audit_mechanism('my_mechanism:flag', exhaustive=1, height=3, epsilon='1/4', "
        "delta=0)"),
}
DATA = "/tmp/betweencut_bench"  # data files made once and reused, never in the repo


def data_path(name: str) -> str:
    """The path of the data file `name` under `DATA` (the folder made if missing)."""
    os.makedirs(DATA, exist_ok=True)
    return f"{DATA}/{name}"


def add_depth_arguments(parser: argparse.ArgumentParser) -> None:
    """The depth benchmarks' public inputs: `--height`, `--epsilon`, `--delta`."""
    parser.add_argument("--height", type=int, default=(1 << 64) - 1)
    parser.add_argument("--epsilon", default="1")
    parser.add_argument("--delta", default="0.05")


def depth_job(args: argparse.Namespace) -> tuple[Calibration, Params]:
    """BetweenCut's calibration to `(--epsilon, --delta)` at `--height` (Theorem 5.5) and its
    parameters at `tau = ceil(E)`."""
    cal = calibrate(args.height, Fraction(args.epsilon), Fraction(args.delta))
    return cal, cal.params(cal.E.ceil())


def depth_job_text(cal: Calibration) -> str:
    """The job's numbers as the depth benchmarks print them first (`tau` left to each)."""
    return (f"h = {cal.height} (L = {cal.L}), eps = {cal.epsilon}, delta = {cal.delta}: "
            f"lambda = {cal.lam}, R = {cal.R.exact_str()}")


def a_against_b(audits: dict[str, str], variants: tuple[tuple[str, object], tuple[str, object]],
                timed: Callable[[str, object], tuple[float, str]], repeat: int) -> None:
    """Each audit timed under two variants, interleaved `repeat` times: the best of each, their
    ratio (second over first) and whether every run gave the same verdict; then the total."""
    started = time.perf_counter()
    (first, _), (second, _) = variants
    for name, call in audits.items():
        best = {first: float("inf"), second: float("inf")}
        verdicts = set()
        for _ in range(repeat):
            for key, variant in variants:
                seconds, holds = timed(call, variant)
                best[key] = min(best[key], seconds)
                verdicts.add(holds)
        same = "same verdict" if len(verdicts) == 1 else f"VERDICTS DIFFER {verdicts}"
        print(f"{name}: {first} {best[first]:.2f} s, {second} {best[second]:.2f} s, "
              f"ratio {best[second] / best[first]:.2f} ({same})")
    print(f"total {time.perf_counter() - started:.0f} s")


def run_timed(code: str, call: str, cwd: object, env: dict[str, str] | None = None
              ) -> tuple[float, str]:
    """`python -c code` (which prints its seconds and its verdict's `holds`): both, or exit
    naming `call` with the child's last line of stderr."""
    import subprocess
    import sys

    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=cwd, check=False)  # type: ignore[call-overload]
    if ran.returncode != 0:
        raise SystemExit(f"{call}: {ran.stderr.strip().splitlines()[-1]}")
    seconds, holds = ran.stdout.split()
    return float(seconds), holds

