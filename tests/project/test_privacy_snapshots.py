"""The project's own mechanisms under its privacy gate (issue 24, item 5): BetweenCut on the
default audit instances (`AUDIT_CASES`, every pair with `|D| <= 1` and the guard-crossing pairs;
calibrated to `(1, 1/20)` on the binary tree of height 3), the PrivTree baseline and the example
sparse-vector mechanisms have exact privacy snapshots in `tests/project/__privacy_snapshots__/`, so
a
change that spends more privacy on any of these pairs, at any eps, fails this project's CI
(`test_a_mechanism_change_that_spends_more_privacy_fails_this_projects_ci` shows it fail).

After an intended change: `pytest tests/project/test_privacy_snapshots.py
--privacy-snapshot-update`,
review the diff of the snapshots, commit them.
"""

from __future__ import annotations

import importlib.util
import shutil
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from betweencut.baselines.privtree import PrivTree
from betweencut.data.tree import kary_tree
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.proofs.privacy.claims.cases import AUDIT_CASES, GUARD_PAIRS
from betweencut.proofs.privacy.enumeration.cache import neighbouring_pairs

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.privacy
HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parents[1] / "examples"
SNAPSHOTS = HERE / "__privacy_snapshots__" / Path(__file__).stem
RELEASES = ["transcript", "heavy"]


def _example(name: str) -> ModuleType:
    """`examples/<name>.py` beside this file's project, read afresh (not
    `example_modules.load_example`: a copy of this module runs on an edited copy of them)."""
    spec = importlib.util.spec_from_file_location(f"examples_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _case_id(case: tuple[int, int, Fraction, Fraction, Fraction]) -> str:
    k, h, lam, R, tau = case
    return f"{k}-ary-h{h}-lam{lam}-R{R}-tau{tau}".replace("/", "_")


@pytest.mark.parametrize("index", range(len(AUDIT_CASES)),
                         ids=[_case_id(c) for c in AUDIT_CASES])
def test_betweencut_default_instances_snapshot(privacy_snapshot: Any, index: int) -> None:
    k, h, lam, R, tau = AUDIT_CASES[index]
    tree = kary_tree(k, h)
    pairs = [*neighbouring_pairs(list(tree.level(h - 1)), 1), *GUARD_PAIRS.get(index, [])]
    privacy_snapshot(BetweenCut, pairs, arity=k, height=h, tau=tau, lam=lam, R=R, on=RELEASES)


def test_betweencut_calibrated_snapshot(privacy_snapshot: Any) -> None:
    tree = kary_tree(2, 3)
    pairs = list(neighbouring_pairs(list(tree.level(2)), 1))
    privacy_snapshot(BetweenCut, pairs, height=3, tau=2, epsilon=1, delta=Fraction(1, 20),
                     on="heavy")


def privtree_baseline() -> PrivTree:
    """The PrivTree baseline on the public interval `[0, 8)`, `ε = 1`, half-open cells."""
    return PrivTree.of(((0, 8),), 1)


def test_privtree_baseline_snapshot(privacy_snapshot: Any) -> None:
    pairs = [("{}", str(z)) for z in range(8)]
    pairs += [("{4}", "4"), ("{4*2}", "4"), ("{3}", "4"), ("{0, 7}", "4")]
    privacy_snapshot(privtree_baseline, pairs)


@pytest.mark.parametrize("name", ["svt", "svt_sharp", "svt_no_query_noise"])
def test_example_svt_snapshot(privacy_snapshot: Any, name: str) -> None:
    svt = _example("my_svt")
    leaves = list(kary_tree(2, 2).level(1))
    privacy_snapshot(getattr(svt, name), list(neighbouring_pairs(leaves, 1)), height=2)


def test_example_flag_snapshot(privacy_snapshot: Any) -> None:
    mech = _example("my_mechanism")
    pairs = list(neighbouring_pairs(list(kary_tree(2, 3).level(2)), 1))
    privacy_snapshot(mech.flag, pairs, height=3)


def test_a_privacy_breaking_variant_exceeds_the_stored_snapshot() -> None:
    """The gate can fail: the gallery's "Laplace scale lambda" variant (noise `Lap(λ)`), on the
    first default instance, exceeds the committed snapshot of BetweenCut."""
    from betweencut.proofs.privacy.claims.gallery import LaplaceScaleLambda
    from betweencut.testing import check_snapshot, pair_curves

    k, h, lam, R, tau = AUDIT_CASES[0]
    path = (Path(__file__).resolve().parent / "__privacy_snapshots__" / Path(__file__).stem /
            f"test_betweencut_default_instances_snapshot-{_case_id(AUDIT_CASES[0])}.txt")
    pairs = [((), z) for z in kary_tree(k, h).level(h - 1)]
    curves = pair_curves(LaplaceScaleLambda, pairs, arity=k, height=h, tau=tau, lam=lam, R=R,
                         on=RELEASES)
    report = check_snapshot(path, curves, strict=True)
    assert report.failed and not report.written and report.regressions
    assert {e.key[2] for e in report.regressions} == {"transcript", "heavy"}
    assert "the exact privacy curve exceeds the snapshot" in report.message()


RATE_DOUBLED = '''
import pytest

from betweencut.mechanism.betweencut import BetweenCut
from betweencut.mechanism.guarded_bt import GuardedBT


def rate_doubled(self):
    """Alg. 1 with the Laplace rate 2 * lam: half the noise (the thresholds unchanged)."""
    p = self.params
    return GuardedBT.of(p.a, p.b, p.R, 2 * p.lam)


@pytest.fixture(autouse=True)
def _rate_doubled(monkeypatch):
    monkeypatch.setattr(BetweenCut, "make_query", rate_doubled)
'''


def test_a_mechanism_change_that_spends_more_privacy_fails_this_projects_ci(
        pytester: pytest.Pytester) -> None:
    """This file and its committed snapshots, run as CI runs them (`--privacy-snapshot-strict`)
    after a change that doubles the Laplace rate of BetweenCut's GuardedBT (a conftest patches
    `make_query`) and of the example `flag` (its source edited): those tests fail (exit 1) with
    a message naming the snapshot, each pair, its release and the exact eps range; the
    PrivTree baseline, unchanged, still passes."""
    tests = pytester.path / "tests" / "project"  # where this module lies in the project
    tests.mkdir(parents=True)
    shutil.copy(Path(__file__), tests / "test_own_snapshots.py")  # no clash with this module
    shutil.copytree(SNAPSHOTS, tests / "__privacy_snapshots__" / "test_own_snapshots")
    shutil.copytree(EXAMPLES, pytester.path / "examples")
    flag = pytester.path / "examples" / "my_mechanism.py"
    source = flag.read_text(encoding="utf-8")
    changed = source.replace("Fraction(2), Fraction(1, 2)))", "Fraction(2), Fraction(1)))")
    assert changed != source
    flag.write_text(changed, encoding="utf-8")
    (tests / "conftest.py").write_text(RATE_DOUBLED, encoding="utf-8")

    run = pytester.runpytest("-p", "no:cacheprovider", "--privacy-snapshot-strict",
                             "tests/project/test_own_snapshots.py", "-k",
                             "flag or 3-ary or privtree")
    run.assert_outcomes(failed=2, passed=1)
    assert run.ret == 1
    out = run.stdout.str()
    shown = "privacy snapshot tests/project/__privacy_snapshots__/test_own_snapshots/"
    assert (f"{shown}test_example_flag_snapshot.txt: the exact privacy curve exceeds the "
            "snapshot (the mechanism spends more privacy) on:") in out
    assert ("D = {}, z = 0/0, on output: the new delta(eps) > the snapshot's delta(eps) for "
            "eps in (0, 1) (exact: (0, 1))") in out
    assert f"{shown}test_betweencut_default_instances_snapshot-3-ary-h2-lam1_2-R12-tau1" in out
    assert ", on transcript: the new delta(eps) > the snapshot's delta(eps)" in out
    assert ", on heavy: the new delta(eps) > the snapshot's delta(eps)" in out
    assert "If the change is intended, review it and record it: pytest " \
        "--privacy-snapshot-update" in out
    assert "Traceback" not in out  # the failure is the message, not a stack
