"""An audit on a terminal says what it is doing (issue 36, item 6): `--progress` is on by
default when stderr is a terminal, off in a pipe or a file, and `--progress`/`--no-progress`
decide when given. An audit reads no private data, so where stderr goes may decide this
(`classify` keeps its rule: progress only with `--progress`)."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

import pytest

ARGV = [sys.executable, "-m", "betweencut", "audit", "calibration"]


def _stderr_on_a_terminal(*extra: str) -> str:
    leader, follower = pty.openpty()
    try:
        done = subprocess.run([*ARGV, *extra], stdout=subprocess.DEVNULL, stderr=follower,
                              timeout=600, check=False)
        os.close(follower)
        follower = -1
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal's other end is closed: all read
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        if follower >= 0:
            os.close(follower)
        os.close(leader)
    assert done.returncode == 0
    return b"".join(chunks).decode()


@pytest.mark.skipif(not hasattr(pty, "openpty"), reason="needs a pseudo-terminal")
def test_an_audit_on_a_terminal_shows_where_it_is_unless_told_not_to() -> None:
    assert "audit: claim case 1 of" in _stderr_on_a_terminal()
    assert _stderr_on_a_terminal("--no-progress") == ""


def test_an_audit_in_a_pipe_is_quiet_unless_asked() -> None:
    quiet = subprocess.run(ARGV, capture_output=True, text=True, timeout=600, check=True)
    assert quiet.stderr == ""
    shown = subprocess.run([*ARGV, "--progress"], capture_output=True, text=True, timeout=600,
                           check=True)
    assert "audit: claim case 1 of" in shown.stderr
