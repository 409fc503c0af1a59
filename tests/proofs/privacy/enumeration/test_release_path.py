"""The audit against the release path (`betweencut.proofs.privacy.enumeration.release_path`):
a mechanism whose code behaves otherwise when not audited (it looks for the audit's modules,
its stack, its test objects, or draws `random` only where the sandbox is not) is refused, on
the command line (exit 2, one line) and in the library (`ReleasePathDiffers`, a
`MechanismError`); an honest one still holds, its verdict stating the replay; what is not
replayed says so."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from cli_in_process import cli, one_line_exit_2, user_module

from betweencut.api import audit_mechanism
from betweencut.boundary.release_replay import ReleasePathDiffers, ReplayRun
from betweencut.errors import MechanismError
from betweencut.noise.noisy_test import BTQuery
from betweencut.proofs.privacy.enumeration import release_path

ROOT = Path(__file__).resolve().parents[4]
TEXT = (ROOT / "tests" / "replay_mechanisms.py").read_text(encoding="utf-8")
FUNCTION = ["--height", "2", "--exhaustive", "1", "--epsilon", "1/2", "--delta", "0"]
BUILDER = ["--height", "3", "--tau", "2", "--lam", "1/2", "--R", "2", "--db", "0/0",
           "--add", "0/1"]
DETECTORS = ["detect_modules", "detect_stack", "detect_type_sharp", "detect_isolation"]


@pytest.fixture
def mechs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The module `replaymechs` in a fresh working directory, importable, not yet imported."""
    return user_module(tmp_path, monkeypatch, "replaymechs", TEXT)


def _keys(verdict: object) -> dict[str, object]:
    return {item.key: item for item in verdict.assumes.items}  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", DETECTORS)
def test_release_path_refuses_a_detector_on_the_command_line(mechs: Path, name: str) -> None:
    status, out, err = cli(["audit", "privacy", "--mechanism", f"replaymechs:{name}",
                            *FUNCTION])
    line = one_line_exit_2(status, err)
    assert "on the release path (a fresh interpreter, the release sampler)" in line
    assert "the code behaves differently when audited" in line and "holds" not in out


@pytest.mark.parametrize("name", DETECTORS)
def test_release_path_refuses_a_detector_in_the_library(mechs: Path, name: str) -> None:
    with pytest.raises(ReleasePathDiffers, match=r"D = \{\}.*behaves differently"):
        audit_mechanism(f"replaymechs:{name}", exhaustive=1, height=2,
                        epsilon=Fraction(1, 2), delta=0)
    assert issubclass(ReleasePathDiffers, MechanismError)


def test_the_crude_type_detector_is_refuted_consistently(mechs: Path) -> None:
    """The hostile module's own `detect_type` looks for a name the audit's test does not have:
    it releases `len(db)` in the audit too, whose refutation is then the deployed code's."""
    status, out, _ = cli(["audit", "privacy", "--mechanism", "replaymechs:detect_type",
                          *FUNCTION])
    assert status == 1 and "holds on every pair" not in out


def test_release_path_refuses_randomness_drawn_only_when_not_audited(mechs: Path) -> None:
    with pytest.raises(ReleasePathDiffers, match=r"was \(.*\); the audit enumerated"):
        audit_mechanism("replaymechs:random_on_release", exhaustive=1, height=2,
                        epsilon=Fraction(1, 2), delta=0)


def test_release_path_refuses_another_output_for_the_same_answers(mechs: Path) -> None:
    with pytest.raises(ReleasePathDiffers, match=r"answers [LBH] was '[LBH]'; the audit"):
        audit_mechanism("replaymechs:other_answer_on_release", exhaustive=1, height=2,
                        epsilon=Fraction(1, 2), delta=0)


def test_release_path_refuses_other_noisy_tests_for_the_same_answers(mechs: Path) -> None:
    """Less noise when not audited: the same answers and outputs, another law."""
    with pytest.raises(ReleasePathDiffers, match=r"asked other noisy tests for the answers "
                       r"[LBH] than the audit enumerated \(BT\(1, 3, 50\) = [LBH] against "
                       r"BT\(1, 3, 1/2\) = [LBH]\)"):
        audit_mechanism("replaymechs:less_noise_on_release", exhaustive=0, height=2,
                        epsilon=Fraction(1, 2), delta=0)


def test_release_path_refuses_a_builder_that_detects_the_audit(mechs: Path) -> None:
    status, out, err = cli(["audit", "privacy", "--mechanism", "replaymechs:Detecting",
                            *BUILDER, "--on", "output"])
    assert "on the release path" in one_line_exit_2(status, err) and "holds" not in out


def test_release_path_holds_for_an_honest_function(mechs: Path) -> None:
    status, out, err = cli(["audit", "privacy", "--mechanism", "replaymechs:honest", *FUNCTION])
    assert status == 0, err
    assert ("checked: replayed on the release path: 8 runs per database (6 databases) in a "
            "fresh interpreter with the release sampler") in out
    assert "assumed, not checked: your code does not recognise the release-path replay" in out
    verdict = audit_mechanism("replaymechs:two_queries", exhaustive=1, height=2,
                              epsilon=Fraction(1, 2), delta=0)
    keys = _keys(verdict)
    assert keys["release_path"].checked and not keys["release_path_unseen"].checked  # type: ignore[attr-defined]


def test_release_path_holds_for_an_honest_builder(mechs: Path) -> None:
    status, out, err = cli(["audit", "privacy", "--mechanism", "replaymechs:Honest", *BUILDER])
    assert status == 0, err
    assert "checked: replayed on the release path: 8 runs per database (2 databases)" in out


def test_release_path_not_replayed_is_stated(mechs: Path) -> None:
    """A callable a fresh interpreter cannot import (defined inside a function) holds, and its
    verdict says the release path was not replayed, and why."""
    def local(db: object, test: object) -> object:
        return test(BTQuery(len(db), 1, 3, Fraction(1, 2)))  # type: ignore[arg-type, operator]

    verdict = audit_mechanism(local, exhaustive=1, height=2, epsilon=Fraction(1, 2), delta=0)
    item = _keys(verdict)["release_path"]
    assert not item.checked  # type: ignore[attr-defined]
    assert "cannot be imported by name" in item.how  # type: ignore[attr-defined]
    assert "release_path_unseen" not in _keys(verdict)


def test_release_path_checker_rejects_a_forged_run(mechs: Path) -> None:
    """The comparison alone, fed a run the enumeration never produced: another output for an
    answer sequence met, and answers never met."""
    from betweencut.api.load import guarded, resolve
    from betweencut.boundary.encoding import release_of
    from betweencut.boundary.isolation import one_audit
    from betweencut.proofs.privacy.enumeration.cache import LawCache

    user = resolve("replaymechs:honest")
    cache = LawCache(guarded(user.name, user.target))
    with one_audit():
        found = cache.enumeration(())
        answers = "".join(str(s) for _, s in found.steps[0])
        query = (Fraction(0), Fraction(1), Fraction(3), Fraction(1, 2))
        good = ReplayRun(0, 0, answers, (release_of(found.steps[0][0][1]).data,), (query,))
        release_path.compare(user.name, (), found, [good], ("output",))
        forged = ReplayRun(0, 0, answers, (release_of("forged").data,), (query,))
        with pytest.raises(ReleasePathDiffers, match="was 'forged'; the audit enumerated"):
            release_path.compare(user.name, (), found, [forged], ("output",))
        other = ReplayRun(0, 0, answers, good.outputs, ((Fraction(0), Fraction(1),
                                                         Fraction(3), Fraction(50)),))
        with pytest.raises(ReleasePathDiffers, match="asked other noisy tests"):
            release_path.compare(user.name, (), found, [other], ("output",))
        unmet = ReplayRun(0, 1, "LL", good.outputs, (query, query))
        with pytest.raises(ReleasePathDiffers,
                           match=r"drew the answers LL and released .*; the audit enumerated"):
            release_path.compare(user.name, (), found, [unmet], ("output",))


def test_release_path_switched_off_is_stated_not_done(mechs: Path) -> None:
    """The benchmark's switch (`replaying(False)`) never reads as a check: the detector then
    holds, and its verdict says the release path was not replayed."""
    from betweencut.boundary.release_replay import replaying

    with replaying(False):
        verdict = audit_mechanism("replaymechs:detect_modules", exhaustive=1, height=2,
                                  epsilon=Fraction(1, 2), delta=0)
    item = _keys(verdict)["release_path"]
    assert verdict.holds and not item.checked  # type: ignore[attr-defined]
    assert "switched off" in item.how  # type: ignore[attr-defined]
    assert "assumed, not checked: your code behaves on the release path" in verdict.text()


def test_release_path_kinds_not_replayed_say_so() -> None:
    """Every kind the release path is not replayed for (a PrivTree, the depth audit, the
    Gaussian and field kinds, corpus rows) states it, assumed; the package's own code has
    nothing of yours to replay."""
    from betweencut.proofs import assumes as a

    for items in (a.code_items(False, replayed=False), a.code_items(False, replayed=None),
                  a.code_items(False, isolated=False), a.code_items(False)):
        found = {i.key: i for i in items}
        assert not found["release_path"].checked
        assert "not replayed" in found["release_path"].how
        assert "release_path_unseen" not in found
    assert [i.key for i in a.code_items(True)] == ["code"]
    checked = {i.key: i for i in a.code_items(False, release=a.release_path(8, 3, 5))}
    assert checked["release_path"].checked and not checked["release_path_unseen"].checked
    assert "the first 3 of the 5 databases audited" in checked["release_path"].what


def test_release_path_a_patched_package_class_is_not_replayed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The package's class with a method patched in this process is your code (audited in
    children), but a fresh interpreter would import it unpatched: not replayed, and said."""
    from betweencut.mechanism.betweencut import BetweenCut

    real = BetweenCut.make_query
    monkeypatch.setattr(BetweenCut, "make_query",
                        lambda self, *args, **kwargs: real(self, *args, **kwargs))
    verdict = audit_mechanism(BetweenCut, [("{}", "0/0")], height=3, tau=1,
                              lam=Fraction(1, 2), R=2)
    item = _keys(verdict)["release_path"]
    assert not item.checked and "patched method" in item.how  # type: ignore[attr-defined]
