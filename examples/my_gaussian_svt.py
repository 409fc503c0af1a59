"""A user's sparse-vector mechanisms with Gaussian noise, audited like `my_svt.py`
(docs/how-to/gaussian.md); the probabilities are certified enclosures (python-flint's Arb).

Each function is a mechanism `(db, test) -> output` on the binary tree: the queries are the
record counts under the two children of the root (sensitivity 1), the public threshold is 1,
and the comparisons are asked through the test it is handed with `noise=GAUSSIAN` (`scale` is
the standard deviation). It answers a tuple of `True` (above) / `False` (below), stopping after
the first `True` (cutoff `c = 1`).

* `svt`: Zhu and Wang's Gaussian SVT: one shared `ρ ~ N(0, (1/2)²)` and a fresh
  `ν_i ~ N(0, 1)` per query;
* `svt_sharp`: a later version with half the query noise: regression mode reports where it
  leaks more than `svt`.

    betweencut audit privacy --mechanism my_gaussian_svt:svt --arity 2 --height 2 \\
        --exhaustive 1 --epsilon 2 --delta 0
    betweencut audit privacy --mechanism my_gaussian_svt:svt_sharp \\
        --baseline my_gaussian_svt:svt --arity 2 --height 2 --exhaustive 1 --epsilon 3 --delta 0
"""

from __future__ import annotations

from fractions import Fraction

from betweencut.noise.noisy_queries import GAUSSIAN, AboveThreshold, DrawNoise, QueryTest

Database = tuple[tuple[int, ...], ...]
THRESHOLD = Fraction(1)


def counts(db: Database) -> list[Fraction]:
    """`q_i(D)`: the records under child `i` of the root."""
    out = [Fraction(0), Fraction(0)]
    for leaf in db:
        out[leaf[0]] += 1
    return out


def _svt(db: Database, test: QueryTest, rho_sigma: Fraction, nu_sigma: Fraction
         ) -> tuple[bool, ...]:
    rho = test(DrawNoise(rho_sigma, GAUSSIAN))  # one threshold noise, shared
    answers: list[bool] = []
    for q in counts(db):
        above = test(AboveThreshold(q, THRESHOLD, nu_sigma, rho, GAUSSIAN))
        answers.append(above)
        if above:  # cutoff c = 1
            break
    return tuple(answers)


def svt(db: Database, test: QueryTest) -> tuple[bool, ...]:
    """Gaussian SVT, `σ_ρ = 1/2`, `σ_ν = 1`, `c = 1`."""
    return _svt(db, test, Fraction(1, 2), Fraction(1))


def svt_sharp(db: Database, test: QueryTest) -> tuple[bool, ...]:
    """Half the query noise of `svt`: a privacy regression against it."""
    return _svt(db, test, Fraction(1, 2), Fraction(1, 2))
