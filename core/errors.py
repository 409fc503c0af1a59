"""The errors a user of betweencut can meet, each naming what is wrong and what is allowed."""

from __future__ import annotations

import re

from betweencut.interop import exact_integer


class BetweenCutError(Exception):
    """Base class: every error betweencut raises on purpose derives from it."""


class ParameterError(BetweenCutError, ValueError):
    """A public parameter is out of its allowed range.

    The message always names the parameter, the value given and the range allowed.

    It names the argument as the library's caller types it (`delta=0.5 is not allowed: ...`,
    `delta= is required: ...` for a value not given); the command line says the same with its
    flags (`--delta 0.5 is not allowed: ...`, `betweencut.cli._common.in_flags`, issue 36 item
    4). `library` is a remark that only holds for the library (another argument the command
    line does not have). A check of an argument that must not be text passes `shown_value`'s
    quoted form, so `"15"` is not read as 15.
    """

    def __init__(self, name: str, value: object, allowed: str, why: str = "", *,
                 library: str = "") -> None:
        self.name = name
        self.value = value
        self.allowed = allowed
        self.why = why
        self.library = library
        super().__init__(self.message(f"{name}=", library))

    def message(self, spelled: str, remark: str = "") -> str:
        """The message with the argument spelled `spelled` (`delta=` or `--delta`); `remark`
        the library's own note, if any."""
        joiner = "" if spelled.endswith("=") else " "
        head = (f"{spelled} is required" if self.value is None
                else f"{spelled}{joiner}{shown(self.value)} is not allowed")
        text = f"{head}: {self.allowed}"
        if remark:
            text += f"; {remark}"
        if self.why:
            text += f" ({self.why})"
        return text


class MissingExtra(BetweenCutError, ImportError):
    """An optional library is not installed: the message names the extra that installs it
    (`pip install 'betweencut[fast]'`); the command line exits 2 with that one line."""

    def __init__(self, extra: str, needed_for: str, instead: str = "") -> None:
        self.extra = extra
        self.needed_for = needed_for
        super().__init__(f"{needed_for} needs the '{extra}' extra: "
                         f"pip install 'betweencut[{extra}]'" + (f"; {instead}" if instead
                                                                 else ""))


class InputFileError(ParameterError):
    """An input file cannot be read as its format requires (`betweencut.engines.sources`).

    The message names the file, where in it (a row, a line or a byte offset) when that is known,
    what is wrong and what to do. A dependency's own text (DuckDB, Spark, the csv module, the
    operating system) is kept in `detail`, shown by the command line only under `--debug`.
    """

    def __init__(self, file: str, problem: str, remedy: str, *, where: str = "",
                 detail: str = "") -> None:
        self.name = "INPUT"
        self.value = file
        self.allowed = remedy
        self.file = file
        self.where = where
        self.detail = detail
        place = f"{one_line(file)}, {where}" if where else one_line(file)
        Exception.__init__(self, f"{place}: {problem} ({remedy})")


SHOWN_CHARS = 80


def _shown_int(n: int) -> str:
    if n.bit_length() > 12000:  # past Python's 4300-digit str() limit: never convert
        return f"{'-' if n < 0 else ''}(an integer of about {int(n.bit_length() * 0.30103)} digits)"
    text = str(n)
    digits = len(text.lstrip("-"))
    if len(text) <= SHOWN_CHARS:
        return text
    return f"{text[:12]}...{text[-6:]} ({digits} digits)"


def shown(value: object) -> str:
    """`value` as one short line for an error message: huge integers and rationals abbreviated
    (never converted past Python's digit limit), long text cut, control characters escaped."""
    from fractions import Fraction

    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return _shown_int(value)
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return _shown_int(value.numerator)
        return f"{_shown_int(value.numerator)}/{_shown_int(value.denominator)}"
    try:
        text = str(value)
    except Exception:  # a value whose str() fails (a digit limit, a broken __str__)
        text = f"<{type(value).__name__}>"
    return one_line(text, SHOWN_CHARS)


def shown_value(value: object) -> str:
    """`shown(value)`, with a text that reads as a number quoted (`'15'`): the message must
    not show a string as the number it is not."""
    if isinstance(value, str) and _NUMBER_LIKE.fullmatch(value.strip()):
        return repr(shown(value))  # matched, never converted (1e-999999999 stays cheap)
    return shown(value)


_NUMBER_LIKE = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d{1,12})?(/\d+)?")


def one_line(text: str, limit: int = 400) -> str:
    """`text` on one line (newlines and other control characters escaped), cut to `limit`."""
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in text):
        text = "".join(ch if ord(ch) >= 32 and ord(ch) != 127 else repr(ch)[1:-1] for ch in text)
    if len(text) > limit:
        text = f"{text[: limit - 25]}... ({len(text)} characters)"
    return text


class RecordError(BetweenCutError, ValueError):
    """A record of the private input does not fit the public tree (line numbers start at 1)."""

    def __init__(self, line: int, message: str) -> None:
        self.line = line
        super().__init__(f"line {line}: {message}")


class Undecided(BetweenCutError, ArithmeticError):
    """A certified comparison could not be decided at the precision allowed.

    Raised instead of guessing: the caller may raise the precision and try again.
    """


class NotYet(Undecided):
    """A certified enclosure cannot answer at the precision it was asked for (a divisor whose
    enclosure contains 0, a ball that is not finite): "not yet", not "undecided". The one
    rising-precision loop (`betweencut.numbers.exact.refine`) catches it and climbs; outside that
    loop it is an `Undecided` like any other.
    """


def public_height(height: object) -> int:
    """The public tree height `h`: an integer >= 1, stated by the user, never read off data."""
    h = exact_integer(height)  # numpy and gmpy2 integers too, as a Python int
    if h is None or h < 1:  # a text is shown quoted: `height='15'`, not `height=15`
        raise ParameterError("height", shown_value(height),
                             "an integer h >= 1 (public, never read off data)")
    return h


class MechanismError(BetweenCutError):
    """A user's mechanism could not be loaded or built, or raised while it was audited: one
    line naming the mechanism (and the database it ran on); the command line exits 2."""
