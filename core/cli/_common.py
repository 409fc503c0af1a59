"""Shared pieces of the command line: the parser that never exits, exact numbers, progress.

Building the parser imports only the commands' modules, argparse and light modules of core
(errors, progress, tree and the like): what a flag's value needs to be read
(`betweencut.data.validate`) is imported when a value is read, what a command does when its handler
runs (`tests/core/cli/test_cli_startup.py`).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from fractions import Fraction
from typing import Any, NoReturn

from betweencut.errors import BetweenCutError
from betweencut.progress import DEFAULT_WORK, Tracker

EXIT_OK, EXIT_REFUTED, EXIT_USAGE, EXIT_UNDECIDED = 0, 1, 2, 3
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
    parser.set_defaults(command_parser=parser)  # its flags name a ParameterError (in_flags)
    return parser


def in_flags(exc: BaseException, parser: argparse.ArgumentParser | None) -> str:
    """A library error in the command's words (issue 36, item 4): a `ParameterError` about
    argument `delta` names `--delta` (the flag whose value it is), and every `name=` in its
    text that is one of the command's flags is spelled `--name`; the library's own remark (an
    argument the command line does not have) is left out. Any other error: its text."""
    from betweencut.errors import ParameterError

    text = str(exc)
    if parser is None or not isinstance(exc, ParameterError) or not hasattr(exc, "why"):
        return text
    if text != exc.message(f"{exc.name}=", exc.library):  # a subclass with its own words
        return text
    flags = {action.dest: action.option_strings[-1] for action in parser._actions
             if action.option_strings and action.option_strings[-1].startswith("--")}
    flag = flags.get(exc.name.replace("-", "_"))
    if flag is None:
        return text
    words = re.sub(r"\b([a-z][a-z_]*)=(?=[\s,;:).]|$)",
                   lambda m: flags.get(m.group(1), m.group(0)), exc.message(flag))
    return words


def rational(name: str) -> type:
    """An argparse `type` reading an exact rational (`0.1` is 1/10, never a float), refusing
    before parsing a text too long or an exponent too large to build
    (`betweencut.data.validate`)."""

    def read(text: str) -> Fraction:
        from betweencut.data.validate import number_text

        try:
            return number_text(text, name)
        except BetweenCutError as exc:
            raise argparse.ArgumentTypeError(_after_flag(exc)) from None

    read.__name__ = name
    return read  # type: ignore[return-value]


def _after_flag(exc: BetweenCutError) -> str:
    """The message after argparse's `argument --arity:`: the value and the range, not the
    library's `arity=` again."""
    from betweencut.errors import ParameterError

    if isinstance(exc, ParameterError) and hasattr(exc, "why") and str(exc) == exc.message(
            f"{exc.name}=", exc.library):
        return exc.message("").lstrip()
    return str(exc)


def positive_int(name: str, minimum: int = 1, maximum: int = MAX_INT_ARGUMENT,
                 why: str = "") -> type:
    """An argparse `type` reading an integer in `[minimum, maximum]`, checked before use."""

    def read(text: str) -> int:
        from betweencut.data.validate import int_text

        try:
            return int_text(text, name, minimum, maximum, why)
        except BetweenCutError as exc:
            raise argparse.ArgumentTypeError(_after_flag(exc)) from None

    read.__name__ = name
    return read  # type: ignore[return-value]


class StatusLine(Tracker):
    """The command line's progress (`betweencut.progress.Tracker`): shown only when asked
    (`force`, `--progress`), public facts only, the elapsed time only with `elapsed`
    (`--diagnostics`); its limit is the deterministic work limit (`DEFAULT_WORK`), or a
    wall-clock `budget` when one is given (issue 35, item 7)."""

    def __init__(self, label: str, force: bool = False, elapsed: bool = False,
                 budget: float | None = None) -> None:
        super().__init__(label, show=force, elapsed=elapsed, budget=budget,
                         work=DEFAULT_WORK if budget is None else None)


def add_run_flags(p: argparse.ArgumentParser, budget: bool = True) -> None:
    """`--progress`, `--diagnostics` and (with `budget`) `--budget SECONDS`."""
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="show on stderr where the computation is, at most a line a second: "
                        "stages and public counts (pairs, answer sequences, profiles, claims); "
                        "default: on when stderr is a terminal (an audit reads no private "
                        "data), off in a pipe or a file")
    p.add_argument("--diagnostics", action="store_true",
                   help="timings on stderr: the elapsed seconds on each --progress line and "
                        "the total at the end")
    if budget:
        p.add_argument("--budget", type=positive_int("budget", 1, 10**6),
                       default=None, metavar="SECONDS",
                       help="a wall-clock time budget, only when given: past it the audit "
                            "stops with exit 2 and says how far it got; a job or a step whose "
                            "estimated time passes what is left is refused at once. Without "
                            "it the limits are work, the same on every machine: answer "
                            "sequences, pairs, and the projected work of an audit (at most "
                            f"{DEFAULT_WORK} reference seconds at fixed rates)")


STRICT_HELP = ("strict mode (issue 34): first verify your mechanism's source, and every "
               "function of your modules it reaches, pure (no global, default-argument, "
               "closure or attribute state, no memo, imports and calls from an allow-list, no "
               "eval/exec/open, no outside randomness), before any of it runs; a violation "
               "exits 2 naming the file and line; the verdict states 'pure: verified'")


def add_strict_flag(p: argparse.ArgumentParser) -> None:
    """`--strict`: the static purity check of the user's mechanism (`betweencut.boundary.
    purity`), on every command that runs a user's mechanism."""
    p.add_argument("--strict", action="store_true", help=STRICT_HELP)


def tracker_of(args: argparse.Namespace, label: str) -> StatusLine:
    """The tracker of a command run with `add_run_flags`' flags: `--progress` or
    `--no-progress` as given, else shown when stderr is a terminal (issue 36 item 6: an
    audit is never silent for its whole run on a terminal; it reads no private data, so where
    its stderr goes may decide what it shows)."""
    show = args.progress if args.progress is not None else _stderr_is_terminal()
    return StatusLine(label, show, args.diagnostics, getattr(args, "budget", None))


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stderr
        return False


def report_time(args: argparse.Namespace, tracker: Tracker) -> None:
    """Under `--diagnostics`, the total time on stderr (after the output)."""
    if args.diagnostics:
        sys.stdout.flush()
        print(f"{tracker.label}: {tracker.seconds():.1f} s", file=sys.stderr)


ACCOUNTANT_NAMES = ("paper", "tight")  # the names `AccountantKind` reads (a test checks it)


def accountant_kind(text: str) -> Any:
    """`--accountant NAME` read once, as an `AccountantKind` (imported when an argument is
    parsed, not when the parser is built: building it stays light)."""
    from betweencut.mechanism.calibration import AccountantKind

    return AccountantKind.of(text, "--accountant")


def add_accountant_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--accountant", type=accountant_kind, choices=ACCOUNTANT_NAMES,
                   default=ACCOUNTANT_NAMES[0],
                   help="paper: Theorem 5.5 (default); tight: the smallest margin E whose "
                        "certified delta(eps) <= delta under KOV's optimal composition or "
                        "Theorem 5.4 (never above paper's E)")


def print_verdict(verdict: Any, as_json: bool) -> int:
    """Print a verdict (any audit's: `as_json()` or `text()`) and return its exit status;
    `betweencut.boundary.seal.Tampered` instead when the user's code changed the audit."""
    from betweencut.boundary.seal import check

    check()
    if as_json:
        print(json.dumps(verdict.as_json()))
    else:
        print(verdict.text())
    return int(verdict.exit_status)
