"""A pytest plugin: the `betweencut_check` fixture runs the structural property suite.

In a user's test suite (after `pip install betweencut` the plugin is registered through the
`pytest11` entry point; otherwise add `-p betweencut.properties.pytest_plugin` or list it in
the root `conftest.py`'s `pytest_plugins`), one line checks an implementation:

    def test_my_classifier(betweencut_check):
        betweencut_check(my_classify)   # fails the test naming every claim that breaks

`my_classify(tree, leaves, params, test) -> Run`, see `betweencut.properties.check`. Keyword
arguments go to `check_implementation` (`claims=`, `depo_fn=`, `max_examples=`). The settings
come from the loaded Hypothesis profile. Importing this module costs nothing beyond pytest: the
suite is imported when the fixture is first used, so registering the plugin cannot slow down or
break a test run that does not use it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


@pytest.fixture
def betweencut_check() -> Callable[..., Any]:
    """`check(classify_fn, **options) -> Report`; calls `pytest.fail` with the report (the
    failing claims, their shrunk inputs and witnesses) when any claim fails."""
    from betweencut.properties.check import check_implementation

    def check(classify_fn: Callable[..., Any], **options: Any) -> Any:
        report = check_implementation(classify_fn, **options)
        if not report.ok:
            pytest.fail(
                f"claims failing: {', '.join(report.failed_claims)}\n{report.summary()}",
                pytrace=False,
            )
        return report

    return check
