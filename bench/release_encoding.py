"""The cost of keying every output by its canonical bytes (issue 34, "the release is its bytes").

Before: the code at `--ref` (default: where this branch left main, `git merge-base HEAD main`),
which keyed outputs by `as_hashable` (the user's `==`/`hash`); after: this checkout
(`betweencut.boundary.encoding`). Both measured in the same run, interleaved, best of
`--repeat`:

1. the README's "audit your mechanism" command (`audit privacy --mechanism my_mechanism:flag
   --height 3 --exhaustive 1 --epsilon 1 --delta 0`, run in `examples/`), end to end;
2. `bench/privacy_exhaustive.py --height H` (default 3; `--height 4` is the full bench, about a
   minute per run), end to end, the before run on the `--ref` tree;
3. keying alone: the outputs of BetweenCut's enumeration on the binary tree of height 3 (every
   database of <= 2 records, whole `Run`s), grouped by the old `as_hashable` (main's
   `cache.py`, loaded from `--ref`) and by `release_of`.

The before tree is `git archive REF` laid out as the installed package (`core` as
`betweencut`, `proofs` and `properties` under it) in a temporary folder put first on
`PYTHONPATH`. Prints CPU seconds (the machine is shared: read from the kernel, each run's
own) and the ratio after/before.
Run: python bench/release_encoding.py [--repeat 3] [--height 3] [--ref REF]
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import types
from collections.abc import Callable
from fractions import Fraction
from itertools import combinations_with_replacement
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
README = ["audit", "privacy", "--mechanism", "my_mechanism:flag", "--height", "3",
          "--exhaustive", "1", "--epsilon", "1", "--delta", "0"]


def git(*args: str) -> bytes:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True).stdout


def materialise(ref: str, into: Path) -> Path:
    """The package tree of `ref` under `into` (importable with `into` on `PYTHONPATH`)."""
    raw = into / "raw"
    with tarfile.open(fileobj=io.BytesIO(git("archive", ref, "core", "proofs",
                                             "properties"))) as archive:
        archive.extractall(raw, filter="data")
    package = into / "site" / "betweencut"
    shutil.copytree(raw / "core", package)
    shutil.copytree(raw / "proofs", package / "proofs")
    shutil.copytree(raw / "properties", package / "properties")
    return into / "site"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], cwd: Path, site: Path | None) -> float:
    """CPU seconds of one run of `argv` (its own, read from the kernel: the machine is shared)."""
    env = dict(os.environ)
    if site is not None:
        env["PYTHONPATH"] = str(site)
    started = _children_cpu()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    seconds = _children_cpu() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.strip()}")
    return seconds


def compare(name: str, argv: list[str], cwd: Path, site: Path, repeat: int) -> None:
    before, after = [], []
    for _ in range(repeat):
        before.append(timed(argv, cwd, site))
        after.append(timed(argv, cwd, None))
    b, a = min(before), min(after)
    print(f"{name:<44} before {b:8.3f} s   after {a:8.3f} s   ratio {a / b:5.2f}  (CPU)")


def old_as_hashable(ref: str) -> Callable[[object], Any]:
    """`as_hashable` as `ref` defines it (main's `cache.py`, run as its own module)."""
    module = types.ModuleType("old_cache")
    module.__dict__["__name__"] = "old_cache"
    sys.modules["old_cache"] = module
    exec(compile(git("show", f"{ref}:proofs/privacy/enumeration/cache.py"), "old_cache",
                 "exec"), module.__dict__)
    return module.__dict__["as_hashable"]  # type: ignore[no-any-return]


def keying(ref: str, repeat: int) -> None:
    from betweencut.boundary.encoding import release_of
    from betweencut.data.tree import all_leaves, kary_tree
    from betweencut.mechanism.betweencut import BetweenCut
    from betweencut.mechanism.params import Params
    from betweencut.proofs.privacy.enumeration.transcripts import enumerate_mechanism

    mech = BetweenCut(kary_tree(2, 3), Params(Fraction(2), Fraction(1, 2), Fraction(2)))
    leaves = sorted(all_leaves(mech.tree))
    outputs: list[object] = []
    for n in range(3):
        for db in combinations_with_replacement(leaves, n):
            found = enumerate_mechanism(lambda test, db=db: mech.run(db, test))
            outputs.extend(o for o, _ in found.leaves)
    old = old_as_hashable(ref)

    def group(key: Callable[[object], Any]) -> float:
        started = time.process_time()
        seen: dict[Any, int] = {}
        for o in outputs:
            k = key(o)
            seen[k] = seen.get(k, 0) + 1
        return time.process_time() - started

    before, after = [], []
    for _ in range(3 * repeat):  # interleaved
        before.append(group(old))
        after.append(group(release_of))
    b, a = min(before), min(after)
    print(f"{f'keying {len(outputs)} Runs (h=3, |D|<=2)':<44} before {b:8.3f} s   after "
          f"{a:8.3f} s   ratio {a / b:5.2f}  (CPU)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--height", type=int, default=3)
    parser.add_argument("--ref", default="")
    args = parser.parse_args()
    ref = args.ref or git("merge-base", "HEAD", "main").decode().strip()
    print(f"before: {ref[:10]} (as_hashable); after: this checkout (release_of); best of "
          f"{args.repeat}, interleaved")
    with tempfile.TemporaryDirectory() as tmp:
        site = materialise(ref, Path(tmp))
        compare("README: audit privacy my_mechanism:flag", [sys.executable, "-m", "betweencut",
                *README], ROOT / "examples", site, args.repeat)
        compare(f"bench/privacy_exhaustive.py --height {args.height}",
                [sys.executable, str(ROOT / "bench" / "privacy_exhaustive.py"), "--height",
                 str(args.height)], ROOT, site, args.repeat)
    keying(ref, args.repeat)


if __name__ == "__main__":
    main()
