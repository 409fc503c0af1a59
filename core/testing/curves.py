"""Each neighbouring pair's exact privacy curve `δ(ε)`, from `betweencut.audit_mechanism`, and
where one curve exceeds another (decided exactly).

`pair_curves(mechanism, pairs, ...)` audits the mechanism once per pair and release and keeps
the pair's exact curve (`Verdict.curve`: both directions, combined by max, from laws enumerated
directly; `betweencut.proofs.privacy.divergence.curve`). The claim of those audits is one that
always holds (`δ(0) <= 1`; for a PrivTree, whose audit takes only `epsilon=`/`delta=`, the
point `(0, 0)`): the audit is asked for the curve, not a verdict.

`excesses(key, higher, lower)` lists the maximal ranges of `ε` where `higher(ε) > lower(ε)`
(`betweencut.proofs.privacy.divergence.curve.exceeds`, exact ends), each with a rational witness
`ε` strictly inside at which both values are computed exactly and compared again by the gate.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from betweencut.boundary.seal import sealing
from betweencut.errors import ParameterError
from betweencut.proofs.assumes import Assumes, pairs_given
from betweencut.proofs.exact.arith import ExpPoly, ExpRational, sign
from betweencut.proofs.privacy.audit.pairs import display
from betweencut.proofs.privacy.audit.regression import RegressionError, rational_inside
from betweencut.proofs.privacy.divergence.curve import LogOf, PrivacyCurve, exceeds
from betweencut.proofs.verdict import Release
from betweencut.testing.budget import Budget

__all__ = ["Curves", "Excess", "PairKey", "eps_range", "exact_text", "excesses", "log_text",
           "pair_curves", "pair_text", "poly_text", "rational_log", "releases"]

PairKey = tuple[str, str, str]  # (D, z, release) in the notation of `betweencut.data.notation`
CLAIM_ALWAYS_HOLDS = [(Fraction(0), Fraction(1))]  # delta(0) <= 1 holds on every pair
NOT_FOR_A_SNAPSHOT = ("claim", "baseline", "progress", "exhaustive", "search", "max_size")


@dataclass
class Curves:
    """The exact curves of the pairs audited, in the order given, what was audited (the
    verdict's `subject`: mechanism, kind, public tree, parameters) and what the curves rest on
    (the verdicts' `assumes`, the pairs being those listed)."""

    subject: Mapping[str, object] = field(default_factory=dict)
    curves: dict[PairKey, PrivacyCurve] = field(default_factory=dict)
    assumes: Assumes = field(default_factory=Assumes)  # what every curve rests on


@dataclass(frozen=True)
class Excess:
    """On the pair `key`, the `higher` curve exceeds the `lower` one for `ε` in
    `(eps_from, eps_to)` (`eps_to` None: up to `+∞`); at the rational `witness` inside,
    `above > below` exactly."""

    key: PairKey
    eps_from: LogOf
    eps_to: LogOf | None
    witness: Fraction
    above: ExpRational
    below: ExpRational

    def where(self) -> str:
        """The range of `ε`, for reading and exactly."""
        return eps_range(self.eps_from, self.eps_to)

    def line(self, above: str, below: str) -> str:
        D, z, on = self.key
        return (f"D = {D}, z = {z}, on {on}: {above} delta(eps) > {below} delta(eps) for "
                f"{self.where()}; at eps = {self.witness}: {display(self.above):.6g} > "
                f"{display(self.below):.6g} (exact: {exact_text(self.above)} > "
                f"{exact_text(self.below)})")


def _term(x: Fraction, c: Fraction) -> str:
    return str(c) if x == 0 else f"{c}*exp({x})"


def poly_text(p: ExpPoly) -> str:
    """`Σ c·exp(x)` as `c1*exp(x1) + c2 - c3*exp(x3)`, exponents decreasing (the snapshot's
    notation, read back by `betweencut.testing.snapshot.read_poly`)."""
    if p.is_zero():
        return "0"
    out = ""
    for x in sorted(p.terms, reverse=True):
        c = p.terms[x]
        if not out:
            out = _term(x, c)
        else:
            out += f" - {_term(x, -c)}" if c < 0 else f" + {_term(x, c)}"
    return out


def exact_text(x: ExpRational | ExpPoly | Fraction | int) -> str:
    """An exact value as text: `poly_text`, or `(N) / (M)`; no denominator when it is 1."""
    value = ExpRational.of(x)
    if value.den == ExpPoly.const(1):
        return poly_text(value.num)
    return f"({poly_text(value.num)}) / ({poly_text(value.den)})"


def rational_log(point: LogOf) -> Fraction | None:
    """`point = ln x` when it is a rational `r`, seen without computing: `x = exp(r)`, or
    `x = N / M` with `N = M·exp(r)` exactly; else None."""
    r = point.as_rational()
    if r is not None:
        return r
    x = point.exp()
    if x.num.is_zero() or x.den.is_zero():
        return None
    r = max(x.num.terms) - max(x.den.terms)
    return r if x.num == x.den * ExpPoly.exp(r) else None


def log_text(point: LogOf) -> str:
    """An `ε` exactly: a rational, or `log(N / M)`."""
    r = rational_log(point)
    return str(r) if r is not None else f"log({exact_text(point.exp())})"


def eps_range(lo: LogOf, hi: LogOf | None) -> str:
    """`eps in (lo, hi)`, as floats for reading and exactly (`hi` None: infinity)."""
    top = "inf" if hi is None else f"{hi.display():.4g}"
    top_exact = "inf" if hi is None else log_text(hi)
    return f"eps in ({lo.display():.4g}, {top}) (exact: ({log_text(lo)}, {top_exact}))"


def excesses(key: PairKey, higher: PrivacyCurve, lower: PrivacyCurve) -> list[Excess]:
    """Every maximal range of `ε >= 0` where `higher(ε) > lower(ε)`, exactly; each witnessed
    by a rational `ε` inside it, re-decided by the gate (`RegressionError` if it disagrees)."""
    out = []
    for lo, hi in exceeds(higher, lower):
        eps = rational_inside(lo, hi)
        above, below = higher.at(eps), lower.at(eps)
        if sign(above - below) <= 0:
            raise RegressionError("witness", eps, "a point inside the range where the curve "
                                  "exceeds (the curve code and the gate disagree)")
        out.append(Excess(key, lo, hi, eps, above, below))
    return out


def releases(kind: str, on: tuple[Release, ...]) -> tuple[Release, ...]:
    """The releases a pair's curve is taken on: `on` (read by `Release.several`, default the
    whole output); a PrivTree releases its partition (`output` only)."""
    from betweencut.api.load import PRIVTREE

    if kind == PRIVTREE and on != (Release.OUTPUT,):
        raise ParameterError("on", ", ".join(on), "'output' (a PrivTree releases its partition)")
    return on


def pair_text(pair: object) -> str:
    """A pair as given, in words (for messages)."""
    from betweencut.data.notation import database_text, record_text

    if isinstance(pair, tuple | list) and len(pair) == 2:
        db, z = pair
        try:
            D = db if isinstance(db, str) else database_text(db)
            Z = z if isinstance(z, str) else record_text(z)
        except (TypeError, ValueError):
            return repr(pair)
        return f"D = {D}, z = {Z}"
    return repr(pair)


def _item_text(item: object) -> str:
    if isinstance(item, tuple) and len(item) == 2:
        return f"{pair_text(item[0])}, on {item[1]}"
    return repr(item)


@sealing
def pair_curves(
    mechanism: object, pairs: Iterable[tuple[object, object]], *,
    on: str | Sequence[str] | None = None, budget: Budget | None = None,
    **tree_and_params: Any,
) -> Curves:
    """The exact curve of every pair (and release) given, by `betweencut.audit_mechanism`.

    Preconditions (checked, `ParameterError`): `pairs` a non-empty iterable of `(D, z)` as
    `audit_mechanism` reads them; `tree_and_params` the public tree and parameters
    (`tree`/`height`/`arity`, a builder's `tau` with `lam` and `R` or with `epsilon` and
    `delta` to calibrate); no claim (a snapshot records the whole curve).
    Returns: `Curves` keyed `(D, z, release)` in the notation of `betweencut.data.notation`.
    Raises: `OverBudget` past `budget`; `ParameterError` for a mechanism whose laws are
    certified enclosures (Gaussian noise: its curve is not exact); what `audit_mechanism`
    raises.
    """
    from betweencut.api import audit_mechanism
    from betweencut.api.load import BUILDER, PRIVTREE, resolve

    for name in NOT_FOR_A_SNAPSHOT:
        if name in tree_and_params:
            raise ParameterError(name, "given", "no claim, baseline or pair search: the exact "
                                 "curves of the pairs given are recorded")
    user = resolve(mechanism, strict=tree_and_params.get("strict") is True)
    given = [k for k in ("epsilon", "delta") if k in tree_and_params]
    if given and user.kind != BUILDER:
        raise ParameterError(given[0], tree_and_params[given[0]], "only to calibrate a builder"
                             " (no claim: the whole curve is recorded)")
    if isinstance(pairs, str | bytes) or not isinstance(pairs, Iterable):
        raise ParameterError("pairs", repr(pairs), "an iterable of (database, added record)")
    chosen = list(pairs)
    if not chosen:
        raise ParameterError("pairs", "[]", "at least one (database, added record) pair")
    names = releases(user.kind, Release.several(on, (Release.OUTPUT,)))  # `on` read once
    claim: dict[str, Any] = ({"epsilon": 0, "delta": 0} if user.kind == PRIVTREE
                             else {"claim": CLAIM_ALWAYS_HOLDS})
    out = Curves()
    work = [(pair, name) for pair in chosen for name in names]
    budget = budget or Budget(None, _item_text)
    budget.describe = _item_text

    def each(progress: Callable[[Iterable[Any], int], Iterator[Any]]) -> Curves:
        for pair, name in progress(work, len(work)):
            verdict = audit_mechanism(user, [pair], on=name if user.kind != PRIVTREE else None,
                                      **claim, **tree_and_params)
            if verdict.curve is None or not verdict.rows:  # pragma: no cover - one pair given
                raise ParameterError("pairs", pair_text(pair), "a pair the audit gives a curve")
            if getattr(verdict.curve, "certified", False):
                raise ParameterError(
                    "mechanism", user.name, "a mechanism with exact laws (a snapshot records "
                    "exact curves)", "its probabilities are certified enclosures (Gaussian "
                    "noise): compare versions with assert_no_regression instead")
            row = verdict.rows[0]
            key = (row.D, row.z, name)
            if key in out.curves:
                raise ParameterError("pairs", f"{row.D}, {row.z}", "each pair once")
            out.curves[key] = verdict.curve
            if not out.subject:
                from betweencut.proofs.exact.certificate import jsonable

                out.subject = jsonable(verdict.subject)
            out.assumes = verdict.assumes.with_(pairs_given(len({k[:2] for k in out.curves})))
        return out

    result: Curves = budget.run(each)
    return result
