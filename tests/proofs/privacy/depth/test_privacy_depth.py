"""Privacy at depth (issue 13, Part 1): the path grouping equals the real mechanism, exactly.

Principle 2: every value of `betweencut.proofs.privacy.depth.transcript` is compared, as data (the
multiset of probability pairs of the answer sequences) and as exact `δ(rλ)` for every `r`,
with the full enumeration of the real `BetweenCut` code through `ReplayTest`
(`betweencut.proofs.privacy.enumeration.transcripts`): on small complete trees (binary h <= 4,
ternary h <= 3) for every family member, on chains (dense Alg. 3) and on binary trees through the
sparse implementation (Appendix D) at moderate heights.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import pytest
from depth_profiles import guarded_profiles

from betweencut.data.tree import PublicTree, kary_tree
from betweencut.errors import ParameterError
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.mechanism.calibration import calibrate
from betweencut.mechanism.depo import depo
from betweencut.mechanism.guarded_bt import GuardedBT
from betweencut.mechanism.params import Params
from betweencut.mechanism.sparse import sparse_between_cut
from betweencut.noise.noisy_test import NoisyTest, Outcome
from betweencut.proofs.exact.arith import exact_str, sign
from betweencut.proofs.exact.certificate import ClaimRefuted
from betweencut.proofs.laws.tct import theorem_5_4_bound
from betweencut.proofs.privacy.claims import gallery
from betweencut.proofs.privacy.claims.setup import PROJECTIONS
from betweencut.proofs.privacy.depth.depth_audit import (
    audit_profiles,
    check_theorem_5_4_at_depth,
    gallery_at_depth,
    paper_bounds,
    single_leaf_band,
    step_profiles,
)
from betweencut.proofs.privacy.depth.path_search import search_profiles
from betweencut.proofs.privacy.depth.paths import (
    MAX_HEIGHT,
    PathProfile,
    midpoint,
    path_signatures,
    sequence_count,
)
from betweencut.proofs.privacy.depth.transcript import (
    ClaimedBound,
    PathJoint,
    depth_pair,
    profile_rows,
)
from betweencut.proofs.privacy.divergence.joint import Joint
from betweencut.proofs.privacy.enumeration.cache import LawCache
from betweencut.proofs.registry import CLAIMS

# (tau, lambda, R): lower guard cut 0 (only count 0 guarded), cut 3 (L-guarded siblings up to 3)
PARAMS = [
    Params.of(Fraction(4), Fraction(1, 2), Fraction(2)),
    Params.of(Fraction(6), Fraction(1), Fraction(2)),
]
FULL = (Outcome.L, Outcome.B, Outcome.H)


def _enumerated(tree: PublicTree, params: Params, profile: PathProfile,
                run: Callable[[tuple[tuple[int, ...], ...], NoisyTest], object] | None = None,
                variant: type[BetweenCut] = BetweenCut) -> Joint:
    """The two transcript laws of the real code, every answer sequence enumerated."""
    if run is None:
        mechanism = variant(tree, params)

        def run(db: tuple[tuple[int, ...], ...], test: NoisyTest) -> object:
            return mechanism.run(db, test)

    cache = LawCache(run, PROJECTIONS)
    db, z = profile.database()
    return Joint(cache.law(db, "transcript"), cache.law(tuple(sorted((*db, z))), "transcript"))


def _assert_equal(pair: PathJoint, joint: Joint, profile: PathProfile, params: Params) -> None:
    """Same grouped law (as data) and the same exact δ(rλ) for every r, both ways."""
    assert pair.pairs == joint.pairs, profile
    bounds = paper_bounds(profile.height.bit_length(), params)
    for row in profile_rows(pair, profile, bounds, exact=True):
        expected = joint.divergence(row.eps).delta
        assert row.delta_exact() == expected, (profile, row.r)
        lo, hi = expected.enclose(80)
        assert row.delta_lo <= hi and lo <= row.delta_hi, (profile, row.r)
        assert row.holds == (sign(expected - row.bound.exact) <= 0)  # type: ignore[operator]


def test_midpoint_is_the_first_level_depo_asks() -> None:
    for h in range(1, 65):
        stack = [(0, h - 1)]
        while stack:
            i, j = stack.pop()
            if i > j:
                continue
            m = midpoint(i, j)
            assert depo(i, j)[0] == m
            stack += [(i, m - 1), (m + 1, j)]


@pytest.mark.parametrize("h", [1, 2, 3, 7, 100, 2**20 - 1, MAX_HEIGHT])
def test_path_search_has_2h_plus_1_answer_sequences(h: int) -> None:
    sigs = path_signatures(PathProfile.single_leaf(h, 0), lambda k: FULL)
    assert sum(sigs.values()) == sequence_count(h) == 2 * h + 1
    assert max(sum(sig) for sig in sigs) == h.bit_length()  # Lemma 4.2: at most L answers
    assert all(sig[1] <= 1 for sig in sigs)  # Lemma 4.3: at most one B


@pytest.mark.parametrize("k, h", [(2, 4), (3, 3), (1, 7)])
def test_depth_equals_enumeration_on_small_trees_every_member(k: int, h: int) -> None:
    """Every single-leaf C across the band and the two-segment profiles, first parameters."""
    tree = kary_tree(k, h)
    params = PARAMS[0] if k != 2 else PARAMS[1]
    mechanism = BetweenCut(tree, params)
    for profile in guarded_profiles(tree, params):
        _assert_equal(depth_pair(mechanism, profile), _enumerated(tree, params, profile),
                      profile, params)


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAMS)
@pytest.mark.parametrize("k, h", [(2, 1), (2, 2), (2, 3), (2, 4), (3, 2), (3, 3), (1, 15)])
def test_depth_equals_enumeration_exhaustive_sweep(k: int, h: int, params: Params) -> None:
    tree = kary_tree(k, h)
    mechanism = BetweenCut(tree, params)
    for profile in guarded_profiles(tree, params):
        _assert_equal(depth_pair(mechanism, profile), _enumerated(tree, params, profile),
                      profile, params)


def _chain_case(h: int, count: int) -> None:
    params = PARAMS[0]
    tree = kary_tree(1, h)
    profile = PathProfile.single_leaf(h, count)
    _assert_equal(depth_pair(BetweenCut(tree, params), profile),
                  _enumerated(tree, params, profile), profile, params)


@pytest.mark.parametrize("h", [15, 31])
def test_depth_equals_enumeration_on_chains(h: int) -> None:
    for count in (0, 2, 5, 7):
        _chain_case(h, count)


@pytest.mark.slow
@pytest.mark.parametrize("h", [63, 127])
def test_depth_equals_enumeration_on_long_chains(h: int) -> None:
    for count in (range(9) if h < 100 else (0, 4, 7)):
        _chain_case(h, count)


def _sparse_case(h: int, profile: PathProfile, params: Params) -> None:
    tree = kary_tree(2, h)

    def run(db: tuple[tuple[int, ...], ...], test: NoisyTest) -> object:
        return _Transcript(sparse_between_cut(tree, list(db), params, test, record=True).transcript)

    _assert_equal(depth_pair(BetweenCut(tree, params), profile),
                  _enumerated(tree, params, profile, run=run), profile, params)


class _Transcript:
    """The sparse run seen through the `transcript` projection."""

    def __init__(self, transcript: object) -> None:
        self.transcript = transcript


@pytest.mark.parametrize("h", [31])
def test_depth_equals_sparse_enumeration_with_guarded_siblings(h: int) -> None:
    params = PARAMS[1]  # lower cut 3, upper cut 9
    for profile in (PathProfile.single_leaf(h, 5), PathProfile(h, ((0, 8), (5, 5))),
                    PathProfile(h, ((0, 22), (3, 13), (17, 4)))):
        _sparse_case(h, profile, params)


@pytest.mark.slow
def test_depth_equals_sparse_enumeration_at_h61() -> None:
    params = PARAMS[1]
    for profile in (PathProfile(61, ((0, 6), (30, 4))), PathProfile(61, ((0, 17), (1, 8))),
                    PathProfile(61, ((0, 12), (2, 9), (40, 6), (59, 3)))):
        _sparse_case(61, profile, params)


GALLERY_LAW_VARIANTS = ["guards wrong sign", "guards without R", "Laplace scale lambda"]


@pytest.mark.parametrize("name", GALLERY_LAW_VARIANTS)
def test_variants_changing_the_query_law_equal_their_enumeration(name: str) -> None:
    variant = gallery.PRIVACY_BREAKING[name].variant
    for params in (Params.of(Fraction(8), Fraction(1, 2), Fraction(2)),
                   Params.of(Fraction(18), Fraction(1, 2), Fraction(16))):
        tree = kary_tree(2, 4)
        mechanism = variant(tree, params)
        for profile in single_leaf_band(mechanism)[::3]:
            _assert_equal(depth_pair(mechanism, profile),
                          _enumerated(tree, params, profile, variant=variant), profile, params)


def test_half_width_variant_equals_its_enumeration() -> None:
    variant = gallery.STRUCTURAL_ONLY["half-width thresholds"][0]
    params = Params.of(Fraction(8), Fraction(1, 2), Fraction(2))
    tree = kary_tree(3, 3)
    mechanism = variant(tree, params)
    for profile in single_leaf_band(mechanism)[::2]:
        _assert_equal(depth_pair(mechanism, profile),
                      _enumerated(tree, params, profile, variant=variant), profile, params)


@pytest.mark.parametrize("name", ["top-down levels"])
def test_depth_refuses_variants_overriding_modelled_seams(name: str) -> None:
    params = Params.of(Fraction(8), Fraction(1, 2), Fraction(2))
    for variant in (gallery.PRIVACY_BREAKING[name].variant,
                    gallery.STRUCTURAL_ONLY["B does not cut"][0]):
        with pytest.raises(ParameterError, match=r"keeps Alg\. 3"):
            depth_pair(variant(kary_tree(2, 15), params), PathProfile.single_leaf(15, 3))

    class OwnRun(BetweenCut):
        def run(self, leaves, test=None):  # type: ignore[no-untyped-def]
            return super().run(leaves, test)

    with pytest.raises(ParameterError, match="run"):
        depth_pair(OwnRun(kary_tree(2, 15), params), PathProfile.single_leaf(15, 3))


class _QueryOnTheInstance(BetweenCut):
    """`make_query`'s product, half-width thresholds, set on the instance in `__init__`: a
    seam the path grouping models (it reads the laws off the object's own count query)."""

    def __init__(self, tree: PublicTree, params: Params) -> None:
        super().__init__(tree, params)
        w = 1 / (2 * params.lam)
        self.count_query = GuardedBT.of(params.tau - w, params.tau + w, params.R, params.lam)


def test_a_count_query_set_on_the_instance_equals_its_enumeration() -> None:
    """Principle 9 for the path grouping: a modelled seam set outside the class body (the count
    query on the instance) agrees exactly with full enumeration of the real code."""
    params = Params.of(Fraction(8), Fraction(1, 2), Fraction(2))
    tree = kary_tree(2, 4)
    mechanism = _QueryOnTheInstance(tree, params)
    assert mechanism.count_query != BetweenCut(tree, params).count_query
    for profile in single_leaf_band(mechanism)[::2]:
        _assert_equal(depth_pair(mechanism, profile),
                      _enumerated(tree, params, profile, variant=_QueryOnTheInstance),
                      profile, params)


def test_depth_refuses_modelled_seams_set_on_the_instance() -> None:
    """`check_seams` reads the constructed object: `level_order`, `apply` or `run` set on the
    instance, and a count query whose `query` is set on the query object, are refused, naming
    the seam and where it was set."""
    params = Params.of(Fraction(8), Fraction(1, 2), Fraction(2))
    for name in ("level_order", "apply", "run"):
        mechanism = BetweenCut(kary_tree(2, 15), params)
        setattr(mechanism, name, getattr(mechanism, name))
        with pytest.raises(ParameterError, match=rf"keeps Alg\. 3's {name} .*{name} is set on "
                                                 r"the instance"):
            depth_pair(mechanism, PathProfile.single_leaf(15, 3))

    class Loose(GuardedBT):
        pass

    mechanism = BetweenCut(kary_tree(2, 15), params)
    g = mechanism.count_query
    assert isinstance(g, GuardedBT)
    q = Loose(g.a, g.b, g.lam, g.R, g.lower_cut, g.upper_cut)
    object.__setattr__(q, "query", lambda count, node=None: g.query(count, node))
    mechanism.count_query = q
    with pytest.raises(ParameterError, match=r"query is set on the instance"):
        depth_pair(mechanism, PathProfile.single_leaf(15, 3))


def test_depth_refuses_query_objects_it_cannot_observe_per_count() -> None:
    """The shared-path soundness class of issue 12, at depth: a query whose noisy test reads the
    node, or whose guard answers without noise at one count while `guard()` is unchanged in
    spirit but not in code, is either modelled from its observed call or refused."""
    from betweencut.mechanism.guarded_bt import GuardedBT
    from betweencut.noise.noisy_test import BTQuery

    params = Params.of(Fraction(8), Fraction(1, 2), Fraction(2))

    class NodeRate(GuardedBT):
        def query(self, count: int, node: object = None) -> BTQuery:
            lam = self.lam * 2 if node == (0,) else self.lam
            return BTQuery(Fraction(count), self.a, self.b, lam, node)

    class Reads(BetweenCut):
        def make_query(self) -> GuardedBT:
            q = super().make_query()
            return NodeRate(q.a, q.b, q.lam, q.R, q.lower_cut, q.upper_cut)  # type: ignore[attr-defined]

    with pytest.raises(ParameterError, match="node"):
        depth_pair(Reads(kary_tree(2, 15), params), PathProfile.single_leaf(15, 3))

    class Noiseless(GuardedBT):
        def guard(self, count: int) -> Outcome | None:
            return Outcome.H if count == 5 else GuardedBT.guard(self, count)

    class Observed(BetweenCut):
        def make_query(self) -> GuardedBT:
            q = super().make_query()
            return Noiseless(q.a, q.b, q.lam, q.R, q.lower_cut, q.upper_cut)  # type: ignore[attr-defined]

    mechanism = Observed(kary_tree(2, 4), params)
    profile = PathProfile.single_leaf(4, 5)
    _assert_equal(depth_pair(mechanism, profile),
                  _enumerated(kary_tree(2, 4), params, profile, variant=Observed), profile, params)


def test_depth_refuses_unguarded_off_path_nodes() -> None:
    params = Params.of(Fraction(3), Fraction(1, 2), Fraction(2))  # tau < E = 4
    with pytest.raises(ParameterError, match="tau"):
        depth_pair(BetweenCut(kary_tree(2, 7), params), PathProfile.single_leaf(7, 3))
    no_guards = gallery.STRUCTURAL_ONLY["no guards"][0]
    with pytest.raises(ParameterError, match="guarded L"):
        depth_pair(no_guards(kary_tree(2, 7), PARAMS[0]), PathProfile.single_leaf(7, 3))
    # a sibling of 1 record is noisy when only count 0 is guarded
    with pytest.raises(ParameterError, match="sibling"):
        depth_pair(BetweenCut(kary_tree(2, 7), PARAMS[0]), PathProfile(7, ((0, 3), (2, 2))))
    # on a chain there is no sibling to hold the step
    with pytest.raises(ParameterError, match="chain"):
        depth_pair(BetweenCut(kary_tree(1, 7), PARAMS[1]), PathProfile(7, ((0, 12), (2, 2))))
    with pytest.raises(ParameterError):
        PathProfile(7, ((0, 2), (3, 5)))  # counts must not grow along the path
    with pytest.raises(ParameterError):
        PathProfile(MAX_HEIGHT + 1, ((0, 2),))


def test_theorem_5_4_at_depth_holds_for_betweencut_at_h_2_64_minus_1() -> None:
    assert CLAIMS["Theorem 5.4"]
    params = Params.of(Fraction(18), Fraction(1, 2), Fraction(16))
    cert = check_theorem_5_4_at_depth(MAX_HEIGHT, params, counts=(15, 17, 34, 35))
    assert cert.verdict == "holds" and cert.method == "enumerated"


def test_theorem_5_4_at_depth_refutes_laplace_scale_lambda_at_h_15_calibrated() -> None:
    """Issue 28: noise `Lap(λ)` instead of `Lap(1/λ)` at h = 15, calibrated (1, 0.05), τ = 24.
    Every row must evaluate `δ` at the claim's `ε = rλ` (λ = 1/4 of the claimed parameters),
    not at the variant query's `λ` (4): refuted, and `δ(1)` at C = 19 is certified in
    (0.8392, 0.8393) against the claimed 1/40 (an exact excess)."""
    cal = calibrate(15, Fraction(1), Fraction(1, 20))
    params = cal.params(24)
    variant = gallery.PRIVACY_BREAKING["Laplace scale lambda"].variant
    with pytest.raises(ClaimRefuted) as info:
        check_theorem_5_4_at_depth(15, params, variant=variant)
    facts = info.value.counterexample
    assert facts["eps"] == Fraction(facts["r"]) * params.lam  # the claim's epsilon
    excess = facts["excess"]
    assert isinstance(excess, str) and not excess.startswith("-")
    mechanism = variant(kary_tree(2, 15), params)
    profile = PathProfile.single_leaf(15, 19)
    rows = profile_rows(depth_pair(mechanism, profile), profile, paper_bounds(cal.L, params))
    row = rows[cal.r - 1]
    assert row.eps == cal.epsilon == 1
    assert sign(row.bound.exact - cal.delta / 2) == 0  # (L/2)e^{-λ(R-1)} = δ/2 at r = L
    lo, hi = row.delta_exact().enclose(64)
    assert Fraction(8392, 10**4) < lo <= hi < Fraction(8393, 10**4)
    assert sign(row.delta_exact() - cal.delta) > 0


def test_theorem_5_4_at_depth_refutes_laplace_scale_lambda_at_every_entry_point() -> None:
    """The same mismatch through every other way in at depth: the Heavy-set checker, the gallery
    at depth and the profile search all audit against the claim and refute the variant."""
    from betweencut.proofs.privacy.depth.heavy_audit import check_theorem_5_4_heavy_at_depth

    params = calibrate(15, Fraction(1), Fraction(1, 20)).params(24)
    name = "Laplace scale lambda"
    variant = gallery.PRIVACY_BREAKING[name].variant
    with pytest.raises(ClaimRefuted):
        check_theorem_5_4_heavy_at_depth(15, params, variant=variant)
    found = gallery_at_depth([15], params, {name: variant})[name][15]
    assert not isinstance(found, str) and not found.holds
    mechanism = variant(kary_tree(2, 15), params)
    assert search_profiles(mechanism, paper_bounds(4, params), max_examples=20).refuted


def test_theorem_5_4_at_depth_certificate_rows_rederived_independently() -> None:
    """Issue 28, item 2: the certificate states its claim, and every certified row's `ε` and
    bound are re-derived here from the claimed parameters alone (Eq. (22), by
    `theorem_5_4_bound`), not from the checker's bookkeeping or the mechanism's query."""
    params = Params.of(Fraction(8), Fraction(1, 2), Fraction(2))
    h = 15
    L = h.bit_length()
    cert = check_theorem_5_4_at_depth(h, params)
    claimed = cert.parameters["claimed"]
    assert isinstance(claimed, list) and len(claimed) == L
    for r, point in enumerate(claimed, start=1):
        assert point == {"r": r, "eps": r * Fraction(1, 2),
                         "bound_exact": exact_str(theorem_5_4_bound(L, Fraction(1, 2),
                                                              params.R, r))}
    mechanism = BetweenCut(kary_tree(2, h), params)
    audit = audit_profiles(mechanism, single_leaf_band(mechanism, params),
                           paper_bounds(L, params))
    assert audit.holds and len(audit.rows) == L * len(single_leaf_band(mechanism))
    for row in audit.rows:
        assert row.eps == row.r * Fraction(1, 2)
        assert row.bound.exact == theorem_5_4_bound(L, Fraction(1, 2), params.R, row.r)


def test_depth_rows_follow_the_claimed_points_not_the_query() -> None:
    """A claim at points that are not multiples of the query's `λ` (the tight accountant's, or
    any increasing ε): every row's δ equals full enumeration at that same ε."""
    params = PARAMS[0]
    tree = kary_tree(2, 3)
    profile = PathProfile.single_leaf(3, 2)
    eps = [Fraction(1, 3), Fraction(5, 7), Fraction(2)]
    bounds = [ClaimedBound.of(r, e, Fraction(1, 10)) for r, e in enumerate(eps, start=1)]
    rows = profile_rows(depth_pair(BetweenCut(tree, params), profile), profile, bounds,
                        exact=True)
    joint = _enumerated(tree, params, profile)
    assert [row.eps for row in rows] == eps
    for row in rows:
        assert sign(row.delta_exact() - joint.divergence(row.eps).delta) == 0
    backwards = [ClaimedBound.of(r, e, Fraction(1, 10))
                  for r, e in enumerate(reversed(eps), start=1)]
    with pytest.raises(ParameterError, match="increasing"):
        profile_rows(depth_pair(BetweenCut(tree, params), profile), profile, backwards)


def test_gallery_at_depth_reports_refusals_and_refutations() -> None:
    params = Params.of(Fraction(18), Fraction(1, 2), Fraction(16))
    variants = {name: gallery.PRIVACY_BREAKING[name].variant
                for name in ("guards without R", "top-down levels")}
    found = gallery_at_depth([MAX_HEIGHT], params, variants)
    refuted = found["guards without R"][MAX_HEIGHT]
    assert not isinstance(refuted, str) and not refuted.holds
    assert isinstance(found["top-down levels"][MAX_HEIGHT], str)


def test_step_profiles_and_search_hold_for_betweencut() -> None:
    params = PARAMS[1]
    mechanism = BetweenCut(kary_tree(2, 1023), params)
    assert step_profiles(mechanism)
    deep = step_profiles(BetweenCut(kary_tree(2, MAX_HEIGHT), params))  # depths 1, h/2, h - 1
    assert {p.steps[1][0] for p in deep} == {1, MAX_HEIGHT // 2, MAX_HEIGHT - 1}
    found = search_profiles(mechanism, paper_bounds(10, params), max_examples=8)
    assert found.tried >= 1 and found.rows and not found.refuted
