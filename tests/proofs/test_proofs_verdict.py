"""A verdict streamed as JSON text (`StreamedVerdict`, what `audit depth --json` writes) is the
verdict's own `as_json()`: the pieces parse to it and validate against the `verdict` schema."""

from __future__ import annotations

import json
from fractions import Fraction

import jsonschema
import pytest

from betweencut.api import audit_depth
from betweencut.proofs.verdict import StreamedVerdict
from betweencut.schemas import schema

HALF = Fraction(1, 2)


@pytest.mark.parametrize("given", [{"count": 2}, {"search": 2}], ids=["pair", "family"])
def test_streamed_verdict_parses_to_as_json(given: dict[str, int]) -> None:
    pieces: list[str] = []
    stream = StreamedVerdict(pieces.append)
    streamed = audit_depth(7, tau=4, lam=HALF, R=2, each=stream.rows, **given)
    stream.close(streamed)
    whole = audit_depth(7, tau=4, lam=HALF, R=2, **given).as_json()
    assert len(pieces) > 3 and pieces[-1].endswith("\n")
    out = json.loads("".join(pieces))
    jsonschema.validate(out, schema("verdict"))
    assert out == whole and len(out["rows"]) == len(whole["rows"]) > 1


def test_streamed_verdict_without_rows_is_the_verdict_with_none() -> None:
    """No row heard: the framing still closes the object (no stray comma)."""
    pieces: list[str] = []
    stream = StreamedVerdict(pieces.append)
    stream.rows([])
    assert pieces == []  # nothing written before a row or the close: no fragment on a refusal
    verdict = audit_depth(7, tau=4, lam=HALF, R=2, count=2)
    stream.close(verdict)
    assert json.loads("".join(pieces)) == verdict.as_json(rows=False)


def test_dp_point_names_the_missing_one_and_refuses_delta_one() -> None:
    """`epsilon=`/`delta=` of an audit (the API of `audit_mechanism` and of the PrivTree audit):
    the one not given is named, `δ = 1` is refused, text is read exactly."""
    from betweencut.errors import ParameterError
    from betweencut.proofs.verdict import dp_point

    assert dp_point("1/2", 0) == (HALF, 0)
    for given, name in (((None, 0), "epsilon"), ((1, None), "delta"), ((1, 1), "delta"),
                        ((-1, 0), "epsilon")):
        with pytest.raises(ParameterError) as refused:
            dp_point(*given)
        assert refused.value.name == name, given
