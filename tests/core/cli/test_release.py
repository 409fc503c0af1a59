"""The release says nothing but the answer (issue 18): stdout of `classify` holds the Heavy set
and public inputs only; record count, draws and time go to stderr with `--diagnostics`."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

import betweencut
from betweencut.cli import main
from betweencut.cli._common import StatusLine
from betweencut.cli.release import (
    DIAGNOSTIC_KEYS,
    DIAGNOSTICS_HEADER,
    PUBLIC_KEYS,
    ReleaseLeak,
)
from betweencut.data.tree import kary_tree
from betweencut.errors import ParameterError
from betweencut.mechanism import public_release as release_module
from betweencut.mechanism.classifier import Classification, Diagnostics, classify
from betweencut.mechanism.public_release import release_dict

PRIVACY = ["--epsilon", "1", "--delta", "0.05"]
D = ["0/0/0", "0/0/1", "0/0/1", "1/1/0", "1/1/0", "1/0/1"]
NEIGHBOURS = ["0/0/0", "1/1/1", "0/1/0"]  # the added record z of D + z


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            status = main(list(argv))
        except SystemExit as exc:  # --help
            status = int(exc.code or 0)
    return status, out.getvalue(), err.getvalue()


def _write(path: Path, records: list[str]) -> Path:
    path.write_text("".join(r + "\n" for r in records), encoding="utf-8")
    return path


@pytest.mark.parametrize("tau", ["1", "30"])  # dense (tau < E) and sparse (tau >= E)
def test_release_bytes_agree_on_neighbours_whenever_the_heavy_sets_agree(
        tmp_path: Path, tau: str) -> None:
    """For D and D + z under one seed: equal Heavy sets imply byte-identical releases, text and
    JSON (so no data-dependent value can hide in the release); the implication is exercised."""
    agreeing = 0
    base = _write(tmp_path / "d.txt", D * 6)
    for z in NEIGHBOURS:
        plus = _write(tmp_path / "dz.txt", [*D * 6, z])
        for seed in range(6):
            common = ["--height", "4", "--tau", tau, *PRIVACY, "--seed", str(seed)]
            outs = {}
            for path in (base, plus):
                s1, js, _ = _run("classify", str(path), *common, "--json")
                s2, text, _ = _run("classify", str(path), *common)
                assert s1 == s2 == 0
                outs[path] = (json.loads(js)["heavy"], js, text)
            (h0, j0, t0), (h1, j1, t1) = outs[base], outs[plus]
            if h0 == h1:
                agreeing += 1
                assert j0 == j1 and t0 == t1
    assert agreeing > 0


def test_release_keys_are_on_the_public_allow_list(tmp_path: Path) -> None:
    path = _write(tmp_path / "d.txt", D)
    status, out, err = _run("classify", str(path), "--height", "4", "--tau", "1", *PRIVACY,
                            "--json", "--seed", "3")
    assert status == 0 and err == ""
    data = json.loads(out)
    assert set(data) <= PUBLIC_KEYS
    assert not (set(data) & DIAGNOSTIC_KEYS)
    assert data["accountant"] == "paper" and data["heavy_count"] == len(data["heavy"])
    assert data["light_count"] == data["nodes"] - data["heavy_count"] == 15 - len(data["heavy"])


def test_release_allow_list_can_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """The allow-list check rejects a key it does not list (here: 'heavy' removed from it)."""
    result = classify(kary_tree(2, 3), [(0, 0)], tau=1, epsilon=1, delta="0.05", seed=1)
    monkeypatch.setattr(release_module, "PUBLIC_KEYS", PUBLIC_KEYS - {"heavy"})
    with pytest.raises(ReleaseLeak):
        release_dict(result)


def test_diagnostics_only_on_request_on_stderr_under_the_warning(tmp_path: Path) -> None:
    path = _write(tmp_path / "d.txt", D)
    argv = ["classify", str(path), "--height", "4", "--tau", "1", *PRIVACY, "--seed", "3"]
    _, plain, plain_err = _run(*argv)
    status, out, err = _run(*argv, "--diagnostics")
    assert status == 0 and out == plain and plain_err == ""
    lines = err.splitlines()
    assert lines[0] == DIAGNOSTICS_HEADER and "NOT differentially private" in lines[0]
    assert lines[1].strip() == f"records: {len(D)}"
    assert any(line.strip().startswith("noisy_draws:") for line in lines)
    for word in ("records", "draws", "seconds"):
        assert word not in out


def test_text_release_states_the_guarantee_in_the_fields_terms(tmp_path: Path) -> None:
    path = _write(tmp_path / "d.txt", D)
    _, out, _ = _run("classify", str(path), "--height", "4", "--tau", "1", *PRIVACY, "--seed", "1")
    assert "(eps, delta)-differential privacy for adding or removing one record" in out
    assert "with probability 1, every node with count >= tau + E is Heavy" in out
    assert "every node with count <= tau - E is Light" in out
    assert "nodes in between may go either way" in out
    for term in ("r = min(L, r0)", "w = r/eps = 1/lambda", "R = 1 + w*ln(L/delta)"):
        assert sum(line.strip().startswith(term) for line in out.splitlines()) == 1, term
    _, help_text, _ = _run("classify", "--help")
    assert "r = min(L, r0)" in help_text


def test_progress_messages_are_on_stderr_and_public(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 25: every message is shown (no timing decides which), the elapsed time only when
    asked for (`--diagnostics`: it depends on the data)."""
    status = StatusLine("classify", force=True)
    status("level 3 of 15 (depth 7)")
    status("level 4 of 15 (depth 11)")
    err = capsys.readouterr().err
    assert err == "classify: level 3 of 15 (depth 7)\nclassify: level 4 of 15 (depth 11)\n"
    timed = StatusLine("classify", force=True, elapsed=True)
    timed.start -= 5
    timed("level 1 of 15 (depth 7)")
    assert capsys.readouterr().err == "classify: level 1 of 15 (depth 7) (5 s)\n"
    quiet = StatusLine("classify")  # stderr is not a terminal here: nothing
    quiet("level 1 of 15 (depth 7)")
    quiet.close()
    assert capsys.readouterr().err == ""


def test_library_classify_keeps_diagnostics_apart() -> None:
    result = betweencut.classify(kary_tree(2, 4), [(0, 0, 1)] * 40, tau=1, epsilon=1,
                                 delta="1/20", seed=2)
    assert isinstance(result, Classification) and isinstance(result.diagnostics, Diagnostics)
    assert result.diagnostics.records == 40
    assert () in result.heavy  # 40 >= tau + E at the root: Heavy with probability 1
    assert not (set(release_dict(result)) & DIAGNOSTIC_KEYS)


def test_library_entry_points_and_version() -> None:
    assert isinstance(betweencut.__version__, str) and betweencut.__version__
    for name in ("classify", "calibrate", "audit", "__version__"):
        assert name in betweencut.__all__
    assert callable(betweencut.audit) and callable(betweencut.calibrate)


@pytest.mark.parametrize("name", ["tau", "epsilon", "delta"])
def test_library_refuses_float_parameters_and_says_how_to_pass_them(name: str) -> None:
    kwargs: dict[str, object] = {"tau": 1, "epsilon": 1, "delta": "0.05"}
    kwargs[name] = 0.05
    with pytest.raises(ParameterError) as info:
        betweencut.classify(kary_tree(2, 3), [], **kwargs)  # type: ignore[arg-type]
    assert "Fraction" in str(info.value) and "string" in str(info.value)
    with pytest.raises(ParameterError, match="Fraction"):
        betweencut.calibrate(15, 1, 0.05)
