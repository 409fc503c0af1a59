"""Outside randomness refused while the user's code runs under an audit (issue 34, "Outside
randomness refused").

An audit's law is the mechanism's only if the mechanism's output is a function of the database
and the answers of its noisy tests. Randomness drawn or a clock read anywhere else
(`random.random() < 1e-3` leaking the count) makes the audited law not the mechanism's, and the
replay cannot see it when the leak is rare. So while the user's code runs, these calls raise
`OutsideRandomness` naming the call (a `MechanismError`: the command line exits 2 with one
line, "the mechanism mechs:f called random.random() outside its noisy tests ..."):

* `random`: the module functions and the methods of every `random.Random` (and `SystemRandom`)
  instance, whenever it was created and however it was reached (`from random import random`
  captured at import, `random.Random(0)` made at import); `seed`, `getstate`, `setstate` and
  creating an instance are not draws and pass;
* `secrets` (every function), `os.urandom`, `os.getrandom`, opening `/dev/urandom`,
  `/dev/random` or `/dev/arandom` (any way of opening it: the check is an audit hook);
* `numpy.random`, when numpy is imported (it is never imported here): the legacy functions
  (`np.random.random`, `np.random.rand`, ...), `RandomState`, `Generator`
  (`np.random.default_rng`) and bit generators: every draw takes its bit generator's lock, and
  the lock of every bit generator made once numpy.random is imported refuses a draw asked by
  the user's code (the legacy global generator is replaced by an equal one with such a lock);
* `uuid.uuid1`, `uuid.uuid4` (and `uuid6`, `uuid7` where they exist);
* clock reads: `time.time`, `time_ns`, `monotonic`, `perf_counter`, `process_time`,
  `thread_time`, `clock_gettime` (and their `_ns` forms), `localtime`, `gmtime`, `ctime`,
  `datetime.datetime.now`, `utcnow`, `datetime.date.today`;
* `sys.setprofile` (it would switch the check off).

How: a profile function (`sys.setprofile`, this thread only) sees every call made by Python
code; a call is refused when the callee is one of the above and the *caller's* frame is the
user's code: a module outside the package (`betweencut`), the standard library, numpy and
the test tools (pytest, Hypothesis: their `gc` callbacks run at any point of the user's code).
So the package's own clocks (`betweencut.progress`) and randomness are never refused, nor the
standard library's own uses (`tempfile`'s names, `logging`'s timestamps) nor a draw made by
`random.shuffle` inside `random` once the call to `shuffle` itself was refused. A refusal is
sticky: when the user's code catches it, the block still ends with it.

What this does not see (the trust page says so; strict mode, `betweencut.boundary.purity`, is
the assurance against code written to pass an audit): a C-level function handed to another C
function that calls it (`list(map(random.random, xs))`), threads started by the user's code,
a numpy bit generator made before numpy.random was imported under the check, randomness from
other native libraries, `id()`, hash randomization of `str` (set order), the process id, and
code that switches the check off other than through `sys.setprofile` (`ctypes`, `gc`).

* `refusing()`: refuse while the block runs, undone on exit, around each call of the user's
  code (importing the user's module, building a builder, each run), in the audit's process or
  in the child that runs it (`betweencut.boundary.isolation`: the child's own enumeration, the
  package's code, runs unchecked and at full speed); the one place it is entered is
  `betweencut.api.load.in_user_code`. `refusal()` is the first refusal met (sticky).
"""

from __future__ import annotations

import datetime
import os
import random
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any, TypeVar

from betweencut.errors import MechanismError

__all__ = ["OutsideRandomness", "hook_open", "package_call", "refusal", "refusing"]

T = TypeVar("T")
WHY = "the audited law would not be the mechanism's"


class OutsideRandomness(MechanismError):
    """The user's code drew randomness or read a clock outside its noisy tests; `call` names
    the call (`random.random()`)."""

    def __init__(self, call: str) -> None:
        self.call = call
        super().__init__(f"called {call} outside its noisy tests ({WHY})")


# -- what is refused -----------------------------------------------------------------------------

_CLOCKS = ("time", "time_ns", "monotonic", "monotonic_ns", "perf_counter", "perf_counter_ns",
           "process_time", "process_time_ns", "thread_time", "thread_time_ns", "clock_gettime",
           "clock_gettime_ns", "localtime", "gmtime", "ctime")
_NOT_DRAWS = frozenset({"__init__", "__init_subclass__", "__reduce__", "__getstate__",
                        "__setstate__", "seed", "getstate", "setstate"})
_DATETIME_NOW = frozenset({"now", "utcnow", "today"})
_DEVICES = frozenset({"/dev/urandom", "/dev/random", "/dev/arandom"})


def _c_functions() -> dict[int, tuple[object, str]]:
    """The module-level C functions refused, by id (the object kept alive beside its name)."""
    found: list[tuple[object, str]] = [(getattr(time, n), f"time.{n}()") for n in _CLOCKS
                                       if hasattr(time, n)]
    found += [(getattr(os, n), f"os.{n}()") for n in ("urandom", "getrandom") if hasattr(os, n)]
    found.append((sys.setprofile, "sys.setprofile() (it would switch this check off)"))
    return {id(f): (f, name) for f, name in found}


def _py_functions() -> dict[int, tuple[object, str]]:
    """The Python-level functions refused, by the id of their code object."""
    import secrets
    import uuid

    found: list[tuple[types.CodeType, str]] = []
    for cls in (random.Random, random.SystemRandom):
        for name, value in vars(cls).items():
            if isinstance(value, types.FunctionType) and name not in _NOT_DRAWS:
                found.append((value.__code__, f"random.{name}()"))
    for name in dir(secrets):
        value = getattr(secrets, name)
        if isinstance(value, types.FunctionType) and value.__module__ == "secrets":
            found.append((value.__code__, f"secrets.{name}()"))
    for name in ("uuid1", "uuid4", "uuid6", "uuid7"):
        value = getattr(uuid, name, None)
        if isinstance(value, types.FunctionType):
            found.append((value.__code__, f"uuid.{name}()"))
    return {id(code): (code, name) for code, name in found}


_C = _c_functions()
_PY = _py_functions()


def _c_refusal(fn: Any) -> str | None:
    """The name of the refused C-level call `fn` (a builtin function or bound method), or
    None. Reads only the C fields `__self__` and `__name__` (never the user's code)."""
    known = _C.get(id(fn))
    if known is not None:
        return known[1]
    owner = getattr(fn, "__self__", None)
    if owner is None or isinstance(owner, types.ModuleType):
        return None
    kind = type(owner)
    if issubclass(kind, random.Random):
        name = fn.__name__
        if name in _NOT_DRAWS:
            return None
        if owner is getattr(random, "_inst", None):
            return f"random.{name}()"
        return f"{kind.__module__}.{kind.__qualname__}.{name}() (a draw of an instance)"
    if kind is type and issubclass(owner, datetime.date) and fn.__name__ in _DATETIME_NOW:
        return f"datetime.{owner.__name__}.{fn.__name__}()"
    return None


_TRUSTED: dict[Any, bool] = {}
# Besides the package, the standard library and numpy: the test tools, whose callbacks run at
# any point of the user's code (Hypothesis times garbage collections in a `gc` callback).
_TRUSTED_TOPS = frozenset({"betweencut", "numpy", "_frozen_importlib",
                           "_frozen_importlib_external", "hypothesis", "_pytest", "pytest",
                           "pluggy", "coverage", "_hypothesis_pytestplugin"})


def _trusted(name: object) -> bool:
    """Is a frame of module `name` not the user's code: the package, the standard library,
    numpy, the test tools (their own uses of randomness and clocks are not the mechanism's)."""
    if not isinstance(name, str):
        return False
    known = _TRUSTED.get(name)
    if known is None:
        top = name.partition(".")[0]
        known = top in _TRUSTED_TOPS or top in sys.stdlib_module_names
        _TRUSTED[name] = known
    return known


def _from_user(frame: types.FrameType | None) -> bool:
    return frame is not None and not _trusted(frame.f_globals.get("__name__"))


# -- sessions ------------------------------------------------------------------------------------

class _Session:
    """Refusing in one thread: the first refusal met (sticky) and the profile it replaced."""

    def __init__(self) -> None:
        self.refused: OutsideRandomness | None = None
        self.previous: Any = sys.getprofile()

    def refuse(self, call: str) -> OutsideRandomness:
        exc = OutsideRandomness(call)
        if self.refused is None:
            self.refused = exc
        return exc

    def hook(self, frame: types.FrameType, event: str, arg: Any) -> None:
        # The caller's module first: in the package's code (most calls) nothing else is read.
        if event == "c_call":
            if _TRUSTED.get(frame.f_globals.get("__name__")) or not _from_user(frame):
                return
            call = _c_refusal(arg)
        elif event == "call":
            known = _PY.get(id(frame.f_code))
            if known is None or not _from_user(frame.f_back):
                return
            call = known[1]
        else:
            return
        if call is not None:
            raise self.refuse(call)


_SESSIONS: dict[int, _Session] = {}
_HOOKED = False


def _audit(event: str, args: tuple[Any, ...]) -> None:
    """The audit hook: an open of a randomness device by the user's code, while refusing."""
    if event != "open" or not _SESSIONS:
        return
    session = _SESSIONS.get(threading.get_ident())
    if session is None or not args:
        return
    path = args[0]
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if isinstance(path, str) and os.path.normpath(path) in _DEVICES:
        raise session.refuse(f"open({path!r})")


def hook_open() -> None:
    """Install the audit hook watching `open` (once per process, for good): before a user's
    module is imported (`betweencut.boundary.seal` counts the audit hooks added after)."""
    global _HOOKED
    if not _HOOKED:
        sys.addaudithook(_audit)
        _HOOKED = True


def _start() -> _Session | None:
    """Refuse in this thread (None when it already does: the outer block decides)."""
    ident = threading.get_ident()
    if ident in _SESSIONS:
        return None
    hook_open()
    _numpy_watch()
    session = _Session()
    _SESSIONS[ident] = session
    sys.setprofile(session.hook)
    return session


def _stop(session: _Session) -> None:
    sys.setprofile(session.previous)
    _SESSIONS.pop(threading.get_ident(), None)
    _numpy_watch()


def refusal() -> OutsideRandomness | None:
    """The first refusal met in this thread's refusing (None if none, or not refusing)."""
    session = _SESSIONS.get(threading.get_ident())
    return None if session is None else session.refused


@contextmanager
def refusing() -> Iterator[None]:
    """Refuse outside randomness while the block runs, then undo it. A refusal the block
    caught is raised again when it ends (the first one, whatever else it raised)."""
    session = _start()
    if session is None:
        yield
        return
    try:
        yield
    except BaseException:
        _stop(session)
        if session.refused is not None:
            raise session.refused from None
        raise
    _stop(session)
    if session.refused is not None:
        raise session.refused from None


def package_call(fn: Callable[..., T]) -> Callable[..., T]:
    """`fn`, the package's own callable handed to the user's code (the noisy test), run with
    the check paused: nothing of the user's runs inside it, and the profile function would
    only slow the enumeration down (`bench/outside_randomness.py`)."""

    def call(*args: Any, **kwargs: Any) -> T:
        session = _SESSIONS.get(threading.get_ident())
        if session is None:
            return fn(*args, **kwargs)
        sys.setprofile(None)
        try:
            return fn(*args, **kwargs)
        finally:
            sys.setprofile(session.hook)

    return call


# -- numpy ---------------------------------------------------------------------------------------

_NUMPY_DONE = False
_CALL = "numpy.random (a draw of a Generator, a RandomState or np.random.*())"


class _RefusingLock:
    """A bit generator's lock that refuses a draw asked by the user's code while refusing
    (numpy takes it around every draw); a plain re-entrant lock otherwise."""

    def __init__(self) -> None:
        self._lock = threading.RLock()

    def _check(self) -> None:
        if _SESSIONS:
            session = _SESSIONS.get(threading.get_ident())
            if session is not None and _from_user(sys._getframe(2)):
                raise session.refuse(_CALL)

    def __enter__(self) -> bool:
        self._check()
        return self._lock.__enter__()

    def __exit__(self, *exc: Any) -> None:
        self._lock.__exit__(*exc)

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        self._check()
        return self._lock.acquire(blocking, timeout)

    def release(self) -> None:
        self._lock.release()


def _numpy_watch() -> None:
    """Make every numpy bit generator take a refusing lock. numpy is never imported here: when
    it is not imported yet, an import hook patches `numpy.random.bit_generator` as it loads
    (before the legacy global generator is made); when it already is, the module is patched
    and the legacy global generator replaced by an equal one (same state) whose lock refuses
    (the module functions are its bound methods)."""
    global _NUMPY_DONE
    if _NUMPY_DONE:
        return
    module = sys.modules.get(_BIT_GENERATOR)
    if module is None:
        if not any(isinstance(f, _NumpyFinder) for f in sys.meta_path):
            sys.meta_path.insert(0, _NumpyFinder())
        return
    _NUMPY_DONE = True
    with suppress(Exception):  # a numpy laid out otherwise: its draws stay unchecked
        _patch_numpy(module)


_BIT_GENERATOR = "numpy.random.bit_generator"


class _PatchingLoader:
    """numpy's own loader of `numpy.random.bit_generator`, patching the module once run."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def create_module(self, spec: Any) -> Any:
        return self.inner.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        global _NUMPY_DONE
        self.inner.exec_module(module)
        if hasattr(module, "RLock"):
            module.RLock = _RefusingLock  # type: ignore[attr-defined]
            _NUMPY_DONE = True


class _NumpyFinder:
    """Finds nothing itself: wraps the loader of `numpy.random.bit_generator` when imported."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != _BIT_GENERATOR or _NUMPY_DONE:
            return None
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _PatchingLoader(spec.loader)  # type: ignore[assignment]
        return spec


def _patch_numpy(bit_generator: types.ModuleType) -> None:
    mtrand = sys.modules.get("numpy.random.mtrand")
    public = sys.modules.get("numpy.random")
    if not hasattr(bit_generator, "RLock"):
        return
    bit_generator.RLock = _RefusingLock  # type: ignore[attr-defined]
    if mtrand is None or public is None:
        return
    old = mtrand._rand
    if isinstance(old._bit_generator.lock, _RefusingLock):
        return
    fresh = public.RandomState(public.MT19937())
    fresh.set_state(old.get_state())
    mtrand._rand = fresh  # type: ignore[attr-defined]
    for module in (mtrand, public):
        for name, value in list(vars(module).items()):
            if getattr(value, "__self__", None) is old:
                setattr(module, name, getattr(fresh, name))
