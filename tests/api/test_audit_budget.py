"""Issue 26: `audit_mechanism` under a time budget projects its whole work before any
(`betweencut.proofs.privacy.enumeration.cost.audit_cost`) and refuses at once a job past the
budget; a job within it runs as before, the running budget still its safety net."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from betweencut.api import audit_mechanism
from betweencut.progress import BudgetExceeded, Tracker, tracking

FLAGS: dict[str, Any] = {"lam": Fraction(1, 1000), "R": 1000, "tau": 1000, "exhaustive": 2}


class Recording(Tracker):
    """A tracker that keeps every stage it is told (the work done) and every step it is asked
    to afford."""

    def __init__(self, budget: float) -> None:
        super().__init__(budget=budget)
        self.stages: list[str] = []
        self.asked: list[tuple[float, str]] = []

    def stage(self, message: str, key: str = "stage") -> None:
        self.stages.append(message)
        super().stage(message, key)

    def afford(self, seconds: float, what: str, advice: str | None = None) -> None:
        self.asked.append((seconds, what))
        super().afford(seconds, what, advice)


def _audit(tracker: Recording, height: int) -> Any:
    with tracking(tracker):
        return audit_mechanism("betweencut.mechanism.betweencut:BetweenCut", height=height,
                               progress=lambda items, n: tracker.items(items, n, "pair"),
                               **FLAGS)


def test_audit_past_its_budget_is_refused_before_any_work() -> None:
    """Binary height 4 at lambda = 1/1000, R = tau = 1000, every pair `|D| <= 2`: refused at
    the start, naming the estimate, the budget and what to change; the tracker saw no pair and
    no answer sequence."""
    tracker = Recording(budget=60)
    with pytest.raises(BudgetExceeded) as refused:
        _audit(tracker, 4)
    assert tracker.stages == []
    text = str(refused.value)
    assert text.startswith("stopped at the time budget of 60 s (the audit (360 pairs; ")
    assert ") at the start: raise --budget to " in text and "(--height, --exhaustive)" in text
    ((seconds, _),) = tracker.asked
    assert seconds > 60


def test_same_audit_at_height_2_passes_its_estimate_and_holds() -> None:
    tracker = Recording(budget=60)
    verdict = _audit(tracker, 2)
    assert verdict.holds and verdict.pairs == 12
    assert tracker.asked and tracker.asked[0][1].startswith("the audit (12 pairs; ")
    assert tracker.asked[0][0] < 60 and "pair 1 of 12" in tracker.stages


def test_no_estimate_without_a_budget() -> None:
    """Without a budget (a library call outside any `tracking`) nothing is estimated: the
    audit runs as before."""
    tracker = Recording(budget=1)
    tracker.budget = None
    verdict = _audit(tracker, 2)
    assert verdict.holds and tracker.asked == []


def test_the_advised_budget_counts_the_time_already_spent() -> None:
    """A budget mostly spent before the audit starts (start-up, the user's module): the
    advice names a budget past the one given and past what was spent plus the estimate (it
    said "raise --budget to 1" to a budget of 1 s spent on the import)."""
    import re
    import time

    from betweencut.progress import Tracker

    tracker = Tracker(budget=1)
    tracker.start = time.monotonic() - 0.95
    with pytest.raises(BudgetExceeded) as refused:
        tracker.afford(0.3, "the audit", advice=f"raise --budget to {tracker.needed(0.3)}")
    text = str(refused.value)
    assert "would take about 0.3 s, 0.1 s of the budget left" in text or \
        "would take about 0.3 s, 0.0 s of the budget left" in text, text
    (advised,) = map(int, re.findall(r"raise --budget to (\d+)", text))
    assert advised == 2
