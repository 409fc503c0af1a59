"""Hypothesis strategies and predicates for BetweenCut's structural claims.

* `betweencut.properties.strategies`: public trees (complete and irregular), databases,
  neighbouring pairs, parameters, calibrations, and the paper's pinned examples.
* `betweencut.properties.predicates`: Lemma B.1, 4.2, 4.3, B.2, B.3 and DepO (Alg. 2);
  `.margin`: Theorem C.2; `.coupling`: Proposition D.1. Each raises `PropertyViolation`.
* `betweencut.properties.check.check_implementation(classify_fn)`: every property against a
  user's port of Alg. 3; `.heavy_only.check_heavy_classifier(heavy_fn)`: the Heavy-set-only
  checks (ancestor closure, Theorem C.2) for any classifier; `betweencut.properties.pytest_plugin`:
  the `betweencut_check` and `betweencut_heavy_check` fixtures.
* `betweencut.properties.settings`: settings profiles `dev`, `ci`, `thorough` (registered when
  that module is imported; `check` imports it).
* `betweencut.properties.broken`: structurally broken variants that the suite must reject.
* `betweencut.properties.twins`: near-twin outputs (equal under `==`, different releases: order,
  signed zeros, NaN payloads, types) and accepted outputs, for the canonical encoder
  (`betweencut.boundary.encoding`, issue 34).

Nothing is imported eagerly here, so that the pytest plugin stays cheap to load.
"""

from __future__ import annotations

__all__ = ["PropertyViolation", "RunRecord", "check_implementation"]


def __getattr__(name: str) -> object:
    """The public names, imported on first use."""
    if name == "check_implementation":
        from betweencut.properties.check import check_implementation

        return check_implementation
    if name in ("PropertyViolation", "RunRecord"):
        from betweencut.properties import violation

        return getattr(violation, name)
    raise AttributeError(name)
