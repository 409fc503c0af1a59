"""Test-suite configuration: the Hypothesis profile comes from `$HYPOTHESIS_PROFILE`
(`dev` by default; CI sets `ci`; `thorough` for long searches), see
`betweencut.properties.settings`. The `spark` fixture is the one local SparkSession that every
Spark test of a run shares (tests marked `spark`, run by their own step of `.ci/run`).

The command line has no wall-clock budget unless `--budget` is given (its default limits are
work, the same on every machine: issue 35, item 7), so no test depends on the machine's load
(principle 6). Tests of the time budget pass `--budget` themselves.

The default run spreads its tests over one pytest-xdist worker per core (`-n auto` in
pyproject's addopts); a run that selects the Spark tests (`-m spark`) stays in one process:
they share one SparkSession (a JVM each), and the cluster test starts its own master and
workers."""

from collections.abc import Iterator
from typing import Any

import pytest

from betweencut.properties.settings import load_settings_from_env

load_settings_from_env()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto`: no worker (this process runs the tests) when the marker expression selects
    the Spark tests; otherwise pytest-xdist's own count (one worker per core)."""
    markexpr = str(config.getoption("markexpr", "") or "")
    if "spark" in markexpr.replace("not spark", ""):
        return 0
    return None


_ARCHIVE: list[object] = []


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before the first Spark test, the driver's class-data sharing archive is made if there
    is none (`betweencut.engines.spark_cds.prepare`, once a run), so that every session of the
    run (the shared one, and each command line's) starts with it."""
    if _ARCHIVE or item.get_closest_marker("spark") is None:
        return
    _ARCHIVE.append(None)
    try:
        from betweencut.engines import spark_cds
        from betweencut.engines.spark import spark_home

        _ARCHIVE[0] = spark_cds.prepare(spark_home())
    except ImportError:  # no pyspark: the Spark tests skip themselves
        return


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    pytest.importorskip("pyspark")
    from betweencut.engines import spark as spark_engine

    session = spark_engine.session("local[2]")
    yield session
    session.stop()
