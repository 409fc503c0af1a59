"""Auditing Rényi and zCDP claims on neighbouring pairs: the rows and the refutation of the one
verdict shape.

A claim is `ρ`-zCDP (`D_α <= ρα` at every order `α > 1`) or `(α, ε)`-RDP at one order
(`RenyiClaim`). `audit_renyi(cache, pairs, claim)` decides it on both directions of every pair
from the laws the cache enumerates, split into components (the field's kind:
`betweencut.proofs.privacy.enumeration.noise_kind`), by
`betweencut.proofs.privacy.divergence.renyi`: the pair and direction refuting it by the most
(the largest excess `D_α - ε(α)` at its witness order; with `first`, the first one found) with
its witness order and exact divergence, or, when it holds, how every order was covered. A verdict
row of a Rényi claim (`renyi_row`) reports `D_α` against the claimed `ε(α)` with its `order`;
a refutation (`renyi_refutation`) reports the order, the Rényi moment `S` (as `P`), its bound
`e^((α-1)ε)` (as `Q`) and `D_α = ln S/(α - 1)`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Union, cast

from mpmath import iv

from betweencut.data.notation import database_text, record_text, replacement_text
from betweencut.data.validate import positive_rational
from betweencut.errors import ParameterError, Undecided
from betweencut.numbers.exact import iv_endpoints, iv_precision
from betweencut.numbers.exact_text import read_rational
from betweencut.proofs.exact.arith import ExpPoly, ExpRational, exact_str
from betweencut.proofs.exact.enclosure import Bounds, Enclosure
from betweencut.proofs.privacy.audit.pairs import output_text
from betweencut.proofs.privacy.divergence.components import Component, ComponentJoint
from betweencut.proofs.privacy.divergence.renyi import OrderResult, check_order, zcdp
from betweencut.proofs.privacy.enumeration.cache import LawCache, Neighbour
from betweencut.proofs.verdict import Direction, Refutation, Release, Row, enclosure

__all__ = ["RDP", "ZCDP", "RenyiAudit", "RenyiClaim", "audit_renyi", "refutes_more",
           "renyi_refutation", "renyi_row"]

ZCDP, RDP = "zcdp", "rdp"
Rho = Union[Fraction, ExpPoly]  # noqa: UP007


@dataclass(frozen=True)
class RenyiClaim:
    """`ρ`-zCDP (`kind` ZCDP, `rho`) or `(α, ε)`-RDP (`kind` RDP, `order`, `eps`)."""

    kind: str
    rho: Rho = Fraction(0)
    order: Fraction = Fraction(0)
    eps: Fraction = Fraction(0)

    @property
    def text(self) -> str:
        if self.kind == ZCDP:
            return (f"{self.rho}-zCDP" if isinstance(self.rho, Fraction) else
                    f"rho-zCDP, rho = {exact_str(self.rho)}")
        return f"({self.order}, {self.eps})-RDP"

    def parameters(self) -> dict[str, object]:
        if self.kind == ZCDP:
            return {"measure": ZCDP, "rho": exact_str(self.rho)}
        return {"measure": RDP, "order": str(self.order), "eps": str(self.eps)}

    @staticmethod
    def parse(text: str) -> RenyiClaim:
        """`zcdp:RHO` or `rdp:ALPHA:EPS` (exact rationals, `ALPHA > 1`)."""
        kind, _, rest = text.partition(":")
        if kind == ZCDP and rest:
            rho = positive_rational(rest, "rho", " (zCDP)", text=True)
            return RenyiClaim(ZCDP, rho=rho)
        order, _, eps = rest.partition(":")
        if kind == RDP and order and eps:
            alpha, bound = read_rational(order, "alpha"), read_rational(eps, "eps")
            if alpha <= 1 or bound < 0:
                raise ParameterError("claim", text, "rdp:ALPHA:EPS with alpha > 1, eps >= 0")
            return RenyiClaim(RDP, order=alpha, eps=bound)
        raise ParameterError("claim", text, "zcdp:RHO or rdp:ALPHA:EPS (exact rationals)")


def pair_texts(pair: Neighbour) -> tuple[str, str, str | None]:
    """`D`, `z` (or the move `x->y`) and `D'` (None for add/remove) as the verdict writes them."""
    if pair.replaced is None:
        return database_text(pair.first), record_text(pair.z), None
    return (database_text(pair.first), replacement_text(*pair.replaced),
            database_text(pair.second))


def direction_of(pair: Neighbour, forward: bool) -> Direction:
    d = Direction.of(forward)
    return d if pair.replaced is None else d.replaced()


@dataclass
class RenyiAudit:
    """What `audit_renyi` found: `holds`; the refuting `(pair, forward, order result, parts)`;
    each direction's covering argument; the pair with the largest order-2 (or claimed order)
    divergence, for the report when the claim holds."""

    holds: bool = True
    witness: tuple[Neighbour, bool, OrderResult, Sequence[Component]] | None = None
    arguments: list[dict[str, object]] = field(default_factory=list)
    closest: tuple[Neighbour, bool, OrderResult] | None = None
    pairs: int = 0


def _components(cache: LawCache, pair: Neighbour) -> ComponentJoint:
    joint = cache.pair_joint(pair, Release.OUTPUT)
    if not isinstance(joint, ComponentJoint):
        raise ParameterError("mechanism", type(joint).__name__, "a mechanism asking the field's "
                             "primitives (betweencut.noise) for a Renyi or zCDP claim")
    return joint


def refutes_more(a: OrderResult, b: OrderResult) -> bool:
    """`a` refutes by more than `b`: an infinite `D_α` first, else a larger excess
    `D_α - ε(α)` over the claim at its own order, by certified enclosures (64 then 256 bits).
    Excesses not apart keep `b`, the first found: this only chooses which refutation is
    reported, the verdict (refuted) does not depend on it."""
    if b.divergence.infinite:
        return False
    if a.divergence.infinite:
        return True
    for prec in (64, 256):
        a_lo = enclosure(cast(Any, a.divergence), prec)[0] - enclosure(cast(Any, a.bound),
                                                                       prec)[1]
        a_hi = enclosure(cast(Any, a.divergence), prec)[1] - enclosure(cast(Any, a.bound),
                                                                       prec)[0]
        b_lo = enclosure(cast(Any, b.divergence), prec)[0] - enclosure(cast(Any, b.bound),
                                                                       prec)[1]
        b_hi = enclosure(cast(Any, b.divergence), prec)[1] - enclosure(cast(Any, b.bound),
                                                                       prec)[0]
        if a_lo > b_hi:
            return True
        if a_hi < b_lo:
            return False
    return False


def audit_renyi(cache: LawCache, pairs: Sequence[Neighbour], claim: RenyiClaim,
                first: bool = False) -> RenyiAudit:
    """Decide `claim` on both directions of every pair (module docstring); `Undecided` when a
    direction can be neither refuted nor certified (with the reason) while the claim still
    holds on every pair before it. By default a refuted claim goes on over every pair and
    both directions and reports the worst witness (`refutes_more`: the largest excess
    `D_α - ε(α)`, an infinite divergence first; a direction undecided after a refutation is
    passed over, it cannot undo it); `first` stops at the first witness (`pairs` then counts
    the pairs audited up to it)."""
    found = RenyiAudit()
    for pair in pairs:
        found.pairs += 1
        joint = _components(cache, pair)
        for forward in (True, False):
            parts = joint.direction(forward)
            if claim.kind == ZCDP:
                result = zcdp(parts, claim.rho)
                if result.undecided:
                    if not found.holds:
                        continue
                    raise Undecided(f"{claim.text} on {pair_texts(pair)}: {result.undecided}")
                if not result.holds and result.witness is not None:
                    if found.witness is None or refutes_more(result.witness, found.witness[2]):
                        found.holds, found.witness = False, (pair, forward, result.witness,
                                                             parts)
                    if first:
                        return found
                    continue
                found.arguments.append({"pair": " ~ ".join(t for t in pair_texts(pair) if t),
                                        "direction": direction_of(pair, forward).value,
                                        **result.argument})
                shown = check_order(parts, Fraction(2), claim.rho * 2)
            else:
                shown = check_order(parts, claim.order, claim.eps)
                if not shown.holds:
                    if found.witness is None or refutes_more(shown, found.witness[2]):
                        found.holds, found.witness = False, (pair, forward, shown, parts)
                    if first:
                        return found
                    continue
            if not shown.divergence.infinite and (found.closest is None or enclosure(
                    cast(Any, shown.divergence), 64)[1] > enclosure(
                    cast(Any, found.closest[2].divergence), 64)[1]):
                found.closest = (pair, forward, shown)
    return found


class DivergenceValue(Enclosure):
    """`D_α` as an `Enclosure` whose exact text is its closed form (`log(S)/(α - 1)`)."""

    def __init__(self, divergence: Any) -> None:
        super().__init__(divergence.enclose, divergence.text())
        self.divergence = divergence

    def text(self) -> str:
        return str(self.divergence.text())


def renyi_row(pair: Neighbour, forward: bool, result: OrderResult,
              on: Release = Release.OUTPUT) -> Row:
    """One pair's `D_α` against the claimed `ε(α)` as a verdict row (`order` set)."""
    d, z, d_prime = pair_texts(pair)
    value: Any = DivergenceValue(result.divergence)
    return Row(d, z, on, result.alpha, value, enclosure(value), result.bound, result.holds,
               direction_of(pair, forward), {"exact": result.exact}, d_prime,
               order=result.alpha)


def _exp_enclosure(x: Enclosure) -> Enclosure:
    """`e^x` of an enclosed `x` (outward-rounded intervals)."""

    def at(prec: int) -> Bounds:
        lo, hi = x.enclose(prec)
        with iv_precision(prec + 16):
            a = iv_endpoints(iv.exp(iv.mpf(lo.numerator) / lo.denominator))[0]
            b = iv_endpoints(iv.exp(iv.mpf(hi.numerator) / hi.denominator))[1]
        return a, b

    return Enclosure(at, f"exp({x.label})")


def renyi_refutation(claim_text: str, pair: Neighbour, forward: bool, result: OrderResult,
                     parts: Sequence[Component], note: str = "", on: Release = Release.OUTPUT
                     ) -> Refutation:
    """The counterexample of a refuted Rényi claim (module docstring); an output with
    `Q = 0 < P` (an infinite divergence) is reported as the event it is."""
    d, z, d_prime = pair_texts(pair)
    direction = direction_of(pair, forward)
    bound: Any = result.bound
    if result.divergence.infinite:
        part = next(p for p in parts if not p.p.is_zero() and p.q.is_zero())
        return Refutation(
            claim_text, d, z, on, direction, result.alpha, (output_text(part.output),), 1,
            part.p, ExpRational(ExpPoly()), part.p, bound,
            "D_alpha = oo at every order alpha > 1: this output has Q = 0 < P", d_prime,
            order=result.alpha)
    limit: Any = (ExpPoly.exp((result.alpha - 1) * bound) if isinstance(bound, Fraction) else
                  _exp_enclosure(Enclosure.of(bound) * (result.alpha - 1)))
    text = (f"order {result.alpha}: P is the Renyi moment S, Q = e^((alpha - 1) * claimed), "
            f"D_alpha = ln(S)/(alpha - 1) against the claimed {exact_str(bound)}"
            + ("" if result.exact else " (certified)"))
    return Refutation(
        claim_text, d, z, on, direction, result.alpha, (), 0, cast(Any, result.divergence.S),
        limit, DivergenceValue(result.divergence), bound,
        f"{note}; {text}" if note else text, d_prime, order=result.alpha)
