"""Issue 34, strict mode: `--strict` / `strict=True` verifies the mechanism's source pure
before any of it runs (`betweencut.boundary.purity`). Every mechanism in `examples/` and the
corpus passes it; the memo, the counter, outside randomness and their variants are refused
statically, naming the file, the line and the construct: each of them raises if it is ever
called, so a refusal that ran it would say "ran"."""

from __future__ import annotations

import importlib
import inspect
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from cli_in_process import cli, user_module

from betweencut.api import audit_corpus, audit_depth, audit_mechanism
from betweencut.boundary.purity import NotPure, check_pure
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.testing import assert_private

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"

MECHANISMS = '''
import functools
import itertools
import random
from fractions import Fraction
from random import random as drawn

from betweencut.mechanism.betweencut import BetweenCut
from betweencut.noise.noisy_queries import AboveThreshold
from betweencut.noise.noisy_test import BTQuery

CACHE = {}
COUNT = [0]
CALLS = 0
RNG = random.Random(0)
TICKS = itertools.count()


def never():
    raise RuntimeError("ran")


def ask(db, test):
    return test(BTQuery(len(db), 1, 3, Fraction(1, 2)))


def memo(db, test):
    never()
    key = tuple(db)
    if key not in CACHE:
        CACHE[key] = ask(db, test)
    return CACHE[key]


def memo_setdefault(db, test):
    never()
    return CACHE.setdefault(tuple(db), ask(db, test))


def counter(db, test):
    never()
    COUNT[0] += 1
    return ask(db, test), COUNT[0] > 100


def global_write(db, test):
    never()
    global CALLS
    CALLS += 1
    return ask(db, test)


def default_memo(db, test, seen={}):
    never()
    seen[tuple(db)] = True
    return ask(db, test), len(seen)


@functools.lru_cache(maxsize=None)
def cached(db, test):
    never()
    return ask(db, test)


def attribute_state(db, test):
    never()
    attribute_state.calls = getattr(attribute_state, "calls", 0) + 1
    return ask(db, test)


def make_closure():
    calls = [0]

    def run(db, test):
        never()
        calls.append(1)
        return ask(db, test)

    return run


closure = make_closure()


def make_nonlocal():
    calls = 0

    def run(db, test):
        never()
        nonlocal calls
        calls += 1
        return ask(db, test)

    return run


with_nonlocal = make_nonlocal()


def outside(db, test):
    never()
    return ask(db, test), random.random() < 1e-3


def captured(db, test):
    never()
    return ask(db, test), drawn() < 1e-3


def instance(db, test):
    never()
    return ask(db, test), RNG.random() < 1e-3


def ticks(db, test):
    never()
    return ask(db, test), next(TICKS)


def evaluated(db, test):
    never()
    return eval("len(db)")


def opened(db, test):
    never()
    with open("/dev/urandom", "rb") as f:
        return ask(db, test), f.read(1)


def set_attribute(db, test):
    never()
    setattr(ask, "calls", 1)
    return ask(db, test)


def dynamic_getattr(db, test):
    never()
    name = "ask"
    return getattr(sys_module(), name)(db, test)


def sys_module():
    import sys
    return sys.modules[__name__]


def dunder(db, test):
    never()
    return ask.__dict__.setdefault("n", ask(db, test))


def mutates_database(db, test):
    never()
    db.append((0, 0))
    return ask(db, test)


def calls_impure(db, test):
    never()
    return helper(db, test)


def helper(db, test):
    CACHE[len(db)] = 1
    return ask(db, test)


class Remembers(BetweenCut):
    def apply(self, *args, **kwargs):
        never()
        self.seen = True
        return super().apply(*args, **kwargs)


def pure(db, test):
    out = []
    for i in range(2):
        out.append(test(BTQuery(len(db) + i, 1, 3, Fraction(1, 2))))
    total = functools.reduce(lambda a, b: a + (1 if b else 0), out, 0)
    return tuple(out), total


class Pure(BetweenCut):
    def __init__(self, tree, params):
        super().__init__(tree, params)
        self.label = "pure"


def corpus_pure(q, test):
    return test(AboveThreshold(q[0], Fraction(0), Fraction(2)))


def corpus_memo(q, test):
    never()
    CACHE[q] = test(AboveThreshold(q[0], Fraction(0), Fraction(2)))
    return CACHE[q]
'''

REFUSED = {
    "memo": "writes CACHE[key]", "memo_setdefault": "calls CACHE.setdefault()",
    "counter": "writes COUNT[0]", "global_write": "global CALLS",
    "default_memo": "writes seen[tuple(db)]", "cached": "functools.lru_cache",
    "attribute_state": "writes attribute_state.calls", "closure": "calls calls.append()",
    "with_nonlocal": "nonlocal calls", "outside": "uses module random",
    "captured": "uses drawn", "instance": "uses RNG", "ticks": "itertools.count",
    "evaluated": "calls eval()", "opened": "calls open()", "set_attribute": "calls setattr()",
    "dynamic_getattr": "getattr with a name computed at run time", "dunder": "__dict__",
    "mutates_database": "calls db.append()", "calls_impure": "writes CACHE[len(db)]",
    "Remembers": "writes self.seen",
}


@pytest.fixture
def mechs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The module `puremechs` in a fresh folder, the working directory (as a user runs it)."""
    user_module(tmp_path, monkeypatch, "puremechs", MECHANISMS)
    return importlib.import_module("puremechs")



def example_mechanisms() -> list[tuple[str, str]]:
    found = []
    for path in sorted(EXAMPLES.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        for line in text.splitlines():
            if line.startswith(("def ", "class ")) and not line.split()[1].startswith("_"):
                found.append((path.stem, line.split()[1].split("(")[0].rstrip(":")))
    return found


@pytest.mark.parametrize(("module", "name"), example_mechanisms())
def test_every_example_passes_strict_mode(module: str, name: str,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLES))
    target = getattr(importlib.import_module(module), name)
    check_pure(target, f"{module}:{name}")


def test_the_corpus_rows_and_published_rows_pass_strict_mode() -> None:
    """The package's own rows (the corpus, the published bugs) are trusted as the code the
    proofs check: strict mode passes them."""
    from betweencut.proofs.baselines.corpus_checks import published_rows
    from betweencut.proofs.baselines.corpus_checks.corpus import corpus_rows_all

    for row in corpus_rows_all():
        check_pure(row.make(row.m), row.name)
    runs = [f for name, f in vars(published_rows).items() if inspect.isfunction(f)
            and list(inspect.signature(f).parameters) == ["db", "test"]]
    assert runs
    for run in runs:
        check_pure(run, run.__name__)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_strict_mode_refuses_statically_naming_file_line_and_construct(mechs: Any, name: str
                                                                       ) -> None:
    with pytest.raises(NotPure) as caught:
        check_pure(getattr(mechs, name), f"puremechs:{name}")
    text = str(caught.value)
    assert REFUSED[name] in text and "puremechs.py:" in text, text
    assert "RuntimeError" not in text


@pytest.mark.parametrize("name", ["memo", "counter", "outside", "default_memo", "cached"])
def test_audit_privacy_strict_exits_2_before_running_the_mechanism(mechs: Any, name: str
                                                                   ) -> None:
    status, out, err = cli(["audit", "privacy", "--strict", "--mechanism", f"puremechs:{name}",
                            "--height", "3", "--epsilon", "1", "--delta", "0", "--db", "0/0",
                            "--add", "0/1"])
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1 and "strict mode: " in lines[0], err
    assert "puremechs.py:" in lines[0] and "RuntimeError" not in err and out == ""


def test_a_pure_mechanism_passes_and_its_verdict_says_pure_verified(mechs: Any) -> None:
    status, out, err = cli(["audit", "privacy", "--strict", "--mechanism", "puremechs:pure",
                            "--height", "3", "--epsilon", "1", "--delta", "0", "--exhaustive",
                            "1"])
    assert status == 0 and "checked: pure: verified" in out, err
    verdict = audit_mechanism("puremechs:pure", exhaustive=1, height=3, epsilon=1, delta=0,
                              strict=True)
    items = {i["item"]: i for i in verdict.as_json()["assumes"]}
    assert items["hidden_state"]["status"] == "checked"
    assert items["hidden_state"]["what"].startswith("pure: verified")
    plain = audit_mechanism("puremechs:pure", exhaustive=1, height=3, epsilon=1, delta=0)
    assert "pure: verified" not in plain.text()


def test_strict_true_through_every_entry(mechs: Any, pytester: pytest.Pytester) -> None:
    with pytest.raises(NotPure, match="writes CACHE"):
        audit_mechanism("puremechs:memo", [("0/0", "0/1")], height=3, epsilon=1, delta=0,
                        strict=True)
    with pytest.raises(NotPure, match="writes CACHE"):
        assert_private("puremechs:memo", 1, 0, pairs=[("0/0", "0/1")], height=3, strict=True)
    assert assert_private("puremechs:pure", 1, 0, pairs=[("0/0", "0/1")], height=3,
                          strict=True).holds
    with pytest.raises(NotPure, match="writes CACHE"):
        audit_corpus(mechanism="puremechs:corpus_memo", strict=True)
    corpus = audit_corpus(mechanism="puremechs:corpus_pure", strict=True)
    assert "pure: verified" in corpus.text()
    with pytest.raises(NotPure, match=r"writes self\.seen"):
        audit_depth(3, tau=4, lam=Fraction(1, 2), R=2, count=1, variant=mechs.Remembers,
                    strict=True)
    depth = audit_depth(3, tau=4, lam=Fraction(1, 2), R=2, count=1, variant=mechs.Pure,
                        strict=True)
    assert "pure: verified" in depth.text()
    with pytest.raises(NotPure, match="writes CACHE"):  # the baseline is verified too
        audit_mechanism("puremechs:pure", [("0/0", "0/1")], height=3, epsilon=1, delta=0,
                        baseline="puremechs:memo", strict=True)
    pytester.makepyfile(test_snap="""
        import pytest
        from betweencut.boundary.purity import NotPure

        def test_snap(privacy_snapshot):
            with pytest.raises(NotPure, match="writes CACHE"):
                privacy_snapshot("puremechs:memo", [("0/0", "0/1")], height=3, strict=True)
    """)
    pytester.syspathinsert(str(Path(mechs.__file__).parent))
    pytester.runpytest("-p", "no:cacheprovider", "-q").assert_outcomes(passed=1)


def test_source_that_cannot_be_read_is_refused() -> None:
    made: dict[str, Any] = {}
    exec("def typed(db, test):\n    return test", made)  # as if typed at the prompt
    with pytest.raises(NotPure, match="cannot be read"):
        check_pure(made["typed"], "typed")
    with pytest.raises(NotPure, match="cannot be read"):
        check_pure(max, "max")


def test_the_package_own_mechanism_is_trusted_and_strict_needs_a_mechanism() -> None:
    assert check_pure(BetweenCut, "BetweenCut").checked == []
    status, _, err = cli(["audit", "privacy", "--strict", "--height", "3", "--tau", "2",
                          "--lam", "1/2", "--R", "2"])
    assert status == 2 and "--strict goes with --mechanism" in err
