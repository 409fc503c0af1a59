"""Imports every checker module so that `@claim` and `@register_audit` have run.

Each module of `betweencut.proofs` that registers checkers adds one import line here and its
name to `ORDER`, the order in which `betweencut.proofs.audit_cases` lists their audit cases
(registration order would depend on which module another import reached first).
"""

import betweencut.proofs.baselines.corpus_checks.corpus
import betweencut.proofs.baselines.corpus_checks.gaussian_mechanisms
import betweencut.proofs.baselines.corpus_checks.published_rows
import betweencut.proofs.baselines.privtree_checks.privtree_depth
import betweencut.proofs.baselines.privtree_checks.privtree_search  # noqa: F401
from betweencut.proofs import calibration_claims as calibration  # noqa: F401
from betweencut.proofs.baselines import appendix_e, lumberjack  # noqa: F401
from betweencut.proofs.baselines.privtree_checks import privtree  # noqa: F401
from betweencut.proofs.laws import laws_audit as audit  # noqa: F401
from betweencut.proofs.privacy.accountants import steps as accountant_claims  # noqa: F401
from betweencut.proofs.privacy.accountants import tight_calibration  # noqa: F401
from betweencut.proofs.privacy.claims import cases  # noqa: F401
from betweencut.proofs.privacy.claims import theorems as checkers  # noqa: F401
from betweencut.proofs.privacy.depth import (
    depth_audit,  # noqa: F401
    heavy_audit,  # noqa: F401
)

ORDER: tuple[str, ...] = tuple(f"betweencut.proofs.{name}" for name in (
    "baselines.corpus_checks.corpus", "baselines.corpus_checks.gaussian_mechanisms",
    "baselines.privtree_checks.privtree_search", "baselines.privtree_checks.privtree_depth",
    "baselines.corpus_checks.published_rows", "calibration_claims", "baselines.appendix_e",
    "baselines.lumberjack", "baselines.privtree_checks.privtree", "laws.laws_audit",
    "privacy.accountants.tight_calibration", "privacy.accountants.steps", "privacy.claims.cases",
    "privacy.depth.depth_audit", "privacy.depth.heavy_audit",
))
