"""Issues 26 and 29 (hardening): user mechanisms cannot choose the verdict or the exit status,
long computations keep a stated budget, progress shows public facts only, and the defects found
by hand. Each test is named after the defect it pins."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest
from cli_in_process import cli, one_line_exit_2, user_module
from cli_runs import run_script

from betweencut.api import audit_mechanism
from betweencut.api.claims import ClaimRow, ClaimsVerdict
from betweencut.cli import main
from betweencut.errors import MechanismError
from betweencut.progress import BudgetExceeded, Tracker, tracking
from betweencut.proofs.baselines.corpus_checks.corpus_rows import pairs_scope
from betweencut.proofs.baselines.corpus_checks.corpus_scale import MAX_LISTED
from betweencut.proofs.privacy.enumeration import cache as cache_module
from betweencut.proofs.privacy.enumeration.transcripts import MechanismNotReplayable

ROOT = Path(__file__).resolve().parents[3]
MECHANISMS = (ROOT / "tests" / "hostile_mechanisms.py").read_text(encoding="utf-8")
PAIR = ["--height", "3", "--epsilon", "1", "--delta", "0", "--db", "0/0", "--add", "0/1"]
BUILDER = ["--height", "3", "--tau", "2", "--lam", "1/2", "--R", "2", "--db", "0/0", "--add",
           "0/1"]


@pytest.fixture
def mechs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The module `hardmechs` in a fresh folder, the working directory (as a user runs it)."""
    user_module(tmp_path, monkeypatch, "hardmechs", MECHANISMS)
    return tmp_path




# -- issue 29, item 5: user mechanisms cannot choose the verdict -------------------------------

@pytest.mark.parametrize("name", ["rand", "hidden_state"])
def test_unreplayable_mechanism_is_refused_before_any_verdict(mechs: Path, name: str) -> None:
    """`random.random()`, a run that asks other tests on a replay: exit 2, one line naming the
    mechanism and the pair (it was "REFUTED ... P(S) = 1, Q(S) = 0", exit 1)."""
    status, out, err = cli(["audit", "privacy", "--mechanism", f"hardmechs:{name}", *PAIR])
    line = one_line_exit_2(status, err)
    refused = "called random.random() outside its noisy tests" if name == "rand" else \
        "is not replayable"  # issue 34: outside randomness is refused as it is drawn
    assert f"the mechanism hardmechs:{name} {refused}" in line
    assert "auditing the pair D = {0/0}, z = 0/1" in line
    assert "REFUTED" not in out


@pytest.mark.parametrize(("name", "kind"), [("generator", "generator"), ("fresh_object", "object"),
                                            ("bad_hash", "BadHash"), ("bad_eq", "BadEq")])
def test_an_output_the_audit_cannot_encode_is_refused_before_any_verdict(
        mechs: Path, name: str, kind: str) -> None:
    """A generator, a fresh `object()`, an output whose `__hash__` or `__eq__` raises: not a
    type the audit encodes (issue 34: the release is its bytes, never the output's own `==`):
    exit 2, one line naming the mechanism, the type and the pair."""
    status, out, err = cli(["audit", "privacy", "--mechanism", f"hardmechs:{name}", *PAIR])
    line = one_line_exit_2(status, err)
    assert f"hardmechs:{name}" in line and f"output={kind} is not allowed" in line
    assert "auditing the pair D = {0/0}, z = 0/1" in line
    assert "REFUTED" not in out


@pytest.mark.parametrize("name", ["nan", "singleton_nan"])
def test_a_constant_nan_is_one_release(mechs: Path, name: str) -> None:
    """A NaN returned on every run is the same release (the same bits): audited, not refused
    (it was refused when outputs were compared with `==`, under which NaN != NaN)."""
    status, out, err = cli(["audit", "privacy", "--mechanism", f"hardmechs:{name}", *PAIR])
    assert status == 0 and "holds" in out, (out, err)


def test_unreplayable_mechanism_is_refused_by_the_api(mechs: Path) -> None:
    with pytest.raises(MechanismNotReplayable, match="not replayable"):
        audit_mechanism("hardmechs:hidden_state", [("0/0", "0/1")], height=3, epsilon=1, delta=0)


def test_replayable_mechanism_is_audited(mechs: Path) -> None:
    status, out, _ = cli(["audit", "privacy", "--mechanism", "hardmechs:good", *PAIR])
    assert status == 0 and "holds" in out


ENTRIES = {
    "function": ["audit", "privacy", "--mechanism", "hardmechs:exit7", *PAIR],
    "function, exhaustive": ["audit", "privacy", "--mechanism", "hardmechs:exit7", "--height",
                             "3", "--epsilon", "1", "--delta", "0", "--exhaustive", "1"],
    "function, search": ["audit", "privacy", "--mechanism", "hardmechs:exit7", "--height", "3",
                         "--epsilon", "1", "--delta", "0", "--search", "3"],
    "shared noise": ["audit", "privacy", "--mechanism", "hardmechs:shared_exit7", *PAIR],
    "builder": ["audit", "privacy", "--mechanism", "hardmechs:BuilderExit7", *BUILDER],
    "corpus": ["audit", "corpus", "--mechanism", "hardmechs:corpus_exit7"],
}


@pytest.mark.parametrize("entry", sorted(ENTRIES))
def test_sys_exit_7_in_a_mechanism_exits_2_naming_the_mechanism_and_the_pair(
        mechs: Path, entry: str) -> None:
    """Through every entry that runs a user's mechanism on pairs."""
    status, _, err = cli(ENTRIES[entry])
    line = one_line_exit_2(status, err)
    assert "hardmechs:" in line and "raised SystemExit: 7" in line
    assert "(auditing the pair D = " in line and ", z = " in line


def test_sys_exit_7_in_a_privtree_seam_exits_2_naming_the_mechanism_and_the_pair(
        mechs: Path) -> None:
    status, _, err = cli(["audit", "privacy", "--mechanism", "hardmechs:privtree_exit7",
                          "--epsilon", "1", "--delta", "0", "--db", "1", "--add", "2"])
    line = one_line_exit_2(status, err)
    assert "hardmechs:privtree_exit7 raised SystemExit: 7" in line
    assert "auditing the pair D = {" in line


@pytest.mark.parametrize("name", ["exit_text", "base", "generator_exit", "reads_stdin"])
def test_base_exceptions_and_the_debugger_in_a_mechanism_exit_2(mechs: Path, name: str) -> None:
    """`sys.exit("fatal")` (was exit 1, read as refuted), `BaseException`, `GeneratorExit` and
    a read of stdin without a terminal (pytest's stdin is not one); `pdb.set_trace()` runs in
    a subprocess below (pytest wraps the debugger in-process)."""
    status, _, err = cli(["audit", "privacy", "--mechanism", f"hardmechs:{name}", *PAIR])
    if name == "reads_stdin":  # reads "" at once: a function of its answers, audited
        assert status == 0, err
        return
    line = one_line_exit_2(status, err)
    assert f"the mechanism hardmechs:{name} raised" in line


@pytest.mark.parametrize("stdin", ["devnull", "open pipe"])
def test_pdb_in_a_mechanism_does_not_hang_without_a_terminal(mechs: Path, stdin: str) -> None:
    """The console script, stdin closed or a pipe nobody writes to: exit 2, no hang."""
    pipe = subprocess.DEVNULL if stdin == "devnull" else subprocess.PIPE
    ran = run_script(["audit", "privacy", "--mechanism", "hardmechs:debugger", *PAIR],
                     cwd=str(mechs), stdin=pipe)
    ran.contract()
    assert ran.status == 2 and "raised BdbQuit" in ran.err


def test_unreplayable_corpus_mechanism_is_refused(mechs: Path) -> None:
    status, _, err = cli(["audit", "corpus", "--mechanism", "hardmechs:corpus_random"])
    line = one_line_exit_2(status, err)
    assert "hardmechs:corpus_random called random.random() outside its noisy tests" in line


def test_unreplayable_builder_is_refused(mechs: Path) -> None:
    status, _, err = cli(["audit", "privacy", "--mechanism", "hardmechs:BuilderRandom",
                          *BUILDER, "--on", "output", "--epsilon", "1", "--delta", "0"])
    assert "BuilderRandom called random.random() outside its noisy tests" in \
        one_line_exit_2(status, err)


def test_loop_in_a_mechanism_stops_at_the_budget(mechs: Path) -> None:
    """A mechanism that loops without asking a test never reaches a check: the watchdog of its
    child process stops it at the budget (exit 2, one line naming it, issue 34)."""
    ran = run_script(["audit", "privacy", "--mechanism", "hardmechs:loop", *PAIR,
                      "--budget", "2"], cwd=str(mechs))
    ran.contract()
    assert ran.status == 2 and "the mechanism hardmechs:loop did not finish within" in ran.err
    assert "left of the time budget of 2 s" in ran.err
    assert "(stopped when the budget ran out: raise --budget, unless it never ends)" in ran.err


@pytest.mark.parametrize("name", ["asks_forever", "shared_forever"])
def test_mechanism_asking_forever_stops_at_max_queries_in_bounded_memory(mechs: Path,
                                                                         name: str) -> None:
    """A mechanism that asks noisy tests forever took 9 s past a 3 s budget and 1.3 GB (BT
    tests), or 2 GB in 11 s (shared-noise queries, no limit): the enumeration copied the
    answers so far at every test (quadratic). It stops at the limit of noisy tests on one answer
    sequence, in memory linear in that limit."""
    ran = run_script(["audit", "privacy", "--mechanism", f"hardmechs:{name}", *PAIR,
                      "--budget", "30"], cwd=str(mechs))
    ran.contract()
    assert ran.status == 2 and "asks more than 10000 noisy" in ran.err
    assert ran.rss_mb < 500, f"{ran.rss_mb:.0f} MB"


# -- issue 26, item 2: budgets ---------------------------------------------------------------

EXHAUSTIVE_1_1000 = ["audit", "privacy", "--height", "4", "--lam", "1/1000", "--R", "1000",
                     "--tau", "1000", "--exhaustive", "2"]
TIGHT_HEIGHT_4 = ["audit", "privacy", "--arity", "2", "--height", "4", "--epsilon", "1",
                  "--delta", "0.05", "--tau", "2", "--db", "0/0/0", "--add", "0/0/0",
                  "--accountant", "tight"]


def test_enumeration_past_the_budget_exits_2_saying_how_far_it_got(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`--height 4 --lam 1/1000 --R 1000 --tau 1000 --exhaustive 2` ran past a minute. Its
    estimate now refuses it up front (below); an estimate can err low, so the running budget
    stays the safety net: without one the audit stops at its budget, naming the pair and the
    answer sequences reached. The clock is the test's (spent as soon as the first pair starts),
    so the pair named is the same on every machine (it said pair 2 on a faster one)."""
    from betweencut.proofs.privacy.enumeration import cost

    monkeypatch.setattr(cost, "audit_cost", lambda *args, **kwargs: None)
    monkeypatch.setattr(Tracker, "seconds",
                        lambda self: 10.0**6 if "pair" in self.where else 0.0)
    status, _, err = cli([*EXHAUSTIVE_1_1000, "--budget", "3"])
    line = one_line_exit_2(status, err)
    # the test's clock is spent as the first pair starts, on any machine (CI reached pair 5 of
    # 360 in 3 s on the clock)
    assert "stopped at the time budget of 3 s" in line and "at pair 1 of 360" in line


def test_exhaustive_audit_at_lambda_1_1000_is_refused_up_front() -> None:
    """The same command without `--budget` ran to the default 60 s budget before exiting 2
    (360 pairs of about 4 s each on exact values of 720,000 bits): the audit's projection of
    its whole work at fixed rates passes the default work limit (issue 35, item 7: the same on
    every machine), so it exits 2 at once, with one line naming the projection, the limit and
    what to change, under 2 GB."""
    ran = run_script(EXHAUSTIVE_1_1000)
    ran.contract()
    assert ran.status == 2, ran.err  # refused at the start: the message says
    assert "stopped at the work limit of 60 reference seconds (the audit (360 pairs; " in ran.err
    assert "at most 4,320 comparisons" in ran.err and ") at the start: give --budget SECONDS" \
        in ran.err


def test_the_default_limits_do_not_read_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 35, item 7: the default limits are work, not time, so a clock running a million
    times fast (a slow or busy machine, as `betweencut.progress` sees it) changes no exit
    status: an audit that holds still exits 0, one past the work limit still exits 2 at the
    start with the same line. With `--budget`, the wall-clock limit asked for, it does stop."""
    import time as real_time

    from betweencut import progress

    small = ["audit", "privacy", "--height", "3", "--lam", "1/2", "--R", "2", "--tau", "2",
             "--exhaustive", "1"]
    before = [cli(small), cli(EXHAUSTIVE_1_1000)]
    start = real_time.monotonic()

    class SlowMachine:  # what `progress` reads of `time`: every second lasts a million
        @staticmethod
        def monotonic() -> float:
            return start + (real_time.monotonic() - start) * 10**6

    monkeypatch.setattr(progress, "time", SlowMachine)
    after = [cli(small), cli(EXHAUSTIVE_1_1000)]
    assert [status for status, _, _ in before] == [status for status, _, _ in after] == [0, 2]
    assert before[1][2] == after[1][2] and "work limit" in after[1][2]
    status, _, err = cli([*small, "--budget", "60"])
    assert "stopped at the time budget of 60 s" in one_line_exit_2(status, err)


def test_tight_accountant_audit_at_height_4_is_refused_up_front() -> None:
    """`--accountant tight` at binary height 4 calibrates lambda = 3441/10000: one pair's exact
    values have over 6 million bits. Its estimate (about 26 s; it takes 30 to 60) passes a
    budget of 5 s, so it is refused at once (exit 2, one line, under 2 GB)."""
    ran = run_script([*TIGHT_HEIGHT_4, "--budget", "5"])
    ran.contract()
    assert ran.status == 2, ran.err  # refused at the start, not at the budget: the message says
    assert "stopped at the time budget of 5 s (the audit (1 pair; " in ran.err
    assert "comparisons of 6,653,902-bit values" in ran.err
    assert ") at the start: raise --budget to " in ran.err


@pytest.mark.slow
def test_tight_accountant_audit_at_height_4_answers() -> None:
    """The same audit with time for it: it used 61 s of CPU and 700 MB before its 60 s budget
    stopped it (digit-by-digit decodes of 6.6-million-bit values, quadratic, and Python's
    products); with the linear decode and GMP's products it answers: holds, under 2 GB
    (about 35 s of CPU and 1.5 GB)."""
    ran = run_script([*TIGHT_HEIGHT_4, "--budget", "600"], timeout=900)
    ran.contract()
    assert ran.status == 0, ran.err
    assert "\n  holds\n" in ran.out


def test_budget_is_kept_inside_a_computation() -> None:
    tracker = Tracker(budget=1e-9)
    with tracking(tracker), pytest.raises(BudgetExceeded, match="stopped at the time budget"):
        audit_mechanism("betweencut.mechanism.betweencut:BetweenCut", exhaustive=1, height=3, tau=2,
                        lam=Fraction(1, 2), R=2)


def test_corpus_size_64_is_refused_up_front() -> None:
    """`audit corpus --name svt-alg4 --size 64` grew past 2 GB (3.1 GB at 120 s)."""
    ran = run_script(["audit", "corpus", "--name", "svt-alg4", "--size", "64"])
    ran.contract()
    assert ran.status == 2 and f"at most {MAX_LISTED} pairs listed" in ran.err


def test_law_cache_holds_a_bounded_number_of_answer_sequences(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A user's BetweenCut subclass at binary h = 4 grew to 8 GB: every database's enumeration
    was kept. The cache drops the least recently used past `KEPT_SEQUENCES`, and the verdict is
    the same."""
    from betweencut.proofs.privacy.audit.pairs import audit_pairs
    from betweencut.proofs.privacy.enumeration.cache import LawCache, neighbouring_pairs

    def run(db: tuple[tuple[int, ...], ...], test: object) -> object:
        from betweencut.noise.noisy_test import BTQuery
        return tuple(test(BTQuery(c, 1, 3, Fraction(1, 2)))  # type: ignore[operator]
                     for c in (len(db), len(db) + 1))

    leaves = [(0, 0), (0, 1), (1, 0)]
    pairs = list(neighbouring_pairs(leaves, 2))
    full = audit_pairs(run, pairs, [(Fraction(1), Fraction(0))], cache=LawCache(run))
    monkeypatch.setattr(cache_module, "KEPT_SEQUENCES", 20)
    small = LawCache(run)
    bounded = audit_pairs(run, pairs, [(Fraction(1), Fraction(0))], cache=small)
    assert small.kept <= 20 and len(small.enumerations) < len({d for d, _ in pairs})
    assert (bounded.holds, bounded.pairs) == (full.holds, full.pairs)
    assert bounded.tightest is not None and full.tightest is not None
    assert bounded.tightest.delta == full.tightest.delta


# -- issue 29, item 6: progress --------------------------------------------------------------

def test_progress_is_off_unless_asked_and_timings_only_with_diagnostics(
        capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["audit", "privacy", "--arity", "2", "--height", "3", "--lam", "1/2", "--R", "2",
            "--tau", "2", "--exhaustive", "1"]
    assert main(argv) == 0
    assert capsys.readouterr().err == ""
    assert main([*argv, "--progress"]) == 0
    shown = capsys.readouterr().err
    assert "pair 1 of 20" in shown and " s)" not in shown
    assert main([*argv, "--progress", "--diagnostics"]) == 0
    timed = capsys.readouterr().err
    assert " s)" in timed and "audit privacy: " in timed


def test_corpus_progress_is_off_unless_asked(mechs: Path) -> None:
    """`audit corpus --mechanism` printed its cost estimate ("listing 756 pairs") on stderr
    without --progress, so a refusal came with two lines (the fuzz suite's long run found it)."""
    argv = ["audit", "corpus", "--mechanism", "hardmechs:corpus_exit7", "--queries", "3",
            "--size", "1"]
    ran = run_script(argv, cwd=str(mechs))
    ran.contract()
    assert ran.status == 2 and "listing" not in ran.err
    shown = run_script([*argv, "--progress"], cwd=str(mechs))
    assert shown.status == 2 and "listing 756 pairs" in shown.err


def test_tracker_shows_nothing_unless_asked() -> None:
    stream = io.StringIO()
    tracker = Tracker("x", stream=stream)
    tracker.stage("level 1 of 3")
    assert stream.getvalue() == ""
    Tracker("x", show=True, stream=stream).stage("level 1 of 3")
    assert stream.getvalue() == "x: level 1 of 3\n"


def test_classify_progress_shows_no_count_of_records(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """The number of records is not public: progress names stages and levels only."""
    records = tmp_path / "r.txt"
    records.write_text("0/0/0\n" * 37)
    assert main(["classify", str(records), "--height", "4", "--tau", "20", "--epsilon", "1",
                 "--delta", "0.05", "--seed", "1", "--progress"]) == 0
    err = capsys.readouterr().err
    assert err and "37" not in err and " s)" not in err


# -- issue 26, found by hand -----------------------------------------------------------------

def test_plot_without_matplotlib_exits_2_naming_the_plot_extra(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` fails
    status = main(["audit", "privacy", "--arity", "2", "--height", "3", "--lam", "1/2", "--R",
                   "2", "--tau", "2", "--db", "0/0", "--add", "0/1", "--plot",
                   str(tmp_path / "c.png")])
    assert status == 2
    assert "pip install 'betweencut[plot]'" in capsys.readouterr().err
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    assert any(dep.startswith("matplotlib") for dep in extras["plot"])


def test_audit_corpus_mechanism_imports_from_the_current_folder(mechs: Path) -> None:
    ran = run_script(["audit", "corpus", "--mechanism", "hardmechs:corpus_good"],
                     cwd=str(mechs))
    ran.contract()
    assert ran.status == 0 and "hardmechs:corpus_good" in ran.out


def test_audit_corpus_queries_without_mechanism_is_not_ignored() -> None:
    """`audit corpus --queries M` was silently ignored without `--mechanism`: it now sets m for
    the corpus rows (each JSON row states it), and `--epsilon` alone is still refused."""
    status, out, _ = cli(["audit", "corpus", "--name", "svt-alg1", "--queries", "3", "--json"])
    assert status == 0 and [row["queries"] for row in json.loads(out)["rows"]] == [3]
    status, _, err = cli(["audit", "corpus", "--epsilon", "1"])
    assert "--epsilon goes with --mechanism" in one_line_exit_2(status, err)


def test_audit_depth_text_mode_prints_its_rows() -> None:
    status, out, _ = cli(["audit", "depth", "--height", "7", "--lam", "0.5", "--R", "2",
                          "--tau", "4", "--count", "2"])
    assert status == 0
    assert "rows (3):" in out and out.count("on transcript: delta(") >= 3


def test_audit_text_fits_100_columns_and_says_the_empty_database() -> None:
    """`betweencut audit` printed lines of 512 columns and "every pair with |D| <= 0"."""
    long = "; ".join(f"enumerated ({pairs_scope(0, m)})" for m in (2, 3, 4, 5))
    row = ClaimRow("corpus, privacy", "SVT corpus and report-noisy-max verdicts", "holds", long,
                   8, "8 checks over " + ", ".join(f"p{i} (3 values)" for i in range(20)))
    text = ClaimsVerdict([row]).text()
    assert max(len(line) for line in text.splitlines()) <= 100
    assert "|D| <= 0" not in text and "D the empty database" in text
    assert "1 of 1 claims hold" in text


def test_version_prints_the_version_alone(capsys: pytest.CaptureFixture[str]) -> None:
    """`betweencut --version` said "betweencut: error: betweencut: ..."."""
    assert main(["--version"]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("betweencut ") and out.err == ""


def test_mechanism_error_type_is_the_packages() -> None:
    assert issubclass(MechanismError, Exception)
    assert issubclass(MechanismNotReplayable, Exception)


# -- issue 26, item 1: nothing recursive runs on the height ----------------------------------

def test_height_4096_arity_1_classifies_without_recursion(tmp_path: Path) -> None:
    """`classify tree.txt --height 4096 --arity 1` raised RecursionError (`level` nested one
    generator per depth), then took minutes (each level walked from the root, each name built
    from every prefix): a record off the tree exits 2 in one line, a leaf is classified."""
    short, leaf = tmp_path / "short.txt", tmp_path / "leaf.txt"
    short.write_text("0/0/0/0\n")
    leaf.write_text("/".join(["0"] * 4095) + "\n")
    argv = ["--height", "4096", "--arity", "1", "--tau", "30", "--epsilon", "1", "--delta",
            "0.05", "--seed", "1"]
    status, _, err = cli(["classify", str(short), *argv])
    assert "leaves of this tree are at depth 4095" in one_line_exit_2(status, err)
    status, out, err = cli(["classify", str(leaf), *argv])
    assert status == 0 and "h=4096 (4096 nodes)" in out, err


@pytest.mark.parametrize(("arity", "height"), [(1, 9), (2, 1), (3, 5), (4, 3)])
def test_uniform_levels_and_names_agree_with_the_general_walk(arity: int, height: int) -> None:
    """The closed forms of `kary_tree` (its levels as products of indices, its names by index)
    against the depth-first walk and the prefix-by-prefix names of the same tree given as a
    rule."""
    from betweencut.data.tree import PublicTree, kary_tree

    names = tuple(str(i) for i in range(arity))
    fast = kary_tree(arity, height)
    slow = PublicTree(height, lambda path: names if len(path) < height - 1 else ())
    for d in range(height + 2):
        assert list(fast.level(d)) == list(slow.level(d)), d
        for u in fast.level(d):
            assert fast.path_names(u) == slow.path_names(u)
    assert fast.size() == slow.size() == fast.node_count()
    assert fast.size(limit=2) == slow.size(limit=2) == min(fast.node_count(), 3)
