"""PrivTree at depth (issue 27, item 4): the largest loss over every database of copies of one
point on `[0, 2^20)`, by symmetry, answers to listing every pair with `pair_loss` where both
run (principle 8); mechanisms outside the symmetry's premises are refused, and forcing the
search on one of them would be wrong; answer sequences are counted exactly and the budget is
enforced before any run; `epsilon_bound` is the largest over every pair given."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import fields, replace
from fractions import Fraction
from typing import Any

import pytest

from betweencut.baselines.privtree import MIDPOINT_SPLIT, Box, Point, PrivTree, SplitRule
from betweencut.errors import ParameterError
from betweencut.noise.noisy_test import BTQuery, NoisyTest
from betweencut.proofs import ClaimRefuted
from betweencut.proofs.baselines.privtree_checks import privtree_depth
from betweencut.proofs.baselines.privtree_checks.privtree_audit import (
    DirectPrivTreeCache,
    PrivTreeLawCache,
    answer_sequences,
    as_points,
    domain,
    epsilon_bound,
    exhaustive_pairs,
    keep_set,
    multiplicities,
)
from betweencut.proofs.baselines.privtree_checks.privtree_depth import (
    SymmetryMismatch,
    check_privtree_copies_at_depth,
    copies_worst_pair,
    losses_by_copies,
    symmetry_refusal,
)
from betweencut.proofs.baselines.privtree_checks.privtree_ratio import Ratio
from betweencut.proofs.baselines.privtree_checks.privtree_search import closed_member, pair_loss
from betweencut.proofs.privacy.enumeration.cache import with_record
from betweencut.proofs.privacy.enumeration.transcripts import EnumerationBudgetExceeded
from betweencut.proofs.verdict import Direction


def closed(*box: tuple[int, int]) -> PrivTree:
    return PrivTree.of(box, 1, member=closed_member)


def half_open(*box: tuple[int, int]) -> PrivTree:
    return PrivTree.of(box, 1)


def listed(mech: PrivTree, max_copies: int) -> dict[tuple[int, Direction], Ratio]:
    """The slow side: every `(p, k, z)` listed, each pair's loss by `pair_loss`."""
    cells = domain(mech)
    out: dict[tuple[int, str], Ratio] = {}
    for k in range(max_copies + 1):
        for p, z in itertools.product(cells if k else [None], cells):
            loss = pair_loss(mech, {p: k} if p is not None else {}, z)
            for key, ratio in (((k, Direction.FORWARD), loss.forward),
                                 ((k, Direction.BACKWARD), loss.backward)):
                if key not in out or ratio.exceeds(out[key]):
                    out[key] = ratio
    return out


def equal(a: Ratio, b: Ratio) -> bool:
    return a.log.compare(b.log) == 0


CASES = [(closed((0, 8)), 5), (half_open((0, 8)), 4), (closed((0, 12)), 4),
         (half_open((0, 12)), 3), (closed((0, 4), (0, 4)), 3), (half_open((0, 5), (0, 3)), 3),
         (closed((0, 5), (0, 3)), 3)]


@pytest.mark.parametrize("mech, max_copies", CASES,
                         ids=[f"{m.member.__name__}-{m.box}" for m, _ in CASES])
def test_symmetric_search_equals_listing_every_pair(mech: PrivTree, max_copies: int) -> None:
    """For every number of copies and direction, the maximum over every `p` and `z`."""
    fast, slow = losses_by_copies(mech, max_copies), listed(mech, max_copies)
    assert fast.keys() == slow.keys()
    for key in fast:
        assert equal(fast[key], slow[key]), (mech.box, key)
    found = copies_worst_pair(mech, max_copies).found
    assert all(not r.exceeds(found.ratio) for r in slow.values())
    assert any(equal(r, found.ratio) for r in slow.values())


@pytest.mark.slow
@pytest.mark.parametrize("mech, max_copies", [(closed((0, 16)), 8), (closed((0, 6), (0, 5)), 4),
                                              (half_open((0, 16)), 6)])
def test_symmetric_search_equals_listing_every_pair_on_larger_boxes(
        mech: PrivTree, max_copies: int) -> None:
    fast, slow = losses_by_copies(mech, max_copies), listed(mech, max_copies)
    assert all(equal(fast[key], slow[key]) for key in slow)


def test_privtree_epsilon_dp_copies_of_one_point_at_depth() -> None:
    """Half-open cells hold on `[0, 2^20)` over every database of at most 100 copies of one
    point (loss 0.7457 at 27 copies of 0, growing with the depth); closed cells on
    `[0, 2^10)` are refused with the pair, 8 copies of the midpoint and a ninth."""
    cert = check_privtree_copies_at_depth(half_open((0, 1 << 20)), 100)
    assert cert.quantities["D"] == {"(0,)": 27} and cert.quantities["z"] == "(0,)"
    assert 0.7456 < cert.quantities["loss"][0] <= cert.quantities["loss"][1] < 0.7458
    with pytest.raises(ClaimRefuted) as caught:
        check_privtree_copies_at_depth(closed((0, 1 << 10)), 30)
    found = caught.value.counterexample
    assert found["D"] == {"(512,)": 8} and found["z"] == "(512,)"
    assert 1.3856 < found["loss"][0] < 1.3857
    assert check_privtree_copies_at_depth(closed((0, 1 << 10)), 30, epsilon=Fraction(14, 10))


def test_closed_rule_on_2_20_largest_loss_over_100_copies_of_one_point() -> None:
    """What issue 27 asks to show: the closed-cell PrivTree on `[0, 2^20)`, every database of
    at most 100 copies of one point and every added point (about 1.1·10^14 pairs): the
    largest loss is in [1.4912, 1.4914], at 27 copies of the midpoint and a 28th (bench:
    `python bench/privtree_depth.py`)."""
    search = copies_worst_pair(closed((0, 1 << 20)), 100)
    found = search.found
    assert found.db == {(1 << 19,): 27} and found.z == (1 << 19,)
    assert found.direction is Direction.BACKWARD and found.pairs == (1 + 100 * 2**20) * 2**20
    lo, hi = found.ratio.log.log_bounds()
    assert Fraction(14912, 10000) < lo <= hi < Fraction(14914, 10000)
    assert len(found.event) == 1 + 2 * 19  # the root and both paths, down to width 2
    assert "copies of one point" in search.covered()


def test_the_shortcut_epsilon_equals_the_curve_of_the_whole_run() -> None:
    """`epsilon_bound` at `δ = 0` takes `ε` from `pair_loss`: equal to the exact curve's
    `epsilon_at_delta(0)` of direct enumeration of the whole real run, on the worst pair of
    `[0, 16)` (four copies of 8 and a fifth, 1.3395)."""
    mech = closed((0, 16))
    pair = (as_points({(8,): 4}), (8,))
    bound = epsilon_bound(PrivTreeLawCache(mech), [pair], 0)
    assert bound is not None and bound.epsilon is not None and bound.curve is not None
    direct = DirectPrivTreeCache(mech).curve(*pair, "output").epsilon_at_delta(0)
    assert direct is not None and bound.epsilon.compare(direct) == 0
    lo, hi = bound.epsilon.enclose()
    assert Fraction(13395, 10000) < lo <= hi < Fraction(13396, 10000)


@pytest.mark.parametrize("delta", [Fraction(0), Fraction(1, 50)])
def test_epsilon_bound_is_the_largest_over_every_pair_given(delta: Fraction) -> None:
    """Not the pair of largest δ at the claim, nor the pairs before a refutation: every pair,
    each pair's ε from its exact curve."""
    mech = closed((0, 8))
    cache = PrivTreeLawCache(mech)
    pairs = exhaustive_pairs(mech, 2)
    bound = epsilon_bound(cache, pairs, delta)
    assert bound is not None and bound.epsilon is not None and bound.pairs == len(pairs)
    each = [cache.pair_curve(db, z).epsilon_at_delta(delta) for db, z in pairs]
    assert all(e is not None and e.compare(bound.epsilon) <= 0 for e in each)
    assert any(e is not None and e.compare(bound.epsilon) == 0 for e in each)
    assert multiplicities(bound.db) == {(4,): 2} and bound.z == (4,)
    assert epsilon_bound(cache, [], delta) is None


class BoxTheta(PrivTree):
    """A variant whose `query` depends on where the box is: a lower threshold left of 4."""

    def query(self, n_points: int, depth: int, box: Box) -> BTQuery:
        q = super().query(n_points, depth, box)
        return replace(q, a=q.a - 2, b=q.b - 2) if box[0][1] <= 4 else q


class WholeDatabaseRun(PrivTree):
    def run(self, points: Sequence[Point], test: NoisyTest | None = None) -> frozenset[Box]:
        return super().run(points, test)


def variant(cls: type[PrivTree], base: PrivTree) -> Any:
    return cls(**{f.name: getattr(base, f.name) for f in fields(base)})


def user_closed(point: Point, box: Box) -> bool:
    return all(lo <= x <= hi for x, (lo, hi) in zip(point, box, strict=True))


REFUSED = {
    "user rule": PrivTree.of(((0, 8),), 1, member=user_closed),
    "other split object": PrivTree.of(((0, 8),), 1, split=SplitRule(2, MIDPOINT_SPLIT.children)),
    "query": variant(BoxTheta, closed((0, 8))),
    "run": variant(WholeDatabaseRun, closed((0, 8))),
    "min_bins": replace(closed((0, 8)), min_bins=2),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_outside_the_symmetry_the_search_refuses(name: str) -> None:
    mech = REFUSED[name]
    assert symmetry_refusal(mech) is not None
    with pytest.raises(ParameterError):
        copies_worst_pair(mech, 2)


def test_forcing_the_symmetry_on_a_box_dependent_query_would_be_wrong(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Why `query` must be PrivTree's own: with a threshold that depends on the box, the
    representative boxes stand for boxes that test differently; forced, the search either
    fails its own witness check or misses the true maximum."""
    mech = REFUSED["query"]
    monkeypatch.setattr(privtree_depth, "symmetry_refusal", lambda m: None)
    truth = listed(mech, 2)
    try:
        forced = losses_by_copies(mech, 2)
    except SymmetryMismatch:
        return
    assert any(not equal(forced[key], truth[key]) for key in truth)


def test_answer_sequences_are_counted_exactly_and_the_budget_is_kept() -> None:
    """The count equals the enumeration (reduced and direct); past the budget the run stops
    before any enumeration, stating the exact count ([0, 32): 458,330 whole-run sequences,
    which the random-walk estimate put at 12,569)."""
    mech = closed((0, 16))
    cache = PrivTreeLawCache(mech)
    for counts, z in [({}, (8,)), ({(8,): 4}, (8,)), ({(3,): 2, (9,): 1}, (4,))]:
        db = as_points(counts)
        keep = keep_set(mech, z)
        for d in (db, with_record(db, z)):
            cache.reduced(d, keep, "output")  # checked equal to the count inside
            assert answer_sequences(mech, d, keep, 10**6) <= answer_sequences(mech, d, None,
                                                                                10**6)
    small = closed((0, 8))
    assert answer_sequences(small, (), None, 10**6) == DirectPrivTreeCache(
        small).enumeration(()).transcripts == 26
    assert answer_sequences(closed((0, 32)), (), None, 10**7) == 458330
    with pytest.raises(EnumerationBudgetExceeded, match=r"exactly .* in all \(counted\)"):
        DirectPrivTreeCache(closed((0, 64))).law((), "output")
    tight = PrivTreeLawCache(mech, limit=5)
    with pytest.raises(EnumerationBudgetExceeded, match="counted"):
        tight.divergence(as_points({(8,): 4}), (8,), "output", Fraction(1))


def test_copies_search_parameters_are_validated() -> None:
    for bad in (-1, 1001, True, 2.0):
        with pytest.raises(ParameterError):
            copies_worst_pair(closed((0, 8)), bad)  # type: ignore[arg-type]
    with pytest.raises(ParameterError):
        check_privtree_copies_at_depth(closed((0, 8)), 2, epsilon=0)
