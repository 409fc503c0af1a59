"""A user's project for the privacy gate (issue 24, "What must be shown"): a mechanism with a
Laplace rate, its privacy snapshot, an `assert_private` claim and a noiseless classifier under
`betweencut_privacy_check`. Shared by the in-process test (pytester) and the fresh-venv test."""

from __future__ import annotations

from pathlib import Path

MECHANISM = '''\
"""A user's mechanism: is the database large? One noisy threshold test of its size."""
from fractions import Fraction

from betweencut.noisy_test import BTQuery

RATE = Fraction({rate})  # the Laplace rate lambda: noise Lap(1/lambda)


def flag(db, test):
    return test(BTQuery(Fraction(len(db)), Fraction(1), Fraction(2), RATE))
'''

TESTS = '''\
import pytest

from betweencut.testing import assert_private
from mymech import flag

PAIRS = [("{}", "0/0"), ("{0/0}", "0/1")]


@pytest.mark.privacy
def test_flag_snapshot(privacy_snapshot):
    privacy_snapshot(flag, PAIRS, height=3)


@pytest.mark.privacy
def test_flag_is_private():
    assert_private(flag, epsilon="1/2", delta=0, pairs=PAIRS, height=3)
'''

CLASSIFIER = '''\
import pytest


def noiseless(tree, leaves, params, test):
    """Heavy: every node whose exact count reaches tau (no noise at all)."""
    counts = {}
    for leaf in leaves:
        for depth in range(len(leaf) + 1):
            counts[leaf[:depth]] = counts.get(leaf[:depth], 0) + 1
    return {node for node, count in counts.items() if count >= params.tau}


@pytest.mark.privacy
def test_noiseless_classifier(betweencut_privacy_check):
    betweencut_privacy_check(noiseless, epsilon=1, delta="1/20")
'''

SNAPSHOT = Path("__privacy_snapshots__") / "test_gate" / "test_flag_snapshot.txt"


def write_project(root: Path, rate: str = "1/2") -> None:
    """The project's files under `root` (the mechanism with Laplace rate `rate`)."""
    (root / "mymech.py").write_text(MECHANISM.format(rate=rate), encoding="utf-8")
    (root / "test_gate.py").write_text(TESTS, encoding="utf-8")


def write_classifier_test(root: Path) -> None:
    (root / "test_classifier.py").write_text(CLASSIFIER, encoding="utf-8")
