"""Loading a user's mechanism from `MODULE:CALLABLE` for `betweencut audit privacy --mechanism`.

Two kinds of callable are accepted, told apart without calling them:

* a **builder**: a class (for example a `BetweenCut` subclass), or a function whose first
  parameter is named `tree`. It is called once as `CALLABLE(tree, params)` with the public tree
  and `Params`, and what it returns must have `run(leaves, test)`;
* a **mechanism function**: any other callable, called as `CALLABLE(db, test) -> output` for
  every database `db` (a tuple of leaves) and noisy test.

A third kind is told apart before these two: a callable without required parameters is called
once and must return a `PrivTree`, audited by `betweencut.cli.audit_privtree`.

A module that does not import, a missing attribute, something that is not callable, or a
builder whose result has no `run`, is a `UsageError` (one line, exit 2).
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from betweencut.cli._common import UsageError

BUILDER = "builder (tree, params) -> object with run(leaves, test)"
FUNCTION = "function (db, test) -> output"


@dataclass(frozen=True)
class Loaded:
    """A callable read from `MODULE:CALLABLE` and which of the two kinds it is."""

    spec: str
    target: Callable[..., Any]
    builder: bool

    @property
    def kind(self) -> str:
        return "builder" if self.builder else "function"


def load(spec: str, flag: str = "--mechanism") -> Loaded:
    """Import `MODULE:CALLABLE` (the current directory is searched first, as `python -m` does)."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise UsageError(f"{flag} {spec!r}: expected MODULE:CALLABLE, e.g. mymech:run")
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # ImportError, or the module's own code failing
        raise UsageError(f"{flag} {spec}: module {module_name!r} did not import: "
                         f"{type(exc).__name__}: {_one_line(exc)}") from None
    target: Any = module
    for part in attr.split("."):
        if not hasattr(target, part):
            raise UsageError(f"{flag} {spec}: {module_name!r} has no attribute {attr!r}")
        target = getattr(target, part)
    if not callable(target):
        raise UsageError(f"{flag} {spec}: {attr!r} is a {type(target).__name__}, not callable")
    return Loaded(spec, target, is_builder(target))


def is_builder(target: Callable[..., Any]) -> bool:
    """A class, or a callable whose first parameter is named `tree`."""
    if inspect.isclass(target):
        return True
    try:
        params = list(inspect.signature(target).parameters)
    except (TypeError, ValueError):
        return False
    return bool(params) and params[0] == "tree"


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else ""


def mechanism(loaded: Loaded, tree: Any, params: Any | None) -> Callable[[Any, Any], Any]:
    """The `(db, test) -> output` callable to audit: the function itself, or the builder's
    product's `run` (built once, from the public tree and parameters)."""
    if not loaded.builder:
        return guarded(loaded.spec, loaded.target)
    if params is None:
        raise UsageError(f"{loaded.spec} is a builder (tree, params): give --tau with --lam and "
                         "--R (or --tau with a calibrating --epsilon and --delta > 0)")
    try:
        built = loaded.target(tree, params)
    except Exception as exc:
        raise UsageError(f"{loaded.spec}(tree, params) raised {type(exc).__name__}: "
                         f"{_one_line(exc)}") from None
    run = getattr(built, "run", None)
    if not callable(run):
        raise UsageError(f"{loaded.spec}(tree, params) returned a {type(built).__name__} "
                         "without a run(leaves, test) method")
    return guarded(loaded.spec, run)


class MechanismFailed(UsageError):
    """The user's mechanism raised: reported in one line with the database it ran on."""


def guarded(spec: str, run: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """`run`, with any exception it raises turned into one `MechanismFailed` line."""
    from betweencut.noisy_test import UnansweredQuery
    from betweencut.proofs.privacy.enumeration.transcripts import ForeignQuery

    def call(db: Any, test: Any) -> Any:
        try:
            return run(db, test)
        except (UnansweredQuery, ForeignQuery):  # the enumeration's own signals
            raise
        except Exception as exc:
            raise MechanismFailed(f"the mechanism {spec} raised {type(exc).__name__} on D = "
                                  f"{list(db)}: {_one_line(exc)}") from None

    return call
