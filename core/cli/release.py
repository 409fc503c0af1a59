"""Printing a classification: the release on stdout, the diagnostics on stderr under
`DIAGNOSTICS_HEADER` (only with `--diagnostics`). What may be printed is decided in
`betweencut.mechanism.public_release` (the allow-list, the text), which the library's results use
too: the CLI only serialises `Classification.as_json()` / `text()` and `Diagnostics.as_json()`."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, TextIO

from betweencut.mechanism.public_release import (
    DIAGNOSTIC_KEYS,
    DIAGNOSTICS_HEADER,
    GUARANTEE,
    PUBLIC_KEYS,
    TERMS,
    TIGHT_TERMS,
    ReleaseLeak,
)

if TYPE_CHECKING:
    from betweencut.mechanism.classifier import Classification

__all__ = ["DIAGNOSTICS_HEADER", "DIAGNOSTIC_KEYS", "GUARANTEE", "PUBLIC_KEYS", "TERMS",
           "TIGHT_TERMS", "ReleaseLeak", "print_diagnostics", "print_release"]


def print_release(result: Classification, as_json: bool, out: TextIO) -> None:
    out.write((json.dumps(result.as_json()) if as_json else result.text()) + "\n")


def print_diagnostics(result: Classification, as_json: bool, err: TextIO) -> None:
    """The data holder's diagnostics on `err`, under the header that says what they are."""
    err.write(DIAGNOSTICS_HEADER + "\n")
    if as_json:
        err.write(json.dumps(result.diagnostics.as_json()) + "\n")
    else:
        for key, value in result.diagnostics.as_json().items():
            err.write(f"  {key}: {value}\n")
