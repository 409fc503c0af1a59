"""What several benchmarks share, written once: the folder of the data files they make and
reuse, and the depth benchmarks' job (BetweenCut calibrated by Theorem 5.5 at `tau = ceil(E)`).

Imported as `from _common import ...`: running `python bench/X.py` puts this folder first on
`sys.path`.
"""

from __future__ import annotations

import argparse
import os
from fractions import Fraction

from betweencut.mechanism.calibration import Calibration, calibrate
from betweencut.mechanism.params import Params

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
