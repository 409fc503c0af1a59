"""A user's mechanism, audited from the command line (docs/tutorials/audit-your-mechanism.md).

`flag` is a mechanism function `(db, test) -> output`: it releases one noisy threshold test of
the record count, BT(|D|; 1, 2, 1/2) (Alg. 4), asked through the noisy test it is handed, so the
audit can enumerate it exactly. `flag_v2` is a later version that "sharpens" it by doubling
lambda: its claim may still hold, but it leaks more, which regression mode reports.
`TopDown` is a builder: a BetweenCut subclass (a class is called as `TopDown(tree, params)` and
its `run(leaves, test)` is audited).

    betweencut audit privacy --mechanism my_mechanism:flag --height 3 --exhaustive 1 \\
        --epsilon 1 --delta 0
    betweencut audit privacy --mechanism my_mechanism:flag_v2 --baseline my_mechanism:flag \\
        --height 3 --exhaustive 1 --epsilon 2 --delta 0 --json
"""

from __future__ import annotations

from fractions import Fraction

from betweencut.mechanism.betweencut import BetweenCut
from betweencut.noise.noisy_test import BTQuery, NoisyTest, Outcome

Database = tuple[tuple[int, ...], ...]


def flag(db: Database, test: NoisyTest) -> Outcome:
    """Is the database large? One BT(|D|; 1, 2, λ = 1/2) call: (1/2, 0)-DP (ε = λ·1)."""
    return test(BTQuery(Fraction(len(db)), Fraction(1), Fraction(2), Fraction(1, 2)))


def flag_v2(db: Database, test: NoisyTest) -> Outcome:
    """The same test with λ doubled (less noise): a privacy regression against `flag`."""
    return test(BTQuery(Fraction(len(db)), Fraction(1), Fraction(2), Fraction(1)))


class TopDown(BetweenCut):
    """BetweenCut visiting levels top-down instead of DepO (a builder: a class)."""

    def level_order(self) -> list[int]:
        return list(range(self.tree.height))
