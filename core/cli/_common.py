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
    """Progress messages on stderr for long runs: shown when stderr is a terminal (or when
    forced), from one second into the run, at most twice a second. Only public facts (levels,
    phases) are shown; the messages say nothing about the records."""

    def __init__(self, label: str, force: bool = False) -> None:
        self.label = label
        self.show = force or sys.stderr.isatty()
        self.start = time.monotonic()
        self.last = 0.0
        self.shown = False

    def __call__(self, message: str) -> None:
        now = time.monotonic()
        if not self.show or now - self.start < 1 or now - self.last < 0.5:
            return
        self.last = now
        self.shown = True
        sys.stderr.write(f"{self.label}: {message} ({now - self.start:.0f} s)\n")
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
