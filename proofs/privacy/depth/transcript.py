"""Exact privacy profiles of deep trees by path grouping (issue 13, Part 1).

For a neighbouring pair `D`, `D' = D + z` whose off-path nodes are all decided by their guards
(see `betweencut.proofs.privacy.depth.paths`), the transcript's law is the law of the answers
on z's path, and answer sequences with the same signature have the same probability. So

    δ_{D‖D'}(ε) = Σ_signature mult · (P(sig) - e^ε·Q(sig))_+,

both directions kept apart and combined by max (Def. 2.7). Each signature's probability is a
factor bag (`betweencut.proofs.privacy.enumeration.transcripts`: the exact law values of the query
object the mechanism built, `guard` then `query`), so the grouped pair is the same object full
enumeration produces (`Joint.pairs`), and the tests compare the two *as data*, exactly.

Two evaluations, one set of decisions:

* `PathJoint` is a `Joint` (`betweencut.proofs.privacy.divergence.joint`): its `hockey_stick` is
  the
  package's exact one, a `bag_exceeds` decision per group (certified boxes, exact `ExpPoly`
  sign when they straddle). Used for small cases and as the reference in tests.
* `profile_rows` decides, per group and direction, the largest `r` with `P > e^{ε_r}·Q`, where
  `ε_1 < ε_2 < ...` are the *claim's* points (`ClaimedBound.eps`, never the audited query's
  own `λ`: a variant whose noise differs from the claimed parameters is audited against the
  claim):
  certified float boxes of `ln P - ln Q` (every operation rounded outward) settle all `r` but
  the ones within the box, which go to the exact `bag_exceeds` (ties: exact zero). The sums
  are then certified rational enclosures of `Σ P` and `Σ Q` over the violating groups, and
  `exact=True` adds the exact `ExpPoly` value from the same groups. A verdict `δ <= bound` is
  taken from the enclosures when they decide and from the exact value otherwise
  (`Undecided` only if the exact sign itself cannot be decided).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from betweencut.data.tree import PublicTree
from betweencut.data.validate import positive_rational
from betweencut.errors import ParameterError, Undecided
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.mechanism.guarded_bt import BT
from betweencut.noise.noisy_test import Outcome
from betweencut.proofs.exact.arith import ExpPoly, enclose, sign
from betweencut.proofs.exact.boxes import FloatBox, ln_box, log_dot, point_boxes, sub_boxes
from betweencut.proofs.exact.dyadic import (
    ONE,
    SUM_SCALE,
    Dyadic,
    absolute,
    dyadic,
    exp_enclosure,
    mul,
)
from betweencut.proofs.laws.bt_laws import OUTCOMES
from betweencut.proofs.laws.factors import Bag, bag_enclosure, make_bag
from betweencut.proofs.privacy.depth.exact_values import ExactTables, ExactValue
from betweencut.proofs.privacy.depth.paths import (
    OUTCOME_INDEX,
    PathProfile,
    Signature,
    check_seams,
    path_signatures,
)
from betweencut.proofs.privacy.divergence.joint import Joint, Law, bag_exceeds
from betweencut.proofs.privacy.enumeration.query_laws import observed_law
from betweencut.proofs.verdict import SHOWN_EVENT, Direction, Refutation, Release, Row

__all__ = [
    "Boxes", "ClaimedBound", "ClaimedSteps", "DepthRow", "PathJoint", "SegmentLaw",
    "SignatureSide", "check_offpath", "depth_pair", "law_at", "profile_rows", "rows_from_sums",
    "violating_by_r", "worst_row",
]

SegmentLaw = dict[Outcome, int | None]  # outcome -> factor id, None = probability 1 (guard)
Pairs = Counter[tuple[Bag | None, Bag | None]]
ENCLOSURE_BITS = 96


def law_at(query: BT, count: int) -> SegmentLaw:
    """The answer law of the mechanism's own query at `count`, observed by running the call the
    mechanism makes (`betweencut.proofs.privacy.enumeration.query_laws.observed_law`: the guard's
    point mass
    `{outcome: None}`, or the factor id of each outcome of the single query it asks).

    Raises: `ParameterError` when the call neither decides nor asks exactly one query and
    passes its answer on (the path grouping would not describe what the code does).
    """
    law = observed_law(query, count, None)
    if law is None:
        raise ParameterError(
            "mechanism", type(query).__name__,
            f"a count query that, at count {count}, either decides or asks one noisy test and "
            "returns its answer",
            "enumerate this variant with betweencut.proofs.privacy.audit.pairs")
    return law


def _is_chain(tree: PublicTree) -> bool:
    return tree.height == 1 or (tree.leaves_at_full_depth and tree.max_arity(0) == 1)


def check_offpath(mechanism: BetweenCut, query: BT, profile: PathProfile) -> None:
    """Refuse a profile whose realising database has an off-path node that is not guarded.

    Off the path a node holds 0 records (it must be guarded `L`: `guard(0) = L`, i.e. `τ >= E`
    for Alg. 1's guards) or lies on a sibling's sub-path holding `s_k` records (guarded `L` or
    `H`). Raises `ParameterError` naming the first undecided count.
    """
    tree = mechanism.tree
    if tree.height != profile.height:
        raise ParameterError("height", profile.height, f"the mechanism's tree height {tree.height}")
    chain = _is_chain(tree)
    if profile.segments > 1 and chain:
        raise ParameterError("profile", profile.describe(),
                             "a single segment on a chain (steps need an off-path sibling)")
    if not chain and query.guard(0) is not Outcome.L:
        raise ParameterError(
            "tau", mechanism.params.tau, "off-path nodes of count 0 guarded L (tau >= E)",
            "an off-path noisy node would make the transcript depend on more than the path")
    for depth, s in profile.siblings():
        if query.guard(s) is None:
            raise ParameterError(
                "profile", profile.describe(),
                f"sibling counts decided by a guard (<= {getattr(query, 'lower_cut', '?')} "
                f"or >= {getattr(query, 'upper_cut', '?')})",
                f"the sibling at depth {depth} holds {s} records and would be asked noisily")


class PathJoint(Joint):
    """The grouped pair of one path profile, as a `Joint` (exact `hockey_stick` inherited).

    `signatures` maps each signature to its number of answer sequences; `laws[k]` are the laws
    of segment `k` under `D` and `D + z`. `pairs[(bag_D, bag_D')]` (built on first use) counts
    the answer sequences whose probabilities are these factor bags (`None`: impossible there),
    exactly the structure full enumeration gives (`Joint(law_D, law_D').pairs`).
    """

    def __init__(self, signatures: Counter[Signature],
                 laws: list[tuple[SegmentLaw, SegmentLaw]],
                 key: tuple[int, tuple[int, ...], tuple[tuple[Outcome, ...], ...]]) -> None:
        self.signatures_key = key
        self.p = self.q = Law({})
        self.examples = {}
        self.multi = []
        self.signatures = signatures
        self.laws = laws
        self._pairs: Pairs | None = None

    @property
    def pairs(self) -> Pairs:  # type: ignore[override]
        if self._pairs is None:
            pairs: Pairs = Counter()
            for sig, n in self.signatures.items():
                key = (self.bag(sig, 0), self.bag(sig, 1))
                if key != (None, None):
                    pairs[key] += n
            self._pairs = pairs
        return self._pairs

    def table(self) -> tuple[list[Signature], list[int], npt.NDArray[np.float64]]:
        """The signatures, their multiplicities and the signature matrix (one row each)."""
        return _table(self.signatures_key)

    def bag(self, sig: Signature, side: int) -> Bag | None:
        """The factor bag of `sig` under `D` (`side = 0`) or `D + z` (1); None if impossible."""
        return _bag(sig, self.laws, side)

    @property
    def sequences(self) -> int:
        return sum(self.signatures.values())


def _bag(sig: Signature, laws: list[tuple[SegmentLaw, SegmentLaw]], side: int) -> Bag | None:
    factors: list[int] = []
    for k, pair in enumerate(laws):
        law = pair[side]
        for s in OUTCOMES:
            n = sig[3 * k + OUTCOME_INDEX[s]]
            if not n:
                continue
            if s not in law:
                return None
            fid = law[s]
            if fid is not None:
                factors.extend([fid] * n)
    return make_bag(factors)


def depth_pair(mechanism: BetweenCut, profile: PathProfile) -> PathJoint:
    """The grouped laws of `Tr(D)` and `Tr(D + z)` for the database `profile` describes.

    Preconditions (checked, `ParameterError` otherwise): the mechanism keeps Alg. 3's
    `level_order`, `apply` and `run`; its count query is a `BT`; every off-path node of the
    realising database is decided by the query's guard; the tree height is the profile's.
    Returns: a `PathJoint`; its pairs equal those of full enumeration (tested).
    """
    query = check_seams(mechanism)
    check_offpath(mechanism, query, profile)
    laws = [(law_at(query, c), law_at(query, c + 1)) for c in profile.counts]

    def support(k: int) -> tuple[Outcome, ...]:
        return tuple(s for s in OUTCOMES if s in laws[k][0] or s in laws[k][1])

    supports = tuple(support(k) for k in range(profile.segments))
    key = (profile.height, tuple(d for d, _ in profile.steps), supports)
    return PathJoint(_signatures(*key), laws, key)


@lru_cache(maxsize=64)
def _table(key: tuple[int, tuple[int, ...], tuple[tuple[Outcome, ...], ...]]) -> tuple[
        list[Signature], list[int], npt.NDArray[np.float64]]:
    signatures = _signatures(*key)
    sigs = list(signatures)
    matrix = np.array(sigs, dtype=np.float64).reshape(len(sigs), 3 * len(key[1]))
    return sigs, [signatures[s] for s in sigs], matrix


@lru_cache(maxsize=64)
def _signatures(height: int, starts: tuple[int, ...],
                supports: tuple[tuple[Outcome, ...], ...]) -> Counter[Signature]:
    """`path_signatures`, shared by every profile with the same segment depths and supports
    (the whole noisy band of the single-leaf family has one table); the counts themselves
    do not enter the search, so stand-in counts build the profile."""
    n = len(starts)
    stand_in = PathProfile(height, tuple((d, n - k) for k, d in enumerate(starts)))
    return path_signatures(stand_in, lambda k: supports[k])


# -- fast certified evaluation ----------------------------------------------------------------
#
# Per factor: a certified float box of `ln F` (`betweencut.proofs.exact.boxes`) and a dyadic
# enclosure of `F` (`betweencut.proofs.exact.dyadic`); sums of signature probabilities are
# integers at the absolute scale `2^-SUM_SCALE`.

@lru_cache(maxsize=4096)
def _factor_tables(fid: int) -> tuple[FloatBox, Dyadic]:
    """Certified float bounds of `ln F` and a dyadic enclosure of `F`, `F` = factor `fid`."""
    lo, hi = bag_enclosure((fid,))
    if lo <= 0:
        raise Undecided(f"factor {fid} not certified positive at {ENCLOSURE_BITS} bits")
    return ln_box(lo, hi), dyadic(lo, hi)


class SignatureSide:
    """Per segment and outcome, under one database: impossible, probability 1, or a factor
    with its log box and its powers as dyadic intervals; vectors over the signature columns."""

    def __init__(self, laws: list[SegmentLaw], top: int) -> None:
        width = 3 * len(laws)
        self.zero = np.zeros(width, dtype=bool)
        self.ln_lo = np.zeros(width)
        self.ln_hi = np.zeros(width)
        self.powers: list[list[Dyadic]] = []
        self.values: dict[Signature, tuple[int, int]] = {}
        for k, law in enumerate(laws):
            for s in OUTCOMES:
                i = 3 * k + OUTCOME_INDEX[s]
                fid = law.get(s)
                self.zero[i] = s not in law
                table = [ONE] * (top + 1)
                if fid is not None:
                    (self.ln_lo[i], self.ln_hi[i]), base = _factor_tables(fid)
                    for n in range(1, top + 1):
                        table[n] = mul(table[n - 1], base)
                self.powers.append(table)

    def boxes(self, matrix: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.bool_],
                                                                npt.NDArray[np.float64],
                                                                npt.NDArray[np.float64]]:
        """Per signature row: possible here?, and certified bounds of `ln P(sig)`
        (`boxes.log_dot`)."""
        possible: npt.NDArray[np.bool_] = np.asarray(~(matrix[:, self.zero] > 0).any(axis=1))
        lo, hi = log_dot(matrix, self.ln_lo, self.ln_hi)
        return possible, lo, hi

    def value(self, sig: Signature) -> tuple[int, int]:
        found = self.values.get(sig)
        if found is None:
            out = ONE
            for n, table in zip(sig, self.powers, strict=True):
                if n:
                    out = mul(out, table[n])
            found = self.values[sig] = absolute(out)
        return found


class ClaimedSteps:
    """The claim's points `ε_1 < ... < ε_top` (index `r`), with `ε_0 = 0` and `ε_{top+1} = ∞`
    as sentinels, and their certified float boxes (float comparisons are exact, so `hi[r] < d`
    proves `ε_r < d` and `lo[r] > d` proves `ε_r > d`).

    Raises: `ParameterError` unless the points are exact rationals, `0 < ε_1 < ε_2 < ...`
    (a signature that violates at `ε_r` then violates at every smaller one)."""

    def __init__(self, eps: Sequence[Fraction]) -> None:
        points = [Fraction(0), *eps]
        for r in range(1, len(points)):
            if not isinstance(points[r], Fraction | int) or not points[r - 1] < points[r]:
                raise ParameterError("eps", points[r],
                                     "claimed points exact and increasing, 0 < eps_1 < eps_2")
        self.eps = [Fraction(e) for e in points]
        self.top = len(eps)
        lo, hi = point_boxes(self.eps)
        self.lo, self.hi = np.append(lo, math.inf), np.append(hi, math.inf)

    @staticmethod
    def of(bounds: Sequence[ClaimedBound]) -> ClaimedSteps:
        """The points of `bounds`, each `r` checked to be its index (1-based)."""
        for i, claimed in enumerate(bounds, start=1):
            if claimed.r != i:
                raise ParameterError("bounds", claimed.r, f"bound {i} with r = {i}")
        return ClaimedSteps([claimed.eps for claimed in bounds])


@dataclass
class _Direction:
    """One direction (`D‖D+z` or `D+z‖D`): per `r`, certified `Σ P` and `Σ Q` over the
    signatures with `P > e^{ε_r}·Q` (integers at scale `2^-SUM_SCALE`), and those signatures."""

    forward: bool
    a: list[tuple[int, int]]
    b: list[tuple[int, int]]
    violating: list[tuple[int, Signature, int]]  # (threshold t, signature, multiplicity)


Boxes = tuple[npt.NDArray[np.bool_], npt.NDArray[np.float64], npt.NDArray[np.float64]]


def _direction(pair: PathJoint, forward: bool, steps: ClaimedSteps,
               sides: tuple[SignatureSide, SignatureSide],
               boxes: tuple[Boxes, Boxes]) -> _Direction:
    """For each signature the largest `r` with `P > e^{ε_r}·Q` (monotone in `r`): certified
    log boxes settle every `r` outside the box, `bag_exceeds` (exact) the ones inside."""
    x_side, y_side = sides if forward else sides[::-1]
    (x_ok, x_lo, x_hi), (y_ok, y_lo, y_hi) = boxes if forward else boxes[::-1]
    x_ix, y_ix = (0, 1) if forward else (1, 0)
    top = steps.top
    sigs, mults = pair.table()[:2]

    def exceeds(g: int, eps: Fraction) -> bool:
        x, y = pair.bag(sigs[g], x_ix), pair.bag(sigs[g], y_ix)
        return x is not None and y is not None and bag_exceeds(x, y, eps)

    by_r = violating_by_r(steps, (x_ok, x_lo, x_hi), (y_ok, y_lo, y_hi), exceeds)
    a_lo = a_hi = b_lo = b_hi = 0
    out = _Direction(forward, [(0, 0)] * (top + 1), [(0, 0)] * (top + 1), [])
    for r in range(top, 0, -1):
        for g in by_r.get(r, ()):
            sig, n = sigs[g], mults[g]
            out.violating.append((r, sig, n))
            lo, hi = x_side.value(sig)
            a_lo, a_hi = a_lo + n * lo, a_hi + n * hi
            if y_ok[g]:
                lo, hi = y_side.value(sig)
                b_lo, b_hi = b_lo + n * lo, b_hi + n * hi
        out.a[r], out.b[r] = (a_lo, a_hi), (b_lo, b_hi)
    return out


def violating_by_r(
    steps: ClaimedSteps, x_box: Boxes, y_box: Boxes, exceeds: Callable[[int, Fraction], bool],
) -> dict[int, list[int]]:
    """Groups by the largest `r` with `P > e^{ε_r}·Q`: the certified log boxes of `ln P` and
    `ln Q` settle every `r` outside `[d_lo, d_hi]`; `exceeds(g, ε_r)` (exact) decides the ones
    inside (monotone in `r`). An impossible `Q` (`y_ok` false) violates at every `r`, an
    impossible `P` at none. Returns `r -> group indices` for `r >= 1`."""
    (x_ok, x_lo, x_hi), (y_ok, y_lo, y_hi) = x_box, y_box
    top = steps.top
    d_lo, d_hi = sub_boxes(x_lo, x_hi, y_lo, y_hi)
    sure = np.clip(np.searchsorted(steps.hi, d_lo, side="left") - 1, 0, top)
    never = np.searchsorted(steps.lo, d_hi, side="right")
    t = np.where(y_ok, sure, top)
    t = np.where(x_ok, t, 0)
    for g in np.flatnonzero(x_ok & y_ok & (sure + 1 < never) & (sure < top)).tolist():
        r = int(sure[g])
        stop = min(int(never[g]), top + 1)
        while r + 1 < stop and exceeds(g, steps.eps[r + 1]):
            r += 1
        t[g] = r
    by_r: dict[int, list[int]] = {}
    for g in np.flatnonzero(t > 0).tolist():
        by_r.setdefault(int(t[g]), []).append(g)
    return by_r


@dataclass(frozen=True)
class ClaimedBound:
    """A claimed `δ` at the claimed `ε` (row `r`, 1-based): exact, with a certified enclosure
    computed once. `eps` comes from the claim (e.g. `rλ` of the claimed parameters), never from
    the audited code: every row evaluates `δ` and its bound at this same `ε`."""

    r: int
    eps: Fraction
    exact: object
    lo: Fraction
    hi: Fraction

    @staticmethod
    def of(r: int, eps: Fraction, value: object) -> ClaimedBound:
        claimed = positive_rational(eps, "eps", " (the claim's)")
        lo, hi = enclose(value, 64)
        return ClaimedBound(r, claimed, value, lo, hi)


@dataclass
class DepthRow:
    """One claim point of one profile: `δ(ε)` enclosed (exact on request) vs the bound, both
    at the claim's `ε = bound.eps`."""

    profile: PathProfile
    r: int
    eps: Fraction
    delta_lo: Fraction
    delta_hi: Fraction
    bound: ClaimedBound
    holds: bool
    direction: str
    exact: Callable[[], ExactValue] = field(repr=False)
    _exact: ExactValue | None = field(default=None, repr=False)
    _poly: ExpPoly | None = field(default=None, repr=False)
    tables: ExactTables | None = field(default=None, repr=False)

    def forget(self) -> None:
        """Drop the exact value and the pair's tables behind it (they are computed again if
        asked for): a caller streaming rows out keeps memory to one pair's values."""
        self._exact = self._poly = None
        if self.tables is not None:
            self.tables.forget()

    def delta_value(self) -> ExactValue:
        """The exact `δ(rλ)` (the larger direction, decided exactly) as an integer table over
        the pair's common denominator (`betweencut.proofs.privacy.depth.exact_values`), computed
        once."""
        if self._exact is None:
            self._exact = self.exact()
        return self._exact

    def delta_exact(self) -> ExpPoly:
        """The exact `δ(rλ)` as an `ExpPoly`."""
        if self._poly is None:
            self._poly = self.delta_value().to_exppoly()
        return self._poly

    def delta_exact_str(self) -> str:
        """The exact `δ(rλ)` as text, one common denominator (grammar: `depth_exact`)."""
        return self.delta_value().text()

    def to_row(self, on: Release, promised: str | None = None) -> Row:
        """This row in the verdict's shape (`betweencut.proofs.verdict.Row`); its exact `δ` is
        computed when read. `promised` labels a row of a calibration's promised `(ε, δ)`
        instead of Theorem 5.4's `r`."""
        D, z = self.profile.texts()
        label: dict[str, object] = {"r": self.r} if promised is None else {"promised": promised}
        where: dict[str, object] = (
            {**label, "count": self.profile.counts[0]} if self.profile.segments == 1
            else {**label, "profile": self.profile.describe()})
        return Row(D, z, on, self.eps, self.delta_value,  # type: ignore[arg-type]
                   (self.delta_lo, self.delta_hi), self.bound.exact,  # type: ignore[arg-type]
                   self.holds, Direction(self.direction), where)

    def refutation(self, claim: str, on: Release) -> Refutation:
        """The counterexample of this (refuted) row: the larger direction decided exactly, its
        event (every answer sequence on z's path whose signature violates at `ε`) with exact
        `P(S)`, `Q(S)` (`ExactTables.event`)."""
        if self.tables is None:
            raise ParameterError("row", self.profile.describe(), "a row with its exact tables")
        forward_value = self.tables.value(True, self.r).to_exppoly()
        backward_value = self.tables.value(False, self.r).to_exppoly()
        forward = sign(forward_value - backward_value) >= 0
        p, q, size, sigs = self.tables.event(forward, self.r)
        D, z = self.profile.texts()
        return Refutation(
            claim, D, z, on, Direction.FORWARD if forward else Direction.BACKWARD, self.eps,
            tuple(signature_text(sig) for sig in sigs[:SHOWN_EVENT]), size, p, q,
            forward_value if forward else backward_value,
            self.bound.exact,  # type: ignore[arg-type]
            "the event is every answer sequence on z's path with these answer counts per "
            "path segment (L, B, H), the sequences of one signature being equally likely")

    def tightness(self) -> tuple[Fraction, Fraction]:
        """Certified bounds of `δ / bound`."""
        if self.bound.lo <= 0:
            return (Fraction(0), Fraction(0)) if self.delta_hi <= 0 else (
                self.delta_lo, self.delta_hi)
        return self.delta_lo / self.bound.hi, self.delta_hi / self.bound.lo


def profile_rows(
    pair: PathJoint, profile: PathProfile, bounds: Sequence[ClaimedBound],
    exact: bool = False,
) -> list[DepthRow]:
    """`δ(ε_r)` of the grouped pair against `bounds[r - 1]`, `r = 1..len(bounds)`, certified,
    `ε_r = bounds[r - 1].eps` (the claim's point).

    Preconditions: `pair = depth_pair(mechanism, profile)`; each bound exact, with `r` its index,
    its `eps` increasing in `r` (checked).
    Checks: per row `δ(ε_r) <= bound`, both directions, decided by certified enclosures and,
    when those straddle the bound, by the exact value (`DepthRow.delta_exact`, computed from
    the same violating signatures).
    Returns: one `DepthRow` per bound. `exact=True` computes every exact value now (and frees
    the tables behind them).
    """
    top = len(bounds)
    matrix = pair.table()[2]
    most = max(top, int(matrix.max(initial=0)))  # the largest power any signature needs
    sides = (SignatureSide([law[0] for law in pair.laws], most),
             SignatureSide([law[1] for law in pair.laws], most))
    boxes = (sides[0].boxes(matrix), sides[1].boxes(matrix))
    steps = ClaimedSteps.of(bounds)
    fwd = _direction(pair, True, steps, sides, boxes)
    bwd = _direction(pair, False, steps, sides, boxes)
    tables = ExactTables(pair.laws, steps.eps[1:], (fwd.violating, bwd.violating))
    return rows_from_sums(profile, bounds, ((fwd.a, fwd.b), (bwd.a, bwd.b)), tables, exact)


Sums = Sequence[tuple[int, int]]  # integer sums at scale 2^SUM_SCALE


def rows_from_sums(
    profile: PathProfile, bounds: Sequence[ClaimedBound],
    sums: tuple[tuple[Sums, Sums], tuple[Sums, Sums]], tables: ExactTables, exact: bool,
) -> list[DepthRow]:
    """One `DepthRow` per bound from the certified sums of each direction (forward, backward):
    `a[r]`, `b[r]` enclose `Σ P` and `Σ Q` over the groups violating at `r`, scaled by
    `2^SUM_SCALE`; `δ(ε_r)` is enclosed by `(a - e^{ε_r}·b)_+` and decided by the enclosure, or by
    the exact value from `tables` when it straddles the bound (shared by the transcript's
    `profile_rows` and the Heavy set's `heavy_rows`)."""
    unit = Fraction(1, 1 << SUM_SCALE)
    rows = []
    for claimed in bounds:
        r, eps = claimed.r, claimed.eps
        x_lo, x_hi = exp_enclosure(eps, ENCLOSURE_BITS)
        encl: list[tuple[Fraction, Fraction]] = []
        for a, b in sums:
            (a_lo, a_hi), (b_lo, b_hi) = a[r], b[r]
            encl.append((max(Fraction(0), (a_lo - x_hi * b_hi) * unit),
                         max(Fraction(0), (a_hi - x_lo * b_lo) * unit)))

        def value(r: int = r, encl: list[tuple[Fraction, Fraction]] = encl) -> ExactValue:
            return _larger(lambda: tables.value(True, r), lambda: tables.value(False, r), encl)

        lo, hi = max(encl[0][0], encl[1][0]), max(encl[0][1], encl[1][1])
        direction = Direction.of(sum(encl[0]) >= sum(encl[1]))  # display only
        row = DepthRow(profile, r, eps, lo, hi, claimed, True, direction, value, tables=tables)
        if hi <= claimed.lo:
            row.holds = True
        elif lo > claimed.hi:
            row.holds = False
        else:
            row.holds = sign(row.delta_exact() - claimed.exact) <= 0  # type: ignore[operator]
        rows.append(row)
    if exact:
        for row in rows:
            row.delta_value()
        tables.release()  # the values are kept by the rows; the sums' snapshots can go
    return rows


def _larger(f: Callable[[], ExactValue], b: Callable[[], ExactValue],
            encl: list[tuple[Fraction, Fraction]]) -> ExactValue:
    """The larger of the two directions' exact values: by their certified enclosures when
    these are disjoint (only that direction's value is read), by equality of the tables, else
    by the exact sign of the difference."""
    (f_lo, f_hi), (b_lo, b_hi) = encl
    if f_lo > b_hi:
        return f()
    if b_lo > f_hi:
        return b()
    fv, bv = f(), b()
    if fv == bv:
        return fv
    return fv if sign(fv.to_exppoly() - bv.to_exppoly()) >= 0 else bv


def signature_text(sig: Signature) -> str:
    """A signature as its answer counts per path segment: `L3 B1 | H2` (zeros left out)."""
    segments = []
    for k in range(len(sig) // 3):
        counts = [f"{s.value}{sig[3 * k + OUTCOME_INDEX[s]]}" for s in OUTCOMES
                  if sig[3 * k + OUTCOME_INDEX[s]]]
        segments.append(" ".join(counts) or "-")
    return " | ".join(segments)


def worst_row(rows: Sequence[DepthRow]) -> DepthRow | None:
    """Among refuted rows (if any) the one with the largest certified lower bound of the
    excess `δ - bound`, else the row with the largest certified upper bound of `δ/bound` (a
    report, not a verdict: every row's verdict is its own)."""
    refuted = [row for row in rows if not row.holds]
    if refuted:
        return max(refuted, key=lambda row: row.delta_lo - row.bound.hi)
    best: DepthRow | None = None
    best_hi = Fraction(-1)
    for row in rows:
        hi = row.tightness()[1]
        if hi > best_hi:
            best, best_hi = row, hi
    return best
