"""`betweencut audit depth` (issue 13, Part 1): JSON contract, family mode, usage errors."""

from __future__ import annotations

import json

import pytest

from betweencut.cli import main

CONTRACT = ["audit", "depth", "--height", "7", "--lam", "0.5", "--R", "2", "--tau", "4",
            "--count", "2", "--json"]


def test_audit_depth_contract_rows(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(CONTRACT) == 0
    out = json.loads(capsys.readouterr().out)
    rows = out["rows"]
    assert [row["r"] for row in rows] == [1, 2, 3]
    for row in rows:
        assert {"count", "r", "eps", "delta", "delta_exact", "bound", "bound_exact",
                "holds"} <= set(row)
        assert row["count"] == 2 and isinstance(row["delta"], float)
        assert isinstance(row["delta_exact"], str) and row["holds"] is True
    # C = 2 vs 3 at r = 1: the same number full enumeration gives
    # (tests/proofs/privacy/depth/test_privacy_depth.py)
    assert rows[0]["delta_exact"] == "(-exp(-1/2) + 1)/4"  # (1 - e^{-1/2})/4
    assert out["claim"]["parameters"]["accountant"] == "paper" and out["worst"]["r"] in (1, 2, 3)


def test_audit_depth_any_height_up_to_2_64_minus_1(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["audit", "depth", "--height", str(2**64 - 1), "--lam", "0.5", "--R", "16",
            "--tau", "18", "--count", "34", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["claim"]["parameters"]["L"] == 64 and len(out["rows"]) == 64 and out["holds"] is True


def test_audit_depth_family_calibrated(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["audit", "depth", "--height", "15", "--epsilon", "1", "--delta", "0.05",
            "--tau", "40", "--search", "3", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    counts = {row["count"] for row in out["rows"] if "count" in row}
    assert len(counts) > 20 and any("profile" in row for row in out["rows"])
    assert out["worst"]["delta_exact"] and out["holds"] is True
    assert all(isinstance(row["delta_exact"], str) for row in out["rows"])  # every row exact
    promised = [row for row in out["rows"] if "promised" in row]  # every pair, at eps = 1
    assert all(row["eps"] == "1" and row["bound_exact"] == "1/20" for row in promised)
    assert all(row["holds"] for row in promised) and len(promised) >= len(counts)


def test_audit_depth_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(CONTRACT[:-1]) == 0
    assert "holds" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [
    ["audit", "depth", "--height", "7", "--lam", "0.5", "--R", "2"],  # no tau
    ["audit", "depth", "--height", "7", "--tau", "4"],  # no parameters
    ["audit", "depth", "--height", "7", "--lam", "0.5", "--tau", "4"],  # lam without R
    ["audit", "depth", "--height", "7", "--lam", "0.5", "--R", "2", "--epsilon", "1",
     "--delta", "0.05", "--tau", "4"],  # both ways
    ["audit", "depth", "--height", "7", "--lam", "2", "--R", "2", "--tau", "4"],  # lambda > 1
    ["audit", "depth", "--height", "7", "--lam", "0.5", "--R", "2", "--tau", "3"],  # tau < E
    ["audit", "depth", "--height", str(2**64), "--lam", "0.5", "--R", "2", "--tau", "4"],
    ["audit", "depth", "--height", "0", "--lam", "0.5", "--R", "2", "--tau", "4"],
    ["audit", "depth", "--height", "7", "--lam", "0.5", "--R", "0.5", "--tau", "4"],  # R < 1
    ["audit", "depth", "--height", "7", "--lam", "0.5", "--R", "2", "--tau", "4",
     "--count", "-1"],
    ["audit", "depth", "--height", "7", "--lam", "0.5", "--R", "2", "--tau", "4",
     "--accountant", "optimal"],
    ["audit", "depth", "--height", "7", "--epsilon", "2", "--delta", "0.05", "--tau", "40"],
])
def test_audit_depth_bad_usage_exits_2_with_one_line(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_audit_depth_tight_accountant(capsys: pytest.CaptureFixture[str]) -> None:
    """`--accountant tight`: every exact δ is below the certified tight bound (issue 13: at
    depth, Part 1's exact deltas never exceed it), and the tight bound is never above the
    paper's at the same r."""
    argv = ["audit", "depth", "--height", str(2**20 - 1), "--lam", "0.5", "--R", "16",
            "--tau", "18", "--count", "17", "--json"]
    assert main([*argv, "--accountant", "tight"]) == 0
    tight = json.loads(capsys.readouterr().out)
    assert main(argv) == 0
    paper = json.loads(capsys.readouterr().out)
    assert tight["claim"]["parameters"]["accountant"] == "tight" and tight["holds"] is True
    for t, p in zip(tight["rows"], paper["rows"], strict=True):
        assert t["delta_exact"] == p["delta_exact"] and t["bound"] <= p["bound"] * (1 + 1e-12)
    cal = ["audit", "depth", "--height", "15", "--epsilon", "1", "--delta", "0.05",
           "--tau", "40", "--count", "20", "--accountant", "tight", "--json"]
    assert main(cal) == 0


def test_theorem_5_5_at_depth_cli_audits_the_promised_epsilon_delta(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 28, sweep (CLI flags vs what the checker uses): with `--epsilon 1 --delta 1/20
    --accountant tight` at h = 15 the calibrated `λ` is 3203/10000, so no row `rλ` is at the
    promised `ε = 1`: the promised point must be audited itself, at the flags' `(ε, δ)`."""
    argv = ["audit", "depth", "--height", "15", "--epsilon", "1", "--delta", "1/20",
            "--tau", "24", "--count", "19", "--accountant", "tight", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    rows = [row for row in out["rows"] if "promised" not in row]
    assert "1" not in {row["eps"] for row in rows}  # no r*lambda is the promise
    promised = [row for row in out["rows"] if "promised" in row]
    assert len(promised) == 1 and promised[0]["eps"] == "1"
    assert promised[0]["bound_exact"] == "1/20" and promised[0]["holds"] is True
    assert promised[0]["count"] == 19 and out["claim"]["points"][-1]["eps"] == "1"
