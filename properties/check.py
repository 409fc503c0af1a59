"""`check_implementation`: run every structural property against a user's classifier.

What `classify_fn` must be: a callable

    classify_fn(tree: PublicTree, leaves: Sequence[Node], params: Params, test: NoisyTest)
        -> RunRecord

that runs Alg. 3 on the public `tree` (`betweencut.data.tree`) for the database `leaves` (one leaf
node per record) with public `params` (`betweencut.mechanism.params.Params`: τ, λ, R), asks
**every** randomized decision through `test` (a `BTQuery` per BT call, Alg. 4), and returns a record
with the shape of `betweencut.mechanism.betweencut.Run`: `heavy`, `transcript` (every queried node
with its answer, guards included), `assignments` (the marking log `(node, previous, new)`) and
`labels`. `betweencut.mechanism.betweencut.between_cut` is such a function.

The `test` answers the first queries from a script Hypothesis draws (any answer sequence is
possible under Laplace noise, and the structural claims hold for every one), then by exact
seeded draws; failing inputs are shrunk and reported with the claim they break.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings
from hypothesis import strategies as st

from betweencut.data.tree import Node, PublicTree
from betweencut.errors import BetweenCutError, ParameterError
from betweencut.mechanism.params import Params
from betweencut.noise.noisy_test import NoisyTest
from betweencut.properties import settings as _named  # registers dev/ci/thorough/mutation
from betweencut.properties.coupling import PROPOSITION_D_1, check_proposition_d_1
from betweencut.properties.margin import THEOREM_C_2, check_theorem_c_2
from betweencut.properties.predicates import (
    DEPO,
    LEMMA_4_2,
    LEMMA_4_3,
    LEMMA_B_1,
    LEMMA_B_2,
    LEMMA_B_3,
    check_depo,
    check_lemma_4_2,
    check_lemma_4_3,
    check_lemma_b_1,
    check_lemma_b_2,
    check_lemma_b_3,
)
from betweencut.properties.strategies import DEPO_H15, Case, cases, paper_cases
from betweencut.properties.violation import PropertyViolation, RunRecord

ClassifyFn = Callable[[PublicTree, Sequence[Node], Params, NoisyTest], RunRecord]
DepoFn = Callable[[int], Sequence[int]]

RUN_PROPERTIES: dict[str, Callable[[Case, RunRecord], None]] = {
    LEMMA_B_1: lambda c, run: check_lemma_b_1(c.tree, run),
    LEMMA_4_2: lambda c, run: check_lemma_4_2(c.tree, run),
    LEMMA_4_3: lambda c, run: check_lemma_4_3(run),
    LEMMA_B_2: lambda c, run: check_lemma_b_2(c.tree, c.leaves, run),
    LEMMA_B_3: lambda c, run: check_lemma_b_3(c.tree, run),
    THEOREM_C_2: lambda c, run: check_theorem_c_2(c.tree, c.leaves, c.params, run),
}
ALL_CLAIMS = (*RUN_PROPERTIES, PROPOSITION_D_1, DEPO)
_INPUT = "betweencut_input"


@dataclass(frozen=True)
class PropertyResult:
    """The outcome of one claim: passed, or the shrunk violation (or crash) with the input."""

    claim: str
    passed: bool
    violation: PropertyViolation | None = None
    error: BaseException | None = None
    falsifying: str = ""
    replay: str = ""

    def line(self) -> str:
        if self.passed:
            return f"PASS  {self.claim}"
        what = self.violation or self.error
        text = f"FAIL  {self.claim}: {what!s}"
        text += f"\n      input: {self.falsifying}" if self.falsifying else ""
        return text + (f"\n      replay: {self.replay}" if self.replay else "")


@dataclass(frozen=True)
class Report:
    """Every claim checked, in order; `ok` when all passed."""

    results: tuple[PropertyResult, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        return all(r.passed for r in self.results)

    @property
    def failed_claims(self) -> list[str]:
        return [r.claim for r in self.results if not r.passed]

    def summary(self) -> str:
        return "\n".join(r.line() for r in self.results)

    def raise_if_failed(self) -> None:
        if not self.ok:
            raise ImplementationFailed(self)


class ImplementationFailed(BetweenCutError, AssertionError):
    """`check_implementation(..., raise_on_failure=True)` found claims that fail."""

    def __init__(self, report: Report) -> None:
        self.report = report
        super().__init__(
            f"claims failing: {', '.join(report.failed_claims)}\n{report.summary()}"
        )


SEED_ENV = "BETWEENCUT_SEED"


def _settings_from_env() -> settings:
    """The Hypothesis profile named by `$HYPOTHESIS_PROFILE` (ours are registered on import:
    `dev`, `ci`, `thorough`, `mutation`), else the current default: so `HYPOTHESIS_PROFILE=ci`
    makes the suite deterministic in a user's project too, without loading anything."""
    name = os.environ.get(_named.ENV_VAR)
    if not name:
        return settings()
    try:
        found: settings = settings.get_profile(name)
    except Exception:
        raise ParameterError(_named.ENV_VAR, name,
                             f"a registered Hypothesis profile, e.g. {list(_named.NAMES)}"
                             ) from None
    return found


def choose_seed(given_seed: int | None, derandomize: bool) -> int | None:
    """The seed a search runs with: the one given, else `$BETWEENCUT_SEED`, else (unless the run
    is derandomised) a fresh random one, so every failure can be replayed exactly."""
    if given_seed is not None:
        if isinstance(given_seed, bool) or not isinstance(given_seed, int):
            raise ParameterError("seed", repr(given_seed), "an int (or None)")
        return given_seed
    env = os.environ.get(SEED_ENV)
    if env:
        try:
            return int(env)
        except ValueError:
            raise ParameterError(SEED_ENV, env, "an integer seed") from None
    return None if derandomize else random.SystemRandom().getrandbits(32)


def probe_settings(max_examples: int | None, derandomize: bool) -> settings:
    base = settings(
        _settings_from_env(), database=None, deadline=None, report_multiple_bugs=False,
        verbosity=Verbosity.quiet,
        phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    if derandomize:
        base = settings(base, derandomize=True)
    return base if max_examples is None else settings(base, max_examples=max_examples)


Decorator = Callable[[Callable[..., None]], Callable[..., None]]


def seeded(conf: settings, chosen: int | None) -> Decorator:
    """The settings, and `hypothesis.seed(chosen)` when a seed is used."""

    def apply(test: Callable[..., None]) -> Callable[..., None]:
        out = conf(test)
        return seed(chosen)(out) if chosen is not None and not conf.derandomize else out

    return apply


def replay_line(fn: object, claims: Sequence[str], conf: settings, chosen: int | None,
                entry: str = "check_implementation") -> str:
    """One line that re-runs exactly this search (same examples, same shrink)."""
    name = getattr(fn, "__name__", "classify_fn")
    options = f"claims={list(claims)!r}, max_examples={conf.max_examples}"
    if conf.derandomize:
        return f"{entry}({name}, {options}, derandomize=True)"
    return (f"{entry}({name}, {options}, seed={chosen})   "
            f"# or: {SEED_ENV}={chosen} pytest ...")


def probe_claim(claim: str, body: Callable[[], None]) -> PropertyResult:
    """Run one Hypothesis test; turn its shrunk failure into a `PropertyResult`."""
    try:
        body()
    except PropertyViolation as exc:
        return PropertyResult(claim, False, exc, None, getattr(exc, _INPUT, ""))
    except Exception as exc:  # the user's code crashed, or Hypothesis found it flaky
        return PropertyResult(claim, False, None, exc, getattr(exc, _INPUT, ""))
    return PropertyResult(claim, True)


def tag_failure(exc: BaseException, shown: object) -> None:
    """Attach the (shrunk) input to the exception Hypothesis will re-raise."""
    setattr(exc, _INPUT, shown if isinstance(shown, str) else repr(shown))


def then_pinned(search: Callable[[], None], check: Callable[[Case], None]) -> Callable[[], None]:
    """The Hypothesis search first (so a failure is shrunk), then the paper's pinned cases
    (`paper_cases()`), which a search of small inputs may not reach."""

    def both() -> None:
        search()
        for case in paper_cases():
            try:
                check(case)
            except Exception as exc:
                tag_failure(exc, case)
                raise

    return both


def _run_claim(claim: str, classify_fn: ClassifyFn, conf: settings,
               chosen: int | None = None) -> PropertyResult:
    check = RUN_PROPERTIES[claim]

    @seeded(conf, chosen)
    @given(case=cases())
    def probe(case: Case) -> None:
        try:
            check(case, classify_fn(case.tree, list(case.leaves), case.params, case.test()))
        except Exception as exc:
            tag_failure(exc, case)
            raise

    return probe_claim(claim, then_pinned(probe, lambda case: check(
        case, classify_fn(case.tree, list(case.leaves), case.params, case.test()))))


def _run_coupling(classify_fn: ClassifyFn, conf: settings,
                  chosen: int | None = None) -> PropertyResult:
    def dense(tree: PublicTree, leaves: Sequence[Node], params: Params,
              test: NoisyTest) -> RunRecord:
        return classify_fn(tree, list(leaves), params, test)

    @seeded(conf, chosen)
    @given(case=cases(sparse=True))
    def probe(case: Case) -> None:
        try:
            check_proposition_d_1(case.tree, case.leaves, case.params, case.test, dense=dense)
        except Exception as exc:
            tag_failure(exc, case)
            raise

    return probe_claim(PROPOSITION_D_1, then_pinned(probe, lambda case: check_proposition_d_1(
        case.tree, case.leaves, case.params, case.test, dense=dense)))


def _run_depo(depo_fn: DepoFn, conf: settings, chosen: int | None = None) -> PropertyResult:
    def check(height: int) -> None:
        try:
            check_depo(list(depo_fn(height)), height)
        except Exception as exc:
            tag_failure(exc, f"h = {height}")
            raise

    @seeded(conf, chosen)
    @given(height=st.integers(1, 64))
    def probe(height: int) -> None:
        check(height)

    def both() -> None:
        probe()
        check(DEPO_H15[0])  # the paper's worked example, DepO(0, 14)

    return probe_claim(DEPO, both)


def check_implementation(
    classify_fn: ClassifyFn,
    *,
    claims: Iterable[str] | None = None,
    depo_fn: DepoFn | None = None,
    max_examples: int | None = None,
    derandomize: bool = False,
    seed: int | None = None,
    raise_on_failure: bool = False,
) -> Report:
    """Check `classify_fn` against every applicable structural claim and report which fail.

    Claims: Lemma B.1, 4.2, 4.3, B.2, B.3 and Theorem C.2 on arbitrary trees, databases,
    parameters and answer sequences; Proposition D.1 against the reference sparse
    implementation (`τ >= E` inputs); DepO (Alg. 2) on `depo_fn(h)`, `h = 1..64`, when given.
    Each claim is a separate Hypothesis search and its failure is shrunk. Settings: the profile
    named by `$HYPOTHESIS_PROFILE` (`ci` is derandomised) or the loaded one; `max_examples`
    overrides; `derandomize=True` runs the same examples every time; `seed=S` (or
    `$BETWEENCUT_SEED`) runs the random search from seed `S`. Without either a fresh seed is
    drawn, and every failure's `replay` line names the call that repeats it exactly.
    Returns a `Report`; with `raise_on_failure=True` raises `ImplementationFailed` instead.
    """
    chosen = list(ALL_CLAIMS if claims is None else claims)
    unknown = [c for c in chosen if c not in ALL_CLAIMS]
    if unknown:
        raise ParameterError("claims", unknown, f"a subset of {list(ALL_CLAIMS)}")
    if not callable(classify_fn):
        raise ParameterError("classify_fn", classify_fn, "a callable (tree, leaves, params, test)")
    conf = probe_settings(max_examples, derandomize)
    used = choose_seed(seed, bool(conf.derandomize))
    results: list[PropertyResult] = []
    for claim in chosen:
        if claim in RUN_PROPERTIES:
            result = _run_claim(claim, classify_fn, conf, used)
        elif claim == PROPOSITION_D_1:
            result = _run_coupling(classify_fn, conf, used)
        elif depo_fn is not None:
            result = _run_depo(depo_fn, conf, used)
        else:
            continue
        if not result.passed:
            result = replace(result, replay=replay_line(classify_fn, [claim], conf, used))
        results.append(result)
    report = Report(tuple(results))
    if raise_on_failure:
        report.raise_if_failed()
    return report
