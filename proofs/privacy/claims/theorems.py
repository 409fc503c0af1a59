"""Theorem 5.4, Lemma C.1 and Theorem 5.5 confirmed by exact transcript enumeration.

For a public tree, parameters and a neighbouring pair `(D, D + z)`, the real BetweenCut code
(Alg. 3) is enumerated on both databases (`betweencut.proofs.privacy.enumeration.transcripts`) and
the exact privacy
profile `δ(ε)` (`betweencut.proofs.privacy.divergence.joint`) is compared at `ε = rλ`, `r =
1..L`, with the
bound of Theorem 5.4 (`betweencut.proofs.laws.tct.theorem_5_4_bound`, Eq. (22)/(113)):

* claim "Lemma C.1" (Eq. (113)): the full transcript `Tr(D)` (Eq. (112)) meets the bound;
* claim "Theorem 5.4 (enumerated)" (Eq. (22)): the released Heavy set meets the bound, and its
  profile never exceeds the transcript's (post-processing);
* claim "Theorem 5.5 (enumerated)" (Eq. (23)): with calibrated parameters the transcript is
  `(ε, δ)`-DP. (The claim "Theorem 5.5" itself is the calibration arithmetic of
  `betweencut.proofs.calibration_claims`.)

Every `δ` is exact (`e^{rλ}` is an `ExpPoly` monomial); calibrated `R = 1 + (r/ε)·ln(L/δ)` is
irrational, but the guards are decided exactly by GuardedBT's integer cut points, so the laws
stay exact and `e^{-λ(R-1)} = δ/L` is rational.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Any

from betweencut.data.tree import Node, PublicTree
from betweencut.errors import ParameterError
from betweencut.mechanism.calibration import Calibration
from betweencut.mechanism.params import Params
from betweencut.proofs.exact.arith import exact_str, sign
from betweencut.proofs.exact.certificate import Certificate, ClaimRefuted
from betweencut.proofs.privacy.audit.pairs import (
    AuditVerdict,
    ClaimPoint,
    audit_pairs,
    check_point,
    tighter,
)
from betweencut.proofs.privacy.claims.setup import (
    audited_cache,
    betweencut_cache,
    certify,
    claimed_points,
    mechanism_name,
    pair_parameters,
    pair_report,
    theorem_5_4_points,
    validate_pair,
)
from betweencut.proofs.privacy.enumeration.cache import (
    LawCache,
    neighbouring_pairs,
)
from betweencut.proofs.registry import claim
from betweencut.proofs.verdict import Release

__all__ = [
    "check_lemma_c_1", "check_theorem_5_4_enumerated", "check_theorem_5_5_enumerated",
    "exhaustive",
]

@claim("Lemma C.1", "Eq. (112)", "Eq. (113)")
def check_lemma_c_1(
    tree: PublicTree, params: Params, db: Iterable[Node], z: Node, cache: LawCache | None = None
) -> Certificate:
    """Claim: Lemma C.1, Eq. (113): the full transcript is `(rλ, δ_r)`-DP, `r = 1..L`.

    Preconditions: `0 < λ <= 1`, `R >= 1`, `db` and `z` leaves of `tree`; `cache` (default
    Alg. 3's) of a mechanism built with `params` on `tree` (checked, `ParameterError`).
    Checks: the exact `δ(rλ)` of `Tr(D)` vs `Tr(D + z)` (both directions, every
    transcript enumerated by running the cache's mechanism) is `<=` Theorem 5.4's bound, by
    the gate; `λ`, `R`, hence every `ε = rλ` and bound, are those of `params`.
    Returns: a Certificate (method `enumerated`) stating the claim (`L`, `claimed`: every
    `(r, ε, bound)`) and the mechanism audited. Raises: `ClaimRefuted` with the two databases,
    the violating event, its exact probabilities and the violated inequality.
    """
    d, z = validate_pair(tree, params, db, z)
    cache = audited_cache(tree, params, cache)
    report = pair_report(cache, tree, params, d, z)
    return certify("Lemma C.1", report.transcript,
                   {**pair_parameters(tree, params, d, z), **claimed_points(tree, params),
                    "mechanism": mechanism_name(cache)})


@claim("Theorem 5.4 (enumerated)", "Eq. (22)")
def check_theorem_5_4_enumerated(
    tree: PublicTree, params: Params, db: Iterable[Node], z: Node, cache: LawCache | None = None
) -> Certificate:
    """Claim: Theorem 5.4, Eq. (22), on the released Heavy set.

    Preconditions: `0 < λ <= 1`, `R >= 1`, `db` and `z` leaves of `tree`; `cache` (default
    Alg. 3's) of a mechanism built with `params` on `tree` (checked, `ParameterError`).
    Checks: the exact Heavy-set profile `δ(rλ)` is `<=` the bound for every `r = 1..L`, and
    `<=` the transcript profile at the same `ε` (the Heavy set is a function of the transcript);
    every `ε` and bound from `params`.
    Returns: a Certificate (method `enumerated`) stating the claim (`L`, `claimed`) and the
    mechanism audited. Raises: `ClaimRefuted` with the counterexample.
    """
    d, z = validate_pair(tree, params, db, z)
    cache = audited_cache(tree, params, cache)
    report = pair_report(cache, tree, params, d, z)
    for heavy, full in zip(report.heavy, report.transcript, strict=True):
        if sign(heavy.delta - full.delta) > 0:
            raise ClaimRefuted(
                "Theorem 5.4 (enumerated)", "Heavy-set delta exceeds transcript delta",
                {**heavy.counterexample(), "transcript_delta": exact_str(full.delta)})
    return certify("Theorem 5.4 (enumerated)", report.heavy,
                   {**pair_parameters(tree, params, d, z), **claimed_points(tree, params),
                    "mechanism": mechanism_name(cache)})


@claim("Theorem 5.5 (enumerated)", "Eq. (23)")
def check_theorem_5_5_enumerated(
    tree: PublicTree, cal: Calibration, tau: Fraction, db: Iterable[Node], z: Node,
    on: Release = Release.TRANSCRIPT,
) -> Certificate:
    """Claim: Theorem 5.5, Eq. (23): calibrated BetweenCut is `(ε, δ)`-DP (by enumeration).

    Preconditions: `cal = calibrate(tree.height, ε, δ)`; `db`, `z` leaves of `tree`.
    Checks: the exact `δ(ε)` at `ε` (`= r·λ`, rational) is `<= δ`, by the gate; `R` is a
    `LogReal`, the guards use GuardedBT's exact integer cut points.
    Returns: a Certificate stating the claim (`epsilon`, `delta`, `claimed`) and the
    calibration it rests on (`L`, `lambda`, `R`, the `accountant` that chose them), with the
    exact `δ(ε)` and its tightness `δ(ε)/δ` (certified).
    Raises: `ClaimRefuted` with the counterexample.
    """
    if cal.height != tree.height:
        raise ParameterError("cal", cal.height, f"a calibration for height {tree.height}")
    params = cal.params(tau)
    d, z = validate_pair(tree, params, db, z)
    cache = betweencut_cache(tree, params)
    res = check_point(cache, d, z, on, cal.epsilon, cal.delta)
    info = {**pair_parameters(tree, params, d, z), "epsilon": cal.epsilon, "delta": cal.delta,
            "L": cal.L, "accountant": cal.accountant,
            "claimed": [{"eps": cal.epsilon, "bound_exact": exact_str(cal.delta)}]}
    if not res.holds:
        raise ClaimRefuted("Theorem 5.5 (enumerated)", "delta(eps) exceeds delta",
                           res.counterexample())
    lo, hi = res.tightness()
    return Certificate("Theorem 5.5 (enumerated)", info, "enumerated",
                       {"delta(eps)": exact_str(res.delta), "tightness_lo": lo,
                        "tightness_hi": hi}, scope=f"one neighbouring pair, on {on}")


def exhaustive(
    tree: PublicTree, params: Params, size: int,
    on: Sequence[Release] = (Release.TRANSCRIPT, Release.HEAVY),
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
            verdict = audit_pairs(cache.run, [pair], points, on=name, cache=cache)
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
