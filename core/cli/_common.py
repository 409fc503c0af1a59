"""Shared pieces of the command line: the parser that never exits, exact numbers, progress."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterable, Iterator
from fractions import Fraction
from typing import NoReturn, TypeVar

from betweencut.errors import BetweenCutError
from betweencut.exact import as_rational

EXIT_OK, EXIT_REFUTED, EXIT_USAGE, EXIT_UNDECIDED = 0, 1, 2, 3
T = TypeVar("T")


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
    """An argparse `type` reading an exact rational (`0.1` is 1/10, never a float)."""

    def read(text: str) -> Fraction:
        try:
            return as_rational(text, name)
        except BetweenCutError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    read.__name__ = name
    return read  # type: ignore[return-value]


def positive_int(name: str, minimum: int = 1) -> type:
    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(
                f"{name} = {value} is not allowed: {name} >= {minimum}"
            )
        return value

    read.__name__ = name
    return read  # type: ignore[return-value]


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
