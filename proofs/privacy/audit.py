"""Auditing any mechanism written against the noisy-test interface (the CI use of issue 4).

A mechanism is a callable `run(database, test) -> output` whose only randomness is the
`NoisyTest` it is handed (BetweenCut, a variant of it, or a user's code). A privacy claim is a
list of `(ε, δ)` points with rational `ε` and exact `δ` (a `Fraction`, `ExpPoly` or
`ExpRational`; Theorem 5.4's profile is one such list). `audit_mechanism` enumerates the exact
output law of every database it is given (`betweencut.proofs.privacy.enumerate`, each database once)
and, for every neighbouring pair and every point, decides `δ_pair(ε) <= δ` through the gate:

* **holds**: with the exact smallest margin `δ - δ_pair(ε)` and the pair where it occurs;
* **refuted**: with a counterexample: the two databases, the output event `S`, its two exact
  probabilities and the violated inequality `P(S) > e^ε·P'(S) + δ`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Union

from betweencut.errors import ParameterError
from betweencut.noisy_test import NoisyTest
from betweencut.proofs.exact.arith import ExpPoly, ExpRational, enclose, exact_str, sign
from betweencut.proofs.privacy.enumerate import DEFAULT_LIMIT, Enumeration, enumerate_mechanism
from betweencut.proofs.privacy.profiles import HockeyStick, Joint, Law, PairProfile
from betweencut.tree import Node

__all__ = [
    "AuditVerdict", "Database", "LawCache", "Mechanism", "PointResult", "audit_mechanism",
    "display", "neighbouring_pairs",
]

Database = tuple[Node, ...]
Mechanism = Callable[[Database, NoisyTest], object]
ExactDelta = Union[Fraction, int, ExpPoly, ExpRational]  # noqa: UP007
ClaimPoint = tuple[Fraction, ExactDelta]
SHOWN_OUTPUTS = 4


def display(x: ExactDelta, prec: int = 64) -> float:
    """A float near an exact number, for display and JSON only: it never decides anything."""
    lo, hi = enclose(x, prec)
    return float((lo + hi) / 2)


def neighbouring_pairs(leaves: Sequence[Node], size: int) -> Iterable[tuple[Database, Node]]:
    """Every `(D, z)`, `D` a multiset of at most `size` leaves, `z` any leaf (`D ~ D + z`)."""
    from itertools import combinations_with_replacement

    if size < 0:
        raise ParameterError("size", size, "a database size >= 0")
    for n in range(size + 1):
        for db in combinations_with_replacement(sorted(leaves), n):
            for z in leaves:
                yield db, z


def with_record(db: Database, z: Node) -> Database:
    return tuple(sorted((*db, z)))


class LawCache:
    """Enumerates each database once and keeps its laws under each projection."""

    def __init__(
        self, run: Mechanism, projections: dict[str, Callable[[object], Hashable]] | None = None,
        limit: int = DEFAULT_LIMIT,
    ) -> None:
        self.run = run
        self.projections = projections or {"output": _identity}
        self.limit = limit
        self.enumerations: dict[Database, Enumeration[object]] = {}
        self.grouped: dict[tuple[Database, str], Law] = {}
        self.transcripts = 0
        self._joints: tuple[tuple[Database, Node], dict[str, PairProfile]] = (((), ()), {})

    def enumeration(self, db: Database) -> Enumeration[object]:
        found = self.enumerations.get(db)
        if found is None:
            run = self.run
            found = enumerate_mechanism(lambda test: run(db, test), self.limit)
            self.enumerations[db] = found
            self.transcripts += found.transcripts
        return found

    def law(self, db: Database, on: str) -> Law:
        if on not in self.projections:
            raise ParameterError("on", on, f"one of {sorted(self.projections)}")
        key = (db, on)
        found = self.grouped.get(key)
        if found is None:
            found = Law(self.enumeration(db).grouped(self.projections[on]))
            self.grouped[key] = found
        return found

    def joint(self, db: Database, z: Node, on: str) -> PairProfile:
        """The two laws of `(D, D + z)` grouped for comparison (kept for the current pair)."""
        found = self.current(db, z).get(on)
        if found is None:
            found = self.current(db, z)[on] = self.make_joint(db, z, on)
        return found

    def current(self, db: Database, z: Node) -> dict[str, PairProfile]:
        """The joints of the pair last asked for, every projection (cleared on a new pair)."""
        if self._joints[0] != (db, z):
            self._joints = ((db, z), {})
        return self._joints[1]

    def make_joint(self, db: Database, z: Node, on: str) -> PairProfile:
        return Joint(self.law(db, on), self.law(with_record(db, z), on))

    def profile(self, db: Database, z: Node, on: str, eps: Fraction) -> HockeyStick:
        return self.joint(db, z, on).profile(eps)


def _identity(x: object) -> Hashable:
    return x


@dataclass(frozen=True)
class PointResult:
    """One pair at one claim point: `δ_pair(ε)` against the claimed `δ`."""

    db: Database
    z: Node
    on: str
    eps: Fraction
    delta: ExpPoly
    bound: ExactDelta
    holds: bool
    stick: HockeyStick

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

    def counterexample(self) -> dict[str, object]:
        s = self.stick
        first, second = ("D", "D + z") if s.direction == "D||D+z" else ("D + z", "D")
        shown = [_short(o) for o in s.event[:SHOWN_OUTPUTS]]
        return {
            "D": self.db, "z": self.z, "D + z": with_record(self.db, self.z), "on": self.on,
            "eps": self.eps, "event_size": s.event_size, "event (first outputs)": shown,
            f"P_{first}(S)": exact_str(s.p_event), f"P_{second}(S)": exact_str(s.q_event),
            "violated": f"P_{first}(S) <= e^{self.eps} * P_{second}(S) + {exact_str(self.bound)}",
            "excess": exact_str(self.delta - self.bound),
            "excess_approx": display(self.delta - self.bound),
        }


def _short(o: object) -> str:
    if isinstance(o, frozenset):
        return "{" + ", ".join("/".join(map(str, u)) or "root" for u in sorted(o)) + "}"
    if isinstance(o, tuple) and o and isinstance(o[0], tuple) and len(o[0]) == 2:
        return " ".join(f"{'/'.join(map(str, u)) or 'root'}:{s.value}" for u, s in o)
    return repr(o)


def check_point(
    cache: LawCache, db: Database, z: Node, on: str, eps: Fraction, bound: ExactDelta
) -> PointResult:
    stick = cache.profile(db, z, on, eps)
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
    return sign(a.delta * b.bound - b.delta * a.bound) > 0


@dataclass
class AuditVerdict:
    """`holds` with the smallest exact margin, or the first refuting point."""

    holds: bool
    pairs: int = 0
    transcripts: int = 0
    tightest: PointResult | None = None
    refutation: PointResult | None = None
    results: list[PointResult] = field(default_factory=list)


def audit_mechanism(
    run: Mechanism,
    pairs: Iterable[tuple[Database, Node]],
    claim_points: Sequence[ClaimPoint],
    on: str = "output",
    projections: dict[str, Callable[[object], Hashable]] | None = None,
    cache: LawCache | None = None,
    keep: bool = False,
) -> AuditVerdict:
    """Does `run` satisfy every `(ε, δ)` of the claim on every neighbouring pair `(D, D + z)`?

    Preconditions: `run(D, test)` is deterministic given the answers of `test`, its only
    randomness; every `ε` rational `>= 0`, every `δ` exact.
    Returns: an `AuditVerdict`: holds (smallest margin, decided exactly) or the first refuting
    point, whose `counterexample()` names the databases, the event and both probabilities.
    """
    if not claim_points:
        raise ParameterError("claim", "[]", "at least one (eps, delta) point")
    cache = cache or LawCache(run, projections)
    verdict = AuditVerdict(True)
    for db, z in pairs:
        verdict.pairs += 1
        for eps, bound in claim_points:
            result = check_point(cache, db, z, on, Fraction(eps), bound)
            if keep:
                verdict.results.append(result)
            if not result.holds:
                verdict.holds, verdict.refutation = False, result
                verdict.transcripts = cache.transcripts
                return verdict
            if verdict.tightest is None or tighter(result, verdict.tightest):
                verdict.tightest = result
    verdict.transcripts = cache.transcripts
    return verdict
