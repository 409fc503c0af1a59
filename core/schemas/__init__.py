"""The JSON Schema of every `--json` output, and the header every JSON output starts with.

Each output kind has one schema file here (`<kind>.schema.json`, JSON Schema draft 2020-12),
shipped with the package and published in the documentation; the tests validate every output
against its schema. Every JSON output carries `schema` (the kind) and `version` (the package's
version) first.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

KINDS = ("verdict", "claims", "corpus", "classify", "calibrate", "margins")


def version() -> str:
    """The installed package's version (`0+unknown` from a bare source tree)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("betweencut")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree
        return "0+unknown"


def header(kind: str) -> dict[str, str]:
    """`{"schema": kind, "version": ...}`: the first keys of every JSON output."""
    if kind not in KINDS:
        raise ValueError(f"unknown output kind {kind!r}: one of {', '.join(KINDS)}")
    return {"schema": f"betweencut/{kind}", "version": version()}


@cache
def schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of output `kind` (parsed once)."""
    if kind not in KINDS:
        raise ValueError(f"unknown output kind {kind!r}: one of {', '.join(KINDS)}")
    text = resources.files(__name__).joinpath(f"{kind}.schema.json").read_text("utf-8")
    found: dict[str, Any] = json.loads(text)
    return found
