"""The README's claims table and commands agree with the code and with CI."""

from __future__ import annotations

import re
from pathlib import Path

from betweencut.proofs import CLAIMS
from betweencut.proofs.registry import audit_cases

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _table_rows() -> list[list[str]]:
    section = README.split("## Claims table", 1)[1].split("\n## ", 1)[0]
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in section.splitlines()
        if line.startswith("|") and not line.startswith("|---")
    ]
    return rows[1:]


def test_every_registered_checker_is_in_the_claims_table() -> None:
    audit_cases()  # imports every checker module of proofs/
    import betweencut.properties.coupling
    import betweencut.properties.heavy_only
    import betweencut.properties.margin
    import betweencut.properties.predicates  # noqa: F401
    listed = {row[1].strip("`") for row in _table_rows()}
    registered = {
        f"{fn.__module__.removeprefix('betweencut.')}.{fn.__name__}"
        for fns in CLAIMS.values() for fn in fns
    }
    assert registered - listed == set(), "checkers missing from the README claims table"
    assert listed - registered == set(), "README lists checkers that are not registered"


def test_every_table_row_names_an_existing_test() -> None:
    for row in _table_rows():
        path, _, name = row[2].strip("`").partition("::")
        source = (ROOT / path).read_text(encoding="utf-8")
        assert re.search(rf"def {re.escape(name)}\b", source), f"{row[2]} does not exist"
        assert row[3].split()[0].rstrip(",") in {"exact", "interval", "enumerated", "property"}, row


def test_ci_runs_the_readme_test_command() -> None:
    commands = re.findall(r"^    (python -m pip install -e .*)$", README, flags=re.M)
    assert commands, "README has no test command"
    assert commands[0] in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_readme_opens_with_the_two_commands() -> None:
    head = README.split("## Claims table")[0]
    assert "betweencut audit" in head and "python -m pytest" in head
