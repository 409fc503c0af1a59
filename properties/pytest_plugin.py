"""A pytest plugin: the `betweencut_check` fixture runs the structural property suite.

In a user's test suite (after `pip install betweencut` the plugin is registered through the
`pytest11` entry point; otherwise add `-p betweencut.properties.pytest_plugin` or list it in
the root `conftest.py`'s `pytest_plugins`), one line checks an implementation:

    def test_my_classifier(betweencut_check):
        betweencut_check(my_classify)   # fails the test naming every claim that breaks

`my_classify(tree, leaves, params, test) -> Run`, see `betweencut.properties.check`. Keyword
arguments go to `check_implementation` (`claims=`, `depo_fn=`, `max_examples=`, `seed=`,
`derandomize=`). Deterministic runs: `HYPOTHESIS_PROFILE=ci pytest` (read by the check itself,
no conftest needed) or `derandomize=True`; otherwise each run draws a seed, and a failure
prints a `replay:` line (`seed=S`, or `BETWEENCUT_SEED=S pytest ...`) that repeats it exactly.
A classifier that is not a port of Alg. 3 (no transcript or marking log) is checked on what it
releases with `betweencut_heavy_check(heavy_fn)` (`betweencut.properties.heavy_only`: ancestor
closure and Theorem C.2 on the Heavy set). Importing this module costs nothing beyond pytest: the
suite is imported when the fixture is first used, so registering the plugin cannot slow down or
break a test run that does not use it.

The privacy gate (issue 24, `betweencut.testing`), decided exactly, so it never flakes:

    @pytest.mark.privacy
    def test_flag_privacy(privacy_snapshot):
        privacy_snapshot(flag, [("{}", "0/0"), ("{0/0}", "0/1")], height=3)

    def test_my_classifier_is_private(betweencut_privacy_check):
        betweencut_privacy_check(my_heavy, epsilon=1, delta="1/20")

`privacy_snapshot(mechanism, pairs, name=None, on=None, budget_s=None, **tree_and_params)`
stores each pair's exact privacy curve in `__privacy_snapshots__/<test file>/<test>.txt` beside
the test file the first time (or under `pytest --privacy-snapshot-update`; with
`--privacy-snapshot-strict`, as in CI, a missing snapshot fails instead), then fails when the
curve exceeds the stored one at any eps, naming the pair and the range, and reports without
failing where the mechanism became more private (a `PrivacyImproved` warning and a line in
the terminal summary). `betweencut_privacy_check(heavy_fn, epsilon, delta, **options)` audits a
classifier written against the noisy-test interface (what `betweencut_heavy_check` takes) on a
small public tree's pairs (`betweencut.testing.assert_heavy_private`). The marker
`@pytest.mark.privacy` selects the gate (`pytest -m privacy`). The exact gate draws nothing
unless asked: `HYPOTHESIS_PROFILE` leaves its verdicts unchanged, a `search=N` audit is
derandomised (the same pairs on every run), and the seed handling applies to it: `seed=S` or
`$BETWEENCUT_SEED=S` runs another search, the same for that seed, named in a failure.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

SNAPSHOT_DIR = "__privacy_snapshots__"
PRIVACY_MARKER = ("privacy: the exact privacy gate (betweencut.testing, privacy_snapshot, "
                  "betweencut_privacy_check); select it with -m privacy")


class PrivacyImproved(UserWarning):
    """A mechanism became more private than its snapshot (reported, not failing)."""


Reports = dict[str, list[str]]  # "written", "improved", "unused", "removed", "clashes": summary
_REPORTS = pytest.StashKey[Reports]()
_USED = pytest.StashKey[dict[Path, str]]()  # each snapshot file used: the test that used it
_COLLECTED = pytest.StashKey[dict[Path, dict[str, str]]]()  # test file: snapshot name -> node
_PASSED = pytest.StashKey[set[str]]()  # node ids that passed (every snapshot call they make ran)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("betweencut", "betweencut privacy gate")
    group.addoption("--privacy-snapshot-update", action="store_true", default=False,
                    help="write every privacy snapshot used (review the diff, commit it)")
    group.addoption("--privacy-snapshot-strict", action="store_true", default=False,
                    help="a missing privacy snapshot fails instead of being written (for CI)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", PRIVACY_MARKER)
    reports: Reports = {"written": [], "improved": [], "unused": [], "removed": [], "clashes": []}
    config.stash[_REPORTS] = reports
    config.stash[_USED] = {}
    config.stash[_COLLECTED] = {}
    config.stash[_PASSED] = set()


def _test_name(name: str) -> str:
    """A test's name as a snapshot file name (`test_x[v1/a]` -> `test_x-v1-a`)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "test"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test collected (before `-k`/`-m` deselect any), by file: which snapshot files
    still have a test (the others are unused). A file named by node id (`file.py::test`) is
    not collected whole, so its snapshots are not judged."""
    narrowed = {Path(arg.split("::", 1)[0]).resolve() for arg in config.args if "::" in arg}
    collected = config.stash.get(_COLLECTED, {})
    for item in items:
        path = Path(str(item.path)).resolve()
        if path in narrowed:
            continue
        collected.setdefault(path, {})[_test_name(item.name)] = item.nodeid


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.passed:
        item.config.stash.get(_PASSED, set()).add(item.nodeid)


def _unused(config: pytest.Config) -> list[Path]:
    """Snapshot files beside the test files collected whole that no test used this session,
    and that no test could use: no test of that name any more (renamed or removed), or its test
    passed without using it (one snapshot call fewer)."""
    used = config.stash.get(_USED, {})
    passed = config.stash.get(_PASSED, set())
    out: list[Path] = []
    for test_file, names in config.stash.get(_COLLECTED, {}).items():
        folder = test_file.parent / SNAPSHOT_DIR / test_file.stem
        if not folder.is_dir():
            continue
        for snap in sorted(folder.glob("*.txt")):
            if snap.resolve() in used:
                continue
            owners = [n for n in names if snap.stem == n or snap.stem.startswith(n + "-")]
            owner = max(owners, key=len, default=None)
            if owner is None or names[owner] in passed:
                out.append(snap)
    return out


_WORKER_KEY = "betweencut_privacy_snapshots"  # what an xdist worker hands its controller
_WORKERS_STOPPED = pytest.StashKey[bool]()  # a worker stopped early or sent nothing (-x, crash)


def _is_worker(config: pytest.Config) -> bool:
    """Whether this process is a pytest-xdist worker (it runs a share of the tests)."""
    return hasattr(config, "workerinput")


def _worker_output(config: pytest.Config, session: pytest.Session) -> dict[str, Any]:
    """This worker's share, as plain data a worker can send: the tests it collected (every
    worker collects all), the snapshot files it used, the tests that passed on it, its
    reports, and whether it stopped early."""
    collected = config.stash.get(_COLLECTED, {})
    passed: set[str] = config.stash.get(_PASSED, set())
    return {
        "collected": {str(path): names for path, names in collected.items()},
        "used": {str(path): node for path, node in config.stash.get(_USED, {}).items()},
        "passed": sorted(passed),
        "reports": config.stash.get(_REPORTS, {}),
        "stopped": bool(session.shouldfail or session.shouldstop),
    }


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """pytest-xdist's controller, as each worker finishes: its share merged into the
    controller's, which judges the unused files over the whole run (a worker sees only the
    tests it ran). One file used by two tests on two workers is the clash the fixture refuses
    within one process: it fails the run."""
    config: pytest.Config = node.config
    if _REPORTS not in config.stash:
        return
    share = getattr(node, "workeroutput", {}).get(_WORKER_KEY)
    if error is not None or share is None or share["stopped"]:
        config.stash[_WORKERS_STOPPED] = True
    if share is None:
        return
    collected = config.stash[_COLLECTED]
    for path, names in share["collected"].items():
        collected.setdefault(Path(path), {}).update(names)
    used = config.stash[_USED]
    reports = config.stash[_REPORTS]
    for path, node_id in share["used"].items():
        other = used.setdefault(Path(path), node_id)
        if other != node_id:
            reports["clashes"].append(
                f"{_shown(Path(path), config)}: the tests {other} and {node_id} map to this "
                "one file (give one of them privacy_snapshot(..., name=...))")
    config.stash[_PASSED].update(share["passed"])
    for kind, lines in share["reports"].items():
        reports.setdefault(kind, []).extend(lines)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Unused snapshots: reported; removed under `--privacy-snapshot-update`; failing the
    run under `--privacy-snapshot-strict` (CI: a stale file is reviewed, not left behind).
    Under pytest-xdist a worker hands its share to the controller, which judges the whole run
    (`pytest_testnodedown`)."""
    config = session.config
    reports = config.stash.get(_REPORTS, None)
    if reports is None:
        return
    if _is_worker(config):
        output: dict[str, Any] = getattr(config, "workeroutput")  # noqa: B009 - xdist sets it
        output[_WORKER_KEY] = _worker_output(config, session)
        return
    if reports["clashes"]:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    if session.shouldfail or session.shouldstop or config.stash.get(_WORKERS_STOPPED, False):
        return  # a run stopped early (-x): tests that did not run say nothing about files
    for snap in _unused(config):
        shown = _shown(snap, config)
        if config.getoption("privacy_snapshot_update"):
            snap.unlink()
            reports["removed"].append(shown)
        else:
            reports["unused"].append(shown)
    if reports["unused"] and config.getoption("privacy_snapshot_strict") and exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int,
                            config: pytest.Config) -> None:
    reports = config.stash.get(_REPORTS, None)
    if not reports or not any(reports.values()):
        return
    terminalreporter.section("betweencut privacy snapshots")
    for path in reports["written"]:
        terminalreporter.write_line(f"written: {path} (review it and commit it)")
    for path in reports["improved"]:
        terminalreporter.write_line(f"more private than stored: {path} (record it with "
                                    "pytest --privacy-snapshot-update)")
    for path in reports["unused"]:
        terminalreporter.write_line(f"unused: {path} (no test uses it; remove it with "
                                    "pytest --privacy-snapshot-update"
                                    + (", failing under --privacy-snapshot-strict)"
                                       if config.getoption("privacy_snapshot_strict") else ")"))
    for path in reports["removed"]:
        terminalreporter.write_line(f"removed: {path} (no test uses it)")
    for clash in reports["clashes"]:
        terminalreporter.write_line(f"refused: {clash}")


def _failing(checker: Callable[..., Any]) -> Callable[..., Any]:
    """`checker`, calling `pytest.fail` with its report (the failing claims, their shrunk
    inputs and witnesses) when any claim fails."""

    def check(fn: Callable[..., Any], **options: Any) -> Any:
        report = checker(fn, **options)
        if not report.ok:
            pytest.fail(
                f"claims failing: {', '.join(report.failed_claims)}\n{report.summary()}",
                pytrace=False,
            )
        return report

    return check


@pytest.fixture
def betweencut_check() -> Callable[..., Any]:
    """`check(classify_fn, **options) -> Report`; calls `pytest.fail` with the report (the
    failing claims, their shrunk inputs and witnesses) when any claim fails."""
    from betweencut.properties.check import check_implementation

    return _failing(check_implementation)


@pytest.fixture
def betweencut_heavy_check() -> Callable[..., Any]:
    """`check(heavy_fn, **options) -> Report` for any classifier returning its Heavy set
    (`betweencut.properties.heavy_only.check_heavy_classifier`); `pytest.fail` on a failure.
    Structure only: a classifier with no noise passes it; `betweencut_privacy_check` fails it."""
    from betweencut.properties.heavy_only import check_heavy_classifier

    return _failing(check_heavy_classifier)


def _snapshot_path(request: pytest.FixtureRequest, name: str | None, count: int) -> Path:
    test_file = Path(str(request.node.path))
    test = _test_name(request.node.name)
    if name is not None:
        if not re.fullmatch(r"[A-Za-z0-9_.-]{1,100}", name):
            from betweencut.errors import ParameterError

            raise ParameterError("name", name, "letters, digits, '_', '.', '-' (a file name)")
        test += f"-{name}"
    elif count > 1:
        test += f"-{count}"
    return test_file.parent / SNAPSHOT_DIR / test_file.stem / f"{test}.txt"


@pytest.fixture
def privacy_snapshot(request: pytest.FixtureRequest) -> Callable[..., Any]:
    """`snapshot(mechanism, pairs, name=None, on=None, budget_s=None, **tree_and_params)`:
    the exact privacy curve of every pair, compared with (or written to) the snapshot file of
    this test; `pytest.fail` naming the pair and the eps range where the curve exceeds it."""
    from importlib.metadata import PackageNotFoundError, version

    calls = {"n": 0}
    config = request.config
    try:
        written_by = f"betweencut {version('betweencut')}"
    except PackageNotFoundError:  # pragma: no cover - the plugin ships with the package
        written_by = "betweencut"

    def snapshot(mechanism: object, pairs: Any, *, name: str | None = None, on: Any = None,
                 budget_s: object = None, **tree_and_params: Any) -> Any:
        from betweencut.testing import check_snapshot, pair_curves
        from betweencut.testing.budget import Budget, check_budget

        calls["n"] += 1
        path = _snapshot_path(request, name, calls["n"])
        used = config.stash.get(_USED, {})
        other = used.setdefault(path.resolve(), request.node.nodeid)
        if other != request.node.nodeid:  # two test ids, one file name: refuse, never mix
            pytest.fail(f"privacy snapshot {_shown(path, config)}: the tests {other} and "
                        f"{request.node.nodeid} map to this one file (their names differ only "
                        "in characters a file name cannot hold); give one of them "
                        "privacy_snapshot(..., name=...) or another parametrize id",
                        pytrace=False)
        curves = pair_curves(mechanism, pairs, on=on, budget=Budget(check_budget(budget_s)),
                             **tree_and_params)
        shown = _shown(path, config)
        report = check_snapshot(path, curves,
                                update=bool(config.getoption("privacy_snapshot_update")),
                                strict=bool(config.getoption("privacy_snapshot_strict")),
                                version=written_by, shown=shown)
        reports: Reports = config.stash.get(_REPORTS, {"written": [], "improved": []})
        if report.written:
            reports["written"].append(shown)
        if report.improvements:
            reports["improved"].append(shown)
            warnings.warn(PrivacyImproved(report.improvement_message()), stacklevel=2)
        if report.failed:
            pytest.fail(report.message(), pytrace=False)
        return report

    return snapshot


def _shown(path: Path, config: pytest.Config) -> str:
    try:
        return str(path.relative_to(config.rootpath))
    except ValueError:
        return str(path)


@pytest.fixture
def betweencut_privacy_check() -> Callable[..., Any]:
    """`check(heavy_fn, epsilon, delta, **options) -> Verdict`: the classifier (what
    `betweencut_heavy_check` takes) audited exactly on a small public tree's pairs
    (`betweencut.testing.assert_heavy_private`); `pytest.fail` with the counterexample and
    its replay line when it is not `(epsilon, delta)`-DP."""
    from betweencut.testing import assert_heavy_private

    def check(heavy_fn: Callable[..., Any], epsilon: object, delta: object,
              **options: Any) -> Any:
        try:
            return assert_heavy_private(heavy_fn, epsilon, delta, **options)
        except AssertionError as exc:
            message = str(exc)
        pytest.fail(message, pytrace=False)  # outside the handler: the message once

    return check
