"""PrivTree's checkers: its pure ε-DP claim by transcript enumeration on small domains
(`privtree`); its worst pair over many points (`privtree_search`), with exact factored ratios
(`privtree_ratio`); its `LawCache` for `audit_pairs` (`privtree_audit`: the reachable
decomposition), counting its answer sequences (`privtree_count`); at depth, over copies of one
point by symmetry (`privtree_depth`); and the audit of a PrivTree orchestrated in one function
(`privtree_audit_run.audit_privtree_run`, called by `betweencut.audit_mechanism`).

May import: core, `exact`, `laws`, `privacy` of `betweencut.proofs`, `registry`, `verdict`,
`assumes`, and this package; never `corpus_checks`.
"""
