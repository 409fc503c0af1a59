"""Runs `docs/tutorials/ci-gate.md` as written (issue 24): its titled code blocks are the files of
a user's project, its `bash` blocks the commands, its `output` blocks lines that must appear in
what the command printed, its snapshot block the exact file written.

The page's blocks are read as `tests/project/test_docs_examples.py` reads every page of the site
(`docs_blocks.blocks_of`: that runner writes the titled files and runs nothing else here); a
block is a fence with a language and an optional `title="..."` (MkDocs' syntax):

* `python title="F"` writes the file `F`; `diff title="F"` replaces each `-` line of `F` by the
  `+` line after it;
* `bash`: each line is a command; `pytest ...` and `betweencut ...` run (through `runner`),
  `python -m pip ...` and `git ...` do not (the package is installed already);
* `text title="output"`: every line but `...` appears, whitespace collapsed, in the last
  command's output, as an 80-column terminal shows it: a section rule (`=== title ===`) matches
  that title under a rule of any width, and a line pytest cut to the width (ending in `...`)
  matches any line it begins; a run whose expected output names a failure (`FAILED`, `REFUTED`) must
  exit 1, any other 0;
* `text title="P"` (a path): the file `P` of the project, exactly (the `written by:` version
  aside); `yaml title="F"`: the file `docs/tutorials/F`, exactly.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from docs_blocks import DOCS, ROOT, blocks_of

TUTORIAL = DOCS / "tutorials" / "ci-gate.md"
__all__ = ["ROOT", "TUTORIAL", "Runner", "blocks", "files", "run_tutorial"]


@dataclass(frozen=True)
class Block:
    lang: str
    title: str
    body: str  # ends with a newline, as the file it shows


def blocks() -> list[Block]:
    return [Block(b.lang, b.title, b.text + "\n") for b in blocks_of(TUTORIAL)]


def files() -> dict[str, str]:
    """The tutorial's first version of each file it writes."""
    out: dict[str, str] = {}
    for b in blocks():
        if b.lang == "python" and b.title and b.title not in out:
            out[b.title] = b.body
    return out


def _squash(line: str) -> str:
    return " ".join(line.split())


def _shown(expected: str, seen: set[str]) -> bool:
    """Whether `expected` is printed, whatever the width of the terminal that printed `seen`."""
    line = _squash(expected)
    if line in seen:
        return True
    if line.startswith("=") and line.endswith("="):
        title = line.strip("= ")
        return any(s.startswith("=") and s.strip("= ") == title for s in seen)
    if line.endswith("...") and line != "...":
        return any(s.startswith(line[:-3]) for s in seen)
    return False


def _apply(path: Path, diff: str) -> None:
    text = path.read_text(encoding="utf-8")
    lines = diff.splitlines()
    for old, new in zip(lines[::2], lines[1::2], strict=True):
        assert old.startswith("-") and new.startswith("+"), (old, new)
        assert old[1:] in text, f"{path.name} has no line {old[1:]!r}"
        text = text.replace(old[1:], new[1:])
    path.write_text(text, encoding="utf-8")


Runner = Callable[[list[str]], tuple[int, str]]  # argv -> (exit status, output)


def run_tutorial(root: Path, run: Runner, version: str) -> list[str]:
    """Every step of the tutorial in the project folder `root`; returns the commands run."""
    ran: list[str] = []
    status, output = 0, ""
    for b in blocks():
        if b.lang == "python" and b.title:
            (root / b.title).write_text(b.body, encoding="utf-8")
        elif b.lang == "diff":
            _apply(root / b.title, b.body)
        elif b.lang == "bash":
            for line in b.body.splitlines():
                argv = shlex.split(line)
                if not argv or argv[0] in ("git",) or argv[:3] == ["python", "-m", "pip"]:
                    continue
                assert argv[0] in ("pytest", "betweencut"), line
                status, output = run(argv)
                ran.append(line)
        elif b.lang == "text" and b.title == "output":
            seen = {_squash(x) for x in output.splitlines()}
            missing = [x for x in b.body.splitlines()
                       if x.strip() != "..." and not _shown(x, seen)]
            assert not missing, f"after {ran[-1]!r}, not in its output: {missing}\n{output}"
            fails = any(x.startswith(("FAILED", "E ")) or "REFUTED" in x
                        for x in b.body.splitlines())
            assert status == (1 if fails else 0), (ran[-1], status, output)
        elif b.lang == "text" and b.title:
            written = (root / b.title).read_text(encoding="utf-8")
            shown = re.sub(r"written by: betweencut \S+", f"written by: {version}", b.body)
            assert written == shown, f"{b.title} differs from the tutorial:\n{written}"
        elif b.lang == "yaml":
            assert b.body == (TUTORIAL.parent / b.title).read_text(encoding="utf-8"), b.title
    return ran
