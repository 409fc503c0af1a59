"""The command line imports only what it parses: building the parser, `--help` of every command
and `--version` import no checker, numpy, sympy, mpmath nor Hypothesis (each command's handler
imports what it needs when it runs). Not timed: how fast it starts is `bench/cli_startup.py`.

The audit's groups are written out in the CLI (`betweencut.cli.audit.GROUPS`) so that the parser
lists them without importing a checker; the test below holds the table equal to the registry's.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("numpy", "sympy", "mpmath", "hypothesis", "betweencut.proofs", "betweencut.api",
         "betweencut.properties", "betweencut.data.validate", "betweencut.numbers.exact")
PROBE = """
import sys
try:
    {run}
except SystemExit:
    pass
print(" ".join(sorted(sys.modules)))
"""


def imported(run: str) -> set[str]:
    """The modules a fresh interpreter holds after running the statement `run`."""
    done = subprocess.run([sys.executable, "-c", PROBE.format(run=run)], capture_output=True,
                          text=True, check=True, timeout=300)
    return set(done.stdout.split("\n")[-2].split())


def heavy(modules: set[str]) -> list[str]:
    return [name for name in HEAVY if name in modules]


def test_building_the_parser_imports_nothing_heavy() -> None:
    modules = imported("from betweencut.cli import build_parser; build_parser()")
    assert "betweencut.cli.audit_privacy" in modules  # the whole parser was built
    assert heavy(modules) == []
    # the probe can fail: the same process once it imports the library API holds all of them
    modules = imported("from betweencut.cli import build_parser; build_parser(); "
                       "from betweencut.api import audit_mechanism")
    assert {"numpy", "mpmath", "betweencut.proofs", "betweencut.api"} <= set(heavy(modules))


@pytest.mark.parametrize("argv", [
    ["--help"], ["classify", "--help"], ["calibrate", "--help"], ["margins", "--help"],
    ["audit", "--help"], ["audit", "laws", "--help"], ["audit", "privacy", "--help"],
    ["audit", "corpus", "--help"], ["audit", "depth", "--help"],
])
def test_help_of_every_command_imports_nothing_heavy(argv: list[str]) -> None:
    assert heavy(imported(f"from betweencut.cli import main; main({argv!r})")) == []


def test_version_imports_only_the_version() -> None:
    modules = imported("from betweencut.cli import main; main(['--version'])")
    ours = {name for name in modules if name.startswith("betweencut")}
    assert ours == {"betweencut", "betweencut.cli", "betweencut.schemas"}
    assert "argparse" not in modules


def test_version_flag_prints_the_version_the_metadata_repeats(
        capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    from betweencut.cli import main
    from betweencut.schemas import VERSION

    assert version("betweencut") == VERSION
    # answered before any parser is built, or by the parser when other words come with it
    for argv in (["--version"], ["--version", "--version"]):
        assert main(argv) == 0
        assert capsys.readouterr().out == f"betweencut {VERSION}\n"


def test_audit_groups_table_is_the_registry_groups() -> None:
    from betweencut.api.claims import groups
    from betweencut.cli import build_parser
    from betweencut.cli.audit import GROUPS, SPECIAL_GROUPS

    assert list(GROUPS) == groups()
    audit = build_parser()._subparsers._group_actions[0].choices["audit"]  # type: ignore[union-attr]
    listed = set(audit._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    assert listed == set(GROUPS) | set(SPECIAL_GROUPS)


def test_calibrate_imports_no_audit() -> None:
    """`betweencut.api` imports each job's module on first use: `calibrate` (the API and the
    command) imports neither the audits nor Hypothesis (0.45 s against 0.2 s when it did)."""
    for code in ("from betweencut.api import calibrate; calibrate(1000, 1, '1e-6')",
                 "from betweencut.cli import main; main(['calibrate', '--height', '1000', "
                 "'--epsilon', '1', '--delta', '1e-6'])"):
        modules = imported(code)
        assert "betweencut.api.release" in modules
        assert not {"hypothesis", "betweencut.api.mechanism",
                    "betweencut.proofs.privacy.audit"} & set(modules)
