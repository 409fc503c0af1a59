"""The published-bugs corpus: every row pair, with its report (`published.Report`).

Each pair is the code as published (the claim refuted, with its exact counterexample) and the
fix (certified on the same pairs). Reports were read at their sources; a row says how the
published code is reduced to the step audited (`reduced`). The hierarchical heavy hitters
pair and the BinAgg pair live in `tree_corpus` (audited by `corpus.audit_row`); `REPORTS`
gives their reports for the listing and the documentation.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from fractions import Fraction

from betweencut.baselines import published as pb
from betweencut.errors import ParameterError
from betweencut.proofs.baselines.corpus_checks.published import (
    DP,
    HOLDS,
    REFUTED,
    ZCDP,
    Claim,
    PublishedRow,
    Report,
    add_remove,
    audit_published,
    replace_exact,
)
from betweencut.proofs.exact.arith import ExpPoly
from betweencut.proofs.exact.certificate import Certificate, ClaimRefuted
from betweencut.proofs.privacy.enumeration.cache import Neighbour
from betweencut.proofs.registry import claim, register_audit
from betweencut.proofs.verdict import Neighbours, Relation, Verdict

__all__ = ["CLAIM", "LAPLACE_EXACT_RHO", "PUBLISHED", "REPORTS", "TREE_PUBLISHED",
           "audit_published_corpus", "check_published_verdicts", "row_named"]

CLAIM = "Published privacy bugs refuted, their fixes certified"

ONE = Fraction(1)
SCORES = tuple(itertools.product((0, 1, 2), repeat=2))  # record z moves score i by z_i - 1
LABEL_RECORDS = tuple((c,) for c in pb.LABELS)
VALUE_RECORDS = tuple((v,) for v in range(pb.BOUNDS[0], pb.BOUNDS[1] + 1))
COVARIANCE_RECORDS = ((0,), (1,), (10,))
COUNT_RECORDS = ((0,),)  # a count's pairs: D of 0..2 records, one added

OPENDP = Report(
    "opendp/opendp issue 2911", "https://github.com/opendp/opendp/issues/2911", "2026-08-26",
    "make_noisy_max (OpenDP 0.15.1) runs permute-and-flip but declares rho = eps^2/8 under "
    "zero-concentrated divergence, which holds for the exponential mechanism only; reproducer: "
    "scores [0, 0] vs [1, -1], scale 1, Renyi order 2")
DIFFPRIVLIB = Report(
    "IBM/differential-privacy-library issue 106",
    "https://github.com/IBM/differential-privacy-library/issues/106", "2026-02-04",
    "models/logistic_regression.py takes the label set from the data (classes = np.unique(y)): "
    "removing the only row of a label changes the model's classes")
DPMM = Report(
    "sassoftware/dpmm issue 24", "https://github.com/sassoftware/dpmm/issues/24", "2026-03-11",
    "without a categorical domain the domain is imputed from the data (a 'PrivacyLeakage' "
    "warning); the maintainers confirmed on 2026-05-13 that no DP mechanism extracts it")
SMARTNOISE = Report(
    "opendp/smartnoise-sdk issue 622", "https://github.com/opendp/smartnoise-sdk/issues/622",
    "2026-02-04",
    "snsynth DPcovariance.release clips and cleans the data but computes the covariance on the "
    "unclipped data, with noise calibrated to the bounds (fixed by pull request 624, "
    "2026-02-10)")
JAM = Report(
    "ryan112358/mbi issue 65", "https://github.com/ryan112358/mbi/issues/65", "2025-12-26",
    "mbi/mechanisms/jam.py selects marginals by the exponential mechanism with sensitivity 2 on "
    "scores model_error - pub_error, whose terms each move by up to 2 in opposite directions: "
    "the sensitivity is 4")
DPART = Report(
    "hazy/dpart pull request 6", "https://github.com/hazy/dpart/pull/6", "2024-05-13",
    "PrivBayes took its numeric bounds from the data; the pull request passes the data bounds "
    "in, to avoid the privacy leakage (merged 2024-06-12)")
EXACT_ZCDP = Report(
    "Harrison, Manurangsi, FORC 2026 (LIPIcs 368, 3)",
    "https://drops.dagstuhl.de/entities/document/10.4230/LIPIcs.FORC.2026.3", "2026",
    "the tight zCDP bound of the eps-DP Laplace mechanism is exactly eps + e^(-eps) - 1 "
    "(arXiv 2510.25746, 2025-10; tumult-analytics issue 119 of 2025-11-18 proposes to use it)")
PDP = Report(
    "uvm-plaid/programming-dp issue 45", "https://github.com/uvm-plaid/programming-dp/issues/45",
    "2023-11-24",
    "the book's Gaussian mechanism sigma^2 = 2 s^2 ln(1.25/delta)/eps^2 is used for every eps, "
    "but holds only for eps < 1 (Balle, Wang 2018, Theorem 4); amended on 2024-01-07")

REPORTS: dict[str, Report] = {
    "hhh-shared-gamma": Report(
        "Biswas, Cormode, Kanza, Srivastava, Zhou, PODS 2025: the authors' bug report",
        "https://randomwalks.xyz/publications/dp-hhh/", "2026-04-22",
        "the non-streaming HHH release of the conference version draws one gamma ~ "
        "Laplace(1/eps) for every node: not private (fixed version: arXiv 2606.13563)"),
    "hhh-fresh-gamma": Report(
        "Biswas, Cormode, Kanza, Srivastava, Zhou, arXiv 2606.13563 (the fix)",
        "https://arxiv.org/abs/2606.13563", "2026-06-11",
        "a fresh gamma_p for every node p"),
    "binagg-privtree-add-remove": Report(
        "Lin, Slavkovic, Bhoomireddy, AISTATS 2026 (BinAgg)", "https://arxiv.org/abs/2510.16974",
        "2025-10", "PrivTree bins with counts rescaled to the true n (preserve_sample_size)"),
    "binagg-privtree-replace-one": Report(
        "Lin, Slavkovic, Bhoomireddy, AISTATS 2026 (BinAgg)", "https://arxiv.org/abs/2510.16974",
        "2025-10", "the same release under replace-one neighbours, where n is public"),
}

# OpenDP's scale 1 at d_in = 1 (L-infinity): eps = 2 d_in / scale = 2 (ε-DP for both mechanisms)
NOISY_MAX_SCALE = ONE
NOISY_MAX_EPS = 2 * ONE / NOISY_MAX_SCALE
REPRODUCER = Neighbour.add((), (2, 0))  # scores [0, 0] against [1, -1]
LAPLACE_EXACT_RHO = ExpPoly.exp(-ONE) + (ONE - 1)  # eps + e^(-eps) - 1 at eps = 1
GAUSSIAN_EPS, GAUSSIAN_DELTA = Fraction(10), Fraction(1, 100_000)
# sqrt(2 ln(1.25/delta))/eps = 0.4844805... rounded UP (more noise than the book's formula)
BOOK_SIGMA = Fraction(969, 2000)
ANALYTIC_SIGMA = Fraction(1, 2)  # Balle-Wang's calibration 0.49988... rounded up


def _scores(size: int = 0) -> list[Neighbour]:
    return add_remove(SCORES, size)


def _pf(db: tuple[tuple[int, ...], ...], test: object) -> object:
    return pb.noisy_max(db, NOISY_MAX_SCALE, test, flip=True)


def _em(db: tuple[tuple[int, ...], ...], test: object) -> object:
    return pb.noisy_max(db, NOISY_MAX_SCALE, test, flip=False)


def _labels_published(db: tuple[tuple[int, ...], ...], test: object) -> object:
    return pb.label_release(db, test)


def _labels_fixed(db: tuple[tuple[int, ...], ...], test: object) -> object:
    return pb.label_release(db, test, pb.LABELS)


def _domain_imputed(db: tuple[tuple[int, ...], ...], test: object) -> object:
    return pb.synthetic_category(db, test)


def _domain_given(db: tuple[tuple[int, ...], ...], test: object) -> object:
    return pb.synthetic_category(db, test, pb.CATEGORIES)


def _covariance_unclipped(db: tuple[tuple[int, ...], ...], test: object) -> object:
    return pb.covariance_1d(db, test, clip=False)


def _covariance_clipped(db: tuple[tuple[int, ...], ...], test: object) -> object:
    return pb.covariance_1d(db, test, clip=True)


def _jam_published(db: tuple[tuple[int, ...], ...], test: object) -> object:
    return pb.jam_select(db, test, Fraction(2))


def _jam_fixed(db: tuple[tuple[int, ...], ...], test: object) -> object:
    return pb.jam_select(db, test, Fraction(pb.JAM_MOVE))


def _bounds_from_data(db: tuple[tuple[int, ...], ...], test: object) -> object:
    return pb.bounded_histogram(db, test)


def _bounds_given(db: tuple[tuple[int, ...], ...], test: object) -> object:
    return pb.bounded_histogram(db, test, pb.BOUNDS)


def _laplace(db: tuple[tuple[int, ...], ...], test: object) -> object:
    return pb.laplace_count(db, test, ONE)


def _book_gaussian(db: tuple[tuple[int, ...], ...], test: object) -> object:
    return pb.gaussian_count(db, test, BOOK_SIGMA)


def _analytic_gaussian(db: tuple[tuple[int, ...], ...], test: object) -> object:
    return pb.gaussian_count(db, test, ANALYTIC_SIGMA)


def _dp(eps: Fraction, delta: Fraction = Fraction(0)) -> Claim:
    return Claim(DP, ((eps, delta),), shown=f"({eps}, {delta})-DP")


REPLACE_ONE = Relation(Neighbours.REPLACE_ONE)
COVARIANCE_REPRODUCER = Neighbour.replace(((0,), (0,)), (0,), (10,))

PUBLISHED: tuple[PublishedRow, ...] = (
    PublishedRow(
        "opendp-2911-permute-and-flip", "make_noisy_max as published: permute-and-flip, "
        "scale 1, declared rho = eps^2/8", OPENDP, _pf, _scores,
        Claim(ZCDP, rho=NOISY_MAX_EPS**2 / 8, shown="rho = eps^2/8 = 1/2 (eps = 2)"), REFUTED,
        "opendp-2911-permute-and-flip-corrected",
        reduced="the two-score noisy max of the reproducer; records move score i by z_i - 1",
        first=(REPRODUCER,)),
    PublishedRow(
        "opendp-2911-permute-and-flip-corrected", "permute-and-flip, scale 1, at rho = "
        "eps^2/2 (an eps-DP mechanism is eps^2/2-zCDP)", OPENDP, _pf, _scores,
        Claim(ZCDP, rho=NOISY_MAX_EPS**2 / 2, shown="rho = eps^2/2 = 2 (eps = 2)"), HOLDS,
        "opendp-2911-permute-and-flip", first=(REPRODUCER,)),
    PublishedRow(
        "opendp-2911-exponential", "the exponential mechanism (report-noisy-max with Gumbel "
        "noise), scale 1, at rho = eps^2/8", OPENDP, _em, _scores,
        Claim(ZCDP, rho=NOISY_MAX_EPS**2 / 8, shown="rho = eps^2/8 = 1/2 (eps = 2)"), HOLDS,
        "opendp-2911-permute-and-flip", first=(REPRODUCER,)),
    PublishedRow(
        "diffprivlib-106-labels-from-data", "a per-class release over classes = np.unique(y)",
        DIFFPRIVLIB, _labels_published, lambda: add_remove(LABEL_RECORDS, 1), _dp(ONE), REFUTED,
        "diffprivlib-106-labels-given",
        reduced="each class's noisy count (discrete Laplace, b = 1/eps) stands for the "
        "per-class fit; the classes are released with the model",
        first=(Neighbour.add(((1,),), (0,)),)),
    PublishedRow(
        "diffprivlib-106-labels-given", "the same release over a label set given by the user",
        DIFFPRIVLIB, _labels_fixed, lambda: add_remove(LABEL_RECORDS, 1), _dp(ONE), HOLDS,
        "diffprivlib-106-labels-from-data"),
    PublishedRow(
        "dpmm-24-domain-imputed", "a synthetic category over a categorical domain imputed from "
        "the data", DPMM, _domain_imputed, lambda: add_remove(LABEL_RECORDS, 1), _dp(ONE),
        REFUTED, "dpmm-24-domain-given",
        reduced="one synthetic record drawn by the exponential mechanism on the category "
        "counts (scale 2/eps) over the domain", first=(Neighbour.add(((0,),), (1,)),)),
    PublishedRow(
        "dpmm-24-domain-given", "the same synthesis over a public categorical domain", DPMM,
        _domain_given, lambda: add_remove(LABEL_RECORDS, 1), _dp(ONE), HOLDS,
        "dpmm-24-domain-imputed"),
    PublishedRow(
        "smartnoise-622-unclipped", "DPcovariance.release on one column, bounds [0, 1], n = 2: "
        "np.cov of the unclipped data", SMARTNOISE, _covariance_unclipped,
        lambda: replace_exact(COVARIANCE_RECORDS, pb.COVARIANCE_N), _dp(ONE), REFUTED,
        "smartnoise-622-clipped", relation=REPLACE_ONE,
        reduced="one column, public n = 2 (databases of 2 values, one replaced), noise "
        "Lap((2/n)(1 - 0)^2/eps): a neighbour brings the value 10",
        first=(COVARIANCE_REPRODUCER,)),
    PublishedRow(
        "smartnoise-622-clipped", "the same release on the data clipped to [0, 1] (the fix)",
        SMARTNOISE, _covariance_clipped,
        lambda: replace_exact(COVARIANCE_RECORDS, pb.COVARIANCE_N), _dp(ONE), HOLDS,
        "smartnoise-622-unclipped", relation=REPLACE_ONE),
    PublishedRow(
        "mbi-65-jam-sensitivity-2", "JAM's selection: the exponential mechanism calibrated to "
        "sensitivity 2 on scores that move by 4", JAM, _jam_published, _scores, _dp(ONE),
        REFUTED, "mbi-65-jam-sensitivity-4",
        reduced="two candidate marginals; a record moves score i by 4(z_i - 1)",
        first=(REPRODUCER,)),
    PublishedRow(
        "mbi-65-jam-sensitivity-4", "the same selection calibrated to sensitivity 4", JAM,
        _jam_fixed, _scores, _dp(ONE), HOLDS, "mbi-65-jam-sensitivity-2"),
    PublishedRow(
        "dpart-6-bounds-from-data", "a noisy histogram on bins between the data's min and max",
        DPART, _bounds_from_data, lambda: add_remove(VALUE_RECORDS, 1), _dp(ONE), REFUTED,
        "dpart-6-bounds-given",
        reduced="PrivBayes's numeric column: a discrete Laplace histogram (b = 1/eps) on the "
        "integer bins between the bounds, released with them",
        first=(Neighbour.add(((1,),), (3,)),)),
    PublishedRow(
        "dpart-6-bounds-given", "the same histogram between public bounds [0, 3]", DPART,
        _bounds_given, lambda: add_remove(VALUE_RECORDS, 1), _dp(ONE), HOLDS,
        "dpart-6-bounds-from-data"),
    PublishedRow(
        "laplace-exact-zcdp", "the Laplace mechanism, eps = 1, at rho = eps + e^(-eps) - 1",
        EXACT_ZCDP, _laplace, lambda: add_remove(COUNT_RECORDS, 2),
        Claim(ZCDP, rho=LAPLACE_EXACT_RHO, shown="rho = eps + e^(-eps) - 1 = e^(-1)"), HOLDS,
        "laplace-below-exact-zcdp"),
    PublishedRow(
        "laplace-below-exact-zcdp", "the Laplace mechanism, eps = 1, at rho = e^(-1) - 1/10^4 "
        "(below the exact bound)", EXACT_ZCDP, _laplace, lambda: add_remove(COUNT_RECORDS, 2),
        Claim(ZCDP, rho=LAPLACE_EXACT_RHO - Fraction(1, 10_000),
              shown="any rho below eps + e^(-eps) - 1"), REFUTED, "laplace-exact-zcdp"),
    PublishedRow(
        "programming-dp-45-book-sigma", "the Gaussian mechanism with the book's sigma at "
        "eps = 10, delta = 10^-5", PDP, _book_gaussian, lambda: add_remove(COUNT_RECORDS, 2),
        _dp(GAUSSIAN_EPS, GAUSSIAN_DELTA), REFUTED, "programming-dp-45-analytic-sigma",
        reduced="sigma = sqrt(2 ln(1.25/delta))/eps rounded up to 969/2000: more noise than "
        "the formula's, so the formula's own sigma is refuted too (delta(eps) falls as sigma "
        "grows)"),
    PublishedRow(
        "programming-dp-45-analytic-sigma", "the Gaussian mechanism with Balle and Wang's "
        "sigma (0.49988... rounded up to 1/2) at eps = 10, delta = 10^-5", PDP,
        _analytic_gaussian, lambda: add_remove(COUNT_RECORDS, 2),
        _dp(GAUSSIAN_EPS, GAUSSIAN_DELTA), HOLDS, "programming-dp-45-book-sigma"),
)


TREE_PUBLISHED = tuple(REPORTS)  # the tree corpus's published pairs (HHH, BinAgg)


def row_named(name: str) -> PublishedRow:
    """The published row called `name` (`KeyError` otherwise)."""
    return {row.name: row for row in PUBLISHED}[name]


def names() -> list[str]:
    """Every published row's name: the field's rows, then the tree corpus's."""
    return [row.name for row in PUBLISHED] + list(TREE_PUBLISHED)


def audit_published_corpus(chosen: Sequence[str] = (), size: int = 0) -> list[Verdict]:
    """Every published row (or those `chosen`), each as a corpus `Verdict` citing its report:
    the field's rows on their own pairs (`audit_published`), the tree corpus's rows (HHH,
    BinAgg) on every pair of databases of at most `size + 1` records (`corpus.audit_row`)."""
    from betweencut.proofs.baselines.corpus_checks.corpus import audit_row
    from betweencut.proofs.baselines.corpus_checks.tree_corpus import TREE_ROWS

    known = names()
    unknown = sorted(set(chosen) - set(known))
    if unknown:
        raise ParameterError("name", unknown[0], f"one of {known}")
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise ParameterError("size", size, "a database size >= 0")
    out = [audit_published(row) for row in PUBLISHED if not chosen or row.name in chosen]
    for tree_row in TREE_ROWS:
        if tree_row.name in TREE_PUBLISHED and (not chosen or tree_row.name in chosen):
            verdict = audit_row(tree_row, size).as_verdict()
            report = REPORTS[tree_row.name]
            verdict.facts["report"] = {"where": report.where, "url": report.url,
                                       "date": report.date, "published": report.published}
            out.append(verdict)
    return out


@claim(CLAIM, "issue 37 corpus")
def check_published_verdicts(rows: Sequence[PublishedRow] = PUBLISHED) -> list[Certificate]:
    """Claim: each published privacy bug of the corpus is a privacy bug, and each fix is
    private, on the pairs its row lists (OpenDP 2911, diffprivlib 106, dpmm 24, smartnoise-sdk
    622, mbi 65, dpart 6, Programming Differential Privacy 45; Harrison and Manurangsi's exact
    zCDP of the Laplace mechanism and a smaller rho).

    Preconditions: each row's mechanism asks its randomness through `betweencut.noise`.
    Checks: each row's claim by exact enumeration of the real code on every pair listed:
    `(eps, delta)` claims by the hockey stick, `rho`-zCDP at every order `alpha > 1`
    (`renyi.zcdp`: a witness order, or the tail/Taylor/interval argument).
    Returns: one `Certificate` per row (`verdict`: the exact verdict, equal to the report's).
    Raises: `ClaimRefuted` naming the first row whose exact verdict disagrees with its
    report's.
    """
    out = []
    for row in rows:
        verdict = audit_published(row)
        if not verdict.facts["agrees"]:
            raise ClaimRefuted(CLAIM, f"{row.name}: exact verdict '{verdict.facts['found']}' "
                               f"against the report's '{row.expected}'",
                               verdict.as_json(with_header=False))
        out.append(Certificate(CLAIM, {"row": row.name, "claim": row.claim.text,
                                       "expected": row.expected, "report": row.report.where},
                               "enumerated", {"verdict": verdict.facts["found"]},
                               scope=f"{verdict.pairs} pair(s), {row.relation.text()}"))
    return out


@register_audit("corpus", CLAIM)
def audit_published_default() -> list[Certificate]:
    return check_published_verdicts()
