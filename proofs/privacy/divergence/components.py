"""Two output laws as finitely many components: the hockey stick and the exact curve of laws
with infinitely many outputs.

A `Component` is a part of the output space with its mass under each law, `p` and `q` (exact
`ExpRational`s): an *atom* when the likelihood ratio is constant on it (one finite output, or a
region of a discrete Laplace value: `betweencut.proofs.laws.released.dlap_regions`), or a
*shifted* part when one released continuous (or discrete Gaussian) coordinate moves on it:
there the two laws are `p·f(y - c)` and `q·f(y - c2)` (`Shift`). Any pair of laws the field's
primitives release splits this way (`betweencut.proofs.privacy.enumeration.noise_kind`).

`ComponentJoint` is the `PairCurve` of such a split: `δ_{P‖Q}(ε)` is the sum over atoms of
`(p - e^ε·q)_+` (exact) and over shifted parts of their closed forms (exact for the Laplace
with `p/q` a power of `e`; certified otherwise); `curve()` is the exact privacy curve when
every component is an atom. Splitting is lossless for every divergence: an `f`-divergence (the
hockey stick, Rényi, KL) of two laws equals that of their restrictions to any partition on
whose parts the ratio is constant, summed.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import cast

from betweencut.errors import ParameterError
from betweencut.proofs.exact.arith import ExpPoly, ExpRational, sign
from betweencut.proofs.exact.enclosure import Enclosure
from betweencut.proofs.laws.released import Shift, Value
from betweencut.proofs.privacy.divergence.curve import PrivacyCurve, direction_curve
from betweencut.proofs.privacy.divergence.joint import HockeyStick, PairCurve
from betweencut.proofs.verdict import Direction, checked_epsilon

__all__ = ["Component", "ComponentJoint", "NoExactCurve"]

SHOWN = 4


@dataclass(frozen=True)
class Component:
    """A part of the output space: `output` (what the report shows), its masses `p` and `q`,
    and the released coordinate that moves on it (`shift`; None for an atom)."""

    output: Hashable
    p: ExpRational
    q: ExpRational
    shift: Shift | None = None

    def swapped(self) -> Component:
        return Component(self.output, self.q, self.p,
                         None if self.shift is None else self.shift.swapped())

    @property
    def atom(self) -> bool:
        return self.shift is None


class NoExactCurve(ParameterError):
    """The laws have a part whose likelihood ratio takes infinitely many values (a released
    continuous or discrete Gaussian value that moves): their `δ(ε)` is certified point by
    point (`divergence(ε)`), and there is no exact curve `δ(ε)` to draw."""


def _exact(x: Value) -> bool:
    return isinstance(x, ExpRational)


class ComponentJoint(PairCurve):
    """The `δ(ε)` curve of two laws split into components (module docstring)."""

    def __init__(self, components: Sequence[Component]) -> None:
        self.components = tuple(components)

    def direction(self, forward: bool) -> tuple[Component, ...]:
        """The components as `(P, Q)` of `δ_{P‖Q}` (`forward`) or of `δ_{Q‖P}`."""
        return self.components if forward else tuple(c.swapped() for c in self.components)

    def hockey_stick(self, eps: Fraction, forward: bool = True) -> HockeyStick:
        eps = checked_epsilon(eps)
        grow = ExpPoly.exp(eps)
        terms: list[Value] = []
        p_parts: list[Value] = []
        q_parts: list[Value] = []
        event: list[Hashable] = []
        for part in self.direction(forward):
            if part.p.is_zero():
                continue
            if part.shift is None:
                excess: Value = part.p - part.q * grow
                p_in: Value = part.p
                q_in: Value = part.q
            else:
                excess, p_in, q_in = part.shift.hockey(part.p, part.q, eps)
            if _exact(excess):
                if excess.is_zero() or sign(excess) <= 0:
                    continue
                terms.append(excess)
                event.append(part.output)
            else:
                node = cast(Enclosure, excess)
                terms.append(node.positive_part())
                if node.enclose(64)[0] <= 0:
                    continue
                event.append(part.output)
            p_parts.append(p_in)
            q_parts.append(q_in)
        delta = _total(terms)
        shown = tuple(event[:SHOWN])
        # HockeyStick is typed for exact values; an Enclosure offers the same arithmetic, the
        # gate's `certified_sign`, `enclose` and `str` (as `gaussian_noise.CertifiedJoint`'s)
        return HockeyStick(eps, cast(ExpPoly, delta), len(event), cast(ExpPoly, _total(p_parts)),
                           cast(ExpPoly, _total(q_parts)), Direction.of(forward), lambda: shown)

    def divergence(self, eps: Fraction) -> HockeyStick:
        """`max(δ_{P‖Q}(ε), δ_{Q‖P}(ε))`: decided exactly when both are exact, else the maximum
        of the two enclosures (the event shown: the direction with the larger lower bound)."""
        forward, backward = self.hockey_stick(eps, True), self.hockey_stick(eps, False)
        if _exact(cast(Value, forward.delta)) and _exact(cast(Value, backward.delta)):
            return forward if sign(forward.delta - backward.delta) >= 0 else backward
        f_delta, b_delta = Enclosure.of(forward.delta), Enclosure.of(backward.delta)
        larger = forward if f_delta.enclose(64)[0] >= b_delta.enclose(64)[0] else backward
        return HockeyStick(eps, cast(ExpPoly, f_delta.maximum(b_delta)), larger.event_size,
                           larger.p_event, larger.q_event, larger.direction, larger.shown)

    def curve(self) -> PrivacyCurve:
        """The exact curve `max(δ_{P‖Q}, δ_{Q‖P})` when every component is an atom
        (`ParameterError` otherwise: a moving continuous value has a certified `δ(ε)`, point by
        point, through `divergence(ε)`)."""
        if not all(part.atom for part in self.components):
            raise NoExactCurve("curve", "a released continuous value", "laws whose outputs "
                               "are finitely many atoms; use divergence(eps) (certified)")

        def atoms(forward: bool) -> list[tuple[ExpPoly, ExpPoly, tuple[ExpPoly, ExpPoly]]]:
            out = []
            for part in self.direction(forward):
                ratio = part.p / part.q if not part.q.is_zero() else None
                hint = (ratio.num, ratio.den) if ratio is not None else None
                out.append((cast(ExpPoly, part.p), cast(ExpPoly, part.q), hint))
            return cast(list[tuple[ExpPoly, ExpPoly, tuple[ExpPoly, ExpPoly]]], out)

        return direction_curve(atoms(True)).maximum(direction_curve(atoms(False)))


def _total(values: Sequence[Value]) -> Value:
    if all(_exact(v) for v in values):
        out = ExpRational(ExpPoly())
        for v in values:
            out = out + cast(ExpRational, v)
        return out
    return Enclosure.sum(values, "a sum over components")
