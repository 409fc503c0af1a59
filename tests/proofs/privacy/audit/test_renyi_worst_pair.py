"""Rényi and zCDP claims find the worst pair by default (issue 35): a refuted claim goes on over
every pair and reports the witness with the largest excess `D_α - ε(α)`, checked against each
pair audited alone; `first=True` stops at the first witness and says so (`verdict.first`)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from example_modules import load_example

from betweencut import audit_mechanism
from betweencut.data.tree import kary_tree
from betweencut.proofs.privacy.audit.renyi_claims import refutes_more
from betweencut.proofs.privacy.divergence.renyi import OrderResult
from betweencut.proofs.verdict import enclosure


def _excess(refutation: Any) -> tuple[Fraction, Fraction]:
    d_lo, d_hi = enclosure(refutation.delta, 128)
    b_lo, b_hi = enclosure(refutation.bound, 128)
    return d_lo - b_hi, d_hi - b_lo


def test_renyi_claims_report_the_worst_pair_unless_first() -> None:
    run = load_example("my_field_mechanism").busiest_branch
    worst = audit_mechanism(run, height=3, exhaustive=1, claim="zcdp:1/4")
    early = audit_mechanism(run, height=3, exhaustive=1, claim="zcdp:1/4", first=True)
    assert not worst.holds and not early.holds
    assert worst.first is False and early.first is True
    assert early.pairs <= worst.pairs
    assert worst.refutation is not None and early.refutation is not None
    assert "the worst pair audited (the largest D_alpha - claimed)" in worst.text()
    assert "stopped at the first refutation" in early.text()
    leaves = sorted(kary_tree(2, 3).level(2))
    alone = []
    for n in (0, 1):
        for db in ([()] if n == 0 else [(leaf,) for leaf in leaves]):
            for z in leaves:
                one = audit_mechanism(run, [(list(db), z)], height=3, claim="zcdp:1/4")
                if one.refutation is not None:
                    alone.append(one.refutation)
    assert len(alone) > 1
    lo, hi = _excess(worst.refutation)
    assert all(_excess(r)[1] <= hi for r in alone)  # none refutes by more than the one shown
    assert any(_excess(r)[0] >= lo for r in alone)  # and it is one of them
    e_lo, _ = _excess(early.refutation)
    assert e_lo <= hi


def test_refutes_more_orders_by_excess_and_infinity_first() -> None:
    from betweencut.proofs.exact.arith import ExpRational
    from betweencut.proofs.privacy.divergence.renyi import INFINITE, Divergence

    def result(alpha: int, s: object, bound: Fraction) -> OrderResult:
        return OrderResult(Fraction(alpha), Divergence(Fraction(alpha), s),  # type: ignore[arg-type]
                           bound, False, True)

    small = result(2, ExpRational.of(Fraction(3)), Fraction(1))  # ln 3 - 1 = 0.0986
    large = result(3, ExpRational.of(Fraction(9)), Fraction(1))  # ln 9 / 2 - 1 = 0.0986: a tie
    larger = result(2, ExpRational.of(Fraction(4)), Fraction(1))  # ln 4 - 1 = 0.386
    infinite = result(2, INFINITE, Fraction(1))
    assert refutes_more(larger, small) and not refutes_more(small, larger)
    assert not refutes_more(large, small) and not refutes_more(small, large)  # equal: keep first
    assert refutes_more(infinite, larger) and not refutes_more(larger, infinite)
    assert not refutes_more(infinite, infinite)
