"""Running the console script in a subprocess with a time limit, measuring its peak memory.

Shared by the hardening and fuzz tests: `run_script(argv)` runs `betweencut ARGV`, kills it
past `timeout` seconds, caps its address space at `MEMORY_LIMIT` (so a run that would grow past
it fails instead of swapping the machine) and reads its peak resident memory from the kernel
(`os.wait4`'s resource usage of that one child).
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Any

MEMORY_LIMIT = 2 << 30  # bytes: the 2 GB the hardening issue allows a command
SCRIPT = shutil.which("betweencut")


@dataclass(frozen=True)
class Ran:
    argv: list[str]
    status: int
    out: str
    err: str
    seconds: float
    rss_mb: float
    killed: bool

    def contract(self, limit: float = 10.0) -> None:
        """Exit 0/1/3 with its normal output, or 2 with one line on stderr; no traceback; within
        `limit` seconds and under 2 GB."""
        where = (self.argv, self.status, self.err[-600:])
        assert not self.killed, ("no answer within the time limit", *where)
        assert "Traceback" not in self.err and "Traceback" not in self.out, where
        assert self.status in (0, 1, 2, 3), where
        if self.status == 2:
            lines = self.err.strip("\n").split("\n")
            assert len(lines) == 1 and lines[0].startswith("betweencut: "), where
            assert len(lines[0]) <= 600, where
        assert self.seconds <= limit, (f"{self.seconds:.1f} s", *where)
        assert self.rss_mb * (1 << 20) < MEMORY_LIMIT, (f"{self.rss_mb:.0f} MB", *where)


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_script(argv: list[str], *, cwd: str | None = None, timeout: float = 10.0,
               stdin: Any = subprocess.DEVNULL, env: dict[str, str] | None = None) -> Ran:
    """`betweencut ARGV` (or `python -m betweencut.cli` when the script is not installed)."""
    command = [SCRIPT] if SCRIPT else [sys.executable, "-m", "betweencut.cli"]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen([*command, *argv], stdout=out, stderr=err, stdin=stdin,
                                cwd=cwd, env=env, preexec_fn=_limit_memory)
        killed = threading.Event()

        def kill() -> None:
            killed.set()
            proc.kill()

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.stdin is not None:
            proc.stdin.close()
        seconds = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        return Ran(argv, proc.returncode, out.read().decode("utf-8", "replace"),
                   err.read().decode("utf-8", "replace"), seconds, usage.ru_maxrss / 1024,
                   killed.is_set())
