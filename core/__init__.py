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

from importlib import import_module

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
