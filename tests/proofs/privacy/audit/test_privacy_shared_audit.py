"""One audit entry point for both kinds of mechanism (issue 16): `audit_pairs` and
`betweencut audit privacy --mechanism` detect a mechanism that asks the shared-noise primitives
(by what it asks during enumeration) and enumerate it exactly; its curve and `epsilon_at_delta`
come from direct enumeration through the `LawCache.fresh()` hook; regression mode compares two
SVT variants."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Hashable, Iterator
from fractions import Fraction
from pathlib import Path
from types import ModuleType

import pytest

from betweencut.boundary.encoding import release_of
from betweencut.cli import main
from betweencut.errors import ParameterError
from betweencut.noise.noisy_queries import AboveThreshold, DrawNoise, QueryTest
from betweencut.noise.noisy_test import BTQuery, NoisyTest
from betweencut.proofs.baselines.corpus_checks.corpus import CORPUS
from betweencut.proofs.exact.arith import ExpPoly, sign
from betweencut.proofs.privacy.audit.pairs import audit_pairs, pair_curve
from betweencut.proofs.privacy.audit.regression import find_regressions
from betweencut.proofs.privacy.divergence.curve import LogOf
from betweencut.proofs.privacy.enumeration.cache import Database, LawCache, neighbouring_pairs
from betweencut.proofs.privacy.enumeration.shared_noise import QueryLawCache, epsilon_at_delta
from betweencut.proofs.privacy.enumeration.transcripts import ForeignQuery

F = Fraction
EXAMPLES = Path(__file__).resolve().parents[4] / "examples"
TREE = ["--arity", "2", "--height", "2"]
LEAVES = [(0,), (1,)]
SVT_ROWS = [row for row in CORPUS if row.name.startswith(("svt", "noisy-max"))]


@pytest.fixture
def my_svt(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    monkeypatch.syspath_prepend(str(EXAMPLES))
    module = importlib.import_module("my_svt")
    yield module
    sys.modules.pop("my_svt", None)


def _json(capsys: pytest.CaptureFixture[str]) -> dict:  # type: ignore[type-arg]
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def _argv(spec: str, *rest: str) -> list[str]:
    return ["audit", "privacy", "--mechanism", spec, *TREE, *rest]


# --- part 1: one entry point, the kind detected by what the mechanism asks -----------------


def test_audit_mechanism_detects_shared_noise_and_holds(my_svt: ModuleType) -> None:
    cache = LawCache(my_svt.svt)
    verdict = audit_pairs(my_svt.svt, neighbouring_pairs(LEAVES, 2), [(F(1), F(0))],
                              cache=cache)
    assert verdict.holds and verdict.pairs == 12
    assert isinstance(cache.other, QueryLawCache)  # switched at the first DrawNoise
    assert verdict.transcripts == cache.transcripts > 0


def test_audit_mechanism_refutes_the_broken_svt_with_exact_p_and_q(my_svt: ModuleType) -> None:
    verdict = audit_pairs(my_svt.svt_no_query_noise, neighbouring_pairs(LEAVES, 2),
                              [(F(1), F(0))])  # no cache given: the entry point picks the kind
    ref = verdict.refutation
    assert not verdict.holds and ref is not None
    assert (ref.db, ref.z) == ((), (1,))  # q(D) = (0, 0), q(D + z) = (0, 1)
    stick = ref.stick
    assert stick.direction == "D+z||D" and stick.event == (release_of((False, True)),)
    # ⊥ then ⊤ needs 0 < 1 + ρ <= q_2: ρ in (-1, 0] under D + z, impossible under D
    exact_p = ExpPoly.const(F(1, 2)) - ExpPoly.const(F(1, 2)) * ExpPoly.exp(F(-1, 2))
    assert stick.p_event == exact_p and stick.q_event.is_zero()
    cex = verdict.counterexample()
    assert cex is not None and cex["Q"] == "0" and cex["z"] == "1"
    assert cex["direction"] == "D+z||D"  # P is under D + z, Q under D
    assert verdict.epsilon_at_delta() is None  # Q = 0 < P: no finite eps


def test_fresh_noise_mechanisms_keep_their_enumeration(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLES))
    flag = importlib.import_module("my_mechanism").flag
    cache = LawCache(flag)
    assert audit_pairs(flag, neighbouring_pairs([(0, 0), (0, 1)], 1), [(F(1, 2), F(0))],
                           cache=cache).holds
    assert cache.other is None and cache.enumerations


def test_a_mechanism_mixing_both_kinds_is_refused() -> None:
    def mixed(db: Database, test: NoisyTest) -> object:
        first = test(BTQuery(F(len(db)), F(1), F(2), F(1, 2)))
        rho = test(DrawNoise(F(2)))  # type: ignore[call-overload]
        return first, test(AboveThreshold(F(len(db)), F(1), F(2), rho))  # type: ignore[call-overload]

    with pytest.raises(ParameterError, match="mixes"):
        audit_pairs(mixed, [((), (0,))], [(F(1), F(0))])


def test_a_query_of_no_known_kind_is_a_parameter_error() -> None:
    def odd(db: Database, test: NoisyTest) -> object:
        return test("is it large?")  # type: ignore[arg-type]

    with pytest.raises(ParameterError, match="query"):
        audit_pairs(odd, [((), (0,))], [(F(1), F(0))])
    with pytest.raises(ForeignQuery):
        LawCache(odd).law((), "output")  # the fresh-noise law itself cannot answer it


def test_cli_correct_svt_holds(my_svt: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_argv("my_svt:svt", "--exhaustive", "2", "--epsilon", "1", "--delta", "0",
                      "--json")) == 0
    out = _json(capsys)
    assert out["holds"] is True and out["pairs"] == 12 and out["refutation"] is None
    assert out["epsilon_at_delta_exact"].startswith("log(") and 0 < out["epsilon_at_delta"] < 1


def test_cli_broken_svt_refuted_with_pair_event_p_q(
    my_svt: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_argv("my_svt:svt_no_query_noise", "--exhaustive", "2", "--epsilon", "1",
                      "--delta", "0", "--json")) == 1
    out = _json(capsys)
    assert out["holds"] is False and out["epsilon_at_delta_exact"] == "inf"
    w = out["refutation"]
    assert (w["D"], w["z"], w["event"]) == ("{}", "1", ["(False, True)"])
    assert (w["P"], w["Q"]) == ("(-1/2)*exp(-1/2) + (1/2)", "0")
    assert out["worst"]["D"] == "{}" and out["worst"]["z"] == "1"


def test_cli_search_and_plot_on_a_shared_noise_mechanism(
    my_svt: ModuleType, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    plot = tmp_path / "svt.png"
    assert main(["audit", "privacy", "--mechanism", "my_svt:svt_no_query_noise", "--arity", "2",
                 "--height", "3", "--search", "20", "--epsilon", "1", "--delta", "0",
                 "--plot", str(plot)]) == 1
    text = capsys.readouterr().out
    assert "REFUTED" in text and "P_D(S) = 0" in text and plot.stat().st_size > 0


def test_cli_regression_mode_on_two_svt_variants(
    my_svt: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = _argv("my_svt:svt_sharp", "--baseline", "my_svt:svt", "--exhaustive", "1",
                 "--epsilon", "2", "--delta", "0", "--json")
    assert main(argv) == 1  # the claim holds, but it leaks more than the baseline
    out = _json(capsys)
    assert out["holds"] is True and out["regressions"]
    first = out["regressions"][0]
    assert first["candidate_delta"] > first["baseline_delta"]
    assert main(_argv("my_svt:svt", "--baseline", "my_svt:svt_sharp", "--exhaustive", "1",
                      "--epsilon", "2", "--delta", "0", "--json")) == 0
    assert _json(capsys)["regressions"] == []


# --- part 2: curves and epsilon_at_delta from direct enumeration, both kinds ----------------


def _pairs(m: int) -> list[tuple[Database, tuple[int, ...]]]:
    return [((), (2,) * m), ((), (0,) * m), ((), (*(0,) * (m - 1), 2)), (((1,) * m,), (2,) * m)]


def _contains(interval: tuple[Fraction, Fraction] | None, eps: LogOf | None) -> bool:
    """`eps` in the certified `(lo, hi]` of the bisection (`(0, 0)`: exactly 0)."""
    if interval is None or eps is None:
        return interval is None and eps is None
    lo, hi = interval
    if hi == 0:
        return eps.compare(LogOf.rational(0)) == 0
    return LogOf.rational(lo).compare(eps) < 0 <= LogOf.rational(hi).compare(eps)


@pytest.mark.parametrize("row", SVT_ROWS, ids=lambda r: r.name)
@pytest.mark.parametrize("delta", [F(0), F(1, 50)])
def test_curve_and_epsilon_at_delta_agree_with_the_bisection(row, delta) -> None:  # type: ignore[no-untyped-def]
    run = row.mechanism()
    verdict = audit_pairs(run, _pairs(row.m), [(row.eps, delta)])
    worst = verdict.worst
    assert worst is not None
    found = verdict.epsilon_at_delta()
    reference = epsilon_at_delta(run, worst.db, worst.z, delta, width=F(1, 256),
                                 eps_max=F(16))
    assert _contains(reference, found)
    curve = verdict.curve()
    assert curve is not None
    joint = QueryLawCache(run).make_joint(worst.db, worst.z, "output")
    for eps in (F(0), F(1, 3), row.eps, F(5, 2)):  # the curve is the profile, exactly
        assert sign(curve.at(eps) - joint.divergence(eps).delta) == 0
    assert verdict.cache is not None
    for db, z in _pairs(row.m):  # every pair, not only the worst (noisy max: ε_at_δ > 0)
        at = pair_curve(verdict.cache, db, z, "output").epsilon_at_delta(delta)
        assert _contains(epsilon_at_delta(run, db, z, delta, width=F(1, 256), eps_max=F(16)),
                         at)


def test_fresh_hook_returns_a_direct_cache_of_the_same_kind() -> None:
    run = CORPUS[0].mechanism()

    class Lying(QueryLawCache):
        """A shortcut cache whose law is wrong: the curves must not trust it."""

        def exact(self, db: Database, on: str) -> dict[Hashable, ExpPoly]:
            return {"anything": ExpPoly.const(1)}

    lying = Lying(run)
    direct = lying.fresh()
    assert type(direct) is QueryLawCache and direct.query_run is run
    plain = QueryLawCache(run)
    assert plain.fresh() is plain
    db, z = (), (2, 2, 2)
    assert pair_curve(lying, db, z, "output").as_json() == plain.curve(db, z, "output").as_json()
    assert lying.curve(db, z, "output").as_json() != plain.curve(db, z, "output").as_json()
    fresh_noise = LawCache(lambda d, t: len(d))
    assert fresh_noise.fresh() is fresh_noise
    assert type(type("Shortcut", (LawCache,), {})(fresh_noise.run).fresh()) is LawCache


def test_regressions_between_two_corpus_svt_variants() -> None:
    """Lee-Clifton's SVT (Lyu Alg. 4) leaks more than Alg. 1 at the same claimed eps."""
    alg1, alg4 = (next(r for r in CORPUS if r.name == n).mechanism(2)
                  for n in ("svt-alg1", "svt-alg4"))
    pairs = [((), (2, 2)), ((), (0, 2))]
    found = find_regressions(alg4, alg1, pairs)
    assert found and all(sign(r.candidate_delta - r.baseline_delta) > 0 for r in found)
    assert find_regressions(alg1, alg1, pairs) == []


def test_query_law_cache_refuses_bag_laws() -> None:
    cache = QueryLawCache(CORPUS[0].mechanism())
    with pytest.raises(ParameterError, match="fresh-noise"):
        cache.law((), "output")


def _shared_run(db: Database, test: QueryTest) -> bool:
    rho = test(DrawNoise(F(1)))
    return test(AboveThreshold(F(len(db)), F(1), F(1), rho))


def test_the_cli_guard_lets_the_kind_signal_through(monkeypatch: pytest.MonkeyPatch) -> None:
    from betweencut.api.load import guarded

    run = guarded("inline:shared", _shared_run)
    verdict = audit_pairs(run, [((), (0,))], [(F(2), F(0))])
    assert verdict.holds and verdict.epsilon_at_delta() is not None


MIXED = '''
from fractions import Fraction as F
from betweencut.noise.noisy_test import BTQuery
from betweencut.noise.noisy_queries import AboveThreshold, DrawNoise

def mixed(db, test):
    first = test(BTQuery(F(len(db)), F(1), F(2), F(1, 2)))
    rho = test(DrawNoise(F(2)))
    return first, test(AboveThreshold(F(len(db)), F(1), F(2), rho))
'''


def test_cli_mixed_kinds_exit_2_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "mixed_kinds_t.py").write_text(MIXED)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(_argv("mixed_kinds_t:mixed", "--exhaustive", "1", "--epsilon", "1",
                      "--delta", "0")) == 2
    err = capsys.readouterr().err
    assert "mixes" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
