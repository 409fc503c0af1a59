"""Imports every checker module so that `@claim` and `@register_audit` have run.

Each module of `betweencut.proofs` that registers checkers adds one import line here.
"""

import betweencut.proofs.baselines.corpus
import betweencut.proofs.baselines.gaussian
import betweencut.proofs.baselines.privtree_depth
import betweencut.proofs.baselines.privtree_search
import betweencut.proofs.baselines.published_rows  # noqa: F401
from betweencut.proofs import calibration  # noqa: F401
from betweencut.proofs.baselines import appendix_e, lumberjack, privtree  # noqa: F401
from betweencut.proofs.laws import audit  # noqa: F401
from betweencut.proofs.privacy.accountants import claims as accountant_claims  # noqa: F401
from betweencut.proofs.privacy.accountants import tight_calibration  # noqa: F401
from betweencut.proofs.privacy.claims import cases, checkers  # noqa: F401
from betweencut.proofs.privacy.depth import audit as depth_audit  # noqa: F401
from betweencut.proofs.privacy.depth import heavy_audit  # noqa: F401
