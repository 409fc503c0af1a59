"""Gaussian noise on the proof path: the closed forms against the package's certified hockey
stick (each with a wrong input it must reject), Gaussian SVT and noisy max through
`audit_mechanism`, and the exact release sampler against the certified laws."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Hashable
from fractions import Fraction as F

import pytest

from betweencut.baselines.svt_corpus import (
    Grid,
    gaussian_noisy_max,
    gaussian_on_grid,
    gaussian_svt,
    gaussian_svt_no_query_noise,
    query_answers,
)
from betweencut.boundary.encoding import release_of
from betweencut.errors import ParameterError
from betweencut.noise.noisy_queries import (
    GAUSSIAN,
    AboveThreshold,
    DrawNoise,
    ExactQuerySampler,
    QueryTest,
)
from betweencut.proofs import ClaimRefuted
from betweencut.proofs.baselines.corpus_checks.corpus import CORPUS
from betweencut.proofs.baselines.corpus_checks.gaussian_mechanisms import (
    EPS_POINTS,
    check_analytic_gaussian_mechanism,
    check_discrete_gaussian_mechanism,
)
from betweencut.proofs.exact.enclosure import Enclosure
from betweencut.proofs.laws.continuous_gaussian import analytic_gaussian_delta, flint_available
from betweencut.proofs.laws.discrete_gaussian import cks_delta
from betweencut.proofs.privacy.audit.pairs import audit_pairs
from betweencut.proofs.privacy.divergence.joint import epsilon_for_delta
from betweencut.proofs.privacy.enumeration.cache import Database, LawCache
from betweencut.proofs.privacy.enumeration.gaussian_noise import (
    GaussianLawCache,
    enumerate_certified,
)
from betweencut.proofs.privacy.enumeration.shared_noise import QueryLawCache, enumerate_queries

pytestmark = pytest.mark.skipif(not flint_available(), reason="python-flint (fast extra)")
M = 3
PAIRS = [((), z) for z in itertools.product((0, 1, 2), repeat=M)]


def svt(db: Database, test: QueryTest) -> Hashable:
    return gaussian_svt(query_answers(db, M), (F(0),) * M, F(1, 2), F(1), test)


def svt_broken(db: Database, test: QueryTest) -> Hashable:
    return gaussian_svt_no_query_noise(query_answers(db, M), (F(0),) * M, F(1, 2), test)


# --- the closed forms (one test per claim, each with a wrong input) ---------------------------


def test_analytic_gaussian_mechanism_balle_wang_theorem_8() -> None:
    certs = check_analytic_gaussian_mechanism()
    assert [c.parameters["eps"] for c in certs] == list(EPS_POINTS)
    assert all(c.method == "interval" for c in certs)
    for cert in certs:
        lo, hi = cert.quantities["enclosure"]  # type: ignore[misc]
        assert hi - lo < F(1, 10**2)  # a narrow enclosure, O(h²) from the grid's crossing cell
    halved = F(3, 4)  # the closed form at sigma/2: a wrong claim, rejected
    with pytest.raises(ClaimRefuted, match="Balle, Wang"):
        check_analytic_gaussian_mechanism(
            closed_form=lambda eps: analytic_gaussian_delta(eps, halved, F(1)))


@pytest.mark.parametrize("sigma", [F(1, 2), F(1)])
def test_analytic_gaussian_mechanism_at_small_sigma_is_decided_at_the_default_grid(
        sigma: F) -> None:
    """sigma <= 1 (sensitivity 1) was refused at the default grid ("limit = 402": the random
    walks' estimate of the binary search's 402 answer sequences came out above it)."""
    certs = check_analytic_gaussian_mechanism(sigma=sigma, eps_points=(F(0), F(1), F(4)))
    assert [c.parameters["sigma"] for c in certs] == [sigma] * 3
    with pytest.raises(ClaimRefuted, match="Balle, Wang"):
        check_analytic_gaussian_mechanism(
            sigma=sigma, eps_points=(F(1),),
            closed_form=lambda eps: analytic_gaussian_delta(eps, sigma / 2, F(1)))


def test_discrete_gaussian_mechanism_cks_theorem_7() -> None:
    certs = check_discrete_gaussian_mechanism()
    assert len(certs) == len(EPS_POINTS)
    for cert in certs:
        lo, hi = cert.quantities["enclosure"]  # type: ignore[misc]
        assert hi - lo < F(1, 2**60)  # certified equal to within 2^-60
    with pytest.raises(ClaimRefuted, match="Canonne"):
        check_discrete_gaussian_mechanism(closed_form=lambda eps: cks_delta(eps, F(1), 1))
    with pytest.raises(ClaimRefuted):  # a wrong sensitivity in the closed form
        check_discrete_gaussian_mechanism(closed_form=lambda eps: cks_delta(eps, F(2), 2))


def test_the_grid_pair_is_enclosed_from_both_sides() -> None:
    """The enclosure's two ends come from different computations: the lower one is the grid's
    hockey stick (a lower bound by post-processing), the upper one the likelihood-ratio bound;
    the closed form lies between them at an ε whose crossing point is inside a cell."""
    from betweencut.proofs.baselines.corpus_checks.gaussian_pairs import GaussianGridPair

    pair = GaussianGridPair(F(1), F(1), steps=8)
    eps = F(1, 3)
    lower = pair.joint.divergence(eps).delta.enclose(64)
    upper = pair._upper(eps, True).maximum(pair._upper(eps, False)).enclose(64)
    closed = analytic_gaussian_delta(eps, F(1), F(1)).enclose(64)
    assert lower[1] < closed[0] <= closed[1] < upper[0]


# --- Gaussian SVT and noisy max through audit_mechanism --------------------------------------


def test_audit_mechanism_detects_gaussian_noise_and_decides() -> None:
    cache = LawCache(svt)
    verdict = audit_pairs(svt, PAIRS, [(F(1), F(1, 4))], cache=cache)
    assert isinstance(cache.other, GaussianLawCache)  # switched at the first DrawNoise
    assert verdict.pairs == len(PAIRS)
    assert verdict.holds
    refuted = audit_pairs(svt, PAIRS, [(F(1), F(1, 100))])
    assert not refuted.holds and refuted.counterexample() is not None
    cex = refuted.counterexample()
    assert cex is not None and cex["excess_exact"].startswith("[")  # a certified enclosure


def test_gaussian_svt_without_query_noise_has_an_exactly_impossible_event() -> None:
    verdict = audit_pairs(svt_broken, PAIRS, [(F(4), F(1, 10))])
    ref = verdict.refutation
    assert ref is not None and not verdict.holds
    assert ref.stick.q_event.is_zero()  # Q = 0 exactly (a structural zero), P > 0
    p_lo, _ = Enclosure.of(ref.stick.p_event).enclose(64)
    assert p_lo > F(1, 10)


def test_identical_laws_are_decided_exactly_at_eps_zero() -> None:
    """A record that moves no query gives the same law: δ(0) = 0 exactly, not undecided."""
    cache = GaussianLawCache(svt)
    joint = cache.make_joint((), (1, 1, 1), "output")
    assert joint.divergence(F(0)).delta.is_zero()
    found = epsilon_for_delta(cache.make_joint((), (2, 2, 0), "output"), F(0), F(1, 8), F(16))
    assert found is not None and F(3) < found[1] <= F(7, 2)  # the largest pure loss, ~3.36


def test_the_exact_kind_refuses_gaussian_queries_and_mixed_groups_are_refused() -> None:
    with pytest.raises(ParameterError, match="Gaussian"):
        QueryLawCache(svt).make_joint((), (0, 0, 0), "output")

    def mixed(test: QueryTest) -> Hashable:
        rho = test(DrawNoise(F(1), GAUSSIAN))
        return test(AboveThreshold(F(0), F(0), F(1), rho))  # Laplace ν against a Gaussian ρ

    with pytest.raises(ParameterError, match="mixing"):
        enumerate_certified(mixed)
    curve = GaussianLawCache(svt).curve((), (0, 0, 0), "output")  # certified, not refused
    assert curve.certified and curve.bits == 64


def test_laplace_mechanisms_stay_exact_in_the_gaussian_kind() -> None:
    """The Gaussian kind keeps Laplace factors exact: the same values as the exact kind."""
    row = next(r for r in CORPUS if r.name == "svt-alg1")
    run = row.mechanism()
    exact = enumerate_queries(lambda test: run((), test)).values
    certified = enumerate_certified(lambda test: run((), test)).values
    assert exact == certified


# --- the release path answers to the proof path -----------------------------------------------


def _frequencies_match(run: object, law: dict[object, Enclosure], n: int, seed: int) -> None:
    sampler = ExactQuerySampler(seed=seed)
    counts = Counter(release_of(run(sampler)) for _ in range(n))  # type: ignore[operator]
    for output, value in law.items():
        lo, hi = value.enclose(64)
        p = float((lo + hi) / 2)  # display precision suffices for a 5-sd frequency test
        sd = (p * (1 - p) / n) ** 0.5
        assert abs(counts[output] / n - p) <= 5 * sd + 1e-9, (output, counts[output], p)
    assert set(counts) <= set(law)


def _as_enclosures(values: dict[Hashable, object]) -> dict[object, Enclosure]:
    return {o: Enclosure.of(v) for o, v in values.items()}  # type: ignore[arg-type]


def test_release_sampler_matches_the_certified_gaussian_svt_law() -> None:
    q = (F(0), F(1), F(-1))

    def run(test: QueryTest) -> Hashable:
        return gaussian_svt(q, (F(0),) * 3, F(1, 2), F(1), test)

    law = _as_enclosures(enumerate_certified(run).values)
    _frequencies_match(run, law, 1500, seed=7)


def test_release_sampler_matches_the_certified_gaussian_noisy_max_law() -> None:
    q = (F(0), F(1), F(3, 2))

    def run(test: QueryTest) -> Hashable:
        return gaussian_noisy_max(q, F(3, 2), test)

    law = _as_enclosures(enumerate_certified(run).values)
    _frequencies_match(run, law, 1500, seed=11)


def test_release_sampler_matches_the_gaussian_mechanism_on_a_grid() -> None:
    grid = Grid(tuple(F(k, 2) for k in range(-4, 5)))

    def run(test: QueryTest) -> Hashable:
        return gaussian_on_grid(F(1, 3), grid, F(1), test)

    law = _as_enclosures(enumerate_certified(run).values)
    assert set(law) == {release_of(j) for j in range(len(grid.points) + 1)}
    _frequencies_match(run, law, 1500, seed=13)
    with pytest.raises(ParameterError):
        Grid((F(1), F(1)))


def test_a_users_gaussian_mechanism_in_the_corpus_is_audited_with_certified_laws() -> None:
    """`audit corpus --mechanism` hands over code without a kind: a Gaussian one is detected
    and decided with certified laws (pure claim `(ε, 0)`: its pairs' largest loss is below 1
    here, above 1/2)."""
    from betweencut.proofs.baselines.corpus_checks.corpus import audit_row, user_row

    def mine(q: tuple[F, ...], test: QueryTest) -> Hashable:
        rho = test(DrawNoise(F(1), GAUSSIAN))
        return tuple(test(AboveThreshold(x, F(0), F(2), rho, GAUSSIAN)) for x in q)

    holds = audit_row(user_row("mine", mine, 2, F(1)))
    assert holds.holds and holds.as_verdict().facts["noise"] == "gaussian"
    refuted = audit_row(user_row("mine", mine, 2, F(1, 2)))
    assert not refuted.holds and refuted.refutation is not None


# --- a user's Gaussian mechanism through every entry point (examples/my_gaussian_svt.py) ------


def _svt_law(q: tuple[int, int], rho: F = F(1, 2), nu: F = F(1)) -> dict[Hashable, float]:
    """An independent oracle: the output law of the example's SVT on counts `q` by mpmath
    quadrature over the shared draw (threshold 1, cutoff 1; 40 digits)."""
    import mpmath

    s_rho = mpmath.mpf(rho.numerator) / rho.denominator
    s_nu = mpmath.mpf(nu.numerator) / nu.denominator

    def above(count: int, r: object) -> object:  # P(count + nu >= 1 + r)
        return mpmath.ncdf((count - 1 - r) / s_nu)

    def law(f: object) -> float:
        return float(mpmath.quad(lambda r: mpmath.npdf(r, 0, s_rho) * f(r),  # type: ignore[operator]
                                 [-mpmath.inf, 0, mpmath.inf]))

    with mpmath.workdps(40):
        return {(True,): law(lambda r: above(q[0], r)),
                (False, True): law(lambda r: (1 - above(q[0], r)) * above(q[1], r)),
                (False, False): law(lambda r: (1 - above(q[0], r)) * (1 - above(q[1], r)))}


def _loss(p: dict[Hashable, float], q: dict[Hashable, float]) -> float:
    import math

    return max(abs(math.log(p[o] / q[o])) for o in p)


@pytest.fixture
def gaussian_example(monkeypatch: pytest.MonkeyPatch) -> None:
    from pathlib import Path

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[4] / "examples"))


def test_a_gaussian_svt_gets_a_verdict_through_the_cli_the_api_and_assert_private(
        gaussian_example: None, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue case 3: the pair's epsilon at delta = 0 (the largest loss over the outputs) is
    enclosed by the certified interval the verdict gives; the oracle is mpmath quadrature."""
    import json

    from betweencut.api import audit_mechanism
    from betweencut.cli import main
    from betweencut.testing import assert_private

    argv = ["audit", "privacy", "--mechanism", "my_gaussian_svt:svt", "--arity", "2",
            "--height", "2", "--exhaustive", "1", "--epsilon", "2", "--delta", "0", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    verdict = audit_mechanism("my_gaussian_svt:svt", exhaustive=1, arity=2, height=2,
                              epsilon=2, delta=0)
    assert verdict.holds and verdict.facts["epsilon_at_delta_certified"] == \
        out["epsilon_at_delta_certified"]
    assert "certified, not exact" in verdict.text()
    pair = out["epsilon_at_delta_pair"]
    assert (pair["D"], pair["z"]) == ("{0}", "0")
    oracle = _loss(_svt_law((1, 0)), _svt_law((2, 0)))
    low, high = out["epsilon_at_delta_certified"]["in"]
    assert low - 1e-12 <= oracle <= high + 1e-12 and high - low < 1e-9
    assert assert_private("my_gaussian_svt:svt", 2, 0, exhaustive=1, arity=2, height=2).holds
    with pytest.raises(AssertionError, match="REFUTED"):
        assert_private("my_gaussian_svt:svt", 1, 0, exhaustive=1, arity=2, height=2)


def test_a_gaussian_regression_is_certified_and_none_is_found_where_there_is_none(
        gaussian_example: None) -> None:
    """Half the query noise leaks more (certified ranges); the other way round, and against
    itself, there is no regression (decided, not undecided)."""
    from betweencut.testing import assert_no_regression

    options = {"exhaustive": 1, "arity": 2, "height": 2}
    with pytest.raises(AssertionError, match="privacy regression"):
        assert_no_regression("my_gaussian_svt:svt_sharp", "my_gaussian_svt:svt", **options)
    assert_no_regression("my_gaussian_svt:svt", "my_gaussian_svt:svt_sharp", **options)
    assert_no_regression("my_gaussian_svt:svt", "my_gaussian_svt:svt", **options)


def test_a_gaussian_mechanism_is_refused_by_a_snapshot_with_one_line(
        gaussian_example: None) -> None:
    from betweencut.testing import pair_curves

    with pytest.raises(ParameterError, match="certified enclosures"):
        pair_curves("my_gaussian_svt:svt", [((), (0,))], arity=2, height=2)


@pytest.mark.parametrize("eps", [F(710), F(10**12), F(2**4096 - 1)])
def test_a_gaussian_claim_at_a_huge_epsilon_holds(gaussian_example: None, eps: F) -> None:
    """e^eps is never enclosed by rationals past e^(prec + 64): above that only its lower bound
    is used, which is all a certainly negative term needs (it was 'too large to enclose')."""
    from betweencut.api import audit_mechanism

    verdict = audit_mechanism("my_gaussian_svt:svt", exhaustive=1, arity=2, height=2,
                              epsilon=eps, delta=0)
    assert verdict.holds and verdict.exit_status == 0
