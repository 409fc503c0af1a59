"""`betweencut audit privacy --mechanism MODULE:CALLABLE` (issue 12): user code from the command
line, the curve, regression mode, and one-line errors."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from betweencut.cli import main

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
TREE = ["--arity", "2", "--height", "3"]
USER = '''
from fractions import Fraction
from betweencut.noise.noisy_test import BTQuery

def one_test(db, test):
    return test(BTQuery(Fraction(len(db)), Fraction(1, 2), Fraction(1, 2), Fraction(1)))

def build(tree, params):
    from betweencut.mechanism.betweencut import BetweenCut
    return BetweenCut(tree, params)

def boom(db, test):
    raise RuntimeError("kaboom\\nsecond line")

def build_nothing(tree, params):
    return 42

value = 3
'''


@pytest.fixture
def user_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (tmp_path / "usermech_t.py").write_text(USER)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(EXAMPLES))
    return "usermech_t"


def _json(capsys: pytest.CaptureFixture[str]) -> dict:  # type: ignore[type-arg]
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_mechanism_contract_keys(user_module: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The contract line: a `(db, test)` function, one pair, JSON with the five keys."""
    argv = ["audit", "privacy", "--mechanism", f"{user_module}:one_test", "--db", "0/0",
            "--add", "0/1", *TREE, "--epsilon", "1", "--delta", "0", "--json"]
    assert main(argv) == 0
    out = _json(capsys)
    keys = {"holds", "epsilon_at_delta", "epsilon_at_delta_exact", "worst", "regressions"}
    assert keys <= set(out)
    assert out["holds"] is True and out["regressions"] == []
    assert out["epsilon_at_delta_exact"] == "1" and out["epsilon_at_delta"] == 1.0
    assert out["subject"]["kind"].startswith("function")
    assert {"D", "z", "eps", "delta", "delta_exact", "delta_in", "bound"} <= set(out["worst"])


def test_mechanism_refuted_claim_exits_1_with_counterexample(
    user_module: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["audit", "privacy", "--mechanism", f"{user_module}:one_test", "--db", "0/0",
            "--add", "0/1", *TREE, "--epsilon", "1/2", "--delta", "0", "--json"]
    assert main(argv) == 1
    out = _json(capsys)
    assert out["holds"] is False and out["refutation"]["eps"] == "1/2"
    assert {"P", "Q", "event", "D", "z"} <= set(out["refutation"])
    assert out["epsilon_at_delta"] > 0.5  # the curve says why: it needs eps = 1 at delta 0


def test_mechanism_regression_mode_on_the_readme_example(
    user_module: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The mechanism tutorial: `flag_v2` (λ doubled) still meets its claim (2, 0), but
    regresses against `flag`; `flag` against itself has no regression."""
    base = ["audit", "privacy", "--height", "3", "--exhaustive", "1", "--json"]
    assert main([*base, "--mechanism", "my_mechanism:flag_v2", "--baseline", "my_mechanism:flag",
                 "--epsilon", "2", "--delta", "0"]) == 1
    out = _json(capsys)
    assert out["holds"] is True and out["regressions"]
    first = out["regressions"][0]
    assert first["candidate_delta"] > first["baseline_delta"]
    assert {"eps_from_exact", "eps_to_exact", "witness_eps", "D", "z"} <= set(first)
    assert main([*base, "--mechanism", "my_mechanism:flag", "--baseline", "my_mechanism:flag",
                 "--epsilon", "1", "--delta", "0"]) == 0
    out = _json(capsys)
    assert out["regressions"] == [] and out["epsilon_at_delta_exact"] == "1/2"


def test_mechanism_builders_class_and_tree_function(
    user_module: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A class (`BetweenCut` itself) and a function whose first parameter is `tree` are
    builders: the same audit, the same exact numbers."""
    common = [*TREE, "--tau", "2", "--lam", "1/2", "--R", "1", "--db", "0/0", "--add", "0/0",
              "--on", "heavy", "--epsilon", "1", "--delta", "1/10", "--json"]
    results = []
    for spec in ("betweencut.mechanism.betweencut:BetweenCut", f"{user_module}:build",
                 "my_mechanism:TopDown"):
        assert main(["audit", "privacy", "--mechanism", spec, *common]) in (0, 1)
        out = _json(capsys)
        assert out["subject"]["kind"].startswith("builder")
        results.append(out)
    assert results[0]["epsilon_at_delta_exact"] == results[1]["epsilon_at_delta_exact"]
    assert results[0]["worst"] == results[1]["worst"]


def test_mechanism_search_is_deterministic(
    user_module: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["audit", "privacy", "--mechanism", "my_mechanism:flag", *TREE, "--search", "8",
            "--max-size", "2", "--epsilon", "1", "--delta", "0", "--json"]
    assert main(argv) == 0
    first = _json(capsys)
    assert main(argv) == 0
    assert _json(capsys) == first and first["pairs"] >= 1


@pytest.mark.parametrize("spec, words", [
    ("no_such_module_xyz:f", "did not import"),
    ("usermech_t:nope", "has no attribute"),
    ("usermech_t:value", "not callable"),
    ("usermech_t", "MODULE:CALLABLE"),
    ("usermech_t:boom", "raised RuntimeError"),
    ("usermech_t:build", "is a builder"),
    ("usermech_t:build_nothing", "without a run"),
])
def test_mechanism_errors_are_one_line_exit_2(
    user_module: str, capsys: pytest.CaptureFixture[str], spec: str, words: str
) -> None:
    argv = ["audit", "privacy", "--mechanism", spec, "--db", "0/0", "--add", "0/1", *TREE,
            "--epsilon", "1", "--delta", "0"]
    if spec.endswith("build_nothing"):
        argv += ["--tau", "2", "--lam", "1", "--R", "1"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize("extra, words", [
    (["--delta", "1", "--epsilon", "1", "--db", "", "--add", "0/0"], "0 <= delta < 1"),
    (["--epsilon", "1", "--db", "", "--add", "0/0"], "--delta is required"),
    (["--epsilon", "1", "--delta", "0"],
     "give exactly one of --db D --add z, --exhaustive N or --search N"),
    (["--epsilon", "1", "--delta", "0", "--db", "", "--add", "0/0", "--plot", "c.gif"],
     "unknown extension 'gif'"),
    (["--epsilon", "1", "--delta", "0", "--db", "", "--add", "0/0", "--on", "heavy"],
     "has no attribute 'heavy'"),
])
def test_mechanism_usage_errors(
    user_module: str, capsys: pytest.CaptureFixture[str], extra: list[str], words: str
) -> None:
    argv = ["audit", "privacy", "--mechanism", f"{user_module}:one_test", *TREE, *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1


def test_mechanism_plot_draws_the_curve(
    user_module: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    path = tmp_path / "curve.png"
    argv = ["audit", "privacy", "--mechanism", f"{user_module}:one_test", *TREE, "--db", "",
            "--add", "0/0", "--epsilon", "1", "--delta", "0", "--plot", str(path), "--json"]
    assert main(argv) == 0
    assert _json(capsys)["plot"] == str(path)
    assert path.read_bytes()[:4] == b"\x89PNG"


def test_builtin_pair_mode_reports_epsilon_at_delta(capsys: pytest.CaptureFixture[str]) -> None:
    """The built-in pair mode gives, beside each `(rλ, δ_r)`, the exact `ε_at_δ_r` (<= rλ when
    the row holds) and the curve."""
    argv = ["audit", "privacy", *TREE, "--lam", "0.5", "--R", "2", "--tau", "2", "--db",
            "0/0,0/1", "--add", "0/0", "--on", "heavy", "--json"]
    assert main(argv) == 0
    out = _json(capsys)
    rows = [row for row in out["rows"] if row["on"] == "heavy"]
    assert rows and all(row["on"] == "heavy" for row in out["rows"])
    for row in rows:
        assert row["holds"] and row["epsilon_at_delta"] <= float(Fraction(row["eps"]))
        assert isinstance(row["epsilon_at_delta_exact"], str)
    assert main(["audit", "privacy", *TREE, "--tau", "2", "--baseline", "m:f"]) == 2


@pytest.mark.slow
def test_docs_audit_commands_run_on_the_example(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every `betweencut audit privacy --mechanism` line of the mechanism tutorial and the
    shared-noise guide runs from `examples/` with the exit status the page states: `flag` holds
    (also with `--plot`), a claim of 1/4 is refuted, `flag_v2` regresses against `flag`; `svt`
    holds, `svt_no_query_noise` is refuted, `svt_sharp` regresses. (The `my_privtree` lines are
    run by `tests/core/cli/test_privtree_cli.py`; `tests/project/test_docs_examples.py` runs every
    page whole.) Slow: the default run has the same lines run by `test_docs_examples.py`, as
    the pages show them, with these statuses and their output (about 20 s of CPU)."""
    import shlex

    from docs_blocks import shown_commands

    prefix = "betweencut audit privacy --mechanism"
    lines = [*shown_commands("tutorials/audit-your-mechanism.md", prefix),
             *shown_commands("how-to/shared-noise.md", prefix)]
    mechanisms = [shlex.split(line)[4] for line, _ in lines]
    assert {"my_mechanism:flag", "my_mechanism:flag_v2", "my_svt:svt",
            "my_svt:svt_no_query_noise", "my_svt:svt_sharp"} <= set(mechanisms)
    monkeypatch.syspath_prepend(str(EXAMPLES))
    monkeypatch.chdir(tmp_path)
    statuses = []
    for line, _ in lines:
        argv = shlex.split(line.split(">")[0])[1:]
        statuses.append(main(argv))
        capsys.readouterr()
    assert statuses == [status for _, status in lines]
    assert 0 in statuses and 1 in statuses
    assert (tmp_path / "curve.png").exists()


def test_builtin_exhaustive_mode_reports_epsilon_at_delta(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["audit", "privacy", *TREE, "--lam", "1", "--R", "1", "--tau", "1",
            "--exhaustive", "0", "--on", "heavy", "--json"]
    assert main(argv) == 0
    worst = _json(capsys)["worst"]
    assert isinstance(worst["epsilon_at_delta_exact"], str) and worst["epsilon_at_delta"] >= 0


def test_mechanism_builder_whole_run_as_output(
    user_module: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A builder's `run` returns a `Run` (a dataclass holding a dict): `--on output` audits it
    whole (made hashable field by field), no `TypeError`."""
    argv = ["audit", "privacy", "--mechanism", "my_mechanism:TopDown", *TREE, "--tau", "2",
            "--lam", "1/2", "--R", "1", "--db", "0/0", "--add", "0/0", "--epsilon", "1",
            "--delta", "1/10", "--json"]
    assert main(argv) == 0
    out = _json(capsys)
    assert out["claim"]["releases"] == ["output"] and out["holds"] is True and out["rows"]


RECORDING = '''
SEEN = []

def build(tree, params):
    from betweencut.mechanism.betweencut import BetweenCut
    SEEN.append(params)
    return BetweenCut(tree, params)
'''


def test_theorem_5_5_builder_is_calibrated_by_the_accountant_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 28, sweep (CLI flags vs what the checker uses): a builder calibrated from
    `--epsilon/--delta` gets the parameters of the `--accountant` named (tight: its own `λ`,
    `R`), not Theorem 5.5's whatever the flag says; the claim audited is the flags' `(ε, δ)`."""
    import importlib

    from betweencut.proofs.privacy.accountants.tight_calibration import calibrate_tight

    (tmp_path / "recording_t.py").write_text(RECORDING)
    monkeypatch.syspath_prepend(str(tmp_path))
    argv = ["audit", "privacy", "--mechanism", "recording_t:build", *TREE, "--tau", "2",
            "--epsilon", "1", "--delta", "1/20", "--accountant", "tight", "--db", "0/0",
            "--add", "0/1", "--json"]
    assert main(argv) == 0
    out = _json(capsys)
    seen = importlib.import_module("recording_t").SEEN
    cal = calibrate_tight(3, 1, Fraction(1, 20))
    assert [(p.lam, p.R) for p in seen] == [(cal.lam, cal.R)]
    assert out["claim"]["text"] == "(1, 1/20)-DP" and out["holds"] is True


@pytest.mark.parametrize("extra", [["--tau", "2", "--lam", "1/2", "--R", "2"],
                                   ["--accountant", "tight"]])
def test_mechanism_function_refuses_parameter_flags_it_would_not_use(
    user_module: str, extra: list[str], capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 28, sweep (CLI flags vs what the checker uses): a function `(db, test)` takes no
    parameters, so `--tau/--lam/--R` or `--accountant tight` would be silently ignored while
    the report reads as if they had been used: exit 2, one line (a builder uses them)."""
    argv = ["audit", "privacy", "--mechanism", f"{user_module}:one_test", "--db", "0/0",
            "--add", "0/1", *TREE, "--epsilon", "1", "--delta", "0", *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "builder" in err[0]
