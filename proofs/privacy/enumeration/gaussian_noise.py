"""Certified output laws and profiles of mechanisms that ask Gaussian shared-noise primitives.

A mechanism written against `betweencut.noise.noisy_queries` with `noise=GAUSSIAN` (Gaussian
AboveThreshold / SVT, Gaussian report-noisy-max) is enumerated exactly as the Laplace kind is
(`shared_noise.answer_sequences`: the real code, every answer sequence, the same replay
checks); only the probability of a sequence changes:

* **exact**: the outcome tree (which answer sequences exist and what each outputs), every
  parameter, the grouping of comparisons by their shared draw, the exact zeros (a sequence whose
  noiseless comparisons contradict each other), and every Laplace factor (`ExpPoly`);
* **certified**: every Gaussian factor (`betweencut.proofs.laws.continuous_gaussian`: Arb quadrature
  of `∫ φ(r)·Π ½erfc(...) dr` with the tail mass added to the upper bound), hence every
  probability of a sequence that asks Gaussian noise is an `Enclosure`.

`CertifiedJoint` is the `δ(ε)` curve of two such laws: `δ_{P‖Q}(ε) = Σ_o (P(o) - e^ε Q(o))_+`
as an enclosure, each term's positive part taken on its bounds (no sign of a term is ever
decided, so outputs with `P(o) = e^ε Q(o)` cannot make it undecidable); exact terms (both laws
exact) are decided exactly. A verdict compares the enclosure of `δ` with the claimed `δ`
through the gate: it holds when the upper bound is below, is refuted when the lower bound is
above, and raises `Undecided` when they straddle at the largest precision
(the package's one cap, `betweencut.numbers.exact.MAX_PRECISION_BITS`): never a float decision.

`GaussianLawCache` is the `LawCache` kind `audit_pairs` hands such a mechanism to (its first
noisy query is Gaussian, `enumeration.cache.KINDS`); it accepts Laplace primitives too (their
factors stay exact), so a mechanism mixing both laws can be audited by passing it explicitly.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Union, cast

from betweencut.boundary.encoding import release_of
from betweencut.data.tree import Node
from betweencut.errors import ParameterError
from betweencut.noise.noisy_queries import (
    GAUSSIAN,
    LAPLACE,
    AboveThreshold,
    NoisyMax,
    QueryTest,
    is_gaussian,
)
from betweencut.proofs.exact.arith import ExpPoly
from betweencut.proofs.exact.enclosure import Enclosure
from betweencut.proofs.laws.continuous_gaussian import (
    gaussian_noisy_max_law,
    shared_gaussian_answers,
)
from betweencut.proofs.laws.noisy_laws import noisy_max_law, shared_answers_probability
from betweencut.proofs.privacy.divergence.certified_curve import CertifiedCurve, certified_curve
from betweencut.proofs.privacy.divergence.joint import HockeyStick, PairCurve
from betweencut.proofs.privacy.enumeration.cache import (
    KINDS,
    CacheFactory,
    Database,
    with_record,
)
from betweencut.proofs.privacy.enumeration.shared_noise import (
    DEFAULT_LIMIT,
    BranchingQueries,
    Log,
    WholeLawCache,
    answer_sequences,
    hockey_stick,
    projected_values,
)
from betweencut.proofs.privacy.enumeration.transcripts import MechanismNotReplayable
from betweencut.proofs.verdict import Release

__all__ = [
    "CertifiedJoint", "CertifiedLaw", "GaussianLawCache", "Probability", "asks_gaussian",
    "certified_sequence_probability", "enumerate_certified",
]

Probability = Union[ExpPoly, Enclosure]  # noqa: UP007
_NONE = "none"


def _fresh_law(query: AboveThreshold) -> str:
    return _NONE if query.scale == 0 else query.noise


def certified_sequence_probability(log: Log) -> Probability:
    """The probability of one complete answer sequence: exact (`ExpPoly`) when it asks only
    Laplace noise, else an `Enclosure`.

    Comparisons are grouped by their shared draw (independent given it); a group is Laplace
    (exact, `noisy_laws`) or Gaussian (certified, `laws.gaussian`): its draw and its fresh noises
    share one law. Comparisons without a shared draw group by their own law. Noisy maxima
    contribute their own factor.
    Raises: `ParameterError` for a group mixing Laplace and Gaussian noise.
    """
    groups: dict[tuple[int | None, str], tuple[Fraction, list[tuple[Fraction, Fraction, bool]]]]
    groups = {}
    out: Probability = ExpPoly.const(1)
    for query, answer in log:
        if isinstance(query, NoisyMax):
            law = gaussian_noisy_max_law if query.noise == GAUSSIAN else noisy_max_law
            out = out * law(query.counts, query.scale)[int(answer)]
            continue
        handle, fresh = query.shared, _fresh_law(query)
        if handle is None:
            key: tuple[int | None, str] = (None, LAPLACE if fresh == _NONE else fresh)
            scale = Fraction(0)
        else:
            key, scale = (handle.ident, handle.noise), handle.scale
            if fresh not in (_NONE, handle.noise):
                raise ParameterError(
                    "query", repr(query), f"fresh noise of the shared draw's law "
                    f"({handle.noise}): a comparison mixing Laplace and Gaussian noise has no "
                    "law here")
        groups.setdefault(key, (scale, []))[1].append(
            (query.threshold - query.count, query.scale, bool(answer)))
    for (_, law_name), (scale, answers) in groups.items():
        factor: Probability
        if law_name == GAUSSIAN:
            factor = shared_gaussian_answers(scale, tuple(sorted(answers)))
        else:
            factor = shared_answers_probability(scale, tuple(sorted(answers)))
        out = out * factor
        if out.is_zero():
            break
    return out


def asks_gaussian(run: Callable[[QueryTest], Hashable]) -> bool:
    """Whether the first answer sequence of `run` compares with Gaussian noise (the kind test
    for code handed over without a kind, e.g. `audit corpus --mechanism`)."""
    test = BranchingQueries(())
    run(test)
    return any(is_gaussian(query) for query, _ in test.log)


@dataclass
class CertifiedLaw:
    """The law of one mechanism on one database: output -> probability (exact or enclosed)."""

    values: dict[Hashable, Probability] = field(default_factory=dict)  # keyed by `ReleaseKey`
    transcripts: int = 0
    outputs: dict[Hashable, object] = field(default_factory=dict)  # each release as first met

    def total(self) -> Enclosure:
        return Enclosure.sum(self.values.values(), "the total probability")

    def projected(self, project: Callable[[Hashable], Hashable]) -> dict[Hashable, Probability]:
        return projected_values(self.values, self.outputs, project, _sum)


def _sum(values: Sequence[Probability]) -> Probability:
    if all(isinstance(v, ExpPoly) for v in values):
        out = ExpPoly()
        for v in values:
            out = out + cast(ExpPoly, v)
        return out
    return Enclosure.sum(values, "P(output)")


def enumerate_certified(run: Callable[[QueryTest], Hashable], limit: int = DEFAULT_LIMIT
                        ) -> CertifiedLaw:
    """Every answer sequence of `run(test)` with its probability (exact or certified), summed
    per output.

    Preconditions: as `shared_noise.enumerate_queries`.
    Checks: the replay checks of `answer_sequences`, and that the enclosure of the total
    probability contains 1 (a consistency check at 64 bits, not a proof of equality).
    Returns: a `CertifiedLaw` (sequences of probability exactly 0 dropped).
    Raises: `ParameterError` past `limit` answer sequences or for a group mixing noise laws;
    `MechanismNotReplayable` when the total cannot be 1.
    """
    law = CertifiedLaw()
    parts: dict[Hashable, list[Probability]] = {}
    for output, log in answer_sequences(run, limit):
        law.transcripts += 1
        p = certified_sequence_probability(log)
        key = release_of(output)  # the laws sum per release (`boundary.encoding`)
        law.outputs.setdefault(key, output)
        if not p.is_zero():
            parts.setdefault(key, []).append(p)
    law.values = {o: _sum(ps) for o, ps in parts.items()}
    total = law.total()
    lo, hi = total.enclose(64)
    if not lo <= 1 <= hi:
        raise MechanismNotReplayable(
            f"the probabilities of its {law.transcripts} answer sequences sum to {total}, which "
            "excludes 1: the mechanism is not a function of its noisy answers")
    return law


class CertifiedJoint(PairCurve):
    """The `δ(ε)` curve of two laws whose probabilities are exact or enclosed.

    `hockey_stick(ε)` is `δ_{P‖Q}(ε) = Σ_o (P(o) - e^ε·Q(o))_+` as an `Enclosure` (positive parts
    on bounds; exact terms decided exactly); its event is the outputs whose term is certainly
    positive (at 64 bits), shown for the report, with `P(S)` and `Q(S)` enclosed.
    """

    def __init__(self, p: Mapping[Hashable, Probability], q: Mapping[Hashable, Probability]
                 ) -> None:
        self.p, self.q = p, q
        self.outputs = sorted({*p, *q}, key=repr)

    def hockey_stick(self, eps: Fraction, forward: bool = True) -> HockeyStick:
        return hockey_stick(self.p, self.q, self.outputs, eps, forward, Enclosure.sum)

    def divergence(self, eps: Fraction) -> HockeyStick:
        """`δ(ε) = max(δ_{P‖Q}(ε), δ_{Q‖P}(ε))` as an enclosure (no comparison decided); the
        event, `P(S)`, `Q(S)` and direction are those of the direction with the larger lower
        bound at 64 bits."""
        forward, backward = self.hockey_stick(eps, True), self.hockey_stick(eps, False)
        f_delta = cast(Enclosure, forward.delta)
        b_delta = cast(Enclosure, backward.delta)
        larger = forward if f_delta.enclose(64)[0] >= b_delta.enclose(64)[0] else backward
        both = f_delta.maximum(b_delta)
        return HockeyStick(eps, cast(ExpPoly, both), larger.event_size, larger.p_event,
                           larger.q_event, larger.direction, larger.shown)


class GaussianLawCache(WholeLawCache[CertifiedLaw, Probability, "CertifiedJoint"]):
    """A `WholeLawCache` of certified laws (`enumerate_certified`: shared Gaussian noise)."""

    kind = "a Gaussian shared-noise mechanism"
    instead = "a fresh-noise mechanism (here use certified(), make_joint())"

    def enumerate(self, run: Callable[[QueryTest], Hashable], limit: int) -> CertifiedLaw:
        return enumerate_certified(run, limit)

    def pair_of(self, p: dict[Hashable, Probability], q: dict[Hashable, Probability]
              ) -> CertifiedJoint:
        return CertifiedJoint(p, q)

    def certified(self, db: Database, on: Release) -> dict[Hashable, Probability]:
        """The certified law of the projected output."""
        return self.projected_law(db, on)

    def curve(self, db: Database, z: Node, on: Release) -> CertifiedCurve:
        """The certified curve of `(D, D + z)`: two exact curves bounding `δ(ε)` at every
        `ε >= 0` (`divergence.certified`), from the two certified laws."""
        return self.databases_curve(db, with_record(db, z), on)

    def databases_curve(self, first: Database, second: Database, on: Release) -> CertifiedCurve:
        """The certified curve of two databases from their certified laws."""
        return certified_curve(self.certified(first, on), self.certified(second, on))


def _gaussian_noise_kind(query: object) -> CacheFactory | None:
    """Shared-noise primitives with Gaussian noise (`noise=GAUSSIAN`) are enumerated by
    `GaussianLawCache` (certified laws); registered first, before the exact Laplace kind."""
    from betweencut.noise.noisy_queries import is_gaussian

    if not is_gaussian(query):
        return None
    return cast(CacheFactory, GaussianLawCache)  # the class: named across a pipe (`isolated`)


KINDS.insert(0, _gaussian_noise_kind)
