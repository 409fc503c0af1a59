"""Hostile and odd user mechanisms, one module for every test and benchmark that needs them.

Its text is written as a user's module (`hardmechs.py`, `mechs.py`) into a fresh folder and
loaded with `--mechanism module:name`, as a user's own code is: never imported by the tests.
Used by `tests/core/cli/test_hardening.py`, `tests/fuzz_families.py` and
`bench/hardening_commands.py`.
"""

import math
import random
import sys
from fractions import Fraction

from betweencut.baselines.privtree import PrivTree
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.noise.noisy_queries import AboveThreshold
from betweencut.noise.noisy_test import BTQuery


def ask(db, test):
    return test(BTQuery(len(db), 1, 3, Fraction(1, 2)))


def good(db, test):
    return ask(db, test)


def raises(db, test):
    ask(db, test)
    raise ValueError("broken\\nsecond line")


def exit7(db, test):
    ask(db, test)
    sys.exit(7)


def exit_text(db, test):
    sys.exit("fatal")


def exit0(db, test):
    sys.exit(0)


def base(db, test):
    raise BaseException("base")


def generator_exit(db, test):
    raise GeneratorExit()


def rand(db, test):
    ask(db, test)
    return random.random()


def nan(db, test):
    ask(db, test)
    return float("nan")


def fresh(db, test):
    ask(db, test)
    return object()


def generator(db, test):
    ask(db, test)
    return (x for x in [1])


class BadHash:
    def __eq__(self, other):
        return isinstance(other, BadHash)

    def __hash__(self):
        raise RuntimeError("no hash")


def bad_hash(db, test):
    ask(db, test)
    return BadHash()


def unhashable(db, test):
    return [ask(db, test), {1: [2]}]


def debugger(db, test):
    import pdb
    pdb.set_trace()
    return ask(db, test)


def loop(db, test):
    while True:
        pass


def asks_forever(db, test):
    n = 0
    while True:
        test(BTQuery(n, 1, 3, Fraction(1, 2)))
        n += 1


def wrong_query(db, test):
    return test("not a query")


def shared(db, test):
    return test(AboveThreshold(len(db), Fraction(0), Fraction(2)))


def corpus_good(q, test):
    return test(AboveThreshold(q[0], Fraction(0), Fraction(2)))


def corpus_exit(q, test):
    sys.exit(3)


def corpus_random(q, test):
    test(AboveThreshold(q[0], Fraction(0), Fraction(2)))
    return random.random()


class Builder(BetweenCut):
    pass


class BuilderExit(BetweenCut):
    def run(self, leaves, test):
        super().run(leaves, test)
        sys.exit(7)


def not_callable_value():
    return 3


value = 42


def singleton_nan(db, test):
    ask(db, test)
    return math.nan


def fresh_object(db, test):
    ask(db, test)
    return object()


class BadEq:
    def __hash__(self):
        return 1

    def __eq__(self, other):
        raise RuntimeError("no eq")


def bad_eq(db, test):
    ask(db, test)
    return BadEq()


COUNTER = [0]


def hidden_state(db, test):
    COUNTER[0] += 1
    if COUNTER[0] % 2:
        ask(db, test)
    return ask(db, test)


def reads_stdin(db, test):
    return sys.stdin.read(1) + str(ask(db, test))


def shared_forever(db, test):
    n = 0
    while True:
        test(AboveThreshold(len(db) + n, Fraction(0), Fraction(2)))
        n += 1


def shared_exit7(db, test):
    test(AboveThreshold(len(db), Fraction(0), Fraction(2)))
    sys.exit(7)


def corpus_exit7(q, test):
    test(AboveThreshold(q[0], Fraction(0), Fraction(2)))
    sys.exit(7)


class BuilderExit7(BetweenCut):
    def run(self, leaves, test):
        super().run(leaves, test)
        sys.exit(7)


class BuilderRandom(BetweenCut):
    def run(self, leaves, test):
        super().run(leaves, test)
        return random.random()


class ExitingPrivTree(PrivTree):
    def query(self, n_points, depth, box):
        if n_points >= 2:  # only D + z of the pair audited holds two points
            sys.exit(7)
        return super().query(n_points, depth, box)


def privtree_exit7():
    base = PrivTree.of(((0, 8),), 1)
    return ExitingPrivTree(base.box, base.epsilon, base.theta, base.split, base.member,
                           base.min_bins, base.ln_beta_upper)


def my_svt(q, test):
    return test(AboveThreshold(q[0], Fraction(0), Fraction(2)))


class Mine(BetweenCut):
    pass
