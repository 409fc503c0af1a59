"""`betweencut margins`: numbers for one (h, eps, delta) checked by hand, contract, crossovers."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from betweencut.baselines.margins import MarginSetting, crossover, margin_row
from betweencut.cli import main
from betweencut.errors import ParameterError


def test_margins_by_hand_h3_eps1_delta_1_20() -> None:
    row = margin_row(MarginSetting.of("1", "1/20"), 3)  # beta 1/100, k = 2, tau 1000, M 1e5
    ln = math.log
    # BetweenCut: L = 2, r0 = 17, r = 2: E = 1 + 2(1 + ln 40).
    assert row["L"] == 2
    assert row["betweencut"] == pytest.approx(1 + 2 * (1 + ln(40)), rel=1e-12)
    assert row["eq25_L"] == pytest.approx(1 + 5 * ln(40) * (1 + ln(40)), rel=1e-12)
    assert row["eq25_log2h"] == pytest.approx(1 + 5 * ln(40) * (1 + ln(math.log2(3) * 20)))
    # Laplace: N = 7: 3·ln(7/(1/100)).
    assert row["laplace"] == pytest.approx(3 * ln(700), rel=1e-12)
    sigma = math.sqrt(2 * 3 * ln(25))
    assert row["gaussian"] == pytest.approx(sigma * math.sqrt(2 * ln(1400)), rel=1e-12)
    ghazi = 2 * 1e5 / 1000 * max(48 * ln(600), 6 * ln(1 + (math.exp(0.5) - 1) / 0.05))
    assert row["ghazi"] == pytest.approx(ghazi, rel=1e-12)
    lj = 1 + math.sqrt(2 * 2 * ln(50)) * math.sqrt(2 * ln(40))
    assert row["lumberjack"] == pytest.approx(lj, rel=1e-12)
    assert row["eq25_L_bounds_E"] is True and row["eq25_log2h_bounds_E"] is True


def test_eq25_log2h_undefined_at_h1() -> None:
    row = margin_row(MarginSetting.of("1", "1/20"), 1)
    assert row["eq25_log2h"] is None and row["eq25_log2h_bounds_E"] is None


def test_crossovers_eps1_delta_1_20() -> None:
    s = MarginSetting.of("1", "1/20")
    assert crossover(s, "laplace", 64).height == 2
    assert crossover(s, "gaussian", 64).height == 1
    c = crossover(s, "lumberjack", 64)
    lj = c.height
    assert lj is not None and lj == 2**191 and c.all_heights  # very deep trees
    from betweencut.numbers.certified import certified_compare

    assert certified_compare(s.betweencut(lj), s.lumberjack(lj)) < 0
    assert certified_compare(s.betweencut(lj - 1), s.lumberjack(lj - 1)) > 0
    # the crossover against Lumberjack does not depend on epsilon (both are 1 + (1/eps)(...))
    assert crossover(MarginSetting.of("1/10", "1/20"), "lumberjack").height == lj


def test_cli_contract_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["margins", "--epsilon", "1", "--delta", "0.05", "--heights", "3,15,1000", "--json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["h"] for r in data["rows"]] == [3, 15, 1000]
    assert {c["baseline"] for c in data["crossover"]} == {"laplace", "gaussian", "ghazi",
                                                          "lumberjack"}


@pytest.mark.parametrize("argv", [
    ["margins", "--epsilon", "2", "--delta", "0.05"],
    ["margins", "--epsilon", "1", "--delta", "0.5"],
    ["margins", "--epsilon", "1", "--delta", "0.05", "--heights", "0,3"],
    ["margins", "--epsilon", "1", "--delta", "0.05", "--beta", "1"],
    ["margins", "--epsilon", "x", "--delta", "0.05"],
])
def test_cli_bad_parameters_exit_2_one_line(argv: list[str],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_cli_table_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    png = tmp_path / "m.png"
    assert main(["margins", "--epsilon", "1/2", "--delta", "1/100", "--heights", "3,15",
                 "--max-log2-height", "40", "--plot", str(png)]) == 0
    assert png.stat().st_size > 1000
    assert "crossover" in capsys.readouterr().out


def test_setting_refuses_bad_input() -> None:
    with pytest.raises(ParameterError):
        MarginSetting.of(1, "1/20", arity=0)
    with pytest.raises(ParameterError):
        margin_row(MarginSetting.of(1, "1/20"), 0)
