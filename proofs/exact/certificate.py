"""Certificates: the frozen record of one checked claim, serialisable to JSON."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from betweencut.errors import BetweenCutError


def _jsonable(x: object) -> Any:
    if isinstance(x, bool | int | str) or x is None:
        return x
    if isinstance(x, Fraction):
        return str(x)
    if isinstance(x, Mapping):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple | set | frozenset):
        return [_jsonable(v) for v in x]
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
            "claim": self.claim, "parameters": _jsonable(self.parameters),
            "method": self.method, "quantities": _jsonable(self.quantities),
            "verdict": self.verdict, "scope": self.scope,
        }

    def to_json(self) -> str:
        return json.dumps(self.as_json(), sort_keys=True)


class ClaimRefuted(BetweenCutError):
    """A checker found a counterexample; `counterexample` holds its exact numbers."""

    def __init__(self, claim: str, message: str, counterexample: Mapping[str, object]) -> None:
        self.claim = claim
        self.counterexample = dict(counterexample)
        detail = ", ".join(f"{k} = {_jsonable(v)}" for k, v in counterexample.items())
        super().__init__(f"{claim} refuted: {message} [{detail}]")
