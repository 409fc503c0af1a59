"""Issue 34, classes 1 and 5, and issue 40 item 3: the user's code runs in child processes
(`betweencut.boundary.isolation`), so its exit, signals, closed streams and hangs are an error of
the audit (exit 2, one line naming the mechanism), never its exit status; and each database's
law is enumerated in two fresh children in two orders, so state carried between runs is
refused, never certified (`betweencut.proofs.privacy.enumeration.isolated`)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from cli_in_process import cli, one_line_exit_2

from betweencut.api import audit_mechanism
from betweencut.boundary import isolation
from betweencut.boundary.isolation import in_child, isolating
from betweencut.errors import MechanismError, ParameterError
from betweencut.proofs.privacy.enumeration.transcripts import MechanismNotReplayable

ROOT = Path(__file__).resolve().parents[3]
TEXT = (ROOT / "tests" / "isolation_mechanisms.py").read_text(encoding="utf-8")
ENDINGS = ["os_exit0", "os_exit3", "sys_exit0", "abort", "sigkill", "sigterm", "hang"]
CRIPPLING = ["close_fd1", "close_stdout", "junk"]
HIDDEN = ["memo", "counter", "default_list", "attribute", "cached", "across", "module_global",
          "env_var"]
PAIR = ["--height", "3", "--epsilon", "1", "--delta", "0", "--db", "0/0", "--add", "0/1"]
BUILDER = ["--height", "3", "--tau", "2", "--lam", "1/2", "--R", "2", "--db", "0/0", "--add",
           "0/1"]


def module_ending(kind: str) -> str:
    """A user module whose import does what `kind` names, then defines `good`."""
    ending = {"os_exit0": "os._exit(0)", "os_exit3": "os._exit(3)", "sys_exit0": "sys.exit(0)",
              "abort": "os.abort()", "sigkill": "os.kill(os.getpid(), signal.SIGKILL)",
              "sigterm": "os.kill(os.getpid(), signal.SIGTERM)", "hang": "time.sleep(120)",
              "loop": "while True:\n    pass"}[kind]
    return ("import os, signal, sys, time\nfrom fractions import Fraction\n"
            "from betweencut.noise.noisy_test import BTQuery\n" + ending + "\n\n"
            "def good(db, test):\n    return test(BTQuery(len(db), 1, 3, Fraction(1, 2)))\n")


@pytest.fixture
def mechs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The module `isomechs` (and `endmod_KIND` modules) in a fresh working directory."""
    (tmp_path / "isomechs.py").write_text(TEXT)
    for kind in [*ENDINGS, "loop"]:
        (tmp_path / f"endmod_{kind}.py").write_text(module_ending(kind))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("ISOMECHS_FIRST", raising=False)
    for name in list(sys.modules):
        if name == "isomechs" or name.startswith("endmod_"):
            sys.modules.pop(name)
    return tmp_path




# -- the child process, alone ---------------------------------------------------------------
def _exits(code: int) -> bytes:
    os._exit(code)


def _signal(number: int) -> bytes:
    os.kill(os.getpid(), number)
    return b"never"


def _raises() -> bytes:
    raise ValueError("broken\nsecond line")


def _parameter() -> bytes:
    raise ParameterError("limit", 3, "a positive integer")


def _closes_everything() -> bytes:
    os.close(1)
    os.close(2)
    sys.stdout.close()
    return b"still here"


@pytest.mark.parametrize(("work", "said"), [
    (lambda: _exits(0), "ended its process (exit status 0) on D"),
    (lambda: _exits(3), "ended its process (exit status 3) on D"),
    (lambda: sys.exit(0), "raised SystemExit: 0 on D"),
    (os.abort, "ended its process (killed by SIGABRT) on D"),
    (lambda: _signal(signal.SIGKILL), "ended its process (killed by SIGKILL) on D"),
    (lambda: _signal(signal.SIGTERM), "ended its process (killed by SIGTERM) on D"),
    (_raises, "raised ValueError: broken on D"),
    (lambda: (_ for _ in ()).throw(KeyboardInterrupt()), "raised KeyboardInterrupt on D"),
])
def test_a_child_that_ends_is_one_mechanism_error(work: object, said: str) -> None:
    with pytest.raises(MechanismError) as raised:
        in_child(work, "mechs:f", "on D = {0/0}")  # type: ignore[arg-type]
    assert str(raised.value).startswith("the mechanism mechs:f ")
    assert said in str(raised.value) and "\n" not in str(raised.value)


def test_a_hang_is_stopped_at_the_limit() -> None:
    import time

    with pytest.raises(MechanismError, match=r"did not finish within 0\.5 s on D = \{0/0\}"):
        in_child(lambda: time.sleep(30) or b"", "mechs:f", "on D = {0/0}", limit=0.5)


def test_the_packages_errors_come_back_as_themselves() -> None:
    with pytest.raises(ParameterError) as raised:
        in_child(_parameter, "mechs:f", "on D = {}")
    assert raised.value.name == "limit" and "a positive integer" in str(raised.value)


def test_closed_streams_in_the_child_leave_the_parents_alone(
        capfd: pytest.CaptureFixture[str]) -> None:
    assert in_child(_closes_everything, "mechs:f", "") == b"still here"
    print("parent still prints")
    assert "parent still prints" in capfd.readouterr().out


# -- the command line: every ending is exit 2, one line ---------------------------------------
@pytest.mark.parametrize("kind", ENDINGS)
@pytest.mark.parametrize("where", ["function", "builder", "baseline", "import"])
def test_ending_the_process_exits_2_with_one_line(mechs: Path, kind: str, where: str) -> None:
    argv = {
        "function": ["--mechanism", f"isomechs:f_{kind}", *PAIR],
        "builder": ["--mechanism", f"isomechs:B_{kind}", *BUILDER],
        "baseline": ["--mechanism", "isomechs:good", "--baseline", f"isomechs:f_{kind}", *PAIR],
        "import": ["--mechanism", f"endmod_{kind}:good", *PAIR],
    }[where]
    status, out, err = cli(["audit", "privacy", *argv, "--budget", "2"])
    line = one_line_exit_2(status, err)
    assert out == ""
    if kind != "hang" or where != "import":
        assert "isomechs" in line or "endmod_" in line, line


def test_a_module_looping_at_import_stops_within_the_budget(mechs: Path) -> None:
    """Issue 40 item 3: the import runs in a child, inside `--budget`."""
    import time

    started = time.monotonic()
    status, _, err = cli(["audit", "privacy", "--mechanism", "endmod_loop:good", *PAIR,
                          "--budget", "1"])
    line = one_line_exit_2(status, err)
    assert "endmod_loop" in line and "while importing it" in line
    assert time.monotonic() - started < 10


@pytest.mark.parametrize("command", [
    ["audit", "privacy", "--mechanism", "isomechs:shared_os_exit0", *PAIR],
    ["audit", "corpus", "--mechanism", "isomechs:corpus_os_exit0"],
    ["audit", "privacy", "--mechanism", "isomechs:field_os_exit0", *PAIR],
    ["audit", "privacy", "--mechanism", "isomechs:gaussian_os_exit0", "--height", "3",
     "--epsilon", "1", "--delta", "1/10", "--db", "0/0", "--add", "0/1"],
    ["audit", "privacy", "--mechanism", "isomechs:privtree_os_exit0", "--db", "{}", "--add",
     "1", "--epsilon", "1", "--delta", "0"],
])
def test_shared_noise_corpus_and_privtree_mechanisms_cannot_end_the_audit(
        mechs: Path, command: list[str]) -> None:
    status, _, err = cli(command)
    assert "ended its process (exit status 0)" in one_line_exit_2(status, err)


@pytest.mark.parametrize("kind", CRIPPLING)
def test_closing_or_writing_the_streams_does_not_touch_the_audits_output(
        mechs: Path, kind: str) -> None:
    """Run as a user runs it (a real process, fds 0-2 its own): the JSON verdict is whole."""
    ran = subprocess.run(
        [sys.executable, "-m", "betweencut", "audit", "privacy", "--mechanism",
         f"isomechs:f_{kind}", *PAIR, "--json"], capture_output=True, text=True, cwd=mechs,
        timeout=120, check=False)
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["holds"] is True
    assert "junk on" not in ran.stdout + ran.stderr and "junk!" not in ran.stderr


def test_a_real_process_ending_in_the_mechanism_exits_2(mechs: Path) -> None:
    """`os._exit(0)` used to end `audit privacy` with exit 0 and an empty stdout."""
    ran = subprocess.run(
        [sys.executable, "-c", "import sys; from betweencut.cli import main; "
         "sys.exit(main(sys.argv[1:]))", "audit", "privacy", "--mechanism",
         "isomechs:f_os_exit0", *PAIR], capture_output=True, text=True, timeout=120,
        check=False, cwd=mechs)
    assert ran.returncode == 2 and ran.stdout == ""
    assert ran.stderr.count("\n") == 1 and "ended its process (exit status 0)" in ran.stderr


# -- under pytest: the API raises -------------------------------------------------------------
@pytest.mark.parametrize("kind", ["os_exit0", "abort", "sigkill"])
def test_the_api_and_assert_private_raise_mechanism_error(mechs: Path, kind: str) -> None:
    from betweencut.testing import assert_private

    with pytest.raises(MechanismError, match=f"isomechs:f_{kind} ended its process"):
        audit_mechanism(f"isomechs:f_{kind}", [("0/0", "0/1")], height=3, epsilon=1, delta=0)
    with pytest.raises(MechanismError, match="ended its process"):
        assert_private(f"isomechs:f_{kind}", 1, 0, pairs=[("0/0", "0/1")], height=3)


def test_the_api_hang_watchdog_without_a_budget(mechs: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(isolation, "HANG_SECONDS", 0.5)
    with pytest.raises(MechanismError, match=r"did not finish within 0\.5 s"):
        audit_mechanism("isomechs:f_hang", [("0/0", "0/1")], height=3, epsilon=1, delta=0)


# -- hidden state (class 1): refused, never "holds" -------------------------------------------
@pytest.mark.parametrize("name", HIDDEN)
def test_hidden_state_is_refused_by_audit_privacy(mechs: Path, name: str) -> None:
    status, out, err = cli(["audit", "privacy", "--mechanism", f"isomechs:{name}", *PAIR])
    line = one_line_exit_2(status, err)
    assert "the output depends on something besides the database and the answers" in line
    assert "holds" not in out


@pytest.mark.parametrize("name", ["memo", "counter", "across"])
def test_hidden_state_is_refused_by_every_entry_point(mechs: Path, name: str) -> None:
    from betweencut.testing import assert_private
    from betweencut.testing.curves import pair_curves

    spec = f"isomechs:{name}"
    with pytest.raises(MechanismNotReplayable, match="besides the database"):
        audit_mechanism(spec, exhaustive=1, height=2, epsilon=Fraction(1, 4), delta=0)
    with pytest.raises(MechanismNotReplayable, match="besides the database"):
        assert_private(spec, Fraction(1, 4), 0, exhaustive=1, height=2)
    with pytest.raises(MechanismNotReplayable, match="besides the database"):
        pair_curves(spec, [("0/0", "0/1")], height=3)  # what privacy_snapshot records
    status, _, err = cli(["audit", "privacy", "--mechanism", spec, "--height", "2",
                          "--epsilon", "1/4", "--delta", "0", "--search", "3"])
    assert "besides the database" in one_line_exit_2(status, err)


def test_hidden_state_is_refused_by_audit_corpus(mechs: Path) -> None:
    status, _, err = cli(["audit", "corpus", "--mechanism", "isomechs:corpus_memo"])
    assert "besides the database and the answers" in one_line_exit_2(status, err)


def test_the_memo_was_certified_before(mechs: Path) -> None:
    """The issue's case: the memo per database, audited in one process (the old path), is
    certified (1/4, 0)-DP though its true delta(1/4) is about 0.11; isolated, it is refused.
    (Isolated first: the old path leaves its memo in this process, which children inherit.)
    The old path is in process AND without the release-path replay, which refuses it too: its
    fresh interpreter draws answers the memo's first run did not."""
    from betweencut.boundary.release_replay import ReleasePathDiffers, replaying

    with pytest.raises(MechanismNotReplayable):
        audit_mechanism("isomechs:memo", [("0/0", "0/1")], height=3, epsilon=Fraction(1, 4),
                        delta=0)
    with isolating(False), replaying(False):
        verdict = audit_mechanism("isomechs:memo", [("0/0", "0/1")], height=3,
                                  epsilon=Fraction(1, 4), delta=0)
    assert verdict.holds
    with isolating(False), pytest.raises(ReleasePathDiffers):
        audit_mechanism("isomechs:memo", [("0/0", "0/1")], height=3, epsilon=Fraction(1, 4),
                        delta=0)


# -- the fast path answers to the slow one ----------------------------------------------------
EXAMPLES = [("my_mechanism", "flag", {"height": 3}, 1),
            ("my_mechanism", "flag_v2", {"height": 3}, 1),
            ("my_svt", "svt", {"height": 2}, 2),
            ("my_field_mechanism", "busiest_branch", {"height": 2}, 1)]


@pytest.mark.parametrize(("module", "name", "tree", "size"), EXAMPLES)
def test_isolated_and_in_process_laws_agree_on_the_examples(
        monkeypatch: pytest.MonkeyPatch, module: str, name: str, tree: dict[str, int],
        size: int) -> None:
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    spec = f"{module}:{name}"

    def audit() -> object:
        return audit_mechanism(spec, exhaustive=size, epsilon=1, delta=0, **tree)

    with isolating(False):
        alone = audit().as_json()  # type: ignore[attr-defined]
    isolated = audit().as_json()  # type: ignore[attr-defined]
    for key in ("holds", "rows", "facts", "refutation", "pairs"):
        assert isolated.get(key) == alone.get(key), key


def test_audit_depth_builds_a_users_variant_in_a_child_first(mechs: Path) -> None:
    """`audit_depth(variant=...)` builds your subclass: first in a child (its exit is an error)."""
    import importlib

    from betweencut.api import audit_depth

    variant = importlib.import_module("isomechs").B_os_exit0
    with pytest.raises(MechanismError, match=r"ended its process \(exit status 0\) while building"):
        audit_depth(3, tau=8, lam=Fraction(1, 2), R=2, variant=variant)


def test_the_comparison_names_the_answers_and_both_outputs() -> None:
    """`isolated.differ`, the one comparison, against agreeing and disagreeing runs."""
    from betweencut.proofs.privacy.enumeration.isolated import decode, differ, identity

    h, l_ = identity(("H",)).hex(), identity(("L",)).hex()
    same = {"H": (("f1",), (h,)), "L": (("f2",), (l_,))}
    assert differ(same, dict(same)) is None
    swapped = {"H": (("f1",), (l_,)), "L": (("f2",), (l_,))}
    why = differ(same, swapped)
    assert why is not None
    assert why.startswith("the answers H gave ('H',) in one fresh process and ('L',)"), why
    assert "were met in one fresh process" in str(differ(same, {"H": same["H"]}))
    assert "other noisy tests" in str(differ(same, {**same, "L": (("f3",), (l_,))}))
    with pytest.raises(ParameterError, match="child result"):
        decode(b'{"not": "an enumeration"}')


def test_identity_tells_apart_what_equality_merges() -> None:
    """The canonical encoder (`boundary.encoding`) decides: types and float bits are part of the
    identity; a bare object has none."""
    from decimal import Decimal

    from betweencut.proofs.privacy.enumeration.isolated import identity

    assert identity(0.0) != identity(-0.0) and identity(1) != identity(True)
    assert identity(Decimal("1.0")) != identity(Decimal("1.00"))
    assert identity(frozenset({1, 2})) == identity(frozenset({2, 1}))
    with pytest.raises(ParameterError, match="output"):
        identity(object())
