"""The README stays short and opens with its two commands; CI runs its test command; the claims
table of the documentation (generated from the registry) names existing tests."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
INSTALL = "python -m pip install . && betweencut audit"
TESTS = ("python -m pip install -e '.[dev]' --config-settings editable_mode=strict"
         " && python -m pytest")


def docs_hooks() -> ModuleType:
    """`docs/hooks/generate.py`, the MkDocs hook that generates the claims table."""
    if "docs_generate" in sys.modules:
        return sys.modules["docs_generate"]
    spec = importlib.util.spec_from_file_location("docs_generate",
                                                  ROOT / "docs" / "hooks" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["docs_generate"] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_readme_is_at_most_150_lines_and_opens_with_the_two_commands() -> None:
    assert len(README.splitlines()) <= 150
    commands = re.findall(r"^\$ (.*)$", README, flags=re.M)
    assert commands[:2] == [INSTALL, TESTS]
    assert "## " not in README.split(TESTS)[0], "a section comes before the two commands"


def test_ci_runs_the_readme_test_command() -> None:
    assert TESTS in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_every_registered_checker_is_in_the_claims_table() -> None:
    """The generated table has one row per registered checker; the build refuses a registered
    checker without its description in docs/hooks/claims.toml, or a description of none."""
    hooks = docs_hooks()
    rows = hooks.claim_rows()
    registered = hooks.registered_checkers()
    assert {r.checker for r in rows} == set(registered)
    table = hooks.claims_table()
    for checker in registered:
        assert f"[`{checker}`]" in table, checker


def test_the_claims_table_refuses_drift(monkeypatch: pytest.MonkeyPatch,
                                        tmp_path: Path) -> None:
    """The check can fail: a description dropped, or one added for no checker, stops it."""
    hooks = docs_hooks()
    text = hooks.CLAIMS_DATA.read_text(encoding="utf-8")
    first = text.index('["proofs.calibration_claims.check_theorem_5_5"]')
    second = text.index("\n[", first + 1)
    dropped = tmp_path / "dropped.toml"
    dropped.write_text(text[:first] + text[second + 1:], encoding="utf-8")
    monkeypatch.setattr(hooks, "CLAIMS_DATA", dropped)
    with pytest.raises(hooks.DocsDrift, match="registered but not described"):
        hooks.claim_rows()
    extra = tmp_path / "extra.toml"
    extra.write_text(text + '\n["proofs.nowhere.check_nothing"]\nclaim = "x"\ntest = "t"\n'
                     'method = "exact"\n', encoding="utf-8")
    monkeypatch.setattr(hooks, "CLAIMS_DATA", extra)
    with pytest.raises(hooks.DocsDrift, match="described but not registered"):
        hooks.claim_rows()


def test_every_claims_table_row_names_an_existing_test() -> None:
    for row in docs_hooks().claim_rows():
        path, _, name = row.test.partition("::")
        source = (ROOT / path).read_text(encoding="utf-8")
        assert re.search(rf"def {re.escape(name)}\b", source), f"{row.test} does not exist"
        assert row.method.split()[0].rstrip(",") in {"exact", "interval", "enumerated",
                                                     "property"}, row


def test_the_claims_page_is_generated_from_the_registry() -> None:
    page = (ROOT / "docs" / "reference" / "claims.md").read_text(encoding="utf-8")
    assert "<!-- generated: claims -->" in page
