"""One way in (issue 22): `import betweencut` gives one function per job, each answering with
the one verdict shape; every engine runs the same checks and gives the same release."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

import betweencut
from betweencut.errors import ParameterError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
JOBS = ("calibrate", "classify", "audit_mechanism", "audit_depth", "audit", "audit_corpus",
        "margins")


def test_import_betweencut_gives_one_function_per_job() -> None:
    for name in JOBS:
        assert callable(getattr(betweencut, name)), name
    assert name in betweencut.__all__
    # `import betweencut` stays cheap: the API (and the proofs) load on first use
    code = "import sys, betweencut; print('betweencut.proofs' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "False"


def _verdict_shape(verdict: object) -> None:
    for member in ("holds", "worst", "refutation", "rows", "as_json", "text", "exit_status"):
        assert hasattr(verdict, member), member


def test_calibrate_paper_and_tight() -> None:
    paper = betweencut.calibrate(15, 1, Fraction(1, 20))
    tight = betweencut.calibrate(15, 1, Fraction(1, 20), accountant="tight")
    assert (paper.L, paper.r, paper.lam) == (4, 4, Fraction(1, 4))
    # tight E <= paper E is certified by its own checker
    # (tests/proofs/privacy/accountants/test_privacy_accountant.py)
    assert tight.accountant == "tight" and paper.accountant == "paper"
    with pytest.raises(ParameterError, match="accountant"):
        betweencut.calibrate(15, 1, Fraction(1, 20), accountant="guess")


def test_audit_mechanism_every_kind_one_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLES))
    monkeypatch.chdir(EXAMPLES)
    fresh = betweencut.audit_mechanism("my_mechanism:flag", exhaustive=1, height=3, epsilon=1,
                                       delta=0)
    shared = betweencut.audit_mechanism("my_svt:svt_no_query_noise", exhaustive=1, height=3,
                                        epsilon=1, delta=0)
    privtree = betweencut.audit_mechanism("my_privtree:privtree_closed", [("{4*2}", "4")],
                                          epsilon=1, delta=0)
    builder = betweencut.audit_mechanism(betweencut.BetweenCut, [("{0/0}", "0/0")], height=3,
                                         tau=2, lam=Fraction(1, 2), R=2)
    for verdict in (fresh, shared, privtree, builder):
        _verdict_shape(verdict)
    assert fresh.holds and builder.holds
    assert not shared.holds and shared.refutation is not None and shared.exit_status == 1
    assert not privtree.holds and privtree.refutation is not None
    assert privtree.refutation.D == "{4*2}" and privtree.refutation.z == "4"


def test_audit_depth_audit_and_corpus_one_shape() -> None:
    depth = betweencut.audit_depth(7, tau=4, lam=Fraction(1, 2), R=2, count=2)
    _verdict_shape(depth)
    assert depth.holds and len(depth.rows) == 3
    claims = betweencut.audit("calibration")
    _verdict_shape(claims)
    assert claims.holds and claims.rows and claims.exit_status == 0
    corpus = betweencut.audit_corpus(names=("svt-alg5",))
    _verdict_shape(corpus)
    assert corpus.holds  # the exact verdict (refuted) agrees with the literature's
    assert corpus.rows[0].refutation is not None


def test_classify_every_engine_same_checks_same_heavy_set(tmp_path: Path) -> None:
    """`classify(..., engine="duckdb")` returns the same Heavy set as `engine="memory"` under
    one seed, and both refuse a bad public parameter before reading a record."""
    pytest.importorskip("duckdb")
    tree = betweencut.kary_tree(2, 4)
    path = tmp_path / "records.csv"
    rows = ["0/0/0"] * 40 + ["0/1/1"] * 35 + ["1/1/0"] * 3
    path.write_text("rec\n" + "\n".join(rows) + "\n", encoding="utf-8")
    args = {"tau": 20, "epsilon": 1, "delta": Fraction(1, 20), "column": "rec", "seed": 7}
    memory = betweencut.classify(tree, path, engine="memory", **args)
    duck = betweencut.classify(tree, path, engine="duckdb", **args)
    assert memory.heavy == duck.heavy and memory.heavy
    assert memory.calibration == duck.calibration
    for engine in ("memory", "duckdb"):
        with pytest.raises(ParameterError, match="epsilon"):
            betweencut.classify(tree, tmp_path / "missing.csv", engine=engine,
                                **{**args, "epsilon": 2})
    leaves = betweencut.classify(tree, [(0, 0, 0)] * 40, tau=20, epsilon=1,
                                 delta=Fraction(1, 20), seed=7)
    assert leaves.heavy


def test_every_api_name_is_the_function_whatever_was_imported_first() -> None:
    """`betweencut.api` imports its jobs on first use; `margins` is also a submodule's name, and
    the package's attribute stays the function even when the submodule is imported first."""
    import subprocess
    import sys
    import types

    import betweencut.api as api

    script = ("import betweencut.api.margins, types\n"
              "from betweencut.api import margins\n"
              "assert not isinstance(margins, types.ModuleType), margins\n")
    subprocess.run([sys.executable, "-c", script], check=True)
    for name in api.__all__:
        assert not isinstance(getattr(api, name), types.ModuleType), name
