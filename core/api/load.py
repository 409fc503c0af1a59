"""A user's mechanism, from `MODULE:CALLABLE` or from the object itself: one loader for every
audit (issue 22; `--mechanism` of `audit privacy` and `audit corpus` alike).

Three kinds, told apart without running the mechanism on data:

* a **PrivTree**: a `PrivTree` object, or a callable without required positional parameters
  that returns one (called once to build it);
* a **builder**: a class (for example a `BetweenCut` subclass), or a callable whose first
  parameter is named `tree`, called once as `CALLABLE(tree, params)`; what it returns has
  `run(leaves, test)`;
* a **function**: any other callable, `CALLABLE(db, test) -> output`.

`MODULE:CALLABLE` is imported with the current directory searched first (as `python -m` does);
`path/to/file.py:CALLABLE` loads that file (its directory searched first, for its own imports).
A module that does not import, a missing attribute or a result of the wrong kind is a
`MechanismError`; so is anything the user's code raises while the audit runs it
(`SystemExit` and other `BaseException`s included, `KeyboardInterrupt` aside), named with the
database it ran on: the user's code never chooses the exit status. The user's code first runs in
a child process (`betweencut.boundary.isolation`, `user_first`): the import of its module,
a builder's build, a PrivTree factory's call, and (in the enumeration) every database's runs;
its exit, signal, closed streams or hang there are a `MechanismError` before the audit's own
process runs it (the import and the build, whose product the audit inspects, then run here).
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import inspect
import io
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any

from betweencut.boundary.isolation import enabled, in_child, marked, raised_line
from betweencut.errors import MechanismError, shown_value

__all__ = ["BUILDER", "FUNCTION", "PRIVTREE", "UserMechanism", "build", "guarded",
           "in_user_code", "is_builder", "raised_line", "resolve", "user_first"]

BUILDER = "builder (tree, params) -> object with run(leaves, test)"
FUNCTION = "function (db, test) -> output"
PRIVTREE = "PrivTree factory () -> PrivTree (reachable decomposition)"


@dataclass(frozen=True)
class UserMechanism:
    """A mechanism to audit: its name (the spec, or the callable's qualified name), the object,
    and its kind (`BUILDER`, `FUNCTION` or `PRIVTREE`; `built` is the PrivTree itself);
    `pure`: verified by strict mode's static check (`betweencut.boundary.purity`)."""

    name: str
    target: Any
    kind: str
    built: Any = None
    pure: bool = False


def load_module(module_name: str, flag: str) -> Any:
    """The module `module_name` names: a dotted name, imported as `python -m` would, or a file
    `path/to/file.py` (issue 36 item 6), loaded under its stem with its directory searched
    first (for its own imports)."""
    if not module_name.endswith(".py") and os.sep not in module_name and "/" not in module_name:
        return importlib.import_module(module_name)
    path = os.path.abspath(os.path.expanduser(module_name))
    if not os.path.isfile(path):
        raise MechanismError(f"{flag} {module_name}: no such file (a path to a .py file, or a "
                             "module name importable from the current directory)")
    stem = os.path.splitext(os.path.basename(path))[0]
    known = sys.modules.get(stem)
    if known is not None:
        if os.path.abspath(getattr(known, "__file__", "") or "") == path:
            return known
        raise MechanismError(f"{flag} {module_name}: a module named {stem!r} is already "
                             "imported from elsewhere; rename the file")
    if os.path.dirname(path) not in sys.path:
        sys.path.insert(0, os.path.dirname(path))
    spec = importlib.util.spec_from_file_location(stem, path)
    if spec is None or spec.loader is None:
        raise MechanismError(f"{flag} {module_name}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[stem] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[stem]
        raise
    return module


def _import(spec: str, flag: str) -> Any:
    module_name, sep, attr = spec.rpartition(":")  # a path may hold ':' (C:\\...), a name not
    if not sep or not module_name or not attr:
        raise MechanismError(f"{flag} {spec!r}: expected MODULE:CALLABLE or FILE.py:CALLABLE, "
                             "e.g. mymech:run or path/to/mymech.py:run")
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())

    def load() -> Any:
        try:
            with in_user_code():
                return load_module(module_name, flag)
        except (MechanismError, KeyboardInterrupt):
            raise
        except BaseException as exc:  # ImportError, or the module's own code failing/exiting
            raise MechanismError(f"{flag} {spec}: module {module_name!r} did not import: "
                                 f"{raised_line(exc)}") from None

    if module_name not in sys.modules:
        user_first(load, f"{flag} {spec}", "while importing it")
    from betweencut.boundary.seal import seal

    seal()  # before the module's own code runs here: `check()` before any verdict
    module = load()
    target: Any = module
    for part in attr.split("."):
        if not hasattr(target, part):
            raise MechanismError(f"{flag} {spec}: {module_name!r} has no attribute {attr!r}")
        target = getattr(target, part)
    return target


def resolve(mechanism: object, flag: str = "mechanism", strict: bool = False) -> UserMechanism:
    """The mechanism `mechanism` names (a `MODULE:CALLABLE` string or the object) and its
    kind; a factory of a PrivTree is called here, once. With `strict`, its source is first
    verified pure (`betweencut.boundary.purity.check_pure`, `NotPure` otherwise), before any
    of it is called (its module is imported: the names it reaches are read from it)."""
    from betweencut.baselines.privtree import PrivTree
    from betweencut.boundary.purity import check_pure

    if isinstance(mechanism, UserMechanism):
        if strict and not mechanism.pure:
            check_pure(mechanism.target, mechanism.name)
            return dataclasses.replace(mechanism, pure=True)
        return mechanism
    name = mechanism if isinstance(mechanism, str) else getattr(
        mechanism, "__qualname__", type(mechanism).__name__)
    target = _import(mechanism, flag) if isinstance(mechanism, str) else mechanism
    if strict:
        check_pure(target, str(name))
    if isinstance(target, PrivTree):
        return UserMechanism(str(name), target, PRIVTREE, target, strict)
    if not callable(target):
        raise MechanismError(  # in the caller's words: `--mechanism X` or `mechanism=X`
            f"{flag}{' ' if flag.startswith('-') else '='}{shown_value(mechanism)} is not "
            f"allowed: {type(target).__name__} is not callable; pass a function (db, test) "
            "-> output, a builder (tree, params), a PrivTree or a function building one, or "
            "'module:callable'")
    if _takes_nothing(target):
        def make() -> Any:
            try:
                with in_user_code():
                    return target()
            except KeyboardInterrupt:
                raise
            except BaseException as exc:
                raise MechanismError(f"{flag} {name}() raised {raised_line(exc)}") from None

        if not packaged_code(target):
            user_first(make, f"{flag} {name}", "while building it")
        built = make()
        if not isinstance(built, PrivTree):
            raise MechanismError(
                f"{flag} {name}() returned a {type(built).__name__}: a callable without "
                "parameters must build a PrivTree (else take (db, test) or (tree, params))")
        return UserMechanism(str(name), target, PRIVTREE, built, strict)
    return UserMechanism(str(name), target, BUILDER if is_builder(target) else FUNCTION,
                         pure=strict)


def _takes_nothing(target: Callable[..., Any]) -> bool:
    """No positional parameter and no required one: cannot be `(db, test)` or `(tree, params)`."""
    if inspect.isclass(target):
        return False
    try:
        params = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):
        return False
    return not any(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
                   or p.default is p.empty for p in params)


def is_builder(target: Callable[..., Any]) -> bool:
    """A class, or a callable whose first parameter is named `tree`."""
    if inspect.isclass(target):
        return True
    try:
        params = list(inspect.signature(target).parameters)
    except (TypeError, ValueError):
        return False
    return bool(params) and params[0] == "tree"


def build(user: UserMechanism, tree: Any, params: Any) -> Any:
    """A builder's product, built once from the public tree and parameters (first in a child,
    `user_first`, unless it is the package's own class)."""
    def make() -> Any:
        try:
            with in_user_code():
                return user.target(tree, params)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            raise MechanismError(f"{user.name}(tree, params) raised {raised_line(exc)}") from None

    if not packaged_code(user.target):
        user_first(make, user.name, "while building it")
    built = make()
    if not callable(getattr(built, "run", None)):
        raise MechanismError(f"{user.name}(tree, params) returned a {type(built).__name__} "
                             "without a run(leaves, test) method")
    return built


def guarded(name: str, run: Callable[[Any, Any], Any],
            where: Callable[[Any], str] | None = None,
            isolate: bool = True) -> Callable[[Any, Any], Any]:
    """`run`, with anything it raises (the enumeration's own signals aside) turned into one
    `MechanismError` naming the mechanism and its input (`where(input)`, default the database
    as `{0/0, 0/1}`); with `isolate`, marked as the user's code (`isolation.marked`): the
    enumeration runs it in fresh children, each database twice in two orders
    (`betweencut.proofs.privacy.enumeration.isolated`). The user's code runs
    `in_user_code()`."""
    from betweencut.boundary.encoding import OutputRefused
    from betweencut.boundary.sandbox import OutsideRandomness, package_call
    from betweencut.noise.answers import DataDependent
    from betweencut.noise.noisy_queries import UnansweredNoisyQuery
    from betweencut.noise.noisy_test import UnansweredQuery
    from betweencut.progress import BudgetExceeded
    from betweencut.proofs.privacy.enumeration.transcripts import (
        EnumerationBudgetExceeded,
        ForeignQuery,
        MechanismNotReplayable,
    )

    signals = (UnansweredQuery, UnansweredNoisyQuery, ForeignQuery, EnumerationBudgetExceeded,
               MechanismNotReplayable, BudgetExceeded, DataDependent)
    describe = where or _database

    def call(db: Any, test: Any) -> Any:
        try:
            with in_user_code(refuse=isolate):
                if isolate:
                    return run(db, package_call(test))
                return run(db, test)
        except signals:
            raise
        except KeyboardInterrupt:
            raise
        except OutsideRandomness as exc:
            raise MechanismError(f"the mechanism {name} {exc}, on {describe(db)}") from None
        except OutputRefused as exc:  # its output, not its code: the encoder's refusal
            raise MechanismError(f"the mechanism {name} on {describe(db)}: {exc}") from None
        except BaseException as exc:
            raise MechanismError(f"the mechanism {name} raised {raised_line(exc)} on "
                                 f"{describe(db)}") from None

    return marked(call, name, run) if isolate else call


def user_first(work: Callable[[], Any], who: str, where: str) -> None:
    """Run `work` (the user's code: an import, a build) once in a child process first
    (`betweencut.boundary.isolation.in_child`, within the time left of the budget): its exit,
    signal, closed streams or hang are a `MechanismError` naming `who` and `where`, its
    exceptions the one line `work` raises; the audit's own process runs it only after.
    Nothing when isolation is off (`isolation.isolating(False)`)."""
    if not enabled():
        return

    def probe() -> bytes:
        work()
        return b""

    in_child(probe, who, where)


def packaged_code(target: object) -> bool:
    """The package's own class or function (`betweencut.boundary.seams.packaged`)."""
    from betweencut.boundary.seams import packaged

    return packaged(target)


def _database(db: Any) -> str:
    from betweencut.data.notation import database_text

    try:
        return f"D = {database_text(db)}"
    except Exception:  # a database outside the notation (never from the audit)
        return f"D = {db!r}"


class _NoInput(io.StringIO):
    """Standard input while a user's mechanism runs without a terminal: at its end at once, so
    `input()` raises `EOFError` and `pdb.set_trace()` quits (`BdbQuit`) instead of waiting."""

    def isatty(self) -> bool:
        return False


@contextmanager
def in_user_code(refuse: bool = True) -> Iterator[None]:
    """While the user's code runs: standard input, unless it is a terminal (where a debugger
    is the user's own choice), is an empty stream, so nothing waits for input that cannot
    come (a closed stdin, a pipe, /dev/null, or a pipe that stays open); and randomness or a
    clock read by the user's code outside its noisy tests is refused
    (`betweencut.boundary.sandbox.refusing`: `OutsideRandomness`, issue 34), unless `refuse`
    is false: the package's own mechanism (`betweencut.boundary.seams.packaged`), where nothing
    of the user's runs."""
    from betweencut.boundary.sandbox import refusing

    with refusing() if refuse else nullcontext(), _no_input():
        yield


@contextmanager
def _no_input() -> Iterator[None]:
    stdin = sys.stdin
    try:
        interactive = stdin is not None and not stdin.closed and stdin.isatty()
    except (ValueError, OSError):
        interactive = False
    if interactive:
        yield
        return
    sys.stdin = _NoInput()
    try:
        yield
    finally:
        sys.stdin = stdin
