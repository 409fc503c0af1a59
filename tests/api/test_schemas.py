"""Every `--json` output validates against its published schema (issue 22): one verdict shape,
identifier keys, one JSON type per key, a refutation object with the same keys in every kind."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from betweencut.schemas import KINDS, schema

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
REFUTATION_KEYS = {"D", "z", "direction", "eps", "event", "P", "Q", "P_approx", "Q_approx",
                   "delta", "delta_exact"}


def _run(*argv: str, cwd: Path = EXAMPLES) -> tuple[int, Any]:
    done = subprocess.run([sys.executable, "-m", "betweencut", *argv], cwd=cwd,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


def _keys(x: Any, types: dict[str, set[str]]) -> None:
    """Every key an identifier; every key one JSON type across the whole output (null aside)."""
    if isinstance(x, dict):
        for k, v in x.items():
            assert k.isidentifier(), k
            if v is not None:
                types.setdefault(k, set()).add(type(v).__name__)
            _keys(v, types)
    elif isinstance(x, list):
        for v in x:
            _keys(v, types)


def _valid(kind: str, out: Any) -> None:
    jsonschema.validate(out, schema(kind))
    types: dict[str, set[str]] = {}
    _keys(out, types)
    mixed = {k: t for k, t in types.items() if len(t - {"int"} if "float" in t else t) > 1}
    # a float quantity may be an integer-valued int in JSON (0, 1); anything else is mixed
    assert not {k: t for k, t in mixed.items() if k not in ("value",)}, mixed
    from importlib.metadata import version

    # the header names the output kind and the installed version (`betweencut --version`'s)
    assert out["schema"] == f"betweencut/{kind}" and out["version"] == version("betweencut")


@pytest.mark.parametrize("kind", KINDS)
def test_every_schema_is_a_valid_json_schema(kind: str) -> None:
    jsonschema.Draft202012Validator.check_schema(schema(kind))


@pytest.mark.parametrize(("argv", "refuted"), [
    (("audit", "privacy", "--mechanism", "my_svt:svt_no_query_noise", "--height", "3",
      "--exhaustive", "1", "--epsilon", "1", "--delta", "0", "--json"), True),  # shared noise
    (("audit", "privacy", "--mechanism", "my_mechanism:flag", "--height", "3", "--exhaustive",
      "1", "--epsilon", "1", "--delta", "0", "--json"), False),  # fresh noise
    (("audit", "privacy", "--mechanism", "my_privtree:privtree_closed", "--search", "2",
      "--epsilon", "1", "--delta", "0", "--json"), True),  # PrivTree
    (("audit", "privacy", "--mechanism",
      "betweencut.proofs.privacy.claims.gallery:GuardsWithoutR", "--height", "2", "--tau", "2",
      "--lam", "1", "--R", "3", "--db", "0", "--add", "0", "--on", "heavy", "--json"),
     True),  # a builder (the gallery's case) against Theorem 5.4
    (("audit", "privacy", "--height", "3", "--tau", "2", "--lam", "1/2", "--R", "2", "--db",
      "0/0,0/1", "--add", "0/0", "--json"), False),  # BetweenCut against Theorem 5.4
    (("audit", "depth", "--height", "7", "--lam", "0.5", "--R", "2", "--tau", "4", "--count",
      "2", "--json"), False),
])
def test_verdict_outputs_validate(argv: tuple[str, ...], refuted: bool) -> None:
    status, out = _run(*argv)
    _valid("verdict", out)
    assert status == (1 if refuted else 0) and out["holds"] is not refuted
    if refuted:
        assert set(out["refutation"]) >= REFUTATION_KEYS


def test_a_certified_gaussian_verdict_validates() -> None:
    """A Gaussian mechanism's verdict: certified `epsilon_at_delta` and curve, and certified
    regressions, in the one verdict schema."""
    from betweencut.proofs.laws.continuous_gaussian import flint_available

    if not flint_available():
        pytest.skip("python-flint (fast extra)")
    status, out = _run("audit", "privacy", "--mechanism", "my_gaussian_svt:svt_sharp",
                       "--baseline", "my_gaussian_svt:svt", "--arity", "2", "--height", "2",
                       "--exhaustive", "1", "--epsilon", "4", "--delta", "0", "--json")
    _valid("verdict", out)
    assert status == 1 and out["holds"] and out["regressions"]
    assert all(r["certified"] for r in out["regressions"])
    assert "curve" not in out and set(out["curve_certified"]) == {"bits", "lower", "upper"}
    low, high = out["epsilon_at_delta_certified"]["in"]
    assert low == out["epsilon_at_delta"] <= high


def test_a_refuted_depth_verdict_has_one_refutation_object() -> None:
    from fractions import Fraction

    from betweencut import audit_depth
    from betweencut.proofs.privacy.claims.gallery import LaplaceScaleLambda

    verdict = audit_depth(15, tau=24, epsilon=1, delta=Fraction(1, 20), count=28,
                          variant=LaplaceScaleLambda)
    out = verdict.as_json()
    _valid("verdict", out)
    assert not out["holds"] and set(out["refutation"]) >= REFUTATION_KEYS


def test_corpus_claims_classify_calibrate_margins_validate() -> None:
    _, corpus = _run("audit", "corpus", "--json")
    _valid("corpus", corpus)
    refuted = [row for row in corpus["rows"] if row["refutation"] is not None]
    assert refuted and all(set(r["refutation"]) >= REFUTATION_KEYS for r in refuted)
    _, claims = _run("audit", "calibration", "--json")
    _valid("claims", claims)
    _, release = _run("classify", "--tau", "30", "--epsilon", "1", "--delta", "0.05", "--seed",
                      "1", "--json")
    _valid("classify", release)
    _, cal = _run("calibrate", "--height", "15", "--epsilon", "1", "--delta", "0.05", "--json")
    _valid("calibrate", cal)
    _, table = _run("margins", "--epsilon", "1", "--delta", "0.05", "--heights", "3,15",
                    "--max-log2-height", "16", "--json")
    _valid("margins", table)
