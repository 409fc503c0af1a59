"""`--accountant paper|tight` on calibrate, classify, margins and audit privacy (issue 13)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from betweencut.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_calibrate_accountant_paper_keeps_theorem_5_5_and_tight_is_smaller(
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = ("calibrate", "--height", "15", "--epsilon", "1", "--delta", "0.05", "--json")
    status, out, _ = run(capsys, *base)
    default = json.loads(out)
    status_p, out_p, _ = run(capsys, *base, "--accountant", "paper")
    status_t, out_t, _ = run(capsys, *base, "--accountant", "tight")
    paper, tight = json.loads(out_p), json.loads(out_t)
    assert status == status_p == status_t == 0
    assert default == paper and paper["accountant"] == "paper" and paper["lambda"] == 0.25
    assert tight["accountant"] == "tight" and tight["E"] < paper["E"]
    assert set(tight) == set(paper)


def test_calibrate_accountant_rejects_an_unknown_name(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "calibrate", "--height", "15", "--epsilon", "1", "--delta",
                           "0.05", "--accountant", "optimistic")
    assert status == 2 and out == "" and "Traceback" not in err and len(err.splitlines()) == 1


def test_classify_and_margins_take_the_tight_accountant(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    records = tmp_path / "records.txt"
    records.write_text("0/0/0\n0/0/1\n0/0/1\n1/1/0\n", encoding="utf-8")
    status, out, _ = run(capsys, "classify", str(records), "--height", "4", "--tau", "1",
                         "--epsilon", "1", "--delta", "0.05", "--accountant", "tight", "--seed",
                         "1", "--json")
    data = json.loads(out)
    assert status == 0 and data["calibration"]["accountant"] == "tight"
    status, out, _ = run(capsys, "margins", "--epsilon", "1", "--delta", "0.05", "--heights",
                         "15", "--accountant", "tight", "--json")
    data = json.loads(out)
    assert status == 0 and data["parameters"]["accountant"] == "tight"
    assert all(row["betweencut_tight"] <= row["betweencut"] for row in data["rows"])


def test_audit_privacy_rows_use_the_tight_accountant(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("audit", "privacy", "--arity", "2", "--height", "3", "--lam", "1", "--R", "1",
            "--tau", "1", "--db", "0/0,0/1", "--add", "0/0", "--json")
    _, out_p, _ = run(capsys, *argv)
    status, out_t, _ = run(capsys, *argv, "--accountant", "tight")
    paper, tight = json.loads(out_p), json.loads(out_t)
    assert status == 0 and tight["claim"]["parameters"]["accountant"] == "tight"
    assert tight["holds"]
    for p_row, t_row in zip(paper["rows"], tight["rows"], strict=True):
        assert t_row["delta_exact"] == p_row["delta_exact"] and t_row["bound"] <= p_row["bound"]
    status, out, _ = run(capsys, "audit", "privacy", "--arity", "2", "--height", "3",
                         "--epsilon", "1", "--delta", "0.05", "--tau", "2", "--exhaustive", "1",
                         "--accountant", "tight", "--json")
    assert status == 0 and json.loads(out)["claim"]["parameters"]["accountant"] == "tight"
