"""The command line run in the test's own process, and a user's module written into a fresh
folder, for the tests of what the command line does with a user's code (hardening, the
boundary's encoding, isolation, sandbox and strict mode): one copy of each helper."""

from __future__ import annotations

import io
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from betweencut.cli import main


def cli(argv: list[str]) -> tuple[int, str, str]:
    """`betweencut ARGV` in this process: its exit status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def one_line_exit_2(status: int, err: str) -> str:
    """The one `betweencut: error:` line of an exit 2, without a traceback."""
    lines = err.strip("\n").split("\n")
    assert status == 2 and len(lines) == 1 and lines[0].startswith("betweencut: error: "), err
    assert "Traceback" not in err
    return lines[0]


def user_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, text: str) -> Path:
    """The module `name` (source `text`) in a fresh folder, the working directory, as a user
    runs it: importable, and not yet imported."""
    (tmp_path / f"{name}.py").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop(name, None)
    return tmp_path
