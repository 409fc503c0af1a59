"""The padded GuardedBT draw (issue 18): the same work for every count in the noisy band, and
exactly BT's law (Alg. 4).

Work: given the same random stream, every count in the band `floor(a - R) < c < ceil(b + R)`
makes the same calls for random bits, of the same sizes, in the same order, and executes the
same lines of the sampler (a counting random source and a line trace). The unpadded draw fails
the same test (it can fail).

Law, exactly: `padded_bt_outcome` is run with its two Bernoulli primitives replaced by scripted
answers, every answer vector enumerated with its exact probability (`ExpRational`), and the sum
per outcome compared with BT's exact law (`betweencut.proofs.laws.bt_laws.exact_law`). The
primitives themselves are checked by chi-square (`bernoulli_exp` in `test_core_sampler.py`, the
ratio draw here), and the whole draw by chi-square against the Laplace law.
"""

from __future__ import annotations

import itertools
import random
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction as F
from types import FrameType
from typing import Any

import mpmath
import pytest
from test_core_sampler import bt_law, chi_square_verdict, draw

import betweencut.bernoulli
import betweencut.padded_sampler as padded
from betweencut.calibration import calibrate
from betweencut.errors import ParameterError
from betweencut.exact import LogReal
from betweencut.guarded_bt import GuardedBT
from betweencut.noisy_test import BTQuery, Outcome
from betweencut.padded_sampler import Padding, padded_bt_outcome
from betweencut.proofs.exact.arith import ExpPoly
from betweencut.proofs.laws.bt_laws import exact_law
from betweencut.sampler import ExactSampler

SEED = 20261130


def calibrated_query() -> GuardedBT:
    """The calibrated h = 15 query of the issue: ε = 1, δ = 1/20, τ = 30 (band 8..52)."""
    p = calibrate(15, 1, "0.05").params(30)
    return GuardedBT.of(p.a, p.b, p.R, p.lam)


QUERIES = {
    "h15": calibrated_query,
    "fractional": lambda: GuardedBT.of(F(61, 3), F(47, 2), LogReal(F(3, 2)), F(3, 2)),
    "a_equals_b": lambda: GuardedBT.of(F(10), F(10), LogReal(F(5)), F(2, 7)),
    "wide_den": lambda: GuardedBT.of(F(100, 11), F(120, 7), LogReal(F(4)), F(5, 13)),
}


class CountingBits:
    """A seeded `getrandbits` that records the size of every request (the work, in bits)."""

    def __init__(self, seed: int) -> None:
        self.inner = random.Random(seed).getrandbits
        self.calls: list[int] = []

    def __call__(self, k: int) -> int:
        self.calls.append(k)
        return self.inner(k)


def counted_draws(query: GuardedBT, count: int, seed: int, padded_draw: bool,
                  n: int = 8) -> tuple[list[Outcome], list[int]]:
    """`n` draws of `query(count)` from one seeded stream: outcomes and bit requests."""
    sampler = ExactSampler(seed, padded=padded_draw)
    bits = CountingBits(seed)
    sampler.bits = bits
    return [query(count, sampler) for _ in range(n)], bits.calls


def band(query: GuardedBT) -> range:
    return range(query.lower_cut + 1, query.upper_cut)


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_padded_draw_reads_the_same_bits_for_every_count_in_the_band(name: str) -> None:
    query = QUERIES[name]()
    for seed in range(SEED, SEED + 6):
        reference = None
        for count in band(query):
            _, calls = counted_draws(query, count, seed, padded_draw=True)
            if reference is None:
                reference = calls
            assert calls == reference, f"{name}: count {count} reads other bits (seed {seed})"


def test_unpadded_draw_reads_count_dependent_bits() -> None:
    """The test can fail: today's draw (padded=False) reads more bits far from a threshold."""
    query = calibrated_query()
    seen = {tuple(counted_draws(query, c, SEED, padded_draw=False)[1]) for c in band(query)}
    assert len(seen) > 1


@contextmanager
def line_trace(events: list[tuple[str, int]]) -> Iterator[None]:
    """Record every line executed in the sampler's modules (`padded_sampler`, `bernoulli`)."""
    files = {padded.__file__, betweencut.bernoulli.__file__}

    def local(frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        if event == "line":
            events.append((frame.f_code.co_name, frame.f_lineno))
        return local

    def outer(frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        return local if frame.f_code.co_filename in files else None

    sys.settrace(outer)
    try:
        yield
    finally:
        sys.settrace(None)


@pytest.mark.parametrize("name", ["h15", "fractional"])
def test_padded_draw_executes_the_same_lines_for_every_count_in_the_band(name: str) -> None:
    query = QUERIES[name]()
    reference = None
    for count in band(query):
        events: list[tuple[str, int]] = []
        with line_trace(events):
            counted_draws(query, count, SEED, padded_draw=True, n=4)
        if reference is None:
            reference = events
        assert events == reference, f"{name}: count {count} executes other lines"
    assert reference  # the trace saw the sampler


def test_unpadded_draw_executes_count_dependent_lines() -> None:
    query = calibrated_query()
    traces = set()
    for count in (query.lower_cut + 1, 30, query.upper_cut - 1):
        events: list[tuple[str, int]] = []
        with line_trace(events):
            counted_draws(query, count, SEED, padded_draw=False, n=4)
        traces.add(tuple(events))
    assert len(traces) > 1


# -- the law, exactly ---------------------------------------------------------------------------
def _exp(num: int, den: int) -> ExpPoly:
    return ExpPoly.exp(F(-num, den))


def enumerated_law(query: BTQuery, plan: Padding,
                   monkeypatch: pytest.MonkeyPatch) -> tuple[dict[Outcome, ExpPoly], ExpPoly]:
    """The exact output law of the real `padded_bt_outcome`, its Bernoulli primitives scripted:
    every vector of answers (sign, m digits, tail) with its exact probability. Every vector's
    probability has the same denominator `2·Π(1 + q_i)`: returned once, beside the numerators
    summed per outcome (exact `ExpPoly` arithmetic, no quotient grows)."""
    law = {s: ExpPoly.const(0) for s in Outcome}
    qs = [_exp(num, den) for num, den in plan.exponents]
    tail = _exp(*plan.tail)
    common = ExpPoly.const(2)
    for q in qs:
        common = common * (q + 1)
    for sign, *answers in itertools.product((0, 1), *[(False, True)] * (plan.digits + 1)):
        script = iter(answers)
        weight = tail if answers[-1] else 1 - tail
        for q, bit in zip(qs, answers, strict=False):
            if bit:
                weight = weight * q
        monkeypatch.setattr(padded, "_bernoulli_ratio", lambda n, d, b, s=script: next(s))
        monkeypatch.setattr(padded, "bernoulli_exp_bits", lambda n, d, b, s=script: next(s))
        outcome = padded_bt_outcome(query, plan, lambda k, s=sign: s)
        law[outcome] = law[outcome] + weight
    return law, common


def law_matches(query: BTQuery, plan: Padding, monkeypatch: pytest.MonkeyPatch) -> bool:
    law, common = enumerated_law(query, plan, monkeypatch)
    expected = exact_law(query)
    return all(law[s] == expected.get(s, ExpPoly.const(0)) * common for s in Outcome)


@pytest.mark.parametrize("name", ["a_equals_b", "fractional", "h15"])  # 2^(m+2) answer vectors
def test_padded_draw_has_exactly_bt_law_for_every_count_in_the_band(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    query = QUERIES[name]()
    plan = Padding.of(query.a, query.b, query.lam, (query.lower_cut, query.upper_cut))
    counts = list(band(query))
    for count in (counts if name == "h15" else counts[:: max(1, len(counts) // 6)] + counts[-1:]):
        assert law_matches(query.query(count), plan, monkeypatch), (name, count)


def test_exact_law_check_rejects_a_plan_with_too_few_digits(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The test can fail: one digit too few caps `N` below a threshold, and the law is wrong."""
    query = calibrated_query()
    plan = Padding.of(query.a, query.b, query.lam, (query.lower_cut, query.upper_cut))
    short = Padding(plan.band, plan.den, plan.a_scaled, plan.b_scaled, plan.lam_scaled,
                    plan.exponents[:-1], padded._pair(F(1 << (plan.digits - 1), plan.den)))
    assert not law_matches(query.query(query.lower_cut + 1), short, monkeypatch)


# -- by sampling --------------------------------------------------------------------------------
@pytest.mark.parametrize(("num", "den"), [(1, 4), (1, 1), (4, 1), (7, 3)])
def test_bernoulli_ratio_frequencies(num: int, den: int) -> None:
    rng = random.Random(SEED)
    observed = draw(lambda: padded._bernoulli_ratio(num, den, rng.getrandbits))
    with mpmath.workdps(50):
        q = mpmath.exp(-mpmath.mpf(num) / den)
        p = float(q / (1 + q))
    assert chi_square_verdict(observed, {True: p, False: 1 - p}, 20_000) == ""


@pytest.mark.parametrize("name", ["fractional", "a_equals_b"])
def test_padded_guarded_bt_frequencies_match_the_laplace_law(name: str) -> None:
    query = QUERIES[name]()
    counts = list(band(query))
    for i, count in enumerate((counts[0], counts[len(counts) // 2], counts[-1])):
        sampler = ExactSampler(SEED + i)
        observed = draw(lambda c=count, s=sampler: query(c, s), 10_000)
        law = bt_law(F(count), query.a, query.b, query.lam)
        assert chi_square_verdict(observed, law, 10_000) == "", f"{name} c={count}"


# -- the seam -----------------------------------------------------------------------------------
def test_guarded_bt_states_its_band_and_the_band_is_not_part_of_the_query() -> None:
    query = calibrated_query()
    asked = query.query(30)
    assert asked.band == (query.lower_cut, query.upper_cut)
    assert asked == BTQuery(F(30), query.a, query.b, query.lam)  # band: compare=False


def test_padded_draw_refuses_a_count_outside_its_band() -> None:
    query = calibrated_query()
    plan = Padding.of(query.a, query.b, query.lam, (query.lower_cut, query.upper_cut))
    for count in (F(query.lower_cut), F(query.upper_cut), F(61, 2)):
        bt = BTQuery(count, query.a, query.b, query.lam, None, plan.band)
        with pytest.raises(ParameterError):
            padded_bt_outcome(bt, plan, random.Random(0).getrandbits)


def test_plain_bt_queries_and_the_opt_out_draw_unpadded() -> None:
    """A query with no band, and `padded=False`, take today's draw (pinned seeded stream)."""
    query = calibrated_query()
    plain = BTQuery(F(30), query.a, query.b, query.lam)
    assert [ExactSampler(7)(plain) for _ in range(3)] == [
        ExactSampler(7, padded=False)(plain) for _ in range(3)]
    with pytest.raises(ParameterError):
        ExactSampler(7, padded=1)  # type: ignore[arg-type]
    assert Counter(ExactSampler(3, padded=False)(query.query(30)) for _ in range(50))
