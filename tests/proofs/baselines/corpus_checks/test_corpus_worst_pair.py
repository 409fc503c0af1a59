"""Issue 35, item 4: a refuted audit reports its worst pair, not its first.

Every refuted corpus row (Laplace noise, listed pairs) at `--size 1` (and 2, marked slow) reports
the largest `δ_pair(ε)` at its claim and the largest `ε` at `δ = 0` over every pair audited. Both
are recomputed here independently of the audit's loop, hockey stick and curves: each pair's two
laws, output by output, are turned into 60-digit mpmath numbers and `δ(ε) = max over the two
directions of Σ_o (P(o) - e^ε Q(o))_+` and `ε(0) = max_o ln(P(o)/Q(o))` (infinite when some output
has `Q(o) = 0 < P(o)`) are computed by hand. Two closed forms from the issue are checked too:
`hhh-shared-gamma` at size 1 has `δ(1) = 1 - 1/e` (its first refuting pair has half of it), and
`hhh-fresh-gamma` under replace-one reaches `ε = 4/3` (its first refuting pair has 1.082).
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from fractions import Fraction
from typing import Any

import mpmath
import pytest

from betweencut.api import audit_corpus, audit_mechanism
from betweencut.errors import ParameterError
from betweencut.noise.noisy_queries import LAPLACE
from betweencut.noise.noisy_test import BTQuery
from betweencut.proofs.baselines.corpus_checks.corpus import corpus_rows_all
from betweencut.proofs.baselines.corpus_checks.corpus_rows import PRIVATE, pairs_for
from betweencut.proofs.baselines.corpus_checks.corpus_scale import Listing
from betweencut.proofs.exact.arith import enclose
from betweencut.proofs.privacy.divergence.joint import Law
from betweencut.proofs.verdict import Relation

ROWS = {row.name: row for row in corpus_rows_all()}
DIGITS = 60


def _mp(x: Any) -> mpmath.mpf:
    lo, hi = enclose(x, 240)
    return (mpmath.mpf(lo.numerator) / lo.denominator + mpmath.mpf(hi.numerator)
            / hi.denominator) / 2


def _laws(joint: Any) -> list[tuple[Hashable, Any, Any]]:
    """Each output with its exact probability under both databases (zero: impossible)."""
    if isinstance(joint.p, Law):
        outputs = {*joint.p.bags, *joint.q.bags}
        return [(o, joint.p.value(o) if o in joint.p.bags else None,
                 joint.q.value(o) if o in joint.q.bags else None) for o in outputs]
    return [(o, joint.p.get(o), joint.q.get(o)) for o in joint.outputs]


def _zero(x: Any) -> bool:
    return x is None or x.is_zero()


def _by_hand(name: str, size: int, relation: Relation) -> tuple[mpmath.mpf, mpmath.mpf]:
    """The largest `δ(ε)` at the row's claim and the largest `ε(0)` over every pair."""
    row = ROWS[name].stated(relation)
    pairs = pairs_for(row, size, row.relation or relation)
    cache = Listing(row, pairs).cache
    factor = mpmath.exp(mpmath.mpf(row.eps.numerator) / row.eps.denominator)
    worst_delta, worst_eps = mpmath.mpf(0), mpmath.mpf(0)
    for pair in pairs:
        laws = _laws(cache.pair_joint(pair, "output"))
        for forward in (True, False):
            delta = mpmath.mpf(0)
            for _, p, q in laws:
                p, q = (p, q) if forward else (q, p)
                if _zero(p):
                    continue
                if _zero(q):
                    delta += _mp(p)
                    worst_eps = mpmath.inf
                    continue
                delta += max(_mp(p) - factor * _mp(q), 0)
                worst_eps = max(worst_eps, mpmath.log(_mp(p) / _mp(q)))
            worst_delta = max(worst_delta, delta)
    return worst_delta, worst_eps


def _refuted_rows(size: int) -> list[dict[str, Any]]:
    """Every Laplace row the literature refutes at its claim (not `private`), audited."""
    names = tuple(name for name, row in ROWS.items()
                  if row.literature != PRIVATE and row.noise == LAPLACE)
    rows = audit_corpus(size, names).as_json()["rows"]
    assert len(rows) == len(names) >= 7 and not any(r["holds"] for r in rows)
    return rows


def _check(rows: list[dict[str, Any]], size: int, relation: Relation) -> None:
    with mpmath.workdps(DIGITS):
        for r in rows:
            delta, eps = _by_hand(r["name"], size, relation)
            assert r["first"] is False
            assert math.isclose(r["worst"]["delta"], float(delta), rel_tol=1e-12), r["name"]
            if eps == mpmath.inf:
                assert r["epsilon_at_delta_0_exact"] == "inf", r["name"]
            else:
                assert math.isclose(r["epsilon_at_delta_0_approx"], float(eps),
                                    rel_tol=1e-12), r["name"]


def test_every_refuted_corpus_row_reports_its_worst_pair_at_size_1() -> None:
    _check(_refuted_rows(1), 1, Relation())


@pytest.mark.slow
def test_every_refuted_corpus_row_reports_its_worst_pair_at_size_2() -> None:
    _check(_refuted_rows(2), 2, Relation())


def test_hhh_shared_gamma_worst_pair_is_one_minus_one_over_e() -> None:
    """Size 1: the first refuting pair has `δ(1) = (1 - 1/e)/2 = 0.316`; the worst has
    `1 - 1/e = 0.632` (one record on the leaf of the other node's threshold)."""
    (row,) = audit_corpus(1, ("hhh-shared-gamma",)).as_json()["rows"]
    assert row["worst"]["delta_exact"] == "(-1)*exp(-1) + (1)"
    assert math.isclose(row["worst"]["delta"], 1 - math.exp(-1), rel_tol=1e-15)


def test_hhh_fresh_gamma_replace_one_reaches_four_thirds() -> None:
    (row,) = audit_corpus(1, ("hhh-fresh-gamma",), neighbours="replace-one").as_json()["rows"]
    assert row["epsilon_at_delta_0_exact"] == "4/3"
    with mpmath.workdps(DIGITS):
        _, eps = _by_hand("hhh-fresh-gamma", 1, Relation.of("replace-one"))
        assert mpmath.almosteq(eps, mpmath.mpf(4) / 3, 1e-40)


# -- audit_mechanism: the worst pair by default, first=True for CI ---------------------------

def growing(db: Any, test: Any) -> Any:
    """One BT test whose `λ` grows with `|D|`: the larger the database, the larger the loss,
    so the first refuting pair (the empty database) is not the worst."""
    n = Fraction(len(db))
    return test(BTQuery(n, Fraction(1), Fraction(2), (n + 1) / 2))


CLAIM: dict[str, Any] = {"exhaustive": 2, "height": 2, "epsilon": Fraction(1, 4), "delta": 0}


def test_the_audit_reports_the_worst_pair_and_first_stops_at_the_first() -> None:
    worst = audit_mechanism(growing, **CLAIM)
    first = audit_mechanism(growing, first=True, **CLAIM)
    assert not worst.holds and not first.holds
    assert (worst.first, first.first) == (False, True)
    assert first.pairs == 1 < worst.pairs
    each = [audit_mechanism(growing, [(row_db, z)], epsilon=Fraction(1, 4), delta=0, height=2)
            for row_db, z in (((), (0,)), (((0,),), (1,)), (((0,), (1,)), (0,)))]
    deltas = [v.rows[0].as_json()["delta"] for v in each]
    assert deltas == sorted(deltas) and deltas[0] < deltas[-1]  # the loss grows with |D|
    assert math.isclose(worst.as_json()["worst"]["delta"], deltas[-1], rel_tol=1e-12)
    assert math.isclose(first.as_json()["worst"]["delta"], deltas[0], rel_tol=1e-12)
    assert worst.as_json()["first"] is False and first.as_json()["first"] is True
    assert "stopped at the first refutation (first): not the worst pair" in first.text()
    assert "largest over the pairs audited up to the first refutation" in first.text()
    assert "the worst pair audited" in worst.text() and "stopped" not in worst.text()
    assert "up to the first refutation" in " ".join(i.what for i in first.assumes.items)


def test_first_must_be_a_bool() -> None:
    with pytest.raises(ParameterError, match="first"):
        audit_mechanism(growing, first="yes", **CLAIM)
