"""`betweencut audit`: every registered claim checked; prints claim / verdict / method.

Parsing and printing only: the work is `betweencut.audit`. Groups with flags of their own
(`privacy`, `corpus`, `depth`) have their own modules.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any

from betweencut.cli._common import (
    UsageError,
    add_command,
    add_run_flags,
    print_verdict,
    report_time,
    tracker_of,
)
from betweencut.progress import tracking

# The groups of the registered claims (`betweencut.api.claims.groups()`), written out so that
# the parser lists them without importing a checker; a test holds the two equal.
GROUPS = ("baselines", "calibration", "corpus", "gaussian", "laws", "privacy", "structure")
# Audit groups with their own command-line flags: module name under betweencut.cli ("depth"
# audits any height, no registered case).
SPECIAL_GROUPS = {"privacy": "audit_privacy", "corpus": "audit_corpus", "depth": "audit_depth"}


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """The `audit` command and its groups."""
    p = add_command(
        sub, "audit",
        "Check the paper's claims by exact or certified arithmetic (the main job). "
        "Exit 0: all hold; 1: a claim refuted; 3: undecided.",
        "betweencut audit\n  betweencut audit calibration --json",
    )
    p.add_argument("--json", action="store_true", help="one JSON object")
    add_run_flags(p, budget=False)
    p.set_defaults(handler=run, group=None)
    groups_parser = p.add_subparsers(dest="group", metavar="GROUP", parser_class=type(p))
    for name in sorted(set(GROUPS) - set(SPECIAL_GROUPS)):
        g = add_command(groups_parser, name, f"only the {name} checks",
                        f"betweencut audit {name} --json")
        g.add_argument("--json", action="store_true", help="one JSON object")
        add_run_flags(g, budget=False)
        g.set_defaults(handler=run, group=name)
    for module_name in SPECIAL_GROUPS.values():
        importlib.import_module(f"betweencut.cli.{module_name}").add_parser(groups_parser)


def run(args: argparse.Namespace) -> int:
    from betweencut.api import audit
    from betweencut.api.claims import EXIT_MISSING_EXTRA

    tracker = tracker_of(args, "audit")

    def bar(items: Any, total: int) -> Any:
        return tracker.items(items, total, "claim case")

    with tracking(tracker):
        verdict = audit(args.group, progress=bar)
    if verdict.exit_status == EXIT_MISSING_EXTRA:  # a group asked for, part of it not checkable
        held = sum(row.holds for row in verdict.rows)  # exit 2 is one line (issue 36 item 7)
        raise UsageError(f"{len(verdict.not_checked)} of the {len(verdict.rows)} '{args.group}' "
                         f"claims need an optional extra, not installed: "
                         f"{verdict.missing_extras()} (the other {held} hold; "
                         "`betweencut audit` checks every claim it can)")
    status = print_verdict(verdict, args.json)
    if args.diagnostics:
        for row in verdict.rows:
            print(f"audit: {row.claim}: {row.seconds:.2f} s", file=sys.stderr)
    report_time(args, tracker)
    return status
