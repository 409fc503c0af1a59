"""Theorem 5.4 on the released Heavy set at any height (issue 13, Part 1), by path grouping.

The Heavy set is a function of the transcript, so Theorem 5.4 for it is implied by the
transcript check (`depth_audit.check_theorem_5_4_at_depth`) by post-processing; this checker
computes the Heavy set's own exact `δ(ε)` (`betweencut.proofs.privacy.depth.heavy`), confirms
the bound on it and confirms that it never exceeds the transcript's at the same `ε`, and reports
how much smaller it is (what users release is the Heavy set).
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from betweencut.errors import ParameterError
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.mechanism.params import Params
from betweencut.proofs.exact.arith import exact_str, sign
from betweencut.proofs.exact.certificate import Certificate, ClaimRefuted
from betweencut.proofs.privacy.depth.depth_audit import (
    audit_profiles,
    band_setup,
    row_facts,
)
from betweencut.proofs.privacy.depth.paths import MAX_HEIGHT
from betweencut.proofs.privacy.depth.transcript import DepthRow
from betweencut.proofs.registry import claim, register_audit
from betweencut.proofs.verdict import Release

__all__ = ["check_theorem_5_4_heavy_at_depth", "heavy_at_most_transcript"]


def heavy_at_most_transcript(heavy: DepthRow, transcript: DepthRow) -> bool:
    """`δ_heavy(rλ) <= δ_transcript(rλ)` for one profile and `r`: by the certified enclosures
    when they decide, else by the exact values (`Undecided` only if the exact sign is)."""
    if heavy.profile != transcript.profile or heavy.r != transcript.r:
        raise ParameterError("rows", (heavy.r, transcript.r), "rows of one profile and one r")
    if heavy.delta_hi <= transcript.delta_lo:
        return True
    if heavy.delta_lo > transcript.delta_hi:
        return False
    return sign(heavy.delta_exact() - transcript.delta_exact()) <= 0


@claim("Theorem 5.4", "Eq. (22)")
def check_theorem_5_4_heavy_at_depth(
    height: int, params: Params, counts: Iterable[int] | None = None, arity: int = 2,
    variant: type[BetweenCut] = BetweenCut,
) -> Certificate:
    """Claim: Theorem 5.4, Eq. (22), on the released Heavy set, at any height `h <= 2^64 - 1`
    (implied by the transcript's check by post-processing; computed here on its own).

    Preconditions: `0 < λ <= 1`, `R >= 1`, `τ >= E` (off-path count-0 nodes guarded `L`);
    `variant` keeps Alg. 3's `level_order`, `apply`, `run` (checked).
    Checks: for the single-leaf pairs `C` vs `C + 1` (`counts`, default the whole band), the
    exact `δ(rλ)` of the Heavy set (answer sequences merged per released set: the boundary on
    z's path) is `<=` the bound for every `r = 1..L`, and `<=` the transcript's `δ(rλ)`;
    decided by certified enclosures, exactly where they straddle.
    Returns: a Certificate (method `enumerated`) with the worst Heavy-set `δ/bound`.
    Raises: `ClaimRefuted` with the pair, `r`, the exact `δ` and the bound (or the transcript's
    `δ` when the Heavy set's exceeds it).
    """
    mechanism, profiles, bounds, info = band_setup(height, params, counts, arity, variant)
    info["on"] = str(Release.HEAVY)
    heavy = audit_profiles(mechanism, profiles, bounds, on=Release.HEAVY)
    worst = heavy.worst
    if worst is not None and not worst.holds:
        raise ClaimRefuted("Theorem 5.4", "Heavy-set delta(eps) exceeds the claimed bound at depth",
                           {**info, **row_facts(worst, exact=True)})
    transcript = audit_profiles(mechanism, profiles, bounds)
    for row, full in zip(heavy.rows, transcript.rows, strict=True):
        if not heavy_at_most_transcript(row, full):
            raise ClaimRefuted(
                "Theorem 5.4", "Heavy-set delta exceeds the transcript's (post-processing)",
                {**info, **row_facts(row, exact=True),
                 "transcript_delta": exact_str(full.delta_exact())})
    quantities = row_facts(worst, exact=False) if worst is not None else {}
    return Certificate("Theorem 5.4", info, "enumerated", quantities,
                       scope=f"single-leaf pairs at h = {info['h']}, Heavy set, every answer "
                             "sequence by grouping")


@register_audit("privacy", "Theorem 5.4 at depth on the Heavy set: h = 15 band, 2 pairs at "
                "2^64 - 1")
def audit_default() -> list[Certificate]:
    """The Heavy set of the same cases as the transcript audit at depth (a few seconds)."""
    params = Params.of(Fraction(8), Fraction(1, 2), Fraction(2))
    return [check_theorem_5_4_heavy_at_depth(15, params),
            check_theorem_5_4_heavy_at_depth(MAX_HEIGHT, params, counts=(6, 8))]
