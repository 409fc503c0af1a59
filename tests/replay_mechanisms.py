"""User mechanisms that behave privately only when audited, written as a user writes them: the
text of the module `replaymechs`, written into a fresh folder and loaded with
`--mechanism replaymechs:NAME` (never imported by the tests themselves). Deployed with the
release sampler (`fn(db, ExactSampler())`) the `detect_*` ones return `len(db)`: not private
at all; the audit's enumeration runs them in children forked from the audit's process, where
they see it. `honest` and `Honest` are the same mechanisms without the trick.

Used by `tests/core/boundary/test_release_replay.py` and
`tests/proofs/privacy/enumeration/test_release_path.py`.
"""

import os
import random
import sys
from fractions import Fraction

from betweencut.mechanism.betweencut import BetweenCut
from betweencut.noise.bt_sampler import ExactSampler
from betweencut.noise.noisy_test import BTQuery

AUDITED = "betweencut.proofs.privacy.enumeration.cache"


def ask(db, test):
    return test(BTQuery(len(db), 1, 3, Fraction(1, 2)))


def audited():
    return AUDITED in sys.modules


def honest(db, test):
    return ask(db, test)


def two_queries(db, test):
    first = ask(db, test)
    return (first, test(BTQuery(len(db), 0, 2, Fraction(1, 2))))


# -- the hostile module's three detectors (/work/adv/hostile.py) ------------------------------
def detect_type(db, test):
    """The crude check of the hostile module: the audit hands a package wrapper, so it returns
    `len(db)` in the audit too, and is refuted there (consistently)."""
    if "proofs" in type(test).__module__ or "Enumerat" in type(test).__name__:
        return ask(db, test)
    return len(db)


def detect_type_sharp(db, test):
    """The same detector done right: anything but the release sampler is the audit."""
    if type(test) is not ExactSampler:
        return ask(db, test)
    return len(db)


def detect_modules(db, test):
    if audited():
        return ask(db, test)
    return len(db)


def detect_stack(db, test):
    f = sys._getframe(1)
    names = []
    while f is not None:
        names.append(f.f_globals.get("__name__", ""))
        f = f.f_back
    if any("proofs" in n for n in names):
        return ask(db, test)
    return len(db)


def detect_isolation(db, test):
    """Looks for a module of the audit's boundary (which the replay itself loads, then hides)."""
    if "betweencut.boundary.isolation" in sys.modules or "betweencut.boundary.encoding" in (
            sys.modules):
        return ask(db, test)
    return len(db)


# -- other behaviours of the release path only ------------------------------------------------
def random_on_release(db, test):
    """Draws `random` (refused by the audit's sandbox) only where the audit is not."""
    answer = ask(db, test)
    if audited():
        return (answer, False)
    return (answer, random.random() < 0.5)


def other_answer_on_release(db, test):
    """Asks the same test but releases another output for some answers, on the release path."""
    answer = ask(db, test)
    return answer if audited() else str(answer)


def less_noise_on_release(db, test):
    """Asks the same question with far less noise when not audited: the same answers and
    outputs, another law (nearly deterministic)."""
    lam = Fraction(1, 2) if audited() else Fraction(50)
    return test(BTQuery(len(db), 1, 3, lam))


def hangs_on_release(db, test):
    answer = ask(db, test)
    while not audited():
        pass
    return answer


def exits_on_release(db, test):
    answer = ask(db, test)
    if not audited():
        os._exit(0)
    return answer


def killed_on_release(db, test):
    answer = ask(db, test)
    if not audited():
        os.kill(os.getpid(), 9)
    return answer


def raises_on_release(db, test):
    answer = ask(db, test)
    if not audited():
        raise RuntimeError("deployed\nsecond line")
    return answer


def proofs_loaded(db, test):
    """The proof-path modules loaded where it runs (none on the release path), and one answer."""
    return (tuple(sorted(m for m in sys.modules if m.startswith("betweencut.proofs"))),
            ask(db, test))


def package_modules(db, test):
    """The package's modules loaded where it runs, and one answer."""
    return (tuple(sorted(m for m in sys.modules if m.startswith("betweencut"))), ask(db, test))


# -- builders -----------------------------------------------------------------------------------
class Honest(BetweenCut):
    """BetweenCut as it is, a user's subclass (the builder kind)."""


class Detecting(BetweenCut):
    """BetweenCut that releases nothing but the database's size when not audited."""

    def run(self, leaves, test):
        if audited():
            return super().run(leaves, test)
        return len(leaves)
