"""Rényi divergences of one pair and the claims built on them: `(α, ε)`-RDP at one order and
`ρ`-zCDP at every order `α > 1`, refuted with an exact witness or certified by a sound argument.

For two laws split into components (`betweencut.proofs.privacy.divergence.components`: masses
`p`, `q` and a moving coordinate with moment `M(α)`),

    S(α) = Σ p^α·q^(1-α)·M(α),     D_α(P‖Q) = ln S(α) / (α - 1)     (α > 1),

`M = 1` for an atom (`betweencut.proofs.laws.released` gives the other `M`). At an integer `α`
every term is exact (`p^α/q^(α-1)`); at a rational `α` it is exact when `p = q` or `p/q = e^r`
(`r` rational), certified otherwise. A part with `q = 0 < p` makes `S = ∞` at every `α > 1`.

**One order** (`check_order`): `D_α <= ε` iff `S(α) <= e^((α-1)ε)`, decided exactly when both
sides are exact, else by certified enclosures (`Undecided` only at the precision cap).

**Every order** (`zcdp`): `ρ`-zCDP holds iff `K(α) = ln S(α) <= ρ·α(α-1)` for every `α > 1`.
A witness is searched first (integers 2, 3, 4, ..., then `1 + 2^-j` near 1, where a claim below
the KL divergence fails): a refuted claim names its order `α`, `S(α)` and `D_α`. Otherwise the
claim is certified on `(1, ∞)` in three parts, each a theorem about every `α` in it, not a grid:

1. *Gaussian coordinates*: `M(α) <= e^(α(α-1)ρ_k)` (equality for the continuous Gaussian, and
   the discrete one's bound, CKS 2020, Prop. 5), so with `ρ_max = max ρ_k`,
   `S(α) <= e^(α(α-1)ρ_max)·S_r(α)`, `S_r` the same sum with those moments replaced by 1; it
   remains to show `K_r(α) = ln S_r(α) <= ρ_r·α(α-1)`, `ρ_r = ρ - ρ_max`;
2. *the tail* `α >= A`: with `D = max(ln(p/q) + u)` over the parts (`u` the Laplace shift's
   `|c - c'|/b`, else 0), Mironov's `M(α) <= e^((α-1)u)` gives `S_r(α) <= e^((α-1)D)`, so
   `K_r(α) <= (α-1)·D <= ρ_r·α(α-1)` once `α >= A = D/ρ_r`;
3. *near 1*, `g(α) = ρ_r·α(α-1) - K_r(α)` has `g(1) = 0` and `g'(1) = ρ_r - KL`: if `g'(1) >= 0`
   (exactly, for a claim equal to KL such as the Laplace mechanism's `ε + e^(-ε) - 1`) and
   `g'' >= m` on `[1, b]` (interval jets, `betweencut.proofs.exact.jets`), Taylor's theorem gives
   `g(α) >= (α-1)·(g'(1) + m(α-1)/2) >= 0` there; on `[b, A]`, `g` is enclosed on intervals
   (value and mean-value form from the jets) split until every lower end is `>= 0`.

A claim that touches its bound at an interior `α` (neither a Gaussian closed form nor strict)
cannot be certified this way and is reported `Undecided` with the interval that failed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Union

from mpmath import iv

from betweencut.errors import ParameterError, Undecided
from betweencut.noise.primitives import LAPLACE
from betweencut.numbers.exact import iv_endpoints, iv_precision
from betweencut.proofs.exact.arith import ExpPoly, ExpRational, enclose, exact_str, sign
from betweencut.proofs.exact.enclosure import GUARD_BITS, Bounds, Enclosure, round_bounds
from betweencut.proofs.exact.jets import Jet, interval
from betweencut.proofs.laws.released import exp_log_ratio
from betweencut.proofs.privacy.divergence.components import Component

__all__ = ["Divergence", "OrderResult", "ZcdpResult", "check_order", "kl_divergence", "moment",
           "zcdp"]

Rho = Union[Fraction, ExpPoly]  # noqa: UP007  (a claimed rho may be exact but irrational)
INTEGER_ORDERS = (2, 3, 4, 5, 6, 8, 12, 16, 24, 32, 64)
NEAR_ONE = tuple(1 + Fraction(1, 1 << j) for j in range(1, 25))
MAX_CELLS = 4096
MIN_WIDTH = Fraction(1, 1 << 30)
JET_BITS = 96


def _rational_log(p: ExpRational, q: ExpRational) -> Fraction | None:
    if (p - q).is_zero():
        return Fraction(0)
    return exp_log_ratio(p, q)


def _term(part: Component, alpha: Fraction) -> ExpRational | None:
    """`p^α·q^(1-α)·M(α)` exactly, or None where it is not exact."""
    m = ExpPoly.const(1) if part.shift is None else part.shift.moment(alpha)
    if m is None:
        return None
    if alpha.denominator == 1:
        n = int(alpha)
        return (part.p ** n / part.q ** (n - 1)) * m
    r = _rational_log(part.p, part.q)
    if r is None:
        return None
    return part.q * ExpPoly.exp(alpha * r) * m


def _log_interval(x: ExpRational, prec: int) -> Any:
    lo, hi = x.enclose(prec + GUARD_BITS)
    if lo <= 0:
        raise Undecided(f"{x} is not certainly positive at {prec} bits")
    return iv.mpf([iv.log(interval(lo)).a, iv.log(interval(hi)).b])


def _term_interval(part: Component, alpha: Fraction, prec: int) -> Any:
    """An interval for `p^α·q^(1-α)·M(α)` (None: `M(α)` not available)."""
    m = ExpPoly.const(1) if part.shift is None else part.shift.moment(alpha)
    if m is None:
        return None
    lp, lq = _log_interval(part.p, prec), _log_interval(part.q, prec)
    a = interval(alpha)
    lo, hi = m.enclose(prec + GUARD_BITS)
    return iv.exp(a * lp + (1 - a) * lq) * iv.mpf([interval(lo).a, interval(hi).b])


INFINITE = "inf"


def moment(parts: Sequence[Component], alpha: Fraction) -> ExpRational | Enclosure | str | None:
    """`S(α)` (module docstring): exact when every term is, else an `Enclosure`; `INFINITE` when a
    part has `q = 0 < p`; None when a term has no enclosure at `α` (the discrete Gaussian's
    moment at a non-integer order)."""
    alpha = _order(alpha)
    live = [part for part in parts if not part.p.is_zero()]
    if any(part.q.is_zero() for part in live):
        return INFINITE
    exact = [_term(part, alpha) for part in live]
    if all(t is not None for t in exact):
        out = ExpRational(ExpPoly())
        for t in exact:
            out = out + t  # type: ignore[operator]
        return out
    if any(part.shift is not None and part.shift.moment(alpha) is None for part in live):
        return None

    def at(prec: int) -> Bounds:
        with iv_precision(prec + 2 * GUARD_BITS):
            total = iv.mpf(0)
            for part in live:
                total += _term_interval(part, alpha, prec)
            return round_bounds(*iv_endpoints(total), prec + GUARD_BITS)

    return Enclosure(at, f"S({alpha})")


def _order(alpha: object) -> Fraction:
    if isinstance(alpha, bool) or not isinstance(alpha, int | Fraction) or alpha <= 1:
        raise ParameterError("alpha", alpha, "a rational Renyi order alpha > 1")
    return Fraction(alpha)


@dataclass(frozen=True)
class Divergence:
    """`D_α = ln S / (α - 1)`: `S` exact (or enclosed, or `INFINITE`). `text()` is its exact
    form, `enclose(prec)` certified bounds (for reading and the verdict's `delta_in`)."""

    alpha: Fraction
    S: ExpRational | Enclosure | str

    @property
    def infinite(self) -> bool:
        return isinstance(self.S, str)

    def text(self) -> str:
        if self.infinite:
            return "oo"
        inner = exact_str(self.S) if isinstance(self.S, ExpRational) else str(self.S)
        return f"log({inner})/({self.alpha - 1})"

    def enclose(self, prec: int = 64) -> Bounds:
        if self.infinite:
            raise ParameterError("divergence", "infinite", "a finite divergence")
        lo, hi = enclose(self.S, prec)
        with iv_precision(prec + GUARD_BITS):
            a, _ = iv_endpoints(iv.log(interval(lo)) / interval(self.alpha - 1))
            _, b = iv_endpoints(iv.log(interval(hi)) / interval(self.alpha - 1))
        return a, b

    def __str__(self) -> str:
        return self.text()


@dataclass(frozen=True)
class OrderResult:
    """`D_α(P‖Q)` against a claimed `ε` at one order: `holds` decided exactly or certified."""

    alpha: Fraction
    divergence: Divergence
    bound: Rho
    holds: bool
    exact: bool

    def as_facts(self) -> dict[str, object]:
        return {"order": str(self.alpha), "divergence_exact": self.divergence.text(),
                "bound_exact": exact_str(self.bound), "exact": self.exact}


def _log_bound(bound: Rho, scale: Fraction) -> Any:
    """`(α - 1)·ε` as an exponent: `e^(scale·bound)`."""
    if isinstance(bound, Fraction):
        return ExpPoly.exp(scale * bound)
    return None


def check_order(parts: Sequence[Component], alpha: object, eps: Rho) -> OrderResult:
    """`D_α(P‖Q) <= ε` at one order (module docstring)."""
    alpha = _order(alpha)
    s = moment(parts, alpha)
    if s is None:
        raise Undecided(f"S({alpha}) has no enclosure here (a discrete Gaussian value at a "
                        "non-integer order)")
    div = Divergence(alpha, s)
    if isinstance(s, str):
        return OrderResult(alpha, div, eps, False, True)
    grow = _log_bound(eps, alpha - 1)
    if isinstance(s, ExpRational) and grow is not None:
        return OrderResult(alpha, div, eps, sign(s - grow) <= 0, True)
    # certified: ln S against (α - 1)·ε
    node = Enclosure.of(s)
    eps_node = Enclosure.of(eps)

    def gap(prec: int) -> Bounds:
        lo, hi = node.enclose(prec)
        e_lo, e_hi = eps_node.enclose(prec)
        if lo <= 0:
            return Fraction(-1), Fraction(1)
        with iv_precision(prec + GUARD_BITS):
            a, _ = iv_endpoints(iv.log(interval(lo)))
            _, b = iv_endpoints(iv.log(interval(hi)))
        return a - (alpha - 1) * e_hi, b - (alpha - 1) * e_lo

    verdict = Enclosure(gap, f"ln S({alpha}) - {alpha - 1}*eps").certified_sign()
    return OrderResult(alpha, div, eps, verdict <= 0, False)


def kl_divergence(parts: Sequence[Component]) -> ExpRational | Enclosure | str:
    """`KL(P‖Q) = Σ p·(ln(p/q) + KL_shift)`: exact when every `p/q` is a power of `e` and every
    shift's KL is exact (`INFINITE` for a part with `q = 0 < p`)."""
    live = [part for part in parts if not part.p.is_zero()]
    if any(part.q.is_zero() for part in live):
        return INFINITE
    logs = [_rational_log(part.p, part.q) for part in live]
    shift_kl = [ExpPoly() if part.shift is None else part.shift.kl() for part in live]
    if all(r is not None for r in logs):
        out = ExpRational(ExpPoly())
        for part, r, k in zip(live, logs, shift_kl, strict=True):
            out = out + part.p * (k + r)  # type: ignore[operator]
        return out

    def at(prec: int) -> Bounds:
        with iv_precision(prec + 2 * GUARD_BITS):
            total = iv.mpf(0)
            for part, k in zip(live, shift_kl, strict=True):
                lp, lq = _log_interval(part.p, prec), _log_interval(part.q, prec)
                p_lo, p_hi = part.p.enclose(prec + GUARD_BITS)
                k_lo, k_hi = k.enclose(prec + GUARD_BITS)
                weight = iv.mpf([interval(p_lo).a, interval(p_hi).b])
                total += weight * (lp - lq + iv.mpf([interval(k_lo).a, interval(k_hi).b]))
            return round_bounds(*iv_endpoints(total), prec + GUARD_BITS)

    return Enclosure(at, "KL")


@dataclass
class ZcdpResult:
    """`ρ`-zCDP on one direction of one pair: `holds`; `witness` (the order and divergence
    refuting it); `argument` (how every `α > 1` was covered); `undecided` (why neither)."""

    rho: Rho
    holds: bool
    witness: OrderResult | None = None
    argument: dict[str, object] = field(default_factory=dict)
    undecided: str = ""


def _witness(parts: Sequence[Component], rho: Rho, orders: Sequence[Fraction]
             ) -> OrderResult | None:
    """The first order refuting the claim: orders where the claim certainly holds (its
    interval, computed from upper bounds of the moments, is above 0) are skipped before any
    exact arithmetic."""
    terms = _terms(parts, 64)
    with iv_precision(64):
        lo, hi = enclose(rho, 64)
        rho_iv = iv.mpf([interval(lo).a, interval(hi).b])
    for alpha in orders:
        with iv_precision(64):
            g = _claim_jet(terms, rho_iv, Jet.variable(alpha, alpha))
        if iv_endpoints(g.v)[0] > 0:
            continue
        try:
            found = check_order(parts, alpha, _times(rho, alpha))
        except Undecided:
            continue
        if not found.holds:
            return found
    return None


def _times(rho: Rho, alpha: Fraction) -> Rho:
    return rho * alpha


def zcdp(parts: Sequence[Component], rho: Rho) -> ZcdpResult:
    """`D_α(P‖Q) <= ρ·α` for every `α > 1` (module docstring): refuted with a witness order,
    certified with the argument's parts, or `undecided` with the reason."""
    if sign(rho) <= 0:
        raise ParameterError("rho", exact_str(rho), "rho > 0")
    live = [part for part in parts if not part.p.is_zero()]
    if any(part.q.is_zero() for part in live):
        two = Fraction(2)
        return ZcdpResult(rho, False, OrderResult(two, Divergence(two, INFINITE),
                                                  _times(rho, two), False, True))
    orders = [Fraction(a) for a in INTEGER_ORDERS] + list(NEAR_ONE)
    found = _witness(live, rho, orders)
    if found is not None:
        return ZcdpResult(rho, False, found)
    return _certify(live, rho)


def _rho_interval(rho: Rho) -> Any:
    lo, hi = enclose(rho, JET_BITS)
    return iv.mpf([interval(lo).a, interval(hi).b])


def _certify(parts: list[Component], rho: Rho) -> ZcdpResult:
    gaussian = [part.shift.rho_bound() for part in parts
                if part.shift is not None and part.shift.kind != LAPLACE]
    rho_max = max(gaussian, default=Fraction(0))
    rest: Rho = rho - rho_max
    argument: dict[str, object] = {"gaussian_rho": str(rho_max)}
    trivial = all((part.p - part.q).is_zero() and (
        part.shift is None or part.shift.kind != LAPLACE) for part in parts)
    if trivial:
        argument["rest"] = "every part has p = q: S_r = 1"
        if sign(rest) >= 0:
            return ZcdpResult(rho, True, argument=argument)
    if sign(rest) <= 0:
        return ZcdpResult(rho, False, argument=argument, undecided=(
            f"rho - max Gaussian Delta^2/(2 sigma^2) = {exact_str(rest)} leaves nothing for the "
            "other parts, and no witness order was found"))
    # 2. the tail
    top = _max_log_ratio(parts)
    argument["max_log_ratio_at_most"] = str(top)
    if top <= 0:
        argument["tail"] = "every part has ln(p/q) + u <= 0: S_r <= 1"
        return ZcdpResult(rho, True, argument=argument)
    r_lo = enclose(rest, JET_BITS)[0]
    tail = _ceil_dyadic(top / r_lo)
    argument["tail_from"] = str(tail)
    if tail <= 1:
        return ZcdpResult(rho, True, argument=argument)
    # 3. near 1, then [b, A]
    terms = _terms(parts, JET_BITS)
    with iv_precision(JET_BITS):
        rest_iv = _rho_interval(rest)
        near = _near_one(parts, terms, rest, rest_iv, tail)
        if isinstance(near, str):
            return ZcdpResult(rho, False, argument=argument, undecided=near)
        argument["taylor_to"] = str(near)
        cells = _cover(terms, rest_iv, near, tail)
    if isinstance(cells, Fraction):  # g < 0 there: exactly the claim when no Gaussian part
        if rho_max == 0:
            found = check_order(parts, cells, _times(rho, cells))
            if not found.holds:
                return ZcdpResult(rho, False, found)
        return ZcdpResult(rho, False, argument=argument, undecided=(
            f"the bound fails at alpha = {cells} on an upper bound of the Gaussian parts' "
            "moments, and no witness order was certified"))
    if isinstance(cells, str):
        return ZcdpResult(rho, False, argument=argument, undecided=cells)
    argument["cells"] = cells
    return ZcdpResult(rho, True, argument=argument)


def _max_log_ratio(parts: list[Component]) -> Fraction:
    """A rational upper bound on `max(ln(p/q) + u)` over the parts (module docstring, 2)."""
    best: Fraction | None = None
    for part in parts:
        u = part.shift.max_log_ratio() if part.shift is not None else Fraction(0)
        if u is None:  # a Gaussian coordinate: its moment was bounded apart (part 1)
            u = Fraction(0)
        r = _rational_log(part.p, part.q)
        if r is None:
            with iv_precision(64 + GUARD_BITS):
                r = iv_endpoints(_log_interval(part.p, 64) - _log_interval(part.q, 64))[1]
        value = r + u
        best = value if best is None else max(best, value)
    return best if best is not None else Fraction(0)


def _ceil_dyadic(x: Fraction) -> Fraction:
    """A dyadic rational `>= x` (short numbers for the cells)."""
    return Fraction(math.ceil(x * 1024), 1024)


def _rest_jet(terms: Sequence[Term], rest: Any, a: Jet) -> Jet:
    """`g(α) = ρ_r·α(α-1) - ln S_r(α)` on the jet `a` (`rest`: `ρ_r` as an interval)."""
    g: Jet = a * (a - 1) * rest - _sum_jet(terms, a, True).log()
    return g


Term = tuple[Any, Any, Any]  # (ln(p/q), q, the moving part or None) as intervals


def _terms(parts: Sequence[Component], prec: int) -> list[Term]:
    """Each part's `ln(p/q)` and `q` as intervals at `prec` bits (computed once)."""
    out: list[Term] = []
    with iv_precision(prec):
        for part in parts:
            if (part.p - part.q).is_zero():
                log_ratio: Any = iv.mpf(0)
            else:
                log_ratio = _log_interval(part.p, prec) - _log_interval(part.q, prec)
            q_lo, q_hi = part.q.enclose(prec)
            out.append((log_ratio, iv.mpf([interval(q_lo).a, interval(q_hi).b]), part.shift))
    return out


def _sum_jet(terms: Sequence[Term], a: Jet, laplace_only: bool) -> Jet:
    """`Σ q·e^(α ln(p/q))·U(α)` on the jet `a` (`U` every moving part's `moment_jet`, or the
    Laplace ones' only)."""
    total = Jet(0)
    for log_ratio, q, shift in terms:
        term = (a * log_ratio).exp() * q
        if shift is not None and (not laplace_only or shift.kind == LAPLACE):
            term = term * shift.moment_jet(a)
        total = total + term
    return total


def _claim_jet(terms: Sequence[Term], rho: Any, a: Jet) -> Jet:
    """`ρ·α(α-1) - ln U(α)`, `U >= S` (every moving part's `moment_jet`): at most `g`."""
    g: Jet = a * (a - 1) * rho - _sum_jet(terms, a, False).log()
    return g


def _near_one(parts: list[Component], terms: Sequence[Term], rest: Rho, rest_iv: Any,
              tail: Fraction) -> Fraction | str:
    """A `b > 1` with `g >= 0` on `[1, b]` by Taylor's theorem (module docstring, 3)."""
    kl = kl_divergence(parts)
    if isinstance(kl, str):
        return "KL(P||Q) is infinite"
    if isinstance(kl, ExpRational):
        exact = ExpRational.of(rest) - kl
        if exact.is_zero():
            slope_lo = Fraction(0)
        elif sign(exact) < 0:
            return (f"rho - max Gaussian part = {exact_str(rest)} is below KL(P||Q) (so some "
                    "order near 1 exceeds it), but no witness order was certified")
        else:
            slope_lo = enclose(exact, 64)[0]
    else:
        slope = Enclosure.of(rest) - kl
        try:
            if slope.certified_sign() < 0:
                return (f"rho - max Gaussian part = {exact_str(rest)} is below KL(P||Q), but "
                        "no witness order was certified")
        except Undecided:
            return "rho equals KL(P||Q) up to the precision cap: not decided"
        slope_lo = max(slope.enclose(64)[0], Fraction(0))
    for j in range(1, 31):
        b = min(1 + Fraction(1, 1 << j), tail)
        g = _rest_jet(terms, rest_iv, Jet.variable(Fraction(1), b))
        m = iv_endpoints(g.d2)[0]
        if m >= 0 or (slope_lo > 0 and (b - 1) * (-m) <= 2 * slope_lo):
            return b
    return "g'' < 0 near alpha = 1 on every interval tried: not decided"


def _cover(terms: Sequence[Term], rest: Any, lo: Fraction, hi: Fraction
           ) -> int | Fraction | str:
    """Certify `g >= 0` on `[lo, hi]` by splitting it into intervals (module docstring, 3):
    the number of intervals, an order where `g < 0` (certified), or why neither."""
    stack = [(lo, hi)]
    cells = 0
    while stack:
        a, b = stack.pop()
        if b <= a:
            continue
        g = _rest_jet(terms, rest, Jet.variable(a, b))
        mid = (a + b) / 2
        g_mid = _rest_jet(terms, rest, Jet.variable(mid, mid))
        naive = iv_endpoints(g.v)[0]
        slope = max(abs(x) for x in iv_endpoints(g.d1))
        centred = iv_endpoints(g_mid.v)[0] - slope * (b - a) / 2
        if max(naive, centred) >= 0:
            cells += 1
            continue
        if iv_endpoints(g_mid.v)[1] < 0:
            return mid
        if b - a < MIN_WIDTH or cells + len(stack) > MAX_CELLS:
            return f"not certified on [{a}, {b}]: the claim is tight inside (1, oo)"
        stack += [(mid, b), (a, mid)]
    return cells
