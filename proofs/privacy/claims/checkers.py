"""Theorem 5.4, Lemma C.1 and Theorem 5.5 confirmed by exact transcript enumeration.

For a public tree, parameters and a neighbouring pair `(D, D + z)`, the real BetweenCut code
(Alg. 3) is enumerated on both databases (`betweencut.proofs.privacy.enumeration.transcripts`) and
the exact privacy
profile `δ(ε)` (`betweencut.proofs.privacy.divergence.profiles`) is compared at `ε = rλ`, `r =
1..L`, with the
bound of Theorem 5.4 (`betweencut.proofs.laws.tct.theorem_5_4_bound`, Eq. (22)/(113)):

* claim "Lemma C.1" (Eq. (113)): the full transcript `Tr(D)` (Eq. (112)) meets the bound;
* claim "Theorem 5.4 (enumerated)" (Eq. (22)): the released Heavy set meets the bound, and its
  profile never exceeds the transcript's (post-processing);
* claim "Theorem 5.5 (enumerated)" (Eq. (23)): with calibrated parameters the transcript is
  `(ε, δ)`-DP. (The claim "Theorem 5.5" itself is the calibration arithmetic of
  `betweencut.proofs.calibration`.)

Every `δ` is exact (`e^{rλ}` is an `ExpPoly` monomial); calibrated `R = 1 + (r/ε)·ln(L/δ)` is
irrational, but the guards are decided exactly by GuardedBT's integer cut points, so the laws
stay exact and `e^{-λ(R-1)} = δ/L` is rational.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from betweencut.betweencut import BetweenCut, Run
from betweencut.calibration import Calibration, calibrate, path_query_bound
from betweencut.errors import ParameterError
from betweencut.noisy_test import NoisyTest
from betweencut.params import Params
from betweencut.proofs.exact.arith import exact_str, sign
from betweencut.proofs.exact.certificate import Certificate, ClaimRefuted
from betweencut.proofs.laws.tct import theorem_5_4_bound
from betweencut.proofs.privacy.audit.mechanism import (
    AuditVerdict,
    ClaimPoint,
    Database,
    LawCache,
    PointResult,
    as_database,
    as_node,
    audit_mechanism,
    check_point,
    display,
    neighbouring_pairs,
    tighter,
)
from betweencut.proofs.registry import claim, register_audit
from betweencut.tree import Node, PublicTree, kary_tree

__all__ = [
    "PROJECTIONS", "PairReport", "betweencut_cache", "check_lemma_c_1",
    "check_theorem_5_4_enumerated", "check_theorem_5_5_enumerated", "exhaustive", "pair_report",
    "theorem_5_4_points",
]

PROJECTIONS: dict[str, Callable[[object], Any]] = {
    "transcript": lambda run: run.transcript,  # type: ignore[attr-defined]
    "heavy": lambda run: run.heavy,  # type: ignore[attr-defined]
}


def theorem_5_4_points(tree: PublicTree, params: Params) -> list[ClaimPoint]:
    """`(rλ, (L/2)e^{-λ(R-1)} + 1{r<L}(1 - q_λ)^r)` for `r = 1..L` (Eq. (22)), exact."""
    L = path_query_bound(tree.height)
    return [(r * params.lam, theorem_5_4_bound(L, params.lam, params.R, r))
            for r in range(1, L + 1)]


def betweencut_cache(
    tree: PublicTree, params: Params, variant: type[BetweenCut] = BetweenCut
) -> LawCache:
    """Enumerated laws of `variant` (default: Alg. 3 itself) on `tree` with `params`."""
    from betweencut.proofs.privacy.enumeration.outcome_tree import SharedTreeCache

    mechanism = variant(tree, params)

    def run(db: Database, test: NoisyTest) -> Run:
        return mechanism.run(db, test)

    return SharedTreeCache(mechanism, run, PROJECTIONS)


@dataclass(frozen=True)
class PairReport:
    """The rows of one neighbouring pair: per `r`, the exact `δ(rλ)` and the bound."""

    db: Database
    z: Node
    transcript: list[PointResult]
    heavy: list[PointResult]

    def rows(self, on: str) -> list[dict[str, object]]:
        results = self.transcript if on == "transcript" else self.heavy
        out = []
        for r, res in enumerate(results, start=1):
            lo, hi = res.tightness()
            out.append({
                "r": r, "eps": display(res.eps), "eps_exact": str(res.eps),
                "delta": display(res.delta), "delta_exact": exact_str(res.delta),
                "bound": display(res.bound), "bound_exact": exact_str(res.bound),
                "holds": res.holds, "tightness": [float(lo), float(hi)],
                "direction": res.stick.direction,
            })
        return out

    @property
    def holds(self) -> bool:
        return all(r.holds for r in (*self.transcript, *self.heavy))


def pair_report(
    cache: LawCache, tree: PublicTree, params: Params, db: Database, z: Node,
    points: Sequence[ClaimPoint] | None = None,
) -> PairReport:
    """Rows `r = 1..L` at `ε = rλ` against Theorem 5.4's bound, or against `points` (one
    `(rλ, bound)` per `r`, e.g. an accountant's certified upper bounds)."""
    points = theorem_5_4_points(tree, params) if points is None else points
    rows = {on: [check_point(cache, db, z, on, eps, bound) for eps, bound in points]
            for on in ("transcript", "heavy")}
    return PairReport(db, z, rows["transcript"], rows["heavy"])


def _validate(
    tree: PublicTree, params: Params, db: Iterable[Node], z: Node
) -> tuple[Database, Node]:
    if params.lam > 1:
        raise ParameterError("lambda", params.lam, "0 < lambda <= 1 (Theorem 5.4)")
    h = tree.height
    db, z = as_database(db), as_node(z, "z")  # lists work; anything else: ParameterError
    leaves = [*db, z]
    for leaf in leaves:
        if len(leaf) != h - 1 or tree.arity(leaf) != 0 or any(
            not 0 <= c < tree.arity(leaf[:i]) for i, c in enumerate(leaf)
        ):
            raise ParameterError("leaf", "/".join(map(str, leaf)),
                                 f"a leaf of the {tree.description}")
    return db, z


def _params(tree: PublicTree, params: Params, db: Database, z: Node) -> dict[str, object]:
    return {"tree": tree.description, "tau": params.tau, "lambda": params.lam,
            "R": params.R.exact_str(), "D": db, "z": z}


def _certify(name: str, results: Sequence[PointResult], params: dict[str, object]) -> Certificate:
    for res in results:
        if not res.holds:
            raise ClaimRefuted(name, f"delta({res.eps}) exceeds the claimed delta",
                               res.counterexample())
    quantities = {f"delta({res.eps})": exact_str(res.delta) for res in results}
    quantities.update({f"bound({res.eps})": exact_str(res.bound) for res in results})
    return Certificate(name, params, "enumerated", quantities, scope="one neighbouring pair")


@claim("Lemma C.1", "Eq. (112)", "Eq. (113)")
def check_lemma_c_1(
    tree: PublicTree, params: Params, db: Iterable[Node], z: Node, cache: LawCache | None = None
) -> Certificate:
    """Claim: Lemma C.1, Eq. (113): the full transcript is `(rλ, δ_r)`-DP, `r = 1..L`.

    Preconditions: `0 < λ <= 1`, `R >= 1`, `db` and `z` leaves of `tree`.
    Checks: the exact profile `δ(rλ)` of `Tr(D)` vs `Tr(D + z)` (both directions, every
    transcript enumerated by running Alg. 3) is `<=` Theorem 5.4's bound, by the gate.
    Returns: a Certificate (method `enumerated`). Raises: `ClaimRefuted` with the two databases,
    the violating event, its exact probabilities and the violated inequality.
    """
    d, z = _validate(tree, params, db, z)
    cache = cache or betweencut_cache(tree, params)
    report = pair_report(cache, tree, params, d, z)
    return _certify("Lemma C.1", report.transcript, _params(tree, params, d, z))


@claim("Theorem 5.4 (enumerated)", "Eq. (22)")
def check_theorem_5_4_enumerated(
    tree: PublicTree, params: Params, db: Iterable[Node], z: Node, cache: LawCache | None = None
) -> Certificate:
    """Claim: Theorem 5.4, Eq. (22), on the released Heavy set.

    Preconditions: `0 < λ <= 1`, `R >= 1`, `db` and `z` leaves of `tree`.
    Checks: the exact Heavy-set profile `δ(rλ)` is `<=` the bound for every `r = 1..L`, and
    `<=` the transcript profile at the same `ε` (the Heavy set is a function of the transcript).
    Returns: a Certificate (method `enumerated`). Raises: `ClaimRefuted` with the counterexample.
    """
    d, z = _validate(tree, params, db, z)
    cache = cache or betweencut_cache(tree, params)
    report = pair_report(cache, tree, params, d, z)
    for heavy, full in zip(report.heavy, report.transcript, strict=True):
        if sign(heavy.delta - full.delta) > 0:
            raise ClaimRefuted(
                "Theorem 5.4 (enumerated)", "Heavy-set delta exceeds transcript delta",
                {**heavy.counterexample(), "transcript_delta": exact_str(full.delta)})
    return _certify("Theorem 5.4 (enumerated)", report.heavy, _params(tree, params, d, z))


@claim("Theorem 5.5 (enumerated)", "Eq. (23)")
def check_theorem_5_5_enumerated(
    tree: PublicTree, cal: Calibration, tau: Fraction, db: Iterable[Node], z: Node,
    on: str = "transcript",
) -> Certificate:
    """Claim: Theorem 5.5, Eq. (23): calibrated BetweenCut is `(ε, δ)`-DP (by enumeration).

    Preconditions: `cal = calibrate(tree.height, ε, δ)`; `db`, `z` leaves of `tree`.
    Checks: the exact profile at `ε` (`= r·λ`, rational) is `<= δ`, by the gate; `R` is a
    `LogReal`, the guards use GuardedBT's exact integer cut points.
    Returns: a Certificate with the exact `δ(ε)` and its tightness `δ(ε)/δ` (certified).
    Raises: `ClaimRefuted` with the counterexample.
    """
    if cal.height != tree.height:
        raise ParameterError("cal", cal.height, f"a calibration for height {tree.height}")
    params = cal.params(tau)
    d, z = _validate(tree, params, db, z)
    cache = betweencut_cache(tree, params)
    res = check_point(cache, d, z, on, cal.epsilon, cal.delta)
    info = {**_params(tree, params, d, z), "epsilon": cal.epsilon, "delta": cal.delta}
    if not res.holds:
        raise ClaimRefuted("Theorem 5.5 (enumerated)", "delta(eps) exceeds delta",
                           res.counterexample())
    lo, hi = res.tightness()
    return Certificate("Theorem 5.5 (enumerated)", info, "enumerated",
                       {"delta(eps)": exact_str(res.delta), "tightness_lo": lo,
                        "tightness_hi": hi}, scope=f"one neighbouring pair, on {on}")


def exhaustive(
    tree: PublicTree, params: Params, size: int, on: Sequence[str] = ("transcript", "heavy"),
    progress: Callable[[Iterable[Any], int], Iterable[Any]] | None = None,
    points: Sequence[ClaimPoint] | None = None,
) -> dict[str, Any]:
    """Theorem 5.4 (or the claim `points`) on every `(D, D + z)` with `|D| <= size`.

    Returns per projection the audit verdict (holds with the tightest pair, or a refutation),
    the number of pairs, of transcripts whose exact probability was computed (per database and
    outcome tree) and of real mechanism runs (answer sequences enumerated directly).
    """
    leaves = list(tree.level(tree.height - 1))
    pairs = list(neighbouring_pairs(leaves, size))
    cache = betweencut_cache(tree, params)
    points = theorem_5_4_points(tree, params) if points is None else points
    shown = progress(pairs, len(pairs)) if progress else pairs
    verdicts: dict[str, AuditVerdict] = {}
    for pair in shown:
        for name in on:
            verdict = audit_mechanism(cache.run, [pair], points, on=name, cache=cache)
            best = verdicts.get(name)
            if best is None or not verdict.holds or (
                verdict.tightest is not None and best.tightest is not None
                and tighter(verdict.tightest, best.tightest)
            ):
                verdict.pairs = (best.pairs if best else 0) + 1
                verdicts[name] = verdict
            else:
                best.pairs += 1
            if not verdicts[name].holds:
                return _summary(verdicts, len(pairs), cache)
    return _summary(verdicts, len(pairs), cache)


def _summary(verdicts: dict[str, AuditVerdict], pairs: int, cache: LawCache) -> dict[str, Any]:
    runs = getattr(cache, "direct_runs", cache.transcripts)
    return {"verdicts": verdicts, "pairs": pairs, "transcripts": cache.transcripts, "runs": runs}


# The default cases, chosen for power (issue 12): Theorem 5.4's bound is < 1 at some r (R of
# 12 in the calibrated regime, or R = 3 with pairs whose counts cross the H guard at 4), and a
# known-violating gallery variant is refuted on each same instance (`power.power_witness`,
# reported as a certificate beside the case's own).
AUDIT_CASES = [  # (arity, height, lambda, R, tau)
    (2, 3, Fraction(1, 2), Fraction(12), Fraction(2)),
    (3, 2, Fraction(1, 2), Fraction(12), Fraction(1)),
    (2, 3, Fraction(1), Fraction(3), Fraction(0)),
]
GUARD_PAIRS: dict[int, list[tuple[Database, Node]]] = {  # extra pairs crossing a guard
    2: [(((0, 0), (0, 0), (0, 0)), (0, 0)), (((0, 0), (0, 0), (0, 1)), (0, 1))],
}


@register_audit("privacy", "Lemma C.1 / Theorem 5.4 by enumeration, every pair |D| <= 1, "
                "with power")
def audit_default() -> list[Certificate]:
    """Small trees, every neighbouring pair with `|D| <= 1` (and guard-crossing pairs), each
    instance also refuting a known-violating variant (its power); a few seconds."""
    from betweencut.proofs.privacy.claims.power import power_witness

    certificates = []
    for i, (k, h, lam, R, tau) in enumerate(AUDIT_CASES):
        tree = kary_tree(k, h)
        params = Params.of(tau, lam, R)
        cache = betweencut_cache(tree, params)
        pairs = [*neighbouring_pairs(list(tree.level(h - 1)), 1), *GUARD_PAIRS.get(i, [])]
        for db, z in pairs:
            certificates.append(check_lemma_c_1(tree, params, db, z, cache))
            certificates.append(check_theorem_5_4_enumerated(tree, params, db, z, cache))
        certificates.append(power_witness(tree, params, pairs).certificate(tree, params))
    cal = calibrate(3, Fraction(1), Fraction(1, 20))
    tree = kary_tree(2, 3)
    certificates.append(check_theorem_5_5_enumerated(tree, cal, Fraction(2), ((0, 0),), (0, 0)))
    certificates.append(calibrated_power(tree, cal, Fraction(2),
                                         neighbouring_pairs(list(tree.level(2)), 1)))
    return certificates


def calibrated_power(
    tree: PublicTree, cal: Calibration, tau: Fraction, pairs: Iterable[tuple[Database, Node]],
    variants: Sequence[str] = ("Laplace scale lambda", "guards without R"),
) -> Certificate:
    """The power of a Theorem 5.5 case: a known-violating gallery variant (default: noise
    `Lap(λ)`, then guards without `R`) with the same calibrated parameters must be refuted at
    the same `(ε, δ)` on one of `pairs` (else `NoPower`)."""
    from betweencut.proofs.privacy.claims.gallery import PRIVACY_BREAKING
    from betweencut.proofs.privacy.claims.power import NoPower

    params = cal.params(tau)
    chosen = list(pairs)
    for name in variants:
        cache = betweencut_cache(tree, params, PRIVACY_BREAKING[name].variant)
        for db, z in chosen:
            res = check_point(cache, db, z, "transcript", cal.epsilon, cal.delta)
            if not res.holds:
                return Certificate(
                    "Theorem 5.5 (enumerated)", {**_params(tree, params, db, z),
                                                 "epsilon": cal.epsilon, "delta": cal.delta},
                    "enumerated", {"refuted variant": name,
                                   "excess": exact_str(res.delta - cal.delta)},
                    scope="power: a known-violating variant is refuted on the same instance")
    raise NoPower(f"no variant of {list(variants)} is refuted at (eps, delta) = ({cal.epsilon}, "
                  f"{cal.delta}) on the pairs given: the Theorem 5.5 case has no power")
