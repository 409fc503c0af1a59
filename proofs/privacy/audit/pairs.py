"""Auditing any mechanism written against the noisy-test interface (the CI use of issue 4).

A mechanism is a callable `run(database, test) -> output` whose only randomness is the
`NoisyTest` it is handed (BetweenCut, a variant of it, or a user's code). A privacy claim is a
list of `(ε, δ)` points with rational `ε` and exact `δ` (a `Fraction`, `ExpPoly` or
`ExpRational`; Theorem 5.4's profile is one such list). `audit_pairs` enumerates the exact
output law of every database it is given (`betweencut.proofs.privacy.enumeration.transcripts`, each
database once)
and, for every neighbouring pair and every point, decides `δ_pair(ε) <= δ` through the gate:

* **holds**: with the exact smallest margin `δ - δ_pair(ε)` and the pair where it occurs;
* **refuted**: with a counterexample: the two databases, the output event `S`, its two exact
  probabilities and the violated inequality `P(S) > e^ε·P'(S) + δ`.

The same entry point audits mechanisms that ask the shared-noise primitives of
`betweencut.noise.noisy_queries` (SVT, report-noisy-max): `LawCache` sees what the mechanism asks
during enumeration and, at the first such query, enumerates it with the shared-noise kind
(`betweencut.proofs.privacy.enumeration.shared_noise.QueryLawCache`); `KINDS` lists the kinds.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TypeVar, Union

from betweencut.boundary.encoding import Shown, release_of, written
from betweencut.data.notation import (
    database_text,
    neighbours_text,
    record_text,
    replacement_text,
)
from betweencut.data.tree import Node
from betweencut.errors import MechanismError, ParameterError
from betweencut.noise.noisy_test import Outcome
from betweencut.numbers.exact import midpoint_float
from betweencut.progress import current
from betweencut.proofs.exact.arith import ExpPoly, ExpRational, enclose, exact_str, sign
from betweencut.proofs.privacy.divergence.certified_curve import Curve
from betweencut.proofs.privacy.divergence.curve import LogOf
from betweencut.proofs.privacy.divergence.joint import HockeyStick
from betweencut.proofs.privacy.enumeration.cache import (
    Database,
    LawCache,
    Mechanism,
    Neighbour,
    as_database,
    as_node,
)
from betweencut.proofs.privacy.enumeration.transcripts import MechanismNotReplayable
from betweencut.proofs.verdict import Direction, Refutation, Release, Row, claim_point, enclosure

__all__ = [
    "AuditVerdict", "ClaimPoint", "ExactDelta", "PointResult", "audit_pairs", "check_point",
    "display", "output_text", "pair_curve", "tighter", "worse",
]

ExactDelta = Union[Fraction, int, ExpPoly, ExpRational]  # noqa: UP007
ClaimPoint = tuple[Fraction, ExactDelta]
SHOWN_OUTPUTS = 4
T = TypeVar("T")


def display(x: ExactDelta, prec: int = 64) -> float:
    """A float near an exact number, for display and JSON only: it never decides anything."""
    return midpoint_float(*enclose(x, prec))


@dataclass(frozen=True)
class PointResult:
    """One pair at one claim point: `δ_pair(ε)` against the claimed `δ`."""

    db: Database
    z: Node
    on: Release
    eps: Fraction
    delta: ExpPoly
    bound: ExactDelta
    holds: bool
    stick: HockeyStick
    pair: Neighbour | None = None  # a replace-one pair (None: `(D, D + z)`)

    @property
    def key(self) -> tuple[Database, Node, Database | None]:
        """The pair audited: `(D, z, None)`, or `(D, (), D')` for a replace-one pair."""
        return self.db, self.z, None if self.pair is None else self.pair.second

    @property
    def neighbour(self) -> Neighbour:
        return self.pair if self.pair is not None else Neighbour.add(self.db, self.z)

    def texts(self) -> tuple[str, str, str | None, Direction]:
        """`D`, `z` (the added record, or `x->y` for a replace-one pair), `D'` (None for
        add/remove) and the direction, as the verdict writes them."""
        direction = Direction(self.stick.direction)
        if self.pair is None or self.pair.replaced is None:
            return database_text(self.db), record_text(self.z), None, direction
        x, y = self.pair.replaced
        return (database_text(self.pair.first), replacement_text(x, y),
                database_text(self.pair.second), direction.replaced())

    @property
    def margin(self) -> ExactDelta:
        return self.bound - self.delta

    def tightness(self, prec: int = 64) -> tuple[Fraction, Fraction]:
        """Certified bounds of `δ_pair(ε) / δ_claimed` (0 if the claim is 0 and δ is 0)."""
        d_lo, d_hi = enclose(self.delta, prec)
        b_lo, b_hi = enclose(self.bound, prec)
        if b_lo <= 0:
            return (Fraction(0), Fraction(0)) if d_hi <= 0 else (d_lo, d_hi)
        return max(d_lo, Fraction(0)) / b_hi, d_hi / b_lo

    def row(self, **facts: object) -> Row:
        """This point as a verdict row (`betweencut.proofs.verdict.Row`)."""
        d, z, d_prime, direction = self.texts()
        return Row(d, z, self.on, self.eps, self.delta, enclosure(self.delta), self.bound,
                   self.holds, direction, facts, d_prime)

    def refutation(self, claim: str | None = None, note: str = "",
                   output: Callable[[object], str] | None = None) -> Refutation:
        """The counterexample of this point (meant for a refuted one): the pair, the event
        (its first outputs written by `output`, default `output_text`), `P(S)`, `Q(S)`."""
        s = self.stick
        show = output or output_text
        d, z, d_prime, direction = self.texts()
        return Refutation(
            claim or f"({self.eps}, {exact_str(self.bound)})-DP", d, z, self.on, direction,
            self.eps, tuple(show(o) for o in s.event[:SHOWN_OUTPUTS]), s.event_size, s.p_event,
            s.q_event, self.delta, self.bound, note, d_prime)

    def counterexample(self) -> dict[str, object]:
        """The refutation as JSON (`Refutation.as_json`: one shape for every audit)."""
        return self.refutation().as_json()


def _is_node(u: object) -> bool:
    return type(u) is tuple and all(type(c) is int for c in u)


def _is_box(b: object) -> bool:
    return type(b) is tuple and bool(b) and all(
        type(x) is tuple and len(x) == 2 and all(type(c) is int for c in x) for x in b)


def output_text(o: object) -> str:
    """An output in a few characters, written from its release (`boundary.encoding`: never by
    the user's `repr`): a set of nodes as `{0/1, ...}`, `(node, answer)` steps as `0/1:H`, a
    run by its Heavy set and transcript, a set of boxes (a PrivTree partition) as
    `{[0,2), [2,4)}`, a string as itself; any other shape as the encoder writes it."""
    key = release_of(o)
    return _view_text(key.decoded()) or key.shown


def _view_text(v: object) -> str | None:
    """The short text of a decoded release of a known shape, else None."""
    if isinstance(v, Shown):
        if v.kind == "record":
            fields = dict(v.items)
            if "heavy" in fields and "transcript" in fields:  # a `Run`
                heavy = _view_text(fields["heavy"]) or written(fields["heavy"])
                return f"heavy {heavy}, transcript {_view_text(fields['transcript']) or '()'}"
        if v.kind in ("set", "frozenset") and all(_is_node(u) for u in v.items):
            return "{" + ", ".join(record_text(u) for u in sorted(v.items)) + "}"
        if v.kind in ("set", "frozenset") and all(_is_box(b) for b in v.items):
            return "{" + ", ".join("x".join(f"[{lo},{hi})" for lo, hi in b)
                                   for b in sorted(v.items)) + "}"
        return None
    if type(v) is tuple and v and all(
        type(x) is tuple and len(x) == 2 and _is_node(x[0]) for x in v
    ):
        return " ".join(f"{record_text(u)}:{_step_text(s)}" for u, s in v)
    if type(v) is str:
        return v
    return None


def _step_text(s: object) -> str:
    return s.value if isinstance(s, Outcome) else (_view_text(s) or written(s))


def _audited(db: Database, z: Node, pair: Neighbour | None) -> str:
    """The pair `check_point` audits, in words (built only when a message needs it)."""
    if pair is None or pair.replaced is None:
        return neighbours_text(db, z)
    return neighbours_text(pair.first, second=pair.second)


def check_point(
    cache: LawCache, db: Database, z: Node, on: Release, eps: Fraction, bound: ExactDelta,
    pair: Neighbour | None = None,
) -> PointResult:
    """`δ(ε)` of `(D, D + z)` against `bound`; of `pair` (replace-one) when given. A user's
    mechanism failing on the way (its error, or `MechanismNotReplayable`) is named with the pair
    audited (a note on any other error)."""
    try:
        if pair is not None and pair.replaced is not None:
            stick = cache.pair_joint(pair, on).divergence(eps)
            holds = sign(stick.delta - bound) <= 0
            return PointResult(pair.first, (), on, eps, stick.delta, bound, holds, stick, pair)
        stick = cache.divergence(db, z, on, eps)
    except (MechanismError, MechanismNotReplayable) as exc:
        raise type(exc)(f"{exc} (auditing the pair {_audited(db, z, pair)})") from None
    except BaseException as exc:  # a user's PrivTree seam: the caller names the mechanism
        if not isinstance(exc, KeyboardInterrupt):
            exc.add_note(f"auditing the pair {_audited(db, z, pair)}")
        raise
    holds = sign(stick.delta - bound) <= 0
    return PointResult(db, z, on, eps, stick.delta, bound, holds, stick)


def tighter(a: PointResult, b: PointResult) -> bool:
    """`δ_a/bound_a > δ_b/bound_b` (bounds positive), by enclosures, else exactly."""
    a_lo, a_hi = a.tightness()
    b_lo, b_hi = b.tightness()
    if a_lo > b_hi:
        return True
    if a_hi < b_lo or sign(a.bound) <= 0 or sign(b.bound) <= 0:
        return False
    difference = a.delta * b.bound - b.delta * a.bound
    if callable(getattr(difference, "certified_sign", None)):
        return False  # certified (Gaussian) values not apart in their enclosures: keep the first
    return sign(difference) > 0  # exact values: ties are recognised exactly


def worse(a: PointResult, b: PointResult) -> bool:
    """`a` refutes by more than `b`: a larger excess `δ_a(ε) - bound_a` over its claimed `δ`
    (issue 35, item 4: the worst pair, not the first), by enclosures, else exactly; certified
    (Gaussian) excesses not apart in their enclosures keep `b` (the first found)."""
    a_lo, a_hi = enclose(a.delta - a.bound, 64)
    b_lo, b_hi = enclose(b.delta - b.bound, 64)
    if a_lo > b_hi:
        return True
    if a_hi < b_lo:
        return False
    difference = (a.delta - a.bound) - (b.delta - b.bound)
    if callable(getattr(difference, "certified_sign", None)):
        return False
    return sign(difference) > 0  # exact values: a tie keeps the first


def _pairs(pairs: object) -> Iterable[tuple[object, object] | Neighbour]:
    if isinstance(pairs, str | bytes) or not isinstance(pairs, Iterable):
        raise ParameterError("pairs", repr(pairs), "an iterable of (database, added leaf)")
    for pair in pairs:
        if isinstance(pair, Neighbour):
            yield pair
            continue
        if not isinstance(pair, tuple | list) or len(pair) != 2:
            raise ParameterError("pairs", repr(pair), "(database, added leaf) pairs")
        yield pair[0], pair[1]


@dataclass
class AuditVerdict:
    """`holds` with the smallest exact margin, or the worst refuting point (the largest excess
    `δ_pair(ε) - δ` over every pair, `worse`), or with `first` the first refuting point (the
    audit stopped there: `pairs` counts the pairs audited up to it).

    `worst` is the refuting point, else the tightest one; `counterexample()` describes the
    refutation (None when the claim holds); `curve()` is the exact privacy curve `δ(ε)` of the
    worst pair and `epsilon_at_delta()` the smallest `ε` at the worst point's claimed `δ` on it
    (`betweencut.proofs.privacy.divergence.curve`), both computed on demand by direct enumeration.
    """

    holds: bool
    pairs: int = 0
    transcripts: int = 0
    tightest: PointResult | None = None
    refutation: PointResult | None = None
    results: list[PointResult] = field(default_factory=list)
    cache: LawCache | None = field(default=None, repr=False, compare=False)
    on: Release = Release.OUTPUT
    first: bool = False  # stopped at the first refutation (else every pair was audited)

    @property
    def worst(self) -> PointResult | None:
        return self.refutation if self.refutation is not None else self.tightest

    def counterexample(self) -> dict[str, object] | None:
        """The refutation's counterexample (databases, event, exact `P(S)`, `Q(S)`), or None."""
        return None if self.refutation is None else self.refutation.counterexample()

    def curve(self) -> Curve | None:
        """The exact `δ(ε)` of the worst pair (None when no pair was audited)."""
        worst = self.worst
        if worst is None or self.cache is None:
            return None
        if worst.pair is not None:
            return self.cache.neighbour_curve(worst.pair, self.on)
        return pair_curve(self.cache, worst.db, worst.z, self.on)

    def epsilon_at_delta(self, delta: ExactDelta | None = None) -> LogOf | None:
        """The smallest `ε` with `δ_worst(ε) <= delta` (default: the worst point's claimed
        `δ`): a certified lower bound on the mechanism's `ε` at that `δ`. None: no pair, or no
        finite `ε`."""
        worst, curve = self.worst, self.curve()
        if worst is None or curve is None:
            return None
        return curve.epsilon_at_delta(worst.bound if delta is None else delta)


def pair_curve(cache: LawCache, db: Database, z: Node, on: Release) -> Curve:
    """The exact privacy curve of `(D, D + z)` under projection `on`, from laws enumerated
    directly: `cache.fresh()` (a shortcut cache is not trusted here; a cache of the same
    enumeration kind re-enumerates the real code)."""
    return cache.fresh().curve(db, z, on)


def audit_pairs(
    run: Mechanism,
    pairs: Iterable[tuple[Database, Node] | Neighbour],
    claim_points: Sequence[ClaimPoint],
    on: Release = Release.OUTPUT,
    projections: dict[Release, Callable[[object], Hashable]] | None = None,
    cache: LawCache | None = None,
    keep: bool = False,
    first: bool = False,
) -> AuditVerdict:
    """Does `run` satisfy every `(ε, δ)` of the claim on every neighbouring pair `(D, D + z)`?

    Preconditions: `run(D, test)` is deterministic given the answers of `test`, its only
    randomness; every `ε` rational `>= 0`, every `δ` exact.
    Returns: an `AuditVerdict`: holds (smallest margin, decided exactly) or the worst refuting
    point over every pair (the largest excess over the claimed `δ`, `worse`; with `first`, the
    first refuting point, where the audit stops: the CI use), whose `counterexample()` names the
    databases, the event and both probabilities.
    """
    if not callable(run):
        raise ParameterError("run", repr(run), "a callable run(database, test) -> output")
    if isinstance(claim_points, tuple) and len(claim_points) == 2 and not isinstance(
        claim_points[0], tuple | list
    ):
        raise ParameterError("claim_points", repr(claim_points),
                             "a list of (eps, delta) points, e.g. [(Fraction(1), 0)]")
    points = [claim_point(p, ("eps", "delta"), limits=False) for p in claim_points]
    if not points:
        raise ParameterError("claim", "[]", "at least one (eps, delta) point")
    cache = cache or LawCache(run, projections)
    if on not in cache.projections:
        raise ParameterError("on", on, f"one of {sorted(cache.projections)}")
    verdict = AuditVerdict(True, cache=cache, on=on, first=first)
    tracker = current()  # the time budget of the computation, checked at every pair
    for given in _pairs(pairs):
        pair = given if isinstance(given, Neighbour) and given.replaced is not None else None
        if isinstance(given, Neighbour):
            db, z = given.first, given.z
        else:
            db, z = as_database(given[0]), as_node(given[1])
        tracker.check()
        verdict.pairs += 1
        for eps, bound in points:
            result = check_point(cache, db, z, on, eps, bound, pair)
            if keep:
                verdict.results.append(result)
            if not result.holds:
                if verdict.refutation is None or worse(result, verdict.refutation):
                    verdict.holds, verdict.refutation = False, result
                if first:
                    verdict.transcripts = cache.transcripts
                    return verdict
                continue
            if verdict.tightest is None or tighter(result, verdict.tightest):
                verdict.tightest = result
    verdict.transcripts = cache.transcripts
    return verdict
