"""The route of ε (issue 38): following ε from `betweencut audit privacy` to the hockey stick
passes each module at most once, on the route `CONTRIBUTING.md` lists; and no string comparison
of an accountant's name outside argument parsing (the accountant is a value past the parser).

The route is measured, not read: a small audit runs in this process (isolation off), a profile
hook records the call stack (the package's modules, outermost first) at every call of a
function named `hockey_stick`, and each stack must hold each module in one contiguous run
(never left and re-entered); the first stack is the route.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from cli_in_process import cli, user_module

from betweencut.boundary.isolation import isolating

ROOT = Path(__file__).resolve().parents[2]
AUDIT = ["audit", "privacy", "--height", "2", "--lam", "1/2", "--R", "2", "--tau", "2",
         "--db", "0", "--add", "1"]
HOCKEY_STICK = "hockey_stick"
# wrappers, not hops: `boundary.seal.sealing` wraps each audit (the command's and the library's)
# to check the audit's own code before its verdict leaves; ε does not pass through it
WRAPPERS = {"betweencut.boundary.seal"}


def stack_modules(frame: FrameType | None) -> list[str]:
    """The package's modules on the call stack from `frame` out, outermost first (the
    `WRAPPERS` left out)."""
    found = []
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if (name == "betweencut" or name.startswith("betweencut.")) and name not in WRAPPERS:
            found.append(name)
        frame = frame.f_back
    return found[::-1]


def runs(modules: list[str]) -> list[str]:
    """`modules` with each run of one module written once."""
    return [m for i, m in enumerate(modules) if i == 0 or modules[i - 1] != m]


def reentered(modules: list[str]) -> list[str]:
    """The modules left and entered again along `modules` (each should form one run)."""
    once = runs(modules)
    return sorted({m for m in once if once.count(m) > 1})


def at_hockey_sticks(argv: list[str], seen: Callable[[FrameType], None]) -> int:
    """`betweencut ARGV` in process, isolation off, calling `seen(frame)` at every call of a
    function of the package named `hockey_stick`; its exit status (0, asserted)."""

    def hook(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_name == HOCKEY_STICK and \
                frame.f_globals.get("__name__", "").startswith("betweencut."):
            seen(frame)

    with isolating(False):
        previous = sys.getprofile()
        sys.setprofile(hook)
        try:
            status, _, err = cli(argv)
        finally:
            sys.setprofile(previous)
    assert status == 0, err
    return status


def measured_stacks(argv: list[str]) -> tuple[int, list[list[str]]]:
    """`betweencut ARGV` in process, isolation off: its exit status and the stack of modules
    at every call of a function named `hockey_stick`."""
    stacks: list[list[str]] = []
    status = at_hockey_sticks(argv, lambda frame: stacks.append(stack_modules(frame)))
    return status, stacks


def listed_route() -> list[str]:
    """The route as `CONTRIBUTING.md` lists it (the indented block of its section)."""
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = text.split("## The route of ε", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^    (betweencut[\w.]*)\b", section, flags=re.MULTILINE)


def test_epsilon_passes_each_module_once_on_the_listed_route() -> None:
    _, stacks = measured_stacks(AUDIT)
    assert stacks, f"no function named {HOCKEY_STICK} was called"
    for stack in stacks:
        assert reentered(stack) == [], " -> ".join(runs(stack))
    assert runs(stacks[0]) == listed_route()


USER = """
from fractions import Fraction
from betweencut.noise.noisy_test import BTQuery

def one_test(db, test):
    return test(BTQuery(Fraction(len(db)), Fraction(1, 2), Fraction(1, 2), Fraction(1)))
"""


def test_a_user_mechanism_passes_each_module_once(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The same for a user's function `(db, test)` (its code in the package's wrappers: the
    loader's guard runs it, below the enumeration, and is left before the hockey stick)."""
    user_module(tmp_path, monkeypatch, "route_user", USER)
    _, stacks = measured_stacks(["audit", "privacy", "--mechanism", "route_user:one_test",
                                 "--height", "2", "--epsilon", "1", "--delta", "0",
                                 "--db", "0", "--add", "1"])
    assert stacks, f"no function named {HOCKEY_STICK} was called"
    for stack in stacks:
        assert reentered(stack) == [], " -> ".join(runs(stack))
    assert "betweencut.proofs.privacy.audit.run" in stacks[0]


def test_a_module_left_and_reentered_is_caught() -> None:
    route = ["betweencut.cli", "betweencut.api.mechanism", "betweencut.proofs.x",
             "betweencut.proofs.x", "betweencut.api.mechanism", "betweencut.proofs.y"]
    assert reentered(route) == ["betweencut.api.mechanism"]
    assert reentered(runs(route)[:3]) == []


# -- ε range-checked once ----------------------------------------------------------------------


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every range check of an `ε` from now on: the constructions of `ClaimedEpsilon` (the one
    check; `checked_epsilon` constructs one for any value not yet checked)."""
    from betweencut.proofs.verdict import ClaimedEpsilon

    seen: list[object] = []
    check = ClaimedEpsilon.__new__

    def counted(cls: type[ClaimedEpsilon], value: object, name: str = "eps") -> ClaimedEpsilon:
        seen.append(value)
        return check(cls, value, name)

    monkeypatch.setattr(ClaimedEpsilon, "__new__", counted)
    return seen


def test_epsilon_is_range_checked_once_per_claimed_point(checks: list[object]) -> None:
    """On the route's audit (Theorem 5.4's points `rλ`, `r = 1..L`), each claimed `ε` is checked
    once, where the claim is built; `audit_pairs`, the cache, the curves and the hockey sticks
    take the checked values as they are."""
    with isolating(False):
        status, out, err = cli([*AUDIT, "--json"])
    assert status == 0, err
    points = json.loads(out)["claim"]["points"]
    assert len(points) > 1
    assert len(checks) == len(points), checks


def test_a_given_epsilon_is_range_checked_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              checks: list[object]) -> None:
    """`--epsilon` of a user's mechanism: read once by the parser, checked once by the API."""
    user_module(tmp_path, monkeypatch, "route_once", USER)
    with isolating(False):
        status, _, err = cli(["audit", "privacy", "--mechanism", "route_once:one_test",
                              "--height", "2", "--epsilon", "1", "--delta", "0", "--db", "0",
                              "--add", "1"])
    assert status == 0, err
    assert checks == [Fraction(1)]


def test_a_privtree_epsilon_is_range_checked_once(monkeypatch: pytest.MonkeyPatch,
                                                  checks: list[object]) -> None:
    """The PrivTree kind too (`audit_privtree_run`): the API checks `--epsilon` once; the
    bound over every pair covered and the decisive pair's audit take it as it is."""
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    with isolating(False):
        status, _, err = cli(["audit", "privacy", "--mechanism", "my_privtree:privtree_closed",
                              "--exhaustive", "1", "--epsilon", "1", "--delta", "0"])
    assert status in (0, 1), err
    assert checks == [Fraction(1)]


def _route_curves() -> list[Any]:
    """The pair curves the route's audit asks for a hockey stick (the objects, not copies)."""
    curves: list[Any] = []

    def seen(frame: FrameType) -> None:
        curve = frame.f_locals.get("self")
        if curve is not None and not any(c is curve for c in curves):
            curves.append(curve)

    at_hockey_sticks(AUDIT, seen)
    return curves


def _entries() -> list[tuple[str, Any]]:
    """Every public entry that takes a raw `ε`, each called with `ε = -1`."""
    import betweencut
    from betweencut.noise.noisy_test import BTQuery, NoisyTest, Outcome
    from betweencut.proofs.baselines.corpus_checks.gaussian_pairs import (
        GaussianGridPair,
        discrete_gaussian_delta,
    )
    from betweencut.proofs.exact.arith import ExpPoly
    from betweencut.proofs.laws.discrete_gaussian import cks_delta
    from betweencut.proofs.privacy.audit.pairs import audit_pairs
    from betweencut.proofs.privacy.divergence import joint
    from betweencut.proofs.privacy.divergence.components import ComponentJoint
    from betweencut.proofs.privacy.divergence.curve import curve_of_laws
    from betweencut.proofs.privacy.enumeration import shared_noise
    from betweencut.proofs.privacy.enumeration.transcripts import enumerate_mechanism
    from betweencut.proofs.verdict import checked_epsilon, claim_point, dp_point

    def run(db: tuple[object, ...], test: NoisyTest) -> Outcome:
        return test(BTQuery(Fraction(len(db)), Fraction(1, 2), Fraction(1, 2), Fraction(1)))

    p, q = (joint.Law(enumerate_mechanism(lambda t, db=db: run(db, t)).grouped(lambda o: o))
            for db in ((), ((0,),)))
    one = {"a": ExpPoly.const(1)}
    minus = Fraction(-1)
    entries: list[tuple[str, Any]] = [
        ("checked_epsilon", lambda: checked_epsilon(-1)),
        ("claim_point", lambda: claim_point((-1, 0))),
        ("claim_point checker's", lambda: claim_point((minus, 0), limits=False)),
        ("dp_point", lambda: dp_point(-1, 0)),
        ("audit_mechanism", lambda: betweencut.audit_mechanism(
            run, [((), (0,))], epsilon=minus, delta=0, height=2)),
        ("audit_pairs", lambda: audit_pairs(run, [((), (0,))], [(minus, 0)])),
        ("joint.hockey_stick", lambda: joint.hockey_stick(p, q, minus)),
        ("joint.divergence", lambda: joint.divergence(p, q, minus)),
        ("Joint.hockey_stick backward", lambda: joint.Joint(p, q).hockey_stick(minus, False)),
        ("PrivacyCurve.at", lambda: curve_of_laws(p, q).at(minus)),
        ("shared_noise.hockey_stick",
         lambda: shared_noise.hockey_stick(one, one, ["a"], minus, True)),
        ("ExactJoint.divergence", lambda: shared_noise.ExactJoint(one, one).divergence(minus)),
        ("ComponentJoint.hockey_stick", lambda: ComponentJoint([]).hockey_stick(minus)),
        ("GaussianGridPair.delta", lambda: GaussianGridPair.delta(  # checked before any work
            object.__new__(GaussianGridPair), minus)),
        ("discrete_gaussian_delta", lambda: discrete_gaussian_delta(minus, Fraction(1), 1)),
        ("cks_delta", lambda: cks_delta(minus, Fraction(1), 1)),
    ]
    for curve in _route_curves():
        name = type(curve).__name__
        entries += [(f"{name}.hockey_stick (the route's)", lambda c=curve: c.hockey_stick(minus)),
                    (f"{name}.divergence (the route's)", lambda c=curve: c.divergence(minus))]
    return entries


def test_a_raw_negative_epsilon_is_refused_at_every_public_entry() -> None:
    from betweencut.errors import ParameterError

    entries = _entries()
    assert any("the route's" in name for name, _ in entries)
    for name, call in entries:
        with pytest.raises(ParameterError, match="eps"):
            call()
            pytest.fail(f"{name} took eps = -1")


# -- the accountant a value --------------------------------------------------------------------

NAMES = {"paper", "tight", "kov", "envelope"}
# where a name is read (argument parsing): the enum's own reading and the lookups by name
PARSERS = {("betweencut.mechanism.calibration", "of"),
           ("betweencut.proofs.privacy.accountants.accountant",
                                               "accountant")}


def _names_compared(node: ast.Compare) -> bool:
    sides = [node.left, *node.comparators]
    for side in sides:
        items = side.elts if isinstance(side, ast.Tuple | ast.List | ast.Set) else [side]
        if any(isinstance(i, ast.Constant) and i.value in NAMES for i in items):
            return True
    return False


def accountant_comparisons(module: str, source: str) -> list[str]:
    """Comparisons (`==`, `!=`, `in`, `not in`) of an accountant's name written out, outside
    the parsers (`PARSERS`), as `module:function:line`."""
    found = []

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                visit(child, child.name)
                continue
            if isinstance(child, ast.Compare) and _names_compared(child) and (
                    module, function) not in PARSERS:
                found.append(f"{module}:{function}:{child.lineno}")
            visit(child, function)

    visit(ast.parse(source), "")
    return found


def test_no_string_comparison_of_an_accountant_name() -> None:
    from package_modules import modules

    found = [hit for module, path in sorted(modules().items())
             for hit in accountant_comparisons(module, path.read_text(encoding="utf-8"))]
    assert found == []


def test_a_string_comparison_of_an_accountant_name_is_caught() -> None:
    source = ("def f(a):\n    return a == 'paper'\n"
              "def g(a):\n    return a in ('paper', 'tight')\n"
              "def h(a):\n    return a is Kind.PAPER\n")
    assert accountant_comparisons("betweencut.x", source) == ["betweencut.x:f:2",
                                                               "betweencut.x:g:4"]


def test_the_parser_reads_every_accountant_and_nothing_else() -> None:
    from betweencut.cli._common import ACCOUNTANT_NAMES, accountant_kind
    from betweencut.mechanism.calibration import AccountantKind

    assert tuple(k.value for k in AccountantKind) == ACCOUNTANT_NAMES
    assert [accountant_kind(n) for n in ACCOUNTANT_NAMES] == list(AccountantKind)
    status, _, err = cli(["calibrate", "--height", "3", "--epsilon", "1", "--delta", "1/20",
                          "--accountant", "kov"])
    assert status == 2 and "--accountant" in err
