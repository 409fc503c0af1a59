"""One name, one module: no two modules of the package share a basename where a reader would
confuse them (issue 38).

A module's basename is what a reader sees in a traceback, an editor tab or a `from ... import`
line. Two `audit.py` or two `sampler.py` make them open the wrong file. The basenames of
`core/`, `proofs/` and `properties/` repeat only where the repetition says something (`ALLOWED`,
one reason per entry): the faces of one command (`cli/X.py` parses the command whose library
function is `api/X.py`), a baseline and its checker (`core/baselines/X.py` and
`proofs/baselines/X.py`), a notebook's helpers named after the notebook's topic.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("core", "proofs", "properties")
# what every package or command has: not a module a reader looks for by its name
EVERYWHERE = {"__init__.py", "__main__.py"}

ALLOWED: dict[str, tuple[frozenset[str], str]] = {
    "margins.py": (frozenset({"core/cli/margins.py", "core/api/margins.py",
                              "core/baselines/margins.py", "properties/teaching/margins.py"}),
                   "the faces of `betweencut margins`: the command line parses it, the API's "
                   "`margins` is its library function, the baselines' module computes the "
                   "table; the teaching helpers of the notebook on margins"),
    "release.py": (frozenset({"core/cli/release.py", "core/api/release.py"}),
                   "the two faces of one release: the API's `classify` and `calibrate`, the "
                   "command line's printing of their result"),
    "depth.py": (frozenset({"core/api/depth.py", "properties/teaching/depth.py"}),
                 "the API's `audit_depth` and the teaching helpers of the notebook on depth "
                 "(teaching modules are named after their notebook's topic)"),
    "corpus.py": (frozenset({"core/api/corpus.py", "proofs/baselines/corpus_checks/corpus.py"}),
                  "the API's `audit_corpus` and the checker it calls (the corpus verdicts)"),
    "lumberjack.py": (frozenset({"core/baselines/lumberjack.py",
                                 "proofs/baselines/lumberjack.py"}),
                      "a baseline and its checker: proofs/baselines mirrors core/baselines"),
    "published.py": (frozenset({"core/baselines/published.py",
                                "proofs/baselines/corpus_checks/published.py"}),
                     "a baseline and its checker: proofs/baselines mirrors core/baselines"),
    "privtree.py": (frozenset({"core/baselines/privtree.py",
                               "proofs/baselines/privtree_checks/privtree.py",
                               "core/api/privtree.py"}),
                    "a baseline, its checker (proofs/baselines mirrors core/baselines) and the "
                    "API's audit of a PrivTree"),
}


def _basenames(paths: list[str]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    for path in paths:
        name = Path(path).name
        if name not in EVERYWHERE:
            found[name].add(path)
    return found


def _confusing(paths: list[str]) -> list[str]:
    """The repeated basenames outside `ALLOWED`, each with its files."""
    out = []
    for name, where in sorted(_basenames(paths).items()):
        allowed = ALLOWED.get(name, (frozenset(), ""))[0]
        if len(where) > 1 and not where <= allowed:
            out.append(f"{name}: {', '.join(sorted(where))}")
    return out


def _modules() -> list[str]:
    return [str(p.relative_to(ROOT)) for folder in FOLDERS
            for p in sorted((ROOT / folder).rglob("*.py")) if "__pycache__" not in p.parts]


def test_no_repeated_module_basename_a_reader_would_confuse() -> None:
    """Rename the newer module (or add it to `ALLOWED` with the reason its name repeats)."""
    assert _confusing(_modules()) == []


def test_a_repeated_basename_is_caught() -> None:
    modules = [*_modules(), "proofs/laws/sampler.py", "core/noise/another/sampler.py",
               "properties/margins.py"]
    assert [line.split(":")[0] for line in _confusing(modules)] == ["margins.py", "sampler.py"]


def test_every_allowed_repeat_has_a_reason_and_its_files() -> None:
    for name, (paths, reason) in ALLOWED.items():
        assert len(paths) > 1 and reason, name
        assert all(Path(p).name == name for p in paths), name
