"""`betweencut audit`: run every registered checker and print claim / verdict / method."""

from __future__ import annotations

import argparse
import importlib
import json
import time
from collections.abc import Sequence
from typing import Any

from betweencut.cli._common import (
    EXIT_OK,
    EXIT_REFUTED,
    EXIT_UNDECIDED,
    add_command,
    progress,
)
from betweencut.errors import Undecided
from betweencut.proofs import AuditCase, ClaimRefuted, audit_cases

# Audit groups with their own command-line flags: module name under betweencut.cli.
SPECIAL_GROUPS = {"privacy": "audit_privacy", "corpus": "audit_corpus", "depth": "audit_depth"}


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = add_command(
        sub, "audit",
        "Check the paper's claims by exact or certified arithmetic (the main job). "
        "Exit 0: all hold; 1: a claim refuted; 3: undecided.",
        "betweencut audit\n  betweencut audit calibration --json",
    )
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.set_defaults(handler=run, group=None)
    groups = p.add_subparsers(dest="group", metavar="GROUP", parser_class=type(p))
    names = sorted({case.group for case in audit_cases()} - set(SPECIAL_GROUPS))
    for name in names:
        g = add_command(groups, name, f"only the {name} checks",
                        f"betweencut audit {name} --json")
        g.add_argument("--json", action="store_true", help="one JSON object")
        g.set_defaults(handler=run, group=name)
    for module_name in SPECIAL_GROUPS.values():
        try:
            module = importlib.import_module(f"betweencut.cli.{module_name}")
        except ImportError:
            continue
        module.add_parser(groups)


def run_cases(cases: Sequence[AuditCase]) -> tuple[list[dict[str, Any]], int]:
    """Run the cases; one row per (case, claim), and the exit status."""
    rows: list[dict[str, Any]] = []
    status = EXIT_OK
    for case in progress(cases, len(cases), "audit"):
        start = time.perf_counter()
        try:
            certificates = case.run()
        except ClaimRefuted as exc:
            rows.append({"group": case.group, "claim": exc.claim, "verdict": "REFUTED",
                         "method": "", "checks": 0, "detail": str(exc), "title": case.title})
            status = EXIT_REFUTED
            continue
        except Undecided as exc:
            rows.append({"group": case.group, "claim": case.title, "verdict": "undecided",
                         "method": "", "checks": 0, "detail": str(exc), "title": case.title})
            status = status or EXIT_UNDECIDED
            continue
        seconds = time.perf_counter() - start
        by_claim: dict[str, list[Any]] = {}
        for cert in certificates:
            by_claim.setdefault(cert.claim, []).append(cert)
        for name, certs in by_claim.items():
            methods = sorted({c.method + (f" ({c.scope})" if c.scope else "") for c in certs})
            verdicts = {c.verdict for c in certs}
            verdict = "holds" if verdicts == {"holds"} else ", ".join(sorted(verdicts))
            if verdict != "holds":
                status = EXIT_REFUTED
            rows.append({"group": case.group, "claim": name, "verdict": verdict,
                         "method": "; ".join(methods), "checks": len(certs),
                         "detail": case.title, "seconds": round(seconds, 3)})
    return rows, status


def run(args: argparse.Namespace) -> int:
    cases = audit_cases(args.group)
    rows, status = run_cases(cases)
    if args.json:
        print(json.dumps({"rows": rows, "holds": status == EXIT_OK}))
        return status
    width = max((len(r["claim"]) for r in rows), default=5)
    print(f"{'group':<12} {'claim':<{width}}  {'verdict':<9} {'checks':>6}  method")
    for r in rows:
        print(f"{r['group']:<12} {r['claim']:<{width}}  {r['verdict']:<9} {r['checks']:>6}  "
              f"{r['method']}")
        if r["verdict"] != "holds":
            print(f"    {r['detail']}")
    held = sum(r["verdict"] == "holds" for r in rows)
    print(f"{held} of {len(rows)} claims hold")
    return status
