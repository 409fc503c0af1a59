"""The cost of the release-path replay per audit (`betweencut.boundary.release_replay`): each
audit of a user's mechanism starts one fresh interpreter that runs its first 64 databases 8
times each with the release sampler, while the audit enumerates them, then compares.

Baseline measured in the same run: the same audit with the replay switched off
(`release_replay.replaying(False)`, the benchmark's switch; its verdict states the release
path as not replayed). Each audit runs in a fresh interpreter, the two interleaved, best of
`--repeat`; the ratio is with / without.

Audits: the README's `my_mechanism:flag` (exhaustive 1, h = 3: the command and the library
call), a small function of three BT queries (exhaustive 2, h = 3), and a user's subclass of
BetweenCut (exhaustive 2, h = 3, Theorem 5.4 on transcript and Heavy set).

Run: python bench/release_replay.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
USER = '''
from fractions import Fraction
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.noise.noisy_test import BTQuery


class MyCut(BetweenCut):
    """A user's subclass: user code, replayed."""


def small(db, test):
    return tuple(test(BTQuery(len(db) + i, 1, 3, Fraction(1, 2))) for i in range(3))
'''
AUDITS = {
    "README, command line: flag, exhaustive 1, h = 3": (
        "cli(['audit', 'privacy', '--mechanism', 'my_mechanism:flag', '--height', '3', "
        "'--exhaustive', '1', '--epsilon', '1/4', '--delta', '0'])"),
    "README: flag, exhaustive 1, h = 3": (
        "audit_mechanism('my_mechanism:flag', exhaustive=1, height=3, epsilon='1/4', "
        "delta=0)"),
    "3 BT queries, exhaustive 2, h = 3": (
        "audit_mechanism('benchuser:small', exhaustive=2, height=3, epsilon=1, delta=0)"),
    "user subclass of BetweenCut, exhaustive 2, h = 3": (
        "audit_mechanism('benchuser:MyCut', exhaustive=2, height=3, tau=2, lam='1/2', R=2, "
        "on=['transcript', 'heavy'])"),
}
TIMED = '''
import io, sys, time
from contextlib import nullcontext, redirect_stdout
sys.path[:0] = [{examples!r}, {user!r}]
from betweencut.api import audit_mechanism
from betweencut.boundary.release_replay import replaying
from betweencut.cli import main


def cli(argv):
    with redirect_stdout(io.StringIO()):
        return main(argv)


start = time.perf_counter()
with nullcontext() if {on!r} else replaying(False):
    verdict = {call}
print(time.perf_counter() - start, getattr(verdict, "holds", verdict))
'''


def timed(call: str, on: bool, user: Path) -> tuple[float, str]:
    code = TIMED.format(examples=str(ROOT / "examples"), user=str(user), call=call, on=on)
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=user, check=False)
    if ran.returncode != 0:
        raise SystemExit(f"{call}: {ran.stderr.strip().splitlines()[-1]}")
    seconds, holds = ran.stdout.split()
    return float(seconds), holds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-release-replay-") as tmp:
        user = Path(tmp)
        (user / "benchuser.py").write_text(USER)
        print("without: replaying(False); with: the release path replayed. 2 cores shared with "
              "other jobs: compare the ratios, not the seconds")
        started = time.perf_counter()
        for name, call in AUDITS.items():
            best = {"without": float("inf"), "with": float("inf")}
            verdicts = set()
            for _ in range(args.repeat):
                for key, on in (("without", False), ("with", True)):
                    seconds, holds = timed(call, on, user)
                    best[key] = min(best[key], seconds)
                    verdicts.add(holds)
            same = "same verdict" if len(verdicts) == 1 else f"VERDICTS DIFFER {verdicts}"
            print(f"{name}: without {best['without']:.2f} s, with {best['with']:.2f} s, "
                  f"ratio {best['with'] / best['without']:.2f} ({same})")
        print(f"total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
