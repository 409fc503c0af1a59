"""The corpus of published mechanisms and its verdicts: the rows and their pairs
(`corpus_rows`), the exact Laplace rows of the sparse vector technique and report-noisy-max
(`corpus`, the `check_corpus_verdicts` claim), listing or reduction (`corpus_scale`), the
certified Gaussian rows (`gaussian_corpus`), the Gaussian mechanisms' closed forms
(`gaussian_mechanisms`) against the Gaussian pairs' enclosed profiles (`gaussian_pairs`), the
published privacy bugs and their fixes (`published`, `published_rows`), and rows on a public
tree or box (`tree_corpus`: heavy hitters, BinAgg).

May import: core, `exact`, `laws`, `privacy` of `betweencut.proofs`, `registry`, `verdict`,
`assumes`, and this package; never `privtree_checks`.
"""
