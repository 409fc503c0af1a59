"""The Heavy set at depth (issue 13): the merged path grouping equals the real mechanism, exactly.

Principle 8: `betweencut.proofs.privacy.depth.heavy` is compared, as data (per released Heavy
set, the factor bags of its answer sequences under `D` and `D + z`) and as exact `δ(rλ)` for
every `r`, with full enumeration of the real `BetweenCut` code's `heavy` projection
(`PROJECTIONS["heavy"]` through `LawCache`), on small trees and chains, for every member of the
single-leaf band and the step profiles, and for gallery variants overriding `make_query`. A
deliberately wrong merge (B-sequences not merged with the pure sequence of their boundary) is
caught by the same comparison.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest
from depth_profiles import guarded_profiles

from betweencut.data.tree import PublicTree, kary_tree
from betweencut.errors import ParameterError
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.mechanism.params import Params
from betweencut.noise.noisy_test import Outcome
from betweencut.proofs.exact.arith import sign
from betweencut.proofs.laws.tct import theorem_5_4_bound
from betweencut.proofs.privacy.claims import gallery
from betweencut.proofs.privacy.claims.setup import PROJECTIONS
from betweencut.proofs.privacy.depth.depth_audit import (
    audit_profiles,
    paper_bounds,
    single_leaf_band,
)
from betweencut.proofs.privacy.depth.heavy import (
    HeavyJoint,
    HeavyKey,
    heavy_data_of,
    heavy_outputs,
    heavy_pair,
    heavy_rows,
    merge_of,
    rows_on,
)
from betweencut.proofs.privacy.depth.heavy_audit import (
    check_theorem_5_4_heavy_at_depth,
    heavy_at_most_transcript,
)
from betweencut.proofs.privacy.depth.path_search import search_profiles
from betweencut.proofs.privacy.depth.paths import MAX_HEIGHT, PathProfile, path_signatures
from betweencut.proofs.privacy.depth.transcript import profile_rows
from betweencut.proofs.privacy.divergence.joint import Joint
from betweencut.proofs.privacy.enumeration.cache import LawCache
from betweencut.proofs.registry import CLAIMS

PARAMS = [
    Params.of(Fraction(4), Fraction(1, 2), Fraction(2)),  # lower cut 0
    Params.of(Fraction(6), Fraction(1), Fraction(2)),  # lower cut 3: L-guarded siblings
]
FULL = (Outcome.L, Outcome.B, Outcome.H)


def _enumerated(tree: PublicTree, params: Params, profile: PathProfile,
                variant: type[BetweenCut] = BetweenCut) -> Joint:
    """The two Heavy-set laws of the real code, every answer sequence enumerated."""
    mechanism = variant(tree, params)
    cache = LawCache(lambda db, test: mechanism.run(db, test), PROJECTIONS)
    db, z = profile.database()
    return Joint(cache.law(db, "heavy"), cache.law(tuple(sorted((*db, z))), "heavy"))


def _same(pair: HeavyJoint, joint: Joint, profile: PathProfile, params: Params) -> bool:
    """Same data and the same exact δ(rλ) for every r (fast rows and exact reference)."""
    if pair.data() != heavy_data_of(joint.p.bags, joint.q.bags):
        return False
    bounds = paper_bounds(profile.height.bit_length(), params)
    for row in heavy_rows(pair, profile, bounds, exact=True):
        expected = joint.divergence(row.eps).delta
        if row.delta_exact() != expected or pair.divergence(row.eps).delta != expected:
            return False
        lo, hi = expected.enclose(80)
        assert row.delta_lo <= hi and lo <= row.delta_hi, (profile, row.r)
        assert row.holds == (sign(expected - row.bound.exact) <= 0)  # type: ignore[operator]
    return True


def _check_tree(k: int, h: int, params: Params) -> None:
    tree = kary_tree(k, h)
    mechanism = BetweenCut(tree, params)
    for profile in guarded_profiles(tree, params, two_heavy_siblings=False):
        assert _same(heavy_pair(mechanism, profile), _enumerated(tree, params, profile),
                     profile, params), profile


@pytest.mark.parametrize("h", [1, 2, 3, 7, 100, 2**20 - 1, MAX_HEIGHT])
def test_one_output_per_boundary_merging_2h_plus_1_sequences(h: int) -> None:
    outputs = heavy_outputs(PathProfile.single_leaf(h, 0), lambda k: FULL)
    assert sum(outputs.values()) == h + 1
    assert sum(n * sum(s is not None for s in merge_of(key))
               for key, n in outputs.items()) == 2 * h + 1
    # the merged sequences are exactly the transcript's answer sequences
    merged: Counter[tuple[int, ...]] = Counter()
    for key, n in outputs.items():
        for sig in merge_of(key):
            if sig is not None:
                merged[sig] += n
    assert merged == path_signatures(PathProfile.single_leaf(h, 0), lambda k: FULL)


@pytest.mark.parametrize("k, h, p", [(2, 1, 0), (2, 2, 0), (2, 3, 0), (2, 3, 1), (3, 2, 0),
                                     (3, 2, 1), (1, 7, 0), (1, 15, 1)])
def test_heavy_at_depth_equals_enumeration_every_member(k: int, h: int, p: int) -> None:
    _check_tree(k, h, PARAMS[p])


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAMS)
@pytest.mark.parametrize("k, h", [(2, 1), (2, 2), (2, 3), (2, 4), (3, 2), (3, 3), (1, 7),
                                  (1, 15)])
def test_heavy_at_depth_equals_enumeration_exhaustive_sweep(
        k: int, h: int, params: Params) -> None:
    _check_tree(k, h, params)


@pytest.mark.parametrize("name", ["Laplace scale lambda", "guards without R",
                                  "guards wrong sign"])
def test_heavy_variants_overriding_make_query_equal_their_enumeration(name: str) -> None:
    variant = gallery.PRIVACY_BREAKING[name].variant
    params = Params.of(Fraction(8), Fraction(1, 2), Fraction(2))
    for tree in (kary_tree(2, 3), kary_tree(1, 7)):
        mechanism = variant(tree, params)
        for profile in single_leaf_band(mechanism)[::2]:
            assert _same(heavy_pair(mechanism, profile),
                         _enumerated(tree, params, profile, variant), profile, params), profile


def _unmerged(outputs: Counter[HeavyKey]) -> Counter[HeavyKey]:
    """The deliberately wrong grouping: the B-sequence of a boundary as its own output."""
    out: Counter[HeavyKey] = Counter()
    for (prefix, (tail_l, tail_b)), n in outputs.items():
        if tail_l is not None:
            out[(prefix, (tail_l, None))] += n
        if tail_b is not None:
            out[(prefix, (None, tail_b))] += n
    return out


def test_a_wrong_merge_is_caught() -> None:
    """Principle 5: not merging B-sequences changes the data and some δ(rλ), on every tree."""
    params = PARAMS[0]
    for tree in (kary_tree(2, 3), kary_tree(1, 7)):
        mechanism = BetweenCut(tree, params)
        caught = differs = 0
        for profile in single_leaf_band(mechanism):
            right = heavy_pair(mechanism, profile)
            wrong = HeavyJoint(right.transcript, _unmerged(right.outputs))
            joint = _enumerated(tree, params, profile)
            assert _same(right, joint, profile, params)
            caught += not _same(wrong, joint, profile, params)
            bounds = paper_bounds(profile.height.bit_length(), params)
            rows = heavy_rows(wrong, profile, bounds, exact=True)
            differs += any(row.delta_exact() != joint.divergence(row.eps).delta for row in rows)
        assert caught >= 3 and differs >= 1, tree.description  # the data and some δ(rλ)


def test_heavy_never_exceeds_transcript_at_2_64_minus_1() -> None:
    """Post-processing at depth: per row `δ_heavy <= δ_transcript`; equal where both sequences
    of every merged output violate together (small r here), strictly smaller at some r for the
    noisy pairs (a B-sequence and the pure sequence of its boundary on opposite sides)."""
    params = Params.of(Fraction(18), Fraction(1, 2), Fraction(16))
    mechanism = BetweenCut(kary_tree(2, MAX_HEIGHT), params)
    bounds = paper_bounds(64, params)
    for count in (15, 17, 34):
        profile = PathProfile.single_leaf(MAX_HEIGHT, count)
        heavy = rows_on(mechanism, profile, bounds, on="heavy")
        full = rows_on(mechanism, profile, bounds)
        assert all(heavy_at_most_transcript(a, b) for a, b in zip(heavy, full, strict=True))
        smaller = [a.r for a, b in zip(heavy, full, strict=True) if a.delta_hi < b.delta_lo]
        assert count == 34 or smaller, count


def test_audit_profiles_and_search_on_heavy() -> None:
    params = PARAMS[1]
    mechanism = BetweenCut(kary_tree(2, 1023), params)
    audit = audit_profiles(mechanism, single_leaf_band(mechanism)[::5], paper_bounds(10, params),
                           on="heavy")
    assert audit.rows and audit.holds
    found = search_profiles(mechanism, paper_bounds(10, params), max_examples=4, on="heavy")
    assert found.tried >= 1 and not found.refuted
    with pytest.raises(ParameterError, match="on"):
        audit_profiles(mechanism, [], paper_bounds(10, params), on="released")
    with pytest.raises(ParameterError, match="on"):
        search_profiles(mechanism, paper_bounds(10, params), on="released")


def test_heavy_refuses_what_the_transcript_refuses() -> None:
    params = Params.of(Fraction(8), Fraction(1, 2), Fraction(2))
    top_down = gallery.PRIVACY_BREAKING["top-down levels"].variant
    with pytest.raises(ParameterError, match=r"keeps Alg\. 3"):
        heavy_pair(top_down(kary_tree(2, 15), params), PathProfile.single_leaf(15, 3))
    with pytest.raises(ParameterError, match="tau"):
        heavy_pair(BetweenCut(kary_tree(2, 7), Params.of(Fraction(3), Fraction(1, 2),
                                                          Fraction(2))),
                   PathProfile.single_leaf(7, 3))


def test_heavy_refuses_an_h_guarded_sibling_below_a_noisy_path_node() -> None:
    """A guard that is H at the sibling's count but not above it (a non-monotone variant):
    the sibling's label could depend on the path answers, so the merge is refused."""
    from betweencut.mechanism.guarded_bt import GuardedBT

    class Odd(GuardedBT):
        def guard(self, count: int) -> Outcome | None:
            return Outcome.H if count == 2 else GuardedBT.guard(self, count)

    class OddGuard(BetweenCut):
        def make_query(self) -> GuardedBT:
            q = super().make_query()
            return Odd(q.a, q.b, q.lam, q.R, q.lower_cut, q.upper_cut)  # type: ignore[attr-defined]

    params = Params.of(Fraction(8), Fraction(1, 2), Fraction(2))
    with pytest.raises(ParameterError, match="H-guarded sibling"):
        heavy_pair(OddGuard(kary_tree(2, 7), params), PathProfile(7, ((0, 5), (3, 3))))


def test_theorem_5_4_heavy_at_depth_holds_at_2_64_minus_1() -> None:
    assert check_theorem_5_4_heavy_at_depth in CLAIMS["Theorem 5.4"]
    params = Params.of(Fraction(18), Fraction(1, 2), Fraction(16))
    cert = check_theorem_5_4_heavy_at_depth(MAX_HEIGHT, params, counts=(15, 34))
    assert cert.verdict == "holds" and cert.method == "enumerated"


def test_theorem_5_4_heavy_at_depth_refutes_laplace_scale_lambda() -> None:
    """Principle 5: the variant refuted on the transcript at h = 2^16 - 1 (C = 15) is refuted
    on the released Heavy set too, at the claim's `ε = rλ`."""
    from betweencut.proofs.exact.certificate import ClaimRefuted

    variant = gallery.PRIVACY_BREAKING["Laplace scale lambda"].variant
    params = Params.of(Fraction(18), Fraction(1, 2), Fraction(16))
    with pytest.raises(ClaimRefuted) as info:
        check_theorem_5_4_heavy_at_depth(2**16 - 1, params, counts=(15,), variant=variant)
    facts = info.value.counterexample
    assert facts["count"] == 15 and facts["eps"] == facts["r"] * params.lam


def test_transcript_rows_are_unchanged_by_the_on_switch() -> None:
    params = PARAMS[0]
    mechanism = BetweenCut(kary_tree(2, 31), params)
    profile = PathProfile.single_leaf(31, 3)
    from betweencut.proofs.privacy.depth.transcript import depth_pair

    expected = profile_rows(depth_pair(mechanism, profile), profile, paper_bounds(5, params))
    got = rows_on(mechanism, profile, paper_bounds(5, params), on="transcript")
    assert [(r.delta_lo, r.delta_hi) for r in got] == [(r.delta_lo, r.delta_hi) for r in expected]


def test_theorem_5_4_heavy_at_depth_certificate_rows_rederived_independently() -> None:
    """Issue 28, item 2: the Heavy-set certificate at depth states its claim (`λ`, `R`, `L`
    and every `(r, ε, bound)`), each re-derived here from the test's own parameters by Eq.
    (22) (`theorem_5_4_bound`); every Heavy-set row is at the claimed `ε = rλ` with that bound,
    and the certified worst row is one of them."""
    from betweencut.proofs.exact.arith import exact_str

    lam, R, h = Fraction(1, 2), Fraction(16), 2**16 - 1
    params = Params.of(Fraction(18), lam, R)
    L = 16
    cert = check_theorem_5_4_heavy_at_depth(h, params, counts=(15, 34))
    assert cert.parameters["L"] == L and cert.parameters["lambda"] == lam
    assert cert.parameters["R"] == "16" and cert.parameters["on"] == "heavy"
    expected = [{"r": r, "eps": r * lam, "bound_exact": exact_str(theorem_5_4_bound(L, lam, R, r))}
                for r in range(1, L + 1)]
    assert cert.parameters["claimed"] == expected
    worst = cert.quantities
    assert worst["eps"] == worst["r"] * lam  # type: ignore[operator]
    assert worst["bound_exact"] == expected[worst["r"] - 1]["bound_exact"]  # type: ignore[operator]
    mechanism = BetweenCut(kary_tree(2, h), params)
    rows = audit_profiles(mechanism, [PathProfile.single_leaf(h, c) for c in (15, 34)],
                          paper_bounds(L, params), on="heavy").rows
    for row in rows:
        assert row.eps == row.r * lam and row.holds
        assert row.bound.exact == theorem_5_4_bound(L, lam, R, row.r)
