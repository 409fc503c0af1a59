"""How a command ends when it does not end normally: one line on stderr and an exit status,
never a traceback (issue 39, items 3 and 4).

* **Ctrl-C anywhere** (SIGINT, `Interrupts`): one line `betweencut: interrupted` and exit 130,
  whatever the interrupted code turned the `KeyboardInterrupt` into (a dependency's own
  exception, an exception group). A second Ctrl-C (the first one swallowed by code that catches
  everything, or a clean-up that hangs) ends the process at once, with the same line.
* **A `KeyboardInterrupt` without a Ctrl-C** (raised by the user's mechanism): not an interrupt
  but an error of the code run, exit 2 with one line.
* **A closed stdout** (`betweencut ... >&-`): the first write ends the command quietly, as a
  reader that went away does (`| head -1`): exit 141 = 128 + SIGPIPE, nothing on stderr.
* **Anything else unexpected** (an exception group, a bug of betweencut, `SystemExit` from the
  user's code): exit 2 with one line naming the exception; `--debug` adds the traceback.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import sys
import threading
from types import FrameType
from typing import Any

EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command killed by Ctrl-C
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE
EXIT_USAGE = 2
INTERRUPTED_LINE = b"betweencut: interrupted\n"


def exit_interrupted_now(_signum: int = 0, _frame: FrameType | None = None) -> None:
    """Say the one line and end the process at once (no clean-up runs: used when the ordinary
    way out already failed once, and after the command has returned)."""
    try:
        os.write(2, INTERRUPTED_LINE)
    finally:
        os._exit(EXIT_INTERRUPTED)


class Interrupts:
    """While installed (the main thread only), SIGINT sets `seen` and raises
    `KeyboardInterrupt`; a second SIGINT ends the process (`exit_interrupted_now`)."""

    def __init__(self) -> None:
        self.seen = False
        self.previous: Any = None
        self.installed = False

    def install(self) -> Interrupts:
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self._handler)
            self.installed = True
        return self

    def _handler(self, _signum: int, _frame: FrameType | None) -> None:
        if self.seen:
            exit_interrupted_now()
        self.seen = True
        raise KeyboardInterrupt

    def restore(self, quiet_after: bool) -> None:
        """Put back the previous handler, or (`quiet_after`: the console script, whose
        interpreter still has to shut down) one that ends at once with the one line."""
        if self.installed:
            previous = self.previous if self.previous is not None else signal.SIG_DFL
            signal.signal(signal.SIGINT, exit_interrupted_now if quiet_after else previous)
            self.installed = False


class ClosedStdout:
    """Stands for a stdout that was closed (`>&-`): writing is a broken pipe."""

    def write(self, _text: str) -> int:
        raise BrokenPipeError(errno.EPIPE, "stdout is closed")

    def flush(self) -> None:
        return None

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        raise OSError(errno.EBADF, "stdout is closed")


def stdout_closed() -> bool:
    """True when the process was started with no stdout (fd 1 closed)."""
    if sys.stdout is None:
        return True
    try:
        descriptor = sys.stdout.fileno()
    except (OSError, ValueError, AttributeError):  # a stream without one (captured, notebook)
        return False
    try:
        os.fstat(descriptor)
    except OSError:
        return True
    return False


def quiet_broken_pipe() -> int:
    """The reader of stdout went away (`betweencut ... | head -1`) or stdout is closed: stop
    quietly. Python's documented recipe: point stdout at devnull so the interpreter's final flush
    does not fail again; exit 141 = 128 + SIGPIPE, as a shell command killed by the signal
    would."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no file descriptor (closed, or captured)
        pass
    return EXIT_BROKEN_PIPE


def leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions an exception group holds (itself for any other exception)."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in leaves(inner)]
    return [exc]


def unexpected(exc: BaseException, interrupts: Interrupts, debug: bool) -> int:
    """The one line and exit status for an exception no command handled (module docstring)."""
    if interrupts.seen:
        say_raw("interrupted")
        return EXIT_INTERRUPTED
    found = leaves(exc)
    if any(isinstance(e, BrokenPipeError) for e in found):
        return quiet_broken_pipe()
    first = found[0] if found else exc
    if isinstance(first, KeyboardInterrupt):
        message = ("the code run raised KeyboardInterrupt without a Ctrl-C (a mechanism must "
                   "return its output, not interrupt the audit)")
    elif isinstance(first, SystemExit):
        message = (f"the code run called sys.exit({first.code!r}) (a mechanism must return "
                   "its output, not exit)")
    elif isinstance(first, MemoryError):
        message = "ran out of memory (give a smaller input or a smaller public tree)"
    elif isinstance(first, RecursionError):
        message = "the computation nested too deeply (give a smaller public tree)"
    else:
        group = (f" (the first of {len(found)} in an exception group)"
                 if isinstance(exc, BaseExceptionGroup) else "")
        message = (f"unexpected {type(first).__name__}{group}: {first} (a bug of betweencut or "
                   "of the code run: --debug on classify shows the traceback; please report it)")
    say_raw(f"error: {message}")
    if debug:
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    return EXIT_USAGE


def say_raw(message: str) -> None:
    """One line on stderr, stdout flushed first if it can be (a closed or broken stdout is
    left alone)."""
    from betweencut.errors import one_line

    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except (OSError, ValueError):
        quiet_broken_pipe()
    with contextlib.suppress(OSError, ValueError):  # stderr closed too: nothing can be said
        print(f"betweencut: {one_line(message)}", file=sys.stderr)
