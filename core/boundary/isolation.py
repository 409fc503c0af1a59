"""The user's code runs in child processes: its exit, signals, closed streams and hangs are an
error of the audit, never the audit's fate (issue 34, "The user's code cannot end the audit";
issue 40 item 3: a user module's import runs in a child, within the budget).

`in_child(work, who, where)` forks a child from the audit's process (the state the audit built,
before any run of the user's code on this input), and in the child: points file descriptors 0,
1 and 2 at `/dev/null` (closing or writing them cannot touch the audit's own streams, its
stdout or JSON), ignores SIGINT (Ctrl-C is the parent's), runs `work()` and sends the bytes it
returns back through a pipe, then ends with `os._exit`. The parent decodes nothing but a
length-framed byte string (what those bytes mean is the caller's format, JSON: nothing the
child sends is executed).

The parent turns into one `MechanismError` naming `who` (the mechanism) and `where` (the
database, or "while importing it"):

* the child's exit, with any status (0 included) before a complete result;
* a signal (SIGKILL, SIGTERM, SIGABRT from `os.abort()`), by name;
* a malformed result (a truncated frame, a wrong tag);
* a hang: no result within the limit, the time left of the computation's budget
  (`betweencut.progress.current()`) when it has one, else `HANG_SECONDS`, a wall-clock
  watchdog of its own (not the budget's work units); the child is killed.

An exception raised in the child comes back as an exception of the parent: the package's own
error classes (`BetweenCutError` and its subclasses: `MechanismError`, `ParameterError`,
`BudgetExceeded`...) as themselves, with their message and plain attributes; anything else (the
user's own exception, `SystemExit`, `KeyboardInterrupt`, an exception group) as the one line
`MechanismError` the audit gives for it in its own process (`raised_line`).

`isolating(False)` runs the user's code in the audit's own process instead (the bench's
baseline, `bench/isolation.py`, and the test that both paths give the same laws); `marked(fn,
name)` marks a callable as the user's code (what the enumeration isolates), `user_code(fn)`
reads the mark. What isolation does not catch is in `betweencut.proofs.assumes` (HIDDEN_STATE)
and `docs/explanation/trust.md`.
"""

from __future__ import annotations

import faulthandler
import gc
import json
import os
import select
import signal
import struct
import sys
import time
import weakref
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from betweencut.errors import BetweenCutError, MechanismError, one_line
from betweencut.progress import current

__all__ = [
    "HANG_SECONDS", "Child", "ChildEnded", "UserCode", "carried", "enabled", "in_child",
    "isolating", "limit_now", "marked", "one_audit", "out_of_time", "raised_line", "remembered",
    "start",
    "user_code",
]

HANG_SECONDS = 900.0  # the watchdog of a child without a time budget: a hang, not a long audit
MIN_SECONDS = 0.05  # a child started at the end of a budget still gets this long
MAGIC = b"BCI1"
RESULT, ERROR = b"R", b"E"
HEADER = struct.Struct(">4sc Q")  # magic, tag, payload length
T = TypeVar("T")

_ISOLATING: ContextVar[bool] = ContextVar("betweencut_isolating", default=True)
_MARK = "__betweencut_user_code__"


class ChildEnded(MechanismError):
    """The child running the user's code ended without a result: an exit, a signal, a
    malformed result or a hang (module doc)."""


@dataclass(frozen=True)
class UserCode:
    """The mark of a callable that runs the user's code: the mechanism's name (`who`) and the
    object whose code it runs (`source`: the user's function, or the built object whose `run`
    it calls), the anchor of `remembered`."""

    name: str
    source: object = field(default=None, compare=False, repr=False)


def marked(fn: Callable[..., T], name: str, source: object = None) -> Callable[..., T]:
    """`fn`, marked as the user's code named `name` running `source`'s code (the enumeration
    runs it in children)."""
    anchor = getattr(source, "__self__", source)  # a bound method: the object it is bound to
    setattr(fn, _MARK, UserCode(name, anchor))
    return fn


_REMEMBERED: ContextVar[weakref.WeakKeyDictionary[Any, dict[Hashable, Any]] | None] = \
    ContextVar("betweencut_remembered", default=None)
REMEMBERED = 128  # results kept per source (each a small database's children's result)


@contextmanager
def one_audit() -> Iterator[None]:
    """The block is one audit: the children's results are reused inside it (`remembered`),
    never across two audits. Between two audits the audit's process (a test, a notebook) may
    change what the user's code reads (a module global, a config object), which a child
    forked later sees: a result kept from before would be a law of the old code, and its
    verdict a "holds" the new code never earned. Nested blocks share the outer one's."""
    if _REMEMBERED.get() is not None:
        yield
        return
    token = _REMEMBERED.set(weakref.WeakKeyDictionary())
    try:
        yield
    finally:
        _REMEMBERED.reset(token)


def remembered(user: UserCode, key: Hashable, make: Callable[[], T],
               keep: Callable[[T], bool]) -> T:
    """`make()`, kept for `user.source` under `key` when `keep(result)` (small results: the
    fork is their cost), inside the current audit only (`one_audit`; outside one, nothing is
    kept): within one audit the children's result for one database is the same whichever
    cache asks (a regression's second pass reuses the audit's, the batch fills it for the
    per-database path), since every child is forked from the audit's process, where the
    user's code does not run. Not kept when the source cannot be referenced weakly."""
    scope = _REMEMBERED.get()
    if scope is None:
        return make()
    try:
        kept = scope.setdefault(user.source, {})
    except TypeError:
        return make()
    if key in kept:
        return cast(T, kept[key])
    found = make()
    if keep(found):
        if len(kept) >= REMEMBERED:
            kept.pop(next(iter(kept)))
        kept[key] = found
    return found


def carried(fn: Callable[..., T], source: object) -> Callable[..., T]:
    """`fn` (a wrapper of `source`) marked as `source` is (nothing if `source` is unmarked),
    anchored on `fn` itself: the wrapper may run other code than `source` on the same
    database (a corpus row's `m`), so it never reuses `source`'s results (`remembered`)."""
    found = getattr(source, _MARK, None)
    return marked(fn, found.name, fn) if isinstance(found, UserCode) else fn


def user_code(fn: object) -> UserCode | None:
    """The mark `marked` set on `fn`, or None (the package's own code); None too while
    `isolating(False)` is in force."""
    if not _ISOLATING.get():
        return None
    found = getattr(fn, _MARK, None)
    return found if isinstance(found, UserCode) else None


@contextmanager
def isolating(on: bool) -> Iterator[None]:
    """Whether the user's code runs in children inside the block (default: it does). Off only
    for `bench/isolation.py`'s baseline and the test that both paths agree."""
    token = _ISOLATING.set(on)
    try:
        yield
    finally:
        _ISOLATING.reset(token)


def enabled() -> bool:
    """Does the user's code run in children here (`isolating`)?"""
    return _ISOLATING.get()


def raised_line(exc: BaseException) -> str:
    """An exception as `Type: first line of its message`, with its notes (`add_note`: the
    audit adds the pair it was auditing) after it, control characters escaped
    (`betweencut.errors.one_line`: the user's text never writes to the terminal raw)."""
    try:
        text = str(exc).strip().splitlines()
    except Exception:  # a user's exception whose __str__ fails
        text = []
    out = f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
    notes = [n for n in getattr(exc, "__notes__", ()) if isinstance(n, str)]
    return one_line("; ".join([out, *notes]))


def limit_now() -> tuple[float, str]:
    """The seconds a child may take from now, and what they are: what is left of the
    computation's time budget, or the `HANG_SECONDS` watchdog without a budget."""
    tracker = current()
    left = tracker.left()
    if left is None:
        return HANG_SECONDS, f"{HANG_SECONDS:g} s (the watchdog of a run without a budget)"
    left = max(left, MIN_SECONDS)
    return left, f"the {left:.3g} s left of the time budget of {tracker.budget or 0:g} s"


def out_of_time(who: str, where: str, what: str, watchdog: bool = False) -> ChildEnded:
    """The error for a child with no result by its deadline (`what`: the limit in words).
    Under a time budget the child was stopped when the budget ran out, which a slow run meets
    as a hanging one does: the message says so and what to change; without a budget, or under
    an explicit `watchdog`, only a hang gets there."""
    budgeted = current().budget is not None and not watchdog
    why = ("stopped when the budget ran out: raise --budget, unless it never ends" if budgeted
           else "a hang: it was stopped")
    place = f" {where}" if where else ""
    return ChildEnded(f"the mechanism {who} did not finish within {what}{place} ({why})")


# -- the child --------------------------------------------------------------------------------
def _detach() -> None:
    """Standard streams and fds 0-2 to /dev/null: the child cannot reach the parent's."""
    gc.freeze()  # the inherited objects are never collected here: no copy-on-write of them
    faulthandler.disable()  # its fd may be a copy of the parent's stderr (pytest's)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    if null > 2:
        os.close(null)
    sys.stdin = open(os.devnull)  # noqa: SIM115 - the child's streams live until it ends
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115
    sys.stderr = open(os.devnull, "w")  # noqa: SIM115
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _jsonable(value: object) -> object:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return list(value)
    return str(value)


def _error_payload(exc: BaseException, who: str, where: str) -> bytes:
    """An exception of the child as JSON: a package error class by module and name with its
    message and plain attributes; anything else as the one-line `MechanismError`."""
    if not isinstance(exc, BetweenCutError) or not type(exc).__module__.startswith("betweencut"):
        exc = MechanismError(f"the mechanism {who} raised {raised_line(exc)} {where}".rstrip())
    cls = type(exc)
    attrs = {k: _jsonable(v) for k, v in vars(exc).items() if isinstance(k, str)}
    args = [a if isinstance(a, str) else str(a) for a in exc.args]
    return json.dumps({"module": cls.__module__, "name": cls.__qualname__, "args": args,
                       "attrs": attrs}).encode()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _child(work: Callable[[], bytes], fd: int, who: str, where: str) -> None:
    code = 0
    try:
        _detach()
        try:
            tag, payload = RESULT, work()
        except BaseException as exc:  # the user's code, whatever it raised: sent back
            tag, payload = ERROR, _error_payload(exc, who, where)
        _write_all(fd, HEADER.pack(MAGIC, tag, len(payload)) + payload)
    except BaseException:  # the pipe closed under it, or the streams: the parent says so
        code = 70
    finally:
        os._exit(code)


# -- the parent -------------------------------------------------------------------------------
@dataclass
class Child:
    """A running child: its pid and the read end of its result pipe."""

    pid: int
    fd: int
    who: str
    where: str
    done: bool = False

    def kill(self) -> None:
        """End the child (if still running) and reap it."""
        if self.done:
            return
        self.done = True
        with suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        with suppress(ChildProcessError):
            os.waitpid(self.pid, 0)
        os.close(self.fd)

    def result(self, limit: float | None = None) -> bytes:
        """The bytes the child's `work()` returned (its exception re-raised, its exit, signal,
        malformed result or hang as one `MechanismError`)."""
        span, what = limit_now() if limit is None else (limit, f"{limit:g} s")
        deadline = time.monotonic() + span
        data = bytearray()
        try:
            while not _complete(data):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise out_of_time(self.who, self.where, what, watchdog=limit is not None)
                ready, _, _ = select.select([self.fd], [], [], left)
                if ready:
                    chunk = os.read(self.fd, 1 << 20)
                    if not chunk:
                        break
                    data += chunk
            status = self._reap(deadline, _complete(data))
        except BaseException:
            self.kill()
            raise
        os.close(self.fd)
        return self._decode(bytes(data), status)

    def _reap(self, deadline: float, complete: bool) -> int:
        """The child's wait status once it has ended (killed if it lingers past the deadline;
        after a complete result the child is ending: `os._exit` follows the write)."""
        if complete:
            self.done = True
            return os.waitpid(self.pid, 0)[1]
        while True:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.done = True
                return status
            if time.monotonic() > deadline:
                os.kill(self.pid, signal.SIGKILL)
            time.sleep(0.001)

    def _decode(self, data: bytes, status: int) -> bytes:
        ended = _ended(status)
        if not _complete(data):
            what = "ended its process" if data == b"" else "ended its process mid-result"
            raise ChildEnded(f"the mechanism {self.who} {what} ({ended}) "
                             f"{self.where}".rstrip())
        magic, tag, size = HEADER.unpack_from(data)
        payload = data[HEADER.size:HEADER.size + size]
        if magic != MAGIC or tag not in (RESULT, ERROR) or len(data) != HEADER.size + size:
            raise ChildEnded(f"the mechanism {self.who} sent a malformed result ({ended}) "
                             f"{self.where}".rstrip())
        if tag == ERROR:
            raise _exception(payload, self.who, self.where)
        if not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0):
            raise ChildEnded(f"the mechanism {self.who} ended its process ({ended}) "
                             f"{self.where}".rstrip())
        return payload


def _complete(data: bytes | bytearray) -> bool:
    if len(data) < HEADER.size:
        return False
    size: int = HEADER.unpack_from(data)[2]
    return len(data) >= HEADER.size + size


def _ended(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return f"killed by {name}"
    if os.WIFEXITED(status):
        return f"exit status {os.WEXITSTATUS(status)}"
    return f"wait status {status}"


def _exception(payload: bytes, who: str, where: str) -> BaseException:
    """The child's exception, rebuilt without running anything it sent: a class of the
    package, looked up among the modules already imported, given its message and attributes."""
    try:
        data = json.loads(payload)
        module = sys.modules.get(str(data["module"]))
        cls: Any = module
        for part in str(data["name"]).split("."):
            cls = getattr(cls, part)
        if not (isinstance(cls, type) and issubclass(cls, BetweenCutError)
                and str(data["module"]).startswith("betweencut")):
            raise TypeError(cls)
        exc = cls.__new__(cls)
        BaseException.__init__(exc, *[str(a) for a in data["args"]])
        for key, value in dict(data["attrs"]).items():
            setattr(exc, str(key), value)
        return cast(BaseException, exc)
    except Exception:
        return MechanismError(f"the mechanism {who} sent a malformed error {where}".rstrip())


def start(work: Callable[[], bytes], who: str, where: str) -> Child:
    """Fork a child running `work()` (module doc); `Child.result()` waits for its bytes."""
    for stream in (sys.stdout, sys.stderr):
        with suppress(AttributeError, OSError, ValueError):
            stream.flush()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        _child(work, write, who, where)
    os.close(write)
    return Child(pid, read, who, where)


def in_child(work: Callable[[], bytes], who: str, where: str,
             limit: float | None = None) -> bytes:
    """`work()` run in a child (`start`), its bytes returned (`Child.result`)."""
    return start(work, who, where).result(limit)
