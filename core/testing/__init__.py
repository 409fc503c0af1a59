"""A privacy gate for test suites (issue 24): a privacy claim as an assertion, decided exactly,
so it never flakes.

* `assert_private(mechanism, epsilon, delta, pairs= | exhaustive=N | search=N, ...)`: the
  mechanism is `(ε, δ)`-DP on the pairs audited, or `AssertionError` with the counterexample
  (pair, event, exact `P` and `Q`, the excess) and a line that replays it;
* `assert_no_regression(candidate, baseline, pairs=..., ...)`: the candidate's exact `δ(ε)`
  never exceeds the baseline's, or every pair and exact `ε` range where it does;
* `assert_heavy_private(heavy_fn, epsilon, delta)`: a heavy-node classifier written against
  the noisy-test interface, audited on a small public tree's pairs;
* `pair_curves` and `check_snapshot`: each pair's exact privacy curve, stored as reviewable
  text and compared exactly (the `privacy_snapshot` fixture of the pytest plugin,
  `betweencut.properties.pytest_plugin`).

Every kind of mechanism `betweencut.audit_mechanism` knows (a function `(db, test)` asking
fresh-noise `BTQuery` tests or the shared-noise primitives, a builder `(tree, params)`, a
PrivTree); `budget_s=` bounds the time, failing with "too large for the budget" and how far
the audit got. A composition layer like `betweencut.api`: it may import every layer.
"""

from __future__ import annotations

from betweencut.testing.assertions import (
    assert_heavy_private,
    assert_no_regression,
    assert_private,
)
from betweencut.testing.budget import OverBudget
from betweencut.testing.curves import Curves, pair_curves
from betweencut.testing.snapshot import SnapshotError, SnapshotReport, check_snapshot

__all__ = ["Curves", "OverBudget", "SnapshotError", "SnapshotReport", "assert_heavy_private",
           "assert_no_regression", "assert_private", "check_snapshot", "pair_curves"]
