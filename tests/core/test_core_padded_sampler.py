"""The padded GuardedBT draw (issues 18 and 25): the same work for every count in the noisy
band, and exactly BT's law (Alg. 4).

Work: given the same random stream, every count in the band `floor(a - R) < c < ceil(b + R)`
makes the same calls for random bits, of the same sizes, in the same order, and executes the
same lines of the sampler (a counting random source and a line trace). The unpadded draw fails
the same test (it can fail).

Law, exactly, at three levels, all on the real code and exact `ExpPoly` arithmetic:
* each `Table` (the inversion draws): its first `w` random bits enumerated, the rare refinement
  scripted at its exact probability, gives `P(value >= j) = θ_j`; its stored floors are
  certified floors of `2^W·θ_j` (the exact sign gate);
* `padded_bt_outcome` with its tables' draws scripted, every vector (sign, values) with its exact
  probability, gives BT's exact law (`betweencut.proofs.laws.bt_laws.exact_law`) at every count;
* end to end on the h = 15 query: every value of the draw's one random call enumerated.
Deliberately wrong floors, thresholds and caps are rejected. The refinement is checked by
chi-square, stored floors against floors computed anew (the fast path answers to the slow one),
and the whole draw by chi-square against the Laplace law.
"""

from __future__ import annotations

import dataclasses
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

import betweencut.noise.bernoulli
import betweencut.noise.padded_sampler as padded
from betweencut.errors import ParameterError
from betweencut.mechanism.calibration import calibrate
from betweencut.mechanism.guarded_bt import GuardedBT
from betweencut.noise.bt_sampler import ExactSampler
from betweencut.noise.noisy_test import BTQuery, Outcome
from betweencut.noise.padded_sampler import CHUNK, Padding, Table, padded_bt_outcome
from betweencut.numbers.exact import LogReal
from betweencut.proofs.exact.arith import ExpPoly
from betweencut.proofs.laws.bt_laws import exact_law

SEED = 20261130


def calibrated(height: int, eps: object, tau: int) -> GuardedBT:
    p = calibrate(height, eps, "0.05").params(tau)
    return GuardedBT.of(p.a, p.b, p.R, p.lam)


def calibrated_query() -> GuardedBT:
    """The calibrated h = 15 query of the issue: ε = 1, δ = 1/20, τ = 30 (band 8..52)."""
    return calibrated(15, 1, 30)


QUERIES = {
    "h15": calibrated_query,
    "fractional": lambda: GuardedBT.of(F(61, 3), F(47, 2), LogReal(F(3, 2)), F(3, 2)),
    "a_equals_b": lambda: GuardedBT.of(F(10), F(10), LogReal(F(5)), F(2, 7)),
    "wide_den": lambda: GuardedBT.of(F(100, 11), F(120, 7), LogReal(F(4)), F(5, 13)),
    "offsets": lambda: calibrated(15, "37/100", 300),  # l = λ·D = 37^3: F has two offsets
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
    for seed in range(SEED, SEED + (2 if name == "offsets" else 6)):  # offsets: 119 counts
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
    files = {padded.__file__, betweencut.noise.bernoulli.__file__}

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
def theta_times(table: Table, j: int) -> ExpPoly:
    """`θ_j·(1 - e^(-β))` (`θ_0 = 1`, `θ_(K+1) = 0`; the factor is 1 when `β` is absent): every
    threshold of a table over one common denominator, exactly."""
    tail = ExpPoly.const(0) if table.beta is None else ExpPoly.exp(-table.beta)
    if j == 0:
        return 1 - tail
    if j > len(table.alphas):
        return ExpPoly.const(0)
    return ExpPoly.exp(-table.alphas[j - 1]) - tail


def denominator(table: Table) -> ExpPoly:
    return theta_times(table, 0)


def floors_certified(table: Table) -> bool:
    """Exact check (the `ExpPoly` sign gate) that every stored floor is `floor(2^W·θ_j)`:
    `0 < 2^W·θ_j - F_j < 1`, and that `floor_at` past `W` (computed anew) is one too."""
    def is_floor(j: int, k: int, f: int) -> bool:
        scaled = theta_times(table, j + 1) * (1 << k)
        den = denominator(table)
        return (scaled - den * f).sign() > 0 and (den * (f + 1) - scaled).sign() > 0

    deeper = table.precision + CHUNK
    return all(is_floor(j, table.precision, f) and is_floor(j, deeper, table.floor_at(j, deeper))
               for j, f in enumerate(table.floors))


def table_law_by_bits(table: Table,
                      monkeypatch: pytest.MonkeyPatch) -> list[ExpPoly] | None:
    """`P(value = j)·2^w·(1 - e^(-β))` of the real `Table.value`, by enumerating its first `w`
    random bits; where it reads more (`U` shares its cell with `θ_(j+1)`), `_below` is scripted
    with its exact probability `2^w·θ_(j+1) - u` (checked by sampling below). None if such a
    weight is not a probability (the sum alone would telescope to `θ_j` for any cells)."""
    law = [ExpPoly.const(0) for _ in range(len(table.alphas) + 1)]
    den = denominator(table)
    for u in range(1 << table.width):
        asked: list[int] = []
        monkeypatch.setattr(padded, "_below", lambda t, j, v, b, a=asked: a.append(j) or False)
        j = table.value(u, no_bits)
        if not asked:
            law[j] = law[j] + den
            continue
        true_weight = theta_times(table, j + 1) * (1 << table.width) - den * u
        if true_weight.sign() < 0 or (den - true_weight).sign() < 0:
            return None
        law[j] = law[j] + den - true_weight
        law[j + 1] = law[j + 1] + true_weight
    return law


def no_bits(k: int) -> int:
    raise AssertionError("no further random bits expected")


def table_law_matches(table: Table, monkeypatch: pytest.MonkeyPatch) -> bool:
    law = table_law_by_bits(table, monkeypatch)
    scale = 1 << table.width
    return law is not None and all(
        law[j] == (theta_times(table, j) - theta_times(table, j + 1)) * scale
        for j in range(len(law)))


def plan_of(query: GuardedBT) -> Padding:
    return Padding.of(query.a, query.b, query.lam, (query.lower_cut, query.upper_cut))


def tables(plan: Padding) -> list[Table]:
    return [table for table, _ in plan.tables]


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_every_table_has_exactly_its_law_and_certified_floors(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    plan = plan_of(QUERIES[name]())
    for table in tables(plan):
        assert floors_certified(table), (name, table.alphas)
        if table.width <= 16:
            assert table_law_matches(table, monkeypatch), (name, table.alphas)


def test_table_checks_reject_a_wrong_floor_and_a_wrong_threshold(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests can fail: a stored floor one too high; cells of other thresholds, or of the
    right ones one digit too fine."""
    (table,) = tables(plan_of(calibrated_query()))
    floors = list(table.floors)
    floors[3] += 1
    assert not floors_certified(dataclasses.replace(table, floors=tuple(floors)))
    shifted = Table.of(tuple(x + F(1, 1000) for x in table.alphas), None)
    assert not table_law_matches(dataclasses.replace(shifted, alphas=table.alphas), monkeypatch)
    finer = tuple(-(f >> (table.precision - table.width - 1)) for f in table.floors)
    assert not table_law_matches(dataclasses.replace(table, cells=finer), monkeypatch)


def composed_law(query: BTQuery, plan: Padding,
                 monkeypatch: pytest.MonkeyPatch) -> tuple[dict[Outcome, ExpPoly], ExpPoly]:
    """The exact output law of the real `padded_bt_outcome`, its tables' draws scripted: every
    vector (sign, one value per table) with its exact probability `Π P(value)`, over the common
    denominator `2·Π (1 - e^(-β))` (returned beside the numerators summed per outcome)."""
    law = {s: ExpPoly.const(0) for s in Outcome}
    common = ExpPoly.const(2)
    for table in tables(plan):
        common = common * denominator(table)
    ranges = [range(len(t.alphas) + 1) for t in tables(plan)]
    for sign, *values in itertools.product((0, 1), *ranges):
        weight = ExpPoly.const(1)
        for table, j in zip(tables(plan), values, strict=True):
            weight = weight * (theta_times(table, j) - theta_times(table, j + 1))
        script = iter(values)
        monkeypatch.setattr(Table, "value", lambda self, u, b, s=script: next(s))
        outcome = padded_bt_outcome(query, plan, lambda k, s=sign: s)
        law[outcome] = law[outcome] + weight
    return law, common


def law_matches(query: BTQuery, plan: Padding, monkeypatch: pytest.MonkeyPatch) -> bool:
    law, common = composed_law(query, plan, monkeypatch)
    expected = exact_law(query)
    return all(law[s] == expected.get(s, ExpPoly.const(0)) * common for s in Outcome)


def some_counts(query: GuardedBT, name: str) -> list[int]:
    counts = list(band(query))
    return counts if name == "h15" else counts[:: max(1, len(counts) // 6)] + counts[-1:]


@pytest.mark.parametrize("name", ["a_equals_b", "fractional", "h15", "offsets"])
def test_padded_draw_has_exactly_bt_law_for_every_count_in_the_band(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    query = QUERIES[name]()
    plan = plan_of(query)
    for count in some_counts(query, name):
        assert law_matches(query.query(count), plan, monkeypatch), (name, count)


def test_padded_draw_has_exactly_bt_law_with_several_digits(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`V` in base 4 (three digit tables for the h = 15 query, two of them truncated): the digits
    recombine to exactly BT's law."""
    monkeypatch.setattr(padded, "DIGIT_BITS", 2)
    query = calibrated_query()
    plan = plan_of(query)
    assert len(plan.tables) == 3 and tables(plan)[0].beta is not None
    for table in tables(plan):
        assert table_law_matches(table, monkeypatch)
    for count in some_counts(query, "digits"):
        assert law_matches(query.query(count), plan, monkeypatch), count


def test_exact_law_check_rejects_a_plan_capped_too_low(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test can fail: `V` capped one below `ceil(T/l)` merges two outcomes, the law is wrong;
    so does a plan that forgets the offsets of `F`."""
    query = calibrated_query()
    plan = plan_of(query)
    ((top, adds),) = plan.tables
    capped = Table.of(top.alphas[:-1], None)
    short = dataclasses.replace(plan, tables=((capped, adds[:-1]),), word_bits=1 + capped.width)
    assert not law_matches(query.query(query.lower_cut + 1), short, monkeypatch)
    query = QUERIES["offsets"]()
    plan = plan_of(query)
    assert len(plan.tables) == 2 and tables(plan)[0].beta == query.lam  # F's table, then V's
    blind = dataclasses.replace(plan, tables=plan.tables[1:],
                                word_bits=plan.word_bits - tables(plan)[0].width)
    assert not all(law_matches(query.query(c), blind, monkeypatch)
                   for c in some_counts(query, "offsets"))


def test_padded_draw_law_by_enumerating_its_random_bits(monkeypatch: pytest.MonkeyPatch) -> None:
    """End to end on the h = 15 query: every value of the draw's one `word_bits`-bit call, with
    only the rare refinement scripted at its exact probability, gives exactly BT's law."""
    query = calibrated_query()
    plan = plan_of(query)
    (table,) = tables(plan)
    assert table.beta is None and plan.word_bits == 1 + table.width <= 14
    for count in (query.lower_cut + 1, 26, 30, 34, query.upper_cut - 1):
        law = {s: ExpPoly.const(0) for s in Outcome}
        for word in range(1 << plan.word_bits):
            answer: list[bool] = []
            monkeypatch.setattr(padded, "_below", lambda t, j, v, b, a=answer: a[0])
            u = word >> 1
            cell = [j for j, f in enumerate(table.cells) if -f == u]
            weights = [(False, ExpPoly.const(1))]
            if cell:
                true = ExpPoly.exp(-table.alphas[cell[0]]) * (1 << table.width) - u
                weights = [(False, 1 - true), (True, true)]
            for ans, weight in weights:
                answer[:] = [ans]
                outcome = padded_bt_outcome(query.query(count), plan, lambda k, w=word: w)
                law[outcome] = law[outcome] + weight
        expected = exact_law(query.query(count))
        scale = 1 << plan.word_bits
        assert all(law[s] == expected.get(s, ExpPoly.const(0)) * scale for s in Outcome), count


# -- the fast path answers to the slow one -----------------------------------------------------
@pytest.mark.parametrize(("name", "digit_bits"), [("h15", 12), ("h15", 3), ("offsets", 12),
                                                  ("wide_den", 12)])
def test_stored_floors_agree_with_floors_computed_anew(
        name: str, digit_bits: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Stored floors (powers of one certified `e^(-s)` in a digit table, base 8 giving one with a
    `β`) equal each threshold's floor certified on its own, at every precision used."""
    monkeypatch.setattr(padded, "DIGIT_BITS", digit_bits)
    plan = plan_of(QUERIES[name]())
    assert digit_bits == 12 or any(t.beta is not None and len(t.alphas) >= 4
                                   for t in tables(plan))
    for table in tables(plan):
        for j, alpha in enumerate(table.alphas[:40]):
            for k in (table.width, table.width + CHUNK, table.precision):
                assert table.floor_at(j, k) == padded.threshold_floor(alpha, table.beta, k)
        assert floors_certified(table)


def test_refinement_from_stored_floors_agrees_with_floors_computed_on_demand() -> None:
    """A table that stores its floors only to its width computes every refined digit anew:
    given the same stream it reads the same bits and returns the same values."""
    (table,) = tables(plan_of(calibrated_query()))
    bare = dataclasses.replace(table, precision=table.width,
                               floors=tuple(-c for c in table.cells))
    for j, cell in enumerate(table.cells):
        for seed in range(40):
            streams = [CountingBits(seed), CountingBits(seed)]
            values = [t.value(-cell, s) for t, s in zip((table, bare), streams, strict=True)]
            assert values[0] == values[1] and values[0] in (j, j + 1)
            assert streams[0].calls == streams[1].calls


# -- by sampling --------------------------------------------------------------------------------
@pytest.mark.parametrize("j", [0, 5, 20])
def test_refinement_frequencies(j: int) -> None:
    """`_below` in `θ_(j+1)`'s cell: True with probability `2^w·θ_(j+1) - u`."""
    (table,) = tables(plan_of(calibrated_query()))
    u = -table.cells[j]
    rng = random.Random(SEED + j)
    observed = draw(lambda: padded._below(table, j, u, rng.getrandbits))
    with mpmath.workdps(50):
        alpha = table.alphas[j]
        p = float(mpmath.exp(-mpmath.mpf(alpha.numerator) / alpha.denominator)
                  * 2**table.width - u)
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
