"""The exact privacy curve `δ(ε)` of one neighbouring pair, `ε_at_δ`, and where one curve exceeds
another (the regression check).

For exact output laws `P`, `Q` (every probability an `ExpPoly`) and `ε >= 0`,

    δ_{P‖Q}(ε) = Σ_o (P(o) - e^ε·Q(o))_+ = A - e^ε·B,   A = P(S), B = Q(S), S = {o : β_o > ε},

where `β_o = ln(P(o)/Q(o))` (`+∞` when `Q(o) = 0`). So `δ_{P‖Q}` is piecewise `A_j - e^ε·B_j`
with breakpoints at the outputs' log-ratios, continuous, convex and non-increasing; the pair's
curve is `δ(ε) = max(δ_{P‖Q}(ε), δ_{Q‖P}(ε))` (both directions, combined by max, Def. 2.7).

Every point `ε` the curve needs is `ln x` for an exact positive `x` (`LogOf`: a breakpoint is
`ln(P(o)/Q(o))`, a crossing of two pieces `ln((A - A')/(B - B'))`, a rational `r` is `ln e^r`),
and `ln x <= ln y` iff `x <= y`, decided by the gate `betweencut.proofs.exact.arith.sign`
(certified enclosures first, the exact sign when they overlap). No float decides anything:
floats appear only in `display`/`as_json`.

`epsilon_at_delta(t)` is the smallest `ε >= 0` with `δ(ε) <= t`, exactly `ln((A_j - t)/B_j)` on
the piece where the curve crosses `t` (or 0, or None for `+∞`). For any mechanism whose pair
this is, the true `ε` at `δ = t` is at least this value: a certified lower bound.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Union

from mpmath import iv

from betweencut.data.validate import positive_rational
from betweencut.errors import ParameterError
from betweencut.numbers.exact import iv_endpoints, iv_precision, midpoint_float, refine
from betweencut.proofs.exact.arith import ExpPoly, ExpRational, enclose, exact_str, sign
from betweencut.proofs.laws.factors import Bag, bag_value, bags_value
from betweencut.proofs.privacy.divergence.joint import Law
from betweencut.proofs.verdict import checked_epsilon

__all__ = [
    "Interval", "LogOf", "Piece", "PrivacyCurve", "curve_of_laws", "direction_curve",
    "exceeds",
]

Exact = Union[Fraction, int, ExpPoly, ExpRational]  # noqa: UP007
ENCLOSURE_BITS = 64


def _ratio(x: Exact) -> ExpRational:
    return ExpRational.of(x)


class LogOf:
    """The real number `ln x` for an exact `x > 0` (an `ExpRational`): an `ε` of the curve.

    Orderings are decided through `x - y` by the gate (`sign`); certified enclosures of `ln x`
    (mpmath intervals) are kept for a fast first look and for display.
    """

    __slots__ = ("_enc", "_scaled", "_shift", "x")

    def __init__(self, x: Exact) -> None:
        self.x = _ratio(x)
        self._enc: tuple[Fraction, Fraction] | None = None
        if sign(self.x) <= 0:
            raise ParameterError("x", exact_str(self.x), "ln x needs x > 0")
        num, s_num = self.x.num.scaled()
        den, s_den = self.x.den.scaled()
        self._scaled, self._shift = ExpRational(num, den), s_num - s_den  # x = e^shift·scaled

    @staticmethod
    def rational(r: Fraction | int) -> LogOf:
        """`r = ln e^r`, exactly."""
        return LogOf(ExpPoly.exp(Fraction(r)))

    def as_rational(self) -> Fraction | None:
        """The value when it is rational: `x = e^r` (one monomial, coefficient 1)."""
        num, den = self.x.num, self.x.den
        if len(num.terms) != 1 or len(den.terms) != 1:
            return None
        (xn, cn), = num.terms.items()
        (xd, cd), = den.terms.items()
        return xn - xd if cn == cd else None

    def _x_enclosure(self, prec: int) -> tuple[Fraction, Fraction] | None:
        """Bounds of `e^(-shift)·x` at `prec` bits once they are certified positive, else
        None."""
        lo, hi = enclose(self._scaled, prec)
        return (lo, hi) if lo > 0 else None

    def enclose(self, prec: int = ENCLOSURE_BITS) -> tuple[Fraction, Fraction]:
        """Certified rational bounds of `ln x = shift + ln(e^(-shift)·x)` (outward-rounded
        mpmath intervals; the exact `shift` scales numerator and denominator by their largest
        terms, so `x` may be of any size); the bounds are taken at rising precision from
        `prec` until they exclude 0 (`refine`)."""
        if prec == ENCLOSURE_BITS and self._enc is not None:
            return self._enc
        (lo, hi), _ = refine(self._x_enclosure, lambda: f"the enclosure of {self.x} above 0",
                             prec)
        with iv_precision(prec + 8):
            a = iv_endpoints(iv.log(iv.mpf(lo.numerator) / lo.denominator))[0]
            b = iv_endpoints(iv.log(iv.mpf(hi.numerator) / hi.denominator))[1]
        out = a + self._shift, b + self._shift
        if prec == ENCLOSURE_BITS:
            self._enc = out
        return out

    def compare(self, other: LogOf) -> int:
        """`-1, 0, 1` as `ln x <, =, > ln y`: by enclosures when they are apart, else exactly."""
        a_lo, a_hi = self.enclose()
        b_lo, b_hi = other.enclose()
        if a_hi < b_lo:
            return -1
        if b_hi < a_lo:
            return 1
        x, y = self.x, other.x  # x.num/x.den vs y.num/y.den: cross-multiply, signs of dens
        cross = x.num * y.den - y.num * x.den
        return sign(cross) * _den_sign(x) * _den_sign(y)

    def exp(self) -> ExpRational:
        return self.x

    def display(self) -> float:
        """A float near `ln x`, for display and JSON only."""
        return midpoint_float(*self.enclose())

    def exact_str(self) -> str:
        r = self.as_rational()
        return str(r) if r is not None else f"log({self.x.text()})"  # log((4/5)*exp(1))

    def __str__(self) -> str:
        return self.exact_str()

    __repr__ = __str__


def _den_sign(x: ExpRational) -> int:
    rational = x.den.rational_value()
    if rational is not None:
        return 1 if rational > 0 else -1
    return sign(x.den)


ZERO = LogOf.rational(0)
Point = Union[LogOf, None]  # noqa: UP007  (None is +∞)


def _cmp(a: Point, b: Point) -> int:
    if a is None:
        return 0 if b is None else 1
    if b is None:
        return -1
    return a.compare(b)


@dataclass(frozen=True)
class Piece:
    """`δ(ε) = a - e^ε·b` for `lo <= ε <= hi` (`hi` None: up to `+∞`)."""

    lo: LogOf
    hi: LogOf | None
    a: ExpPoly
    b: ExpPoly

    def at(self, eps: LogOf) -> ExpRational:
        return ExpRational.of(self.a) - eps.exp() * self.b


Interval = tuple[LogOf, Union[LogOf, None]]  # noqa: UP007


@dataclass(frozen=True)
class PrivacyCurve:
    """`δ(ε)` for `ε >= 0` as consecutive pieces (the first starts at 0, the last is unbounded).

    `breakpoints` are the pieces' inner ends; `at(ε)` is exact; `epsilon_at_delta(t)` the
    smallest `ε` with `δ(ε) <= t` (None: no finite `ε`).
    """

    pieces: tuple[Piece, ...]

    @property
    def breakpoints(self) -> list[LogOf]:
        return [p.lo for p in self.pieces[1:]]

    def piece(self, eps: LogOf) -> Piece:
        for p in self.pieces:
            if p.hi is None or eps.compare(p.hi) <= 0:
                return p
        raise ParameterError("eps", eps, "eps >= 0")  # pragma: no cover - last piece unbounded

    def at(self, eps: Fraction | LogOf) -> ExpRational:
        """`δ(ε)` exactly (`ε >= 0` rational or a `LogOf`)."""
        if not isinstance(eps, LogOf):  # a claimed rational ε: checked once (`_eps`)
            point = LogOf.rational(_eps(eps))
        elif eps.compare(ZERO) < 0:  # a computed point (a breakpoint, a root)
            raise ParameterError("eps", eps, "eps >= 0")
        else:
            point = eps
        return self.piece(point).at(point)

    def epsilon_at_delta(self, delta: Exact) -> LogOf | None:
        """The smallest `ε >= 0` with `δ(ε) <= delta`, exactly; None when there is none.

        `δ` is non-increasing, so this is where the curve crosses `delta`: `0` if `δ(0) <=
        delta`, else `ln((a - delta)/b)` on the first piece whose right end is `<= delta`.
        """
        if sign(delta) < 0:
            raise ParameterError("delta", exact_str(delta), "delta >= 0")
        if sign(self.pieces[0].at(ZERO) - delta) <= 0:
            return ZERO
        for p in self.pieces:
            if p.hi is None:
                if sign(p.b) > 0:  # pragma: no cover - a last piece is constant
                    return LogOf((ExpRational.of(p.a) - delta) / p.b)
                return None
            if sign(p.at(p.hi) - delta) <= 0:
                root = LogOf((ExpRational.of(p.a) - delta) / p.b)
                return root if root.compare(p.lo) >= 0 else p.lo
        return None  # pragma: no cover - the loop ends on the unbounded piece

    def maximum(self, other: PrivacyCurve) -> PrivacyCurve:
        """The pointwise maximum (both directions of a pair combined), exactly."""
        out: list[Piece] = []
        for lo, hi, f, g in _refine(self, other):
            for s_lo, s_hi, above in _split(lo, hi, f, g):
                best = f if above else g
                _append(out, Piece(s_lo, s_hi, best.a, best.b))
        return PrivacyCurve(tuple(out))

    def as_json(self) -> list[dict[str, object]]:
        """Each piece with exact strings and display floats (`hi` null: unbounded)."""
        rows: list[dict[str, object]] = []
        for p in self.pieces:
            rows.append({
                "eps_from": p.lo.display(), "eps_to": None if p.hi is None else p.hi.display(),
                "eps_from_exact": p.lo.exact_str(),
                "eps_to_exact": None if p.hi is None else p.hi.exact_str(),
                "delta_exact": exact_str(p.a) if p.b.is_zero() else
                f"{exact_str(p.a)} - exp(eps)*({exact_str(p.b)})",
            })
        return rows

    def samples(self, eps_max: Fraction, n: int = 200) -> list[tuple[float, float]]:
        """`(ε, δ(ε))` as floats on a grid of `[0, eps_max]` (for plots only)."""
        out = []
        for i in range(n + 1):
            e = eps_max * i / n
            lo, hi = enclose(self.at(e))
            out.append((midpoint_float(e, e), midpoint_float(lo, hi)))
        return out


def _eps(eps: object) -> Fraction:
    """A rational `ε` (an int or a `Fraction`: no text here) through the one range check
    (`verdict.checked_epsilon`: a `ClaimedEpsilon` passes as it is)."""
    return checked_epsilon(positive_rational(eps, "eps", zero=True))


def _append(out: list[Piece], piece: Piece) -> None:
    """Add a piece, merging it into the previous one when the formulas are equal."""
    if out and out[-1].a == piece.a and out[-1].b == piece.b:
        out[-1] = Piece(out[-1].lo, piece.hi, piece.a, piece.b)
    else:
        out.append(piece)


def _refine(f: PrivacyCurve, g: PrivacyCurve) -> list[tuple[LogOf, Point, Piece, Piece]]:
    """The common refinement of two curves' pieces: `(lo, hi, piece of f, piece of g)`."""
    out: list[tuple[LogOf, Point, Piece, Piece]] = []
    i = j = 0
    lo = ZERO
    while True:
        pf, pg = f.pieces[i], g.pieces[j]
        c = _cmp(pf.hi, pg.hi)
        hi = pf.hi if c <= 0 else pg.hi
        if hi is None or lo.compare(hi) < 0:
            out.append((lo, hi, pf, pg))
        if hi is None:
            return out
        lo = hi
        if c <= 0:
            i += 1
        if c >= 0:
            j += 1


def _split(lo: LogOf, hi: Point, f: Piece, g: Piece) -> list[tuple[LogOf, Point, bool]]:
    """`[lo, hi]` cut where `f - g = (a_f - a_g) - e^ε·(b_f - b_g)` changes sign, each part
    with whether `f >= g` there (at most one sign change: `e^ε = Δa/Δb`)."""
    da, db = f.a - g.a, f.b - g.b
    if db.is_zero():
        return [(lo, hi, sign(da) >= 0)]
    ratio = ExpRational.of(da) / db  # pieces may hold ExpRationals (released values' laws)
    if sign(ratio) <= 0:  # f - g has the sign of -db on every ε
        return [(lo, hi, sign(db) < 0)]
    root = LogOf(ratio)
    # f > g  iff  e^ε·db < da: for db > 0 below the root, for db < 0 above it
    below = sign(db) > 0
    if root.compare(lo) <= 0:
        return [(lo, hi, not below)]
    if hi is not None and root.compare(hi) >= 0:
        return [(lo, hi, below)]
    return [(lo, root, below), (root, hi, not below)]


def exceeds(candidate: PrivacyCurve, baseline: PrivacyCurve) -> list[Interval]:
    """The maximal intervals of `ε >= 0` where `candidate(ε) > baseline(ε)` (open at ends where
    the two are equal), with exact ends; empty when the candidate never exceeds."""
    out: list[Interval] = []
    for lo, hi, f, g in _refine(candidate, baseline):
        for s_lo, s_hi, above in _split(lo, hi, f, g):
            if not above or (s_hi is not None and s_lo.compare(s_hi) == 0):
                continue
            if f.a == g.a and f.b == g.b:
                continue
            if out and out[-1][1] is not None and out[-1][1].compare(s_lo) == 0:
                out[-1] = (out[-1][0], s_hi)
            else:
                out.append((s_lo, s_hi))
    return out


def _by_beta(u: tuple[LogOf, ExpPoly, ExpPoly], v: tuple[LogOf, ExpPoly, ExpPoly]) -> int:
    return u[0].compare(v[0])


def direction_curve(
    atoms: Iterable[tuple[ExpPoly, ExpPoly]] | Iterable[tuple[ExpPoly, ExpPoly, Ratio | None]],
) -> PrivacyCurve:
    """`δ_{P‖Q}(ε)` from the outputs' exact probabilities `(P(o), Q(o))` (grouped or not).

    Each atom may carry its ratio `P(o)/Q(o)` in a cheaper exact form (`(num, den)` with the
    factors both share cancelled); it must equal `P(o)/Q(o)` (the callers build it so).
    Outputs with `P(o) <= Q(o)` never enter `S` for `ε >= 0`; those with `Q(o) = 0` are in `S`
    for every `ε`; the rest leave `S` at `β_o = ln(P(o)/Q(o)) > 0`, sorted exactly.
    """
    always = ExpPoly()
    finite: list[tuple[LogOf, ExpPoly, ExpPoly]] = []
    for atom in atoms:
        p, q = atom[0], atom[1]
        hint = atom[2] if len(atom) > 2 else None
        if p.is_zero():
            continue
        if q.is_zero():
            always = always + p
            continue
        beta = LogOf(ExpRational(*hint) if hint is not None else ExpRational(p, q))
        if beta.compare(ZERO) <= 0:
            continue
        finite.append((beta, p, q))
    finite.sort(key=functools.cmp_to_key(_by_beta))
    groups: list[tuple[LogOf, ExpPoly, ExpPoly]] = []
    for beta, p, q in finite:
        if groups and groups[-1][0].compare(beta) == 0:
            g = groups[-1]
            groups[-1] = (g[0], g[1] + p, g[2] + q)
        else:
            groups.append((beta, p, q))
    # suffix sums: on [β_{j-1}, β_j] the event is every output with β >= β_j
    a_tail, b_tail = always, ExpPoly()
    tails: list[tuple[ExpPoly, ExpPoly]] = []
    for _, p, q in reversed(groups):
        a_tail, b_tail = a_tail + p, b_tail + q
        tails.append((a_tail, b_tail))
    tails.reverse()
    pieces: list[Piece] = []
    lo = ZERO
    for (beta, _, _), (a, b) in zip(groups, tails, strict=True):
        pieces.append(Piece(lo, beta, a, b))
        lo = beta
    pieces.append(Piece(lo, None, always, ExpPoly()))
    return PrivacyCurve(tuple(pieces))


Ratio = tuple[ExpPoly, ExpPoly]
Atom = tuple[ExpPoly, ExpPoly, Union[Ratio, None]]  # noqa: UP007


def _cancel(p: Bag, q: Bag) -> tuple[Bag, Bag]:
    """Two answer-sequence bags without the factors they share (all factors are positive)."""
    cp, cq = Counter(p), Counter(q)
    common = cp & cq
    return tuple(sorted((cp - common).elements())), tuple(sorted((cq - common).elements()))


def _atoms(p: Law, q: Law) -> list[Atom]:
    """The outputs grouped by their exact ratio where it is known without computing it: an
    output given by one answer sequence under each law has the ratio of its two bags with the
    shared factors cancelled (off the added record's path both databases answer alike, Eq. 4),
    so outputs with equal cancelled bags have equal ratios; outputs possible under one law only
    form one group per side; other outputs are grouped by their exact pair of values."""
    grouped: dict[Hashable, tuple[Counter[Bag], Counter[Bag], Ratio | None]] = {}
    for o in {**p.bags, **q.bags}:
        bp = p.single(o) if o in p.bags else None
        bq = q.single(o) if o in q.bags else None
        key: Hashable
        hint: Ratio | None = None
        if o not in q.bags:
            key = "P only"
        elif o not in p.bags:
            key = "Q only"
        elif bp is not None and bq is not None:
            rp, rq = _cancel(bp, bq)
            key = ("bags", rp, rq)
            hint = (bag_value(rp), bag_value(rq))
        else:  # several answer sequences: group by the exact values themselves
            key = ("values", p.value(o), q.value(o))
        found = grouped.get(key)
        if found is None:
            found = grouped[key] = (Counter(), Counter(), hint)
        found[0].update(p.bags.get(o, Counter()))
        found[1].update(q.bags.get(o, Counter()))
    return [(bags_value(pc), bags_value(qc), hint) for pc, qc, hint in grouped.values()]


def curve_of_laws(p: Law, q: Law) -> PrivacyCurve:
    """The pair's curve `max(δ_{P‖Q}, δ_{Q‖P})` from two enumerated laws, exactly."""
    forward = _atoms(p, q)
    backward: list[Atom] = [(b, a, None if r is None else (r[1], r[0])) for a, b, r in forward]
    return direction_curve(forward).maximum(direction_curve(backward))
