"""Single-query claims: the exact output laws of BT/GuardedBT (`bt_laws`, `models`), the q-target
witnesses of Lemmas 5.2/5.3 (`witness`, `targets`), Def. 2.7/5.1 (`indist`), Eq. (16)
(`qbound`), Lemma 4.1 and Theorem 5.4's bound (`tct`), and their audit cases (`audit`); the
laws of shared-noise threshold tests and noisy max as exact integrals (`noisy_laws`).

May import: core, `betweencut.proofs.exact`, and the top-level `registry`.
"""
