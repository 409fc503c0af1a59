"""The audit's own code, sealed before the user's code first runs in the audit's process.

A mechanism named `MODULE:CALLABLE` is imported in the audit's process (after a first import in
a child), and some kinds run there (a PrivTree, the field and Gaussian kinds). Its module's
own code then runs beside the code that decides the verdict, and could rewrite it: replace a
function of `betweencut.proofs`, a method of `Verdict`, `Fraction.__lt__`, `print`. `seal()`
fingerprints, before the user's first line runs in this process, the code of every module
then loaded of the packages the verdict is computed with (`SEALED`): each name bound to code
(a function, a class, a module, a descriptor) or to a constant (an UPPER_CASE name), by
identity; each function's code, defaults and the code in its closure; each method and
property of the classes it defines; and the interpreter's hooks (trace and profile functions,
import finders, gc callbacks, audit hooks added (counted by an audit hook of its own),
exception and display hooks, standard streams, running threads). Data (caches, flags) is not
sealed: the audit changes its own as it runs. `check()` compares them again, and also
checks that every function a module of the audit's packages holds (`SOURCES`, loaded before or
after the seal) was compiled from that package's files. A difference is a `MechanismError`
naming what changed: the audit refuses to give a verdict.

What this is: tamper evidence against code that changes the audit the ordinary way (an
assignment, a decorator, a mock left in place). What it is not: isolation. Code that writes
into memory (ctypes), mutates a container's contents deep inside or changes the audit again
after the last check, or rewrites this module's own code, can still forge a verdict;
`betweencut.proofs.assumes.SEALED` says so in every verdict whose mechanism's code ran in the
audit's process. What the user's code left for the interpreter's end (exit handlers,
finalisers) never runs after a command's verdict: the command line ends the process itself
(`user_code_imported`)."""

from __future__ import annotations

import functools
import gc
import os
import sys
import threading
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, ParamSpec, TypeVar

from betweencut.errors import MechanismError

__all__ = ["LAZY", "SEALED", "SEALED_TOP", "SOURCES", "Tampered", "audit", "check", "seal",
           "sealed", "sealing", "user_code_imported"]

P = ParamSpec("P")
T = TypeVar("T")

# the packages whose functions must come from their own files, whenever they were loaded
SOURCES = ("betweencut", "mpmath", "fractions", "decimal", "_pydecimal", "numbers", "json")
# the packages the verdict is computed with (their code sealed when loaded before the user's),
# and the large ones the audit reaches through their top-level names only (numpy's by the
# release encoder, sympy's by a few claims): their top-level module sealed
SEALED = (*SOURCES, "builtins", "math", "cmath", "operator", "functools", "itertools",
          "collections", "struct", "gmpy2", "flint", "io", "os")
SEALED_TOP = ("numpy", "sympy")
# libraries the audit may load after the user's module that add a gc callback of their own
LAZY = ("hypothesis",)
# the package's module state written under an UPPER_CASE name: flags that change as it runs
STATE = frozenset({("betweencut.boundary.sandbox", "_NUMPY_DONE"),
                   ("betweencut.boundary.sandbox", "_HOOKED")})

Key = tuple[str, ...]
_seal: dict[Key, int] | None = None
_pid: int | None = None
_open = 0  # audits under way in this process (`audit()`): a seal is taken only inside one
_imported: int | None = None  # the process (pid) a user's module was imported into
_added_audit_hooks = 0  # `sys.addaudithook` calls seen since the watch was installed
_watching = False  # the watch is installed (a forked child inherits it)


class Tampered(MechanismError):
    """The audit's own code or the interpreter's hooks changed while the user's code ran in
    the audit's process: no verdict is given."""


def _code(value: object) -> bool:
    """Code rather than data: a function, a class, a module or a descriptor (a method, a
    property). Data (a cache, a flag a module flips) may change while the audit runs."""
    return callable(value) or isinstance(value, types.ModuleType) or hasattr(
        type(value), "__get__")


def _function(f: types.FunctionType) -> int:
    """A function's identity and what a rewrite would change in place: its code, defaults
    and the code in its closure."""
    cells = []
    for cell in f.__closure__ or ():
        try:
            inner = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if _code(inner):
            cells.append(id(inner))
    return hash((id(f), id(f.__code__), id(f.__defaults__), id(f.__kwdefaults__), *cells))


def _module(out: dict[Key, int], name: str, module: types.ModuleType) -> None:
    """The module's code: each name bound to code, or to a constant (an UPPER_CASE name)."""
    space = getattr(module, "__dict__", None)
    if not isinstance(space, dict):
        return
    function = types.FunctionType
    for attr, value in list(space.items()):
        t = type(value)
        if t is function:
            out[(name, attr)] = _function(value)
        elif isinstance(value, type):
            out[(name, attr)] = id(value)
            if value.__dict__.get("__module__") == name:
                for member, inner in list(value.__dict__.items()):
                    if type(inner) is function:
                        out[(name, attr, member)] = _function(inner)
                    elif _code(inner):
                        out[(name, attr, member)] = id(inner)
        elif _code(value) or (attr.isupper() and (name, attr) not in STATE):
            out[(name, attr)] = id(value)


def _ours(hook: object) -> bool:
    """A hook the package installed (its sandbox and its `MOVED` aliases add finders of their
    own): its class is the one a module of the package binds under that name (sealed), not
    merely a class that says it comes from there (`__module__` is the class's own word)."""
    kind = type(hook)
    home = kind.__module__
    if home != "betweencut" and not home.startswith("betweencut."):
        return False
    return getattr(sys.modules.get(home), kind.__qualname__, None) is kind


def _theirs(hooks: list[Any]) -> int:
    """The hooks not installed by the package."""
    return hash(tuple(id(h) for h in hooks if not _ours(h)))


def _watch(event: str, args: tuple[Any, ...]) -> None:
    """An audit hook (PEP 578) counting the audit hooks added after it: they cannot be listed,
    and one runs at every import, `open` or `exec` of the audit's, as a gc callback runs at
    every collection (either could rewrite the verdict after it is made)."""
    global _added_audit_hooks
    if event == "sys.addaudithook":
        _added_audit_hooks += 1


def _lazy_library(callback: object) -> bool:
    """A gc callback of a library the audit loads after the user's module (`LAZY`:
    Hypothesis, for `search`, times collections with one): a function of that library
    compiled from its own files (the check `_foreign` makes of the audit's own functions)."""
    code = getattr(callback, "__code__", None)
    home = getattr(callback, "__module__", None)
    if not isinstance(code, types.CodeType) or not isinstance(home, str):
        return False
    top = home.partition(".")[0]
    module = sys.modules.get(top)
    if top not in LAZY or module is None or not getattr(module, "__file__", None):
        return False
    root = os.path.dirname(os.path.abspath(module.__file__ or ""))
    return os.path.abspath(code.co_filename).startswith(root + os.sep)


def _hooks(out: dict[Key, int]) -> None:
    out[("<hooks>", "trace")] = id(sys.gettrace())
    out[("<hooks>", "profile")] = id(sys.getprofile())
    out[("<hooks>", "threading.trace")] = id(threading.gettrace())
    out[("<hooks>", "threading.profile")] = id(threading.getprofile())
    out[("<hooks>", "gc.callbacks")] = hash(tuple(id(c) for c in gc.callbacks
                                                  if not _lazy_library(c)))
    out[("<hooks>", "audit hooks added")] = _added_audit_hooks
    for hook in ("excepthook", "displayhook", "breakpointhook"):  # not unraisablehook: the
        # time budget replaces it while the user's module is imported (betweencut.progress)
        out[("<hooks>", hook)] = id(getattr(sys, hook))
    out[("<hooks>", "threading.excepthook")] = id(threading.excepthook)
    out[("<hooks>", "meta_path")] = _theirs(sys.meta_path)
    out[("<hooks>", "path_hooks")] = _theirs(sys.path_hooks)
    out[("<hooks>", "threads")] = hash(tuple(sorted(id(t) for t in threading.enumerate())))
    for stream in ("stdout", "stderr", "__stdout__", "__stderr__"):
        out[("<hooks>", stream)] = id(getattr(sys, stream))


def _fingerprint(names: Iterator[str] | None = None) -> dict[Key, int]:
    out: dict[Key, int] = {}
    modules = sys.modules
    for name in list(modules) if names is None else names:
        if name.partition(".")[0] not in SEALED and name not in SEALED_TOP:
            continue
        module = modules.get(name)
        if isinstance(module, types.ModuleType):
            _module(out, name, module)
    _hooks(out)
    return out


def seal() -> None:
    """Fingerprint this process now, inside an `audit()` (elsewhere nothing: no verdict
    would be checked against it), unless a seal is open here (an audit importing a second
    module, its baseline, keeps the seal taken before the first); a forked child is a new
    process."""
    global _seal, _pid, _imported, _watching
    _imported = os.getpid()
    if not _watching:
        from betweencut.boundary.sandbox import hook_open

        hook_open()  # the package's own audit hook, added before the count starts
        sys.addaudithook(_watch)  # for good: an audit hook cannot be removed
        _watching = True
    if _open and (_seal is None or _pid != os.getpid()):
        _seal, _pid = _fingerprint(), os.getpid()


def user_code_imported() -> bool:
    """A user's module was imported into this process (`seal()` ran here): its code may have
    left work for the interpreter's end (an exit handler, a finaliser), which could change
    the process's exit status after the verdict was printed. The command line ends such a
    process itself (`os._exit` with the verdict's status, `betweencut.cli.main`)."""
    return _imported == os.getpid()


def sealed() -> bool:
    return _seal is not None and _pid == os.getpid()


def _foreign(name: str, module: types.ModuleType) -> str | None:
    """A function of `module` (or of a class it defines) compiled from a file outside its
    package's directory, as `name.attr`, or None."""
    home = getattr(module, "__file__", None)
    if not home:
        return None
    top = sys.modules.get(name.partition(".")[0])
    root = os.path.dirname(getattr(top, "__file__", None) or home)
    here = os.path.abspath(os.path.dirname(home) if name.partition(".")[0] == name else root)
    for attr, value in list(vars(module).items()):
        members = [(attr, value)]
        if isinstance(value, type) and value.__dict__.get("__module__") == name:
            members += [(f"{attr}.{m}", v) for m, v in value.__dict__.items()]
        for where, f in members:
            if type(f) is types.FunctionType and getattr(f, "__module__", None) == name:
                while type(inner := getattr(f, "__wrapped__", None)) is types.FunctionType:
                    f = inner  # a decorator's wrapper (contextmanager, wraps): its function
                source = f.__code__.co_filename
                if source.startswith("<"):  # made by exec: a dataclass's methods, mpmath's
                    continue
                if not source.startswith(here) and not os.path.abspath(source).startswith(
                        here):
                    return f"{name}.{where} (compiled from {source})"
    return None


def check() -> None:
    """`Tampered` naming the first change since `seal()` (nothing when not sealed here). A
    check passed ends the seal (the next audit seals again, before its own user code runs); a
    failed one keeps it, so that this process gives no verdict again."""
    global _seal
    taken = _seal
    if taken is None or _pid != os.getpid():
        return
    names = {key[0] for key in taken if key[0] not in ("<hooks>", __name__)}
    now = _fingerprint(iter(sorted(names)))
    changed = sorted(key for key, value in taken.items()
                     if key[0] != __name__ and now.get(key) != value)
    if changed:
        shown = ", ".join(".".join(k) for k in changed[:3])
        raise Tampered(f"the audit's own code changed while your code ran in its process "
                       f"({shown}{', ...' if len(changed) > 3 else ''}): no verdict is given")
    for name in sorted(sys.modules):
        if name.partition(".")[0] in SOURCES:
            module = sys.modules.get(name)
            found = _foreign(name, module) if isinstance(module, types.ModuleType) else None
            if found is not None:
                raise Tampered(f"the audit's own code was replaced by code from another file: "
                               f"{found}: no verdict is given")
    _seal = None


@contextmanager
def audit() -> Iterator[None]:
    """One audit (a library call or a command): the user's module, imported inside, seals
    the process (`seal`, from `betweencut.api.load`); the verdict is checked before it is
    returned or printed (`check`), and at the end of the outermost audit in any case: an error
    becomes `Tampered` when the audit was changed (what failed was not the audit's doing).
    Nested audits (a command calling the library) share one seal."""
    global _open
    _open += 1
    try:
        yield
    except Tampered:
        raise
    except BaseException:
        if _open == 1:
            check()
        raise
    finally:
        _open -= 1
    if not _open:
        check()


def sealing(fn: Callable[P, T]) -> Callable[P, T]:
    """`fn` (an audit of the library) run as one `audit()`."""

    @functools.wraps(fn)
    def sealed_call(*args: P.args, **kwargs: P.kwargs) -> T:
        with audit():
            return fn(*args, **kwargs)

    return sealed_call

