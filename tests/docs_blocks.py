"""The fenced code blocks of the documentation, read the way `tests/project/test_docs_examples.py`
runs
them (see there for the conventions); other tests read their commands from the pages too."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
RUN = {"console", "python", "pycon"}
FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w-]*)[^\n]*$")
TITLE = re.compile(r'title="(?P<title>[^"]+)"')
HEREDOC = re.compile(r"<<-?\s*['\"]?(?P<tag>\w+)['\"]?")
MARK = re.compile(r"<!--\s*docs-test:\s*(?P<body>.*?)\s*-->")


@dataclass
class Block:
    page: Path
    line: int
    lang: str
    text: str
    marks: dict[str, str] = field(default_factory=dict)
    title: str = ""  # a block titled with a file name is that file of the reader's project

    @property
    def id(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def parse_marks(body: str) -> dict[str, str]:
    marks = {}
    for key, value in re.findall(r'(\w+)(?:=("[^"]*"|\S+))?', body):
        marks[key] = value.strip('"')
    return marks


def blocks_of(page: Path) -> list[Block]:
    """The fenced blocks of a page in order, with the marks of the comment right above each."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found = []
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent = len(opening["indent"])
        end = i + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        body = "\n".join(line[indent:] for line in lines[i + 1:end])
        marks = {}
        before = i - 1
        while before >= 0 and not lines[before].strip():
            before -= 1
        if before >= 0 and (mark := MARK.search(lines[before])):
            marks = parse_marks(mark["body"])
        title = TITLE.search(lines[i])
        found.append(Block(page, i + 1, opening["lang"], body, marks,
                           title["title"] if title else ""))
        i = end + 1
    return found


def pages() -> list[Path]:
    """Every page of the site, and the README (its examples run too)."""
    return [ROOT / "README.md", *sorted(p for p in DOCS.rglob("*.md") if "hooks" not in p.parts)]


def all_blocks() -> list[Block]:
    return [b for page in pages() for b in blocks_of(page) if b.lang in RUN]


def commands_of(text: str) -> list[tuple[str, str]]:
    """`(command, expected output)` pairs of a console block (a here-document's lines belong to
    its command)."""
    found: list[tuple[str, list[str]]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            command = line[2:]
            while command.endswith("\\") and i + 1 < len(lines):
                i += 1
                command = command[:-1] + " " + lines[i].strip()
            heredoc = HEREDOC.search(command)
            if heredoc:  # the lines up to the delimiter are the command's input
                end = lines.index(heredoc["tag"], i + 1)
                command = "\n".join([command, *lines[i + 1:end + 1]])
                i = end
            found.append((command, []))
        elif found:
            found[-1][1].append(line)
        else:
            raise ValueError(f"output before any command: {line!r}")
        i += 1
    return [(c, "\n".join(out).strip("\n")) for c, out in found]


def statuses_of(block: Block) -> list[int]:
    """The exit status the page states for each command of a console block (default 0)."""
    commands = commands_of(block.text)
    statuses = [int(s) for s in block.marks.get("exit", "0").split(",")]
    if len(statuses) == 1:
        statuses *= len(commands)
    if len(statuses) != len(commands):
        raise ValueError(f"{block.id}: exit= names {len(statuses)} statuses for "
                         f"{len(commands)} commands")
    return statuses


def shown_commands(page: str, prefix: str) -> list[tuple[str, int]]:
    """`(command, exit status)` of every console command of `docs/<page>` starting `prefix`."""
    found = []
    for block in blocks_of(DOCS / page):
        if block.lang == "console" and "skip" not in block.marks:
            for (command, _), status in zip(commands_of(block.text), statuses_of(block),
                                            strict=True):
                if command.startswith(prefix):
                    found.append((command, status))
    return found
