"""Every shell and Python example of `docs/` (and of the README) runs, and shows the output it
really prints.

The blocks of each page run in order, in a scratch directory of their own holding a copy of
`examples/`:

* a ```` ```console ```` block: each line starting with `$ ` is a command (a line ending in `\\`
  continues it), run with bash; the lines after it, up to the next `$ `, are its expected
  output (stdout then stderr), compared as doctest does with `...` matching anything and runs
  of whitespace equal; a command shown without output has its output unchecked. `cd DIR`
  moves the page's later commands to DIR;
* a ```` ```python ```` block runs in one namespace per page; a ```` ```pycon ```` block
  (`>>> ` lines and their output) runs as a doctest in the same namespace;
* a ```` ```python title="F" ```` block is the file `F` of the reader's project: it is
  written in the page's working directory, not run (the CI-gate tutorial's files: its own
  runner, `tests/tutorial_harness.py`, runs the page's commands and checks its outputs);
* other languages (`text`, `json`, `toml`, ...) are not run.

An HTML comment on the line before a block marks it: `<!-- docs-test: exit=1 -->` (every
command exits 1; `exit=0,1,1` one status per command; default 0), `<!-- docs-test: slow -->`
(run with `-m slow`), `<!-- docs-test: spark -->` (needs pyspark and Java: run with `-m spark`),
`<!-- docs-test: skip="why" -->` (only what cannot run in CI: a package
install, a Spark cluster). A later block may rely on the files and names an earlier block of
its page made, unless that block is slow or skipped.
"""

from __future__ import annotations

import contextlib
import doctest
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from docs_blocks import (
    DOCS,
    ROOT,
    RUN,
    Block,
    all_blocks,
    blocks_of,
    commands_of,
    statuses_of,
)

OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
TIMEOUT = 600


class Page:
    """The state of one page's run: its scratch directory, working directory and namespace."""

    def __init__(self, page: Path, scratch: Path) -> None:
        self.page = page
        self.scratch = scratch
        shutil.copytree(ROOT / "examples", scratch / "examples",
                        ignore=shutil.ignore_patterns("__pycache__"))
        self.cwd = scratch
        self.namespace: dict[str, Any] = {"__name__": "__docs__"}
        self.done: set[int] = set()

    def run(self, block: Block) -> None:
        for earlier in blocks_of(self.page):  # what this block may rely on, run first
            if earlier.line >= block.line:
                break
            if (earlier.lang in RUN and earlier.line not in self.done
                    and not {"skip", "slow", "spark"} & set(earlier.marks)):
                self._run(earlier)
        self._run(block)

    def _run(self, block: Block) -> None:
        self.done.add(block.line)
        if block.title:
            (self.cwd / block.title).write_text(block.text + "\n", encoding="utf-8")
        elif block.lang == "console":
            self._console(block)
        elif block.lang == "python":
            self._python(block)
        else:
            self._pycon(block)

    @contextlib.contextmanager
    def _here(self) -> Iterator[None]:
        """Python as a reader runs it: from the page's directory, which is on `sys.path`."""
        previous = Path.cwd()
        os.chdir(self.cwd)
        sys.path.insert(0, str(self.cwd))
        try:
            yield
        finally:
            os.chdir(previous)
            sys.path.remove(str(self.cwd))

    def _console(self, block: Block) -> None:
        commands = commands_of(block.text)
        statuses = statuses_of(block)
        env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}"
               f"{os.environ.get('PATH', '')}", "MPLBACKEND": "Agg", "COLUMNS": "100"}
        for (command, expected), status in zip(commands, statuses, strict=True):
            words = shlex.split(command)
            if words and words[0] == "cd":
                self.cwd = (self.cwd / words[1]).resolve()
                continue
            done = subprocess.run(["bash", "-c", command], cwd=self.cwd, env=env,
                                  capture_output=True, text=True, timeout=TIMEOUT, check=False)
            got = done.stdout + done.stderr
            where = f"{block.id}: $ {command}"
            assert done.returncode == status, (
                f"{where}\nexit status {done.returncode}, the page says {status}\n{got}")
            if expected and not doctest.OutputChecker().check_output(
                    expected + "\n", got, OPTIONS):
                pytest.fail(f"{where}\nthe page shows:\n{expected}\nthe command printed:\n{got}")

    def _python(self, block: Block) -> None:
        with self._here():
            exec(compile(block.text, block.id, "exec"), self.namespace)

    def _pycon(self, block: Block) -> None:
        test = doctest.DocTestParser().get_doctest(block.text, self.namespace, block.id,
                                                   str(block.page), block.line)
        runner = doctest.DocTestRunner(optionflags=OPTIONS)
        with self._here():
            runner.run(test, clear_globs=False)
        self.namespace.update(test.globs)
        if runner.failures:
            pytest.fail(f"{block.id}: a doctest failed (its report is above)")


_PAGES: dict[Path, Page] = {}


@pytest.fixture
def page_state(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    def get(page: Path) -> Page:
        if page not in _PAGES:
            _PAGES[page] = Page(page, tmp_path_factory.mktemp(page.stem))
        return _PAGES[page]
    return get


def _params() -> list[Any]:
    """One test per block; the blocks of a page are one pytest-xdist group (`--dist
    loadgroup`, pyproject's addopts), so they run in order in one worker, which runs each
    earlier block of the page once (split over two workers, both ran them)."""
    params = []
    for block in all_blocks():
        marks: list[Any] = [pytest.mark.xdist_group(str(block.page.relative_to(ROOT)))]
        if "skip" in block.marks:
            marks.append(pytest.mark.skip(reason=block.marks["skip"] or "marked skip"))
        if "slow" in block.marks:
            marks.append(pytest.mark.slow)
        if "spark" in block.marks:
            marks.append(pytest.mark.spark)
        params.append(pytest.param(block, id=block.id, marks=marks))
    return params


@pytest.mark.parametrize("block", _params())
def test_docs_example_runs_as_shown(block: Block, page_state: Any) -> None:
    page_state(block.page).run(block)


def test_every_skip_says_why() -> None:
    """A block is skipped only with its reason, and only for what CI cannot run."""
    for block in all_blocks():
        if "skip" in block.marks:
            assert block.marks["skip"].strip(), f"{block.id}: skip without a reason"
        unknown = set(block.marks) - {"skip", "slow", "spark", "exit"}
        assert not unknown, f"{block.id}: unknown docs-test marks {unknown}"


def test_the_runner_rejects_a_wrong_output(tmp_path: Path) -> None:
    """The check can fail: a page showing output the command does not print is rejected."""
    page = tmp_path / "wrong.md"
    page.write_text("```console\n$ echo one\ntwo\n```\n", encoding="utf-8")
    block = blocks_of(page)[0]
    state = Page(page, tmp_path / "scratch")
    with pytest.raises(pytest.fail.Exception, match="the page shows"):
        state._console(Block(DOCS / "wrong.md", block.line, block.lang, block.text))
    status = Block(DOCS / "status.md", 1, "console", "$ false")
    with pytest.raises(AssertionError, match="exit status 1, the page says 0"):
        state._console(status)
