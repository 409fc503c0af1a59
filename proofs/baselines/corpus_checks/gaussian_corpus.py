"""The Gaussian rows of the corpus: Gaussian SVT and report-noisy-max with certified verdicts.

A Gaussian mechanism is never pure-DP on every input, so its rows state `(ε, δ)` claims (the
row's `claim`), audited on every pair `(D, D + z)` with `|D| <= size`, `z ∈ {0, 1, 2}^m` by
`audit_pairs` with the Gaussian kind (`enumeration.gaussian_noise`): each `δ_pair(ε)` is a
certified enclosure, compared with the exact claimed `δ` (holds below, refuted above,
`Undecided` when they straddle at the package's precision cap). The claims and where they come from:

* Gaussian SVT (Zhu and Wang, NeurIPS 2020, Theorem 8, `c = 1`): `(α, ε(α))`-RDP with
  `ε(α) = ln k/(α - 1) + αΔ²/σ_ρ² + 2αΔ²/σ_ν²` (`k` queries; the form implemented by autodp's
  `rdp_bank.RDP_gaussian_svt_c1`), converted to `(ε, δ)` by Mironov (CSF 2017), Prop. 3:
  `δ = e^((α-1)(ε(α) - ε)) = k·e^((α-1)(α·a - ε))`, `a = Δ²/σ_ρ² + 2Δ²/σ_ν²`, at the rational
  `α = (ε + a)/(2a)` (the minimiser): an exact `ExpPoly`. On inputs this small the bound is far
  from tight: the row reports the pairs' largest pure loss next to it.
* The same SVT without query noise (Lyu, Su, Li 2017, Alg. 5's bug with Gaussian threshold
  noise): an answer sequence impossible on one database and possible on the other, of
  probability above every claimed `δ`: private at no `(ε, δ)` with `δ` below it.
* Gaussian report-noisy-max: a post-processing of the Gaussian mechanism on the vector of `m`
  answers, of ℓ2 sensitivity `√m` (each moves by at most 1), so Balle and Wang (ICML 2018),
  Theorem 8 with `Δ = √m` bounds it. The claims are that `δ` rounded up to five significant
  digits (rationals; `test_gaussian_corpus_claims_are_the_cited_bounds` checks them against
  the certified closed form). The same mechanism claimed at `Δ = 1` (the per-query
  sensitivity) is refuted and holds at `Δ = √m`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, cast

from betweencut.data.notation import database_text, record_text, replacement_text
from betweencut.data.tree import Node
from betweencut.data.validate import positive_rational
from betweencut.errors import ParameterError
from betweencut.proofs.baselines.corpus_checks import corpus_rows
from betweencut.proofs.baselines.corpus_checks.corpus_rows import CorpusRow, RowResult
from betweencut.proofs.exact.arith import ExpPoly, exact_str
from betweencut.proofs.exact.enclosure import Enclosure
from betweencut.proofs.privacy.audit.pairs import (
    AuditVerdict,
    audit_pairs,
    display,
    output_text,
)
from betweencut.proofs.privacy.divergence.joint import epsilon_for_delta
from betweencut.proofs.privacy.enumeration.cache import Mechanism, Neighbour
from betweencut.proofs.privacy.enumeration.gaussian_noise import (
    CertifiedJoint,
    GaussianLawCache,
)
from betweencut.proofs.verdict import Direction, Refutation, Relation, Release

__all__ = ["audit_gaussian_row", "infinite_loss_witness", "largest_epsilon_at_delta",
           "largest_pure_loss", "zhu_wang_delta"]

LOSS_WIDTH, LOSS_MAX = Fraction(1, 64), Fraction(64)


def zhu_wang_delta(eps: Fraction, sigma_rho: Fraction, sigma_nu: Fraction, k: int,
                   sensitivity: Fraction = Fraction(1)) -> ExpPoly:
    """Zhu and Wang 2020, Theorem 8 (`c = 1`) in RDP, converted to `δ` at `ε` (Mironov 2017,
    Prop. 3) at the minimising rational order: `k·e^(-(ε - a)²/(4a))`, exactly.

    Raises: `ParameterError` for a non-positive `σ`, `Δ` or `k`, or unless `ε > a` (the order
    must exceed 1).
    """
    sigma_rho = positive_rational(sigma_rho, "sigma_rho", " (a standard deviation)")
    sigma_nu = positive_rational(sigma_nu, "sigma_nu", " (a standard deviation)")
    sensitivity = positive_rational(sensitivity, "sensitivity")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ParameterError("k", k, "an integer k >= 1 (the number of queries answered)")
    a = sensitivity**2 / sigma_rho**2 + 2 * sensitivity**2 / sigma_nu**2
    if eps <= a:
        raise ParameterError("eps", eps, f"eps > {a} (the RDP order (eps + a)/(2a) must be > 1)")
    alpha = (eps + a) / (2 * a)
    return ExpPoly.exp((alpha - 1) * (alpha * a - eps), k)


def _moves(z: Node) -> str:
    return str(tuple(x - 1 for x in z))


def _pair_text(pair: Neighbour) -> dict[str, str]:
    out = {"D": database_text(pair.first), "z": record_text(pair.z),
           "moves": corpus_rows.moves_of(pair)}
    if pair.replaced is not None:
        out["z"] = replacement_text(*pair.replaced)
        out["D_prime"] = database_text(pair.second)
    return out


def _tightest(verdict: AuditVerdict) -> dict[str, Any]:
    worst = verdict.worst
    if worst is None:
        return {}
    return {**_pair_text(worst.neighbour), "eps": str(worst.eps),
            "delta_pair": str(worst.delta), "claimed_delta": exact_str(worst.bound)}


def largest_pure_loss(cache: GaussianLawCache, pairs: list[Neighbour]) -> dict[str, Any]:
    """The largest `ε` with `δ_pair(ε) > 0` over the pairs (certified to `LOSS_WIDTH`, by
    `epsilon_for_delta` at target 0), with its pair; `None` past `LOSS_MAX`."""
    best: tuple[Fraction, Neighbour] | None = None
    for pair in pairs:
        found = epsilon_for_delta(cache.pair_joint(pair, Release.OUTPUT), Fraction(0), LOSS_WIDTH,
                                  LOSS_MAX)
        if found is None:
            return {"at_most": None, **_pair_text(pair)}
        if best is None or found[1] > best[0]:
            best = (found[1], pair)
    if best is None:
        return {}
    return {"at_most": str(best[0]), **_pair_text(best[1])}


def largest_epsilon_at_delta(cache: GaussianLawCache, pairs: list[Neighbour],
                             delta: Fraction | ExpPoly) -> dict[str, Any]:
    """A refuted row's largest `ε` at its claimed `δ` over the pairs (issue 35), certified as an
    enclosure: each pair's smallest `ε` with `δ_pair(ε) <= δ` lies in `(lo, hi]` of width
    `LOSS_WIDTH` (`epsilon_for_delta`: both directions, every comparison by the certified sign
    gate), so the largest over the pairs lies in `[max lo, max hi]`
    (`epsilon_at_delta_in`, rationals as text; `epsilon_at_delta` a display float of the upper
    end), with the pair of the largest `hi` (`epsilon_at_delta_pair`). A pair with no finite
    `ε` up to `LOSS_MAX` makes it `[LOSS_MAX, inf]` (`epsilon_at_delta` null) on that pair."""
    lo_best: Fraction | None = None
    best: tuple[Fraction, Neighbour] | None = None
    for pair in pairs:
        found = epsilon_for_delta(cache.pair_joint(pair, Release.OUTPUT), delta, LOSS_WIDTH,
                                  LOSS_MAX)
        if found is None:
            return {"epsilon_at_delta": None, "epsilon_at_delta_in": [str(LOSS_MAX), "inf"],
                    "epsilon_at_delta_delta_exact": exact_str(delta),
                    "epsilon_at_delta_pair": _pair_text(pair)}
        lo, hi = found
        lo_best = lo if lo_best is None else max(lo_best, lo)
        if best is None or hi > best[0]:
            best = (hi, pair)
    if best is None or lo_best is None:
        return {}
    return {"epsilon_at_delta": display(best[0]),  # display only: the enclosure is the value
            "epsilon_at_delta_in": [str(lo_best), str(best[0])],
            "epsilon_at_delta_delta_exact": exact_str(delta),
            "epsilon_at_delta_pair": _pair_text(best[1])}


def infinite_loss_witness(cache: GaussianLawCache, pairs: list[Neighbour],
                          above: Fraction, point: tuple[Fraction, Any]) -> Refutation | None:
    """An output with probability exactly 0 under one database of a pair (a structural zero:
    its noiseless comparisons contradict each other) and certainly above `above` under the
    other: no `(ε, δ)` with `δ < P` holds on that pair (refuting the claimed `point`)."""
    for pair in pairs:
        joint = cast(CertifiedJoint, cache.pair_joint(pair, Release.OUTPUT))
        texts = _pair_text(pair)
        for o in joint.outputs:
            for first, second, direction in ((joint.p, joint.q, Direction.FORWARD),
                                             (joint.q, joint.p, Direction.BACKWARD)):
                po, qo = first.get(o), second.get(o)
                if po is None or (qo is not None and not qo.is_zero()):
                    continue
                if Enclosure.of(po).enclose(64)[0] > above:
                    eps, dlt = point
                    return Refutation(
                        "(eps, delta)-DP with delta below P(S)", texts["D"], texts["z"],
                        Release.OUTPUT,
                        direction if pair.replaced is None else direction.replaced(),
                        eps, (output_text(o),), 1, po, ExpPoly(), po, dlt,
                        f"Q(S) = 0 exactly (a structural zero); the pair moves the queries by "
                        f"{texts['moves']}", texts.get("D_prime"))
    return None


def audit_gaussian_row(row: CorpusRow, size: int = 0, relation: Relation | None = None,
                       first: bool = False) -> RowResult:
    """Decide a Gaussian row's `(ε, δ)` claim on every pair of `relation` (default add/remove,
    `|D| <= size`; see `corpus_rows`), certified; returns the corpus's `RowResult` (imported
    lazily: `corpus` imports this module lazily). A refuted row reports its worst pair (the
    largest certified excess), or with `first` its first refuting pair (issue 35, item 4)."""
    if size < 0:
        raise ParameterError("size", size, "a database size >= 0")
    relation = relation or Relation()
    run = row.mechanism()
    cache = GaussianLawCache(run)
    pairs = corpus_rows.pairs_for(row, size, relation)
    claim = list(row.claim)
    verdict = audit_pairs(cast(Mechanism, run), pairs, claim, cache=cache, first=first)
    detail: dict[str, Any] = {
        "method": "certified enclosures (python-flint Arb quadrature)"}
    if verdict.holds:
        detail["tightest"] = _tightest(verdict)
        detail["pure_loss"] = largest_pure_loss(cache, pairs)
        return corpus_rows.RowResult(row, True, "holds on every pair audited",
                                row.literature in (corpus_rows.PRIVATE, corpus_rows.UNKNOWN),
                                verdict.pairs, detail, verdict.tightest)
    ref = verdict.refutation
    if ref is None:  # pragma: no cover - audit_pairs sets it with holds False
        raise ParameterError("verdict", verdict, "a refutation when the claim fails")
    moved = corpus_rows.moves_of(ref.neighbour)
    refutation = ref.refutation(note=f"the pair moves the queries by {moved}")
    detail["moves"] = moved
    if isinstance(ref.bound, Fraction | ExpPoly):  # the refuting point's delta (first: its pair)
        detail.update(largest_epsilon_at_delta(
            cache, [ref.neighbour] if first else pairs[:verdict.pairs], ref.bound))
    agrees, found = False, "refuted"
    if row.literature == corpus_rows.PRIVATE_AT and row.claim_private:
        larger = audit_pairs(cast(Mechanism, run), pairs, list(row.claim_private),
                             cache=cache)
        detail["holds_at_claim_private"] = larger.holds
        detail["claim_private"] = [{"eps": str(e), "delta_exact": exact_str(d)}
                                   for e, d in row.claim_private]
        agrees = larger.holds
        found = ("refuted; holds at the literature's weaker claim on every pair audited"
                 if larger.holds else "refuted; also refuted at the literature's claim")
    elif row.literature in (corpus_rows.NOWHERE, corpus_rows.UNKNOWN):
        largest = max(Enclosure.of(d).enclose(64)[1] for _, d in claim)
        witness = infinite_loss_witness(cache, pairs, largest, claim[0]) or (
            infinite_loss_witness(cache, pairs, Fraction(0), claim[0]))  # any structural zero
        if witness is not None:
            refutation = witness
            agrees = row.literature == corpus_rows.NOWHERE
            found = "refuted; private at no (eps, delta) with delta below P (Q = 0 < P)"
    return corpus_rows.RowResult(row, False, found, agrees, verdict.pairs, detail, ref, refutation,
                                 first)
