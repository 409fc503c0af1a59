"""A user's sparse-vector mechanisms, audited from the command line like `my_mechanism.py`
(docs/how-to/shared-noise.md).

Each function is a mechanism `(db, test) -> output`: the queries are the record counts under
each child of the root (`q_i(D)` = records whose leaf starts with `i`, sensitivity 1), the
public threshold is 1 for every query, and the noisy comparisons are asked through the test it
is handed (`betweencut.noise.noisy_queries`), so the audit enumerates them exactly. It answers a
tuple of `True` (above) / `False` (below), stopping after the first `True` (cutoff `c = 1`).

* `svt`: Lyu, Su and Li's Algorithm 1 with `ε = 1`: one shared `ρ ~ Lap(2)` (`Δ/ε₁`,
  `ε₁ = ε/2`) and a fresh `ν_i ~ Lap(4)` (`2cΔ/ε₂`) per query: 1-DP;
* `svt_no_query_noise`: the same without the query noise (the bug of their Algorithm 5):
  private at no ε, the audit finds an event with `Q = 0 < P`;
* `svt_sharp`: a later version with less query noise (`Lap(2)`): regression mode reports where
  it leaks more than `svt`.

    betweencut audit privacy --mechanism my_svt:svt --arity 2 --height 2 --exhaustive 2 \\
        --epsilon 1 --delta 0
    betweencut audit privacy --mechanism my_svt:svt_no_query_noise --arity 2 --height 2 \\
        --exhaustive 2 --epsilon 1 --delta 0 --json
    betweencut audit privacy --mechanism my_svt:svt_sharp --baseline my_svt:svt --arity 2 \\
        --height 2 --exhaustive 2 --epsilon 2 --delta 0
"""

from __future__ import annotations

from fractions import Fraction

from betweencut.noise.noisy_queries import AboveThreshold, DrawNoise, QueryTest

Database = tuple[tuple[int, ...], ...]
QUERIES = 2  # children of the root of the binary tree
THRESHOLD = Fraction(1)


def counts(db: Database) -> list[Fraction]:
    """`q_i(D)`: the records under child `i` of the root."""
    out = [Fraction(0)] * QUERIES
    for leaf in db:
        out[leaf[0]] += 1
    return out


def _svt(db: Database, test: QueryTest, rho_scale: Fraction, nu_scale: Fraction
         ) -> tuple[bool, ...]:
    rho = test(DrawNoise(rho_scale))  # one threshold noise, shared by every comparison
    answers: list[bool] = []
    for q in counts(db):
        above = test(AboveThreshold(q, THRESHOLD, nu_scale, rho))
        answers.append(above)
        if above:  # cutoff c = 1
            break
    return tuple(answers)


def svt(db: Database, test: QueryTest) -> tuple[bool, ...]:
    """Algorithm 1 of Lyu, Su and Li (2017), `ε = 1`, `c = 1`: ε-DP."""
    return _svt(db, test, Fraction(2), Fraction(4))


def svt_no_query_noise(db: Database, test: QueryTest) -> tuple[bool, ...]:
    """The bug: no fresh noise on the queries (`scale = 0`). Not private at any ε."""
    return _svt(db, test, Fraction(2), Fraction(0))


def svt_sharp(db: Database, test: QueryTest) -> tuple[bool, ...]:
    """Half the query noise of `svt`: a privacy regression against it."""
    return _svt(db, test, Fraction(2), Fraction(2))
