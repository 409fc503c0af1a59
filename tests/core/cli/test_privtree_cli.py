"""`betweencut audit privacy --mechanism MODULE:CALLABLE` on a PrivTree factory (issue 16): the
closed-cell rule is refuted with the pair (multiplicities), event and exact P and Q; the
half-open rule holds at its eps over every database of at most N points, with the curve and
epsilon_at_delta; bad usage is one line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from betweencut.cli import main
from betweencut.proofs.baselines.privtree_checks.privtree_audit import PrivTreeLawCache, as_points
from betweencut.proofs.baselines.privtree_checks.privtree_search import privtree_rules
from betweencut.proofs.exact.arith import exact_str

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
KEYS = {"schema", "version", "audit", "subject", "claim", "pairs", "holds", "worst",
        "refutation", "rows", "regressions", "epsilon_at_delta", "epsilon_at_delta_exact",
        "epsilon_at_delta_pair", "curve"}  # the one verdict shape
USER = '''
from betweencut.baselines.privtree import PrivTree

def not_a_tree():
    return 42

def defaults_only(db=(), test=None):
    return len(db)

def broken_rule():
    def member(point, box):
        raise RuntimeError("rule failed")
    return PrivTree.of(((0, 8),), 1, member=member)
'''


CLAIM = ("--epsilon", "1", "--delta", "0")  # the claim is given, never read off the PrivTree


@pytest.fixture(autouse=True)
def examples(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "userprivtree_t.py").write_text(USER)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(EXAMPLES))


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    code = main(["audit", "privacy", *argv, *(() if "--epsilon" in argv else CLAIM), "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_cli_refutes_the_closed_cell_rule_with_two_copies_of_a_point(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _run(capsys, "--mechanism", "my_privtree:privtree_closed", "--search", "2")
    assert code == 1 and set(out) >= KEYS and out["holds"] is False
    w = out["refutation"]
    assert w["D"] == "{4*2}" and w["z"] == "4" and out["worst"]["D"] == "{4*2}"
    assert w["event_size"] == 1 and w["event"][0].startswith("{")
    assert out["claim"]["text"] == "(1, 0)-DP"
    # the exact P and Q are those of the pair, enumerated by the decomposition
    mech = privtree_rules()["closed"]
    stick = PrivTreeLawCache(mech).divergence(as_points({(4,): 2}), (4,), "output", 1)
    assert (w["P"], w["Q"]) == (exact_str(stick.p_event), exact_str(stick.q_event))
    assert 1.22 < out["epsilon_at_delta"] < 1.23 and out["curve"]


def test_cli_closed_rule_passes_every_database_of_one_point(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _run(capsys, "--mechanism", "my_privtree:privtree_closed", "--exhaustive", "1")
    assert code == 0 and out["holds"] is True and "listed" in out["subject"]["covered"]


def test_cli_half_open_rule_holds_at_its_eps_over_every_database_of_20_points(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _run(capsys, "--mechanism", "my_privtree:privtree", "--exhaustive", "20")
    assert code == 0 and set(out) >= KEYS and out["holds"] is True
    assert "count DP" in out["subject"]["covered"] and out["pairs"] == 1
    assert out["epsilon_at_delta_pair"] == {"D": "{0*2}", "z": "0", "on": "output",
                                            "delta_exact": "0"}
    assert 0.661 < out["epsilon_at_delta"] < 0.662 and out["curve"]
    code, out = _run(capsys, "--mechanism", "my_privtree:privtree", "--db", "0*2",
                     "--add", "0", "--epsilon", "1/2", "--delta", "0")
    assert code == 1 and out["worst"]["D"] == "{0*2}" and out["worst"]["delta"] > 0


def test_cli_search_reports_the_largest_loss_over_every_pair_it_covers(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 27: on `[0, 16)` the closed rule's `--search 4` reported 1.2290 (the pair of the
    first refutation); `epsilon_at_delta` is the largest over every pair covered, 1.3395 at
    four copies of 8 and a fifth, and the refutation is that pair."""
    code, out = _run(capsys, "--mechanism", "my_privtree:privtree_closed_16", "--search", "4")
    assert code == 1 and out["epsilon_at_delta"] >= 1.3395
    assert out["epsilon_at_delta_pair"]["D"] == "{8*4}" and out["epsilon_at_delta_pair"]["z"] == "8"
    assert out["refutation"]["D"] == "{8*4}" and out["curve"]
    assert out["pairs"] > 1000 and "2 distinct points" in out["subject"]["covered"]
    assert out["subject"]["databases"] == 1 + 16 * 4 + 120 * 4 * 3 // 2


DEEP = """
from betweencut.baselines.privtree import PrivTree
from betweencut.proofs.baselines.privtree_checks.privtree_search import closed_member


def closed_32():
    return PrivTree.of(((0, 32),), 1, member=closed_member)


def closed_2_20():
    return PrivTree.of(((0, 1 << 20),), 1, member=closed_member)


def half_open_2_20():
    return PrivTree.of(((0, 1 << 20),), 1)
"""


def test_cli_one_pair_on_32_cells_costs_the_path_not_the_domain(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 27: `--db 16*4 --add 16` on `[0, 32)` ran past 100 s (the curve re-enumerated the
    whole run, 458,330 answer sequences); now the pair's laws are cut back to `T_z`."""
    (tmp_path / "deep_privtree_t.py").write_text(DEEP)
    code, out = _run(capsys, "--mechanism", "deep_privtree_t:closed_32", "--db", "16*4",
                     "--add", "16")
    assert code == 1 and 1.3395 < out["epsilon_at_delta"] < 1.3396 and out["curve"]


def test_cli_searches_copies_of_one_point_on_2_20_cells_by_symmetry(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Half-open cells on `[0, 2^20)`: every database of at most 30 copies of one point holds
    at ε = 1 (the listing would pass the cap and is left out)."""
    (tmp_path / "deep_privtree_t.py").write_text(DEEP)
    code, out = _run(capsys, "--mechanism", "deep_privtree_t:half_open_2_20", "--search", "30")
    assert code == 0 and out["holds"] is True and "by symmetry" in out["subject"]["covered"]
    assert out["epsilon_at_delta_pair"]["D"] == "{0*27}" and out["epsilon_at_delta"] > 0.7456
    assert out["subject"]["databases"] == 1 + 30 * 2**20
    # a claim with delta > 0 is not searched by symmetry, and the listing refuses: one line
    assert main(["audit", "privacy", "--mechanism", "deep_privtree_t:half_open_2_20",
                 "--search", "30", "--epsilon", "1", "--delta", "1/100"]) == 2
    err = capsys.readouterr().err.strip()
    assert "error:" in err and "\n" not in err


def test_a_function_with_defaulted_db_and_test_is_not_taken_for_a_privtree_factory() -> None:
    from betweencut.api.load import PRIVTREE, resolve

    assert resolve("userprivtree_t:defaults_only").kind != PRIVTREE
    assert resolve("my_privtree:privtree").kind == PRIVTREE


def test_cli_text_report(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["audit", "privacy", "--mechanism", "my_privtree:privtree_closed", "--db",
                 "4*2", "--add", "4", *CLAIM])
    text = capsys.readouterr().out
    assert code == 1 and "REFUTED" in text and "D = {4*2}, z = 4" in text


@pytest.mark.parametrize("argv", [
    ["--mechanism", "my_privtree:privtree", "--exhaustive", "2", "--height", "3"],
    ["--mechanism", "my_privtree:privtree", "--exhaustive", "2", "--baseline", "x:y"],
    ["--mechanism", "my_privtree:privtree", "--exhaustive", "2", "--on", "heavy"],
    ["--mechanism", "my_privtree:privtree"],
    ["--mechanism", "my_privtree:privtree", "--db", "9", "--add", "0"],
    ["--mechanism", "my_privtree:privtree", "--db", "0*x", "--add", "0"],
    ["--mechanism", "my_privtree:privtree", "--db", "0*0", "--add", "0"],
    ["--mechanism", "my_privtree:privtree", "--db", "0", "--add", "1/2"],
    ["--mechanism", "my_privtree:privtree", "--search", "-1"],
    ["--mechanism", "my_privtree:privtree_closed", "--exhaustive", "100"],
    ["--mechanism", "my_privtree:privtree", "--exhaustive", "2", "--epsilon", "-1"],
    ["--mechanism", "userprivtree_t:not_a_tree", "--exhaustive", "1"],
    ["--mechanism", "userprivtree_t:broken_rule", "--exhaustive", "1"],
    ["--mechanism", "my_privtree:privtree", "--search", "3", "--max-size", "5"],
    ["--mechanism", "my_privtree:privtree", "--exhaustive", "2", "--accountant", "tight"],
])
def test_cli_privtree_bad_usage_is_one_line(argv: list[str],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    claim = () if "--epsilon" in argv or argv[-1] == "my_privtree:privtree" else CLAIM
    assert main(["audit", "privacy", *argv, *claim]) == 2
    err = capsys.readouterr().err.strip()
    assert "error:" in err and "\n" not in err and "Traceback" not in err


@pytest.mark.slow
def test_docs_privtree_commands_run_on_the_example(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Every line of the PrivTree guide auditing `my_privtree` runs with the exit status the
    page states: the half-open rule holds over every database of 100 points, the closed rule is
    refuted three times. Slow: the default run has these lines run as the page shows them, with
    these statuses and their output, by `tests/project/test_docs_examples.py`
    (`docs/how-to/privtree.md`), and the costliest (`--search 4` on `[0, 16)`) again by
    `test_cli_search_reports_the_largest_loss_over_every_pair_it_covers` (about 30 s of CPU)."""
    import shlex

    from docs_blocks import shown_commands

    lines = shown_commands("how-to/privtree.md",
                           "betweencut audit privacy --mechanism my_privtree:")
    assert [status for _, status in lines] == [0, 1, 1, 1]
    statuses = []
    for line, _ in lines:
        statuses.append(main(shlex.split(line.split(">")[0])[1:]))
        capsys.readouterr()
    assert statuses == [0, 1, 1, 1]
