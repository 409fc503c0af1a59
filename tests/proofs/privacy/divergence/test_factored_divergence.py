"""`FactoredJoint` (P(S), Q(S) kept factored, certified) answers to `Joint` (expanded, exact):
on PrivTree's reduced laws over `[0, 2^b)`, both cells, the events are the same and every
exact value lies in its enclosure, in both directions and for their maximum; the audit through
the factored path gives the verdicts of the exact one. A perturbed event is not contained."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest

from betweencut.baselines.privtree import PrivTree
from betweencut.proofs.baselines.privtree_checks.privtree_audit import (
    PrivTreeLawCache,
    as_points,
    privtree_run,
)
from betweencut.proofs.baselines.privtree_checks.privtree_depth import copies_worst_pair
from betweencut.proofs.baselines.privtree_checks.privtree_search import closed_member
from betweencut.proofs.exact.arith import ExpPoly, enclose, sign
from betweencut.proofs.exact.enclosure import Enclosure
from betweencut.proofs.laws.factors import bags_value
from betweencut.proofs.privacy.audit.pairs import audit_pairs
from betweencut.proofs.privacy.divergence.factored import FactoredJoint, factored_sum
from betweencut.proofs.privacy.divergence.joint import Joint

EPS = (Fraction(0), Fraction(1, 2), Fraction(1), Fraction(3, 2), Fraction(3))


def _mech(bits: int, closed: bool) -> PrivTree:
    box = ((0, 2**bits),)
    return PrivTree.of(box, 1, member=closed_member) if closed else PrivTree.of(box, 1)


def _contains(approx: object, exact: ExpPoly) -> None:
    lo, hi = enclose(approx, 64)
    e_lo, e_hi = enclose(exact, 64)
    assert lo <= e_hi and e_lo <= hi  # the exact value's enclosure meets the certified one
    if isinstance(approx, Enclosure):
        lo, hi = approx.enclose(256)
        e_lo, e_hi = enclose(exact, 256)
        assert lo <= e_hi and e_lo <= hi
        assert hi - lo < Fraction(1, 2**200)


def _pairs(bits: int, closed: bool) -> list[tuple[tuple[tuple[int, ...], ...], tuple[int]]]:
    mech = _mech(bits, closed)
    deep = copies_worst_pair(mech, 6).found
    mid = 2 ** (bits - 1)
    return [(as_points(deep.db), deep.z), ((), (mid,)), (((mid,),) * 3, (mid,)),
            (((0,), (mid,)), (mid,))]


@pytest.mark.parametrize("closed", [False, True])
@pytest.mark.parametrize("bits", [1, 3, 6, 10])
def test_factored_hockey_stick_contains_the_exact_one(bits: int, closed: bool) -> None:
    cache = PrivTreeLawCache(_mech(bits, closed))
    for db, z in _pairs(bits, closed):
        p, q = cache.reduced_pair(db, z)
        exact, factored = Joint(p, q), FactoredJoint(p, q)
        for eps in EPS:
            for forward in (True, False):
                a, b = exact.hockey_stick(eps, forward), factored.hockey_stick(eps, forward)
                assert (a.event_size, a.direction) == (b.event_size, b.direction)
                assert a.event == b.event
                for x, y in ((a.delta, b.delta), (a.p_event, b.p_event),
                             (a.q_event, b.q_event)):
                    _contains(y, x)
            a, b = exact.divergence(eps), factored.divergence(eps)
            _contains(b.delta, a.delta)
            assert sign(a.delta) == sign(b.delta)


def test_a_factored_sum_excludes_a_wrong_value() -> None:
    """The enclosure can fail: one bag more, or one copy fewer, is not contained."""
    cache = PrivTreeLawCache(_mech(6, True))
    db, z = _pairs(6, True)[0]
    p, _ = cache.reduced_pair(db, z)
    bags: Counter[tuple[int, ...]] = Counter()
    for found in list(p.bags.values())[:5]:
        bags.update(found)
    right = bags_value(bags)
    _contains(factored_sum(bags), right)
    for wrong in (bags + Counter({next(iter(bags)): 1}),
                  bags - Counter({next(iter(bags)): 1})):
        lo, hi = factored_sum(wrong).enclose(128)
        e_lo, e_hi = enclose(right, 128)
        assert hi < e_lo or e_hi < lo


@pytest.mark.parametrize("closed", [False, True])
@pytest.mark.parametrize("bits", [3, 8])
def test_factored_audit_gives_the_exact_verdicts(bits: int, closed: bool) -> None:
    """`PrivTreeLawCache` past `factored_from` boxes (lowered here to 0) audits through
    `FactoredJoint`: the same verdict, refuting event and certified δ as the exact path."""
    mech = _mech(bits, closed)
    pairs = _pairs(bits, closed)
    points = [(Fraction(1), Fraction(0)), (Fraction(1, 2), Fraction(1, 10)),
              (Fraction(2), Fraction(0))]
    exact_cache, factored_cache = PrivTreeLawCache(mech), PrivTreeLawCache(mech)
    factored_cache.factored_from = 0
    for point in points:
        a = audit_pairs(privtree_run(mech), pairs, [point], cache=exact_cache, keep=True)
        b = audit_pairs(privtree_run(mech), pairs, [point], cache=factored_cache, keep=True)
        assert a.holds is b.holds
        for x, y in zip(a.results, b.results, strict=True):
            assert (x.key, x.holds) == (y.key, y.holds)
            _contains(y.delta, x.delta)
        if not a.holds:
            assert a.refutation is not None and b.refutation is not None
            assert a.refutation.key == b.refutation.key
