"""The Lumberjack-style baseline: calibration certified, margin on seeded runs, opt-in gate."""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction

import pytest

from betweencut.baselines.full_tree import margin_violations
from betweencut.baselines.lumberjack import LumberjackStyle, lumberjack_calibrate
from betweencut.data.tree import kary_tree
from betweencut.errors import ParameterError
from betweencut.mechanism.betweencut import path_counts
from betweencut.mechanism.depo import depth_order
from betweencut.proofs import ClaimRefuted
from betweencut.proofs.baselines.lumberjack import audit_lumberjack, check_lumberjack_calibration


def test_lumberjack_style_calibration_certified() -> None:
    cert = check_lumberjack_calibration(lumberjack_calibrate(15, 1, "1/20"))
    assert cert.verdict == "holds"
    assert all(c.verdict == "holds" for c in audit_lumberjack())


def test_lumberjack_style_calibration_rejects_small_sigma() -> None:
    cal = lumberjack_calibrate(15, 1, "1/20")
    with pytest.raises(ClaimRefuted):
        check_lumberjack_calibration(replace(cal, sigma_sq_coeff=cal.sigma_sq_coeff / 16))
    with pytest.raises(ClaimRefuted):
        check_lumberjack_calibration(replace(cal, guard_arg=cal.guard_arg / 2))


def test_lumberjack_style_needs_opt_in() -> None:
    cal = lumberjack_calibrate(4, 1, "1/20")
    with pytest.raises(ParameterError, match="allow_float_gaussian"):
        LumberjackStyle(kary_tree(2, 4), 10, cal)


@pytest.mark.parametrize("seed", range(6))
def test_lumberjack_style_margin_and_participation_on_seeded_runs(seed: int) -> None:
    h, tau = 7, Fraction(25)
    tree = kary_tree(2, h)
    rnd = random.Random(seed)
    leaves = [tuple(0 if rnd.random() < 0.7 else 1 for _ in range(h - 1)) for _ in range(200)]
    cal = lumberjack_calibrate(h, "1/2", "1/20")
    run = LumberjackStyle(tree, tau, cal, allow_float_gaussian=True, seed=seed).run(leaves)
    lower, upper = cal.cuts(tau)
    counts = dict(path_counts(leaves))
    worst_h, worst_l = margin_violations(run.heavy, counts, tree.nodes(), tau)
    assert worst_h <= tau - lower - 1 and worst_l <= upper - 1 - tau  # deterministic margin R
    assert all(s.value in "LH" for _, s in run.transcript)
    # Lemma 4.2 for the two-outcome traversal: at most L queried nodes on every path
    for leaf in set(leaves):
        on_path = sum(1 for u, _ in run.transcript if leaf[: len(u)] == u)
        assert on_path <= cal.L
    assert len(depth_order(h)) == h
