"""CI runs the tests in both numeric worlds (issue 17): the README's command with gmpy2
installed (mpmath's gmpy backend, sympy's gmpy ground types), then `.ci/no-gmpy-tests.txt` with
`MPMATH_NOGMPY=1 SYMPY_GROUND_TYPES=python`. That second list must reach every module that calls
mpmath or sympy: checked here by reading the sources."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {"core": "betweencut", "proofs": "betweencut.proofs",
            "properties": "betweencut.properties"}
USES_BACKEND = re.compile(r"^\s*(import (mpmath|sympy)|from (mpmath|sympy)[\w.]* import)", re.M)


def backend_modules() -> list[str]:
    """Dotted names of the package's modules that import mpmath or sympy."""
    out = []
    for folder, package in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            if USES_BACKEND.search(path.read_text(encoding="utf-8")):
                parts = path.relative_to(ROOT / folder).with_suffix("").parts
                out.append(".".join((package, *parts)).removesuffix(".__init__"))
    return out


def second_run_tests() -> list[Path]:
    lines = (ROOT / ".ci" / "no-gmpy-tests.txt").read_text(encoding="utf-8").splitlines()
    return [ROOT / line.strip() for line in lines if line.strip() and not line.startswith("#")]


def test_ci_runs_the_backend_free_subset_with_gmpy_switched_off() -> None:
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "MPMATH_NOGMPY=1" in script and "SYMPY_GROUND_TYPES=python" in script
    assert ".ci/no-gmpy-tests.txt" in script


def test_second_run_reaches_every_module_that_calls_mpmath_or_sympy() -> None:
    tests = second_run_tests()
    assert all(t.is_file() for t in tests), [t for t in tests if not t.is_file()]
    texts = [t.read_text(encoding="utf-8") for t in tests]
    modules = backend_modules()
    assert "betweencut.numbers.exact" in modules and "betweencut.proofs.exact.symbolic" in modules
    missing = [m for m in modules
               if not any(re.search(rf"(from|import) {re.escape(m)}\b", t) for t in texts)]
    assert not missing, f"no test of .ci/no-gmpy-tests.txt imports {missing}"
