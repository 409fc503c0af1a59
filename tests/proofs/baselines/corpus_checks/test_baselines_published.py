"""The published-bugs corpus: every row gets its report's verdict, each checked here against a
computation written in the test (closed forms, brute-force sums over the orders of
permute-and-flip, the supports of the outputs, mpmath quadrature of the Laplace and Gaussian
laws); a row whose stated verdict is wrong is rejected (principle 5)."""

from __future__ import annotations

import itertools
from dataclasses import replace
from fractions import Fraction as F

import mpmath
import pytest
import sympy

from betweencut.proofs import ClaimRefuted
from betweencut.proofs.baselines.corpus_checks.published import HOLDS, audit_published
from betweencut.proofs.baselines.corpus_checks.published_rows import (
    PUBLISHED,
    audit_published_corpus,
    check_published_verdicts,
    row_named,
)
from betweencut.proofs.exact.arith import ExpPoly, ExpRational, sign
from betweencut.proofs.verdict import Verdict

E = ExpPoly.exp


@pytest.fixture(scope="module")
def verdicts() -> dict[str, Verdict]:
    return {row.name: audit_published(row) for row in PUBLISHED}


def test_published_privacy_bugs_refuted_their_fixes_certified(
        verdicts: dict[str, Verdict]) -> None:
    certs = check_published_verdicts()
    assert [c.parameters["row"] for c in certs] == [row.name for row in PUBLISHED]
    for row in PUBLISHED:
        verdict = verdicts[row.name]
        assert verdict.facts["agrees"] and verdict.holds == (row.expected == HOLDS), row.name
        assert (verdict.refutation is None) == verdict.holds
        sibling = row_named(row.sibling)
        assert sibling.report == row.report and (
            sibling.expected != row.expected or row.name == "opendp-2911-exponential")
    dated = [row for row in PUBLISHED if row.report.date[:4] in ("2024", "2025", "2026")]
    assert len(dated) >= 8


def test_a_row_with_the_wrong_expected_verdict_is_rejected() -> None:
    wrong = replace(row_named("opendp-2911-permute-and-flip"), expected=HOLDS)
    with pytest.raises(ClaimRefuted, match="opendp-2911-permute-and-flip"):
        check_published_verdicts((wrong,))


# --- OpenDP 2911: permute-and-flip against the exponential mechanism --------------------------

def flip_law(scores: tuple[int, ...]) -> list[ExpPoly]:
    """Permute-and-flip at scale 1, summed over every order of the candidates."""
    top = max(scores)
    out = [ExpPoly() for _ in scores]
    orders = list(itertools.permutations(range(len(scores))))
    for order in orders:
        rest = ExpPoly.const(F(1, len(orders)))
        for i in order:
            out[i] = out[i] + rest * E(scores[i] - top)
            rest = rest * (1 - E(scores[i] - top))
    return out


def test_opendp_2911_refuted_at_order_2_with_the_reproducers_divergence(
        verdicts: dict[str, Verdict]) -> None:
    ref = verdicts["opendp-2911-permute-and-flip"].refutation
    assert ref is not None and ref.order == 2 and (ref.D, ref.z) == ("{}", "2/0")
    p, q = flip_law((0, 0)), flip_law((1, -1))
    s = ExpRational(p[0] ** 2, q[0]) + ExpRational(p[1] ** 2, q[1])  # Σ P²/Q, D_2 = ln S
    assert (ExpRational.of(ref.P) - s).is_zero()
    assert sign(s - E(1)) > 0  # D_2 > α·ρ = 2·(1/2) = 1: ln S > 1
    lo, _ = ref.delta.enclose(64)  # type: ignore[union-attr]
    assert lo > F(137, 100)


def test_opendp_2911_corrected_and_exponential_claims_by_the_log_ratio_range() -> None:
    """ε-DP gives ε²/2-zCDP and an ε-bounded range gives ε²/8 (Cesar, Rogers 2021): on every
    pair of the rows, permute-and-flip's log-ratios lie in [-2, 2] and the exponential
    mechanism's in an interval of width at most 2 (ε = 2 at scale 1)."""
    records = list(itertools.product((0, 1, 2), repeat=2))
    for z in records:
        scores = (z[0] - 1, z[1] - 1)
        p, q = flip_law((0, 0)), flip_law(scores)
        for a, b in zip(p, q, strict=True):
            assert sign(a - b * E(2)) <= 0 and sign(b - a * E(2)) <= 0
        em_p = [E(0), E(0)]
        em_q = [E(scores[0]), E(scores[1])]
        ratios = [ExpRational(x * (em_q[0] + em_q[1]), y * (em_p[0] + em_p[1]))
                  for x, y in zip(em_p, em_q, strict=True)]
        for r1, r2 in itertools.product(ratios, repeat=2):  # max L - min L <= 2
            assert sign(r1 - r2 * E(2)) <= 0


# --- label sets, domains and bounds taken from the data ----------------------------------------

@pytest.mark.parametrize(("name", "event_first"), [
    ("diffprivlib-106-labels-from-data", True), ("dpmm-24-domain-imputed", False),
    ("dpart-6-bounds-from-data", True)])
def test_data_dependent_supports_are_refuted_with_an_impossible_event(
        verdicts: dict[str, Verdict], name: str, event_first: bool) -> None:
    """The output's support moves with the data: an event of probability 1 (the label set, the
    bounds; dpmm's worst pair, issue 35 item 4: the empty database's output `None`, which one
    record never gives; its first refuting pair had the new category drawn, 1/2) on one
    database is impossible on the other."""
    ref = verdicts[name].refutation
    assert ref is not None
    assert ExpRational.of(ref.Q).is_zero() and not ExpRational.of(ref.P).is_zero()
    expected = {"diffprivlib-106-labels-from-data": F(1), "dpmm-24-domain-imputed": F(1),
                "dpart-6-bounds-from-data": F(1)}[name]
    assert (ExpRational.of(ref.P) - expected).is_zero()
    assert verdicts[name].facts["found"].startswith("refuted; private at no eps")


@pytest.mark.parametrize("name", ["diffprivlib-106-labels-given", "dpart-6-bounds-given"])
def test_public_label_sets_and_bounds_lose_exactly_one_over_b(name: str) -> None:
    """Adding a record moves one discrete Laplace count by 1: the largest loss is `1/b = 1`."""
    from betweencut.proofs.privacy.enumeration.cache import LawCache

    row = row_named(name)
    cache = LawCache(row.run)  # type: ignore[arg-type]
    losses = set()
    for pair in row.pairs():
        at = cache.curve(pair.first, pair.z, "output").epsilon_at_delta(F(0))
        assert at is not None
        losses.add(at.as_rational())
    assert losses == {F(1)}


def test_dpmm_given_domain_loses_at_most_one_by_the_exponential_mechanisms_formula() -> None:
    row = row_named("dpmm-24-domain-given")
    for pair in row.pairs():
        counts = [[sum(1 for r in db if r == (c,)) for c in (0, 1, 2)]
                  for db in (pair.first, pair.second)]
        laws = [[ExpRational(E(F(c, 2)), sum((E(F(x, 2)) for x in cs), ExpPoly()))
                 for c in cs] for cs in counts]
        for a, b in zip(*laws, strict=True):
            assert sign(a - b * E(1)) <= 0 and sign(b - a * E(1)) <= 0


# --- smartnoise-sdk 622: the covariance of unclipped data ---------------------------------------

def test_smartnoise_622_unclipped_covariance_delta_from_the_laplace_cdfs(
        verdicts: dict[str, Verdict]) -> None:
    """`var{0, 0} = 0`, `var{0, 10} = 50`, noise `Lap(1)`: the event is `y < y*` with
    `y* = (50 - 1)/2` (where `f(y) = e·f(y - 50)`), so `δ(1) = F_0(y*) - e·F_50(y*)` with the
    Laplace CDFs written out: `1 - e^(-y*)/2 - e·e^(y* - 50)/2`."""
    ref = verdicts["smartnoise-622-unclipped"].refutation
    assert ref is not None and (ref.D, ref.D_prime) == ("{0*2}", "{0, 10}")
    ystar = F(49, 2)
    delta = 1 - E(-ystar, F(1, 2)) - E(1) * E(ystar - 50, F(1, 2))
    assert (ExpRational.of(ref.delta) - delta).is_zero()


def test_smartnoise_622_clipped_covariance_moves_by_at_most_one_half() -> None:
    row = row_named("smartnoise-622-clipped")
    moves = set()
    for pair in row.pairs():
        variances = []
        for db in (pair.first, pair.second):
            x = [F(min(max(r[0], 0), 1)) for r in db]
            mean = sum(x, F(0)) / len(x)
            variances.append(sum(((v - mean) ** 2 for v in x), F(0)) / (len(x) - 1))
        moves.add(abs(variances[0] - variances[1]))
    assert max(moves) == F(1, 2)  # Lap(1): loss 1/2 <= eps = 1 on every pair


# --- mbi 65: JAM's sensitivity --------------------------------------------------------------

def test_mbi_65_jam_loss_written_out(verdicts: dict[str, Verdict]) -> None:
    """Scores (4, -4) against (0, 0), scale 4 (sensitivity 2): `P_D(1) = 1/2`, `P_D+z(1) =
    e^-1/(e + e^-1)`; `δ(1) = 1/2 - e·e^-1/(e + e^-1) > 0`. At scale 8 every loss is at most 1."""
    ref = verdicts["mbi-65-jam-sensitivity-2"].refutation
    assert ref is not None
    delta = F(1, 2) - ExpRational(E(1) * E(-1), E(1) + E(-1))
    assert (ExpRational.of(ref.delta) - delta).is_zero() and sign(delta) > 0
    for z in itertools.product((0, 1, 2), repeat=2):
        s = [4 * (z[0] - 1), 4 * (z[1] - 1)]
        q = [ExpRational(E(F(x, 8)), E(F(s[0], 8)) + E(F(s[1], 8))) for x in s]
        for b in q:
            assert sign(F(1, 2) - b * E(1)) <= 0 and sign(b - E(1) * F(1, 2)) <= 0


# --- the Laplace mechanism's exact zCDP (Harrison, Manurangsi, FORC 2026) --------------------

def test_laplace_exact_zcdp_is_the_kl_divergence_integrated_here(
        verdicts: dict[str, Verdict]) -> None:
    y = sympy.symbols("y", real=True)
    p = sympy.exp(-sympy.Abs(y)) / 2
    q = sympy.exp(-sympy.Abs(y - 1)) / 2
    pieces = [(-sympy.oo, 0), (0, 1), (1, sympy.oo)]
    kl = sum(sympy.integrate(sympy.simplify((p * sympy.log(p / q)).rewrite(sympy.Piecewise)),
                             (y, a, b)) for a, b in pieces)
    assert sympy.simplify(kl - sympy.exp(-1)) == 0  # eps + e^-eps - 1 at eps = 1
    assert verdicts["laplace-exact-zcdp"].holds
    ref = verdicts["laplace-below-exact-zcdp"].refutation
    assert ref is not None and ref.order is not None
    alpha = ref.order  # the witness order: D_alpha by quadrature exceeds the claim there
    mpmath.mp.dps = 50
    a = mpmath.mpf(alpha.numerator) / alpha.denominator
    moment = sum(mpmath.quad(lambda t: (mpmath.exp(-abs(t)) / 2) ** a * (
        mpmath.exp(-abs(t - 1)) / 2) ** (1 - a), [lo, hi]) for lo, hi in ((-80, 0), (0, 1),
                                                                          (1, 80)))
    divergence = mpmath.log(moment) / (a - 1)
    claimed = (mpmath.e ** -1 - mpmath.mpf(1) / 10**4) * a
    assert divergence > claimed


# --- Programming Differential Privacy 45: the Gaussian sigma for eps > 1 ---------------------

@pytest.mark.parametrize(("name", "sigma"), [("programming-dp-45-book-sigma", F(969, 2000)),
                                             ("programming-dp-45-analytic-sigma", F(1, 2))])
def test_gaussian_rows_against_balle_wang_in_mpmath(verdicts: dict[str, Verdict], name: str,
                                                   sigma: F) -> None:
    mpmath.mp.dps = 40
    s = mpmath.mpf(sigma.numerator) / sigma.denominator
    delta = mpmath.ncdf(1 / (2 * s) - 10 * s) - mpmath.e**10 * mpmath.ncdf(-1 / (2 * s) - 10 * s)
    assert s >= mpmath.sqrt(2 * mpmath.log(mpmath.mpf(125000))) / 10 or name.endswith("analytic")
    verdict = verdicts[name]
    row = verdict.refutation if verdict.refutation is not None else verdict.worst
    assert row is not None
    lo, hi = (row.delta.enclose(64) if verdict.refutation is not None  # type: ignore[union-attr]
              else row.delta_in)  # type: ignore[union-attr]
    assert float(lo) - 1e-15 <= float(delta) <= float(hi) + 1e-15
    assert (delta > mpmath.mpf(1) / 10**5) == (verdict.refutation is not None)


def test_the_published_listing_has_the_tree_pairs_with_their_reports() -> None:
    rows = audit_published_corpus(("hhh-shared-gamma", "binagg-privtree-replace-one"))
    assert [r.facts["name"] for r in rows] == ["hhh-shared-gamma",
                                             "binagg-privtree-replace-one"]
    assert all(r.facts["agrees"] and r.facts["report"]["date"] for r in rows)
    with pytest.raises(Exception, match="one of"):
        audit_published_corpus(("no-such-row",))

