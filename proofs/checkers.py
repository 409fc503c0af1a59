"""Imports every checker module so that `@claim` and `@register_audit` have run.

Each module of `betweencut.proofs` that registers checkers adds one import line here and its
name to `ORDER`, the order in which `betweencut.proofs.audit_cases` lists their audit cases
(registration order would depend on which module another import reached first).
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

ORDER: tuple[str, ...] = tuple(f"betweencut.proofs.{name}" for name in (
    "baselines.corpus", "baselines.gaussian", "baselines.privtree_search",
    "baselines.privtree_depth", "baselines.published_rows", "calibration", "baselines.appendix_e",
    "baselines.lumberjack", "baselines.privtree", "laws.audit",
    "privacy.accountants.tight_calibration", "privacy.accountants.claims", "privacy.claims.cases",
    "privacy.depth.audit", "privacy.depth.heavy_audit",
))
