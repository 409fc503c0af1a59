"""The files every package ships, the extras people install, and what a missing extra says.

LICENSE (MIT, as pyproject says), CHANGELOG.md (Keep a Changelog), CITATION.cff (validated
against the Citation File Format 1.2.0 schema, `tests/data/cff-1.2.0.schema.json`, taken
unchanged from the cffconvert 2.0.0 distribution; the schema is CC-BY-4.0 by the Citation File
Format authors), `betweencut --version`; the installed package requires pyspark only under the
`spark` extra; a command needing a missing extra exits 2 with one line naming it.
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
import tomllib
from importlib.metadata import requires, version
from pathlib import Path

import pytest

from betweencut.cli import main

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
EXTRAS = {"plot", "notebooks", "duckdb", "spark", "fast", "docs", "dev"}


def test_license_is_the_mit_licence_pyproject_names() -> None:
    assert PYPROJECT["project"]["license"] == {"text": "MIT"}
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "Permission is hereby granted" in text


def _citation() -> dict:  # type: ignore[type-arg]
    yaml = pytest.importorskip("yaml")
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def test_citation_file_validates_against_the_cff_schema() -> None:
    import jsonschema

    schema = json.loads((ROOT / "tests" / "data" / "cff-1.2.0.schema.json").read_text("utf-8"))
    citation = _citation()
    jsonschema.Draft7Validator(schema).validate(citation)
    assert citation["cff-version"] == "1.2.0" and citation["type"] == "software"
    assert citation["version"] == version("betweencut")
    assert citation["license"] == "MIT"
    paper = citation["preferred-citation"]
    assert "BetweenCut" in paper["title"] and "2610.10075" in paper["url"]
    # the check can fail: a citation without authors, or with a wrong field, is refused
    for broken in (dict(citation, authors=[]), dict(citation, version=[1])):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.Draft7Validator(schema).validate(copy.deepcopy(broken))


def test_changelog_keeps_a_changelog() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert text.startswith("# Changelog") and "Keep a Changelog" in text
    versions = re.findall(r"^## \[([^\]]+)\]", text, flags=re.M)
    assert versions[0] == "Unreleased" and version("betweencut") in versions
    kinds = set(re.findall(r"^### (\w+)", text, flags=re.M))
    assert kinds <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def test_version_flag_prints_the_installed_version() -> None:
    done = subprocess.run([sys.executable, "-m", "betweencut", "--version"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout.strip() == f"betweencut {version('betweencut')}"


def test_the_extras_people_install() -> None:
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert set(extras) >= EXTRAS
    assert not any("pyspark" in dep for name, deps in extras.items() if name != "spark"
                   for dep in deps)
    assert any("python-flint" in dep for dep in extras["fast"])
    # the notebooks extra runs the documented `python -m pytest --nbmake notebooks/`, and stays
    # lean: no JupyterLab (issue 36 item 2; tests/project/test_install_commands.py runs it)
    assert {"pytest", "nbmake", "ipykernel"} <= {re.split(r"[<>=\[]", dep)[0]
                                                 for dep in extras["notebooks"]}
    assert not any("jupyterlab" in dep for dep in extras["notebooks"])
    assert any("matplotlib" in dep for dep in extras["plot"])
    assert any(dep.startswith("mkdocs") for dep in extras["docs"])


def test_installed_package_requires_pyspark_only_under_the_spark_extra() -> None:
    """Read from the installed metadata, not from pyproject: what pip resolves."""
    spark = [req for req in requires("betweencut") or [] if req.startswith("pyspark")]
    assert spark, "the spark extra lists pyspark"
    for req in spark:
        assert re.search(r'extra\s*==\s*"spark"', req), req


def _one_line_naming(err: str, extra: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert f"pip install 'betweencut[{extra}]'" in lines[0], err


def test_plot_without_matplotlib_names_the_plot_extra(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` raises
    status = main(["margins", "--epsilon", "1", "--delta", "0.05",
                   "--plot", str(tmp_path / "m.png")])
    assert status == 2
    _one_line_naming(capsys.readouterr().err, "plot")


def test_an_engine_without_its_library_names_its_extra(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    data = tmp_path / "paths.csv"
    data.write_text("path\na/b\n", encoding="utf-8")
    for module, engine in (("duckdb", "duckdb"), ("pyspark", "spark")):
        monkeypatch.setitem(sys.modules, module, None)
        status = main(["classify", str(data), "--engine", engine, "--column", "path",
                       "--alphabet", "a,b", "--height", "3", "--tau", "40", "--epsilon", "1",
                       "--delta", "0.05"])
        assert status == 2
        _one_line_naming(capsys.readouterr().err, engine)


def test_gaussian_claims_without_python_flint(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Asked for by name, the Gaussian group exits 2 naming the `fast` extra; in the whole
    audit such a claim is listed as not checked and does not fail the claims checked."""
    import betweencut.proofs.baselines.corpus_checks.gaussian_mechanisms as baselines_gaussian
    import betweencut.proofs.laws.continuous_gaussian as laws_gaussian
    from betweencut.api.claims import NOT_CHECKED, ClaimRow, ClaimsVerdict

    monkeypatch.setattr(laws_gaussian, "flint_available", lambda: False)
    monkeypatch.setattr(baselines_gaussian, "flint_available", lambda: False)
    assert main(["audit", "gaussian"]) == 2
    captured = capsys.readouterr()
    _one_line_naming(captured.err, "fast")
    assert captured.out == ""  # exit 2 is one line, not the report then the error (issue 36)
    row = ClaimRow("gaussian", "a Gaussian claim", NOT_CHECKED, "", 0, "", "needs fast",
                   extra="fast")
    held = ClaimRow("laws", "Lemma 5.2", "holds", "exact", 1, "1 check")
    whole = ClaimsVerdict([held, row])
    assert whole.exit_status == 0 and whole.holds and whole.as_json()["not_checked"] == [
        "a Gaussian claim"]
    assert "pip install 'betweencut[fast]'" in whole.text().splitlines()[-1]
    assert ClaimsVerdict([held, row], group="gaussian").exit_status == 2
    refuted = ClaimRow("laws", "Lemma 5.3", "REFUTED", "exact", 1, "1 check")
    assert ClaimsVerdict([refuted, row]).exit_status == 1
