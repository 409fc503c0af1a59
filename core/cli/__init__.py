"""The `betweencut` command line: `classify`, `calibrate`, `audit`, `margins`.

Exit status: 0 success (every audited claim holds), 1 a claim refuted, 2 bad usage or bad input
(one line on stderr, never a traceback), 3 a certified comparison left undecided.
This package is the only part of `betweencut` (core) that imports `betweencut.proofs`.

Starting is cheap: `--version` is answered before any parser is built, and building the parser
imports only the commands' modules and the light modules of core (no checker, numpy, sympy
nor mpmath); each command's handler imports what it needs when it runs
(`tests/core/cli/test_cli_startup.py`, `bench/cli_startup.py`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from betweencut.cli._common import Parser
    from betweencut.cli._exits import Interrupts

EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE (betweencut.cli._exits)
COMMANDS = ("classify", "calibrate", "audit", "margins")  # modules under betweencut.cli


def build_parser() -> Parser:
    """The whole command line's parser (the documentation's CLI reference is generated from
    it)."""
    from importlib import import_module

    from betweencut.cli._common import make_parser

    parser = make_parser(
        "betweencut",
        "BetweenCut: differentially private heavy-node classification on public trees, "
        "with machine-checked proofs.",
        "betweencut audit\n  betweencut classify --tau 30 --epsilon 1 --delta 0.05",
    )
    parser.add_argument("--version", action="store_true",
                        help="print the package version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=type(parser))
    for command in COMMANDS:
        import_module(f"betweencut.cli.{command}").add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every way it can end is one line at most on stderr and an exit status
    (module docstring; `betweencut.cli._exits` for Ctrl-C, a closed stdout and the unexpected).
    """
    words = list(sys.argv[1:] if argv is None else argv)
    if words == ["--version"]:  # the commonest question, answered without a parser
        return _version()
    from betweencut.cli._exits import ClosedStdout, Interrupts, stdout_closed

    interrupts = Interrupts().install()
    if stdout_closed():
        sys.stdout = ClosedStdout()
    try:
        status = _main(words, interrupts)
    finally:
        interrupts.restore(quiet_after=argv is None)
    if argv is None:
        _end_after_user_code(status)
    return status


def _end_after_user_code(status: int) -> None:
    """The process ends here, with `status`, when a user's module was imported into it: the
    exit handlers and finalisers its code left (`atexit.register(os._exit, 0)`, a `__del__`
    run at shutdown) would otherwise run after the verdict was printed and could set the exit
    status a CI gate reads. Only for the process `betweencut` started (`argv is None`): a
    caller of `main(argv)` keeps its interpreter."""
    seal = sys.modules.get("betweencut.boundary.seal")
    if seal is None or not seal.user_code_imported():
        return
    import os
    from contextlib import suppress

    for stream in (sys.stdout, sys.stderr):
        with suppress(OSError, ValueError):  # a closed pipe or stream: nothing more to say
            stream.flush()
    os._exit(status)


def _main(words: list[str], interrupts: Interrupts) -> int:
    from betweencut.cli._exits import quiet_broken_pipe, unexpected

    args = None
    try:
        from betweencut.cli._common import EXIT_UNDECIDED, EXIT_USAGE, UsageError
        from betweencut.errors import BetweenCutError, Undecided

        try:
            args = build_parser().parse_args(words)
            if args.version:
                return _version()
            if args.command is None:
                raise UsageError("a command is required: classify, calibrate, audit or margins")
            status = int(args.handler(args))
            sys.stdout.flush()  # a closed pipe shows here, inside the handler below
            return status
        except (BetweenCutError, OSError) as exc:
            if interrupts.seen:  # a Ctrl-C a dependency turned into its own error
                raise
            if isinstance(exc, BrokenPipeError):
                return quiet_broken_pipe()
            if isinstance(exc, Undecided):
                _say(f"undecided: {exc}")
                return EXIT_UNDECIDED
            if isinstance(exc, OSError):
                _say(f"error: {exc.strerror or exc}: {exc.filename or ''}")
                return EXIT_USAGE
            if isinstance(exc, UsageError):
                _say(f"error: {exc}")
            else:  # the flag or argument as the user typed it
                from betweencut.cli._common import in_flags

                _say(f"error: {in_flags(exc, getattr(args, 'command_parser', None))}")
            detail = getattr(exc, "detail", "")
            if detail and getattr(args, "debug", False):  # a dependency's own text, on request
                print(f"betweencut: debug: {detail}", file=sys.stderr)
            return EXIT_USAGE
    except BaseException as exc:  # Ctrl-C, or what no command expected: still one line
        if isinstance(exc, SystemExit) and args is None and not interrupts.seen:
            raise  # argparse's --help: printed, exit 0
        return unexpected(exc, interrupts, bool(getattr(args, "debug", False)))


def _version() -> int:
    from betweencut.schemas import VERSION

    print(f"betweencut {VERSION}")
    return 0


def _say(message: str) -> None:
    """One short line on stderr, whatever the message holds (newlines escaped, long values cut)."""
    from betweencut.cli._exits import say_raw

    say_raw(message)
