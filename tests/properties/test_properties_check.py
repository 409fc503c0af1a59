"""`check_implementation` against our classifier and the structurally broken variants.

Our dense Alg. 3 passes every claim; each `StructuralMutant...` is caught and the report names
the claim it breaks (Lemma 4.3, 4.2, B.1 and Theorem C.2), with a shrunk input.
"""

from __future__ import annotations

import pytest

from betweencut.errors import ParameterError
from betweencut.mechanism.betweencut import between_cut
from betweencut.mechanism.depo import depth_order
from betweencut.properties.broken import STRUCTURAL_MUTANTS, classifier
from betweencut.properties.check import ALL_CLAIMS, ImplementationFailed, check_implementation
from betweencut.properties.pytest_plugin import betweencut_check  # noqa: F401  (fixture)


def test_check_implementation_passes_our_dense_classifier() -> None:
    report = check_implementation(between_cut, depo_fn=depth_order, max_examples=30,
                                  derandomize=True)
    assert report.ok, report.summary()
    assert [r.claim for r in report.results] == list(ALL_CLAIMS)


RUN_CLAIMS = [c for c in ALL_CLAIMS if c != "Proposition D.1"]  # D.1 has its own test (slow shrink)


@pytest.mark.parametrize("name", list(STRUCTURAL_MUTANTS))
def test_check_implementation_names_the_lemma_a_mutant_breaks(name: str) -> None:
    variant, claim = STRUCTURAL_MUTANTS[name]
    report = check_implementation(classifier(variant), claims=RUN_CLAIMS, max_examples=30,
                                  derandomize=True)
    assert claim in report.failed_claims, report.summary()
    failed = next(r for r in report.results if r.claim == claim)
    assert failed.violation is not None and failed.violation.claim == claim
    assert failed.falsifying.startswith("Case(")  # the shrunk input is shown


def test_proposition_d_1_check_implementation_catches_an_unguarded_classifier() -> None:
    variant, _ = STRUCTURAL_MUTANTS["no guards"]
    report = check_implementation(classifier(variant), claims=["Proposition D.1"],
                                  max_examples=30, derandomize=True)
    assert report.failed_claims == ["Proposition D.1"], report.summary()


@pytest.mark.slow
def test_check_implementation_all_claims_name_every_lemma_of_markup_through_h() -> None:
    variant, _ = STRUCTURAL_MUTANTS["MarkUp through H"]
    report = check_implementation(classifier(variant), max_examples=10, derandomize=True)
    assert {"Lemma B.1", "Lemma B.3"} <= set(report.failed_claims), report.summary()
    assert "Lemma 4.2" not in report.failed_claims


def test_lemma_4_2_top_down_mutant_witness_is_a_chain_of_l_plus_1() -> None:
    variant, claim = STRUCTURAL_MUTANTS["top-down levels"]
    report = check_implementation(classifier(variant), claims=[claim], max_examples=30,
                                  derandomize=True)
    (result,) = report.results
    assert result.violation is not None
    witness = result.violation.counterexample
    assert len(witness["queried_on_path"]) == witness["L"] + 1  # the shortest offending chain


def test_check_implementation_raises_with_the_lemma_name() -> None:
    variant, claim = STRUCTURAL_MUTANTS["no MarkUp on B"]
    with pytest.raises(ImplementationFailed, match=r"Lemma 4\.3"):
        check_implementation(classifier(variant), claims=[claim], max_examples=30, derandomize=True,
                             raise_on_failure=True)


def test_check_implementation_reports_a_crashing_classifier() -> None:
    def crashes(tree, leaves, params, test):  # type: ignore[no-untyped-def]
        raise RuntimeError("boom")

    report = check_implementation(crashes, claims=["Lemma 4.3"], max_examples=5)
    assert not report.ok and isinstance(report.results[0].error, RuntimeError)


def test_check_implementation_depo_claim_rejects_a_top_down_order() -> None:
    report = check_implementation(between_cut, claims=["Alg. 2 (DepO)"],
                                  depo_fn=lambda h: list(range(h)), max_examples=20)
    assert report.failed_claims == ["Alg. 2 (DepO)"]
    assert report.results[0].falsifying == "h = 2"  # the smallest height where it differs


def test_check_implementation_validates_its_parameters() -> None:
    with pytest.raises(ParameterError):
        check_implementation(between_cut, claims=["Lemma 9.9"])
    with pytest.raises(ParameterError):
        check_implementation("not callable", claims=[])  # type: ignore[arg-type]


def test_pytest_fixture_checks_in_one_line(betweencut_check) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    betweencut_check(between_cut, claims=["Lemma 4.2", "Lemma 4.3"], max_examples=10,
                     derandomize=True)


def test_pytest_fixture_fails_a_broken_classifier(betweencut_check) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    variant, claim = STRUCTURAL_MUTANTS["no guards"]
    with pytest.raises(pytest.fail.Exception, match=r"Theorem C\.2"):
        betweencut_check(classifier(variant), claims=[claim], max_examples=30, derandomize=True)
