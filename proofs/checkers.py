"""Imports every checker module so that `@claim` and `@register_audit` have run.

Each module of `betweencut.proofs` that registers checkers adds one import line here.
"""

import betweencut.proofs.baselines.corpus
import betweencut.proofs.baselines.privtree_search  # noqa: F401
from betweencut.proofs import calibration  # noqa: F401
from betweencut.proofs.baselines import appendix_e, lumberjack, privtree  # noqa: F401
from betweencut.proofs.laws import audit  # noqa: F401
from betweencut.proofs.privacy import (  # noqa: F401
    accountant_claims,
    claims,
    depth_audit,
    depth_heavy_audit,
    tight_calibration,
)
