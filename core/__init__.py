"""BetweenCut: differentially private heavy-node classification on public trees (Alg. 3).

The public names are imported on first use, so that `import betweencut.<module>` stays cheap:

* the library API, one function per job (`betweencut.api`): `calibrate`, `classify`,
  `audit_mechanism`, `audit_depth`, `audit` (the main job: every registered claim) and
  `audit_corpus`; and `__version__`;
* `between_cut` (dense, Alg. 3) and `sparse_between_cut` (Appendix D, needs τ >= E);
* `Params` (τ, λ, R), `Calibration` (Theorem 5.5/5.6);
* `kary_tree`, `prefix_tree`, `PublicTree` (public trees);
* `ExactSampler` (the release noisy test), `ReplayTest`, `Outcome`, `BTQuery`.
"""

from __future__ import annotations

from importlib import import_module

_WHERE = {
    "classify": "betweencut.api", "Classification": "betweencut.classifier",
    "calibrate": "betweencut.api", "audit": "betweencut.api",
    "audit_mechanism": "betweencut.api", "audit_depth": "betweencut.api",
    "audit_corpus": "betweencut.api", "margins": "betweencut.api",
    "Calibration": "betweencut.calibration",
    "ParameterError": "betweencut.errors", "MechanismError": "betweencut.errors",
    "RecordError": "betweencut.errors", "BetweenCutError": "betweencut.errors",
    "between_cut": "betweencut.betweencut", "BetweenCut": "betweencut.betweencut",
    "sparse_between_cut": "betweencut.sparse",
    "Params": "betweencut.params",
    "kary_tree": "betweencut.tree", "prefix_tree": "betweencut.tree",
    "PublicTree": "betweencut.tree",
    "ExactSampler": "betweencut.sampler", "ReplayTest": "betweencut.noisy_test",
    "Outcome": "betweencut.noisy_test", "BTQuery": "betweencut.noisy_test",
}
__all__ = sorted([*_WHERE, "__version__"])


def __getattr__(name: str) -> object:
    if name == "__version__":
        from betweencut.schemas import version

        return version()
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'betweencut' has no attribute {name!r}")
    return getattr(import_module(module), name)


def __dir__() -> list[str]:
    """The public names too (issue 36, item 9): tab completion finds `calibrate`, `classify`."""
    return sorted({*globals(), *__all__})
