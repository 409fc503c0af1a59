"""PrivTree's worst pair on databases of many points: the reachable-decomposition loss answers to
direct enumeration of the real `run`, the count DP answers to every database, and a membership
rule that needs two copies of a point to break ε-DP is refuted (the 2-point enumeration misses
it)."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest

from betweencut.baselines.privtree import Point, PrivTree
from betweencut.errors import ParameterError
from betweencut.proofs import ClaimRefuted
from betweencut.proofs.baselines.privtree_checks.privtree import check_privtree_dp, domain_points
from betweencut.proofs.baselines.privtree_checks.privtree_search import (
    Ratio,
    check_privtree_worst_pair,
    is_partition,
    pair_loss,
    privtree_rules,
    search_multiplicities,
    worst_pair,
)
from betweencut.proofs.exact.arith import sign
from betweencut.proofs.privacy.enumeration.transcripts import enumerate_mechanism

RULES = privtree_rules()


def direct_worst(mech: PrivTree, db: dict[Point, int], z: Point) -> Ratio:
    points = [p for p, k in db.items() for _ in range(k)]
    p = enumerate_mechanism(lambda t: mech.run(points, t)).law(lambda o: o)
    q = enumerate_mechanism(lambda t: mech.run([*points, z], t)).law(lambda o: o)
    best: Ratio | None = None
    for o in set(p) | set(q):
        for a, b in ((p[o], q[o]), (q[o], p[o])):
            if best is None or Ratio(a, b).exceeds(best):
                best = Ratio(a, b)
    assert best is not None
    return best


def same(a: Ratio, b: Ratio) -> bool:
    return sign(a.num * b.den - b.num * a.den) == 0


CASES = [({}, (0,)), ({(4,): 2}, (4,)), ({(0,): 1, (5,): 1}, (3,)), ({(3,): 2}, (4,))]


@pytest.mark.parametrize("rule", sorted(RULES))
def test_pair_loss_agrees_with_direct_enumeration_of_the_real_run(rule: str) -> None:
    mech = RULES[rule]
    for db, z in CASES:
        assert same(pair_loss(mech, db, z).worst()[0], direct_worst(mech, db, z)), (db, z)


def test_count_dp_agrees_with_every_database_of_one_point() -> None:
    mech = RULES["half-open"]
    cells = domain_points(mech)
    best: Ratio | None = None
    for db in [{}, *({p: 1} for p in cells)]:
        for z in cells:
            ratio = pair_loss(mech, db, z).worst()[0]
            best = ratio if best is None or ratio.exceeds(best) else best
    assert best is not None and same(worst_pair(mech, 1).ratio, best)


def test_privtree_epsilon_dp_worst_pair_over_every_database_of_20_points() -> None:
    cert = check_privtree_worst_pair(RULES["half-open"], 20)
    assert cert.quantities["D"] == {"(0,)": 2} and cert.quantities["loss"][1] < 1


def test_closed_membership_breaks_dp_only_with_two_copies_of_a_point() -> None:
    closed = RULES["closed"]
    assert not is_partition(closed)
    check_privtree_dp(closed, domain_points(closed), 2)  # every |D| <= 1: no violation seen
    check_privtree_worst_pair(closed, 1)
    with pytest.raises(ClaimRefuted) as caught:
        check_privtree_worst_pair(closed, 2)
    assert caught.value.counterexample["D"] == {"(4,)": 2}
    assert caught.value.counterexample["loss"][0] > 1


def test_worst_pair_parameters_are_validated() -> None:
    with pytest.raises(ParameterError):
        worst_pair(RULES["closed"], 2)  # not a partition rule
    with pytest.raises(ParameterError):
        worst_pair(RULES["half-open"], -1)
    with pytest.raises(ParameterError):
        pair_loss(replace(RULES["half-open"], min_bins=2), {}, (0,))
    with pytest.raises(ParameterError):
        pair_loss(RULES["half-open"], {}, (9,))
    with pytest.raises(ParameterError):
        search_multiplicities(RULES["half-open"], 2, support=3)


@pytest.mark.slow
def test_privtree_worst_pair_over_every_database_of_100_points_and_all_small_pairs() -> None:
    check_privtree_worst_pair(RULES["half-open"], 100)
    for rule, mech in RULES.items():
        cells = domain_points(mech)
        for db_points, z in itertools.product(
                itertools.chain([()], ((p,) for p in cells)), cells):
            db = {p: db_points.count(p) for p in db_points}
            assert same(pair_loss(mech, db, z).worst()[0], direct_worst(mech, db, z)), rule


def test_privtree_epsilon_dp_worst_pair_audits_the_claimed_epsilon_not_the_mechanisms() -> None:
    """Issue 28, sweep (PrivTree's ε vs the claim's): the claim is the `epsilon` given, never
    the audited object's own; a PrivTree built with `ε = 2` is refuted against a claim of 1
    and holds against 2, and one whose noise is calibrated for `2ε` while it carries `ε`
    (scale halved) is refuted against its `ε`. The certificate states the claim and the
    mechanism's `ε` apart, and the bound `e^ε` re-derived from the claimed `ε`."""
    from dataclasses import dataclass
    from fractions import Fraction

    from betweencut.proofs.exact.arith import ExpPoly, exact_str

    built = PrivTree.of(((0, 8),), 2)
    with pytest.raises(ClaimRefuted) as info:
        check_privtree_worst_pair(built, 2, epsilon=Fraction(1))
    assert info.value.counterexample["epsilon"] == Fraction(1)
    cert = check_privtree_worst_pair(built, 2, epsilon=Fraction(2))
    assert cert.parameters["epsilon"] == 2 and cert.parameters["delta"] == 0
    assert cert.parameters["mechanism_epsilon"] == 2
    assert cert.parameters["bound"] == exact_str(ExpPoly.exp(Fraction(2)))

    @dataclass(frozen=True)
    class HalvedScale(PrivTree):
        @property
        def scale(self) -> Fraction:
            return super().scale / 2

    m = RULES["half-open"]
    leaky = HalvedScale(m.box, m.epsilon, m.theta, m.split, m.member, m.min_bins,
                        m.ln_beta_upper)
    with pytest.raises(ClaimRefuted):
        check_privtree_worst_pair(leaky, 2)
