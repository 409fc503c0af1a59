"""Imports every checker module so that `@claim` and `@register_audit` have run.

Each module of `betweencut.proofs` that registers checkers adds one import line here.
"""

from betweencut.proofs import calibration  # noqa: F401
from betweencut.proofs.baselines import (  # noqa: F401
    appendix_e,
    corpus,
    lumberjack,
    privtree,
    privtree_search,
)
from betweencut.proofs.laws import audit  # noqa: F401
from betweencut.proofs.privacy import claims  # noqa: F401
