"""Issue 39, items 2 and 4: Spark's own (Java) log reaches stderr only with `classify --debug`.

Each command is a fresh process (the first Spark session of a process decides where the JVM's
log goes): without `--debug` stderr is empty on success and the one line on an error; with
`--debug` Spark's log lines show. Marked `spark` (pyspark and a Java runtime; each command
starts a JVM).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.spark
ARGS = ["--height", "4", "--tau", "20", "--epsilon", "1", "--delta", "0.05", "--seed", "1",
        "--engine", "spark", "--spark-master", "local[1]"]
HANG_SECONDS = 600  # a guard on the clock: only a hang reaches it


def _start(path: Path, *flags: str) -> subprocess.Popen[str]:
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1")
    return subprocess.Popen([sys.executable, "-m", "betweencut", "classify", str(path), *ARGS,
                             *flags], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, stdin=subprocess.DEVNULL)


def _finish(process: subprocess.Popen[str]) -> subprocess.CompletedProcess[str]:
    out, err = process.communicate(timeout=HANG_SECONDS)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def test_spark_log_reaches_stderr_only_with_debug(tmp_path: Path) -> None:
    """The three commands run at once (fresh processes: their JVMs' start-ups overlap)."""
    pytest.importorskip("pyspark")
    good = tmp_path / "good.csv"
    good.write_text("rec\n" + "0/0/0\n" * 40, encoding="utf-8")
    bad = tmp_path / "bad.csv"
    bad.write_text("rec\n" + "0/0/0\n" * 40 + "0/9/0\n", encoding="utf-8")
    started = _start(good), _start(bad), _start(good, "--debug")
    quiet, refused, loud = (_finish(process) for process in started)

    assert quiet.returncode == 0 and "/0/0/0" in quiet.stdout, quiet.stderr[-3000:]
    assert quiet.stderr == "", quiet.stderr[-3000:]

    assert refused.returncode == 2 and refused.stdout == "", refused.stderr[-3000:]
    assert refused.stderr.count("\n") == 1 and "row 41" in refused.stderr, refused.stderr

    assert loud.returncode == 0 and "/0/0/0" in loud.stdout, loud.stderr[-3000:]
    assert "log4j" in loud.stderr or " WARN " in loud.stderr, loud.stderr[-3000:]
