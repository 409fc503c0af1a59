"""Which snapshot files a run used (issue 36, item 5): a snapshot no test uses any more (a
renamed test, one call fewer) is reported, removed by `--privacy-snapshot-update` and fails a
`--privacy-snapshot-strict` run; two test ids that map to one file are refused, never mixed."""

from __future__ import annotations

from pathlib import Path

import pytest

from betweencut.testing import pair_curves

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.privacy

MECH = '''
from fractions import Fraction

from betweencut.noise.noisy_test import BTQuery


def flag(db, test):
    return test(BTQuery(Fraction(len(db)), Fraction(1), Fraction(2), Fraction(1, 2)))
'''
TEST = '''
import pytest

from mymech import flag

PAIRS = [("{}", "0/0")]


def test_{name}(privacy_snapshot):
    privacy_snapshot(flag, PAIRS, height=3)
'''
FOLDER = Path("__privacy_snapshots__") / "test_gate"


def _project(root: Path, name: str) -> None:
    (root / "mymech.py").write_text(MECH, encoding="utf-8")
    (root / "test_gate.py").write_text(TEST.replace("{name}", name), encoding="utf-8")


def _run(pytester: pytest.Pytester, *flags: str) -> pytest.RunResult:
    """In process; numpy and the audit loaded first (a C extension loads once per process, and
    pytester unloads what a run imports)."""
    pair_curves(lambda db, test: len(db) > 0, [("{}", "0/0")], height=3)
    return pytester.runpytest("-p", "no:cacheprovider", *flags)


def test_a_renamed_tests_snapshot_is_reported_then_removed(pytester: pytest.Pytester) -> None:
    root = pytester.path
    _project(root, "old")
    _run(pytester).assert_outcomes(passed=1)
    assert (root / FOLDER / "test_old.txt").is_file()
    _project(root, "new")  # the test renamed: its old snapshot has no test any more
    run = _run(pytester)
    run.assert_outcomes(passed=1)
    assert "unused: __privacy_snapshots__/test_gate/test_old.txt" in run.stdout.str()
    strict = _run(pytester, "--privacy-snapshot-strict")
    assert strict.ret == 1 and "unused:" in strict.stdout.str()
    update = _run(pytester, "--privacy-snapshot-update")
    assert update.ret == 0 and "removed: __privacy_snapshots__/test_gate/test_old.txt" in (
        update.stdout.str())
    assert not (root / FOLDER / "test_old.txt").exists()
    assert (root / FOLDER / "test_new.txt").is_file()
    # a run of one test by node id, or one deselecting tests, judges no file
    _project(root, "newer")
    assert "unused" not in _run(pytester, "test_gate.py::test_newer").stdout.str()
    assert (root / FOLDER / "test_new.txt").is_file()


def test_ids_that_share_a_file_are_refused(pytester: pytest.Pytester) -> None:
    root = pytester.path
    (root / "mymech.py").write_text(MECH, encoding="utf-8")
    (root / "test_gate.py").write_text('''
import pytest

from mymech import flag


@pytest.mark.parametrize("v", ["v1/a", "v1-a"])
def test_ids(privacy_snapshot, v):
    privacy_snapshot(flag, [("{}", "0/0")], height=3)
''', encoding="utf-8")
    run = _run(pytester)
    run.assert_outcomes(passed=1, failed=1)
    out = run.stdout.str()
    assert "map to this one file" in out and "name=" in out
    assert "spends more privacy" not in out



BEFORE = '''
from mymech import flag


def test_old(privacy_snapshot):
    privacy_snapshot(flag, [("{}", "0/0")], height=3)


def test_keep(privacy_snapshot):
    privacy_snapshot(flag, [("{}", "0/0")], height=3)
'''
AFTER = '''
import pytest

from mymech import flag


def test_new():  # test_old renamed, and its snapshot call dropped
    pass


def test_keep(privacy_snapshot):
    privacy_snapshot(flag, [("{}", "0/0")], height=3)


@pytest.mark.parametrize("v", ["v1/a", "v1-a"])
def test_ids(privacy_snapshot, v):
    privacy_snapshot(flag, [("{}", "0/0")], height=3)
'''


def test_under_xdist_the_controller_judges_the_snapshot_files(pytester: pytest.Pytester) -> None:
    """With pytest-xdist each worker runs a share of the tests, so the files are judged over
    the whole run by the controller (a worker's own verdict would be lost: its summary is not
    shown and its exit status is not the run's): a renamed test's file is unused, a file used
    on one worker is not unused because another worker never touched it, and two ids that map
    to one file are refused even when they ran on two workers. One xdist run (each worker
    imports the package: seconds)."""
    root = pytester.path
    (root / "mymech.py").write_text(MECH, encoding="utf-8")
    (root / "test_gate.py").write_text(BEFORE, encoding="utf-8")
    _run(pytester).assert_outcomes(passed=2)
    (root / "test_gate.py").write_text(AFTER, encoding="utf-8")
    run = _run(pytester, "-n", "2", "--dist", "load", "--privacy-snapshot-strict")
    out = run.stdout.str()
    assert run.ret == 1
    assert "unused: __privacy_snapshots__/test_gate/test_old.txt" in out
    assert "test_keep.txt" not in out
    assert "map to this one file" in out
