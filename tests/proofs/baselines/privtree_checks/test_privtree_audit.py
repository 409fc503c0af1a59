"""PrivTree through `audit_pairs` (issue 16): the reduced laws of `PrivTreeLawCache` answer to
direct enumeration of the real `run` (principle 8), for the default rule, the closed rule, a
non-monotone membership rule and a variant overriding `score`; the closed rule is refuted with
the pair, event and exact P and Q; the half-open rule holds at its eps, with curve and
epsilon_at_delta on the worst pair."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from fractions import Fraction
from typing import Any

import pytest

from betweencut.baselines.privtree import Box, Point, PrivTree
from betweencut.errors import ParameterError
from betweencut.noise.noisy_test import BTQuery, NoisyTest, Outcome
from betweencut.proofs.baselines.privtree_checks.privtree_audit import (
    DecompositionMismatch,
    PrivTreeLawCache,
    as_points,
    counts_key,
    dp_pair,
    exhaustive_pairs,
    keep_set,
    multiplicities,
    multiplicity_pairs,
    privtree_run,
)
from betweencut.proofs.baselines.privtree_checks.privtree_search import (
    closed_member,
    pair_loss,
    privtree_rules,
)
from betweencut.proofs.exact.arith import sign
from betweencut.proofs.privacy.audit.pairs import audit_pairs
from betweencut.proofs.privacy.divergence.joint import Joint
from betweencut.proofs.privacy.enumeration.cache import LawCache
from betweencut.proofs.privacy.enumeration.transcripts import MechanismNotReplayable

RULES = privtree_rules()
EPS = [Fraction(0), Fraction(1, 2), Fraction(1), Fraction(3, 2)]


def shifted_member(point: Point, box: Box) -> bool:
    """A non-monotone rule: boxes of width 2 count the points two cells to their left
    (cyclically), so a box may count `z` while its parent does not."""
    (x,), ((lo, hi),) = point, box
    if hi - lo == 2:
        return lo <= (x + 2) % 8 < hi
    return lo <= x < hi


class NoPenalty(PrivTree):
    """A broken variant overriding the `score` seam: no depth penalty."""

    def score(self, n_points: int, depth: int) -> Fraction:
        return max(Fraction(n_points), self.theta - self.depth_penalty)


class GlobalTheta(PrivTree):
    """A variant whose threshold is read off the database size: it does not count boxes with
    `member` alone, so the decomposition must refuse it."""

    def run(self, points: Sequence[Point], test: NoisyTest | None = None) -> frozenset[Box]:
        base = PrivTree(self.box, self.epsilon, Fraction(-len(points)), self.split, self.member,
                        self.min_bins, self.ln_beta_upper)
        return base.run(points, test)


def variant(cls: type[PrivTree], base: PrivTree) -> Any:
    return cls(**{f.name: getattr(base, f.name) for f in fields(base)})


MECHS = {
    "half-open": RULES["half-open"],
    "closed": RULES["closed"],
    "shifted": PrivTree.of(((0, 8),), 1, member=shifted_member),
    "no-penalty": variant(NoPenalty, RULES["half-open"]),
}
PAIRS = [({}, (0,)), ({(4,): 2}, (4,)), ({(0,): 1, (5,): 1}, (3,)), ({(3,): 2}, (4,)),
         ({(6,): 3}, (6,)), ({(1,): 1, (6,): 2}, (6,))]


@pytest.mark.parametrize("name", sorted(MECHS))
def test_reduced_laws_equal_direct_enumeration_of_the_real_run(name: str) -> None:
    mech = MECHS[name]
    fast, slow = PrivTreeLawCache(mech), LawCache(privtree_run(mech))
    for counts, z in PAIRS:
        db = as_points(counts)
        for eps in EPS:
            for forward in (True, False):
                a = fast.joint(db, z, "output").hockey_stick(eps, forward)
                b = slow.joint(db, z, "output").hockey_stick(eps, forward)
                assert sign(a.delta - b.delta) == 0, (name, counts, z, eps, forward)
                assert sign(a.p_event - b.p_event) == 0 and sign(a.q_event - b.q_event) == 0
    assert fast.transcripts < slow.transcripts  # only T_z is expanded


def test_keep_set_is_the_path_of_the_added_point_for_a_non_monotone_rule() -> None:
    """`T_z` is reached through boxes that accept `z`: the shifted rule accepts 6 in `[0, 2)`,
    but `[0, 4)` rejects it and `PrivTree.run` drops it there, so `[0, 2)` is left out (the
    equality with direct enumeration above covers this pair)."""
    mech = MECHS["shifted"]
    keep = keep_set(mech, (6,))
    assert keep == {((0, 8),), ((4, 8),)}
    assert mech.member((6,), ((0, 2),)) and not mech.member((6,), ((0, 4),))
    with pytest.raises(ParameterError):
        keep_set(mech, (8,))


def test_keep_set_grows_with_the_path_not_the_domain() -> None:
    """On `[0, 2^20)` the closed rule's `T_z` of the midpoint is two paths of 20 boxes."""
    wide = PrivTree.of(((0, 1 << 20),), 1, member=closed_member)
    assert len(keep_set(wide, (1 << 19,))) == 1 + 2 * 20
    assert len(keep_set(PrivTree.of(((0, 1 << 20),), 1), (12345,))) == 21


class WholeDatabaseRun(PrivTree):
    """A variant replacing `run`: each box counts the points of the *whole* database its rule
    accepts (not its parent's), so with the shifted rule `z = 6` changes the count of
    `[0, 2)` below `[0, 4)`, which rejects it: outside the decomposition's proof."""

    def run(self, points: Sequence[Point], test: NoisyTest | None = None) -> frozenset[Box]:
        noisy = test if test is not None else (lambda q: Outcome.L)
        leaves: list[Box] = []
        stack: list[tuple[Box, int]] = [(self.box, 0)]
        while stack:
            box, depth = stack.pop()
            kids = self.split.children(box)
            count = sum(1 for p in points if self.member(p, box))
            if not kids or noisy(self.query(count, depth, box)) is not Outcome.H:
                leaves.append(box)
                continue
            stack.extend((c, depth + 1) for c in reversed(kids))
        return frozenset(leaves)


def test_a_variant_replacing_run_falls_back_to_direct_enumeration() -> None:
    """The decomposition's assumption fails for `WholeDatabaseRun` on the shifted rule: cut
    back to `T_z` its law would be wrong (shown), so the cache enumerates its real run
    directly (equal to `LawCache`), and `pair_loss` refuses it; `GlobalTheta` likewise."""
    leaky = variant(WholeDatabaseRun, MECHS["shifted"])
    fast, slow = PrivTreeLawCache(leaky), LawCache(privtree_run(leaky))
    assert fast.refusal is not None and "run" in fast.refusal
    db, z = as_points({(6,): 4}), (6,)  # fewer copies are clamped alike at depth 2
    for eps in EPS:
        a = fast.divergence(db, z, "output", eps)
        b = slow.divergence(db, z, "output", eps)
        assert sign(a.delta - b.delta) == 0 and sign(a.p_event - b.p_event) == 0
    forced = PrivTreeLawCache(leaky)
    forced.refusal = None  # what the cut back laws would say: wrong for this variant
    wrong = Joint(*forced.reduced_pair(db, z))
    assert any(sign(wrong.hockey_stick(e, True).delta - slow.joint(db, z, "output")
                    .hockey_stick(e, True).delta) != 0 for e in EPS)
    with pytest.raises(ParameterError):
        pair_loss(leaky, {(6,): 1}, (6,))
    other = variant(GlobalTheta, RULES["half-open"])
    cache = PrivTreeLawCache(other)
    direct = LawCache(privtree_run(other))
    one = as_points({(0,): 1})
    assert sign(cache.divergence(one, (7,), "output", Fraction(1)).delta
                - direct.divergence(one, (7,), "output", Fraction(1)).delta) == 0


def test_seams_set_on_the_instance_reduced_or_direct_equal_the_real_run() -> None:
    """Issue 34, seams on the instance: `run` set on a PrivTree object (`object.__setattr__`
    past the frozen dataclass) is refused by the reduction, which enumerates it directly, and
    by the symmetric search; `score` set on the instance is a seam the reduction models (the
    real one runs): its reduced laws equal direct enumeration exactly (principle 9); `query`
    set on the instance is refused by the symmetric search, which models `PrivTree.query`."""
    from betweencut.proofs.baselines.privtree_checks.privtree_depth import symmetry_refusal

    leaky = PrivTree.of(((0, 8),), 1, member=shifted_member)
    whole = variant(WholeDatabaseRun, leaky)
    object.__setattr__(leaky, "run", whole.run)
    fast, slow = PrivTreeLawCache(leaky), LawCache(privtree_run(leaky))
    assert fast.refusal is not None and "run is set on the instance" in fast.refusal
    assert symmetry_refusal(leaky) == fast.refusal
    db, z = as_points({(6,): 4}), (6,)
    for eps in EPS:
        a, b = fast.divergence(db, z, "output", eps), slow.divergence(db, z, "output", eps)
        assert sign(a.delta - b.delta) == 0 and sign(a.p_event - b.p_event) == 0
    scored = PrivTree.of(((0, 8),), 1)
    no_penalty = variant(NoPenalty, scored)
    object.__setattr__(scored, "score", no_penalty.score)
    fast, slow = PrivTreeLawCache(scored), LawCache(privtree_run(scored))
    assert fast.refusal is None
    assert symmetry_refusal(scored) is None  # as for `NoPenalty`: the real score is read
    queried = PrivTree.of(((0, 8),), 1)
    object.__setattr__(queried, "query", scored.query)
    assert "query is set on the instance" in (symmetry_refusal(queried) or "")
    for counts, z in PAIRS:
        db = as_points(counts)
        for eps in EPS:
            a = fast.joint(db, z, "output").hockey_stick(eps, True)
            b = slow.joint(db, z, "output").hockey_stick(eps, True)
            assert sign(a.delta - b.delta) == 0 and sign(a.p_event - b.p_event) == 0
    assert fast.transcripts < slow.transcripts  # the reduction ran


def test_a_seam_with_hidden_state_is_caught() -> None:
    """A query seam whose answer depends on how often it was called (hidden state) is never
    certified: a replay or a box outside `T_z` asks a different query."""

    class Counting(PrivTree):
        def query(self, n_points: int, depth: int, box: Box) -> BTQuery:
            calls = self.__dict__.setdefault("_calls", [0])
            calls[0] += 1
            return super().query(n_points + calls[0] % 2, depth, box)

    cache = PrivTreeLawCache(variant(Counting, RULES["half-open"]))
    with pytest.raises((DecompositionMismatch, MechanismNotReplayable)):
        cache.divergence(as_points({(0,): 1}), (7,), "output", Fraction(1))


def test_closed_rule_refuted_by_audit_mechanism_with_two_copies_of_a_point() -> None:
    mech = RULES["closed"]
    pairs = multiplicity_pairs(mech, 2)
    verdict = audit_pairs(privtree_run(mech), pairs, [(Fraction(1), 0)],
                              cache=PrivTreeLawCache(mech))
    assert not verdict.holds and verdict.worst is not None
    assert multiplicities(verdict.worst.db) == {(4,): 2} and verdict.worst.z == (4,)
    cex = verdict.counterexample()
    assert cex is not None and cex["event_size"] == 1
    stick = verdict.worst.stick
    assert sign(stick.p_event - stick.q_event * Fraction(0)) > 0  # P(S) > 0, exact
    # the same pair, enumerated directly on the whole real run: the same exact P(S), Q(S)
    direct = LawCache(privtree_run(mech)).divergence(verdict.worst.db, (4,), "output", Fraction(1))
    assert sign(direct.p_event - stick.p_event) == 0
    assert sign(direct.q_event - stick.q_event) == 0
    assert sign(direct.delta) > 0
    # every database of at most one point misses it
    small = audit_pairs(privtree_run(mech), exhaustive_pairs(mech, 1), [(Fraction(1), 0)],
                            cache=PrivTreeLawCache(mech))
    assert small.holds


class HalvedScale(PrivTree):
    """A broken variant overriding the noise scale (calibrated for 2ε, claims ε)."""

    @property
    def scale(self) -> Fraction:
        return super().scale / 2


def test_halved_noise_variant_is_refuted_and_agrees_with_direct_enumeration() -> None:
    leaky = variant(HalvedScale, RULES["half-open"])
    fast = PrivTreeLawCache(leaky)
    verdict = audit_pairs(privtree_run(leaky), exhaustive_pairs(leaky, 1),
                              [(leaky.epsilon, 0)], cache=fast)
    assert not verdict.holds and verdict.worst is not None
    direct = LawCache(privtree_run(leaky)).divergence(verdict.worst.db, verdict.worst.z, "output",
                                                    leaky.epsilon)
    assert sign(direct.delta - verdict.worst.delta) == 0 and sign(direct.delta) > 0


def test_half_open_rule_holds_at_its_eps_with_curve_and_epsilon_at_delta() -> None:
    mech = RULES["half-open"]
    pair, found = dp_pair(mech, 20)
    verdict = audit_pairs(privtree_run(mech), [pair], [(mech.epsilon, 0)],
                              cache=PrivTreeLawCache(mech))
    assert verdict.holds and multiplicities(pair[0]) == {(0,): 2}
    eps = verdict.epsilon_at_delta()
    assert eps is not None and verdict.curve() is not None
    # epsilon_at_delta(0) of the worst pair is the DP's exact largest loss ln(P/Q)
    assert sign(eps.x.num * found.ratio.den - found.ratio.num * eps.x.den) == 0
    assert sign(found.ratio.num - found.ratio.den * 0) > 0
    lo, hi = eps.enclose()
    assert Fraction(66, 100) < lo <= hi < Fraction(67, 100)


def test_deduplicated_pairs_stand_for_every_pair_of_their_class() -> None:
    for name in ("half-open", "closed"):
        mech = MECHS[name]
        cache = PrivTreeLawCache(mech)
        reps = {(z, counts_key(mech, db, z)): (db, z) for db, z in exhaustive_pairs(mech, 2)}
        cells = [(x,) for x in range(8)]
        every = [(as_points(c), z) for c in [{}, *({p: 1} for p in cells),
                                             *({p: 1, q: 1} for p in cells for q in cells
                                               if p < q), *({p: 2} for p in cells)]
                 for z in cells]
        assert len(reps) < len(every)
        for db, z in every:
            rep_db, rep_z = reps[z, counts_key(mech, db, z)]
            a = cache.divergence(db, z, "output", Fraction(1, 2)).delta
            b = cache.divergence(rep_db, rep_z, "output", Fraction(1, 2)).delta
            assert sign(a - b) == 0, (name, db, z)


def test_privtree_audit_parameters_are_validated() -> None:
    from dataclasses import replace

    with pytest.raises(ParameterError):
        PrivTreeLawCache(replace(RULES["half-open"], min_bins=2))
    with pytest.raises(ParameterError):
        exhaustive_pairs(RULES["half-open"], -1)
    with pytest.raises(ParameterError):
        exhaustive_pairs(RULES["half-open"], 100)  # past the listing cap
    with pytest.raises(ParameterError):
        multiplicity_pairs(RULES["half-open"], 2, support=3)
    with pytest.raises(ParameterError):
        dp_pair(PrivTree.of(((0, 8),), 1, member=closed_member), 2)
    with pytest.raises(ParameterError):
        as_points({(0,): -1})
