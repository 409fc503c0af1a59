"""Issue 34, class 4 (outside randomness): a mechanism that draws randomness or reads a clock
outside its noisy tests, written as a user writes it, is refused (exit 2, one line naming the
call; `MechanismError` in the API) by every entry that runs a user's mechanism: `audit privacy`,
`audit_mechanism`, `assert_private`, `privacy_snapshot`, `audit corpus --mechanism`. The
package's own clocks and randomness are not refused, and the check is undone after the run
(`betweencut.boundary.sandbox`)."""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import pytest
from cli_in_process import cli, one_line_exit_2, user_module
from cli_runs import run_script

from betweencut.api import audit_mechanism
from betweencut.boundary.sandbox import OutsideRandomness, refusing
from betweencut.errors import MechanismError
from betweencut.testing import assert_private

pytest_plugins = ["pytester"]

MECHANISMS = '''
import datetime
import os
import random
import secrets
import time
import uuid
from fractions import Fraction
from random import random as captured

from betweencut.baselines.privtree import PrivTree
from betweencut.noise.noisy_queries import AboveThreshold
from betweencut.noise.noisy_test import BTQuery

RNG = random.Random(0)
try:
    import numpy as np
    NP_RNG = np.random.default_rng(0)
except ImportError:
    np = None


def ask(db, test):
    return test(BTQuery(len(db), 1, 3, Fraction(1, 2)))


def leak(db, test):
    """The issue's example: the count, now and then (20 of 20 audits certified it)."""
    answer = ask(db, test)
    return len(db) if random.random() < 1e-3 else answer


def from_import(db, test):
    return ask(db, test) if captured() < 2 else None


def instance(db, test):
    return ask(db, test), RNG.random() < 1e-3


def shuffled(db, test):
    xs = [ask(db, test), 1]
    random.shuffle(xs)
    return tuple(xs)


def np_legacy(db, test):
    return ask(db, test), np.random.random() < 1e-3


def np_generator(db, test):
    return ask(db, test), NP_RNG.random() < 1e-3


def urandom(db, test):
    return ask(db, test), os.urandom(1)[0] < 1


def device(db, test):
    with open("/dev/urandom", "rb") as f:
        return ask(db, test), f.read(1)[0] < 1


def secret(db, test):
    return ask(db, test), secrets.randbelow(1000) == 0


def uuid4(db, test):
    return ask(db, test), uuid.uuid4().int % 1000 == 0


def clock(db, test):
    return ask(db, test), time.time() < 0


def perf(db, test):
    return ask(db, test), time.perf_counter() < 0


def now(db, test):
    return ask(db, test), datetime.datetime.now().year < 0


def caught(db, test):
    try:
        random.random()
    except Exception:
        pass
    return ask(db, test)


def good(db, test):
    return ask(db, test)


def seeded(db, test):
    random.seed(3)  # not a draw
    return ask(db, test)


def leaky_member(point, box):
    inside = all(lo <= x < hi for x, (lo, hi) in zip(point, box))
    return inside or random.random() < 1e-9


def privtree_leak():
    return PrivTree.of(((0, 8),), 1, member=leaky_member)


def corpus_leak(q, test):
    test(AboveThreshold(q[0], Fraction(0), Fraction(2)))
    return random.random() < 1e-3
'''

CALLS = {"leak": "random.random()", "from_import": "random.random()",
         "instance": "random.Random.random()", "shuffled": "random.shuffle()",
         "np_legacy": "numpy.random", "np_generator": "numpy.random",
         "urandom": "os.urandom()", "device": "open('/dev/urandom')",
         "secret": "secrets.randbelow()", "uuid4": "uuid.uuid4()", "clock": "time.time()",
         "perf": "time.perf_counter()", "now": "datetime.datetime.now()",
         "caught": "random.random()"}
PAIR = ["--height", "3", "--epsilon", "1", "--delta", "0", "--db", "0/0", "--add", "0/1"]


@pytest.fixture
def mechs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The module `outmechs` in a fresh folder, the working directory (as a user runs it)."""
    user_module(tmp_path, monkeypatch, "outmechs", MECHANISMS)
    return tmp_path




def needs(name: str) -> None:
    if name.startswith("np_"):
        pytest.importorskip("numpy")


@pytest.mark.parametrize("name", sorted(CALLS))
def test_audit_privacy_refuses_outside_randomness_naming_the_call(mechs: Path, name: str
                                                                  ) -> None:
    needs(name)
    status, out, err = cli(["audit", "privacy", "--mechanism", f"outmechs:{name}", *PAIR])
    line = one_line_exit_2(status, err)
    assert f"the mechanism outmechs:{name} called {CALLS[name]}" in line
    assert "outside its noisy tests" in line and "D = {0/0}" in line
    assert "holds" not in out


@pytest.mark.parametrize("name", ["leak", "instance", "np_generator", "clock"])
def test_audit_mechanism_and_assert_private_refuse_outside_randomness(mechs: Path, name: str
                                                                      ) -> None:
    needs(name)
    with pytest.raises(MechanismError, match="outside its noisy tests"):
        audit_mechanism(f"outmechs:{name}", [("0/0", "0/1")], height=3, epsilon=1, delta=0)
    with pytest.raises(MechanismError, match="outside its noisy tests"):
        assert_private(f"outmechs:{name}", 1, 0, pairs=[("0/0", "0/1")], height=3)


def test_privacy_snapshot_refuses_outside_randomness(mechs: Path, pytester: pytest.Pytester
                                                     ) -> None:
    pytester.makepyfile(test_snap="""
        import pytest
        from betweencut.errors import MechanismError

        def test_snap(privacy_snapshot):
            with pytest.raises(MechanismError, match="called random.random"):
                privacy_snapshot("outmechs:leak", [("0/0", "0/1")], height=3)
    """)
    pytester.syspathinsert(str(mechs))
    pytester.runpytest("-p", "no:cacheprovider", "-q").assert_outcomes(
        passed=1)


def test_audit_corpus_refuses_outside_randomness(mechs: Path) -> None:
    status, _, err = cli(["audit", "corpus", "--mechanism", "outmechs:corpus_leak"])
    line = one_line_exit_2(status, err)
    assert "the mechanism outmechs:corpus_leak called random.random()" in line


def test_a_privtree_rule_drawing_randomness_is_refused(mechs: Path) -> None:
    status, _, err = cli(["audit", "privacy", "--mechanism", "outmechs:privtree_leak",
                          "--epsilon", "1", "--delta", "0", "--db", "1", "--add", "2"])
    line = one_line_exit_2(status, err)
    assert "the PrivTree of outmechs:privtree_leak called random.random()" in line


@pytest.mark.parametrize("name", ["good", "seeded"])
def test_a_mechanism_without_outside_randomness_is_audited(mechs: Path, name: str) -> None:
    """Seeding is not a draw; the package's own clocks (the budget) are not refused."""
    status, out, err = cli(["audit", "privacy", "--mechanism", f"outmechs:{name}", *PAIR,
                            "--budget", "60"])
    assert status == 0 and "holds" in out, err


@pytest.mark.parametrize("name", ["np_legacy", "np_generator", "leak"])
def test_the_console_script_refuses_numpy_imported_by_the_users_module(mechs: Path, name: str
                                                                       ) -> None:
    """A fresh process, where numpy is first imported by the user's module (the import
    hook's path): the generator it makes at import is refused when drawn from."""
    needs(name)
    ran = run_script(["audit", "privacy", "--mechanism", f"outmechs:{name}", *PAIR],
                     cwd=str(mechs))
    assert ran.status == 2 and f"called {CALLS[name]}" in ran.err, ran.err


def test_refusing_is_undone_and_leaves_the_callers_randomness_alone() -> None:
    before = sys.getprofile()
    with pytest.raises(OutsideRandomness, match=r"called random\.random\(\)"), refusing():
        exec(compile("import random\nrandom.random()", "<user>", "exec"), {})
    assert sys.getprofile() is before
    random.random()
    time.time()


def test_a_caught_refusal_still_ends_the_block() -> None:
    code = compile("import random\ntry:\n    random.random()\nexcept Exception:\n    pass\n",
                   "<user>", "exec")
    with pytest.raises(OutsideRandomness), refusing():
        exec(code, {"__name__": "usercode"})
