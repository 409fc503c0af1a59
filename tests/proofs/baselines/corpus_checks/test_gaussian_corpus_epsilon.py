"""A refuted Gaussian corpus row reports its largest `ε` at the claimed `δ` over the pairs,
certified as an enclosure (issue 35): checked against each pair's certified divergence computed
apart (no pair needs more than the upper end; the reported pair needs more than the lower end),
and a row private at no `(ε, δ)` reports no finite `ε`."""

from __future__ import annotations

from fractions import Fraction

import pytest

from betweencut.numbers.exact_text import read_rational
from betweencut.proofs.baselines.corpus_checks import corpus_rows
from betweencut.proofs.baselines.corpus_checks.corpus import CORPUS
from betweencut.proofs.baselines.corpus_checks.gaussian_corpus import audit_gaussian_row
from betweencut.proofs.exact.arith import sign
from betweencut.proofs.laws.continuous_gaussian import flint_available
from betweencut.proofs.privacy.enumeration.gaussian_noise import GaussianLawCache

ROWS = {row.name: row for row in CORPUS}


@pytest.fixture(autouse=True)
def _flint() -> None:
    if not flint_available():
        pytest.skip("python-flint (fast extra)")


def test_refuted_gaussian_row_reports_its_largest_epsilon_at_delta() -> None:
    row = ROWS["gaussian-noisy-max-unit-sensitivity"]
    found = audit_gaussian_row(row, 0)
    assert not found.holds and found.refutation is not None
    detail = found.detail
    lo, hi = (read_rational(x, "eps") for x in detail["epsilon_at_delta_in"])
    assert 0 <= lo <= hi and hi - lo <= Fraction(1, 32)
    assert found.worst is not None
    delta = found.worst.bound
    assert detail["epsilon_at_delta_delta_exact"] == str(delta)
    cache = GaussianLawCache(row.mechanism())
    pairs = corpus_rows.pairs_for(row, 0, corpus_rows.Relation())
    shown = detail["epsilon_at_delta_pair"]
    at_lo = []
    for pair in pairs:
        joint = cache.pair_joint(pair, "output")
        assert sign(joint.divergence(hi).delta - delta) <= 0  # no pair needs more than hi
        if lo > 0:
            at_lo.append(sign(joint.divergence(lo).delta - delta) > 0)
    assert lo == 0 or any(at_lo)  # some pair needs more than lo: the enclosure is not vacuous
    assert shown["D"] is not None and shown["z"]
    as_json = found.as_json()
    assert as_json["epsilon_at_delta_in"] == detail["epsilon_at_delta_in"]


def test_gaussian_row_private_nowhere_reports_no_finite_epsilon() -> None:
    found = audit_gaussian_row(ROWS["gaussian-svt-no-query-noise"], 0)
    assert not found.holds
    assert found.detail["epsilon_at_delta"] is None
    assert found.detail["epsilon_at_delta_in"][1] == "inf"
