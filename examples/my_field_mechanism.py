"""A user's mechanisms written with the field's primitives (`betweencut.noise`), audited from the
command line, the API and `assert_private` like `my_mechanism.py` (docs/how-to/field.md).

Each is a function `(db, test) -> output` on the leaves of the binary tree of height 3 (leaves
`0/0`, `0/1`, `1/0`, `1/1`); every random choice is asked through the test it is handed, so the
audit enumerates the real code exactly.

* `busiest_branch`: the root's child with the most records, by the exponential mechanism at
  scale 2 (counts of sensitivity 1: 1-DP), released with a noisy count of all the records
  (discrete Laplace, `b = 1`: 1-DP): 2-DP in all;
  claimed at `ε = 1` (the noisy count forgotten) it is refuted;
* `any_record`: randomized response (`ε = 1`) on whether the database holds any record: 1-DP.

    betweencut audit privacy --mechanism my_field_mechanism:busiest_branch --height 3 \\
        --exhaustive 1 --epsilon 2 --delta 0
    betweencut audit privacy --mechanism my_field_mechanism:busiest_branch --height 3 \\
        --exhaustive 1 --epsilon 1 --delta 0 --json
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from betweencut.noise import ExponentialMechanism, Noise, NoisyValue, RandomizedResponse

Database = tuple[tuple[int, ...], ...]


def busiest_branch(db: Database, test: Any) -> tuple[int, Any]:
    """The exponential mechanism on the two root children's counts, and a noisy total."""
    counts = [sum(1 for leaf in db if leaf[0] == child) for child in (0, 1)]
    choice = test(ExponentialMechanism(counts, Fraction(2)))
    return choice, test(NoisyValue(len(db), Noise.discrete_laplace(1)))


def any_record(db: Database, test: Any) -> bool:
    """Randomized response (eps = 1) on whether the database holds a record."""
    return bool(test(RandomizedResponse(bool(db), Fraction(1))))
