"""The one bisection of the package: narrow a bracket of a monotone predicate decided exactly.

Every search for "the least `ε` whose certified `δ(ε)` fits", "the largest `δ0` the accountant
still certifies", "the smallest `ε` with `δ(ε) <= t`" or "the least height from which a margin
is the smallest" is the same loop: an end known to fit
(`good`), an end not known to fit (`bad`), a point between them tested by the caller's exact
predicate, and the bracket halved. `certified_bisect` is that loop; the midpoint rule says how
points are named (a grid index, a rational of a given width, a short decimal) and when the
bracket is narrow enough.

Assumes: `fits` is monotone along the bracket (every point between a fitting one and `good`
fits) and decided by exact arithmetic or the gate (`betweencut.numbers.exact.certified_sign`): then
what is returned as fitting was certified to fit, never guessed.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import TypeVar

from betweencut.errors import ParameterError

__all__ = ["certified_bisect", "grid_midpoint", "halving"]

T = TypeVar("T")


def certified_bisect(fits: Callable[[T], bool], good: T, bad: T,
                     midpoint: Callable[[T, T], T | None],
                     steps: int | None = None) -> tuple[T, T]:
    """Halve the bracket `(good, bad)` of the monotone predicate `fits`.

    Preconditions: `fits(good)` holds (the caller has certified it); `bad` is an end not known
    to fit (it may be a sentinel never tested). `midpoint(good, bad)` is a point strictly
    between them, or None once the bracket is as narrow as wanted.
    Returns: `(good, bad)` after at most `steps` halvings (all of them when None): `good` is the
    initial `good` or a point `fits` accepted, `bad` the initial `bad` or a point it rejected.
    """
    if steps is not None and steps < 0:
        raise ParameterError("steps", steps, "a number of halvings >= 0, or None")
    done = 0
    while steps is None or done < steps:
        mid = midpoint(good, bad)
        if mid is None:
            break
        if fits(mid):
            good = mid
        else:
            bad = mid
        done += 1
    return good, bad


def grid_midpoint(good: int, bad: int) -> int | None:
    """The middle grid index (rounded down), None when `good` and `bad` are neighbours."""
    return (good + bad) // 2 if abs(good - bad) > 1 else None


def halving(width: Fraction) -> Callable[[Fraction, Fraction], Fraction | None]:
    """The exact middle of the bracket while it is wider than `width > 0` (a `Fraction`: the
    callers check a user's width with `betweencut.data.validate.positive_rational`, a layer
    above this one)."""
    if width <= 0:
        raise ParameterError("width", width, "width > 0 (the bracket's final width)")

    def middle(good: Fraction, bad: Fraction) -> Fraction | None:
        return (good + bad) / 2 if abs(good - bad) > width else None

    return middle
