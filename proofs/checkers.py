"""Imports every checker module so that `@claim` and `@register_audit` have run.

Each module of `betweencut.proofs` that registers checkers adds one import line here.
"""

from betweencut.proofs import calibration  # noqa: F401
