"""The library API: one function per job (issue 22), re-exported from `betweencut`.

* `calibrate(height, epsilon, delta, accountant=AccountantKind.PAPER)`: Theorem 5.5's numbers
  (or the tight accountant's; every `accountant=` takes a
  `betweencut.mechanism.calibration.AccountantKind` or its name, read once);
* `classify(tree, source, tau=, epsilon=, delta=, engine=None, accountant=...)`: one
  private release, whatever engine counts;
* `audit_mechanism(mechanism, pairs | exhaustive=N | search=N, epsilon=, delta=, ...)`: any
  mechanism (a function, a builder, a PrivTree; fresh or shared noise) on neighbouring pairs;
* `audit_depth(height, tau=, params= | epsilon=, delta=, ...)`: Theorem 5.4 at any height;
* `audit(group=None)`: every registered claim (the main job);
* `audit_corpus(size=0, names=())`: the sparse-vector corpus against the literature;
* `margins(epsilon, delta, ...)`: the additive margins against the height (Table 1), a
  `Margins` (`as_json()`, `text()`).

Every audit answers with one verdict shape (`holds`, `worst`, `refutation`, `rows`,
`as_json()`, `text()`, `exit_status`). This package composes every layer (core, proofs,
properties): with the command line, the only part of `betweencut` that imports them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from betweencut import lazy_exports

if TYPE_CHECKING:  # the names as type checkers see them; at run time each is imported on use
    from betweencut.api.claims import ClaimsVerdict, audit
    from betweencut.api.corpus import CorpusVerdict, audit_corpus
    from betweencut.api.depth import audit_depth
    from betweencut.api.mechanism import audit_mechanism
    from betweencut.api.release import calibrate, classify

# `margins` is also its module's name: imported here, so that the function, not the submodule,
# is the package's attribute whoever imports `betweencut.api.margins` first
from betweencut.api.margins import Margins, margins

# each other job's module, imported on first use: `calibrate` does not import the audits (and
# Hypothesis with them)
_WHERE = {name: f"betweencut.api.{module}" for name, module in {
    "ClaimsVerdict": "claims", "audit": "claims", "CorpusVerdict": "corpus",
    "audit_corpus": "corpus", "audit_depth": "depth", "audit_mechanism": "mechanism",
    "calibrate": "release", "classify": "release",
}.items()}
__all__ = ["ClaimsVerdict", "CorpusVerdict", "Margins", "audit", "audit_corpus", "audit_depth",
           "audit_mechanism", "calibrate", "classify", "margins"]
__getattr__, __dir__ = lazy_exports(__name__, _WHERE)
