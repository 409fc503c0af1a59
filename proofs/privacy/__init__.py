"""Privacy of whole runs: exact enumeration of the real mechanism (`enumerate`), exact
privacy profiles δ(ε) (`profiles`), the shared outcome tree and class-by-class comparison
(`reweight`, `aligned`, with each count's law observed from the real call: `observed`),
user-mechanism audits (`audit`), worst-pair search (`search`), the enumerated Lemma C.1 /
Theorems 5.4, 5.5 (`claims`), the broken-variant gallery (`gallery`), the power of an instance
(`power`) and shared-noise / noisy-max mechanisms enumerated exactly (`shared_noise`).

May import: core, `betweencut.proofs.exact`, `betweencut.proofs.laws` and the top-level `registry`.
"""
