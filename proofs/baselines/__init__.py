"""Checkers of the baselines, grouped by role (two subpackages that never import each other,
`tests/project/test_layers.py` checks it):

* `appendix_e`: Appendix E's tree counting; `lumberjack`: the Lumberjack-style calibration;
* `privtree_checks`: PrivTree (its claim, its worst pair, its laws for `audit_pairs` and the
  orchestration of its audit, at depth);
* `corpus_checks`: the corpus of published mechanisms (the sparse vector technique and
  report-noisy-max, Gaussian mechanisms, published privacy bugs, tree and box rows).

The modules of `privtree_checks` and `corpus_checks` lay directly here before; their old names
still import, as the very same modules (`betweencut.MOVED`).

May import: core, and `exact`, `laws`, `privacy` of `betweencut.proofs`, and `registry`,
`verdict`, `assumes`.
"""
