"""The errors a user of betweencut can meet, each naming what is wrong and what is allowed."""

from __future__ import annotations

from betweencut.interop import exact_integer


class BetweenCutError(Exception):
    """Base class: every error betweencut raises on purpose derives from it."""


class ParameterError(BetweenCutError, ValueError):
    """A public parameter is out of its allowed range.

    The message always names the parameter, the value given and the range allowed.
    """

    def __init__(self, name: str, value: object, allowed: str, why: str = "") -> None:
        self.name = name
        self.value = value
        self.allowed = allowed
        text = f"{name} = {value!s} is not allowed: {allowed}"
        if why:
            text += f" ({why})"
        super().__init__(text)


class RecordError(BetweenCutError, ValueError):
    """A record of the private input does not fit the public tree (line numbers start at 1)."""

    def __init__(self, line: int, message: str) -> None:
        self.line = line
        super().__init__(f"line {line}: {message}")


class Undecided(BetweenCutError, ArithmeticError):
    """A certified comparison could not be decided at the precision allowed.

    Raised instead of guessing: the caller may raise the precision and try again.
    """


def public_height(height: object) -> int:
    """The public tree height `h`: an integer >= 1, stated by the user, never read off data."""
    h = exact_integer(height)  # numpy and gmpy2 integers too, as a Python int
    if h is None or h < 1:
        raise ParameterError("height", height, "an integer h >= 1 (public, never read off data)")
    return h
