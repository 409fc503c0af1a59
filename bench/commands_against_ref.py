"""The same commands on two git refs (HEAD and an earlier one), measured in one run.

A refactoring (issue 38: the audit's orchestration moved into proofs, core/ grouped by role)
should cost nothing: this bench runs the documented commands on both trees, interleaved round
by round (each round in a rotated order, so a burst of load on the machine is shared), and
prints each command's median seconds on both and their ratio (now / the ref).

Both trees are built the same way, from `git archive` into a private folder (`pip install
--no-deps --target`, the dependencies are this environment's; pip compiles their bytecode, which
an editable checkout under PYTHONDONTWRITEBYTECODE would recompile on every run); each runs
`betweencut.cli.main` in a fresh interpreter, its own tree first on `sys.path`, with its own
`examples/` (their imports follow the package's module names). `--now` is HEAD by default:
commit what you measure. Command lines are the same on both trees: only
documented flags, from the README, the tutorial and the how-to pages.

Run: python bench/commands_against_ref.py [--ref c4aa596] [--now HEAD] [--rounds 5]
"""

from __future__ import annotations

import argparse
import io
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {
    "README: audit privacy, flag, exhaustive 1": [
        "audit", "privacy", "--mechanism", "my_mechanism:flag", "--height", "3",
        "--exhaustive", "1", "--epsilon", "1/4", "--delta", "0"],
    "README: audit calibration": ["audit", "calibration"],
    "audit privacy, BetweenCut, h = 3, exhaustive 1": [
        "audit", "privacy", "--height", "3", "--tau", "2", "--lam", "1/2", "--R", "2",
        "--exhaustive", "1"],
    "audit privacy, my_svt, exhaustive 2": [
        "audit", "privacy", "--mechanism", "my_svt:svt", "--height", "2", "--exhaustive", "2",
        "--epsilon", "1", "--delta", "0"],
    "calibrate h = 1000": ["calibrate", "--height", "1000", "--epsilon", "1", "--delta",
                           "1e-6"],
    "margins": ["margins", "--epsilon", "1", "--delta", "1e-6"],
}
RUN = """import sys
sys.path[:0] = {paths!r}
from betweencut.cli import main
import betweencut
assert betweencut.__file__.startswith({root!r}), betweencut.__file__
sys.exit(main({argv!r}))
"""


def build(ref: str, into: Path) -> Path:
    """The package of `ref` installed into `into/site` (its own code, this environment's
    dependencies)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], capture_output=True,
                             check=True).stdout
    source = into / "source"
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(source, filter="data")
    site = into / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                    "--target", str(site), str(source)], check=True)
    return site


def timed(argv: list[str], site: Path) -> tuple[float, int]:
    """One fresh run of `argv` on the tree installed in `site`, with its example modules."""
    examples = site.parent / "source" / "examples"
    script = RUN.format(paths=[str(examples), str(site)], root=str(site), argv=argv)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", script], cwd=examples,
                          capture_output=True, text=True, check=False)
    took = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"{argv} on {site}: exit {done.returncode}: {done.stderr.strip()[-300:]}")
    return took, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default="c4aa596", help="the earlier git ref")
    parser.add_argument("--now", default="HEAD", help="the git ref measured against it")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-ref-") as tmp:
        (Path(tmp) / "ref").mkdir()
        (Path(tmp) / "now").mkdir()
        sites = {"ref": build(args.ref, Path(tmp) / "ref"),
                 "now": build(args.now, Path(tmp) / "now")}
        runs: dict[tuple[str, str], list[float]] = {}
        exits: dict[tuple[str, str], int] = {}
        jobs = [(label, tree) for label in COMMANDS for tree in ("ref", "now")]
        for r in range(args.rounds):
            shift = r % len(jobs)
            for label, tree in jobs[shift:] + jobs[:shift]:
                took, status = timed(COMMANDS[label], sites[tree])
                runs.setdefault((label, tree), []).append(took)
                exits[label, tree] = status
        print(f"ref {args.ref} against {args.now}; {args.rounds} interleaved rounds; "
              "medians of fresh processes")
        print(f"{'command':48s} {'ref s':>8s} {'now s':>8s} {'ratio':>7s}  exits")
        for label in COMMANDS:
            ref = statistics.median(runs[label, "ref"])
            now = statistics.median(runs[label, "now"])
            print(f"{label:48s} {ref:8.3f} {now:8.3f} {now / ref:6.2f}x  "
                  f"{exits[label, 'ref']}/{exits[label, 'now']}")


if __name__ == "__main__":
    main()
