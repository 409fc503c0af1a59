"""The command line end to end: `betweencut.cli.main` in-process, and the console script.

Every bad input exits 2 with one line on stderr and no traceback (issue 2, "Bad input").
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import pytest

from betweencut.cli import main

PRIVACY = ["--epsilon", "1", "--delta", "0.05"]
needs_script = pytest.mark.skipif(shutil.which("betweencut") is None,
                                  reason="the betweencut console script is not installed")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def assert_one_line_error(status: int, out: str, err: str, *words: str) -> None:
    assert status == 2, (out, err)
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert lines[0].startswith("betweencut")
    for word in words:
        assert word in lines[0], (word, lines[0])


def diagnostics(err: str) -> dict[str, object]:
    """The data holder's diagnostics printed on stderr by `--diagnostics --json`."""
    lines = err.strip().splitlines()
    assert lines[0].startswith("diagnostics (NOT differentially private"), err
    parsed: dict[str, object] = json.loads(lines[1])
    return parsed


@pytest.fixture
def leaf_file(tmp_path: Path) -> Path:
    path = tmp_path / "leaves.txt"
    path.write_text("0/0/0\n0/0/1\n0/0/1\n1/1/0\n", encoding="utf-8")
    return path


# -- classify -------------------------------------------------------------------------------
def test_cli_classify_small_leaf_file_dense(capsys: pytest.CaptureFixture[str],
                                            leaf_file: Path) -> None:
    status, out, err = run(capsys, "classify", str(leaf_file), "--height", "4", "--tau", "1",
                           *PRIVACY, "--json", "--seed", "5", "--diagnostics")
    assert status == 0, err
    data = json.loads(out)
    assert data["implementation"].startswith("dense")
    assert diagnostics(err)["records"] == 4 and "records" not in data
    assert data["calibration"]["L"] == 3 and data["calibration"]["r"] == 3
    assert data["seeded"] is True
    # Lemma B.1: the Heavy set is ancestor-closed, whatever the noise said.
    heavy = set(data["heavy"])
    for name in heavy:
        parts = name.strip("/").split("/") if name != "/" else []
        for i in range(len(parts)):
            assert ("/" + "/".join(parts[:i]) if i else "/") in heavy, (name, heavy)


def test_cli_classify_text_output(capsys: pytest.CaptureFixture[str], leaf_file: Path) -> None:
    status, out, _ = run(capsys, "classify", str(leaf_file), "--height", "4", "--tau", "1",
                         *PRIVACY, "--seed", "5")
    assert status == 0
    assert "margin E" in out and "Heavy nodes" in out and "lambda = 1/3" in out


def test_cli_classify_embedded_dataset_sparse_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "classify", "--tau", "30", *PRIVACY, "--json", "--seed", "1",
                           "--diagnostics")
    assert status == 0, err
    data = json.loads(out)
    for key in ("heavy", "tree", "tau", "implementation", "calibration", "E",
                "E_exact", "seeded", "heavy_count", "light_count", "accountant"):
        assert key in data, key
    assert data["implementation"].startswith("sparse")
    assert data["nodes"] == 4706 and data["light_count"] == 4706 - data["heavy_count"]
    assert int(str(diagnostics(err)["records"])) > 100_000 and "Unicode" in data["tree"]
    assert "/" in data["heavy"] and "/L" in data["heavy"]  # far above tau + E
    # h = 5: L = 3, r0 = 17, r = 3, w = 3, R = 1 + 3 ln(3/(1/20)), E = w + R = 4 + 3 ln 60.
    assert data["E_exact"] == "4 + 3*log(60)"
    assert math.isclose(data["E"], 4 + 3 * math.log(60))


def test_cli_classify_seed_reproducible(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["classify", "--tau", "30", *PRIVACY, "--json", "--diagnostics"]
    _, out1, err1 = run(capsys, *argv, "--seed", "11")
    _, out2, err2 = run(capsys, *argv, "--seed", "11")
    assert out1 == out2
    draws = diagnostics(err1)["noisy_draws"]
    assert draws == diagnostics(err2)["noisy_draws"] and int(str(draws)) > 0


def test_cli_classify_empty_input_is_a_valid_empty_answer(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """An empty file is a valid database with n = 0. Sparse (τ >= E): every count is 0 and
    guarded `L`, the answer is empty. Dense (τ < E): the mechanism still runs, since n is private;
    a noisy root test may say `H` (an empty input must not be short-circuited, that would leak)."""
    empty = tmp_path / "empty.txt"
    empty.write_text("", encoding="utf-8")
    status, out, err = run(capsys, "classify", str(empty), "--height", "4", "--tau", "100",
                           *PRIVACY, "--json", "--diagnostics")
    assert status == 0, err
    data, diag = json.loads(out), diagnostics(err)
    assert diag["records"] == 0 and data["heavy"] == [] and diag["noisy_draws"] == 0
    status, out, err = run(capsys, "classify", str(empty), "--height", "4", "--tau", "1",
                           *PRIVACY, "--json", "--seed", "0", "--diagnostics")
    assert status == 0, err
    data, diag = json.loads(out), diagnostics(err)
    assert diag["records"] == 0 and data["implementation"].startswith("dense")
    assert int(str(diag["noisy_draws"])) >= 1


def test_cli_classify_prefix_records(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "paths.txt"
    path.write_text("a/b\na\nb/b/a\n", encoding="utf-8")
    status, out, err = run(capsys, "classify", str(path), "--height", "4", "--alphabet", "a,b",
                           "--tau", "1", *PRIVACY, "--json", "--seed", "2", "--diagnostics")
    assert status == 0, err
    assert diagnostics(err)["records"] == 3 and json.loads(out)["nodes"] == 22


# -- calibrate ------------------------------------------------------------------------------
def test_cli_calibrate_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "calibrate", "--height", "15", *PRIVACY, "--json")
    assert status == 0, err
    data = json.loads(out)
    big_r = 1 + 4 * math.log(80)
    want = {"L": 4, "r0": 17, "r": 4, "lambda": 0.25, "w": 4, "R": big_r, "E": 4 + big_r}
    for key, value in want.items():
        assert isinstance(data[key], int | float), key
        assert math.isclose(data[key], value, rel_tol=1e-12), key
    assert data["R_exact"] == "1 + 4*log(80)"
    assert data["E_exact"] == "5 + 4*log(80)"
    assert data["lambda_exact"] == "1/4" and data["delta_exact"] == "1/20"


def test_cli_calibrate_text(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "calibrate", "--height", "15", *PRIVACY)
    assert status == 0
    assert "1 + 4*log(80)" in out and "r0" in out


# -- bad input: exit 2, one line, no traceback ----------------------------------------------
@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["calibrate", "--height", "15", "--epsilon", "1.5", "--delta", "0.05"], ["epsilon"]),
        (["calibrate", "--height", "15", "--epsilon", "0", "--delta", "0.05"], ["epsilon"]),
        (["calibrate", "--height", "15", "--epsilon", "1", "--delta", "0.1"], ["delta"]),
        (["calibrate", "--height", "15", "--epsilon", "1", "--delta", "0"], ["delta"]),
        (["calibrate", "--height", "0", *PRIVACY], ["height"]),
        (["calibrate", "--height", "15", "--epsilon", "x", "--delta", "0.05"], ["epsilon"]),
        (["classify", "--tau", "abc", *PRIVACY], ["tau"]),
        (["classify", "--tau", "-1", *PRIVACY], ["tau"]),
        (["classify", "--tau", "30", "--epsilon", "2", "--delta", "0.05"], ["epsilon"]),
        (["classify", "--tau", "30", "--epsilon", "1", "--delta", "0.2"], ["delta"]),
        (["frobnicate"], ["frobnicate"]),
        ([], ["command"]),
        (["calibrate", "--epsilon", "1"], ["required"]),
    ],
)
def test_cli_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str],
                                 words: list[str]) -> None:
    assert_one_line_error(*run(capsys, *argv), *words)


def test_cli_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "missing.txt"
    result = run(capsys, "classify", str(missing), "--height", "4", "--tau", "1", *PRIVACY)
    assert_one_line_error(*result, "missing.txt")


def test_cli_missing_height_with_input(capsys: pytest.CaptureFixture[str],
                                       leaf_file: Path) -> None:
    result = run(capsys, "classify", str(leaf_file), "--tau", "1", *PRIVACY)
    assert_one_line_error(*result, "--height")


def test_cli_malformed_record_names_its_line(capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("0/0/0\n0/1/1\n0//1\n", encoding="utf-8")
    result = run(capsys, "classify", str(bad), "--height", "4", "--tau", "1", *PRIVACY)
    assert_one_line_error(*result, "line 3", "empty path component")
    bad.write_text("0/0/0\n\n0/1/1\n", encoding="utf-8")
    result = run(capsys, "classify", str(bad), "--height", "4", "--tau", "1", *PRIVACY)
    assert_one_line_error(*result, "line 2", "empty record")


def test_cli_record_too_deep_names_line_2(capsys: pytest.CaptureFixture[str],
                                          tmp_path: Path) -> None:
    deep = tmp_path / "deep.txt"
    deep.write_text("0/0/0\n0/0/0/0/1\n", encoding="utf-8")
    result = run(capsys, "classify", str(deep), "--height", "4", "--tau", "1", *PRIVACY)
    assert_one_line_error(*result, "line 2", "deeper")


def test_cli_short_record_in_kary_tree_refused(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    short = tmp_path / "short.txt"
    short.write_text("0/0/0\n0/1\n", encoding="utf-8")
    result = run(capsys, "classify", str(short), "--height", "4", "--tau", "1", *PRIVACY)
    assert_one_line_error(*result, "line 2")


def test_cli_embedded_dataset_refuses_height(capsys: pytest.CaptureFixture[str]) -> None:
    result = run(capsys, "classify", "--height", "7", "--tau", "30", *PRIVACY)
    assert_one_line_error(*result, "embedded")


# -- help and audit -------------------------------------------------------------------------
@pytest.mark.parametrize("argv", [[], ["classify"], ["calibrate"], ["audit"],
                                  ["audit", "calibration"]])
def test_cli_help_shows_an_example(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([*argv, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "example:" in out
    assert "betweencut " + " ".join(argv) in out


@pytest.mark.slow  # the whole audit grows with every checker; `-m slow` runs it
def test_cli_audit_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "audit")
    assert status == 0, out + err
    assert "Theorem 5.5" in out and "holds" in out


def test_cli_audit_calibration_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "audit", "calibration", "--json")
    assert status == 0
    data = json.loads(out)
    assert data["holds"] is True
    assert {row["claim"] for row in data["rows"]} >= {"Theorem 5.5", "Theorem 5.6"}


# -- the console script ---------------------------------------------------------------------
@needs_script
def test_cli_script_calibrate_and_error(tmp_path: Path) -> None:
    done = subprocess.run(["betweencut", "calibrate", "--height", "15", *PRIVACY, "--json"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["r0"] == 17
    bad = subprocess.run(["betweencut", "classify", str(tmp_path / "nope.txt"), "--height", "4",
                          "--tau", "1", *PRIVACY], capture_output=True, text=True, timeout=60,
                         check=False)
    assert bad.returncode == 2
    assert "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


@needs_script
def test_cli_script_broken_pipe_is_quiet(tmp_path: Path) -> None:
    """`betweencut classify ... | head -1`: no 'Broken pipe' message, no traceback."""
    records = tmp_path / "many.txt"
    records.write_text("".join(f"0/1/{i % 2}/0\n" for i in range(3000)), encoding="utf-8")
    script = (f"betweencut classify {records} --height 5 --tau 1 --epsilon 1 --delta 0.05 "
              "--seed 3 | head -1")
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.stdout.startswith("BetweenCut release:") and len(done.stdout.splitlines()) == 1
    assert done.stderr == ""


def test_cli_commands_other_than_audit_do_not_load_the_checkers() -> None:
    """`calibrate` and `--help` start without importing every checker (the audit groups are
    built only when the command line names `audit`); `audit --help` still lists them all."""
    import sys

    probe = ("import sys; from betweencut.cli import main; main({argv!r}); "
             "print('CHECKERS' if 'betweencut.proofs.checkers' in sys.modules else 'LIGHT')")

    def run(argv: list[str]) -> str:
        done = subprocess.run([sys.executable, "-c", probe.format(argv=argv)],
                              capture_output=True, text=True, check=False)
        return done.stdout.strip().splitlines()[-1]
    assert run(["calibrate", "--epsilon", "1", "--delta", "0.05", "--height", "15"]) == "LIGHT"
    out = subprocess.run([sys.executable, "-m", "betweencut.cli", "audit", "--help"],
                         capture_output=True, text=True, check=False).stdout
    for group in ("privacy", "depth", "corpus", "calibration"):
        assert group in out
