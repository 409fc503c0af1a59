"""BetweenCut: differentially private heavy-node classification on public trees (Alg. 3).

The public names are imported on first use, so that `import betweencut.<module>` stays cheap:

* `classify` (one private release: checks, calibrates, picks the implementation; see
  `betweencut.classifier`), `audit` (the main job: every registered claim, see
  `betweencut.cli.audit`), `calibrate`, and `__version__`;
* `between_cut` (dense, Alg. 3) and `sparse_between_cut` (Appendix D, needs τ >= E);
* `calibrate` (Theorem 5.5/5.6) and `Params` (τ, λ, R);
* `kary_tree`, `prefix_tree`, `PublicTree` (public trees);
* `ExactSampler` (the release noisy test), `ReplayTest`, `Outcome`, `BTQuery`.
"""

from __future__ import annotations

from importlib import import_module

_WHERE = {
    "classify": "betweencut.classifier", "Classification": "betweencut.classifier",
    "audit": "betweencut.cli.audit", "ParameterError": "betweencut.errors",
    "RecordError": "betweencut.errors", "BetweenCutError": "betweencut.errors",
    "between_cut": "betweencut.betweencut", "BetweenCut": "betweencut.betweencut",
    "sparse_between_cut": "betweencut.sparse",
    "calibrate": "betweencut.calibration", "Params": "betweencut.params",
    "kary_tree": "betweencut.tree", "prefix_tree": "betweencut.tree",
    "PublicTree": "betweencut.tree",
    "ExactSampler": "betweencut.sampler", "ReplayTest": "betweencut.noisy_test",
    "Outcome": "betweencut.noisy_test", "BTQuery": "betweencut.noisy_test",
}
__all__ = sorted([*_WHERE, "__version__"])


def __getattr__(name: str) -> object:
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("betweencut")
        except PackageNotFoundError:  # pragma: no cover - run from a source tree
            return "0+unknown"
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'betweencut' has no attribute {name!r}")
    return getattr(import_module(module), name)
