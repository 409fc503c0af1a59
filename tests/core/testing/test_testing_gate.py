"""`betweencut.testing` (issue 24): privacy claims as test assertions, decided exactly by
`betweencut.audit_mechanism`, for every mechanism kind; each assertion is also run on a broken
mechanism and must fail with the counterexample and a replay line that reproduces it."""

from __future__ import annotations

import gc
import shlex
import signal
import subprocess
import sys
from fractions import Fraction
from types import ModuleType
from typing import Any

import pytest
from example_modules import load_example

from betweencut.errors import ParameterError
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.noise.noisy_test import BTQuery
from betweencut.proofs.privacy.claims.gallery import GuardsWithoutR, LaplaceScaleLambda
from betweencut.testing import (
    OverBudget,
    assert_heavy_private,
    assert_no_regression,
    assert_private,
)
from betweencut.testing.budget import Budget, check_budget

PAIRS = [("{}", "0/0"), ("{0/0}", "0/1")]
pytestmark = pytest.mark.privacy




@pytest.fixture(scope="module")
def mech() -> ModuleType:
    return load_example("my_mechanism")


@pytest.fixture(scope="module")
def svt() -> ModuleType:
    return load_example("my_svt")


@pytest.fixture(scope="module")
def privtree() -> ModuleType:
    return load_example("my_privtree")


def _failure(call: Any) -> str:
    with pytest.raises(AssertionError) as caught:
        call()
    return str(caught.value)


def _replay(message: str) -> subprocess.CompletedProcess[str]:
    """Run the replay line of a failure message (a command line) and return its result."""
    line = next(x for x in message.splitlines() if x.startswith("replay: "))
    command = line.removeprefix("replay: ")
    cwd = None
    if command.startswith("cd "):
        where, _, command = command.partition(" && ")
        cwd = shlex.split(where)[1]
    words = shlex.split(command)
    assert words[:3] == ["betweencut", "audit", "privacy"], command
    return subprocess.run([sys.executable, "-m", "betweencut", *words[1:]], cwd=cwd,
                          capture_output=True, text=True, check=False, timeout=300)


def test_assert_private_passes_and_refutes_the_doubled_rate_with_a_counterexample(
        mech: ModuleType) -> None:
    verdict = assert_private(mech.flag, "1/2", 0, pairs=PAIRS, height=3)
    assert verdict.holds and verdict.pairs == 2
    message = _failure(lambda: assert_private(mech.flag_v2, "1/2", 0, pairs=PAIRS, height=3))
    lines = message.splitlines()
    assert lines[0].startswith("privacy assertion failed: mechanism = flag_v2")
    assert lines[1] == "REFUTED: not (1/2, 0)-DP on the output"
    assert "pair: D = {}, z = 0/0" in message and "event S" in message
    assert "P_D+z(S) = (1/2)" in message and "P_D(S) = (1/2)*exp(-1)" in message
    assert "> delta = 0" in message
    assert lines[-1].startswith("replay: cd ") and "--mechanism my_mechanism:flag_v2" in message
    done = _replay(message)
    assert done.returncode == 1, done.stderr
    assert "REFUTED: not (1/2, 0)-DP" in done.stdout and "D = {}, z = 0/0" in done.stdout


def test_assert_private_shared_noise_svt_and_its_bug(svt: ModuleType) -> None:
    assert assert_private(svt.svt, 1, 0, exhaustive=1, height=2).holds
    message = _failure(lambda: assert_private(svt.svt_no_query_noise, 1, 0, exhaustive=1,
                                              height=2))
    assert "REFUTED: not (1, 0)-DP on the output" in message
    assert "= 0 ~ 0" in message  # an event impossible under one database
    done = _replay(message)
    assert done.returncode == 1 and "REFUTED" in done.stdout


def test_assert_private_builder_calibrated_and_broken_variants() -> None:
    options: dict[str, Any] = {"height": 3, "tau": 2, "on": "transcript"}
    assert assert_private(BetweenCut, 1, "1/20", pairs=[("{}", "0/0"), ("{0/0}", "0/0")],
                          **options).holds
    for variant in (LaplaceScaleLambda, GuardsWithoutR):
        message = _failure(lambda v=variant: assert_private(v, 1, "1/20", exhaustive=1,
                                                            **options))
        assert "REFUTED: not (1, 1/20)-DP on the transcript" in message
        assert "calibrated = (1, 1/20)" in message
        assert f"--mechanism betweencut.proofs.privacy.claims.gallery:{variant.__name__}" in \
            message and "--tau 2" in message and "replay: cd" not in message
    done = _replay(message)  # the last variant's counterexample, from the command line
    assert done.returncode == 1 and "REFUTED: not (1, 1/20)-DP on the transcript" in done.stdout


def test_assert_private_privtree_and_closed_cells(privtree: ModuleType) -> None:
    pairs = [("{4*2}", "4"), ("{}", "3")]
    assert assert_private(privtree.privtree, 1, 0, pairs=pairs).holds
    message = _failure(lambda: assert_private(privtree.privtree_closed, 1, 0, pairs=pairs))
    assert "REFUTED: not (1, 0)-DP on the output" in message and "D = {4*2}, z = 4" in message
    assert "--on" not in message.splitlines()[-1]  # a PrivTree releases its partition
    done = _replay(message)
    assert done.returncode == 1 and "REFUTED" in done.stdout


def test_assert_private_python_replay_for_a_local_mechanism() -> None:
    def local(db: Any, test: Any) -> Any:
        return test(BTQuery(Fraction(len(db)), Fraction(1), Fraction(2), Fraction(1)))

    message = _failure(lambda: assert_private(local, "1/2", 0, pairs=PAIRS, height=3))
    assert message.splitlines()[-1] == (
        "replay: betweencut.testing.assert_private(test_assert_private_python_replay_for_a_"
        "local_mechanism.<locals>.local, epsilon='1/2', delta=0, pairs=[('{}', '0/0')], "
        "on='output', height=3)")


def test_assert_no_regression_every_kind(mech: ModuleType, svt: ModuleType,
                                         privtree: ModuleType) -> None:
    assert_no_regression(mech.flag, mech.flag_v2, pairs=PAIRS, height=3)
    assert_no_regression(mech.flag, mech.flag, exhaustive=1, height=3)
    message = _failure(lambda: assert_no_regression(mech.flag_v2, mech.flag, pairs=PAIRS,
                                                    height=3))
    assert message.splitlines()[0] == "privacy regression: flag_v2 leaks more than flag " \
                                      "(2 ranges):"
    assert ("D = {}, z = 0/0, on output: candidate delta(eps) > baseline delta(eps) for eps in "
            "(0, 1) (exact: (0, 1)); at eps = 1/2: 0.196735 > 0 (exact: 1/2 - 1/2*exp(-1/2) > "
            "0)") in message and "D = {0/0}, z = 0/1" in message
    assert message.splitlines()[-1].startswith(
        "replay: betweencut.testing.assert_no_regression(my_mechanism.flag_v2, "
        "my_mechanism.flag, pairs=[('{}', '0/0')], on='output', height=3")
    message = _failure(lambda: assert_no_regression(svt.svt_sharp, svt.svt, exhaustive=1,
                                                    height=2))
    assert "svt_sharp leaks more than svt" in message
    assert_no_regression(privtree.privtree, privtree.privtree, pairs=[("{4*2}", "4")])
    message = _failure(lambda: assert_no_regression(privtree.privtree_closed,
                                                    privtree.privtree, pairs=[("{4*2}", "4")]))
    assert "D = {4*2}, z = 4, on output: candidate delta(eps) > baseline" in message
    with pytest.raises(ParameterError, match="pairs= for a PrivTree"):
        assert_no_regression(privtree.privtree, privtree.privtree, exhaustive=2)
    with pytest.raises(ParameterError, match="same kind"):
        assert_no_regression(privtree.privtree, mech.flag, pairs=[("{4*2}", "4")])


def test_assert_no_regression_builder_variant() -> None:
    options: dict[str, Any] = {"height": 3, "tau": 2, "lam": "1/2", "R": 3, "on": "heavy"}
    assert_no_regression(BetweenCut, BetweenCut, pairs=[("{}", "0/0")], **options)
    message = _failure(lambda: assert_no_regression(LaplaceScaleLambda, BetweenCut,
                                                    pairs=[("{}", "0/0")], **options))
    assert "LaplaceScaleLambda leaks more than BetweenCut" in message and "on heavy" in message


def test_heavy_classifier_noiseless_threshold_fails_betweencut_passes() -> None:
    def noiseless(tree: Any, leaves: Any, params: Any, test: Any) -> set[tuple[int, ...]]:
        counts: dict[tuple[int, ...], int] = {}
        for leaf in leaves:
            for d in range(len(leaf) + 1):
                counts[leaf[:d]] = counts.get(leaf[:d], 0) + 1
        return {u for u, c in counts.items() if c >= params.tau}

    def betweencut(tree: Any, leaves: Any, params: Any, test: Any) -> Any:
        return BetweenCut(tree, params).run(leaves, test).heavy

    message = _failure(lambda: assert_heavy_private(noiseless, 1, "1/20"))
    assert "REFUTED: not (1, 1/20)-DP on the output" in message
    assert "P_D(S) = (1) ~ 1" in message and "= 0 ~ 0" in message
    assert "replay: betweencut.testing.assert_heavy_private(" in message
    assert "pairs=[('{0/0}', '0/0')]" in message
    verdict = assert_heavy_private(betweencut, 1, "1/20", pairs=[("{}", "0/0"), ("{0/0}",
                                                                                 "0/0")])
    assert verdict.holds and verdict.pairs == 2
    with pytest.raises(ParameterError, match="heavy_fn"):
        assert_heavy_private(42, 1, "1/20")
    with pytest.raises(ParameterError, match="delta"):
        assert_heavy_private(betweencut, 1, 0)  # Theorem 5.5 calibrates 0 < delta < 1/10


def test_budget_between_pairs_says_how_far_it_got() -> None:
    ticks = iter(range(100))
    budget = Budget(2.5, str, clock=lambda: float(next(ticks)))
    seen = []
    with pytest.raises(OverBudget) as caught:
        budget.run(lambda progress: seen.extend(progress(["a", "b", "c", "d", "e"], 5)))
    assert seen == ["a", "b"]  # the clock reads 1, 2 before them, 3 > 2.5 before "c"
    text = str(caught.value)
    assert text.startswith("too large for the budget of 2.5 s: the deadline passed; 2 of 5 "
                           "pairs audited; ")
    assert Budget(None, str).run(lambda progress: list(progress([1, 2], 2))) == [1, 2]


def test_budget_interrupts_a_long_enumeration_never_a_hang() -> None:
    def twelve_tests(db: Any, test: Any) -> tuple[Any, ...]:
        return tuple(test(BTQuery(Fraction(len(db)), Fraction(1), Fraction(2), Fraction(1, 2)))
                     for _ in range(12))  # 3^12 answer sequences: minutes to enumerate

    # 3 s, not 1, and the heap collected first: alone, the first pair is reached within 0.05 s,
    # but with 1 s this failed once in a full run (its message not kept); a slow start on a
    # loaded machine with a large heap is the suspected cause, not a confirmed one.
    gc.collect()
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0), "a timer left running"
    with pytest.raises(OverBudget, match="too large for the budget of 3 s") as caught:
        assert_private(twelve_tests, 6, 0, pairs=[("{}", "0/0")], height=3, budget_s=3)
    assert "0 of 1 pairs audited" in str(caught.value)
    assert "stopped in pair 1: D = {}, z = 0/0" in str(caught.value)


def test_budget_of_the_enumeration_is_reported_too() -> None:
    def thirty_tests(db: Any, test: Any) -> tuple[Any, ...]:
        return tuple(test(BTQuery(Fraction(len(db)), Fraction(1), Fraction(2), Fraction(1, 2)))
                     for _ in range(30))

    with pytest.raises(OverBudget, match="too large for the budget: the enumeration's budget"):
        assert_private(thirty_tests, 6, 0, pairs=[("{}", "0/0")], height=3)


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), True, "1", 10**9])
def test_budget_bad_values_are_refused(bad: object) -> None:
    with pytest.raises(ParameterError, match="budget_s"):
        check_budget(bad)


def test_assert_private_refuses_a_claim_or_baseline_argument(mech: ModuleType) -> None:
    with pytest.raises(ParameterError, match="claim"):
        assert_private(mech.flag, 1, 0, pairs=PAIRS, height=3, claim=[(1, 0)])
    with pytest.raises(ParameterError, match="baseline"):
        assert_private(mech.flag, 1, 0, pairs=PAIRS, height=3, baseline=mech.flag)
    with pytest.raises(ParameterError, match="pairs"):
        assert_private(mech.flag, 1, 0, height=3)


def test_search_is_derandomised_unless_seeded(mech: ModuleType,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The gate draws nothing by default: a search gives the same pairs on every run whatever
    the Hypothesis profile; a seed (`seed=` or `$BETWEENCUT_SEED`) gives another search, the
    same for that seed, and the failure names it."""
    from betweencut.properties.check import SEED_ENV

    monkeypatch.delenv(SEED_ENV, raising=False)

    def run(**kw: Any) -> str:
        return _failure(lambda: assert_private(mech.flag_v2, "1/2", 0, search=6, height=3,
                                               **kw))

    plain = run()
    assert "pairs: search=6, derandomised (the same pairs on every run)" in plain
    assert run() == plain
    from hypothesis import settings

    from betweencut.properties.settings import load_settings_from_env

    for profile in ("ci", "thorough"):  # whatever HYPOTHESIS_PROFILE says
        settings.load_profile(profile)
        try:
            assert run() == plain
        finally:
            load_settings_from_env()
    seeded = run(seed=7)
    assert "pairs: search=6 seeded with 7 (seed=7, or BETWEENCUT_SEED=7 pytest ..." in seeded
    monkeypatch.setenv(SEED_ENV, "7")
    assert run() == seeded
    with pytest.raises(ParameterError, match="only with search=N"):
        assert_private(mech.flag, 1, 0, pairs=PAIRS, height=3, seed=3)


def test_audit_mechanism_seed_is_checked_and_reproducible(mech: ModuleType,
                                                         privtree: ModuleType) -> None:
    from betweencut.api import audit_mechanism

    def tried(seed: int | None) -> list[str]:
        verdict = audit_mechanism(mech.flag, search=8, height=3, epsilon=1, delta=0, seed=seed,
                                  max_size=2)
        return [f"{r.D} {r.z}" for r in verdict.rows] + [str(verdict.pairs)]

    assert tried(5) == tried(5) and tried(None) == tried(None)
    for bad in (-1, 2**64, True, "3"):
        with pytest.raises(ParameterError, match="seed"):
            audit_mechanism(mech.flag, search=2, height=3, epsilon=1, delta=0, seed=bad)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="seed"):
        audit_mechanism(mech.flag, PAIRS, height=3, epsilon=1, delta=0, seed=1)
    with pytest.raises(ParameterError, match="PrivTree"):
        audit_mechanism(privtree.privtree, search=2, epsilon=1, delta=0, seed=1)


def test_search_pairs_hypothesis_seed_gives_a_reproducible_other_search() -> None:
    from betweencut.proofs.privacy.audit.search import search_pairs
    from betweencut.proofs.privacy.enumeration.cache import LawCache

    def flag(db: Any, test: Any) -> Any:
        return test(BTQuery(Fraction(len(db)), Fraction(1), Fraction(2), Fraction(1, 2)))

    leaves = [(0, 0), (0, 1), (1, 0), (1, 1)]

    def pairs(**kw: Any) -> list[Any]:
        return search_pairs(LawCache(flag), leaves, Fraction(1), Fraction(0), max_size=3,
                            max_examples=12, **kw).tried

    derandomised = pairs()
    assert pairs() == derandomised
    assert pairs(hypothesis_seed=11) == pairs(hypothesis_seed=11)
    assert any(pairs(hypothesis_seed=s) != derandomised for s in (11, 12, 13))
