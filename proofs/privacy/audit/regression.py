"""Regression mode for CI: does a candidate mechanism leak more than a baseline on the same pairs?

A claim that still holds can hide a privacy regression: a change that raises `δ(ε)` at some `ε`
without crossing the claimed point. `find_regressions(candidate, baseline, pairs)` enumerates both
mechanisms (the real code, `betweencut.proofs.privacy.enumeration.transcripts`) on every
neighbouring pair
`(D, D + z)`, builds both exact privacy curves (`betweencut.proofs.privacy.divergence.curve`) and
reports every pair and maximal `ε` range where `δ_candidate(ε) > δ_baseline(ε)`, with exact ends.
Each reported range carries a rational witness `ε` inside it at which the excess is re-decided by
the gate from the two curves, and cross-checked against the hockey-stick divergence computed
directly from the two laws (`LawCache.make_joint`: `joint.Joint`, or `ExactJoint` for a
shared-noise mechanism), so a report never rests on the curve code alone.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from fractions import Fraction

from betweencut.data.notation import database_text, record_text
from betweencut.data.tree import Node
from betweencut.errors import ParameterError, Undecided
from betweencut.numbers.exact import refine
from betweencut.proofs.exact.arith import ExpRational, enclose, exact_str, sign
from betweencut.proofs.privacy.audit.pairs import display
from betweencut.proofs.privacy.divergence.certified_curve import (
    CertifiedCurve,
    Curve,
    at_rational,
    certified_exceeds,
    same_laws,
)
from betweencut.proofs.privacy.divergence.curve import Interval, LogOf
from betweencut.proofs.privacy.enumeration.cache import (
    Database,
    LawCache,
    Mechanism,
    as_database,
    as_node,
)
from betweencut.proofs.verdict import Release

__all__ = ["Regression", "RegressionError", "find_regressions", "rational_inside"]


class RegressionError(ParameterError):
    """The curve and the direct hockey-stick computation disagree at a witness (a bug here)."""


@dataclass(frozen=True)
class Regression:
    """On the pair `(D, D + z)`, `δ_candidate(ε) > δ_baseline(ε)` for `ε` in `(eps_from,
    eps_to)` (`eps_to` None: up to `+∞`); at the rational `witness` both deltas are exact.
    `certified`: a pair with enclosed (Gaussian) probabilities, where the range is where the
    candidate's lower bound exceeds the baseline's upper bound (certainly a regression, the
    true range may be wider) and the two deltas are those bounds."""

    db: Database
    z: Node
    on: Release
    eps_from: LogOf
    eps_to: LogOf | None
    witness: Fraction
    candidate_delta: ExpRational
    baseline_delta: ExpRational
    certified: bool = False

    def as_json(self) -> dict[str, object]:
        return {
            "D": database_text(self.db), "z": record_text(self.z),
            "on": self.on,
            "eps_from": self.eps_from.display(), "eps_from_exact": self.eps_from.exact_str(),
            "eps_to": None if self.eps_to is None else self.eps_to.display(),
            "eps_to_exact": None if self.eps_to is None else self.eps_to.exact_str(),
            "witness_eps": str(self.witness),
            "candidate_delta": display(self.candidate_delta),
            "candidate_delta_exact": exact_str(self.candidate_delta),
            "baseline_delta": display(self.baseline_delta),
            "baseline_delta_exact": exact_str(self.baseline_delta),
            "certified": self.certified,
        }

    def line(self) -> str:
        to = "inf" if self.eps_to is None else f"{self.eps_to.display():.4g}"
        at_least, at_most = (">= ", "<= ") if self.certified else ("", "")
        return (f"privacy regression on D = {database_text(self.db)}, z = "
                f"{record_text(self.z)} ({self.on}): "
                f"candidate delta > baseline delta for eps in ({self.eps_from.display():.4g}, "
                f"{to}); at eps = {self.witness}: {at_least}"
                f"{display(self.candidate_delta):.6g} > {at_most}"
                f"{display(self.baseline_delta):.6g}"
                + (" (certified bounds: enclosed probabilities)" if self.certified else ""))


def rational_inside(lo: LogOf, hi: LogOf | None) -> Fraction:
    """A simple rational strictly inside `(lo, hi)` (`hi` None: `+∞`), certified by the gate."""

    def named(prec: int) -> Fraction | None:
        _, lo_hi = lo.enclose(prec)
        top = lo_hi + 2 if hi is None else hi.enclose(prec)[0]
        if not lo_hi < top:
            return None
        mid = (lo_hi + top) / 2
        for den in (1, 2, 4, 8, 10, 16, 100, 1000):
            guess = Fraction(round(mid * den), den)
            if lo_hi < guess < top:
                return guess
        return mid

    try:
        return refine(named, lambda: f"a rational inside ({lo}, {hi})")[0]
    except Undecided:
        raise ParameterError("interval", f"({lo}, {hi})",
                             "an interval wide enough to name a point") from None


def find_regressions(
    candidate: Mechanism,
    baseline: Mechanism,
    pairs: Iterable[tuple[object, object]],
    on: Release = Release.OUTPUT,
    projections: dict[Release, Callable[[object], Hashable]] | None = None,
    first_only: bool = False,
) -> list[Regression]:
    """Every pair and `ε` range where the candidate's exact `δ(ε)` exceeds the baseline's.

    Preconditions: both mechanisms are `run(database, test) -> output` with all their
    randomness in `test`, on the same output space (projection `on`).
    Checks: both exact curves per pair; where `candidate > baseline`, a rational witness `ε` is
    re-decided by `sign` and by the direct hockey-stick divergence of both laws.
    Returns: the regressions (empty: the candidate never leaks more on these pairs).
    Raises: `ParameterError` on bad input; `RegressionError` if the two computations disagree.
    """
    for name, mech in (("candidate", candidate), ("baseline", baseline)):
        if not callable(mech):
            raise ParameterError(name, repr(mech), "a callable run(database, test) -> output")
    mine = LawCache(candidate, projections)
    theirs = LawCache(baseline, projections)
    if on not in mine.projections:
        raise ParameterError("on", on, f"one of {sorted(mine.projections)}")
    found: list[Regression] = []
    for db_given, z_given in pairs:
        db, z = as_database(db_given), as_node(z_given)
        curves, ranges = _compared(mine, theirs, db, z, on)
        for lo, hi in ranges:
            found.append(_witnessed(mine, theirs, curves, db, z, on, lo, hi))
            if first_only:
                return found
    return found


def _compared(mine: LawCache, theirs: LawCache, db: Database, z: Node, on: Release
              ) -> tuple[list[Curve], list[Interval]]:
    """Both curves of the pair (a plain LawCache: direct enumeration, of either kind) and the
    ranges where the candidate's exceeds: exact curves decide at once; certified ones (Gaussian
    laws) at rising precision (`refine`) until their bounds tell (`certified_exceeds`)."""
    first = [cache.curve(db, z, on) for cache in (mine, theirs)]
    decided = certified_exceeds(first[0], first[1])  # exact curves: always decided
    if decided is not None:
        return first, decided
    if same_laws(mine.make_joint(db, z, on), theirs.make_joint(db, z, on)):
        return first, []  # the same law on both databases: the same curve, exactly

    def step(prec: int) -> tuple[list[Curve], list[Interval]] | None:
        curves = [c.at_bits(prec) if isinstance(c, CertifiedCurve) else c for c in first]
        ranges = certified_exceeds(curves[0], curves[1])
        return None if ranges is None else (curves, ranges)

    return refine(step, lambda: f"whether the candidate leaks more on {database_text(db)} + "
                                f"{record_text(z)} (certified curves)")[0]


def _witnessed(
    mine: LawCache, theirs: LawCache, curves: list[Curve], db: Database, z: Node,
    on: Release, lo: LogOf, hi: LogOf | None,
) -> Regression:
    """The range's rational witness: the candidate's (lower bound of) `δ` above the baseline's
    (upper bound), both cross-checked against the hockey stick computed directly from the laws
    (equal when exact; overlapping enclosures when certified)."""
    eps = rational_inside(lo, hi)
    (ours, _), (_, base) = (at_rational(c, eps) for c in curves)
    for cache, curve in ((mine, curves[0]), (theirs, curves[1])):
        c_lo, c_hi = at_rational(curve, eps)
        direct = cache.make_joint(db, z, on).divergence(eps).delta  # hockey stick from the laws
        if not _agree(c_lo, c_hi, direct):
            raise RegressionError("curve", f"[{exact_str(c_lo)}, {exact_str(c_hi)}]",
                                  f"the direct profile at eps = {eps}: {exact_str(direct)}")
    if sign(ours - base) <= 0:
        raise RegressionError("witness", eps, f"a point where the candidate exceeds "
                              f"({enclose(ours)} vs {enclose(base)})")
    certified = any(isinstance(c, CertifiedCurve) for c in curves)
    return Regression(db, z, on, lo, hi, eps, ours, base, certified)


def _agree(lo: ExpRational, hi: ExpRational, direct: object) -> bool:
    """The curve's value (`lo == hi`, exact) equals the direct one, or its bounds and the
    direct enclosure overlap (certified: both enclose the same real)."""
    if not callable(getattr(direct, "certified_sign", None)):
        return sign(lo - direct) == 0 and sign(hi - direct) == 0  # type: ignore[operator]
    d_lo, d_hi = enclose(direct)
    return sign(lo - d_hi) <= 0 and sign(hi - d_lo) >= 0
