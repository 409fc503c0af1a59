"""A noisy test for property runs: scripted answers first, then exact seeded BT draws.

Structural claims (Lemma B.1, 4.2, 4.3, B.2, B.3, Theorem C.2) hold for *every* sequence of
answers, so a property run may answer the first queries adversarially from a script that
Hypothesis draws and shrinks; later queries get exact draws of the BT law (Alg. 4) from a seeded
generator. Two fresh copies with the same script and seed answer identical query sequences
identically, which is the shared-noise coupling of Proposition D.1.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from betweencut.data.validate import check_seed
from betweencut.noise.bt_sampler import bt_outcome
from betweencut.noise.noisy_test import BTQuery, Outcome


class ScriptedTest:
    """A coupling device: answers the first queries from `script`, the rest by exact BT draws
    from `random.Random(seed)`. Two fresh copies answer identical query sequences identically."""

    def __init__(self, script: Sequence[Outcome] = (), seed: int = 0) -> None:
        self.script = tuple(script)
        self.rng = random.Random(check_seed(seed))
        self.queries: list[BTQuery] = []

    def __call__(self, query: BTQuery) -> Outcome:
        position = len(self.queries)
        self.queries.append(query)
        if position < len(self.script):
            return self.script[position]
        return bt_outcome(query, self.rng)
