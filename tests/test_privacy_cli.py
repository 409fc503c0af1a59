"""`betweencut audit privacy` (issue 4): the JSON contract, usage errors, exhaustive mode."""

from __future__ import annotations

import json

import pytest

from betweencut.cli import main
from betweencut.params import Params
from betweencut.proofs.privacy.search import search_worst_pair
from betweencut.tree import kary_tree

CONTRACT = ["audit", "privacy", "--arity", "2", "--height", "3", "--lam", "0.5", "--R", "2",
            "--tau", "2", "--db", "0/0,0/1", "--add", "0/0", "--json"]


def test_lemma_c_1_cli_contract(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(CONTRACT) == 0
    out = json.loads(capsys.readouterr().out)
    for name in ("transcript", "heavy"):
        rows = out[name]["rows"]
        assert [row["r"] for row in rows] == [1, 2]
        for row in rows:
            assert {"r", "eps", "delta", "delta_exact", "bound", "holds"} <= set(row)
            assert isinstance(row["delta"], float) and isinstance(row["delta_exact"], str)
            assert row["holds"] is True
    assert {row["r"] for row in out["rows"]} == {1, 2}
    assert out["transcript"]["rows"][0]["delta_exact"] == "(-1/4)*exp(-3/2) + (1/4)*exp(-1)"


@pytest.mark.parametrize("argv", [
    ["audit", "privacy", "--height", "3", "--lam", "1"],
    ["audit", "privacy", "--height", "3", "--tau", "1", "--lam", "1", "--R", "1",
     "--db", "0/3", "--add", "0/0"],
    ["audit", "privacy", "--height", "3", "--tau", "1", "--lam", "2", "--R", "1",
     "--db", "", "--add", "0/0"],
    ["audit", "privacy", "--height", "3", "--tau", "1", "--lam", "1", "--R", "1",
     "--epsilon", "1", "--delta", "0.05", "--db", "", "--add", "0/0"],
])
def test_theorem_5_4_cli_bad_usage_exits_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_theorem_5_5_cli_calibrated(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["audit", "privacy", "--height", "3", "--epsilon", "1", "--delta", "0.05",
            "--tau", "2", "--db", "0/0", "--add", "0/1", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["transcript"]["promised"]["holds"] is True


def test_theorem_5_4_cli_exhaustive(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["audit", "privacy", "--height", "2", "--tau", "1", "--lam", "1", "--R", "1",
            "--exhaustive", "2", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["pairs"] == 12 and out["holds"] is True
    assert "worst_pair" in out["heavy"]


def test_theorem_5_4_search_mode_finds_a_tight_pair() -> None:
    result = search_worst_pair(kary_tree(2, 3), Params.of(1, 1, 1), max_examples=15)
    assert result.refutation is None and result.worst is not None and result.tried >= 1
    lo, hi = result.worst.tightness()
    assert 0 < lo <= hi <= 1


def test_theorem_5_4_search_mode_refutes_a_broken_variant() -> None:
    from betweencut.proofs.privacy.gallery import GuardsWithoutR

    result = search_worst_pair(kary_tree(2, 2), Params.of(2, 1, 3), max_examples=30,
                               variant=GuardsWithoutR)
    assert result.refutation is not None
    assert result.refutation.counterexample()["excess_approx"] > 0
