"""Issue 35, item 5: a deep PrivTree audit costs what its search costs.

On a box of `2^b` cells the worst pair's answer sequences are products of one two-term factor
per box of `T_z` (`b + 1` boxes); its exact curve expanded them (`[0, 2^40)`: past 30 minutes).
Past `CURVE_BOXES` the curve is not drawn: `epsilon_at_delta` at `δ = 0` is the pair's largest
loss, kept factored (`privtree_ratio.LogRatio`), and the claim is decided on that pair. Checked
here against the symmetric search's own loss (`copies_worst_pair`), computed apart.
"""

from __future__ import annotations

import json
import os
from fractions import Fraction
from pathlib import Path

import pytest

from betweencut.api import audit_mechanism
from betweencut.baselines.privtree import PrivTree
from betweencut.proofs.baselines.privtree_checks.privtree_audit import CURVE_BOXES
from betweencut.proofs.baselines.privtree_checks.privtree_depth import copies_worst_pair
from betweencut.proofs.baselines.privtree_checks.privtree_search import closed_member


def _deep(bits: int, closed: bool) -> PrivTree:
    if closed:
        return PrivTree.of(((0, 2**bits),), 1, member=closed_member)
    return PrivTree.of(((0, 2**bits),), 1)


def _check(bits: int, closed: bool, size: int) -> None:
    mech = _deep(bits, closed)
    verdict = audit_mechanism(lambda: mech, search=size, epsilon=1, delta=0)
    assert verdict.curve is None and "curve" not in verdict.facts  # not drawn: too deep
    lo, hi = copies_worst_pair(mech, size).found.ratio.loss_bounds()  # the search's own loss
    assert lo - 1e-9 <= verdict.facts["epsilon_at_delta"] <= hi + 1e-9
    assert verdict.holds is (verdict.facts["epsilon_at_delta"] <= 1)


def test_a_pair_deeper_than_the_curve_limit_is_decided_without_its_curve() -> None:
    bits = CURVE_BOXES + 4
    _check(bits, False, 10)


@pytest.mark.slow
@pytest.mark.parametrize(("closed", "expected"), [(False, 0.747372), (True, 1.494744)])
def test_search_100_on_two_to_the_40_answers(closed: bool, expected: float) -> None:
    mech = _deep(40, closed)
    verdict = audit_mechanism(lambda: mech, search=100, epsilon=1, delta=0)
    assert abs(verdict.facts["epsilon_at_delta"] - expected) < 1e-6
    assert verdict.holds is (not closed)


def test_a_refuted_pair_deeper_than_the_curve_limit_states_certified_factored_values() -> None:
    """Closed cells past `CURVE_BOXES`: the refuting pair's event is decided exactly and its
    `P(S)`, `Q(S)`, `δ` are certified enclosures from their factors (`FactoredJoint`), which
    the verdict states (`ARITHMETIC_FACTORED`)."""
    from betweencut.proofs import assumes as a
    from betweencut.proofs.exact.enclosure import Enclosure

    mech = _deep(CURVE_BOXES + 1, True)
    verdict = audit_mechanism(lambda: mech, search=30, epsilon=1, delta=0)
    assert verdict.holds is False and verdict.refutation is not None
    assert all(isinstance(row.delta, Enclosure) for row in verdict.rows)
    lo, hi = verdict.rows[0].delta.enclose(128)
    assert 0 < lo <= hi < lo * (1 + Fraction(1, 2**100))
    assert a.ARITHMETIC_FACTORED in verdict.assumes.items
    lo_eps, hi_eps = copies_worst_pair(mech, 30).found.ratio.loss_bounds()
    assert lo_eps - 1e-9 <= verdict.facts["epsilon_at_delta"] <= hi_eps + 1e-9
    # its exact eps runs to about 100 kB: the text shows its head, the JSON holds it whole
    exact = str(verdict.facts["epsilon_at_delta_exact"])
    assert len(exact) > 10_000 and max(len(line) for line in str(verdict).splitlines()) < 2_000
    assert f"({len(exact):,} characters in all; the JSON holds it whole)" in str(verdict)
    assert verdict.as_json()["epsilon_at_delta_exact"] == exact


@pytest.mark.slow
@pytest.mark.parametrize(("cell", "status", "expected"),
                         [("half_open", 0, 0.747372), ("closed", 1, 1.494744)])
def test_command_line_search_100_on_two_to_the_40_answers(
        tmp_path: Path, cell: str, status: int, expected: float) -> None:
    """The command line's `audit privacy --search 100` on `[0, 2^40)`, both cells: the
    verdict and `epsilon_at_delta` (its time: `bench/privtree_deep_search.py`)."""
    from cli_runs import run_script

    (tmp_path / "deep_privtree_40.py").write_text(
        "from betweencut.baselines.privtree import PrivTree\n"
        "from betweencut.proofs.baselines.privtree_checks.privtree_search import "
        "closed_member\n\n\n"
        "def half_open() -> PrivTree:\n    return PrivTree.of(((0, 2**40),), 1)\n\n\n"
        "def closed() -> PrivTree:\n"
        "    return PrivTree.of(((0, 2**40),), 1, member=closed_member)\n")
    ran = run_script(["audit", "privacy", "--mechanism", f"deep_privtree_40:{cell}", "--search",
                      "100", "--epsilon", "1", "--delta", "0", "--json"], cwd=str(tmp_path),
                     timeout=3600, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert ran.status == status, ran.err[-500:]
    out = json.loads(ran.out)
    assert abs(out["epsilon_at_delta"] - expected) < 1e-6
