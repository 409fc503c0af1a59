"""A deep PrivTree audit costs what its search costs (issue 35, item 5).

`audit_mechanism(privtree, search=N, epsilon=1, delta=0)` on `[0, 2^bits)` (the command line's
`audit privacy --search N`) against its own search alone, measured in the same run: the
symmetric search over every database of at most `N` copies of one point
(`privtree_depth.copies_worst_pair`, the baseline). Both cells: half-open (`cell_member`) and
closed (`closed_member`). The worst pair is audited through the real run cut back to `T_z`;
its answer sequences are products of one two-term factor per box of `T_z` (`bits + 1` boxes
and more), which nothing expands any longer: the enumeration's sum to 1 is checked on the
outcome tree's structure (`transcripts.complete_outcome_tree`) and the event's `P(S)`, `Q(S)`
are certified from their factors (`divergence.factored`).

Prints, per cell: CPU seconds of the search and of the audit, their ratio, the audit's wall
seconds and its `epsilon_at_delta`; then (unless `--no-command`) the same audit from the
command line, `betweencut audit privacy --mechanism MODULE:CALLABLE --search N --epsilon 1
--delta 0` run as a subprocess on a module written to a scratch folder: its wall seconds, its
CPU seconds (user + system of the child, `RUSAGE_CHILDREN`), its exit status (0 holds, 1
refuted) and the `epsilon_at_delta` it prints. The machine these figures come from has 2
cores shared with other jobs: wall time varies, CPU time and the ratio less.

Run: python bench/privtree_deep_search.py [--bits 40] [--size 100] [--cell half-open|closed]
     [--no-command]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from betweencut.api import audit_mechanism
from betweencut.baselines.privtree import PrivTree
from betweencut.proofs.baselines.privtree_checks.privtree_depth import copies_worst_pair
from betweencut.proofs.baselines.privtree_checks.privtree_search import closed_member

MODULE = '''from betweencut.baselines.privtree import PrivTree
from betweencut.proofs.baselines.privtree_checks.privtree_search import closed_member


def half_open() -> PrivTree:
    return PrivTree.of(((0, 2**{bits}),), 1)


def closed() -> PrivTree:
    return PrivTree.of(((0, 2**{bits}),), 1, member=closed_member)
'''


def _factory(mech: PrivTree) -> object:
    def privtree() -> PrivTree:  # a callable without parameters returning a PrivTree
        return mech

    return privtree


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def command(bits: int, size: int, cell: str, folder: Path) -> str:
    """The command line's audit of the same mechanism: wall and CPU seconds, exit status."""
    name = "half_open" if cell == "half-open" else "closed"
    args = [str(Path(sys.executable).with_name("betweencut")), "audit", "privacy",
            "--mechanism", f"deep_privtree:{name}", "--search", str(size), "--epsilon", "1",
            "--delta", "0"]
    wall, cpu = time.monotonic(), _children_cpu()
    done = subprocess.run(args, cwd=folder, capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": str(folder)})
    wall, cpu = time.monotonic() - wall, _children_cpu() - cpu
    found = re.search(r"epsilon_at_delta = ([0-9.]+)", done.stdout)
    eps = found.group(1) if found else f"none (stderr: {done.stderr.strip()[-200:]})"
    return (f"{cell:9s} command `betweencut audit privacy --mechanism deep_privtree:{name} "
            f"--search {size} --epsilon 1 --delta 0`: {wall:.1f} s wall, {cpu:.1f} s CPU, "
            f"exit {done.returncode}, epsilon_at_delta {eps}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bits", type=int, default=40)
    ap.add_argument("--size", type=int, default=100)
    ap.add_argument("--cell", choices=("half-open", "closed"), action="append")
    ap.add_argument("--no-command", action="store_true", help="the library only")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        (folder / "deep_privtree.py").write_text(MODULE.format(bits=args.bits))
        for cell in args.cell or ["half-open", "closed"]:
            box = ((0, 2**args.bits),)
            mech = (PrivTree.of(box, 1, member=closed_member) if cell == "closed"
                    else PrivTree.of(box, 1))
            cpu = time.process_time()
            copies_worst_pair(mech, args.size)
            search = time.process_time() - cpu
            wall, cpu = time.monotonic(), time.process_time()
            verdict = audit_mechanism(_factory(mech), search=args.size, epsilon=1, delta=0)
            audit, wall = time.process_time() - cpu, time.monotonic() - wall
            print(f"{cell:9s} [0, 2^{args.bits}) search={args.size}: search {search:.1f} s CPU, "
                  f"audit {audit:.1f} s CPU ({audit / search:.1f}x the search), {wall:.1f} s "
                  f"wall; holds {verdict.holds}, epsilon_at_delta "
                  f"{verdict.facts['epsilon_at_delta']:.6f}", flush=True)
            if not args.no_command:
                print(command(args.bits, args.size, cell, folder), flush=True)


if __name__ == "__main__":
    main()
