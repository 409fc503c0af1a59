"""BetweenCut: differentially private heavy-node classification on public trees (Alg. 3).

The public names are imported on first use, so that `import betweencut.<module>` stays cheap:

* `between_cut` (dense, Alg. 3) and `sparse_between_cut` (Appendix D, needs τ >= E);
* `calibrate` (Theorem 5.5/5.6) and `Params` (τ, λ, R);
* `kary_tree`, `prefix_tree`, `PublicTree` (public trees);
* `ExactSampler` (the release noisy test), `ReplayTest`, `Outcome`, `BTQuery`.
"""

from __future__ import annotations

from importlib import import_module

_WHERE = {
    "between_cut": "betweencut.betweencut", "BetweenCut": "betweencut.betweencut",
    "sparse_between_cut": "betweencut.sparse",
    "calibrate": "betweencut.calibration", "Params": "betweencut.params",
    "kary_tree": "betweencut.tree", "prefix_tree": "betweencut.tree",
    "PublicTree": "betweencut.tree",
    "ExactSampler": "betweencut.sampler", "ReplayTest": "betweencut.noisy_test",
    "Outcome": "betweencut.noisy_test", "BTQuery": "betweencut.noisy_test",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> object:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'betweencut' has no attribute {name!r}")
    return getattr(import_module(module), name)
