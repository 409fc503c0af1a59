"""Integer polynomials in one variable, exact, with two backends that give the same integers.

The pure backend keeps a polynomial as a dict `exponent -> non-zero integer coefficient`
(`mul`, `add_into`); the flint backend is python-flint's sparse `fmpz_mpoly` in one variable `x`
(C arithmetic, the `fast` extra; `flint_context()` is its context, None when python-flint or that
API is missing). Which one a computation uses is chosen by an argument or by the context
`use_backend(name)` (a `contextvars` value: per thread and task, restored on exit), never by a
module global; `resolve_backend(None)` gives the context's choice, else `flint` when available,
else `pure`. `tree_sum` adds a list of polynomials of either backend pairwise (balanced sizes).

Assumes: integer coefficients and integer (possibly negative) exponents for the pure backend;
the flint backend needs exponents `>= 0` (callers lift them). The tests compare the two backends
with each other and with exact `Fraction` arithmetic.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, Final, TypeVar

from betweencut.errors import MissingExtra, ParameterError

__all__ = [
    "BACKENDS", "Poly", "add_into", "flint_available", "flint_context", "mul", "resolve_backend",
    "tree_sum", "use_backend",
]

BACKENDS: Final = ("flint", "pure")
Poly = dict[int, int]  # exponent -> non-zero integer coefficient
T = TypeVar("T")
_CHOSEN: contextvars.ContextVar[str | None] = contextvars.ContextVar("intpoly_backend",
                                                                    default=None)


@lru_cache(maxsize=1)
def flint_context() -> Any:
    """python-flint's `fmpz_mpoly` context in one variable `x` (lex), or None when python-flint
    (or an API this module knows) is not importable: the pure backend is exact too."""
    try:
        import flint
    except ImportError:
        return None
    ctx_type = getattr(flint, "fmpz_mpoly_ctx", None)
    if ctx_type is None:
        return None
    try:
        if hasattr(ctx_type, "get"):
            return ctx_type.get(("x",), "lex")
        return ctx_type.get_context(1, flint.Ordering.lex, "x")  # python-flint 0.7
    except Exception:  # an API this module does not know: the pure path is exact too
        return None


def flint_available() -> bool:
    """True when python-flint's sparse integer polynomials (`fmpz_mpoly`) can be used."""
    return flint_context() is not None


def check_backend(name: object) -> str:
    """`name` if it is a usable backend; `ParameterError` for an unknown name, `MissingExtra`
    (naming the `fast` extra) for `flint` when python-flint is not importable."""
    if name not in BACKENDS:
        raise ParameterError("backend", name, "flint or pure")
    if name == "flint" and not flint_available():
        raise MissingExtra("fast", "the flint integer-polynomial backend (python-flint)")
    return str(name)


def resolve_backend(name: str | None = None) -> str:
    """The backend to use: `name` if given (checked), else the context's (`use_backend`), else
    `flint` when available, else `pure`."""
    if name is not None:
        return check_backend(name)
    chosen = _CHOSEN.get()
    if chosen is not None:
        return chosen
    return "flint" if flint_available() else "pure"


@contextmanager
def use_backend(name: str) -> Iterator[str]:
    """Run the block with `name` as the backend `resolve_backend()` gives (checked first)."""
    token = _CHOSEN.set(check_backend(name))
    try:
        yield name
    finally:
        _CHOSEN.reset(token)


# -- the pure backend -----------------------------------------------------------------------------

def mul(a: Poly, b: Poly) -> Poly:
    """The product, exactly (no zero coefficients kept)."""
    if len(a) < len(b):
        a, b = b, a
    if len(b) == 1:
        (f, d), = b.items()
        return {e + f: c * d for e, c in a.items()}
    out: dict[int, int] = {}
    for f, d in b.items():
        for e, c in a.items():
            out[e + f] = out.get(e + f, 0) + c * d
    return {e: c for e, c in out.items() if c}


def add_into(acc: Poly, b: Poly) -> None:
    """`acc += b` in place (coefficients that cancel are removed)."""
    for e, c in b.items():
        s = acc.get(e, 0) + c
        if s:
            acc[e] = s
        else:
            acc.pop(e, None)


def tree_sum(items: list[T]) -> T:
    """`items[0] + items[1] + ...` added pairwise (flint polynomials, or anything with `+`);
    `items` must not be empty."""
    if not items:
        raise ParameterError("items", "[]", "at least one polynomial")
    while len(items) > 1:
        items = [items[j] + items[j + 1] if j + 1 < len(items) else items[j]  # type: ignore[operator]
                 for j in range(0, len(items), 2)]
    return items[0]
