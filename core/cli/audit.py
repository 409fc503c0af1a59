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
from betweencut.errors import ParameterError, Undecided
from betweencut.proofs import CLAIMS, AuditCase, Certificate, ClaimRefuted, audit_cases

# Audit groups with their own command-line flags: module name under betweencut.cli.
SPECIAL_GROUPS = {"privacy": "audit_privacy", "corpus": "audit_corpus", "depth": "audit_depth"}


def _cases(group: str | None = None) -> list[AuditCase]:
    """The registered cases, the structural claims included: `betweencut.properties.audit`
    registers them (proofs may not import properties; the CLI composes both layers)."""
    audit_cases()  # the proofs' cases first, so the table lists them first
    from betweencut.properties import audit as _structure  # noqa: F401  (registers them)

    return audit_cases(group)


def add_parser(sub: argparse._SubParsersAction, groups: bool = True) -> None:  # type: ignore[type-arg]
    """The `audit` command; its groups (which import every checker, about a second) only when
    `groups`, i.e. when the command line names `audit` at all."""
    p = add_command(
        sub, "audit",
        "Check the paper's claims by exact or certified arithmetic (the main job). "
        "Exit 0: all hold; 1: a claim refuted; 3: undecided.",
        "betweencut audit\n  betweencut audit calibration --json",
    )
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.set_defaults(handler=run, group=None)
    if not groups:
        return
    groups_parser = p.add_subparsers(dest="group", metavar="GROUP", parser_class=type(p))
    names = sorted({case.group for case in _cases()} - set(SPECIAL_GROUPS))
    for name in names:
        g = add_command(groups_parser, name, f"only the {name} checks",
                        f"betweencut audit {name} --json")
        g.add_argument("--json", action="store_true", help="one JSON object")
        g.set_defaults(handler=run, group=name)
    for module_name in SPECIAL_GROUPS.values():
        try:
            module = importlib.import_module(f"betweencut.cli.{module_name}")
        except ImportError:
            continue
        module.add_parser(groups_parser)


def registry_claim(name: str) -> str:
    """The registered claim a certificate's claim belongs to: itself, or the longest registered
    name it starts with (`Eq. (25), X = L` belongs to `Eq. (25)`)."""
    if name in CLAIMS:
        return name
    prefixes = [c for c in CLAIMS if name.startswith(c)]
    return max(prefixes, key=len) if prefixes else name


def _checked(certs: Sequence[Certificate]) -> str:
    """What was checked, in a few words: how many checks over which parameters, or the runs."""
    runs = [c for c in certs if c.method == "property" or "runs" in c.quantities
            or "heights" in c.quantities]
    if runs:
        return "; ".join(c.scope for c in runs)
    values: dict[str, set[str]] = {}
    for cert in certs:
        for key, value in cert.parameters.items():
            values.setdefault(key, set()).add(str(value))
    grid = ", ".join(f"{k} ({len(v)} value{'s' if len(v) > 1 else ''})"
                     for k, v in sorted(values.items()))
    return f"{len(certs)} check{'s' if len(certs) > 1 else ''}" + (f" over {grid}" if grid else "")


def run_cases(cases: Sequence[AuditCase]) -> tuple[list[dict[str, Any]], int]:
    """Run the cases; one row per registered claim (the README table's claims), and the exit
    status. A row says what was checked: the number of checks and over which parameters, or
    the number of drawn runs."""
    status = EXIT_OK
    order: list[str] = []
    certs: dict[str, list[Certificate]] = {}
    groups: dict[str, list[str]] = {}
    failed: dict[str, dict[str, Any]] = {}
    seconds: dict[str, float] = {}
    for case in progress(cases, len(cases), "audit"):
        start = time.perf_counter()
        try:
            found = list(case.run())
        except ClaimRefuted as exc:
            name = registry_claim(exc.claim)
            failed[name] = {"verdict": "REFUTED", "detail": str(exc), "title": case.title}
            found, status = [], EXIT_REFUTED
            _note(name, case.group, order, groups)
        except Undecided as exc:
            name = registry_claim(case.title)
            failed[name] = {"verdict": "undecided", "detail": str(exc), "title": case.title}
            found, status = [], status or EXIT_UNDECIDED
            _note(name, case.group, order, groups)
        took = time.perf_counter() - start
        for cert in found:
            name = registry_claim(cert.claim)
            _note(name, case.group, order, groups)
            certs.setdefault(name, []).append(cert)
            seconds[name] = seconds.get(name, 0.0) + took / max(len(found), 1)
    rows: list[dict[str, Any]] = []
    for name in order:
        mine = certs.get(name, [])
        methods = sorted({c.method + (f" ({c.scope})" if c.scope and c.method != "property"
                                      else "") for c in mine})
        verdicts = {c.verdict for c in mine}
        verdict = "holds" if verdicts == {"holds"} else ", ".join(sorted(verdicts)) or "none"
        row: dict[str, Any] = {
            "group": ", ".join(groups[name]), "claim": name, "verdict": verdict,
            "method": "; ".join(methods), "checks": len(mine), "checked": _checked(mine),
            "detail": "", "seconds": round(seconds.get(name, 0.0), 3),
        }
        if name in failed:
            row.update(failed[name])
        elif verdict != "holds":
            status = EXIT_REFUTED
        rows.append(row)
    return rows, status


def _note(name: str, group: str, order: list[str], groups: dict[str, list[str]]) -> None:
    if name not in groups:
        order.append(name)
        groups[name] = []
    if group not in groups[name]:
        groups[name].append(group)


def audit(group: str | None = None) -> dict[str, Any]:
    """The main job as a library call: every registered claim checked (or one group's), with
    `rows` (claim, verdict, method, checks, what was checked) and `holds`."""
    known = {case.group for case in _cases()}
    if group is not None and group not in known:
        raise ParameterError("group", group, f"one of {', '.join(sorted(known))}")
    rows, status = run_cases(_cases(group))
    return {"rows": rows, "holds": status == EXIT_OK, "status": status}


def run(args: argparse.Namespace) -> int:
    cases = _cases(args.group)
    rows, status = run_cases(cases)
    if args.json:
        print(json.dumps({"rows": rows, "holds": status == EXIT_OK}))
        return status
    width = max((len(r["claim"]) for r in rows), default=5)
    gwidth = max((len(r["group"]) for r in rows), default=5)
    print(f"{'group':<{gwidth}} {'claim':<{width}}  {'verdict':<9} method / checked")
    for r in rows:
        print(f"{r['group']:<{gwidth}} {r['claim']:<{width}}  {r['verdict']:<9} {r['method']}")
        print(f"{'':<{gwidth + width + 13}} checked: {r['checked']}")
        if r["verdict"] != "holds":
            print(f"    {r['detail']}")
    held = sum(r["verdict"] == "holds" for r in rows)
    print(f"{held} of {len(rows)} claims hold")
    return status
