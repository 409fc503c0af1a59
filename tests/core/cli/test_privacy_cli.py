"""`betweencut audit privacy` (issue 4): the JSON contract, usage errors, exhaustive mode."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from betweencut.cli import main
from betweencut.data.tree import kary_tree
from betweencut.mechanism.params import Params

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


def test_theorem_5_4_search_mode_finds_a_worst_pair_within_the_bound() -> None:
    """The one search (`audit_mechanism(..., search=N)`) on BetweenCut itself: with R = 12 the
    instance has power, and the worst pair drawn has delta > 0 and holds."""
    from betweencut.api import audit_mechanism
    from betweencut.mechanism.betweencut import BetweenCut

    verdict = audit_mechanism(BetweenCut, search=15, height=3, tau=1, lam=Fraction(1, 2), R=12,
                              claim="theorem-5.4", on="heavy")
    assert verdict.holds and verdict.worst is not None and verdict.worst.delta_in[1] > 0


@pytest.mark.parametrize(("variant", "flags"), [
    ("LaplaceScaleLambda", {"height": 3, "tau": 2, "lam": Fraction(1, 2), "R": 12}),
    ("GuardsWithoutR", {"height": 2, "tau": 2, "lam": 1, "R": 3}),
])
def test_theorem_5_4_search_mode_refutes_a_broken_variant(variant: str,
                                                          flags: dict[str, object]) -> None:
    from betweencut.api import audit_mechanism
    from betweencut.proofs.privacy.claims import gallery

    verdict = audit_mechanism(getattr(gallery, variant), search=30, claim="theorem-5.4",
                              on="heavy", **flags)  # type: ignore[arg-type]
    assert not verdict.holds and verdict.refutation is not None


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


@pytest.mark.parametrize("argv, words", [
    (["--height", "3", "--tau", "2", "--epsilon", "65536", "--delta", "0.05"],
     "give exactly one of --db D --add z, --exhaustive N or --search N"),
    (["--height", "2", "--tau", "1", "--epsilon", "1", "--delta", "0", "--exhaustive", "1",
      "--db", "0/0", "--add", "0/1"], "give exactly one of --db D --add z"),
    (["--height", "2", "--tau", "1", "--epsilon", "1", "--delta", "0", "--neighbours",
      "replace-one"], "give exactly one of --db D --other D'"),
])
def test_audit_privacy_without_one_mode_names_the_flags(argv: list[str], words: str) -> None:
    """No mode, or two: one line in the command's own flags, not the library's `pairs=`."""
    from cli_in_process import cli, one_line_exit_2

    line = one_line_exit_2(*cli(["audit", "privacy", *argv])[::2])
    assert words in line and "pairs=" not in line
