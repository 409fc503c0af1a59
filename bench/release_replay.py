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
import tempfile
from pathlib import Path

from _common import README_AUDITS, USER_MODULE, a_against_b, run_timed

ROOT = Path(__file__).resolve().parents[1]
USER = USER_MODULE
AUDITS = {
    **README_AUDITS,
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
    return run_timed(code, call, user)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-release-replay-") as tmp:
        user = Path(tmp)
        (user / "benchuser.py").write_text(USER)
        print("without: replaying(False); with: the release path replayed. 2 cores shared with "
              "other jobs: compare the ratios, not the seconds")
        a_against_b(AUDITS, (("without", False), ("with", True)),
                    lambda call, on: timed(call, on, user), args.repeat)

if __name__ == "__main__":
    main()
