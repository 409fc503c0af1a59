"""Progress and budgets of long computations: one facility for the command line, the API and the
proofs (issues 26 and 29).

A `Tracker` is told where a computation is (`stage("level 3 of 12")`, `items(pairs, total,
"pairs")`, `tick(done, about, "answer sequences")`) and:

* shows it on stderr only when asked (`show`, the command line's `--progress`; never by default,
  terminal or not), every stage and, for counts, a line at most every `INTERVAL` seconds, each a
  whole line (nothing rewritten in place: a log reads as the screen did); public facts only:
  stages, levels, and counts that are functions of the public inputs (the pairs of an
  exhaustive audit, the answer sequences of a mechanism on a public database, the profiles of a
  depth audit, the registered claims). Counts of records are never shown. The time since the
  start is added only with `elapsed` (`--diagnostics`): how long a step takes may depend on the
  data;
* keeps a time budget (`budget` seconds, None: none): `check()` raises `BudgetExceeded`, a
  `ParameterError` saying how far the computation got (the last stage and counts), and
  `afford(seconds, what)` refuses at once a step projected to pass what is left of it;
* or, without a time budget, a work limit (`work`, in reference seconds: work counted from
  public inputs and priced at fixed rates, never by a clock; None: none): `afford_work(work,
  what)` refuses at once a job projected past it (`WorkLimitExceeded`). The same input gives
  the same answer on every machine, busy or not (issue 35, item 7): the command line's default
  is this limit (`DEFAULT_WORK`) and a wall-clock budget only when asked (`--budget`).

Deep layers (the enumeration of `betweencut.proofs`) reach the tracker of the computation they
run in through `current()`, set by `tracking(tracker)`; outside any, `current()` is a silent
tracker without a budget, so library calls behave as before.
"""

from __future__ import annotations

import math
import signal
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TextIO, TypeVar

from betweencut.errors import ParameterError

__all__ = ["DEFAULT_BUDGET", "DEFAULT_WORK", "BudgetExceeded", "Tracker", "WorkLimitExceeded",
           "current", "tracking"]

T = TypeVar("T")
DEFAULT_BUDGET: float | None = None  # no wall-clock limit unless asked (`--budget SECONDS`)
DEFAULT_WORK = 60  # reference seconds: the command line's default work limit (deterministic)
INTERVAL = 1.0  # seconds between two progress lines
GRACE = 1.0  # seconds past the budget before the alarm stops code that never checks it


class BudgetExceeded(ParameterError):
    """A computation passed (or would pass) its time budget: names the budget and how far the
    computation got."""

    def __init__(self, budget: float, where: str, why: str, advice: str | None = None) -> None:
        self.name, self.value, self.where = "budget", budget, where
        self.allowed = "a computation that finishes within it"
        Exception.__init__(self, (
            f"stopped at the time budget of {budget:g} s ({why}) {where}: " + (
                advice or "raise --budget, or audit a smaller tree, fewer pairs or a larger "
                          "lambda")))


class WorkLimitExceeded(ParameterError):
    """A job projected past the work limit (`Tracker.work`): the projection is counted from
    public inputs at fixed rates, so the refusal is the same on every machine."""

    def __init__(self, limit: float, work: float, what: str, advice: str | None = None) -> None:
        self.name, self.value, self.where = "work", work, "at the start"
        self.allowed = f"at most {limit:g} reference seconds of work"
        Exception.__init__(self, (
            f"stopped at the work limit of {limit:g} reference seconds ({what}: about "
            f"{work:,.0f}, at fixed rates) at the start: give --budget SECONDS (a wall-clock "
            "limit instead), or " + (advice or "audit fewer pairs or simpler parameters")))


class Tracker:
    """Where a long computation is, shown on request, and its time budget (module doc)."""

    def __init__(self, label: str = "betweencut", *, show: bool = False, elapsed: bool = False,
                 budget: float | None = None, stream: TextIO | None = None,
                 work: float | None = None) -> None:
        if budget is not None and not budget > 0:
            raise ParameterError("budget", budget, "a number of seconds > 0")
        if work is not None and not work > 0:
            raise ParameterError("work", work, "a number of reference seconds > 0")
        self.label, self.show, self.elapsed, self.budget = label, show, elapsed, budget
        self.work = work  # the work limit (reference seconds), kept when no time budget is
        self.stream = stream
        self.start = time.monotonic()
        self.last = -INTERVAL
        self.where: dict[str, str] = {}  # what each level of the computation reached

    # -- where the computation is (public facts only) --------------------------------------
    def stage(self, message: str, key: str = "stage") -> None:
        """A public fact about the computation: its stage or a level (each shown), or a count
        (`key` its unit: shown at most once every `INTERVAL` seconds)."""
        self.where[key] = message
        self.check()
        self._say(every=key == "stage")

    __call__ = stage  # a tracker is a `progress(message)` callable (the classifier's seam)

    def items(self, items: Iterable[T], total: int, unit: str) -> Iterator[T]:
        """Yield `items` (`total` of them, a public count), reporting `unit k of total`."""
        for done, item in enumerate(items, start=1):
            self.stage(f"{unit} {done} of {total}", unit)
            yield item
        self.where.pop(unit, None)

    def tick(self, done: int, about: int | None, unit: str) -> None:
        """`done` `unit` so far (of about `about`, an estimate from public inputs)."""
        of = f" of about {about}" if about is not None else ""
        self.stage(f"{done} {unit}{of}", unit)

    def finish(self, unit: str) -> None:
        """The counting of `unit` is over (it no longer says where the computation is)."""
        self.where.pop(unit, None)

    # -- the budget ------------------------------------------------------------------------
    def seconds(self) -> float:
        return time.monotonic() - self.start

    def left(self) -> float | None:
        return None if self.budget is None else self.budget - self.seconds()

    def check(self) -> None:
        """`BudgetExceeded` once the budget is spent."""
        left = self.left()
        if left is not None and left < 0:
            raise BudgetExceeded(self.budget or 0, self.reached(), "spent")

    def afford(self, seconds: float, what: str, advice: str | None = None) -> None:
        """Refuse at once a step projected to take `seconds`, past what is left of the budget
        (`advice`: what to change, instead of the general one)."""
        left = self.left()
        if left is not None and seconds > left:
            raise BudgetExceeded(self.budget or 0, self.reached(),
                                 f"{what} would take about {_secs(seconds)}, "
                                 f"{_secs(max(left, 0))} of the budget left", advice)

    def needed(self, seconds: float) -> int:
        """The whole-second budget a step projected at `seconds` would need, counting what
        was spent already (start-up, the import of the user's module): more than the budget."""
        return max(math.ceil(self.seconds() + seconds), int(self.budget or 0) + 1)

    def afford_work(self, work: float, what: str, advice: str | None = None) -> None:
        """Refuse at once a job projected at `work` reference seconds (counted from public
        inputs at fixed rates) past the work limit; a time budget, when given, replaces it."""
        if self.budget is None and self.work is not None and work > self.work:
            raise WorkLimitExceeded(self.work, work, what, advice)

    def reached(self) -> str:
        return "at " + "; ".join(self.where.values()) if self.where else "at the start"

    # -- output ----------------------------------------------------------------------------
    def _say(self, every: bool = False) -> None:
        if not self.show:
            return
        now = self.seconds()
        if now - self.last < INTERVAL and not every:
            return
        self.last = now
        seconds = f" ({now:.0f} s)" if self.elapsed else ""
        stream = self.stream or sys.stderr
        stream.write(f"{self.label}: {'; '.join(self.where.values())}{seconds}\n")
        stream.flush()

    def close(self) -> None:
        """Nothing is left on the screen to clear (every line is a whole line)."""


_SILENT = Tracker(show=False)
_CURRENT: ContextVar[Tracker] = ContextVar("betweencut_tracker", default=_SILENT)


def current() -> Tracker:
    """The tracker of the computation running (a silent one without a budget outside any)."""
    return _CURRENT.get()


@contextmanager
def tracking(tracker: Tracker) -> Iterator[Tracker]:
    """Run the block under `tracker` (its budget counted from now). In the main thread, a
    budget is also kept by an alarm `GRACE` seconds past it, for code that never reaches a
    check (a user's mechanism looping without asking a test): it raises `BudgetExceeded` where
    the code is. An earlier alarm set by the caller is left to fire first, and restored after."""
    tracker.start = time.monotonic()
    token = _CURRENT.set(tracker)
    try:
        with _alarm(tracker):
            yield tracker
    finally:
        _CURRENT.reset(token)


def _secs(seconds: float) -> str:
    """Seconds for a message: tenths below 10 s (a budget of 1 s is spent in tenths)."""
    return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"


@contextmanager
def _alarm(tracker: Tracker) -> Iterator[None]:
    usable = (tracker.budget is not None and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable or tracker.budget is None:
        yield
        return
    delay = tracker.budget + GRACE
    outer = signal.getitimer(signal.ITIMER_REAL)
    if 0 < outer[0] <= delay:  # the caller's alarm fires first: keep it
        yield
        return

    def ring(signum: int, frame: object) -> None:
        raise BudgetExceeded(tracker.budget or 0, tracker.reached(),
                             "spent, the computation stopped where it was")

    hook = sys.unraisablehook

    def unraisable(report: Any) -> None:  # the alarm rang in a finalizer or a gc callback,
        if not isinstance(report.exc_value, BudgetExceeded):  # where it is dropped: it rings
            hook(report)  # again a GRACE later, silently here

    previous = signal.signal(signal.SIGALRM, ring)
    sys.unraisablehook = unraisable
    signal.setitimer(signal.ITIMER_REAL, delay, GRACE)  # again if the code swallows it
    started = time.monotonic()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        sys.unraisablehook = hook
        if outer[0] > 0:
            signal.setitimer(signal.ITIMER_REAL,
                             max(outer[0] - (time.monotonic() - started), 1e-3), outer[1])
