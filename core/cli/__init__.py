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

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from betweencut.cli._common import Parser

EXIT_BROKEN_PIPE = 141
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
    words = list(sys.argv[1:] if argv is None else argv)
    if words == ["--version"]:  # the commonest question, answered without a parser
        return _version()
    from betweencut.cli._common import EXIT_UNDECIDED, EXIT_USAGE, UsageError
    from betweencut.errors import BetweenCutError, Undecided

    parser = build_parser()
    args = None
    try:
        args = parser.parse_args(words)
        if args.version:
            return _version()
        if args.command is None:
            raise UsageError("a command is required: classify, calibrate, audit or margins")
        status = int(args.handler(args))
        sys.stdout.flush()  # a closed pipe shows here, inside the handler below
        return status
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except UsageError as exc:
        _say(f"error: {exc}")
        return EXIT_USAGE
    except Undecided as exc:
        _say(f"undecided: {exc}")
        return EXIT_UNDECIDED
    except BetweenCutError as exc:
        from betweencut.cli._common import in_flags

        _say(f"error: {in_flags(exc, getattr(args, 'command_parser', None))}")
        detail = getattr(exc, "detail", "")
        if detail and getattr(args, "debug", False):  # a dependency's own text, on request
            print(f"betweencut: debug: {detail}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        _say(f"error: {exc.strerror or exc}: {exc.filename or ''}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("betweencut: interrupted", file=sys.stderr)
        return 130


def _version() -> int:
    from betweencut.schemas import VERSION

    print(f"betweencut {VERSION}")
    return 0


def _say(message: str) -> None:
    """One short line on stderr, whatever the message holds (newlines escaped, long values cut)."""
    from betweencut.errors import one_line

    sys.stdout.flush()
    print(f"betweencut: {one_line(message)}", file=sys.stderr)


def _quiet_broken_pipe() -> int:
    """The reader of stdout went away (`betweencut ... | head -1`): stop quietly.

    Python's documented recipe: point stdout at devnull so the interpreter's final flush does
    not fail again; exit 141 = 128 + SIGPIPE, as a shell command killed by the signal would.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout without a file descriptor (e.g. captured)
        pass
    return EXIT_BROKEN_PIPE
