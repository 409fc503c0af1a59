"""The paper's mechanism: BetweenCut (Alg. 3), its parts, its calibration and one release.

* `depo` (the depth order), `marking` (assignments and labels), `guarded_bt` (`BT`, `GuardedBT`:
  Alg. 1 and 4), `params` (`Params`: τ, λ, R);
* `betweencut`: `BetweenCut(tree, params)` and `between_cut`, Alg. 3 with overridable steps;
* `sparse`: `sparse_between_cut` (Appendix D, τ >= E);
* `calibration`: `calibrate` (Theorems 5.5 and 5.6);
* `classifier`: `classify`, the library entry point of one private release;
* `public_release`: what a classification may show (the allow-listed release) and the
  diagnostics kept apart.

May import: the top-level plumbing, `betweencut.schemas`, `betweencut.numbers`,
`betweencut.data`, `betweencut.noise` (the noisy tests it asks through the seam) and
`betweencut.boundary.seams`. Never `betweencut.baselines`, `betweencut.engines`, the composition
layers (`api`, `cli`, `testing`), `proofs` or `properties`.
"""
