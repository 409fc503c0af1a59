"""User mechanisms that try to end the audit or carry state between runs (issue 34, classes 1
and 5), written as a user writes them: the text of the module `isomechs`, written into a fresh
folder and loaded with `--mechanism isomechs:NAME` (never imported by the tests). `ENDINGS` are
the statements that end or cripple a process; each appears as a function mechanism, a builder,
a baseline and, through `module_ending(kind)`, a module's import.

Used by `tests/core/boundary/test_isolation.py`.
"""

import functools
import os
import signal  # noqa: F401 - used by the statements of ENDINGS (exec)
import sys  # noqa: F401 - idem
import time  # noqa: F401 - idem
from fractions import Fraction

from betweencut.baselines.privtree import PrivTree, box_of
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.noise.noisy_queries import AboveThreshold
from betweencut.noise.noisy_test import BTQuery

ENDINGS = {
    "os_exit0": "os._exit(0)",
    "os_exit3": "os._exit(3)",
    "sys_exit0": "sys.exit(0)",
    "abort": "os.abort()",
    "sigkill": "os.kill(os.getpid(), signal.SIGKILL)",
    "sigterm": "os.kill(os.getpid(), signal.SIGTERM)",
    "hang": "time.sleep(120)",
}
CRIPPLING = {  # the audit must go on, unharmed
    "close_fd1": "os.closerange(1, 2)",
    "close_stdout": "sys.stdout.close()",
    "junk": "print('junk on stdout'); os.write(1, b'junk on fd 1'); sys.stderr.write('junk!')",
}


def ask(db, test):
    return test(BTQuery(len(db), 1, 3, Fraction(1, 2)))


def end(kind):
    """Do what `kind` names."""
    exec(ENDINGS.get(kind) or CRIPPLING[kind])


def make_function(kind):
    def mechanism(db, test):
        out = ask(db, test)
        end(kind)
        return out

    return mechanism


def make_builder(kind):
    class Builder(BetweenCut):
        def __init__(self, tree, params):
            end(kind)
            super().__init__(tree, params)

    return Builder


for _kind in [*ENDINGS, *CRIPPLING]:
    globals()[f"f_{_kind}"] = make_function(_kind)
    globals()[f"B_{_kind}"] = make_builder(_kind)


def good(db, test):
    return ask(db, test)


def shared_os_exit0(db, test):
    test(AboveThreshold(len(db), Fraction(0), Fraction(2)))
    os._exit(0)


def field_os_exit0(db, test):
    """The field's primitives (`betweencut.noise`): their kind runs a child first."""
    from betweencut.noise import RandomizedResponse

    test(RandomizedResponse(bool(db), Fraction(1)))
    os._exit(0)


def gaussian_os_exit0(db, test):
    """Shared Gaussian noise: its kind runs a child first."""
    from betweencut.noise.noisy_queries import GAUSSIAN, DrawNoise

    test(DrawNoise(Fraction(1, 2), GAUSSIAN))
    os._exit(0)


def _exit_member(point, box):
    os._exit(0)


def privtree_os_exit0():
    """A PrivTree whose membership rule ends the process (its audit runs in a child first)."""
    return PrivTree.of(box_of((0, 4)), 1, member=_exit_member)


def corpus_os_exit0(q, test):
    test(AboveThreshold(q[0], Fraction(0), Fraction(2)))
    os._exit(0)


# -- hidden state (class 1): each is a function of the answers only in its first run ----------
MEMO = {}


def memo(db, test):
    """A "consistent answers" cache per database: the first release is the release."""
    return MEMO.setdefault(tuple(db), ask(db, test))


CORPUS_MEMO = {}


def corpus_memo(q, test):
    """A memo per query vector, in a corpus mechanism (shared noise)."""
    return CORPUS_MEMO.setdefault(tuple(q), test(AboveThreshold(q[0], Fraction(0), Fraction(2))))


CALLS = [0]


def counter(db, test):
    CALLS[0] += 1
    return ask(db, test), CALLS[0]


def default_list(db, test, seen=[]):  # noqa: B006 - the bug under test
    seen.append(ask(db, test))
    return seen[0]


def attribute(db, test):
    out = ask(db, test)
    if not hasattr(attribute, "first"):
        attribute.first = out
    return attribute.first


def cached(db, test):
    """`lru_cache` keyed by the database only (the answer of its first run stays)."""
    answer = ask(db, test)
    return _remember(tuple(db), answer)


_FIRST = {}


@functools.cache
def _remember(db, answer):
    return _FIRST.setdefault(db, answer)


LAST = []


def across(db, test):
    """A memo keyed across databases: the first release of the process, whatever the data."""
    out = ask(db, test)
    if not LAST:
        LAST.append(out)
    return LAST[0]


STATE = {"first": None}


def module_global(db, test):
    global STATE
    out = ask(db, test)
    if STATE["first"] is None:
        STATE = {"first": out}
    return STATE["first"]


def env_var(db, test):
    out = ask(db, test)
    return os.environ.setdefault("ISOMECHS_FIRST", str(out))


def in_a_file(db, test):
    """State outside the process: a file persists across children (not caught; documented)."""
    out = ask(db, test)
    path = os.path.join(os.getcwd(), "isomechs_state.txt")
    if not os.path.exists(path):
        with open(path, "w") as f:
            f.write(str(out))
    with open(path) as f:
        return f.read()
