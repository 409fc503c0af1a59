"""The grouped profile of a shared outcome tree
(`betweencut.proofs.privacy.enumeration.pair_classes`) equals the general
one exactly, and its packed arithmetic refuses what it cannot represent (issue 4, speed path)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from betweencut.data.tree import kary_tree
from betweencut.errors import ParameterError
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.mechanism.params import Params
from betweencut.proofs.exact.arith import ExpPoly
from betweencut.proofs.exact.packed import Lattice
from betweencut.proofs.laws.factors import bag_value
from betweencut.proofs.privacy.audit.pairs import audit_pairs
from betweencut.proofs.privacy.claims.gallery import PRIVACY_BREAKING, LaplaceScaleLambda
from betweencut.proofs.privacy.claims.setup import PROJECTIONS, betweencut_cache, theorem_5_4_points
from betweencut.proofs.privacy.enumeration.cache import LawCache, neighbouring_pairs
from betweencut.proofs.privacy.enumeration.pair_classes import AlignedJoint

CASES = [  # (arity, height, tau, lambda, R)
    (2, 3, Fraction(2), Fraction(1, 2), Fraction(2)),  # no guard fires
    (2, 3, Fraction(1), Fraction(1), Fraction(1)),  # H guard from count 3: patterns differ
    (2, 3, Fraction(3), Fraction(1), Fraction(1)),  # L guard at counts 0 and 1
    (2, 3, Fraction(3, 2), Fraction(1, 3), Fraction(5, 2)),  # thresholds off the integers
    (3, 2, Fraction(1), Fraction(1, 2), Fraction(3, 2)),
]


@pytest.mark.parametrize("k, h, tau, lam, R", CASES)
def test_theorem_5_4_aligned_profile_equals_direct_enumeration(
    k: int, h: int, tau: Fraction, lam: Fraction, R: Fraction
) -> None:
    """Every pair |D| <= 2, both projections, both directions, ε on the lattice (0, λ, 2λ)
    and off it (λ/3 + 1/7): δ, P(S), Q(S) and |S| are equal as exact numbers to those of the
    general comparison of the two directly enumerated laws, and every shown output is in S."""
    tree = kary_tree(k, h)
    params = Params.of(tau, lam, R)
    shared = betweencut_cache(tree, params)
    mechanism = BetweenCut(tree, params)
    direct = LawCache(lambda db, test: mechanism.run(db, test), PROJECTIONS)
    aligned = 0
    for db, z in neighbouring_pairs(list(tree.level(h - 1)), 2):
        for on in ("transcript", "heavy"):
            fast, slow = shared.joint(db, z, on), direct.joint(db, z, on)
            aligned += isinstance(fast, AlignedJoint)
            for eps in (Fraction(0), lam, 2 * lam, lam / 3 + Fraction(1, 7)):
                for forward in (True, False):
                    a, b = fast.hockey_stick(eps, forward), slow.hockey_stick(eps, forward)
                    assert (a.delta, a.p_event, a.q_event, a.event_size) == (
                        b.delta, b.p_event, b.q_event, b.event_size), (db, z, on, eps, forward)
                    x, y = (slow.p, slow.q) if forward else (slow.q, slow.p)
                    for o in a.event:  # an output impossible under y has y-probability 0
                        y_o = y.value(o) if o in y.bags else ExpPoly()
                        assert (x.value(o) - y_o * ExpPoly.exp(eps)).sign() > 0
    assert aligned > 0


def test_theorem_5_4_packed_bag_values_equal_the_exact_products() -> None:
    """Packing a bag by multiplying packed factors gives the encoding of its exact value."""
    tree = kary_tree(2, 3)
    cache = betweencut_cache(tree, Params.of(2, Fraction(1, 2), 2))
    for db, z in neighbouring_pairs(list(tree.level(2)), 2):
        cache.joint(db, z, "transcript")
    packer = cache.packer  # type: ignore[attr-defined]
    bags = list(packer._bags)
    assert len(bags) > 50
    for bag in bags:
        assert packer.pack(bag) == packer.lattice.encode(bag_value(bag))
        assert packer.lattice.decode(packer.pack(bag)) == bag_value(bag)


def test_theorem_5_4_lattice_is_exact_and_refuses_what_it_cannot_hold() -> None:
    a = ExpPoly({Fraction(-3, 2): Fraction(1, 2), Fraction(0): Fraction(1),
                 Fraction(-1, 4): Fraction(-3, 8)})
    b = ExpPoly({Fraction(-1, 2): Fraction(-5, 4)})
    lat = Lattice.of(4, 8, Fraction(-3, 2), Fraction(16))  # a - 3b has Σ|c| < 16
    pa, pb = lat.encode(a), lat.encode(b)
    assert lat.decode(pa) == a and lat.decode(pb) == b
    assert lat.decode(pa - 3 * pb) == a - b * 3
    shift = lat.shift(Fraction(1, 2))
    assert shift is not None
    assert lat.decode((pb << shift) - pa) == b * ExpPoly.exp(Fraction(1, 2)) - a
    assert lat.shift(Fraction(1, 3)) is None and lat.shift(Fraction(-1, 2)) is None
    for off in (ExpPoly({Fraction(1, 3): Fraction(1)}),  # exponent off the grid
                ExpPoly({Fraction(0): Fraction(1, 3)}),  # coefficient off 1/den
                ExpPoly({Fraction(-100): Fraction(1)}),  # below the lowest exponent
                ExpPoly({Fraction(0): Fraction(10**6)})):  # a digit wider than the width
        with pytest.raises(ParameterError):
            lat.encode(off)


def test_theorem_5_4_aligned_path_refutes_a_broken_variant() -> None:
    """The Laplace-scale mistake is refuted through the grouped path, with the same excess as
    the general path computes on the same pair."""
    case = PRIVACY_BREAKING["Laplace scale lambda"]
    tree = kary_tree(case.arity, case.height)
    params = Params.of(case.tau, case.lam, case.R)
    points = theorem_5_4_points(tree, params)
    shared = betweencut_cache(tree, params, LaplaceScaleLambda)
    assert isinstance(shared.joint(case.db, case.z, case.on), AlignedJoint)
    fast = audit_pairs(shared.run, [(case.db, case.z)], points, on=case.on, cache=shared)
    mechanism = LaplaceScaleLambda(tree, params)
    slow = audit_pairs(lambda db, test: mechanism.run(db, test), [(case.db, case.z)],
                           points, on=case.on, projections=PROJECTIONS)
    assert not fast.holds and not slow.holds
    assert fast.refutation is not None and slow.refutation is not None
    assert fast.refutation.delta == slow.refutation.delta


def test_theorem_5_4_aligned_profile_on_a_path_longer_than_one_machine_word() -> None:
    """A chain of 34 nodes: the answers on the added record's path no longer fit one int64
    key (2 bits a node), and the grouping falls back to comparing rows; still exact."""
    tree = kary_tree(1, 34)
    params = Params.of(2, Fraction(1, 2), 2)
    shared = betweencut_cache(tree, params)
    mechanism = BetweenCut(tree, params)
    direct = LawCache(lambda db, test: mechanism.run(db, test), PROJECTIONS)
    leaf = (0,) * 33
    for db in ((), (leaf,)):
        for on in ("transcript", "heavy"):
            fast, slow = shared.joint(db, leaf, on), direct.joint(db, leaf, on)
            assert isinstance(fast, AlignedJoint) and len(fast.table.index) > 31
            for eps in (Fraction(1, 2), Fraction(1)):
                a, b = fast.divergence(eps), slow.divergence(eps)
                assert (a.delta, a.p_event, a.q_event, a.event_size) == (
                    b.delta, b.p_event, b.q_event, b.event_size)
