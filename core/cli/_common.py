"""Shared pieces of the command line: the parser that never exits, exact numbers, progress."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable, Iterator
from fractions import Fraction
from typing import Any, NoReturn, TypeVar

from betweencut.errors import BetweenCutError
from betweencut.validate import int_text, number_text

EXIT_OK, EXIT_REFUTED, EXIT_USAGE, EXIT_UNDECIDED = 0, 1, 2, 3
T = TypeVar("T")
MAX_INT_ARGUMENT = 10**18  # no integer flag needs more; checked before any work


class UsageError(BetweenCutError):
    """Bad command-line usage: reported in one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises `UsageError` instead of printing usage and exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def make_parser(prog: str, description: str, example: str) -> Parser:
    return Parser(
        prog=prog, description=description, epilog=f"example:\n  {example}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def add_command(
    sub: argparse._SubParsersAction,  # type: ignore[type-arg]
    name: str,
    help_text: str,
    example: str,
) -> Parser:
    parser: Parser = sub.add_parser(
        name, help=help_text, description=help_text, epilog=f"example:\n  {example}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    return parser


def rational(name: str) -> type:
    """An argparse `type` reading an exact rational (`0.1` is 1/10, never a float), refusing
    before parsing a text too long or an exponent too large to build (`betweencut.validate`)."""

    def read(text: str) -> Fraction:
        try:
            return number_text(text, name)
        except BetweenCutError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    read.__name__ = name
    return read  # type: ignore[return-value]


def positive_int(name: str, minimum: int = 1, maximum: int = MAX_INT_ARGUMENT,
                 why: str = "") -> type:
    """An argparse `type` reading an integer in `[minimum, maximum]`, checked before use."""

    def read(text: str) -> int:
        try:
            return int_text(text, name, minimum, maximum, why)
        except BetweenCutError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    read.__name__ = name
    return read  # type: ignore[return-value]


class StatusLine:
    """Progress messages on stderr, every message as it comes: one line each when forced
    (`--progress`), or rewritten in place on a terminal and cleared by `close()`. Only public
    facts (stages, levels) are shown: the messages say nothing about the records, and which of
    them appear depends on nothing else (no timing decides). The time since the start is added
    only with `elapsed` (it depends on the data: a diagnostic, for `--diagnostics`)."""

    def __init__(self, label: str, force: bool = False, elapsed: bool = False) -> None:
        self.label = label
        self.force = force
        self.show = force or sys.stderr.isatty()
        self.elapsed = elapsed
        self.start = time.monotonic()
        self.shown = False

    def __call__(self, message: str) -> None:
        if not self.show:
            return
        seconds = f" ({time.monotonic() - self.start:.0f} s)" if self.elapsed else ""
        line = f"{self.label}: {message}{seconds}"
        sys.stderr.write(line + "\n" if self.force else f"\r{line}\x1b[K")
        sys.stderr.flush()
        self.shown = True

    def close(self) -> None:
        """Clear the line rewritten in place (nothing to do for forced lines)."""
        if self.shown and not self.force:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def progress(items: Iterable[T], total: int, label: str) -> Iterator[T]:
    """Yield `items`, drawing a progress bar on stderr when it is a terminal and the run is long."""
    show = sys.stderr.isatty()
    start = time.monotonic()
    for done, item in enumerate(items, start=1):
        yield item
        if show and time.monotonic() - start > 1:
            width = 30
            filled = width * done // max(total, 1)
            sys.stderr.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
            sys.stderr.flush()
    if show and time.monotonic() - start > 1:
        sys.stderr.write("\n")


def add_accountant_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--accountant", choices=("paper", "tight"), default="paper",
                   help="paper: Theorem 5.5 (default); tight: the smallest margin E whose "
                        "certified delta(eps) <= delta under KOV's optimal composition or "
                        "Theorem 5.4 (never above paper's E)")


def print_verdict(verdict: Any, as_json: bool) -> int:
    """Print a verdict (any audit's: `as_json()` or `text()`) and return its exit status."""
    if as_json:
        print(json.dumps(verdict.as_json()))
    else:
        print(verdict.text())
    return int(verdict.exit_status)
