"""Privacy of whole runs: exact enumeration of the real mechanism (`enumerate`), exact
privacy profiles δ(ε) (`profiles`), the shared outcome tree and class-by-class comparison
(`reweight`, `aligned`, with each count's law observed from the real call: `observed`),
user-mechanism audits (`audit`), worst-pair search (`search`), the enumerated Lemma C.1 /
Theorems 5.4, 5.5 (`claims`), the broken-variant gallery (`gallery`), the power of an instance
(`power`), shared-noise / noisy-max mechanisms enumerated exactly (`shared_noise`); exact
privacy curves δ(ε) and `epsilon_at_delta` (`curve`), regression mode against a baseline
(`regression`), and the search and ε lower bound for any user mechanism (`usersearch`).

May import: core, `betweencut.proofs.exact`, `betweencut.proofs.laws` and the top-level `registry`.
"""
