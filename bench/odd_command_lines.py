"""Issue 39, item 3: the odd command lines, each a fresh command, timed against start-up.

Each case of `tests/odd_commands.py` (the issue's tracebacks and hangs: `--epsilon 1e-400`, an
audit at `--epsilon 65536`, a mechanism that saves its test, a KeyboardInterrupt in the user's
code, a CSV row of 60,000 commas, `--height 4096` on a few records, Spark's `--skip-null` on a
null record) runs through the console script (`odd_commands.run`: address space capped at 2 GB,
killed only if hung; the Spark case without the cap, its RSS not measured: 0). For each: the
wall seconds, the ratio to the baseline (`betweencut --version`, measured in the same run), the
exit status, the lines on stderr, the peak RSS, and whether it kept the issue's contract (exit
2 with one line, or an answer; within 10 s). The best of `--repeat` runs is kept (the machine
is shared: the clock depends on its load).

Run: python bench/odd_command_lines.py [--repeat 1] [--spark]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from cli_runs import TIME_LIMIT, Ran, run_script
from odd_commands import BASELINE, CASES, Case, check, run


def _best(case: Case, argv: list[str], cwd: str, repeat: int) -> Ran:
    runs = [run(case, argv, cwd) for _ in range(repeat)]
    return min(runs, key=lambda r: r.seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--spark", action="store_true", help="also the Spark case")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = min((run_script(BASELINE, cwd=tmp) for _ in range(max(args.repeat, 3))),
                   key=lambda r: r.seconds)
        print(f"baseline `betweencut --version`: {base.seconds:.2f} s")
        print(f"{'case':66} {'s':>6} {'ratio':>6} {'exit':>4} {'lines':>5} {'MB':>5}  contract")
        kept = 0
        cases = [c for c in CASES if args.spark or not c.spark]
        for i, case in enumerate(cases):
            folder = Path(tmp) / f"case{i}"
            folder.mkdir()
            argv = case.write(folder)
            ran = _best(case, argv, str(folder), args.repeat)
            why = "killed as hung" if ran.killed else check(case, ran.status, ran.out, ran.err)
            if why is None and ran.seconds > TIME_LIMIT:
                why = f"over {TIME_LIMIT:g} s"
            kept += why is None
            lines = ran.err.count("\n")
            print(f"{case.name[:66]:66} {ran.seconds:6.2f} {ran.seconds / base.seconds:6.2f} "
                  f"{ran.status:4d} {lines:5d} {ran.rss_mb:5.0f}  {why or 'kept'}")
        print(f"{kept} of {len(cases)} kept the contract (exit 2 with one line or an answer, "
              f"within {TIME_LIMIT:g} s, under 2 GB)")


if __name__ == "__main__":
    main()
