"""Issue 40, item 1: `classify --progress` says public facts only, on every engine.

For neighbouring inputs (one record added or removed) whose Heavy sets agree, stdout and stderr
with `--progress` are byte-identical. The issue's case: on a tree of height 20, 11 or 10 copies
of the leaf 0^19 (Spark's second job runs only when a candidate calls for it; its line is now
said whenever the plan has a second job). The memory and DuckDB engines run in the default
suite; Spark's run (a fresh JVM per command, as the command line has) is marked `spark`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ARGS = ["--height", "20", "--tau", "40", "--epsilon", "1", "--delta", "0.05", "--seed", "1",
        "--progress"]
LEAF_0 = "/".join(["0"] * 19)
LEAF_1 = "/".join(["1"] * 19)
HANG_SECONDS = 600  # a guard on the clock: only a hang reaches it, however loaded the machine


def _neighbours(tmp_path: Path) -> list[tuple[Path, Path]]:
    """Pairs (x, x + one record): the issue's 11 / 10 copies of 0^19, and a few around them."""
    pairs = []
    for i, (copies, others) in enumerate([(11, 3), (1, 0), (25, 30), (0, 41)]):
        rows = [LEAF_0] * copies + [LEAF_1] * others
        big, small = tmp_path / f"big{i}.csv", tmp_path / f"small{i}.csv"
        big.write_text("rec\n" + "".join(r + "\n" for r in rows), encoding="utf-8")
        small.write_text("rec\n" + "".join(r + "\n" for r in rows[1:]), encoding="utf-8")
        pairs.append((big, small))
    return pairs


def _start(path: Path, engine: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "betweencut", "classify", str(path), *ARGS,
                             "--engine", engine], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)


def _finish(process: subprocess.Popen[str]) -> tuple[str, str]:
    out, err = process.communicate(timeout=HANG_SECONDS)
    assert process.returncode == 0, err
    return out, err


def _check(tmp_path: Path, engine: str, pairs: int) -> None:
    """Every command of the pairs at once (each a fresh process: for Spark a JVM's start-up,
    which the machine's cores overlap), then compared pair by pair."""
    started = [(big, _start(big, engine), _start(small, engine))
               for big, small in _neighbours(tmp_path)[:pairs]]
    for big, run_big, run_small in started:
        out_big, err_big = _finish(run_big)
        out_small, err_small = _finish(run_small)
        heavy = [line for line in out_big.splitlines() if line.startswith("Heavy nodes")]
        assert heavy == [line for line in out_small.splitlines()
                         if line.startswith("Heavy nodes")]
        assert out_big == out_small and err_big == err_small, (big, err_big, err_small)
        assert err_big.count("\n") >= 2  # the progress was shown


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_progress_is_the_same_for_neighbours_with_one_heavy_set(tmp_path: Path,
                                                                engine: str) -> None:
    if engine == "duckdb":
        pytest.importorskip("duckdb")
    _check(tmp_path, engine, pairs=4)


@pytest.mark.spark
def test_spark_progress_is_the_same_for_neighbours_with_one_heavy_set(tmp_path: Path) -> None:
    pytest.importorskip("pyspark")
    _check(tmp_path, "spark", pairs=2)
