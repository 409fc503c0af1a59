"""The cost of running the user's code in child processes (issue 34: at most 1.5x today's time).

Each database's law of a user's mechanism is enumerated in two fresh children, in two orders,
and compared (`betweencut.proofs.privacy.enumeration.isolated`); this replaced the replay check
(every run re-run in the audit's own process). Baseline measured in the same run: the same
audits on the code of a git ref (default `main`, today's path: in process, every run replayed),
extracted to a temporary folder and imported first (`PYTHONPATH`). Each audit runs in a fresh
interpreter, the two versions interleaved, best of `--repeat`; the ratio is isolated / today.

Audits: the README's "Audit your mechanism" (`my_mechanism:flag`, exhaustive 1, h = 3: the
command, whose cost estimate adds its walks, and the library call) and the
tutorial's regression (`flag_v2` against `flag`); `my_svt:svt` (shared noise, exhaustive 2);
`bench/privacy_exhaustive.py`'s audit (every |D| <= 2, Theorem 5.4 on transcript and Heavy set)
on the binary tree of height 3, for BetweenCut itself (the package's code: not isolated) and for
a user's subclass of it (isolated); and the former `bench/replay_check.py`'s small function
(three BT queries, exhaustive 2, h = 3), which measured the replay check this replaces.

Run: python bench/isolation.py [--repeat 3] [--ref main]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
from pathlib import Path

from _common import README_AUDITS, USER_MODULE, a_against_b, run_timed

ROOT = Path(__file__).resolve().parents[1]
USER = USER_MODULE
AUDITS = {
    **README_AUDITS,
    "tutorial: flag_v2 vs baseline flag": (
        "audit_mechanism('my_mechanism:flag_v2', exhaustive=1, height=3, epsilon=2, delta=0, "
        "baseline='my_mechanism:flag')"),
    "my_svt:svt, exhaustive 2, h = 2": (
        "audit_mechanism('my_svt:svt', exhaustive=2, height=2, epsilon=1, delta=0)"),
    "privacy_exhaustive, BetweenCut (own code), h = 3": (
        "audit_mechanism(BetweenCut, exhaustive=2, height=3, tau=2, lam='1/2', R=2, "
        "on=['transcript', 'heavy'])"),
    "privacy_exhaustive, user subclass, h = 3": (
        "audit_mechanism('benchuser:MyCut', exhaustive=2, height=3, tau=2, lam='1/2', R=2, "
        "on=['transcript', 'heavy'])"),
    "replay_check: 3 BT queries, exhaustive 2, h = 3": (
        "audit_mechanism('benchuser:small', exhaustive=2, height=3, epsilon=1, delta=0)"),
}
TIMED = '''
import io, sys, time
from contextlib import redirect_stdout
sys.path[:0] = [{examples!r}, {user!r}]
from betweencut.api import audit_mechanism
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.cli import main
import betweencut
assert betweencut.__file__.startswith({root!r}), betweencut.__file__


def cli(argv):
    with redirect_stdout(io.StringIO()):
        return main(argv)


start = time.perf_counter()
verdict = {call}
print(time.perf_counter() - start, getattr(verdict, "holds", verdict))
'''


def checkout(ref: str, into: Path) -> Path:
    """The package of `ref`, as the import system sees an install: `betweencut` is `core/`,
    with `proofs` and `properties` beside its modules (links)."""
    src = into / "src"
    src.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "core", "proofs",
                              "properties"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    pkg = into / "pkg" / "betweencut"
    pkg.mkdir(parents=True)
    for entry in (src / "core").iterdir():
        (pkg / entry.name).symlink_to(entry)
    (pkg / "proofs").symlink_to(src / "proofs")
    (pkg / "properties").symlink_to(src / "properties")
    return into / "pkg"


def timed(call: str, path: Path | None, user: Path) -> tuple[float, str]:
    env = dict(os.environ)
    root = str(path) if path is not None else str(ROOT)
    if path is not None:
        env["PYTHONPATH"] = str(path)
    else:
        env.pop("PYTHONPATH", None)
    code = TIMED.format(examples=str(ROOT / "examples"), user=str(user), root=root, call=call)
    return run_timed(code, call, user, env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--ref", default="main", help="the git ref measured as today's path")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-isolation-") as tmp:
        today = checkout(args.ref, Path(tmp))
        user = Path(tmp) / "user"
        user.mkdir()
        (user / "benchuser.py").write_text(USER)
        print(f"today: {args.ref} (in process, every run replayed); isolated: this checkout. "
              "2 cores shared with other jobs: compare the ratios, not the seconds")
        a_against_b(AUDITS, (("today", today), ("isolated", None)),
                    lambda call, path: timed(call, path, user), args.repeat)

if __name__ == "__main__":
    main()
