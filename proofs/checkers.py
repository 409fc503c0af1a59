"""Imports every checker module so that `@claim` and `@register_audit` have run.

Each module of `betweencut.proofs` that registers checkers adds one import line here.
"""

from betweencut.proofs import (
    appendix_e,  # noqa: F401
    calibration,  # noqa: F401
    laws_audit,  # noqa: F401
    lumberjack,  # noqa: F401
    privacy,  # noqa: F401
    privtree,  # noqa: F401
)
