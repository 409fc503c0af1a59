"""A pytest plugin: the `betweencut_check` fixture runs the structural property suite.

In a user's test suite (after `pip install betweencut` the plugin is registered through the
`pytest11` entry point; otherwise add `-p betweencut.properties.pytest_plugin` or list it in
the root `conftest.py`'s `pytest_plugins`), one line checks an implementation:

    def test_my_classifier(betweencut_check):
        betweencut_check(my_classify)   # fails the test naming every claim that breaks

`my_classify(tree, leaves, params, test) -> Run`, see `betweencut.properties.check`. Keyword
arguments go to `check_implementation` (`claims=`, `depo_fn=`, `max_examples=`, `seed=`,
`derandomize=`). Deterministic runs: `HYPOTHESIS_PROFILE=ci pytest` (read by the check itself,
no conftest needed) or `derandomize=True`; otherwise each run draws a seed, and a failure
prints a `replay:` line (`seed=S`, or `BETWEENCUT_SEED=S pytest ...`) that repeats it exactly.
A classifier that is not a port of Alg. 3 (no transcript or marking log) is checked on what it
releases with `betweencut_heavy_check(heavy_fn)` (`betweencut.properties.heavy_only`: ancestor
closure and Theorem C.2 on the Heavy set). Importing this module costs nothing beyond pytest: the
suite is imported when the fixture is first used, so registering the plugin cannot slow down or
break a test run that does not use it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


def _failing(checker: Callable[..., Any]) -> Callable[..., Any]:
    """`checker`, calling `pytest.fail` with its report (the failing claims, their shrunk
    inputs and witnesses) when any claim fails."""

    def check(fn: Callable[..., Any], **options: Any) -> Any:
        report = checker(fn, **options)
        if not report.ok:
            pytest.fail(
                f"claims failing: {', '.join(report.failed_claims)}\n{report.summary()}",
                pytrace=False,
            )
        return report

    return check


@pytest.fixture
def betweencut_check() -> Callable[..., Any]:
    """`check(classify_fn, **options) -> Report`; calls `pytest.fail` with the report (the
    failing claims, their shrunk inputs and witnesses) when any claim fails."""
    from betweencut.properties.check import check_implementation

    return _failing(check_implementation)


@pytest.fixture
def betweencut_heavy_check() -> Callable[..., Any]:
    """`check(heavy_fn, **options) -> Report` for any classifier returning its Heavy set
    (`betweencut.properties.heavy_only.check_heavy_classifier`); `pytest.fail` on a failure."""
    from betweencut.properties.heavy_only import check_heavy_classifier

    return _failing(check_heavy_classifier)
