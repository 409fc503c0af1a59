"""Issue 27, item 1: every neighbouring input decided at once by the monotone-vertex reduction
(`betweencut.proofs.privacy.enumeration.every_input`), tested equal to listing every pair where
both run (principle 8), refused on mechanisms that are not oblivious (never a wrong verdict)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest

from betweencut.errors import ParameterError
from betweencut.noise.answers import DataDependent, QueryAnswer, symbols
from betweencut.noise.noisy_queries import AboveThreshold, DrawNoise, ExactQuerySampler, NoisyMax
from betweencut.proofs.baselines.corpus_checks.corpus import (
    CORPUS,
    audit_corpus,
    audit_row,
    user_row,
)
from betweencut.proofs.baselines.corpus_checks.corpus_rows import CorpusRow, pairs_for
from betweencut.proofs.exact.arith import ExpPoly, sign
from betweencut.proofs.privacy.enumeration.every_input import (
    Box,
    ReductionRefused,
    cross_check,
    decide_families,
)
from betweencut.proofs.privacy.enumeration.shared_noise import ExactJoint, QueryLawCache
from betweencut.proofs.verdict import Relation

ROWS = {row.name: row for row in CORPUS}
LAPLACE_ROWS = ("svt-alg1", "svt-alg2", "svt-alg4", "svt-alg5", "svt-alg6", "noisy-max",
                "noisy-max-small-scale")


def _listed_largest(row: CorpusRow, relation: Relation) -> tuple[ExpPoly, ExpPoly]:
    """The largest `P(o)/Q(o)` over every pair listed, by direct enumeration of the real code."""
    cache = QueryLawCache(row.mechanism())
    best: tuple[ExpPoly, ExpPoly] | None = None
    for pair in pairs_for(row, 0, relation):
        joint = cache.pair_joint(pair, "output")
        assert isinstance(joint, ExactJoint)
        for o in joint.outputs:
            po, qo = joint.p.get(o, ExpPoly()), joint.q.get(o, ExpPoly())
            for p, q in ((po, qo), (qo, po)):
                if not q.is_zero() and (best is None or sign(p * best[1] - best[0] * q) > 0):
                    best = (p, q)
    assert best is not None
    return best


def _boxes(m: int, relation: Relation) -> tuple[Box, Box]:
    if relation.is_replace:
        return Box((0,) * m, (1,) * m), Box((0,) * m, (1,) * m)
    return Box((0,) * m, (0,) * m), Box((-1,) * m, (1,) * m)


@pytest.mark.parametrize("neighbours", ["add-remove", "replace-one"])
@pytest.mark.parametrize(("name", "m"), [(n, m) for n in LAPLACE_ROWS for m in (2, 3)]
                         + [("svt-alg1", 4), ("noisy-max", 4)])
def test_every_input_reduction_equals_the_listing_of_every_pair(name: str, m: int,
                                                                 neighbours: str) -> None:
    """Principle 8: the same verdict, the same evidence, and the same largest loss (exactly),
    whether every pair is listed or every input is decided at once."""
    row = replace(ROWS[name], m=m)
    listed = audit_row(row, neighbours=neighbours, method="listing")
    reduced = audit_row(row, neighbours=neighbours, method="reduction")
    assert (reduced.holds, reduced.agrees, reduced.verdict) == (
        listed.holds, listed.agrees, listed.verdict)
    assert reduced.pairs == listed.pairs and reduced.detail["method"] == "reduction"
    relation = Relation.of(neighbours)
    extremes = decide_families(row.make(m), m, *_boxes(m, relation))
    found = extremes.largest_loss()
    assert found is not None
    p, q = _listed_largest(row, relation)
    assert sign(found.p * q - p * found.q) == 0  # the largest loss over every pair, exactly
    if not reduced.holds:
        assert reduced.refutation is not None and listed.refutation is not None
        assert sign(reduced.refutation.delta) > 0  # its pair is refuted by the real code


@pytest.mark.slow
@pytest.mark.parametrize("name", ["svt-alg1", "noisy-max", "svt-alg4"])
def test_every_input_reduction_equals_the_listing_at_m_6(name: str) -> None:
    row = replace(ROWS[name], m=6)
    listed = audit_row(row, method="listing")
    reduced = audit_row(row, method="reduction")
    assert (reduced.holds, reduced.agrees, reduced.verdict, reduced.pairs) == (
        listed.holds, listed.agrees, listed.verdict, listed.pairs)


def test_svt_alg1_decides_every_input_of_16_queries() -> None:
    [result] = audit_corpus(names=("svt-alg1",), queries=16)
    out = result.as_json()
    assert result.holds and result.agrees and out["queries"] == 16
    assert out["method"] == "reduction" and out["pairs"] == 3**16
    assert out["largest_loss"]["moves"].count("-1") == 2  # two ⊤ answers pulled up, 14 ⊥ down


def _shared_noise_max(q: tuple[Fraction, ...], test: Any) -> int:
    return int(ROWS["noisy-max-shared-noise"].make(len(q))(q, test))  # type: ignore[arg-type]


def _caught(q: tuple[Fraction, ...], test: Any) -> tuple[bool, ...]:
    """Reads a value and swallows the refusal: the tripwire still records it."""
    rho = test(DrawNoise(Fraction(2)))
    try:
        shift = Fraction(1) if q[0] > 0 else Fraction(0)
    except Exception:  # the point of the variant: the refusal is swallowed
        shift = Fraction(0)
    return tuple(test(AboveThreshold(x, shift, Fraction(4), rho)) for x in q)


def _sneaky(q: tuple[Fraction, ...], test: Any) -> tuple[bool, ...]:
    """Tells symbols from values by their type: the symbolic run is not the real one."""
    rho = test(DrawNoise(Fraction(2)))
    fresh = Fraction(0) if type(q[0]) is Fraction else Fraction(4)
    return tuple(test(AboveThreshold(x, Fraction(0), fresh, rho)) for x in q)


@pytest.mark.parametrize("run", [_shared_noise_max, _caught])
def test_a_mechanism_that_reads_its_answers_is_refused(run: Any) -> None:
    m = 3
    with pytest.raises(ReductionRefused):
        decide_families(run, m, *_boxes(m, Relation()))
    row = replace(ROWS["svt-alg1"], name="variant", make=lambda _m: run, literature="unknown")
    with pytest.raises(ReductionRefused):
        audit_row(row, method="reduction")
    assert audit_row(row, method="auto").detail["method"] == "listing"


def test_a_mechanism_whose_symbolic_run_differs_is_caught_by_the_cross_check() -> None:
    m = 2
    extremes = decide_families(_sneaky, m, *_boxes(m, Relation()))
    found = extremes.largest_loss()
    assert found is not None
    with pytest.raises(ReductionRefused, match="symbolic run"):
        cross_check(_sneaky, extremes, found)
    row = replace(ROWS["svt-alg1"], name="sneaky", make=lambda _m: _sneaky, m=m,
                  literature="unknown")
    with pytest.raises(ReductionRefused):
        audit_row(row, method="reduction")
    assert audit_row(row).detail["method"] == "listing"  # auto: never a reduced verdict


def test_symbolic_answers_refuse_every_value_dependent_operation() -> None:
    q, trips = symbols(2)
    assert isinstance(q[0], Fraction) and isinstance(q[0], QueryAnswer) and q[1].symbol == "q[1]"
    for attempt in (lambda: q[0] > 0, lambda: q[0] + 1, lambda: hash(q[0]), lambda: bool(q[0]),
                    lambda: float(q[0]), lambda: q[0] == q[1], lambda: Fraction(q[0]),
                    lambda: q[0].numerator, lambda: Fraction.__add__(q[0], 1), lambda: max(q),
                    lambda: str(q[0]), lambda: f"{q[0]!s}"):
        with pytest.raises(DataDependent):
            attempt()
    assert len(trips) == 12
    assert repr(q[1]) == "q[1]" and len(trips) == 13  # a message may name it; the run is refused
    query = AboveThreshold(q[0], Fraction(0), Fraction(1))
    assert query.count is q[0]  # passed on unchanged by the primitives
    assert NoisyMax(q, Fraction(1)).counts == q


def test_a_claim_the_reduction_cannot_decide_is_refused_not_guessed() -> None:
    row = ROWS["gaussian-svt"]
    with pytest.raises(ReductionRefused, match="Gaussian"):
        decide_families(row.make(2), 2, *_boxes(2, Relation()))
    with pytest.raises(Exception, match="listing"):
        audit_row(replace(ROWS["svt-alg1"], m=2), size=1, method="reduction")


def test_a_row_the_corpus_cannot_decide_is_refused_before_any_row_runs() -> None:
    """`--queries 16` with a row that reads its answers: refused at once (naming the row), not
    after the rows before it; the refusal is the one the row itself would meet."""
    ran: list[str] = []
    with pytest.raises(ParameterError, match="noisy-max-shared-noise"):
        audit_corpus(names=("svt-alg1", "noisy-max-shared-noise"), queries=16,
                     progress=ran.append)
    assert ran == []  # svt-alg1 was not audited first
    with pytest.raises(ReductionRefused, match="noisy-max-shared-noise"):
        audit_corpus(names=("noisy-max-shared-noise",), queries=16, method="reduction")
    with pytest.raises(ParameterError, match="pairs listed"):
        audit_corpus(names=("svt-alg1",), queries=10, size=1)
    [small] = audit_corpus(names=("noisy-max-shared-noise",), queries=6)  # listed: decided
    assert not small.holds and small.agrees


def _text_leak(q: tuple[Fraction, ...], test: Any) -> tuple[bool, bool]:
    """SVT on q[0], and a flag read off the text of q[1]: on symbols the text is a name, the
    same for every input, so the symbolic run looked oblivious."""
    rho = test(DrawNoise(Fraction(2)))
    return test(AboveThreshold(q[0], Fraction(0), Fraction(4), rho)), str(q[1]) == "1"


@pytest.mark.parametrize("m", [2, 7])
def test_a_mechanism_that_reads_the_text_of_its_answers_is_refused_not_certified(m: int) -> None:
    """The reduction certified `(5, 0)`-DP for `_text_leak` (and `auto` used it at m = 7).
    Independently: on the empty database `q = (0, ..., 0)` and on `D + z` with `z`'s answers
    `(0, 1, 0, ...)`, the flag is `False` and `True` with probability 1: an output possible
    under one database only, `delta(eps) = 1` at every `eps`."""
    zero = tuple(Fraction(0) for _ in range(m))
    one = (Fraction(0), Fraction(1), *zero[2:])
    for seed in range(5):  # the flag is the same on every run: a function of q alone
        assert _text_leak(zero, ExactQuerySampler(seed))[1] is False
        assert _text_leak(one, ExactQuerySampler(seed))[1] is True
    with pytest.raises(ReductionRefused, match="str"):
        decide_families(_text_leak, m, *_boxes(m, Relation()))
    row = replace(ROWS["svt-alg1"], name="text leak", make=lambda _m: _text_leak, m=m,
                  literature="unknown")
    with pytest.raises(ReductionRefused):
        audit_row(row, method="reduction")
    assert not audit_row(row).holds  # auto: listed, refuted


def _type_leak(q: tuple[Fraction, ...], test: Any) -> tuple[bool, bool]:
    """SVT on q[0], and a flag read off the type of q[1] (no operation on the symbol: nothing
    in the symbolic run can see it): `True` exactly when q[1] is the Fraction 1."""
    rho = test(DrawNoise(Fraction(2)))
    return (test(AboveThreshold(q[0], Fraction(0), Fraction(4), rho)),
            type(q[1]) is Fraction and q[1] == 1)


def test_a_mechanism_of_your_own_is_listed_by_auto_and_reduced_only_when_asked() -> None:
    """The reduction certified `(5, 0)`-DP for `_type_leak` under `auto` at m = 7 (2,187
    pairs). Independently: on the empty database the flag is `False`, on `D + z` with answers
    `(0, 1, 0, ...)` it is `True`, each with probability 1: `delta(5) = 1`. `auto` now lists a
    mechanism of your own (refuted); `method="reduction"` still reduces it, and its verdict
    states what it assumes; past the listing's 20,000 pairs `auto` refuses, naming the method."""
    zero = tuple(Fraction(0) for _ in range(7))
    assert _type_leak(zero, ExactQuerySampler(1))[1] is False
    assert _type_leak((Fraction(0), Fraction(1), *zero[2:]), ExactQuerySampler(1))[1] is True
    row = user_row("tests:type_leak", _type_leak, 7, Fraction(5))
    listed = audit_row(row)
    assert not listed.holds and listed.detail["method"] == "listing"
    reduced = audit_row(row, method="reduction")
    assert reduced.detail["method"] == "reduction"
    (premise,) = [i for i in reduced.assumes().items if i.key == "premise"]
    assert "not through type(), id() or the like" in premise.what and not premise.checked
    assert {"item": "premise", "what": premise.what, "how": premise.how,
            "status": "assumed"} in reduced.as_json()["assumes"]
    with pytest.raises(ParameterError, match="only under method reduction"):
        audit_row(user_row("tests:type_leak", _type_leak, 10, Fraction(5)))
