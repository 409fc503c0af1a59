"""Privacy snapshots (issue 24): the exact curve as reviewable text read back exactly (never
evaluated), the comparison (a regression fails, an improvement is reported), the versioned
header, and the pytest plugin end to end in a user's project (pytester, in process)."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from example_modules import load_example
from tutorial_harness import Runner, files, run_tutorial

from betweencut.errors import ParameterError
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.proofs.privacy.divergence.curve import exceeds
from betweencut.testing import Curves, SnapshotError, check_snapshot, pair_curves
from betweencut.testing.snapshot import FORMAT, MAGIC, read_poly, read_snapshot, snapshot_text

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.privacy




@pytest.fixture(scope="module")
def curves() -> list[Curves]:
    mech, svt, privtree = (load_example(n) for n in ("my_mechanism", "my_svt", "my_privtree"))
    return [
        pair_curves(mech.flag, [("{}", "0/0"), ("{0/0}", "0/1")], height=3),
        pair_curves(svt.svt_sharp, [("{}", "0"), ("{1}", "0")], height=2),
        pair_curves(svt.svt_no_query_noise, [("{}", "0")], height=2),
        pair_curves(privtree.privtree, [("{4*2}", "4"), ("{}", "3")]),
        pair_curves(BetweenCut, [("{0/0}", "0/1")], height=3, tau=2, lam="1/2", R=12,
                    on=["transcript", "heavy"]),
    ]


def _same(a: Curves, b: Curves) -> bool:
    return list(a.curves) == list(b.curves) and all(
        not exceeds(a.curves[k], b.curves[k]) and not exceeds(b.curves[k], a.curves[k])
        for k in a.curves)


def test_snapshot_text_reads_back_to_the_same_exact_curves(curves: list[Curves]) -> None:
    for found in curves:
        text = snapshot_text(found, "betweencut 0.1.0")
        assert text.splitlines()[4] == f"format: {MAGIC} {FORMAT}"
        back = read_snapshot(text, "snapshot")
        assert _same(found, back)
        assert back.subject["written by"] == "betweencut 0.1.0"
    keys = list(curves[-1].curves)
    assert keys == [("{0/0}", "0/1", "transcript"), ("{0/0}", "0/1", "heavy")]


def test_snapshot_numbers_are_read_never_evaluated() -> None:
    assert read_poly("1/2 - 3/4*exp(-1/2) + 2*exp(3)", "A").terms == {
        0: 0.5, -0.5: -0.75, 3: 2}
    for bad in ("__import__('os').system('true')", "1/2 + log(2)", "exp(exp(1))",
                "1e99999999", "1/0"):
        with pytest.raises(ParameterError):
            read_poly(bad, "A")


def _text(body: str, version: int = FORMAT) -> str:
    return f"# a snapshot\nformat: {MAGIC} {version}\nmechanism: m\n\n{body}"


ONE_PIECE = "pair: D = {}, z = 0/0, on output\npiece: from eps = 0\n  A = 1/2\n  B = 0\n"


@pytest.mark.parametrize(("text", "says"), [
    ("hello\n", "not a betweencut privacy snapshot"),
    (_text(ONE_PIECE, 0), "made by an older betweencut (snapshot format 0"),
    (_text(ONE_PIECE.replace("A = 1/2", "A = __import__('os')")), "line 7: A"),
    (_text(ONE_PIECE.replace("from eps = 0", "from eps = 1")), "does not start at eps = 0"),
    (_text(ONE_PIECE + "piece: from eps = 0\n  A = 0\n  B = 0\n"), "increasing eps"),
    (_text(ONE_PIECE + ONE_PIECE), "appears twice"),
    (_text("pair: D = {}, z = 0/0\n"), "expected 'pair: D = {...}, z = ..., on RELEASE'"),
    (_text(""), "no pair"),
])
def test_snapshot_that_cannot_be_read_says_to_update_it(text: str, says: str) -> None:
    with pytest.raises(SnapshotError, match="--privacy-snapshot-update") as caught:
        read_snapshot(text, "snap.txt")
    assert says in str(caught.value) and str(caught.value).startswith("snap.txt")


def test_snapshot_of_a_newer_format_says_to_upgrade() -> None:
    with pytest.raises(SnapshotError, match=r"newer betweencut .* upgrade betweencut"):
        read_snapshot(_text(ONE_PIECE, FORMAT + 1), "snap.txt")


def test_check_snapshot_regression_fails_improvement_reported(tmp_path: Path) -> None:
    mech = load_example("my_mechanism")
    pairs = [("{}", "0/0"), ("{0/0}", "0/1")]
    mine, sharper = (pair_curves(f, pairs, height=3) for f in (mech.flag, mech.flag_v2))
    path = tmp_path / "s.txt"
    assert check_snapshot(path, mine, strict=True).strict_missing and not path.exists()
    first = check_snapshot(path, mine)
    assert first.written and not first.failed and path.exists()
    again = check_snapshot(path, mine)
    assert not again.written and not again.failed and not again.improvements
    worse = check_snapshot(path, sharper)
    assert worse.failed and len(worse.regressions) == 2 and not worse.improvements
    assert "the exact privacy curve exceeds the snapshot" in worse.message()
    assert "D = {}, z = 0/0, on output: the new delta(eps) > the snapshot's delta(eps) for " \
           "eps in (0, 1)" in worse.message()
    assert check_snapshot(path, sharper, update=True).written
    better = check_snapshot(path, mine)
    assert not better.failed and len(better.improvements) == 2
    assert "more private than stored" in better.improvement_message()
    fewer = check_snapshot(path, Curves(mine.subject, dict(list(mine.curves.items())[:1])))
    assert fewer.failed and fewer.stale == [("{0/0}", "0/1", "output")]


def test_pair_curves_refuses_a_claim_and_bad_releases() -> None:
    mech = load_example("my_mechanism")
    with pytest.raises(ParameterError, match="claim"):
        pair_curves(mech.flag, [("{}", "0/0")], height=3, claim=[(1, 0)])
    with pytest.raises(ParameterError, match="epsilon"):
        pair_curves(mech.flag, [("{}", "0/0")], height=3, epsilon=1)
    with pytest.raises(ParameterError, match="at least one"):
        pair_curves(mech.flag, [], height=3)
    with pytest.raises(ParameterError, match="each release once"):
        pair_curves(mech.flag, [("{}", "0/0")], height=3, on=["output", "output"])


# -- the plugin in a user's project -------------------------------------------------------------
SNAPSHOT = Path("__privacy_snapshots__") / "test_privacy" / "test_flag_privacy_snapshot.txt"


def _write(root: Path, *names: str) -> None:
    for name, text in files().items():
        if name in names:
            (root / name).write_text(text, encoding="utf-8")


def _in_process(pytester: pytest.Pytester) -> Runner:
    def run(argv: list[str]) -> tuple[int, str]:
        if argv[0] == "pytest":
            result = pytester.runpytest("-p", "no:cacheprovider", *argv[1:])
            return int(result.ret), result.stdout.str()
        done = subprocess.run([sys.executable, "-m", "betweencut", *argv[1:]],
                              cwd=pytester.path, capture_output=True, text=True, check=False,
                              timeout=300)
        return done.returncode, done.stdout + done.stderr

    return run


def test_the_ci_gate_tutorial_runs_as_written(pytester: pytest.Pytester) -> None:
    """Issue 24, "What must be shown", in process: the tutorial's project writes its snapshot
    under --privacy-snapshot-update, passes on the next run, fails (exit 1, naming the pair:
    the curve exceeds the snapshot) once the Laplace rate is doubled, where assert_private
    fails with a counterexample whose replay line reproduces it; a more private version is
    reported without failing; the noiseless classifier passes the structural
    betweencut_heavy_check and fails betweencut_privacy_check."""
    from importlib.metadata import version

    ran = run_tutorial(pytester.path, _in_process(pytester), f"betweencut {version('betweencut')}")
    assert ran[:2] == ["pytest --privacy-snapshot-update", "pytest"]
    assert "pytest test_classifier.py" in ran and any(r.startswith("betweencut") for r in ran)
    assert (pytester.path / SNAPSHOT).is_file()


def test_privacy_snapshot_strict_missing_and_old_format(pytester: pytest.Pytester) -> None:
    root = pytester.path
    _write(root, "mymech.py", "test_privacy.py")
    strict = pytester.runpytest("-p", "no:cacheprovider", "--privacy-snapshot-strict",
                                "-k", "snapshot")
    strict.assert_outcomes(failed=1)
    assert "is missing (--privacy-snapshot-strict)" in strict.stdout.str()
    assert not (root / SNAPSHOT).exists()
    (root / SNAPSHOT).parent.mkdir(parents=True)
    (root / SNAPSHOT).write_text(_text(ONE_PIECE, 0), encoding="utf-8")
    old = pytester.runpytest("-p", "no:cacheprovider", "-k", "snapshot")
    old.assert_outcomes(failed=1)
    assert "made by an older betweencut" in old.stdout.str()
    assert "pytest --privacy-snapshot-update" in old.stdout.str()
    pytester.runpytest("-p", "no:cacheprovider", "--privacy-snapshot-update", "-k",
                       "snapshot").assert_outcomes(passed=1)
    assert read_snapshot((root / SNAPSHOT).read_text(encoding="utf-8"), "s").curves


def test_privacy_marker_selects_the_gate(pytester: pytest.Pytester) -> None:
    root = pytester.path
    _write(root, "mymech.py", "test_privacy.py")
    (root / "test_other.py").write_text("def test_other():\n    pass\n", encoding="utf-8")
    run = pytester.runpytest("-p", "no:cacheprovider", "--strict-markers", "-m", "privacy")
    run.assert_outcomes(passed=2, deselected=1)
    assert "written: __privacy_snapshots__" in run.stdout.str()
    assert sys.modules.get("mymech") is None  # pytester restored the modules


def test_a_breakpoint_that_is_rational_is_written_as_one() -> None:
    from betweencut.proofs.exact.arith import ExpPoly, ExpRational
    from betweencut.proofs.privacy.divergence.curve import LogOf
    from betweencut.testing.curves import log_text, rational_log

    m = ExpPoly({Fraction(-1, 2): Fraction(1, 2), Fraction(-1): Fraction(-1, 2)})
    assert rational_log(LogOf(ExpRational(m * ExpPoly.exp(Fraction(1, 2)), m))) == \
        Fraction(1, 2)
    other = LogOf(ExpRational(m * ExpPoly.exp(Fraction(1, 2)) + 1, m))
    assert rational_log(other) is None
    assert log_text(other) == "log((3/2 - 1/2*exp(-1/2)) / (1/2*exp(-1/2) - 1/2*exp(-1)))"


def test_pair_curves_budget_says_how_far_it_got() -> None:
    from betweencut.testing import OverBudget
    from betweencut.testing.budget import Budget

    mech = load_example("my_mechanism")
    ticks = iter(range(1000))
    budget = Budget(1.5, clock=lambda: float(next(ticks)))
    with pytest.raises(OverBudget) as caught:
        pair_curves(mech.flag, [("{}", "0/0"), ("{0/0}", "0/1"), ("{1/1}", "0/0")], height=3,
                    budget=budget)
    assert "too large for the budget of 1.5 s" in str(caught.value)
    assert "1 of 3 pairs audited" in str(caught.value)
