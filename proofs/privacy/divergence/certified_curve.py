"""The privacy curve of a pair whose probabilities are certified enclosures (Gaussian laws):
two exact curves that bound it, and what they certify.

For output laws whose probabilities are enclosed (`P(o) ∈ [P_lo(o), P_hi(o)]`, an exact
`ExpPoly` being its own enclosure), each term of `δ_{P‖Q}(ε) = Σ_o (P(o) - e^ε·Q(o))_+` grows
with `P(o)` and falls with `Q(o)`, so for every `ε >= 0`

    Σ_o (P_lo(o) - e^ε·Q_hi(o))_+  <=  δ_{P‖Q}(ε)  <=  Σ_o (P_hi(o) - e^ε·Q_lo(o))_+,

and the same for `δ_{Q‖P}` (with `(Q_lo, P_hi)` below and `(Q_hi, P_lo)` above); the maximum of
the two lower (upper) curves bounds the pair's curve `δ(ε)` from below (above). Both bounds
are exact curves of rational (or exact) atoms (`curve.direction_curve`), so everything said
about them is decided exactly:

* `epsilon_at_delta(t)` of the lower curve is a certified LOWER bound on the pair's own
  `ε_at_δ(t)` (hence on the mechanism's `ε` at `δ = t`), that of the upper curve an upper bound
  on the pair's: `epsilon_at_delta_in(t)` encloses it;
* where `candidate.lower > baseline.upper` the candidate certainly leaks more (`exceeds`);
  where `candidate.upper <= baseline.lower` everywhere, it certainly never does.

An output whose two probabilities are known equal (`Enclosure.same_value`: the same computation
from the same exact inputs) contributes `(x - e^ε·x)_+ = 0` at every `ε >= 0`, exactly: it is
left out of both bounds (and two joints whose laws are known equal output by output have equal
curves: `same_laws`). The bounds are taken at `bits` bits (`at_bits(b)` recomputes them finer,
for the one rising-precision loop, `betweencut.numbers.exact.refine`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Union

from betweencut.errors import ParameterError
from betweencut.numbers.exact import midpoint_float
from betweencut.proofs.exact.arith import ExpPoly, ExpRational, enclose
from betweencut.proofs.exact.enclosure import Enclosure
from betweencut.proofs.privacy.divergence.curve import (
    Interval,
    LogOf,
    PrivacyCurve,
    direction_curve,
    exceeds,
)

__all__ = ["CertifiedCurve", "Curve", "at_rational", "bounds_of", "certified_curve",
           "certified_exceeds", "same_laws"]

Probability = Union[ExpPoly, Enclosure]  # noqa: UP007
Atom = tuple[ExpPoly, ExpPoly]


def _ends(x: Probability, bits: int) -> tuple[ExpPoly, ExpPoly]:
    """`(lo, hi)` of a probability as exact values: itself twice when exact, else the rational
    ends of its enclosure at `bits` bits (`lo` kept `>= 0`)."""
    if isinstance(x, ExpPoly):
        return x, x
    if x.is_zero():
        return ExpPoly(), ExpPoly()
    lo, hi = x.enclose(bits)
    return ExpPoly.const(max(lo, Fraction(0))), ExpPoly.const(hi)


def _atoms(p: Mapping[Hashable, Probability], q: Mapping[Hashable, Probability], bits: int
           ) -> tuple[list[Atom], list[Atom]]:
    """The forward atoms of the lower and of the upper curve: `(P_lo, Q_hi)`, `(P_hi, Q_lo)`."""
    lower: list[Atom] = []
    upper: list[Atom] = []
    zero = ExpPoly()
    for o in {*p, *q}:
        po, qo = p.get(o, zero), q.get(o, zero)
        if isinstance(po, Enclosure) and po.same_value(qo):
            continue  # P(o) = Q(o) exactly: no term at any eps >= 0
        p_lo, p_hi = _ends(po, bits)
        q_lo, q_hi = _ends(qo, bits)
        lower.append((p_lo, q_hi))
        upper.append((p_hi, q_lo))
    return lower, upper


def _pair_curve(forward: list[Atom], other: list[Atom]) -> PrivacyCurve:
    """`max` of the forward direction's curve and the backward one's: the backward atoms of a
    lower bound are the upper bound's forward atoms reversed (`(Q_lo, P_hi)`), and so on."""
    return direction_curve(forward).maximum(direction_curve([(b, a) for a, b in other]))


@dataclass(frozen=True)
class CertifiedCurve:
    """`lower(ε) <= δ(ε) <= upper(ε)` for every `ε >= 0`, both exact curves, from enclosures at
    `bits` bits; `at_bits(b)` gives the same bounds at `b` bits (see the module doc)."""

    lower: PrivacyCurve
    upper: PrivacyCurve
    bits: int
    at_bits: Callable[[int], CertifiedCurve] = field(repr=False, compare=False)

    certified = True  # the curve of a pair with enclosed probabilities (never exact)

    def epsilon_at_delta(self, delta: object) -> LogOf | None:
        """A certified lower bound on the pair's smallest `ε` with `δ(ε) <= delta` (the lower
        curve's own, exact); None: not even the lower curve reaches `delta` at a finite `ε`."""
        return self.lower.epsilon_at_delta(delta)  # type: ignore[arg-type]

    def epsilon_at_delta_in(self, delta: object) -> tuple[LogOf | None, LogOf | None]:
        """`(lo, hi)` with the pair's smallest `ε` at `delta` in `[lo, hi]` (None: `+∞`)."""
        return (self.lower.epsilon_at_delta(delta),  # type: ignore[arg-type]
                self.upper.epsilon_at_delta(delta))  # type: ignore[arg-type]

    def at(self, eps: Fraction | LogOf) -> tuple[ExpRational, ExpRational]:
        """Exact bounds `(lower(ε), upper(ε))` of `δ(ε)`."""
        return self.lower.at(eps), self.upper.at(eps)

    def as_json(self) -> dict[str, object]:
        """Both bounds piece by piece (exact ends, display floats) and the bits they took."""
        return {"bits": self.bits, "lower": self.lower.as_json(), "upper": self.upper.as_json()}

    def samples(self, eps_max: Fraction, n: int = 200) -> list[tuple[float, float]]:
        """`(ε, δ(ε))` as floats on a grid of `[0, eps_max]`, `δ` the midpoint of its bounds (for
        plots only)."""
        out = []
        for i in range(n + 1):
            e = eps_max * i / n
            lo, _ = enclose(self.lower.at(e))
            _, hi = enclose(self.upper.at(e))
            out.append((midpoint_float(e, e), midpoint_float(lo, hi)))
        return out


Curve = Union[PrivacyCurve, CertifiedCurve]  # noqa: UP007


def certified_curve(p: Mapping[Hashable, Probability], q: Mapping[Hashable, Probability],
                    bits: int = 64) -> CertifiedCurve:
    """The bounds of the pair's curve `max(δ_{P‖Q}, δ_{Q‖P})` from two laws whose probabilities
    are exact (`ExpPoly`) or certified (`Enclosure`), at `bits` bits."""
    if bits < 16:
        raise ParameterError("bits", bits, "an integer number of bits >= 16")
    lower, upper = _atoms(p, q, bits)
    return CertifiedCurve(_pair_curve(lower, upper), _pair_curve(upper, lower), bits,
                          lambda finer: certified_curve(p, q, finer))


def _known_equal(x: Probability, y: Probability) -> bool:
    if x.is_zero() and y.is_zero():
        return True
    if isinstance(x, Enclosure):
        return x.same_value(y)
    return isinstance(y, ExpPoly) and x == y


def same_laws(a: object, b: object) -> bool:
    """Whether two joints (`.p`, `.q`: output -> probability) are known to hold the same two
    laws: every output's probabilities equal exactly, or enclosures with the same structural
    key (the same computation from the same exact inputs). Then their curves are equal."""
    zero = ExpPoly()
    for mine, theirs in ((getattr(a, "p", None), getattr(b, "p", None)),
                         (getattr(a, "q", None), getattr(b, "q", None))):
        if not isinstance(mine, Mapping) or not isinstance(theirs, Mapping):
            return False
        for o in {*mine, *theirs}:
            if not _known_equal(mine.get(o, zero), theirs.get(o, zero)):
                return False
    return True


def bounds_of(curve: Curve) -> tuple[PrivacyCurve, PrivacyCurve]:
    """`(lower, upper)`: an exact curve is its own two bounds."""
    if isinstance(curve, CertifiedCurve):
        return curve.lower, curve.upper
    return curve, curve


def certified_exceeds(candidate: Curve, baseline: Curve) -> list[Interval] | None:
    """The maximal `ε` ranges where the candidate's `δ(ε)` certainly exceeds the baseline's
    (`candidate.lower > baseline.upper`, exact ends) when some exist; `[]` when it certainly
    never does (`candidate.upper <= baseline.lower` at every `ε >= 0`); None when the bounds
    cannot tell yet (more bits may). Two exact curves: `curve.exceeds`, always decided."""
    if not isinstance(candidate, CertifiedCurve) and not isinstance(baseline, CertifiedCurve):
        return exceeds(candidate, baseline)
    c_lo, c_hi = bounds_of(candidate)
    b_lo, b_hi = bounds_of(baseline)
    certain = exceeds(c_lo, b_hi)
    if certain:
        return certain
    if not exceeds(c_hi, b_lo):
        return []
    return None


def at_rational(curve: Curve, eps: Fraction) -> tuple[ExpRational, ExpRational]:
    """Exact bounds of `δ(ε)` at a rational `ε` (an exact curve's value twice)."""
    lo, hi = bounds_of(curve)
    return lo.at(eps), hi.at(eps)

