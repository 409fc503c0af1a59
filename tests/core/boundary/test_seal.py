"""The audit's own code is sealed before the user's module runs in the audit's process
(`betweencut.boundary.seal`): a module that rewrites the audit at import gets no verdict (exit
2, one line), an honest one gets its verdict, and every verdict on a user's code states the
seal's limits (`proofs.assumes.SEALED`, assumed: in-process code can still forge a verdict by
means the seal does not see)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

from betweencut.boundary import seal

LEAK = "\n\ndef leak(db, test):\n    return len(db)\n"
HONEST = textwrap.dedent("""
    from fractions import Fraction
    from betweencut.noise.noisy_test import BTQuery

    def flag(db, test):
        return test(BTQuery(Fraction(len(db)), Fraction(1), Fraction(2), Fraction(1, 2)))
""")

# each rewrites the audit so that a mechanism releasing |D| would be certified
TAMPERING = {
    "a method replaced by a function of the module": textwrap.dedent("""
        import betweencut.proofs.verdict as v
        _init = v.Verdict.__init__
        def init(self, *a, **k):
            _init(self, *a, **k)
            object.__setattr__(self, "holds", True)
        v.Verdict.__init__ = init
    """),
    "a function replaced by a built-in": textwrap.dedent("""
        import betweencut.proofs.privacy.divergence.joint as j
        j.bag_exceeds = bool
    """),
    "a trace function installed": textwrap.dedent("""
        import sys
        sys.settrace(lambda frame, event, arg: None)
    """),
    "a thread left running": textwrap.dedent("""
        import threading, time
        threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
    """),
    "an import finder that says it is the package's own": textwrap.dedent("""
        import sys
        class _NumpyFinder:
            __module__ = "betweencut.boundary.sandbox"
            def find_spec(self, name, path=None, target=None):
                return None
        sys.meta_path.insert(0, _NumpyFinder())
    """),
    "a gc callback flipping the verdict": textwrap.dedent("""
        import gc
        def _flip(phase, info):
            for o in gc.get_objects() if phase == "stop" else ():
                if type(o).__module__ == "betweencut.proofs.verdict" and hasattr(o, "holds"):
                    object.__setattr__(o, "holds", True)
                    for row in getattr(o, "rows", ()):
                        object.__setattr__(row, "holds", True)
        gc.callbacks.append(_flip)
        gc.set_threshold(1)
    """),
    "an audit hook added": textwrap.dedent("""
        import sys
        sys.addaudithook(lambda event, args: None)
    """),
    "a class's comparison replaced": textwrap.dedent("""
        import fractions
        fractions.Fraction.__gt__ = lambda self, other: False
    """),
}


def _audit(module: Path, name: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "betweencut", "audit", "privacy", "--mechanism",
         f"{module}:{name}", "--height", "2", "--exhaustive", "1", "--epsilon", "1/2",
         "--delta", "0"], capture_output=True, text=True, cwd=cwd, timeout=300)


@pytest.mark.parametrize("how", sorted(TAMPERING))
def test_a_module_rewriting_the_audit_gets_no_verdict(tmp_path: Path, how: str) -> None:
    module = tmp_path / "rewrites.py"
    module.write_text(TAMPERING[how] + LEAK)
    done = _audit(module, "leak", tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == "" and done.stderr.count("\n") == 1
    assert "no verdict is given" in done.stderr


# each would end the process with status 0 after a refutation was printed
AT_THE_END = {
    "an exit handler": "import atexit, os\natexit.register(os._exit, 0)\n",
    "a finaliser run at shutdown": textwrap.dedent("""
        import os
        class _Bye:
            def __del__(self):
                os._exit(0)
        _keep = _Bye()
    """),
}


@pytest.mark.parametrize("how", sorted(AT_THE_END))
def test_what_the_module_leaves_for_the_end_cannot_change_the_exit_status(
        tmp_path: Path, how: str) -> None:
    module = tmp_path / "ends.py"
    module.write_text(AT_THE_END[how] + LEAK)
    done = _audit(module, "leak", tmp_path)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "REFUTED" in done.stdout


def test_an_honest_module_gets_its_verdict_and_the_seal_is_stated(tmp_path: Path) -> None:
    module = tmp_path / "honest.py"
    module.write_text(HONEST)
    done = _audit(module, "flag", tmp_path)
    assert done.returncode == 0, done.stderr
    assert ("assumed, not checked: your code does not rewrite the audit in the audit's process"
            in done.stdout)


def test_in_the_library_a_rewrite_is_refused_and_the_process_stays_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from betweencut.api import audit_mechanism
    from betweencut.proofs.privacy.divergence import joint

    monkeypatch.chdir(tmp_path)
    (tmp_path / "rewrites_lib.py").write_text(
        "import betweencut.proofs.privacy.divergence.joint as j\nj.bag_exceeds = bool\n" + LEAK)
    original = joint.bag_exceeds
    try:
        with pytest.raises(seal.Tampered, match="bag_exceeds"):
            audit_mechanism("rewrites_lib:leak", exhaustive=1, height=2, epsilon="1/2", delta=0)
        with pytest.raises(seal.Tampered):  # the seal stays: no verdict from this process
            audit_mechanism("rewrites_lib:leak", exhaustive=1, height=2, epsilon="1/2", delta=0)
    finally:
        joint.bag_exceeds = original  # type: ignore[assignment]
        seal.check()  # as sealed again: the seal ends
        sys.modules.pop("rewrites_lib", None)
    assert not seal.sealed()


def test_a_module_loaded_after_the_seal_must_hold_its_own_package_s_code() -> None:
    """The provenance half: a module of `SOURCES` holding a function compiled elsewhere."""
    import betweencut

    fake = types.ModuleType("betweencut.sealtest_fake")
    fake.__file__ = str(Path(betweencut.__file__).parent / "sealtest_fake.py")
    honest = compile("def f():\n    return 1\n", fake.__file__, "exec")
    exec(honest, fake.__dict__)
    fake.f.__module__ = fake.__name__
    assert seal._foreign(fake.__name__, fake) is None
    foreign = compile("def g():\n    return 2\n", "/elsewhere/user.py", "exec")
    exec(foreign, fake.__dict__)
    fake.g.__module__ = fake.__name__
    assert seal._foreign(fake.__name__, fake) == (
        "betweencut.sealtest_fake.g (compiled from /elsewhere/user.py)")


def test_every_upper_case_name_the_package_rebinds_is_listed_as_state() -> None:
    """An UPPER_CASE module name is sealed as a constant; one the package's code rebinds
    (`global NAME`) is state, listed in `seal.STATE`, or every audit would be refused."""
    import ast

    from package_modules import modules

    rebound = set()
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Global):
                rebound.update((name, n) for n in node.names if n.isupper())
    assert rebound == set(seal.STATE)


def test_the_drawing_s_imports_happen_before_the_user_s_module_is_sealed(tmp_path: Path) -> None:
    """`--plot` loads its libraries when the flag is checked, before the user's module: a
    library they load may add an import hook (python-dateutil 2.x loads six, which appends a
    finder), which the seal would take for the user's rewrite. Drawing afterwards adds no hook
    and loads none of matplotlib's own modules (the docs' plotting example was refused on a
    machine with python-dateutil 2.9)."""
    script = textwrap.dedent("""
        import sys
        from fractions import Fraction
        from types import SimpleNamespace
        from betweencut.cli.audit_privacy import check_plot, plot
        check_plot("curve.png")
        hooks, loaded = list(sys.meta_path), set(sys.modules)
        curve = SimpleNamespace(samples=lambda top: [(0.0, 1.0), (float(top), 0.0)])
        verdict = SimpleNamespace(curve=curve, facts={}, claim=SimpleNamespace(
            points=((Fraction(1), Fraction(0)),)))
        plot("curve.png", verdict)
        assert sys.meta_path == hooks, sys.meta_path
        print(sorted(m for m in set(sys.modules) - loaded
                     if m.partition(".")[0] in ("matplotlib", "dateutil", "six")))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    assert (tmp_path / "curve.png").stat().st_size > 0


def test_a_search_loads_hypothesis_after_the_seal_and_still_gets_its_verdict(
        tmp_path: Path) -> None:
    """`--search` loads Hypothesis after the user's module, and Hypothesis adds a gc callback
    of its own (`seal.LAZY`): the audit gives its verdict (it was refused as a rewrite), in a
    fresh process as a user runs it (in a test worker Hypothesis was loaded already)."""
    module = tmp_path / "searched.py"
    module.write_text(HONEST + LEAK)
    done = subprocess.run(
        [sys.executable, "-m", "betweencut", "audit", "privacy", "--mechanism",
         f"{module}:leak", "--height", "2", "--search", "5", "--epsilon", "1/2", "--delta",
         "0"], capture_output=True, text=True, cwd=tmp_path, timeout=300, check=False)
    assert done.returncode == 1 and "REFUTED" in done.stdout, done.stderr


def test_a_gc_callback_claiming_to_be_hypothesis_s_is_refused(tmp_path: Path) -> None:
    """Only a callback compiled from Hypothesis's own files passes as the library's."""
    module = tmp_path / "claims.py"
    module.write_text(textwrap.dedent("""
        import gc
        def cb(phase, info):
            pass
        cb.__module__ = "hypothesis.internal.conjecture.junkdrawer"
        gc.callbacks.append(cb)
    """) + LEAK)
    done = _audit(module, "leak", tmp_path)
    assert done.returncode == 2 and "gc.callbacks" in done.stderr, (done.stdout, done.stderr)


# every way of auditing an honest module that loads more of the audit after the seal, in a
# fresh process as a user runs it (a test worker has most libraries loaded before any seal)
FRESH = {
    "search (Hypothesis)": "my_mechanism:flag --height 3 --search 5 --epsilon 1/4 --delta 0",
    "a builder": "my_mechanism:TopDown --height 3 --tau 2 --lam 1/2 --R 2 --exhaustive 1",
    "a baseline, strict": "my_mechanism:flag_v2 --baseline my_mechanism:flag --height 3 "
                          "--exhaustive 1 --epsilon 1 --delta 0 --strict",
    "replace-one": "my_mechanism:flag --height 3 --neighbours replace-one --db 0/0 "
                   "--other 0/1 --epsilon 1 --delta 0",
    "the field's primitives": "my_field_mechanism:busiest_branch --height 3 --exhaustive 1 "
                              "--epsilon 1 --delta 0",
    "Gaussian noise": "my_gaussian_svt:svt --arity 2 --height 2 --exhaustive 1 --epsilon 1 "
                      "--delta 1/10",
    "a PrivTree, a plot": "my_privtree:privtree --exhaustive 3 --epsilon 1 --delta 0 --plot "
                          "{tmp}/curve.png",
    "progress and a budget, JSON": "my_mechanism:flag --height 3 --exhaustive 1 --epsilon 1/4 "
                                   "--delta 0 --progress --budget 100 --json",
}


@pytest.mark.parametrize("how", sorted(FRESH))
def test_an_honest_module_is_never_refused_as_a_rewrite(tmp_path: Path, how: str) -> None:
    from example_modules import EXAMPLES

    done = subprocess.run(
        [sys.executable, "-m", "betweencut", "audit", "privacy", "--mechanism",
         *FRESH[how].format(tmp=tmp_path).split()], capture_output=True, text=True,
        cwd=EXAMPLES, timeout=300, check=False, env={**os.environ, "MPLBACKEND": "Agg"})
    assert done.returncode in (0, 1), done.stderr
    assert "changed while your code ran" not in done.stderr
