"""The accountants' checkable steps and their validation by exhaustive enumeration.

* "KOV composition bound (Kairouz et al. 2015) for BetweenCut's transcript"
  (`check_kov_composition`): the two steps of the reduction (`accountant` module docstring,
  `docs/explanation/accountant.md`) that arithmetic can check: every GuardedBT pair of the
  band, counts `(c, c + 1)` in both orders, is `(λ, δ0)`-indistinguishable (Lemma 5.3,
  exact hockey-stick at `e^λ`), and KOV's closed form equals the hockey-stick of the `L`-fold
  product of KOV's pair computed by brute force (small `L`).
* "Tight accountant dominates every enumerated pair" (`check_accountant_enumerated`): on a tree
  where exhaustive enumeration of the real mechanism runs, every neighbouring pair's exact
  transcript `δ(ε)` is `<=` the accountant's `delta_upper(ε)` at every `ε` of a grid.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Final

from betweencut.data.tree import PublicTree, kary_tree
from betweencut.errors import ParameterError
from betweencut.mechanism.params import Params
from betweencut.numbers.exact import LogReal
from betweencut.proofs.exact.arith import certainly_le, exact_str
from betweencut.proofs.exact.certificate import Certificate, ClaimRefuted
from betweencut.proofs.laws.models import exact_model
from betweencut.proofs.privacy.accountants.accountant import (
    Accountant,
    EnvelopeAccountant,
    KovAccountant,
    accountant,
    delta0_upper,
)
from betweencut.proofs.privacy.accountants.envelope import bt_envelope_upper, envelope_delta_upper
from betweencut.proofs.privacy.accountants.kov import (
    kov_delta,
    kov_pair,
    pair_hockey_stick,
    product_hockey_stick,
)
from betweencut.proofs.privacy.audit.pairs import audit_pairs
from betweencut.proofs.privacy.claims.setup import betweencut_cache
from betweencut.proofs.privacy.enumeration.cache import neighbouring_pairs
from betweencut.proofs.registry import claim, register_audit
from betweencut.proofs.verdict import Release

__all__ = [
    "DOMINATES", "ENVELOPE", "KOV", "check_accountant_enumerated", "check_envelope_pair",
    "check_kov_composition", "default_grid",
]

KOV: Final = "KOV composition bound (Kairouz et al. 2015) for BetweenCut's transcript"
ENVELOPE: Final = "GuardedBT envelope pair dominates every GuardedBT pair"
DOMINATES: Final = "Tight accountant dominates every enumerated pair"
BRUTE_FORCE_MAX_L: Final = 4


def default_grid(L: int, lam: Fraction) -> list[Fraction]:
    """`ε ∈ {0, λ/2, λ, 3λ/2, ..., Lλ}`: both the paper's points `rλ` and the points between."""
    return [Fraction(i, 2) * lam for i in range(2 * L + 1)]


@claim(KOV, "Lemma 4.2", "Lemma 5.3", "Eq. (19)")
def check_kov_composition(
    L: int, lam: Fraction, R: LogReal | Fraction | int, taus: Sequence[Fraction],
    eps_grid: Sequence[Fraction] | None = None,
) -> Certificate:
    """Claim: KOV composition bound (Kairouz et al. 2015) for BetweenCut's transcript.

    Preconditions: integer `L >= 1`, rational `0 < λ <= 1`, `R >= 1`; `taus` public thresholds
    (the band's position relative to the integer counts depends on `τ`'s fractional part).
    Checks: (1) for every `τ` of `taus` and every count `c` of the GuardedBT window (both guard
    cuts and two more counts each side), the exact laws at `c` and `c + 1` satisfy
    `H_{e^λ}(P_c‖P_{c+1}) <= δ0` and `H_{e^λ}(P_{c+1}‖P_c) <= δ0` (Lemma 5.3: `(λ, δ0)`-DP,
    `δ0 = ½e^{-λ(R-1)}` exact or a certified upper bound); (2) if `L <= 4`, at every `ε` of the
    grid KOV's closed form equals, exactly, the hockey-stick of the `L`-fold product of KOV's
    four-outcome pair enumerated by brute force.
    Returns: a Certificate (method `exact`) with the number of pairs and points checked.
    Raises: `ClaimRefuted` with the pair (τ, c, direction) or the `ε` where a step fails.
    """
    acc = KovAccountant.of(L, lam, R)
    d0 = delta0_upper(acc.lam, acc.R)
    params = {"L": L, "lambda": acc.lam, "R": acc.R.exact_str(), "delta0": exact_str(d0)}
    pairs = 0
    for tau in taus:
        model = exact_model(Fraction(tau), acc.lam, acc.R)
        for c in model.window():
            P0, P1 = model.law(c), model.law(c + 1)
            for first, second, direction in ((P0, P1, "c||c+1"), (P1, P0, "c+1||c")):
                stick = pair_hockey_stick(first, second, acc.lam)
                pairs += 1
                if not certainly_le(stick, d0):
                    raise ClaimRefuted(KOV, "a GuardedBT pair is not (lambda, delta0)-DP", {
                        **params, "tau": tau, "c": c, "direction": direction,
                        "H_e^lambda": exact_str(stick)})
    grid = list(eps_grid) if eps_grid is not None else default_grid(L, acc.lam)
    points = 0
    if L <= BRUTE_FORCE_MAX_L:
        P, Q = kov_pair(acc.lam, d0)
        for eps in grid:
            closed, brute = kov_delta(L, acc.lam, d0, eps), product_hockey_stick(P, Q, L, eps)
            points += 1
            if not (closed - brute).is_zero():
                raise ClaimRefuted(KOV, "KOV's closed form differs from the product's "
                                   "hockey-stick", {**params, "eps": eps,
                                                    "closed": exact_str(closed),
                                                    "brute_force": exact_str(brute)})
    return Certificate(KOV, params, "exact", {
        "band_pairs_checked": pairs, "taus": [str(t) for t in taus],
        "closed_form_points_checked": points})


@claim(ENVELOPE, "Lemma 5.3", "Eq. (19)", "Eq. (105)")
def check_envelope_pair(
    lam: Fraction, R: LogReal | Fraction | int, taus: Sequence[Fraction],
    eps_grid: Sequence[Fraction] | None = None,
) -> Certificate:
    """Claim: GuardedBT envelope pair dominates every GuardedBT pair.

    Preconditions: rational `0 < λ <= 1`, `R >= 1`; `taus` public thresholds.
    Checks: for every `τ` of `taus`, every count `c` of the GuardedBT window and both orders,
    (1) when both counts are randomized, the exact `H_{e^a}` of the pair is `<=` the certified
    envelope `F(a)` of the closed-form supremum over all real shifts, at every `a = ε` of the
    grid; (2) end to end (steps 1-5 of `betweencut.proofs.privacy.accountants.envelope` with `L =
    1`): the exact `H_{e^ε}` of the pair is `<=` `envelope_delta_upper(1, λ, δ0, ε)`, at every `ε`
    of the grid (default `0, λ/4, λ/2, 3λ/4, λ, 2λ`).
    Returns: a Certificate (method `exact`) stating `λ`, `R`, the `δ0` used and every
    `(ε, bound)` compared (`claimed`), with the number of comparisons.
    Raises: `ClaimRefuted` with `τ`, `c`, the order, `ε` and both numbers.
    """
    acc = EnvelopeAccountant.of(1, lam, R)
    d0 = acc.delta0_rational_upper()
    grid = list(eps_grid) if eps_grid is not None else [
        Fraction(i, 4) * acc.lam for i in (0, 1, 2, 3, 4, 8)]
    bounds = {eps: envelope_delta_upper(1, acc.lam, d0, eps) for eps in grid}
    params = {"lambda": acc.lam, "R": acc.R.exact_str(), "delta0_upper": d0,
              "claimed": [{"eps": eps, "bound_exact": exact_str(bound)}
                          for eps, bound in bounds.items()]}
    checked = 0
    for tau in taus:
        model = exact_model(Fraction(tau), acc.lam, acc.R)
        for c in model.window():
            both = model.randomized(c) and model.randomized(c + 1)
            P0, P1 = model.law(c), model.law(c + 1)
            for first, second, order in ((P0, P1, "c||c+1"), (P1, P0, "c+1||c")):
                for eps in grid:
                    stick = pair_hockey_stick(first, second, eps)
                    checked += 1
                    where = {**params, "tau": tau, "c": c, "order": order, "eps": eps,
                             "H": exact_str(stick)}
                    if both and not certainly_le(stick, bt_envelope_upper(acc.lam, eps)):
                        raise ClaimRefuted(ENVELOPE, "a both-randomized pair exceeds the "
                                           "closed-form envelope", where)
                    if not certainly_le(stick, bounds[eps]):
                        raise ClaimRefuted(ENVELOPE, "a GuardedBT pair exceeds the envelope "
                                           "pair's hockey-stick", {**where,
                                                                   "bound": bounds[eps]})
    return Certificate(ENVELOPE, params, "exact", {"comparisons": checked,
                                                   "taus": [str(t) for t in taus]})


@claim(DOMINATES, "Eq. (112)")
def check_accountant_enumerated(
    tree: PublicTree, params: Params, size: int, acc: Accountant | None = None,
    eps_grid: Sequence[Fraction] | None = None, name: str = "tight",
) -> Certificate:
    """Claim: Tight accountant dominates every enumerated pair.

    Preconditions: `0 < λ <= 1`, `R >= 1`; a tree small enough to enumerate; `acc` defaults to
    `accountant(name, L, λ, R)` (pass another object to test a deliberately wrong one).
    Checks: for every `(D, D + z)` with `|D| <= size` and every `ε` of the grid (default
    `0, λ/2, ..., Lλ`), the exact transcript `δ(ε)` (both directions, every transcript of the
    real Alg. 3 enumerated) is `<= acc.delta_upper(ε)`, by the gate.
    Returns: a Certificate (method `enumerated`) stating the claim, the accountant's own
    parameters (`accountant`, which need not be the mechanism's) and every `(ε, bound)`
    compared (`claimed`), apart from the mechanism's (`mechanism`), with the tightest pair and
    its ratio bounds.
    Raises: `ClaimRefuted` with the pair, the event, both probabilities and the bound.
    """
    L = tree.height.bit_length()
    if acc is None:
        acc = accountant(name, L=L, lam=params.lam, R=params.R)
    grid = list(eps_grid) if eps_grid is not None else default_grid(L, params.lam)
    if not grid:
        raise ParameterError("eps_grid", "[]", "at least one eps >= 0")
    points = [(eps, acc.delta_upper(eps)) for eps in grid]
    cache = betweencut_cache(tree, params)
    pairs = list(neighbouring_pairs(list(tree.level(tree.height - 1)), size))
    verdict = audit_pairs(cache.run, pairs, points, on=Release.TRANSCRIPT, cache=cache)
    info = {"tree": tree.description, "size": size, "accountant": _described(acc),
            "mechanism": {"lambda": params.lam, "R": params.R.exact_str(), "tau": params.tau},
            "claimed": [{"eps": eps, "bound_exact": exact_str(bound)} for eps, bound in points]}
    if not verdict.holds and verdict.refutation is not None:
        raise ClaimRefuted(DOMINATES, "an enumerated pair's delta(eps) exceeds the accountant's "
                           "upper bound", {**info, **verdict.refutation.counterexample()})
    quantities: dict[str, object] = {"pairs": verdict.pairs, "eps_grid": [str(e) for e in grid]}
    if verdict.tightest is not None:
        lo, hi = verdict.tightest.tightness()
        quantities.update({"tightest_D": verdict.tightest.db, "tightest_z": verdict.tightest.z,
                           "tightest_eps": verdict.tightest.eps,
                           "delta_over_bound": [str(lo), str(hi)]})
    return Certificate(DOMINATES, info, "enumerated", quantities,
                       scope=f"every pair with |D| <= {size}, transcript")


def _described(acc: Accountant) -> dict[str, object]:
    """The accountant as the claim it is: its own name, `L`, `λ`, `R` (those it computes its
    bounds from, which need not be the audited mechanism's) and what it rests on."""
    describe = getattr(acc, "describe", None)  # a deliberately wrong test object may lack it
    if callable(describe):
        return dict(describe())
    return {"accountant": type(acc).__name__}


AUDIT_CASES: Final = [  # (arity, height, tau, lambda, R): small guards make delta large
    (2, 3, Fraction(1), Fraction(1), Fraction(1)),
    (2, 3, Fraction(2), Fraction(1, 2), Fraction(2)),
    (3, 2, Fraction(1), Fraction(1), Fraction(1)),
]


@register_audit("privacy", "Accountants: KOV's steps and every enumerated pair |D| <= 1")
def audit_accountants() -> list[Certificate]:
    certificates = []
    for k, h, tau, lam, R in AUDIT_CASES:
        tree = kary_tree(k, h)
        params = Params.of(tau, lam, R)
        certificates.append(check_kov_composition(h.bit_length(), lam, R,
                                                  [Fraction(0), Fraction(1, 3), tau]))
        certificates.append(check_envelope_pair(lam, R, [Fraction(0), Fraction(1, 3), tau]))
        certificates.append(check_accountant_enumerated(tree, params, 1))
    return certificates

