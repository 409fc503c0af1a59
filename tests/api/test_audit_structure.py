"""The main job covers every claim (issue 18): `betweencut audit` runs the structural claims
(group `structure`) and prints one row per registered claim, saying what was checked."""

from __future__ import annotations

import pytest

from betweencut.api import audit
from betweencut.api.claims import cases as audit_cases_all
from betweencut.api.claims import registry_claim
from betweencut.proofs import CLAIMS, ClaimRefuted, audit_cases
from betweencut.properties.broken import (
    StructuralMutantNoMarkUpOnB,
    StructuralMutantTopDown,
    classifier,
)
from betweencut.properties.check import ALL_CLAIMS
from betweencut.properties.predicates import LEMMA_4_2, LEMMA_4_3
from betweencut.properties.structure_audit import AUDIT_EXAMPLES, GROUP, check_structural_claim


def test_structural_claims_hold_in_the_audit_with_the_number_of_runs() -> None:
    cases = [c for c in audit_cases_all() if c.group == GROUP]
    assert sorted(c.title.split(" on ")[0] for c in cases) == sorted(ALL_CLAIMS)
    verdict = audit(GROUP)
    assert verdict.holds and verdict.exit_status == 0 and verdict.refutation is None
    assert {r.claim for r in verdict.rows} == set(ALL_CLAIMS)
    for row in verdict.rows:
        assert row.verdict == "holds" and row.method == "property"
        runs = int(row.checked.split()[0])
        assert runs >= 1 + (0 if "heights" in row.checked else 2), row
        assert "derandomised" in row.checked


@pytest.mark.parametrize(("claim", "variant"), [
    (LEMMA_4_2, StructuralMutantTopDown), (LEMMA_4_3, StructuralMutantNoMarkUpOnB)])
def test_structural_audit_check_rejects_a_broken_variant(claim: str, variant: type) -> None:
    with pytest.raises(ClaimRefuted, match=claim):
        check_structural_claim(claim, AUDIT_EXAMPLES, classifier(variant))


def test_every_audit_row_is_a_registered_claim_and_every_claim_has_a_row() -> None:
    """The audit's rows are the registry's claims, so its count matches the claims table's
    (one row per claim there may list several checkers)."""
    cases = audit_cases_all()
    claims_of_cases = {registry_claim(c.title.split(" on ")[0]) for c in cases
                       if c.group == GROUP}
    assert claims_of_cases <= set(CLAIMS)
    assert registry_claim("Eq. (25), X = L") == "Eq. (25)"
    assert registry_claim("Theorem 5.4 (enumerated)") == "Theorem 5.4 (enumerated)"
    proof_groups = {c.group for c in audit_cases() if c.group != GROUP}
    assert {"calibration", "laws", "privacy", "baselines"} <= proof_groups


@pytest.mark.slow
def test_main_audit_rows_are_exactly_the_registered_claims() -> None:
    from betweencut.cli.audit import audit

    result = audit()
    assert result["holds"]
    assert {r["claim"] for r in result["rows"]} == set(CLAIMS)


def test_audit_cases_are_listed_in_the_checkers_order_whatever_was_imported_first() -> None:
    """The main audit lists its groups in `checkers.ORDER`: importing a checker module early (the
    parser reaching an accountant, say) no longer reorders the printed audit (README's example)."""
    import subprocess
    import sys

    from betweencut.proofs.checkers import ORDER

    listed = [c.run.__module__ for c in audit_cases() if c.run.__module__.startswith(
        "betweencut.proofs.")]
    assert set(listed) <= set(ORDER)
    assert listed == sorted(listed, key=ORDER.index)
    script = ("import betweencut.proofs.privacy.accountants.tight_calibration\n"
              "from betweencut.proofs import audit_cases\n"
              "print([c.title for c in audit_cases() if c.run.__module__.startswith("
              "'betweencut.proofs.')])")
    early = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           check=True).stdout.strip()
    assert early == repr([c.title for c in audit_cases()
                          if c.run.__module__.startswith("betweencut.proofs.")])
