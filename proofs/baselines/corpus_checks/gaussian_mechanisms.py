"""The Gaussian mechanisms' closed-form privacy profiles against the package's own hockey stick.

Two published closed forms are checked against profiles the package computes without them
(`betweencut.proofs.baselines.corpus_checks.gaussian_pairs`):

* Balle and Wang (ICML 2018), Theorem 8: the Gaussian mechanism `N(q(D), σ²)` with sensitivity
  `Δ` has exactly `δ(ε) = Φ(Δ/(2σ) - εσ/Δ) - e^ε·Φ(-Δ/(2σ) - εσ/Δ)`;
* Canonne, Kamath and Steinke (NeurIPS 2020), Theorem 7: the discrete Gaussian `N_Z(q(D), σ²)`
  with integer sensitivity `Δ` has exactly `δ(ε) = P(Y > εσ²/Δ - Δ/2) - e^ε·P(Y > εσ²/Δ + Δ/2)`,
  `Y ~ N_Z(0, σ²)`.

Neither side is exact (`Φ`, an infinite normaliser), so the verdicts compare certified
enclosures: the closed form holds at `ε` when its enclosure lies inside the enclosure of the
pair's `δ(ε)` (both computed at rising precision until it does), and is refuted when the two
are disjoint; `Undecided` otherwise. A wrong closed form (σ halved) is disjoint and refuted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

from betweencut.errors import MissingExtra
from betweencut.numbers.exact import refine
from betweencut.proofs.baselines.corpus_checks.gaussian_pairs import (
    GaussianGridPair,
    discrete_gaussian_delta,
)
from betweencut.proofs.exact.certificate import Certificate, ClaimRefuted
from betweencut.proofs.exact.enclosure import Enclosure
from betweencut.proofs.laws.continuous_gaussian import analytic_gaussian_delta, flint_available
from betweencut.proofs.laws.discrete_gaussian import cks_delta
from betweencut.proofs.registry import claim, register_audit

__all__ = [
    "BW_CLAIM", "CKS_CLAIM", "EPS_POINTS", "check_analytic_gaussian_mechanism",
    "check_discrete_gaussian_mechanism",
]

BW_CLAIM = "Analytic Gaussian mechanism (Balle, Wang 2018, Theorem 8)"
CKS_CLAIM = "Discrete Gaussian privacy profile (Canonne, Kamath, Steinke 2020, Theorem 7)"
EPS_POINTS: tuple[Fraction, ...] = (Fraction(0), Fraction(1, 3), Fraction(1), Fraction(7, 3),
                                    Fraction(4))
ClosedForm = Callable[[Fraction], Enclosure]


def _compare(claimed: Enclosure, computed: Enclosure) -> tuple[str, int, tuple[Fraction, ...]]:
    """`inside` once `claimed`'s enclosure lies inside `computed`'s, `disjoint` once they are
    apart, at 64, 128, ... bits (the package's one rising-precision loop, `refine`, up to its
    cap; the closed form evaluated 64 bits finer, so that its ball can fit inside an enclosure
    as narrow as rounding); with the precision and the four end points."""

    def decided(prec: int) -> tuple[str, tuple[Fraction, ...]] | None:
        c_lo, c_hi = claimed.enclose(prec + 64)
        d_lo, d_hi = computed.enclose(prec)
        ends = (c_lo, c_hi, d_lo, d_hi)
        if c_hi < d_lo or d_hi < c_lo:
            return "disjoint", ends
        if d_lo <= c_lo and c_hi <= d_hi:
            return "inside", ends
        return None

    (verdict, ends), prec = refine(
        decided, lambda: f"{claimed.label} overlaps {computed.label} without lying inside it")
    return verdict, prec, ends


def _verdicts(name: str, params: dict[str, object], eps_points: Sequence[Fraction],
              closed_form: ClosedForm, computed: ClosedForm, method: str) -> list[Certificate]:
    out = []
    for eps in eps_points:
        verdict, prec, (c_lo, c_hi, d_lo, d_hi) = _compare(closed_form(eps), computed(eps))
        quantities = {"eps": eps, "closed_form": [c_lo, c_hi], "enclosure": [d_lo, d_hi],
                      "bits": prec}
        if verdict == "disjoint":
            raise ClaimRefuted(name, f"at eps = {eps} the closed form lies outside the certified "
                               "enclosure of the pair's delta(eps)", {**params, **quantities})
        out.append(Certificate(name, {**params, "eps": eps}, "interval", quantities,
                               scope=method))
    return out


@claim(BW_CLAIM, "delta(eps) = Phi(D/2s - es/D) - e^eps Phi(-D/2s - es/D)")
def check_analytic_gaussian_mechanism(
    sigma: Fraction = Fraction(3, 2), sensitivity: Fraction = Fraction(1),
    eps_points: Sequence[Fraction] = EPS_POINTS, closed_form: ClosedForm | None = None,
    steps: int = 16,
) -> list[Certificate]:
    """Claim: Balle and Wang 2018, Theorem 8: the pair `(N(0, σ²), N(Δ, σ²))` has
    `δ(ε) = Φ(Δ/(2σ) - εσ/Δ) - e^ε·Φ(-Δ/(2σ) - εσ/Δ)` for every `ε >= 0`.

    Preconditions: `σ > 0`, `Δ != 0`, every `ε >= 0` rational; python-flint installed.
    Checks: at each `ε`, the closed form's Arb enclosure (`closed_form`, default the theorem's)
    lies inside the package's certified enclosure of the pair's `δ(ε)`: the hockey stick of the
    Gaussian mechanism released on a grid of step `σ/steps` (enumerated through the
    shared-noise primitives, `GaussianGridPair`) below, the likelihood-ratio bound per cell
    above; no formula for `δ` is used on that side.
    Returns: one `Certificate` per `ε` (both enclosures, the precision that decided).
    Raises: `ClaimRefuted` at the first `ε` where the two enclosures are disjoint;
    `Undecided` if they overlap without containment at the precision cap; `ParameterError`
    for bad parameters or without python-flint.
    """
    pair = GaussianGridPair(sigma, sensitivity, steps=steps)
    form = closed_form or (lambda eps: analytic_gaussian_delta(eps, sigma, sensitivity))
    params: dict[str, object] = {"sigma": sigma, "sensitivity": sensitivity, "steps": steps}
    return _verdicts(BW_CLAIM, params, eps_points, form, pair.delta,
                     f"grid of step sigma/{steps} on +-12 sigma, {len(pair.grid)} points")


@claim(CKS_CLAIM, "delta(eps) = P(Y > eps s2/D - D/2) - e^eps P(Y > eps s2/D + D/2)")
def check_discrete_gaussian_mechanism(
    sigma2: Fraction = Fraction(2), sensitivity: int = 1,
    eps_points: Sequence[Fraction] = EPS_POINTS, closed_form: ClosedForm | None = None,
) -> list[Certificate]:
    """Claim: Canonne, Kamath and Steinke 2020, Theorem 7: the pair
    `(N_Z(0, σ²), N_Z(Δ, σ²))`, integer `Δ`, has `δ(ε) = P(Y > εσ²/Δ - Δ/2) -
    e^ε·P(Y > εσ²/Δ + Δ/2)` (`Y ~ N_Z(0, σ²)`) for every `ε >= 0`.

    Preconditions: rational `σ² > 0`, integer `Δ >= 1`, every `ε >= 0` rational.
    Checks: at each `ε`, the closed form's enclosure (`closed_form`, default the theorem's, with
    tails of `N_Z` enclosed by `laws.discrete_gaussian`) lies inside the enclosure of the
    pair's `δ(ε)` computed by the exact hockey stick of the weights on a window
    (`discrete_gaussian_delta`: exact signs, enclosed normaliser and tail); the two are
    certified equal to within the enclosure's width (reported).
    Returns: one `Certificate` per `ε`.
    Raises: `ClaimRefuted` at the first `ε` where the enclosures are disjoint; `Undecided` if
    they overlap without containment at the precision cap.
    """
    form = closed_form or (lambda eps: cks_delta(eps, sigma2, sensitivity))
    params: dict[str, object] = {"sigma2": sigma2, "sensitivity": sensitivity}
    return _verdicts(CKS_CLAIM, params, eps_points, form,
                     lambda eps: discrete_gaussian_delta(eps, sigma2, sensitivity),
                     "window |y| <= T(prec) exact, normaliser and tail certified")


@register_audit("gaussian", BW_CLAIM)
def audit_analytic_gaussian() -> list[Certificate]:
    """The Balle-Wang check (needs python-flint: without it the claim is reported "not
    checked", naming the extra, never skipped silently)."""
    if not flint_available():
        raise MissingExtra("fast", "the Gaussian mechanism's profile (enclosed with "
                           "python-flint's Arb)")
    return check_analytic_gaussian_mechanism()


@register_audit("gaussian", CKS_CLAIM)
def audit_discrete_gaussian() -> list[Certificate]:
    return check_discrete_gaussian_mechanism()
