"""The SVT corpus and report-noisy-max: every row gets the literature's verdict exactly, and a
row whose stated verdict is wrong is rejected (principle 5)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction

import pytest

from betweencut.baselines import svt_corpus as sc
from betweencut.errors import ParameterError
from betweencut.proofs import ClaimRefuted
from betweencut.proofs.baselines.corpus_checks.corpus import (
    CORPUS,
    NOWHERE,
    PRIVATE,
    RowResult,
    audit_corpus,
    audit_row,
    check_corpus_verdicts,
)
from betweencut.proofs.exact.arith import enclose

ROWS = {row.name: row for row in CORPUS}


@pytest.fixture(scope="module")
def results() -> dict[str, RowResult]:
    return {r.row.name: r for r in audit_corpus()}


def test_svt_corpus_and_noisy_max_verdicts_match_the_literature(
        results: dict[str, RowResult]) -> None:
    certs = check_corpus_verdicts()
    assert [c.parameters["row"] for c in certs] == [row.name for row in CORPUS]
    assert all(r.agrees for r in results.values())
    holds = {name: r.holds for name, r in results.items()}
    assert holds == {"svt-alg1": True, "svt-alg2": True, "svt-alg4": False, "svt-alg5": False,
                     "svt-alg6": False, "noisy-max": True, "noisy-max-small-scale": False,
                     "noisy-max-shared-noise": False, "gaussian-svt": True,
                     "gaussian-svt-no-query-noise": False, "gaussian-noisy-max": True,
                     "gaussian-noisy-max-unit-sensitivity": False,
                     "hhh-shared-gamma": False, "hhh-fresh-gamma": True,
                     "binagg-privtree-add-remove": False, "binagg-privtree-replace-one": True}


def test_refuted_rows_carry_pair_event_and_exact_probabilities(
        results: dict[str, RowResult]) -> None:
    alg4 = results["svt-alg4"]
    cex = alg4.refutation
    assert cex is not None and cex.event == ("(False, True)",)
    assert str(cex.P) == "(5/56)" and alg4.detail["holds_at_eps_private"] is True
    alg5 = results["svt-alg5"].refutation  # an event with Q = 0 < P: private at no eps
    assert alg5 is not None and alg5.Q.is_zero() and not alg5.P.is_zero()
    family = results["svt-alg6"].detail["loss_family"]
    assert family["increasing"] and family["linear"] and len(family["members"]) == 3


def test_a_wrong_literature_verdict_is_rejected() -> None:
    for name, wrong in (("svt-alg6", PRIVATE), ("svt-alg1", NOWHERE), ("noisy-max", NOWHERE)):
        with pytest.raises(ClaimRefuted, match=name):
            check_corpus_verdicts((replace(ROWS[name], literature=wrong),))


def test_a_broken_variant_claimed_private_is_refuted() -> None:
    def alg1_without_query_noise(m: int):  # type: ignore[no-untyped-def]
        t = (Fraction(0),) * m
        return lambda q, test: sc._svt(q, t, Fraction(2), Fraction(0), 2, test)

    broken = replace(ROWS["svt-alg1"], name="alg1-no-query-noise", make=alg1_without_query_noise)
    with pytest.raises(ClaimRefuted, match="alg1-no-query-noise"):
        check_corpus_verdicts((broken,))


def test_corpus_parameters_are_validated() -> None:
    with pytest.raises(ParameterError):
        audit_corpus(names=("svt-alg3",))
    with pytest.raises(ParameterError):
        audit_row(ROWS["svt-alg1"], size=-1)
    with pytest.raises(ParameterError):
        sc.query_answers([(3, 0)], 2)
    with pytest.raises(ParameterError):
        sc.svt_alg1((Fraction(0),), (Fraction(0),), 0, Fraction(1), None)  # type: ignore[arg-type]


def test_audit_corpus_json_contract() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "betweencut", "audit", "corpus", "--json", "--name", "svt-alg5",
         "--name", "noisy-max"], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)["rows"]
    assert [r["name"] for r in rows] == ["svt-alg5", "noisy-max"]
    keys = {"name", "holds", "claim", "literature", "agrees", "refutation"}
    assert all(keys <= set(r) for r in rows)
    bad = subprocess.run([sys.executable, "-m", "betweencut", "audit", "corpus", "--name", "x"],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


@pytest.mark.slow
def test_svt_corpus_verdicts_on_every_database_of_one_record() -> None:
    check_corpus_verdicts(size=1)


USER_MODULE = '''
from fractions import Fraction
from betweencut.noise.noisy_queries import AboveThreshold, DrawNoise

def mine(q, test):
    rho = test(DrawNoise(Fraction(2)))
    return tuple(test(AboveThreshold(x, Fraction(0), Fraction(1), rho)) for x in q)

class Opaque:
    pass

def opaque(q, test):
    return Opaque()  # not a type the audit encodes: refused (a list is now an output)
'''


def test_a_user_svt_mechanism_is_audited_the_same_way(tmp_path: object) -> None:
    from pathlib import Path

    folder = Path(str(tmp_path))
    (folder / "usersvt.py").write_text(USER_MODULE, encoding="utf-8")
    env = {**__import__("os").environ, "PYTHONPATH": str(folder)}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "betweencut", "audit", "corpus", *args],
                              capture_output=True, text=True, check=False, env=env)

    refuted = cli("--mechanism", "usersvt:mine", "--queries", "2", "--json")
    assert refuted.returncode == 1, refuted.stderr
    row = json.loads(refuted.stdout)["rows"][0]
    assert row["holds"] is False and row["refutation"]["P"] == "(7/60)"
    lo, hi = (Fraction(x) for x in row["epsilon_at_delta_0"])
    assert 1 < lo < hi
    held = cli("--mechanism", "usersvt:mine", "--queries", "1", "--epsilon", "2")
    assert held.returncode == 0 and "holds" in held.stdout
    bad = cli("--mechanism", "usersvt:opaque")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "Opaque" in bad.stderr


def test_corpus_certificates_state_the_claim_rederived_independently() -> None:
    """Issue 28, item 2: each corpus certificate states the claim it certifies, `(ε, 0)`, and
    for a row private at a larger `ε'` that point too; `ε'` is re-derived here from the
    literature's formulas, `(1 + 6c)/4·ε` for Lee-Clifton's SVT (c = 1) and `Lap(2/ε')` against
    the scale `1/(2ε)` for the small-scale noisy max (`ε' = 4ε`)."""
    eps = Fraction(1)
    laplace = tuple(row for row in ROWS.values() if row.noise == "laplace")  # pure ε claims
    certs = {c.parameters["row"]: c for c in check_corpus_verdicts(laplace)}
    for cert in certs.values():
        assert cert.parameters["eps"] == eps and cert.parameters["delta"] == 0
        claimed = cert.parameters["claimed"]
        assert claimed[0] == {"eps": eps, "delta": Fraction(0)}  # type: ignore[index]
    expected = {"svt-alg4": (1 + 6 * 1) * eps / 4, "noisy-max-small-scale": 4 * eps}
    for name, cert in certs.items():
        larger = cert.parameters["claimed"][1:]  # type: ignore[index]
        assert larger == ([{"eps": expected[name], "delta": Fraction(0)}]
                          if name in expected else [])


def test_an_svt_whose_noise_differs_from_its_claimed_epsilon_is_refuted() -> None:
    """Issue 28, sweep (an SVT's ε vs the claim's): the claim is the row's `ε`, the noise the
    mechanism's; Lyu et al.'s Alg. 1 run with `ε = 3` claimed at 1 is refuted (at `ε = 2` the
    pairs with `|D| = 0` show a loss of only 0.67), and holds claimed at 3."""
    def alg1_at_three(m: int):  # type: ignore[no-untyped-def]
        t = (Fraction(0),) * m
        return lambda q, test: sc.svt_alg1(q, t, 2, Fraction(3), test)

    louder = replace(ROWS["svt-alg1"], name="alg1-noise-for-eps-3", make=alg1_at_three)
    result = audit_row(louder)
    assert not result.holds and result.refutation is not None and result.refutation.eps == 1
    with pytest.raises(ClaimRefuted, match="alg1-noise-for-eps-3"):
        check_corpus_verdicts((louder,))
    assert audit_row(replace(louder, eps=Fraction(3))).holds


@pytest.mark.parametrize("flags", [["--epsilon", "1/2"]])
def test_audit_corpus_refuses_a_claim_flag_it_would_not_use(flags: list[str]) -> None:
    """Issue 28, sweep (CLI flags vs what the checker uses): `--epsilon` is the claim of
    `--mechanism`'s audit; without `--mechanism` every row is audited at its own claimed `ε`,
    so the flag would be silently ignored: exit 2, one line. (`--queries` sets m for the rows
    too since issue 27: `test_audit_corpus_queries_sets_m_for_the_rows`.)"""
    out = subprocess.run(
        [sys.executable, "-m", "betweencut", "audit", "corpus", "--name", "noisy-max", *flags],
        capture_output=True, text=True, check=False)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "--mechanism" in out.stderr


def test_gaussian_corpus_claims_are_the_cited_bounds() -> None:
    """The noisy-max rows' claims are Balle-Wang's `δ(ε)` (Theorem 8) at ℓ2 sensitivity `√2`
    and `1`, `σ = 3/2`, rounded up to five significant digits: above the certified closed form
    and within `10^-4` relative of it; the SVT rows' are Zhu-Wang's, converted exactly."""
    from betweencut.proofs.baselines.corpus_checks.gaussian_corpus import zhu_wang_delta
    from betweencut.proofs.laws.continuous_gaussian import analytic_gaussian_delta, flint_available

    if not flint_available():
        pytest.skip("python-flint (fast extra)")
    for name, square in (("gaussian-noisy-max", Fraction(2)),
                         ("gaussian-noisy-max-unit-sensitivity", Fraction(1))):
        for eps, delta in ROWS[name].claim:
            _, hi = analytic_gaussian_delta(eps, Fraction(3, 2),
                                            sensitivity_squared=square).enclose(64)
            assert hi <= delta <= hi * (1 + Fraction(1, 10**4)), (name, eps)
    for eps, delta in ROWS["gaussian-svt"].claim:
        assert delta == zhu_wang_delta(eps, Fraction(1, 2), Fraction(1), 3)
    with pytest.raises(ParameterError):
        zhu_wang_delta(Fraction(6), Fraction(1, 2), Fraction(1), 3)  # the order must exceed 1
    with pytest.raises(ParameterError):
        zhu_wang_delta(Fraction(12), Fraction(0), Fraction(1), 3)


def test_gaussian_rows_carry_their_certified_evidence(results: dict[str, RowResult]) -> None:
    broken = results["gaussian-svt-no-query-noise"].refutation
    assert broken is not None and broken.Q == 0 and broken.event_size == 1  # Q = 0 exactly
    unit = results["gaussian-noisy-max-unit-sensitivity"]
    assert unit.detail["holds_at_claim_private"] is True
    ref = unit.refutation  # the worst of its points (issue 35, item 4): the largest excess
    assert ref is not None and ref.eps in {e for e, _ in unit.row.claim}
    assert enclose(ref.delta, 64)[0] > enclose(ref.bound, 64)[1]
    tight = results["gaussian-noisy-max"].detail["tightest"]
    assert tight["moves"] in ("(-1, 1)", "(1, -1)") and tight["eps"] == "1/2"
    svt = results["gaussian-svt"].detail
    svt_row = results["gaussian-svt"].row
    assert Fraction(svt["pure_loss"]["at_most"]) < svt_row.claim[0][0]  # vacuous here


def test_audit_corpus_queries_sets_m_for_the_rows() -> None:
    """Issue 27: `--queries M` sets m for every row that scales, and each JSON row states it."""
    out = subprocess.run(
        [sys.executable, "-m", "betweencut", "audit", "corpus", "--name", "noisy-max",
         "--name", "gaussian-noisy-max", "--queries", "4", "--json"],
        capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)["rows"]
    assert [(r["name"], r["queries"]) for r in rows] == [("noisy-max", 4),
                                                         ("gaussian-noisy-max", 2)]
