"""Theorem 5.4, Lemma C.1 and Theorem 5.5 by exact transcript enumeration (issue 4)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from betweencut.data.tree import kary_tree
from betweencut.mechanism.calibration import calibrate
from betweencut.mechanism.params import Params
from betweencut.proofs.exact.arith import ExpPoly, sign
from betweencut.proofs.exact.certificate import ClaimRefuted
from betweencut.proofs.privacy.audit.pairs import audit_pairs
from betweencut.proofs.privacy.claims.cases import calibrated_power
from betweencut.proofs.privacy.claims.power import (
    KNOWN_VIOLATORS,
    NoPower,
    informative_r,
    power_witness,
)
from betweencut.proofs.privacy.claims.setup import betweencut_cache, pair_report
from betweencut.proofs.privacy.claims.theorems import (
    check_lemma_c_1,
    check_theorem_5_4_enumerated,
    check_theorem_5_5_enumerated,
    exhaustive,
)
from betweencut.proofs.privacy.enumeration.cache import neighbouring_pairs
from betweencut.proofs.registry import CLAIMS

# (tau, lambda, R): guards off, H guard at count 3, strong guards, small lambda, and R = 12 (the
# calibrated regime). Each has power (issue 12): Theorem 5.4's bound is < 1 at some r and a
# known-violating gallery variant is refuted on the same instance (`power_witness`). (1, 1, 1),
# used before, has a bound >= 1 at every r on these trees: nothing could have failed there.
PARAMS = [
    (Fraction(2), Fraction(1, 2), Fraction(2)),
    (Fraction(0), Fraction(1), Fraction(2)),
    (Fraction(0), Fraction(1), Fraction(3)),
    (Fraction(3), Fraction(1, 4), Fraction(2)),
    (Fraction(2), Fraction(1, 2), Fraction(12)),
]


def _pairs(k: int, h: int, size: int) -> list[tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]]:
    return list(neighbouring_pairs(list(kary_tree(k, h).level(h - 1)), size))


def _check_all(k: int, h: int, params: Params, pairs: list,  # type: ignore[type-arg]
               violators: tuple[str, ...] = KNOWN_VIOLATORS) -> None:
    """Every pair holds, and the same instance refutes a known-violating variant (power)."""
    tree = kary_tree(k, h)
    cache = betweencut_cache(tree, params)
    for db, z in pairs:
        check_lemma_c_1(tree, params, db, z, cache)
        check_theorem_5_4_enumerated(tree, params, db, z, cache)
    witness = power_witness(tree, params, pairs, variants=violators)
    assert witness.refutation is not None and not witness.refutation.holds


def test_claims_are_registered() -> None:
    for name in ("Lemma C.1", "Theorem 5.4 (enumerated)", "Theorem 5.5 (enumerated)"):
        assert name in CLAIMS


@pytest.mark.parametrize("tau, lam, R", PARAMS)
def test_lemma_c_1_and_theorem_5_4_binary_h3_every_pair(
    tau: Fraction, lam: Fraction, R: Fraction
) -> None:
    """Every pair (D, D + z) with |D| <= 2 on the complete binary tree of height 3."""
    _check_all(2, 3, Params.of(tau, lam, R), _pairs(2, 3, 2))


# The ternary tree of height 3 by default on one parameter set (strong guards, the cheapest to
# enumerate); the binary tree above runs every set by default, and `-m slow` runs the first two
# here too (about 20 s of CPU each: a third of the default run's ten slowest tests).
TERNARY_H3 = [pytest.param(*p, marks=pytest.mark.slow) for p in PARAMS[:2]] + [PARAMS[2]]


@pytest.mark.parametrize("tau, lam, R", TERNARY_H3)
def test_lemma_c_1_and_theorem_5_4_ternary_h3_every_pair(
    tau: Fraction, lam: Fraction, R: Fraction
) -> None:
    """Every pair (D, D + z) with |D| <= 2 on the complete ternary tree of height 3 (495 pairs,
    about 24,000 answer sequences per database; 15 to 20 s of CPU per parameter set). Power: the
    guards-without-R variant is refuted on the same instance (the cheapest to enumerate)."""
    _check_all(3, 3, Params.of(tau, lam, R), _pairs(3, 3, 2), ("guards without R",))


@pytest.mark.slow
def test_lemma_c_1_and_theorem_5_4_ternary_h3_every_pair_small_lambda() -> None:
    """The fourth parameter set (λ = 1/4: the widest noise window) on the ternary tree."""
    _check_all(3, 3, Params.of(*PARAMS[3]), _pairs(3, 3, 2), ("guards wrong sign",))


def test_theorem_5_4_ternary_h2_every_pair() -> None:
    _check_all(3, 2, Params.of(1, Fraction(1, 2), 12), _pairs(3, 2, 2))


def test_theorem_5_4_instance_without_power_is_reported() -> None:
    """(1, 1, 1) on the ternary tree h = 2: the bound is >= 1 at every r; no check there can
    fail, and power_witness says so instead of passing silently."""
    tree = kary_tree(3, 2)
    assert informative_r(tree, Params.of(1, 1, 1)) == []
    with pytest.raises(NoPower, match="nothing can exceed it"):
        power_witness(tree, Params.of(1, 1, 1), _pairs(3, 2, 1))
    assert informative_r(tree, Params.of(1, Fraction(1, 2), 12)) == [1, 2]


def test_theorem_5_4_heavy_profile_never_exceeds_transcript_profile() -> None:
    tree = kary_tree(2, 3)
    for tau, lam, R in PARAMS:
        params = Params.of(tau, lam, R)
        cache = betweencut_cache(tree, params)
        for db, z in _pairs(2, 3, 1):
            report = pair_report(cache, tree, params, db, z)
            for heavy, full in zip(report.heavy, report.transcript, strict=True):
                assert sign(heavy.delta - full.delta) <= 0
    # power: on the R = 12 instance the same pairs refute the Laplace-scale variant
    params = Params.of(*PARAMS[4])
    assert power_witness(tree, params, _pairs(2, 3, 1)).variant == "Laplace scale lambda"


def test_lemma_c_1_pinned_exact_value() -> None:
    """The CLI contract's pair: delta(1/2) of the transcript is exactly (e^-1 - e^-3/2)/4."""
    tree = kary_tree(2, 3)
    params = Params.of(2, Fraction(1, 2), 2)
    report = pair_report(betweencut_cache(tree, params), tree, params, ((0, 0), (0, 1)), (0, 0))
    expected = (ExpPoly.exp(-1) - ExpPoly.exp(Fraction(-3, 2))) * Fraction(1, 4)
    assert report.transcript[0].delta == expected
    assert report.transcript[1].delta == ExpPoly()


def test_lemma_c_1_rejects_a_wrong_bound() -> None:
    """The checker must fail on a claim that is too strong: delta = bound/100 at r = 1."""
    tree = kary_tree(2, 3)
    params = Params.of(2, Fraction(1, 2), 2)
    cache = betweencut_cache(tree, params)
    verdict = audit_pairs(cache.run, [(((0, 0), (0, 1)), (0, 0))],
                              [(Fraction(1, 2), Fraction(1, 100))], on="transcript", cache=cache)
    assert not verdict.holds and verdict.refutation is not None
    cex = verdict.refutation.counterexample()
    assert cex["D"] == "{0/0, 0/1}" and cex["z"] == "0/0"


def test_lemma_c_1_refutes_a_broken_variant() -> None:
    from betweencut.proofs.privacy.claims.gallery import PRIVACY_BREAKING

    case = PRIVACY_BREAKING["top-down levels"]
    tree = kary_tree(case.arity, case.height)
    params = Params.of(case.tau, case.lam, case.R)
    cache = betweencut_cache(tree, params, case.variant)
    with pytest.raises(ClaimRefuted) as info:
        check_theorem_5_4_enumerated(tree, params, case.db, case.z, cache)
    assert {"P", "Q", "event", "excess"} <= set(info.value.counterexample)


def test_theorem_5_5_enumerated_calibrated_holds() -> None:
    tree = kary_tree(2, 3)
    cal = calibrate(3, Fraction(1), Fraction(1, 20))
    pairs = [((), (0, 0)), (((0, 0),), (0, 0)), (((0, 1), (1, 0)), (1, 1))]
    for db, z in pairs:
        cert = check_theorem_5_5_enumerated(tree, cal, Fraction(2), db, z)
        assert cert.verdict == "holds"
    power = calibrated_power(tree, cal, Fraction(2), pairs)  # the Laplace-scale variant fails
    assert power.quantities["refuted variant"] == "Laplace scale lambda"


def test_theorem_5_4_exhaustive_binary_h2_reports_worst_pair() -> None:
    """On an instance with power (R = 12: bound < 1 at r = 1 and 2): the worst pair is
    reported, and the Laplace-scale variant is refuted on the same pairs. (With (1, 1, 1) the
    bound is >= 1 at every r, so tightness <= 1 could not fail.)"""
    tree, params = kary_tree(2, 2), Params.of(1, Fraction(1, 2), 12)
    result = exhaustive(tree, params, 2)
    for verdict in result["verdicts"].values():
        assert verdict.holds and verdict.tightest is not None
        lo, hi = verdict.tightest.tightness()
        assert 0 < lo <= hi <= 1
        assert verdict.tightest.eps < 2 * params.lam  # r < L: at r = L delta is 0
    witness = power_witness(tree, params, _pairs(2, 2, 2))
    assert witness.variant == "Laplace scale lambda"


def test_lemma_c_1_and_theorem_5_4_refuse_a_cache_built_for_other_parameters() -> None:
    """Issue 28, sweep (claim vs mechanism): the claim comes from `params`, the laws from the
    cache; a cache of BetweenCut built with another `R` (or another tree) would certify the
    claim of `params` on a mechanism that never ran with them, so it is refused. A variant's
    cache with the claimed parameters is audited against the claim and named."""
    from betweencut.errors import ParameterError
    from betweencut.proofs.privacy.claims.gallery import PRIVACY_BREAKING, NoGuards

    tree = kary_tree(2, 3)
    params = Params.of(2, Fraction(1, 2), 2)
    other = betweencut_cache(tree, Params.of(2, Fraction(1, 2), 12))
    elsewhere = betweencut_cache(kary_tree(3, 2), params)
    for check in (check_lemma_c_1, check_theorem_5_4_enumerated):
        for cache in (other, elsewhere):
            with pytest.raises(ParameterError, match="cache"):
                check(tree, params, ((0, 0),), (0, 0), cache)
    cert = check_lemma_c_1(tree, params, ((0, 0),), (0, 0), betweencut_cache(tree, params,
                                                                           NoGuards))
    assert cert.parameters["mechanism"] == "NoGuards"
    case = PRIVACY_BREAKING["Laplace scale lambda"]
    tree, params = kary_tree(case.arity, case.height), Params.of(case.tau, case.lam, case.R)
    with pytest.raises(ClaimRefuted):
        check_theorem_5_4_enumerated(tree, params, case.db, case.z,
                                     betweencut_cache(tree, params, case.variant))


def test_lemma_c_1_and_theorem_5_4_certificates_rederived_independently() -> None:
    """Issue 28, item 2: each certificate states its claim (`λ`, `R`, `L` and every `(r, ε,
    bound)`), and every certified row's `ε` and bound are re-derived here from the test's own
    parameters by Eq. (22) (`theorem_5_4_bound`), not from the checker's bookkeeping."""
    from betweencut.proofs.exact.arith import exact_str
    from betweencut.proofs.laws.tct import theorem_5_4_bound

    tree, lam, R, L = kary_tree(2, 3), Fraction(1, 2), Fraction(12), 2
    params = Params.of(2, lam, R)
    for check in (check_lemma_c_1, check_theorem_5_4_enumerated):
        cert = check(tree, params, ((0, 0),), (0, 1))
        assert cert.parameters["L"] == L and cert.parameters["lambda"] == lam
        assert cert.parameters["R"] == "12" and cert.parameters["mechanism"] == "BetweenCut"
        expected = [{"r": r, "eps": r * lam,
                     "bound_exact": exact_str(theorem_5_4_bound(L, lam, R, r))}
                    for r in range(1, L + 1)]
        assert cert.parameters["claimed"] == expected
        for point in expected:
            assert cert.quantities[f"bound({point['eps']})"] == point["bound_exact"]
            assert f"delta({point['eps']})" in cert.quantities


def test_theorem_5_5_enumerated_certificate_rederived_independently() -> None:
    """Issue 28, item 2: the Theorem 5.5 certificate states its claim `(ε, δ)` and the
    calibrated `λ`, `R`, `L` they rest on, each re-derived here from the test's own
    `(h, ε, δ)` by Eq. (23) written out: `L` the bit length of `h`, `r0` the least `r` with
    `(5/4)^r >= 2/δ`, `r = min(L, r0)`, `λ = ε/r`, `R = 1 + (r/ε)·ln(L/δ)`; and the certified
    row is at that `ε` against that `δ` (`δ(ε)/δ <= 1`)."""
    from betweencut.numbers.exact import LogReal

    h, eps, delta = 3, Fraction(1), Fraction(1, 20)
    L = 2
    r0 = next(r for r in range(1, 100) if Fraction(5, 4) ** r >= 2 / delta)
    r = min(L, r0)
    tree = kary_tree(2, h)
    cert = check_theorem_5_5_enumerated(tree, calibrate(h, eps, delta), Fraction(2), ((0, 0),),
                                        (0, 1))
    p = cert.parameters
    assert (p["epsilon"], p["delta"], p["L"], p["accountant"]) == (eps, delta, L, "paper")
    assert p["lambda"] == eps / r and p["R"] == LogReal(Fraction(1), r / eps, L / delta).exact_str()
    assert p["claimed"] == [{"eps": eps, "bound_exact": "1/20"}]
    lo, hi = cert.quantities["tightness_lo"], cert.quantities["tightness_hi"]
    assert 0 <= lo <= hi <= 1  # type: ignore[operator]
