"""Exact privacy profiles of deep trees by path grouping (issue 13, Part 1).

For a neighbouring pair `D`, `D' = D + z` whose off-path nodes are all decided by their guards
(see `betweencut.proofs.privacy.depth_paths`), the transcript's law is the law of the answers
on z's path, and answer sequences with the same signature have the same probability. So

    δ_{D‖D'}(ε) = Σ_signature mult · (P(sig) - e^ε·Q(sig))_+,

both directions kept apart and combined by max (Def. 2.7). Each signature's probability is a
factor bag (`betweencut.proofs.privacy.enumerate`: the exact law values of the query object the
mechanism built, `guard` then `query`), so the grouped pair is the same object full
enumeration produces (`Joint.pairs`), and the tests compare the two *as data*, exactly.

Two evaluations, one set of decisions:

* `PathJoint` is a `Joint` (`betweencut.proofs.privacy.profiles`): its `hockey_stick` is the
  package's exact one, a `bag_exceeds` decision per group (certified boxes, exact `ExpPoly`
  sign when they straddle). Used for small cases and as the reference in tests.
* `profile_rows` decides, per group and direction, the largest `r` with `P > e^{rλ}·Q`:
  certified float boxes of `ln P - ln Q` (every operation rounded outward) settle all `r` but
  the ones within the box, which go to the exact `bag_exceeds` (ties: exact zero). The sums
  are then certified rational enclosures of `Σ P` and `Σ Q` over the violating groups, and
  `exact=True` adds the exact `ExpPoly` value from the same groups. A verdict `δ <= bound` is
  taken from the enclosures when they decide and from the exact value otherwise
  (`Undecided` only if the exact sign itself cannot be decided).
"""

from __future__ import annotations

import bisect
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

from mpmath import iv
from mpmath.libmp import to_rational

from betweencut.betweencut import BetweenCut
from betweencut.errors import ParameterError, Undecided
from betweencut.exact import iv_precision
from betweencut.guarded_bt import BT
from betweencut.noisy_test import Outcome
from betweencut.proofs.exact.arith import ExpPoly, enclose, sign
from betweencut.proofs.laws.bt_laws import OUTCOMES
from betweencut.proofs.privacy.depth_paths import (
    OUTCOME_INDEX,
    PathProfile,
    Signature,
    check_seams,
    path_signatures,
)
from betweencut.proofs.privacy.enumerate import (
    Bag,
    bag_enclosure,
    bags_value,
    make_bag,
    query_factor_ids,
    round_out,
)
from betweencut.proofs.privacy.profiles import Joint, Law, bag_exceeds
from betweencut.tree import PublicTree

__all__ = [
    "ClaimedBound", "DepthRow", "PathJoint", "SegmentLaw", "check_offpath", "depth_pair",
    "law_at", "profile_rows", "worst_row",
]

SegmentLaw = dict[Outcome, int | None]  # outcome -> factor id, None = probability 1 (guard)
Pairs = Counter[tuple[Bag | None, Bag | None]]
ENCLOSURE_BITS = 96


def law_at(query: BT, count: int) -> SegmentLaw:
    """The answer law of the mechanism's own query at `count`: the guard's point mass
    (`{outcome: None}`) or the factor id of each outcome of positive probability."""
    decided = query.guard(count)
    if decided is not None:
        return {decided: None}
    return dict(query_factor_ids(query.query(count)))


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
                 laws: list[tuple[SegmentLaw, SegmentLaw]], lam: Fraction) -> None:
        self.p = self.q = Law({})
        self.examples = {}
        self.multi = []
        self.signatures = signatures
        self.laws = laws
        self.lam = lam
        self._pairs: Pairs | None = None

    @property  # type: ignore[override]
    def pairs(self) -> Pairs:
        if self._pairs is None:
            pairs: Pairs = Counter()
            for sig, n in self.signatures.items():
                key = (self.bag(sig, 0), self.bag(sig, 1))
                if key != (None, None):
                    pairs[key] += n
            self._pairs = pairs
        return self._pairs

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
    signatures = _signatures(profile.height, tuple(d for d, _ in profile.steps), supports)
    return PathJoint(signatures, laws, query.lam)


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
# Dyadic intervals `[lo·2^e, hi·2^e]` with `PREC`-bit integer mantissas, every product rounded
# outward (floor for `lo`, ceiling for `hi`); sums are kept as integers at the absolute scale
# `2^-SCALE` (a term below it is enclosed by `[0, 2^-SCALE]`, still certified).

PREC = 96
SCALE = 2400
Dyadic = tuple[int, int, int]


def _dyadic(lo: Fraction, hi: Fraction) -> Dyadic:
    """A dyadic interval containing `[lo, hi]`, `0 <= lo <= hi`, `hi > 0`."""
    e = hi.numerator.bit_length() - hi.denominator.bit_length() - PREC
    scale = Fraction(2) ** -e
    return math.floor(max(lo, Fraction(0)) * scale), math.ceil(hi * scale), e


def _mul(x: Dyadic, y: Dyadic) -> Dyadic:
    lo, hi, e = x[0] * y[0], x[1] * y[1], x[2] + y[2]
    shift = hi.bit_length() - PREC
    if shift > 0:
        lo, hi, e = lo >> shift, -((-hi) >> shift), e + shift
    return lo, hi, e


def _absolute(x: Dyadic) -> tuple[int, int]:
    """`[lo, hi]` with `lo·2^-SCALE <= x <= hi·2^-SCALE`."""
    lo, hi, e = x
    k = e + SCALE
    if k >= 0:
        return lo << k, hi << k
    return lo >> -k, -((-hi) >> -k)


_ONE: Dyadic = (1 << PREC, 1 << PREC, -PREC)


def _down(x: float) -> float:
    return math.nextafter(x, -math.inf)


def _up(x: float) -> float:
    return math.nextafter(x, math.inf)


@lru_cache(maxsize=4096)
def _factor_tables(fid: int) -> tuple[tuple[float, float], Dyadic]:
    """Certified float bounds of `ln F` and a dyadic enclosure of `F`, `F` = factor `fid`."""
    lo, hi = bag_enclosure((fid,))
    if lo <= 0:
        raise Undecided(f"factor {fid} not certified positive at {ENCLOSURE_BITS} bits")
    with iv_precision(90):
        box = iv.log(iv.mpf([iv.mpf(lo.numerator) / lo.denominator,
                             iv.mpf(hi.numerator) / hi.denominator]))
        a, b = box._mpi_
    ln = (_down(float(Fraction(*to_rational(a)))), _up(float(Fraction(*to_rational(b)))))
    return ln, _dyadic(lo, hi)


class _Side:
    """Per segment and outcome, under one database: impossible, probability 1, or a factor
    with its log box and its powers as dyadic intervals (computed on demand)."""

    def __init__(self, laws: list[SegmentLaw], top: int) -> None:
        self.fid: list[int | None] = []
        self.zero: list[bool] = []
        self.ln: list[tuple[float, float]] = []
        self.powers: list[list[Dyadic]] = []
        for law in laws:
            for s in OUTCOMES:
                fid = law.get(s)
                self.zero.append(s not in law)
                self.fid.append(fid)
                if fid is None:
                    self.ln.append((0.0, 0.0))
                    self.powers.append([_ONE] * (top + 1))
                else:
                    ln, base = _factor_tables(fid)
                    self.ln.append(ln)
                    table = [_ONE]
                    for _ in range(top):
                        table.append(_mul(table[-1], base))
                    self.powers.append(table)

    def possible(self, sig: Signature) -> bool:
        return not any(n and z for n, z in zip(sig, self.zero, strict=True))

    def log_box(self, sig: Signature) -> tuple[float, float]:
        lo = hi = 0.0
        for n, (a, b) in zip(sig, self.ln, strict=True):
            if n:
                lo, hi = _down(lo + _down(n * a)), _up(hi + _up(n * b))
        return lo, hi

    def value(self, sig: Signature) -> tuple[int, int]:
        out = _ONE
        for n, table in zip(sig, self.powers, strict=True):
            if n:
                out = _mul(out, table[n])
        return _absolute(out)


class _Steps:
    """Certified float boxes of `rλ`, `r = 0..top + 1`, for bisection (float comparisons are
    exact, so `hi[r] < d` proves `rλ < d` and `lo[r] > d` proves `rλ > d`)."""

    def __init__(self, lam: Fraction, top: int) -> None:
        self.lam, self.top = lam, top
        self.lo = [_down(float(r * lam)) for r in range(top + 2)]
        self.hi = [_up(float(r * lam)) for r in range(top + 2)]

    def threshold(self, d_lo: float, d_hi: float, exceeds: Callable[[Fraction], bool]) -> int:
        """The largest `r` in `0..top` with `ln P - ln Q > rλ` (monotone in `r`), given a
        certified box `[d_lo, d_hi]` of `ln P - ln Q`; `exceeds(eps)` decides inside it."""
        sure = max(0, bisect.bisect_left(self.hi, d_lo) - 1)  # hi[r] < d_lo for r <= sure
        sure = min(sure, self.top)
        never = bisect.bisect_right(self.lo, d_hi)  # lo[r] > d_hi for r >= never
        r = sure
        while r + 1 <= self.top and r + 1 < never and exceeds((r + 1) * self.lam):
            r += 1
        return r


@dataclass
class _Direction:
    """One direction (`D‖D+z` or `D+z‖D`): per `r`, certified `Σ P` and `Σ Q` over the
    signatures with `P > e^{rλ}·Q` (integers at scale `2^-SCALE`), and those signatures."""

    forward: bool
    a: list[tuple[int, int]]
    b: list[tuple[int, int]]
    violating: list[tuple[int, Signature, int]]  # (threshold t, signature, multiplicity)


def _direction(pair: PathJoint, forward: bool, top: int, sides: tuple[_Side, _Side],
               logs: tuple[dict[Signature, tuple[float, float]], ...]) -> _Direction:
    x_side, y_side = sides if forward else sides[::-1]
    x_ix, y_ix = (0, 1) if forward else (1, 0)
    x_logs, y_logs = logs if forward else logs[::-1]
    steps = _Steps(pair.lam, top)
    by_r: dict[int, list[tuple[Signature, int]]] = {}
    violating = []
    for sig, n in pair.signatures.items():
        if not x_side.possible(sig):
            continue
        if not y_side.possible(sig):
            t = top
        else:
            p_lo, p_hi = x_logs[sig]
            q_lo, q_hi = y_logs[sig]

            def exceeds(eps: Fraction, sig: Signature = sig) -> bool:
                x, y = pair.bag(sig, x_ix), pair.bag(sig, y_ix)
                return x is not None and y is not None and bag_exceeds(x, y, eps)

            t = steps.threshold(_down(p_lo - q_hi), _up(p_hi - q_lo), exceeds)
        if t:
            by_r.setdefault(t, []).append((sig, n))
            violating.append((t, sig, n))
    a_lo = a_hi = b_lo = b_hi = 0
    out = _Direction(forward, [(0, 0)] * (top + 1), [(0, 0)] * (top + 1), violating)
    for r in range(top, 0, -1):
        for sig, n in by_r.get(r, ()):
            lo, hi = x_side.value(sig)
            a_lo, a_hi = a_lo + n * lo, a_hi + n * hi
            if y_side.possible(sig):
                lo, hi = y_side.value(sig)
                b_lo, b_hi = b_lo + n * lo, b_hi + n * hi
        out.a[r], out.b[r] = (a_lo, a_hi), (b_lo, b_hi)
    return out


def _exact_direction(pair: PathJoint, d: _Direction, r: int) -> ExpPoly:
    """The exact `Σ (P - e^{rλ}Q)` over the signatures `d` found violating at `r`."""
    x_ix, y_ix = (0, 1) if d.forward else (1, 0)
    in_p: Counter[Bag] = Counter()
    in_q: Counter[Bag] = Counter()
    for t, sig, n in d.violating:
        if t >= r:
            x, y = pair.bag(sig, x_ix), pair.bag(sig, y_ix)
            if x is not None:
                in_p[x] += n
            if y is not None:
                in_q[y] += n
    return bags_value(in_p) - bags_value(in_q) * ExpPoly.exp(r * pair.lam)


@lru_cache(maxsize=1024)
def _exp_box(eps: Fraction) -> tuple[Fraction, Fraction]:
    return round_out(*ExpPoly.exp(eps).enclose(ENCLOSURE_BITS))


@dataclass(frozen=True)
class ClaimedBound:
    """A claimed `δ` at `ε = rλ`: exact, with a certified enclosure computed once."""

    r: int
    exact: object
    lo: Fraction
    hi: Fraction

    @staticmethod
    def of(r: int, value: object) -> ClaimedBound:
        lo, hi = enclose(value, 64)  # type: ignore[arg-type]
        return ClaimedBound(r, value, lo, hi)


@dataclass
class DepthRow:
    """One claim point of one profile: `δ(rλ)` enclosed (exact on request) vs the bound."""

    profile: PathProfile
    r: int
    eps: Fraction
    delta_lo: Fraction
    delta_hi: Fraction
    bound: ClaimedBound
    holds: bool
    direction: str
    exact: Callable[[], ExpPoly] = field(repr=False)
    _exact: ExpPoly | None = field(default=None, repr=False)

    def delta_exact(self) -> ExpPoly:
        """The exact `δ(rλ)` (the larger direction, decided exactly), computed once."""
        if self._exact is None:
            self._exact = self.exact()
        return self._exact

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
    """`δ(rλ)` of the grouped pair against `bounds[r - 1]`, `r = 1..len(bounds)`, certified.

    Preconditions: `pair = depth_pair(mechanism, profile)`; each bound exact, with `r` its index.
    Checks: per row `δ(rλ) <= bound`, both directions, decided by certified enclosures and,
    when those straddle the bound, by the exact value (`DepthRow.delta_exact`, computed from
    the same violating signatures).
    Returns: one `DepthRow` per bound. `exact=True` computes every exact value now.
    """
    top = len(bounds)
    sides = (_Side([law[0] for law in pair.laws], top), _Side([law[1] for law in pair.laws], top))
    logs = tuple({sig: side.log_box(sig) for sig in pair.signatures if side.possible(sig)}
                 for side in sides)
    fwd = _direction(pair, True, top, sides, logs)
    bwd = _direction(pair, False, top, sides, logs)
    unit = Fraction(1, 1 << SCALE)
    rows = []
    for claimed in bounds:
        r = claimed.r
        eps = r * pair.lam
        x_lo, x_hi = _exp_box(eps)
        boxes = []
        for d in (fwd, bwd):
            (a_lo, a_hi), (b_lo, b_hi) = d.a[r], d.b[r]
            boxes.append((max(Fraction(0), (a_lo - x_hi * b_hi) * unit),
                          max(Fraction(0), (a_hi - x_lo * b_lo) * unit)))

        def value(r: int = r) -> ExpPoly:
            f, b = _exact_direction(pair, fwd, r), _exact_direction(pair, bwd, r)
            return f if sign(f - b) >= 0 else b

        lo, hi = max(boxes[0][0], boxes[1][0]), max(boxes[0][1], boxes[1][1])
        direction = "D||D+z" if sum(boxes[0]) >= sum(boxes[1]) else "D+z||D"  # display only
        row = DepthRow(profile, r, eps, lo, hi, claimed, True, direction, value)
        if hi <= claimed.lo:
            row.holds = True
        elif lo > claimed.hi:
            row.holds = False
        else:
            row.holds = sign(row.delta_exact() - claimed.exact) <= 0  # type: ignore[operator]
        if exact:
            row.delta_exact()
        rows.append(row)
    return rows


def worst_row(rows: Sequence[DepthRow]) -> DepthRow | None:
    """A refuted row if any, else the row with the largest certified upper bound of
    `δ/bound` (a report, not a verdict)."""
    refuted = [row for row in rows if not row.holds]
    if refuted:
        return refuted[0]
    best: DepthRow | None = None
    best_hi = Fraction(-1)
    for row in rows:
        hi = row.tightness()[1]
        if hi > best_hi:
            best, best_hi = row, hi
    return best
