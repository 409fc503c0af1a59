"""Issue 34, cost: an audit that knows its databases up front enumerates them all in two
children (`isolated.prefetch`) instead of two per database. An accelerator only: the fast
path answers to the slow one (the per-database path, prefetch off), and on any failure or
difference it keeps nothing, so the per-database path refuses as before, naming the database."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest
from cli_in_process import cli, one_line_exit_2, user_module

from betweencut.api import audit_mechanism
from betweencut.boundary import isolation
from betweencut.errors import MechanismError
from betweencut.proofs.privacy.enumeration import isolated
from betweencut.proofs.privacy.enumeration.transcripts import MechanismNotReplayable

ROOT = Path(__file__).resolve().parents[3]
TEXT = (ROOT / "tests" / "isolation_mechanisms.py").read_text(encoding="utf-8")
EXAMPLES: list[tuple[str, str, dict[str, object], int]] = [
    ("my_mechanism", "flag", {"height": 3}, 1),
    ("my_mechanism", "flag_v2", {"height": 3}, 1),
    ("my_mechanism", "TopDown", {"height": 3, "tau": 2, "delta": Fraction(1, 20)}, 1),
    ("my_svt", "svt", {"height": 2}, 2),
    ("my_field_mechanism", "busiest_branch", {"height": 2}, 1)]
EXIT_ON_ONE = """import os
from fractions import Fraction
from betweencut.noise.noisy_test import BTQuery

def exit_on_one(db, test):
    if db == ((0, 1),):
        os._exit(0)
    return test(BTQuery(len(db), 1, 3, Fraction(1, 2)))
"""


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The `where` of every child forked by the enumeration (`isolation.start`, patched)."""
    seen: list[str] = []
    real = isolation.start

    def counting(work: object, who: str, where: str) -> isolation.Child:
        seen.append(where)
        return real(work, who, where)  # type: ignore[arg-type]

    monkeypatch.setattr(isolation, "start", counting)
    monkeypatch.setattr(isolated, "start", counting)
    yield seen


def _off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(isolated, "prefetch", lambda *args: 0)


@pytest.mark.parametrize(("module", "name", "tree", "size"), EXAMPLES)
def test_prefetch_gives_the_per_database_paths_laws_on_the_examples(
        monkeypatch: pytest.MonkeyPatch, module: str, name: str, tree: dict[str, object],
        size: int) -> None:
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    spec = f"{module}:{name}"

    def audit() -> dict[str, object]:
        # a fresh process's memo: the user's module imported again, nothing remembered
        import sys

        sys.modules.pop(module, None)
        given: dict[str, object] = {"epsilon": 1, "delta": 0, **tree}
        return audit_mechanism(spec, exhaustive=size, **given).as_json()  # type: ignore

    fast = audit()
    with monkeypatch.context() as m:
        _off(m)
        slow = audit()
    with isolation.isolating(False):  # the real code enumerated directly, in this process
        direct = audit()
    assert fast == slow == direct  # TopDown overrides a seam (level_order)


def test_the_readme_example_forks_two_children(
        monkeypatch: pytest.MonkeyPatch, forks: list[str]) -> None:
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    import sys

    sys.modules.pop("my_mechanism", None)
    audit_mechanism("my_mechanism:flag", exhaustive=1, height=3, epsilon="1/4", delta=0)
    batch = [w for w in forks if w.startswith("on ") and w.endswith(" databases")]
    assert len(batch) == 2, forks
    assert len(forks) <= 3, forks  # the two, and a probe at most


@pytest.mark.parametrize("name", ["memo", "counter", "default_list"])
def test_hidden_state_is_still_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       name: str) -> None:
    user_module(tmp_path, monkeypatch, "batchmechs", TEXT)
    with pytest.raises(MechanismNotReplayable, match="besides the database"):
        audit_mechanism(f"batchmechs:{name}", exhaustive=1, height=2,
                        epsilon=Fraction(1, 4), delta=0)


def test_an_exit_on_one_database_still_names_it(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch,
                                                forks: list[str]) -> None:
    user_module(tmp_path, monkeypatch, "exitmech", EXIT_ON_ONE)
    with pytest.raises(MechanismError, match=r"ended its process \(exit status 0\) on D = "
                       r"\{0/1\}"):
        audit_mechanism("exitmech:exit_on_one", exhaustive=1, height=3, epsilon=1, delta=0)
    assert sum(w.endswith(" databases") for w in forks) == 2, forks  # the batch, then the
    assert "on D = {0/1}" in forks  # per-database path, which names the database
    status, out, err = cli(["audit", "privacy", "--mechanism", "exitmech:exit_on_one",
                            "--height", "3", "--epsilon", "1", "--delta", "0",
                            "--exhaustive", "1"])
    line = one_line_exit_2(status, err)
    assert "ended its process" in line and "on D = {0/1}" in line, line
    assert "holds" not in out


STALE = """from fractions import Fraction
from betweencut.noise.noisy_test import BTQuery

LAM = Fraction(1, 2)

def m(db, test):
    return test(BTQuery(len(db), 1, 3, LAM))
"""


def test_no_result_outlives_its_audit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second audit after the audit's process changed what the code reads (a module global,
    as a test or a notebook does) audits the new code: a result kept from the first audit
    certified `(1/2, 0)` for a mechanism at lambda = 5 (`isolation.one_audit`)."""
    user_module(tmp_path, monkeypatch, "stalemech", STALE)
    import stalemech  # type: ignore[import-not-found]

    assert audit_mechanism(stalemech.m, exhaustive=1, height=2, epsilon=Fraction(1, 2),
                           delta=0).holds
    monkeypatch.setattr(stalemech, "LAM", Fraction(5))
    from betweencut.boundary.release_replay import ReleasePathDiffers, replaying

    with replaying(False):  # this test's subject: no result kept across audits
        assert not audit_mechanism(stalemech.m, exhaustive=1, height=2, epsilon=Fraction(1, 2),
                                   delta=0).holds
    # and the release path (a fresh interpreter imports the module as written, lambda = 1/2)
    # refuses the patched code: the audit would speak of code no fresh process runs
    with pytest.raises(ReleasePathDiffers, match="changed it after its import"):
        audit_mechanism(stalemech.m, exhaustive=1, height=2, epsilon=Fraction(1, 2), delta=0)
