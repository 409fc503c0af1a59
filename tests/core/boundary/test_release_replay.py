"""The release-path replay (`betweencut.boundary.release_replay`): the user's mechanism run as
deployed, in a fresh interpreter with the release sampler; what the child loads, what it
records, and its failures as one line. The comparison with the audit's enumeration is tested in
`tests/proofs/privacy/enumeration/test_release_path.py`."""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import pytest
from cli_in_process import cli, one_line_exit_2, user_module

from betweencut.boundary import release_replay
from betweencut.boundary.encoding import release_of
from betweencut.boundary.release_replay import ReplaySpec, locate, start, tree_json
from betweencut.data.tree import kary_tree
from betweencut.errors import MechanismError
from betweencut.noise.bt_sampler import ExactSampler
from betweencut.noise.noisy_test import BTQuery, Outcome

ROOT = Path(__file__).resolve().parents[3]
TEXT = (ROOT / "tests" / "replay_mechanisms.py").read_text(encoding="utf-8")
DBS = ((), ((0,),), ((0,), (1,)))


@pytest.fixture
def mechs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The module `replaymechs` in a fresh working directory, importable, not yet imported."""
    return user_module(tmp_path, monkeypatch, "replaymechs", TEXT)


def _spec(name: str, databases: tuple[object, ...] = DBS, ons: tuple[str, ...] = ("output",),
          runs: int = 3) -> ReplaySpec:
    return ReplaySpec(who=f"replaymechs:{name}", module="replaymechs", file=None, qualname=name,
                      builder=False, ons=ons, databases=databases, runs=runs)


def test_the_release_sampler_records_only_when_asked() -> None:
    """Deployment's sampler has the slot, empty; the replay's records every outcome drawn."""
    query = BTQuery(Fraction(2), 1, 3, Fraction(1, 2))
    deployed = ExactSampler(0)
    assert deployed._answers is None
    first = deployed(query)
    assert deployed._answers is None
    recording = ExactSampler(0)
    recording._answers = []
    assert recording(query) == first  # the record does not change the draw
    recording(query)
    assert len(recording._answers) == 2 and all(q is query and isinstance(o, Outcome)
                                                for q, o in recording._answers)


def test_the_replay_child_has_no_proofs_module_loaded(mechs: Path) -> None:
    """The child imports the core modules and the user's module only: a mechanism listing the
    `betweencut.proofs` modules it sees lists none, and the child's own check passes."""
    import betweencut.proofs.privacy.enumeration.cache  # noqa: F401 - loaded here, the parent

    runs = start(_spec("proofs_loaded")).runs()
    assert len(runs) == 3 * len(DBS)
    for run in runs:
        assert len(run.answers) == 1
        assert run.outputs == (release_of(((), Outcome(run.answers))).data,)


def test_the_replay_child_loads_what_deployment_loads(mechs: Path) -> None:
    """At the user's call, the child's package modules are those of a fresh interpreter that
    imports the release sampler and the user's module (deployment): the replay's own modules
    (this one, the encoder, the isolation helpers) are hidden."""
    import subprocess

    deployed = subprocess.run(
        [sys.executable, "-c", "import betweencut.noise.bt_sampler as s, replaymechs as m; "
         "print(repr(m.package_modules((), s.ExactSampler(0))[0]))"],
        capture_output=True, text=True, check=True, cwd=mechs).stdout.strip()
    runs = start(_spec("package_modules", databases=((),), runs=1)).runs()
    from betweencut.boundary.encoding import decoded

    assert repr(decoded(runs[0].outputs[0])[0]) == deployed
    assert "betweencut.boundary.isolation" not in deployed


def test_the_replay_runs_every_database_with_public_seeds(mechs: Path) -> None:
    """Seeds 0..runs-1 on each database, the answers the release sampler drew, the canonical
    bytes of each release (here two: the output and, for a tuple, nothing else to project)."""
    runs = start(_spec("two_queries", runs=4)).runs()
    assert [(r.db, r.seed) for r in runs] == [(d, s) for d in range(3) for s in range(4)]
    for run in runs:
        assert len(run.answers) == 2
        assert run.outputs[0] == release_of(tuple(Outcome(a) for a in run.answers)).data
        size = Fraction(len(DBS[run.db]))
        half = Fraction(1, 2)
        assert run.queries == ((size, 1, 3, half), (size, 0, 2, half))
    again = start(_spec("two_queries", runs=4)).runs()
    assert again == runs  # seeded: the same runs every time


def test_the_replay_sees_the_deployed_class(mechs: Path) -> None:
    """`type(test)` is `ExactSampler` itself: the sharp detector releases `len(db)`."""
    runs = start(_spec("detect_type_sharp", runs=1)).runs()
    assert [(r.answers, r.outputs[0]) for r in runs] == [
        ("", release_of(len(db)).data) for db in DBS]


def test_a_builder_is_built_from_the_public_tree_and_parameters(mechs: Path) -> None:
    from betweencut.boundary.release_replay import params_json
    from betweencut.mechanism.params import Params

    tree = kary_tree(2, 2)
    params = Params.of(2, Fraction(1, 2), 2)
    spec = ReplaySpec(who="replaymechs:Honest", module="replaymechs", file=None,
                      qualname="Honest", builder=True, ons=("heavy", "transcript"),
                      databases=DBS, tree=tree_json(tree), params=params_json(params), runs=2)
    runs = start(spec).runs()
    assert len(runs) == 2 * len(DBS) and all(len(r.outputs) == 2 for r in runs)


@pytest.mark.parametrize(("name", "said"), [
    ("exits_on_release", "ended its process (exit status 0)"),
    ("killed_on_release", "ended its process (killed by SIGKILL)"),
    ("raises_on_release", "raised RuntimeError: deployed"),
])
def test_an_ending_or_raising_run_is_one_line(mechs: Path, name: str, said: str) -> None:
    with pytest.raises(MechanismError) as caught:
        start(_spec(name)).runs()
    text = str(caught.value)
    assert said in text and "on the release path" in text and "on D = {}" in text
    assert "\n" not in text


def test_a_hang_is_stopped_and_is_one_line(mechs: Path, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    monkeypatch.setattr(release_replay, "LIMIT_SECONDS", 3.0)
    with pytest.raises(MechanismError, match=r"did not finish within 3 s on the release path.*"
                       r"\(a hang: it was stopped\)"):
        start(_spec("hangs_on_release")).runs()


def test_a_hang_on_the_command_line_exits_2(mechs: Path, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    monkeypatch.setattr(release_replay, "LIMIT_SECONDS", 3.0)
    status, out, err = cli(["audit", "privacy", "--mechanism", "replaymechs:hangs_on_release",
                            "--height", "2", "--exhaustive", "1", "--epsilon", "1/2",
                            "--delta", "0"])
    assert "did not finish" in one_line_exit_2(status, err) and "holds" not in out


def test_an_oversized_result_is_refused(mechs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(release_replay, "MAX_BYTES", 100)
    with pytest.raises(MechanismError, match="sent more than 100 bytes"):
        start(_spec("two_queries")).runs()


def test_a_module_that_does_not_import_is_one_line(mechs: Path) -> None:
    with pytest.raises(MechanismError, match="did not load or build: ModuleNotFoundError"):
        start(ReplaySpec(who="nowhere:f", module="nowhere_at_all", file=None, qualname="f",
                         builder=False, ons=("output",), databases=DBS)).runs()


def test_only_callables_found_again_by_name_are_located(mechs: Path) -> None:
    import replaymechs

    def local(db: object, test: object) -> object:
        return None

    assert locate(replaymechs.honest) == ("replaymechs", str(mechs / "replaymechs.py"),
                                          "honest")
    assert locate(replaymechs.Honest) is not None
    assert locate(local) is None  # inside a function
    assert locate(lambda db, test: None) is None
    assert locate(print) is None  # no file to import it from
    sys.modules.pop("replaymechs", None)
