"""Privacy of whole runs, grouped by role (ranked: each subpackage imports only those above it
in this list, `tests/project/test_layers.py` checks it):

* `divergence`: one pair's exact divergence `δ(ε)` and privacy curve;
* `enumeration`: the enumeration engine (fresh noise, shared noise, the shared-outcome-tree
  speed path) and `LawCache`;
* `audit`: auditing any mechanism on pairs (verdicts, worst-pair search, regressions);
* `claims`: BetweenCut's claims on small trees (Lemma C.1, Theorems 5.4, 5.5), the gallery of
  broken variants, the power of an instance;
* `depth`: Theorem 5.4 at any height by path grouping;
* `accountants`: certified accountants and the tight calibration.

May import: core, `betweencut.proofs.exact`, `betweencut.proofs.laws`, and the top-level
`registry` and `verdict`.
"""
