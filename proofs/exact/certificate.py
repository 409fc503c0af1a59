"""Certificates: the frozen record of one checked claim, serialisable to JSON."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from betweencut.errors import BetweenCutError


def jsonable(x: object) -> Any:
    """`x` as JSON values: exact numbers (and anything else not JSON) as their text."""
    if isinstance(x, bool | int | float | str) or x is None:
        return x
    if isinstance(x, Fraction):
        return str(x)
    if isinstance(x, Mapping):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple | set | frozenset):
        return [jsonable(v) for v in x]
    return str(x)


@dataclass(frozen=True)
class Certificate:
    """A verdict with its evidence.

    `method` is one of `exact` (rationals or exact symbolic forms), `interval` (certified
    intervals, `precision` bits) or `enumerated` (exhaustive, `scope` says up to what size).
    `quantities` holds the exact or certified numbers that were compared, as exact strings.
    """

    claim: str
    parameters: Mapping[str, object]
    method: str
    quantities: Mapping[str, object] = field(default_factory=dict)
    verdict: str = "holds"
    scope: str = ""

    def as_json(self) -> dict[str, Any]:
        return {
            "claim": self.claim, "parameters": jsonable(self.parameters),
            "method": self.method, "quantities": jsonable(self.quantities),
            "verdict": self.verdict, "scope": self.scope,
        }


class ClaimRefuted(BetweenCutError):
    """A checker found a counterexample; `counterexample` holds its exact numbers."""

    def __init__(self, claim: str, message: str, counterexample: Mapping[str, object]) -> None:
        self.claim = claim
        self.counterexample = dict(counterexample)
        detail = ", ".join(f"{k} = {jsonable(v)}" for k, v in counterexample.items())
        super().__init__(f"{claim} refuted: {message} [{detail}]")
