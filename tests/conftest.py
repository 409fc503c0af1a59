"""Test-suite configuration: the Hypothesis profile comes from `$HYPOTHESIS_PROFILE`
(`dev` by default; CI sets `ci`; `thorough` for long searches), see
`betweencut.properties.profiles`. The `spark` fixture is the one local SparkSession that every
Spark test of a run shares (tests marked `spark`, run by their own step of `.ci/run`).

The command line's default `--budget` (60 s on the clock) is an hour for the commands a test
runs in-process: a budget that depends on the machine's load must not decide a test on a
shared machine (principle 6). Tests of the budget pass `--budget` themselves."""

from collections.abc import Iterator
from typing import Any

import pytest

from betweencut.properties.profiles import load_profile_from_env

load_profile_from_env()


@pytest.fixture(autouse=True)
def _budget_not_on_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("betweencut.cli._common.DEFAULT_BUDGET", 3600)


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    pytest.importorskip("pyspark")
    from betweencut.engines import spark as spark_engine

    session = spark_engine.session("local[2]")
    yield session
    session.stop()
