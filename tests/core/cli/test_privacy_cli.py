"""`betweencut audit privacy` (issue 4): the JSON contract, usage errors, exhaustive mode."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from betweencut.cli import main
from betweencut.params import Params
from betweencut.proofs.privacy.claims.search import search_worst_pair
from betweencut.tree import kary_tree

CONTRACT = ["audit", "privacy", "--arity", "2", "--height", "3", "--lam", "0.5", "--R", "2",
            "--tau", "2", "--db", "0/0,0/1", "--add", "0/0", "--json"]


def test_lemma_c_1_cli_contract(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(CONTRACT) == 0
    out = json.loads(capsys.readouterr().out)
    for name in ("transcript", "heavy"):
        rows = [row for row in out["rows"] if row["on"] == name]
        assert [row["r"] for row in rows] == [1, 2]
        for row in rows:
            assert {"r", "eps", "delta", "delta_exact", "bound", "holds"} <= set(row)
            assert isinstance(row["delta"], float) and isinstance(row["delta_exact"], str)
            assert row["holds"] is True
    assert {row["r"] for row in out["rows"]} == {1, 2}
    assert out["rows"][0]["on"] == "transcript"
    assert out["rows"][0]["delta_exact"] == "(-1/4)*exp(-3/2) + (1/4)*exp(-1)"


@pytest.mark.parametrize("argv", [
    ["audit", "privacy", "--height", "3", "--lam", "1"],
    ["audit", "privacy", "--height", "3", "--tau", "1", "--lam", "1", "--R", "1",
     "--db", "0/3", "--add", "0/0"],
    ["audit", "privacy", "--height", "3", "--tau", "1", "--lam", "2", "--R", "1",
     "--db", "", "--add", "0/0"],
    ["audit", "privacy", "--height", "3", "--tau", "1", "--lam", "1", "--R", "1",
     "--epsilon", "1", "--delta", "0.05", "--db", "", "--add", "0/0"],
])
def test_theorem_5_4_cli_bad_usage_exits_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_theorem_5_5_cli_calibrated(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["audit", "privacy", "--height", "3", "--epsilon", "1", "--delta", "0.05",
            "--tau", "2", "--db", "0/0", "--add", "0/1", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    promised = [row for row in out["rows"] if "promised" in row]
    assert len(promised) == 2 and all(row["holds"] for row in promised)  # transcript, heavy


def test_theorem_5_4_cli_exhaustive(capsys: pytest.CaptureFixture[str]) -> None:
    """On an instance with power (R = 12, bound < 1 at r = 1, 2): the same pairs refute the
    Laplace-scale variant (`power_witness`)."""
    from betweencut.proofs.privacy.claims.power import power_witness
    from betweencut.proofs.privacy.enumeration.cache import neighbouring_pairs

    argv = ["audit", "privacy", "--height", "2", "--tau", "1", "--lam", "1/2", "--R", "12",
            "--exhaustive", "2", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["pairs"] == 12 and out["holds"] is True
    assert out["worst"] is not None and {row["on"] for row in out["rows"]} == {
        "transcript", "heavy"}
    tree = kary_tree(2, 2)
    pairs = list(neighbouring_pairs(list(tree.level(1)), 2))
    assert power_witness(tree, Params.of(1, Fraction(1, 2), 12), pairs).variant == (
        "Laplace scale lambda")


def test_theorem_5_4_search_mode_finds_a_tight_pair() -> None:
    """On (1, 1, 1) the bound is >= 1 at every r (nothing to find: every draw is skipped); with
    R = 12 the search has power and reports a worst pair with tightness in (0, 1]."""
    none = search_worst_pair(kary_tree(2, 3), Params.of(1, 1, 1), max_examples=5)
    assert none.tried == 0 and none.skipped >= 1 and none.worst is None
    result = search_worst_pair(kary_tree(2, 3), Params.of(1, Fraction(1, 2), 12),
                               max_examples=15)
    assert result.refutation is None and result.worst is not None and result.tried >= 1
    lo, hi = result.worst.tightness()
    assert 0 < lo <= hi <= 1


def test_theorem_5_4_search_varies_lambda_r_tau_and_refutes_laplace_scale() -> None:
    """Issue 12: the Laplace-scale variant passes every search at R <= 3 and is refuted once
    the search may vary R into the calibrated regime (and lambda, tau)."""
    from betweencut.proofs.privacy.claims.gallery import LaplaceScaleLambda

    tree, base = kary_tree(2, 3), Params.of(2, Fraction(1, 2), 2)
    small = search_worst_pair(tree, base, max_examples=15, variant=LaplaceScaleLambda,
                              Rs=[Fraction(2), Fraction(3)])
    assert small.refutation is None
    wide = search_worst_pair(tree, base, max_examples=30, variant=LaplaceScaleLambda,
                             lams=[Fraction(1, 2), Fraction(1)], Rs=[Fraction(2), Fraction(12),
                                                                     Fraction(40)],
                             taus=[Fraction(0), Fraction(2)])
    assert wide.refutation is not None and wide.refutation_params is not None
    assert wide.refutation_params.R.compare(12) >= 0


def test_theorem_5_4_search_mode_refutes_a_broken_variant() -> None:
    from betweencut.proofs.privacy.claims.gallery import GuardsWithoutR

    result = search_worst_pair(kary_tree(2, 2), Params.of(2, 1, 3), max_examples=30,
                               variant=GuardsWithoutR)
    assert result.refutation is not None
    assert result.refutation.counterexample()["excess"] > 0


def test_theorem_5_5_cli_exhaustive_audits_the_promised_epsilon_delta(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 28, sweep (CLI flags vs what the checker uses): `--exhaustive` with `--epsilon`
    and `--delta` audits the flags' `(ε, δ)` on every pair, as the one-pair mode does, besides
    the accountant's `(rλ, δ_r)` rows."""
    argv = ["audit", "privacy", "--height", "3", "--epsilon", "1", "--delta", "1/20",
            "--tau", "2", "--exhaustive", "1", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["holds"] is True and out["pairs"] > 1
    promised = out["claim"]["points"][-1]
    assert promised["eps"] == "1" and promised["delta_exact"] == "1/20"
    assert "Theorem 5.5: (1, 1/20)-DP" in out["claim"]["text"]
    assert {row["on"] for row in out["rows"] if "promised" in row} == {"transcript", "heavy"}
