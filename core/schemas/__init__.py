"""The JSON Schema of every `--json` output, and the header every JSON output starts with.

Each output kind has one schema file here (`<kind>.schema.json`, JSON Schema draft 2020-12),
shipped with the package and published in the documentation; the tests validate every output
against its schema. Every JSON output carries `schema` (the kind) and `version` (the package's
version) first.

May import: nothing of betweencut (the lowest rank of `core/`: every layer reads its header).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

KINDS = ("verdict", "claims", "corpus", "classify", "calibrate", "margins")
# The package's version, written here only: pyproject.toml reads it (`[tool.setuptools.dynamic]`),
# so the installed metadata says the same; `betweencut --version` prints it without reading the
# metadata (importlib.metadata alone takes about half as long as importing numpy).
VERSION = "0.1.0"


def version() -> str:
    """The package's version (`VERSION`, which the installed metadata repeats)."""
    return VERSION


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
