"""How fast the command line starts: `--version`, `--help`, `audit --help`, `audit privacy --help`.

Each command runs as a fresh process (the installed `betweencut` console script beside this
Python, or `python -m betweencut` with `--module`), its wall time measured from spawn to exit.
The baseline, measured in the same run, is `python -c "import numpy"`: the rounds interleave
every command (each round in a rotated order, so a burst of load on the machine is shared), and
the table prints each command's median seconds and its ratio to the baseline's median, against
the limit it is held to (0.5x for `--version`, 1x for `--help`, 1.5x for the audit help pages).
A last, untimed run of each command counts the modules it leaves imported at exit (betweencut's
and all, read from `sys.modules`: `-X importtime` misses `importlib.import_module`) and names
the heavy libraries among them.

Run: python bench/cli_startup.py [--rounds 21] [--module]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HEAVY = ("numpy", "sympy", "mpmath", "hypothesis", "betweencut.proofs", "betweencut.api")
BASELINE = "python -c 'import numpy'"
# (label, arguments after the command, the limit as a multiple of the baseline's median)
COMMANDS = [
    ("betweencut --version", ["--version"], 0.5),
    ("betweencut --help", ["--help"], 1.0),
    ("betweencut audit --help", ["audit", "--help"], 1.5),
    ("betweencut audit privacy --help", ["audit", "privacy", "--help"], 1.5),
]


def console(module: bool) -> list[str]:
    """How `betweencut` is run: the console script installed beside this Python (else on PATH),
    or `python -m betweencut`."""
    if not module:
        beside = Path(sys.executable).with_name("betweencut")
        found = str(beside) if beside.exists() else shutil.which("betweencut")
        if found is not None:
            return [found]
    return [sys.executable, "-m", "betweencut"]


def seconds(argv: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: "
                         f"{done.stderr.decode(errors='replace').strip()[:300]}")
    return elapsed


COUNT = """
import atexit, sys
atexit.register(lambda: sys.stderr.write("\\nMODULES " + " ".join(sorted(sys.modules)) + "\\n"))
"""


def imported(argv: list[str]) -> tuple[int, int, list[str]]:
    """(betweencut modules, all modules, heavy ones) in `sys.modules` when `argv` exits."""
    if argv[1:2] == ["-c"]:  # python -c CODE
        script = COUNT + argv[2]
    else:  # the console script or python -m betweencut: what both run
        words = ["betweencut", *argv[3 if argv[0] == sys.executable else 1:]]
        script = (COUNT + f"sys.argv = {words!r}\nfrom betweencut.cli import main\n"
                  "sys.exit(main())")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, check=False,
                          text=True)
    names = done.stderr.rsplit("MODULES ", 1)[-1].split()
    ours = [name for name in names if name == "betweencut" or name.startswith("betweencut.")]
    heavy = [h for h in HEAVY if h in names]
    return len(ours), len(names), heavy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21, help="interleaved rounds (default 21)")
    parser.add_argument("--module", action="store_true",
                        help="run `python -m betweencut` instead of the console script")
    args = parser.parse_args()
    run = console(args.module)
    jobs = [(BASELINE, [sys.executable, "-c", "import numpy"], None),
            ("python -c pass", [sys.executable, "-c", "pass"], None),
            *((label, [*run, *extra], limit) for label, extra, limit in COMMANDS)]
    times: dict[str, list[float]] = {label: [] for label, _, _ in jobs}
    for _, argv, _ in jobs:  # warm the file cache once, untimed
        seconds(argv)
    for r in range(args.rounds):
        turn = r % len(jobs)
        for label, argv, _ in jobs[turn:] + jobs[:turn]:
            times[label].append(seconds(argv))
    base = statistics.median(times[BASELINE])
    print(f"{' '.join(run)}; {args.rounds} interleaved rounds; medians; baseline {BASELINE} "
          f"= {base:.3f} s")
    print(f"{'command':<34}{'median s':>10}{'ratio':>8}{'limit':>8}  {'':<5}"
          f"{'modules (ours/all)':>20}  heavy imports")
    for label, argv, limit in jobs:
        median = statistics.median(times[label])
        ratio = median / base
        ours, every, heavy = imported(argv)
        verdict = "" if limit is None else ("ok" if ratio <= limit else "OVER")
        shown_limit = "" if limit is None else f"{limit:.1f}x"
        print(f"{label:<34}{median:>10.3f}{ratio:>7.2f}x{shown_limit:>8}  {verdict:<5}"
              f"{f'{ours}/{every}':>20}  {', '.join(heavy) or '-'}")


if __name__ == "__main__":
    main()
