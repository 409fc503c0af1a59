"""BetweenCut: differentially private heavy-node classification on public trees (Alg. 3).

The public names are imported on first use, so that `import betweencut.<module>` stays cheap:

* the library API, one function per job (`betweencut.api`): `calibrate`, `classify`,
  `audit_mechanism`, `audit_depth`, `audit` (the main job: every registered claim) and
  `audit_corpus`; and `__version__`;
* `between_cut` (dense, Alg. 3) and `sparse_between_cut` (Appendix D, needs τ >= E);
* `Params` (τ, λ, R), `Calibration` (Theorem 5.5/5.6);
* `kary_tree`, `prefix_tree`, `PublicTree` (public trees);
* `ExactSampler` (the release noisy test), `ReplayTest`, `Outcome`, `BTQuery`.

`core/` is grouped by role; each subpackage imports only those before it in this list
(`tests/project/test_layers.py`, `CORE_RANK`): `schemas` (the JSON Schemas); the top-level
modules `errors`, `interop` and `progress` (plumbing for the whole package); `numbers` (exact
numbers); `data` (the public tree, records, their validation); `noise` (the noisy tests, the
exact samplers, the field's primitives); `boundary` (the boundary with the user's code);
`mechanism` (Alg. 3 and its parts, calibration, `classify`); `engines` (counting at scale) and
`baselines` (what it is compared with); and the composition layers `api`, `cli`, `testing`,
which may import every layer.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec
from importlib.util import spec_from_loader
from types import ModuleType

_WHERE = {
    "classify": "betweencut.api", "Classification": "betweencut.mechanism.classifier",
    "calibrate": "betweencut.api", "audit": "betweencut.api",
    "audit_mechanism": "betweencut.api", "audit_depth": "betweencut.api",
    "audit_corpus": "betweencut.api", "margins": "betweencut.api",
    "Calibration": "betweencut.mechanism.calibration",
    "ParameterError": "betweencut.errors", "MechanismError": "betweencut.errors",
    "RecordError": "betweencut.errors", "BetweenCutError": "betweencut.errors",
    "between_cut": "betweencut.mechanism.betweencut",
    "BetweenCut": "betweencut.mechanism.betweencut",
    "sparse_between_cut": "betweencut.mechanism.sparse",
    "Params": "betweencut.mechanism.params",
    "kary_tree": "betweencut.data.tree", "prefix_tree": "betweencut.data.tree",
    "PublicTree": "betweencut.data.tree",
    "ExactSampler": "betweencut.noise.bt_sampler", "ReplayTest": "betweencut.noise.noisy_test",
    "Outcome": "betweencut.noise.noisy_test", "BTQuery": "betweencut.noise.noisy_test",
}
__all__ = sorted([*_WHERE, "__version__"])


def lazy_exports(package: str, where: Mapping[str, str]
                 ) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """A package's `__getattr__` and `__dir__` for names imported on first use: `where` maps
    each public name to the module that defines it (`betweencut`, `betweencut.api` and
    `betweencut.noise` stay cheap to import; tab completion still lists every name)."""

    def get(name: str) -> object:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(import_module(module), name)

    def listed() -> list[str]:
        return sorted({*vars(sys.modules[package]), *where})

    return get, listed


_get, _listed = lazy_exports(__name__, _WHERE)


def __getattr__(name: str) -> object:
    if name == "__version__":
        from betweencut.schemas import version

        return version()
    return _get(name)


def __dir__() -> list[str]:
    """The public names too (issue 36, item 9): tab completion finds `calibrate`, `classify`."""
    return sorted({*_listed(), "__version__"})


# Modules moved when core/ was grouped by role (0.1.0, issue 38), and proofs/baselines into
# `privtree_checks` and `corpus_checks`, old name -> new name under
# `betweencut.`: a user's mechanism written against the old names (`from betweencut.noisy_test
# import BTQuery`) keeps working, and gets the very same module object (one module, two names
# for the import system only; `isinstance` and the seams see one class).
MOVED = {
    "datasets": "data.datasets",
    "notation": "data.notation",
    "records": "data.records",
    "tree": "data.tree",
    "validate": "data.validate",
    "betweencut": "mechanism.betweencut",
    "calibration": "mechanism.calibration",
    "classifier": "mechanism.classifier",
    "depo": "mechanism.depo",
    "guarded_bt": "mechanism.guarded_bt",
    "marking": "mechanism.marking",
    "params": "mechanism.params",
    "release": "mechanism.public_release",
    "sparse": "mechanism.sparse",
    "answers": "noise.answers",
    "bernoulli": "noise.bernoulli",
    "sampler": "noise.bt_sampler",
    "gaussian": "noise.gaussian",
    "noisy_queries": "noise.noisy_queries",
    "noisy_test": "noise.noisy_test",
    "padded_sampler": "noise.padded_sampler",
    "bisection": "numbers.bisection",
    "certified": "numbers.certified",
    "exact": "numbers.exact",
    "exact_text": "numbers.exact_text",
    "proofs.baselines.corpus": "proofs.baselines.corpus_checks.corpus",
    "proofs.baselines.corpus_rows": "proofs.baselines.corpus_checks.corpus_rows",
    "proofs.baselines.corpus_scale": "proofs.baselines.corpus_checks.corpus_scale",
    "proofs.baselines.gaussian": "proofs.baselines.corpus_checks.gaussian_mechanisms",
    "proofs.baselines.gaussian_corpus": "proofs.baselines.corpus_checks.gaussian_corpus",
    "proofs.baselines.gaussian_mechanisms": "proofs.baselines.corpus_checks.gaussian_mechanisms",
    "proofs.baselines.gaussian_pairs": "proofs.baselines.corpus_checks.gaussian_pairs",
    "proofs.baselines.privtree": "proofs.baselines.privtree_checks.privtree",
    "proofs.baselines.privtree_audit": "proofs.baselines.privtree_checks.privtree_audit",
    "proofs.baselines.privtree_count": "proofs.baselines.privtree_checks.privtree_count",
    "proofs.baselines.privtree_depth": "proofs.baselines.privtree_checks.privtree_depth",
    "proofs.baselines.privtree_ratio": "proofs.baselines.privtree_checks.privtree_ratio",
    "proofs.baselines.privtree_search": "proofs.baselines.privtree_checks.privtree_search",
    "proofs.baselines.published": "proofs.baselines.corpus_checks.published",
    "proofs.baselines.published_rows": "proofs.baselines.corpus_checks.published_rows",
    "proofs.baselines.tree_corpus": "proofs.baselines.corpus_checks.tree_corpus",
    "proofs.calibration": "proofs.calibration_claims",
    "proofs.laws.gaussian": "proofs.laws.continuous_gaussian",
    "proofs.laws.audit": "proofs.laws.laws_audit",
    "proofs.privacy.accountants.claims": "proofs.privacy.accountants.steps",
    "proofs.privacy.audit.mechanism": "proofs.privacy.audit.pairs",
    "proofs.privacy.audit.renyi": "proofs.privacy.audit.renyi_claims",
    "proofs.privacy.claims.checkers": "proofs.privacy.claims.theorems",
    "proofs.privacy.depth.audit": "proofs.privacy.depth.depth_audit",
    "proofs.privacy.depth.search": "proofs.privacy.depth.path_search",
    "proofs.privacy.divergence.certified": "proofs.privacy.divergence.certified_curve",
    "properties.audit": "properties.structure_audit",
}


class _Moved(MetaPathFinder, Loader):
    """Finds a moved module's old name and answers with the module under its new name."""

    def find_spec(self, fullname: str, path: object = None, target: object = None
                  ) -> ModuleSpec | None:
        moved = fullname.startswith("betweencut.") and fullname[len("betweencut."):] in MOVED
        return spec_from_loader(fullname, self) if moved else None

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        # the import system reads the module back from sys.modules: the new one is what it gets
        new = import_module("betweencut." + MOVED[module.__name__[len("betweencut."):]])
        sys.modules[module.__name__] = new


if not any(isinstance(finder, _Moved) for finder in sys.meta_path):
    sys.meta_path.append(_Moved())
