"""The property suite in a user's project (issue 12): deterministic when asked, a replay line on
every failure, the first differing query named, and the Heavy-set-only checks."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import pytest
from hypothesis import settings

from betweencut.data.tree import Node, PublicTree, kary_tree
from betweencut.mechanism.betweencut import BetweenCut, between_cut
from betweencut.mechanism.guarded_bt import BT, GuardedBT
from betweencut.mechanism.params import Params
from betweencut.noise.noisy_test import BTQuery, NoisyTest
from betweencut.properties.broken import STRUCTURAL_MUTANTS, classifier
from betweencut.properties.check import SEED_ENV, check_implementation
from betweencut.properties.coupling import first_differing_query
from betweencut.properties.heavy_only import (
    ANCESTOR_CLOSURE,
    check_ancestor_closed,
    check_heavy_classifier,
)
from betweencut.properties.pytest_plugin import (  # noqa: F401  (fixtures)
    betweencut_check,
    betweencut_heavy_check,
)
from betweencut.properties.settings import ENV_VAR
from betweencut.properties.violation import PropertyViolation

D_1 = "Proposition D.1"


class DoubledLambda(BetweenCut):
    """Noise rate 2λ instead of λ: every noisy query is asked with the wrong rate."""

    def make_query(self) -> BT:
        p = self.params
        return GuardedBT.of(p.a, p.b, p.R, 2 * p.lam)


class ShiftedThresholds(BetweenCut):
    """Thresholds `a + 1/2`, `b + 1/2` (the guards unchanged)."""

    def make_query(self) -> BT:
        p = self.params
        half = Fraction(1, 2)
        q = GuardedBT.of(p.a, p.b, p.R, p.lam)
        return GuardedBT(p.a + half, p.b + half, p.lam, p.R, q.lower_cut, q.upper_cut)


NO_MARKUP, NO_MARKUP_CLAIM = STRUCTURAL_MUTANTS["no MarkUp on B"]


# A profile that is random whatever profile the suite loaded (a profile that leaves
# `derandomize` unset may inherit it from the loaded one).
RANDOM_PROFILE = "betweencut-replay-test"
settings.register_profile(RANDOM_PROFILE, derandomize=False, deadline=None, max_examples=30)


def test_same_seed_same_failure_and_the_replay_line_replays_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A random run names its seed; the replayed call finds the same shrunk input. (Under a
    random profile: CI's `ci` profile is derandomised, see the next test.)"""
    monkeypatch.setenv(ENV_VAR, RANDOM_PROFILE)
    fn = classifier(NO_MARKUP)
    first = check_implementation(fn, claims=[NO_MARKUP_CLAIM], max_examples=30)
    (result,) = first.results
    assert not result.passed and "replay: check_implementation(" in result.line()
    seed = int(result.replay.split("seed=")[1].split(")")[0])
    again = check_implementation(fn, claims=[NO_MARKUP_CLAIM], max_examples=30, seed=seed)
    assert again.results[0].falsifying == result.falsifying
    assert str(again.results[0].violation) == str(result.violation)


def test_hypothesis_profile_ci_in_the_environment_derandomises(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`HYPOTHESIS_PROFILE=ci` works without a conftest: runs are identical, the replay line
    says `derandomize=True`; an unknown profile name is a `ParameterError`."""
    monkeypatch.setenv(ENV_VAR, "ci")
    fn = classifier(NO_MARKUP)
    runs = [check_implementation(fn, claims=[NO_MARKUP_CLAIM], max_examples=20)
            for _ in range(2)]
    assert runs[0].results[0].falsifying == runs[1].results[0].falsifying
    assert "derandomize=True" in runs[0].results[0].replay
    monkeypatch.setenv(ENV_VAR, "no-such-profile")
    with pytest.raises(ValueError, match=ENV_VAR):
        check_implementation(fn, claims=[NO_MARKUP_CLAIM], max_examples=5)


def test_seed_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, RANDOM_PROFILE)
    monkeypatch.setenv(SEED_ENV, "1234")
    report = check_implementation(classifier(NO_MARKUP), claims=[NO_MARKUP_CLAIM],
                                  max_examples=20)
    assert "seed=1234" in report.results[0].replay
    with pytest.raises(ValueError, match="seed"):
        check_implementation(between_cut, claims=[NO_MARKUP_CLAIM], seed="7")  # type: ignore[arg-type]


@pytest.mark.parametrize("variant, how", [
    (DoubledLambda, "rate lambda: dense"),
    (ShiftedThresholds, "thresholds (a, b): dense"),
])
def test_proposition_d_1_names_the_first_differing_query(variant: type[BetweenCut],
                                                         how: str) -> None:
    """A doubled λ (which passed 2 of 14 default runs before) is caught on every run now: the
    queries themselves are compared, and the message says which query and how it differs."""
    for seed in (0, 1):
        report = check_implementation(classifier(variant), claims=[D_1], max_examples=30,
                                      seed=seed)
        (result,) = report.results
        assert not result.passed and result.violation is not None
        assert "noisy query #" in str(result.violation) and how in str(result.violation)


def test_first_differing_query_reports_count_and_a_missing_query() -> None:
    q = BTQuery(Fraction(2), Fraction(0), Fraction(4), Fraction(1), (0,))
    r = BTQuery(Fraction(3), Fraction(0), Fraction(4), Fraction(1), (0,))
    assert "count: dense 2, sparse 3" in first_differing_query([q], [r])
    assert "asked by the dense run only" in first_differing_query([q, q], [q])
    assert first_differing_query([q], [q]) == ""
    zero = BTQuery(Fraction(0), Fraction(0), Fraction(4), Fraction(1), (1,))
    assert first_differing_query([zero, q], [q]) == ""  # zero-count queries are deleted


def _heavy(variant: type[BetweenCut]):  # type: ignore[no-untyped-def]
    def heavy(tree: PublicTree, leaves: Sequence[Node], params: Params,
              test: NoisyTest) -> frozenset[Node]:
        return variant(tree, params).run(leaves, test).heavy

    return heavy


def test_heavy_only_checks_pass_alg_3_and_catch_any_classifier_that_breaks_them() -> None:
    """Ancestor closure and Theorem C.2 from the Heavy set alone: our classifier passes; the
    unguarded one breaks Theorem C.2; one that drops the root breaks the closure."""
    ok = check_heavy_classifier(_heavy(BetweenCut), max_examples=30, derandomize=True)
    assert ok.ok, ok.summary()
    unguarded, _ = STRUCTURAL_MUTANTS["no guards"]
    bad = check_heavy_classifier(_heavy(unguarded), max_examples=30, derandomize=True)
    assert bad.failed_claims == ["Theorem C.2"], bad.summary()

    def rootless(tree: PublicTree, leaves: Sequence[Node], params: Params,
                 test: NoisyTest) -> list[Node]:
        return [u for u in between_cut(tree, leaves, params, test).heavy if u]

    cut = check_heavy_classifier(rootless, claims=[ANCESTOR_CLOSURE], max_examples=30,
                                 derandomize=True)
    assert cut.failed_claims == [ANCESTOR_CLOSURE]
    assert "replay: check_heavy_classifier(rootless" in cut.summary()


def test_lemma_b_1_heavy_only_ancestor_closure_rejects_foreign_nodes() -> None:
    tree = kary_tree(2, 3)
    check_ancestor_closed(tree, [(), (1,), (1, 0)])
    with pytest.raises(PropertyViolation, match="not a node of the tree"):
        check_ancestor_closed(tree, [(), (2,)])
    with pytest.raises(PropertyViolation, match="ancestor-closed"):
        check_ancestor_closed(tree, [(), (1, 0)])


def test_plugin_failure_prints_the_replay_line(betweencut_check, betweencut_heavy_check) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    with pytest.raises(pytest.fail.Exception, match="replay: check_implementation"):
        betweencut_check(classifier(NO_MARKUP), claims=[NO_MARKUP_CLAIM], max_examples=20,
                         seed=3)
    unguarded, _ = STRUCTURAL_MUTANTS["no guards"]
    with pytest.raises(pytest.fail.Exception, match="replay: check_heavy_classifier"):
        betweencut_heavy_check(_heavy(unguarded), max_examples=30, derandomize=True)
