"""`betweencut audit depth --on heavy` (issue 13): the released Heavy set's exact profile at
depth, same JSON shape as the transcript run, never above it, and bad `--on` exits 2."""

from __future__ import annotations

import json

import pytest
import sympy

from betweencut.cli import main
from betweencut.proofs.exact.arith import sign
from betweencut.proofs.privacy.claims.setup import PROJECTIONS
from betweencut.proofs.privacy.enumeration.cache import LawCache

BASE = ["audit", "depth", "--height", "7", "--lam", "0.5", "--R", "2", "--tau", "4",
        "--count", "2", "--json"]


def test_audit_depth_on_heavy_same_shape_and_equal_to_enumeration(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*BASE, "--on", "heavy"]) == 0
    heavy = json.loads(capsys.readouterr().out)
    assert main(BASE) == 0
    transcript = json.loads(capsys.readouterr().out)
    assert heavy["claim"]["releases"] == ["heavy"]
    assert transcript["claim"]["releases"] == ["transcript"]
    assert set(heavy) == set(transcript)
    for h_row, t_row in zip(heavy["rows"], transcript["rows"], strict=True):
        assert set(h_row) == set(t_row) and h_row["count"] == 2
        assert h_row["delta"] <= t_row["delta"] * (1 + 1e-12)
    # the Heavy set's r = 1 value is the one full enumeration of the real code gives
    from fractions import Fraction

    from betweencut.data.tree import kary_tree
    from betweencut.mechanism.betweencut import BetweenCut
    from betweencut.mechanism.params import Params
    from betweencut.proofs.exact.arith import exact_str
    from betweencut.proofs.privacy.depth.paths import PathProfile
    from betweencut.proofs.privacy.divergence.joint import Joint

    mechanism = BetweenCut(kary_tree(2, 7), Params.of(Fraction(4), Fraction(1, 2), Fraction(2)))
    cache = LawCache(lambda db, test: mechanism.run(db, test), PROJECTIONS)
    db, z = PathProfile.single_leaf(7, 2).database()
    joint = Joint(cache.law(db, "heavy"), cache.law(tuple(sorted((*db, z))), "heavy"))
    for row in heavy["rows"]:
        expected = joint.divergence(Fraction(row["eps"])).delta
        # the same number (the row's text has one common denominator: read both exactly)
        diff = sympy.sympify(row["delta_exact"]) - sympy.sympify(exact_str(expected))
        assert sympy.expand(diff) == 0
        assert sign(expected) >= 0


def test_audit_depth_on_heavy_family_at_2_64_minus_1(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["audit", "depth", "--height", str(2**64 - 1), "--lam", "0.5", "--R", "16",
            "--tau", "18", "--count", "17", "--on", "heavy", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["claim"]["parameters"]["L"] == 64 and len(out["rows"]) == 64 and out["holds"] is True


def test_audit_depth_on_heavy_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*BASE[:-1], "--on", "heavy"]) == 0
    out = capsys.readouterr().out
    assert "on heavy" in out and "holds" in out


@pytest.mark.parametrize("on", ["released", "Heavy", ""])
def test_audit_depth_bad_on_exits_2_with_one_line(
        on: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*BASE, "--on", on]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
