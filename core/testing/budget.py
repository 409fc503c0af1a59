"""A time budget for one audit: exceeded, it fails with "too large for the budget" and how far
the audit got, never a hang.

Two checks, both on the same deadline:

* **between pairs**, everywhere: the audit's pairs pass through `Budget.pairs` (the `progress`
  hook of `betweencut.audit_mechanism`), which stops before the next pair once the deadline
  has passed, counting the pairs audited;
* **inside a pair**, where a timer can interrupt the main thread (POSIX, main thread, no other
  real-time timer running, such as pytest-timeout's): an interval timer interrupts a long
  enumeration at the deadline and every quarter second after it, until the audit unwinds.
  Elsewhere the enumeration's own budget (`limit` answer sequences, estimated after 256,
  `betweencut.proofs.privacy.enumeration.transcripts`) is what bounds one pair.

An exception that escapes the audit after the deadline passed (whatever wrapped it on the way
out: the user's code, Hypothesis) is reported as the budget exceeded. The enumeration's own
budget (`EnumerationBudgetExceeded`) is reported the same way, with its own account.
"""

from __future__ import annotations

import math
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction
from types import FrameType, TracebackType
from typing import Any, TypeVar

from betweencut.errors import BetweenCutError, ParameterError

__all__ = ["MAX_BUDGET_S", "Budget", "OverBudget", "check_budget"]

T = TypeVar("T")
MAX_BUDGET_S = 7 * 24 * 3600  # a week: past that, "no budget" (None) says what is meant
AFTER_DEADLINE_S = 0.25  # the timer rings again this often until the audit has unwound
UNIT = "pairs"


class OverBudget(AssertionError):
    """The audit did not finish within its budget. The message starts "too large for the
    budget" and says how far it got (pairs audited of how many, where it stopped, the time)."""


class _Ring(BetweenCutError):
    """Raised at the deadline to unwind the audit (never escapes `Budget.run`)."""


def check_budget(budget_s: object) -> float | None:
    """`budget_s` as seconds (None: no budget), `ParameterError` unless a number in
    `(0, MAX_BUDGET_S]`. A time budget is a float: it decides when to stop, never a verdict."""
    if budget_s is None:
        return None
    if isinstance(budget_s, bool) or not isinstance(budget_s, int | float | Fraction):
        raise ParameterError("budget_s", repr(budget_s), "seconds, a number > 0 (or None)")
    seconds = float(budget_s)
    if not (math.isfinite(seconds) and 0 < seconds <= MAX_BUDGET_S):
        raise ParameterError("budget_s", budget_s, f"seconds in (0, {MAX_BUDGET_S}]")
    return seconds


class Budget:
    """One audit's deadline and its account: pairs done of how many, the pair in progress.

    `run(job)` calls `job(progress)` (the `progress` hook goes to the audit) under the
    deadline and turns an overrun into `OverBudget`; without a budget it only counts."""

    def __init__(self, seconds: float | None, describe: Callable[[object], str] = repr,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self.describe = describe
        self.clock = clock
        self.started = clock()
        self.done = 0
        self.total: int | None = None
        self.current: object = None
        self.passes = 0  # passes over the pairs (one per release, or per mechanism compared)
        self.fired = False
        self._active = False
        self._previous: Any = None

    @property
    def elapsed(self) -> float:
        return self.clock() - self.started

    def over(self) -> bool:
        return self.seconds is not None and self.elapsed > self.seconds

    def pairs(self, items: Iterable[T], total: int) -> Iterator[T]:
        """The audit's `progress` hook: yields the pairs, stopping before the next one once
        the deadline has passed (a pair is done when the next one is asked for)."""
        self.passes += 1
        self.total, self.done, self.current = total, 0, None
        for item in items:
            if self.over():
                self.fired = True
                raise _Ring("deadline between pairs")
            self.current = item
            yield item
            self.done += 1
            self.current = None

    def account(self) -> str:
        """How far the audit got, in words."""
        if self.total is None:
            where = "before the first pair was audited (choosing or enumerating the pairs)"
        elif self.current is None and self.done == self.total:
            where = (f"after all {self.total} {UNIT} were audited (computing their exact "
                     "curves)")
        else:
            where = f"{self.done} of {self.total} {UNIT} audited"
            if self.current is not None:
                where += f"; stopped in pair {self.done + 1}: {self.describe(self.current)}"
        if self.passes > 1:
            where += f" (pass {self.passes} over the pairs)"
        return f"{where}; {self.elapsed:.1f} s"

    def message(self, why: str = "") -> str:
        limit = "" if self.seconds is None else f" of {self.seconds:g} s"
        return (f"too large for the budget{limit}: {why or 'the deadline passed'}; "
                f"{self.account()}. Audit fewer pairs (pairs=, a smaller exhaustive=N or "
                "search=N), a smaller tree, or raise budget_s")

    def run(self, job: Callable[[Callable[[Iterable[T], int], Iterator[T]]], Any]) -> Any:
        """`job(self.pairs)` under the deadline; `OverBudget` if it passes the deadline (or
        the enumeration's own budget)."""
        __tracebackhide__ = True
        from betweencut.proofs.privacy.enumeration.transcripts import EnumerationBudgetExceeded

        try:
            with self:
                return job(self.pairs)
        except KeyboardInterrupt:
            raise
        except EnumerationBudgetExceeded as exc:
            if self.fired:
                raise OverBudget(self.message()) from None
            raise OverBudget(self.message(f"the enumeration's budget: {exc}")) from None
        except BaseException:
            if self.fired:
                raise OverBudget(self.message()) from None
            raise

    # the timer inside a pair ---------------------------------------------------------------
    def _ring(self, signum: int, frame: FrameType | None) -> None:
        if self._active:
            self.fired = True
            raise _Ring("deadline inside a pair")

    def _can_ring(self) -> bool:
        return (self.seconds is not None and self.clock is time.monotonic
                and hasattr(signal, "setitimer")
                and threading.current_thread() is threading.main_thread()
                and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0))

    def __enter__(self) -> Budget:
        if self._can_ring() and self.seconds is not None:
            self._previous = signal.signal(signal.SIGALRM, self._ring)
            self._active = True
            left = max(self.seconds - self.elapsed, 0.001)
            signal.setitimer(signal.ITIMER_REAL, left, AFTER_DEADLINE_S)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._previous is None:
            return
        while True:  # the timer may ring once more while it is being stopped
            try:
                self._active = False
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, self._previous)
                self._previous = None
                return
            except _Ring:
                continue
