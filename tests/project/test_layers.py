"""The folders say what the imports do: every import of the package runs downwards (issue 11).

core never imports proofs or properties (its composition layers aside: the library API
`betweencut.api` and the command line `betweencut.cli`), and the paper's mechanism never imports
`betweencut.baselines`; inside core the subpackages are ranked by role (`CORE_RANK`, issue 38):
schemas <- the top-level plumbing (errors, interop, progress) <- numbers <- data <- noise <-
boundary <- mechanism <- engines, baselines <- api, cli, testing, and imports run down (a
subpackage imports its own modules and those of lower rank only); proofs never imports
properties; inside proofs the layers are exact <- laws <- privacy <- baselines, with `registry`
and `verdict` beside `exact` and `calibration_claims`, `checkers` on top; inside
`proofs/privacy/` the subpackages are ranked (`PRIVACY_RANK`: divergence <- enumeration <- audit
<- claims <- depth <- accountants) and imports run down; the subpackages of `proofs/baselines/`
(`BASELINE_GROUPS`: PrivTree's checks, the corpus's) never import each other; no module imports
a private name (`_x`)
of another module, and there is no import cycle inside `proofs/`; properties' own modules never
import the teaching helpers. Imports inside functions count too.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from package_modules import ROOT, modules

PROOF_RANK = {"exact": 0, "registry": 0, "verdict": 0, "assumes": 0, "": 0, "laws": 1,
              "privacy": 2, "baselines": 3, "calibration_claims": 4, "checkers": 4}
# core/ by role (issue 38): each subpackage imports its own modules and those of lower rank; ""
# is the package itself and its few top-level modules (`TOP`), plumbing for the whole package.
# Two subpackages of one rank do not import each other.
CORE_RANK = {"schemas": 0, "": 1, "numbers": 2, "data": 3, "noise": 4, "boundary": 5,
             "mechanism": 6, "engines": 7, "baselines": 7, "api": 8, "cli": 8, "testing": 8,
             "__main__": 9}
TOP = {"errors", "interop", "progress"}
PRIVACY_RANK = {"": 0, "divergence": 1, "enumeration": 2, "audit": 3, "claims": 4, "depth": 5,
                "accountants": 6}
# proofs/baselines by role: siblings, neither imports the other
BASELINE_GROUPS = ("privtree_checks", "corpus_checks")
# may import every layer: the library API, the command line, the privacy gate for test suites
COMPOSITION = ("betweencut.api", "betweencut.cli", "betweencut.testing")
# the boundary with the user's code (issue 34): imported by the composition layers, never the
# other way round
BOUNDARY = "betweencut.boundary"
# `betweencut.proofs.audit_cases` finds every checker by importing `checkers` when asked (a
# registration side effect; the registry itself imports none).
ALLOWED = {("betweencut.proofs", "betweencut.proofs.checkers"),
           # the audit command composes every layer: it registers the structural claims'
           # audit cases, which live with their predicates in properties (issue 18)
           ("betweencut.cli.audit", "betweencut.properties"),
           ("betweencut.cli.audit", "betweencut.properties.structure_audit")}



def _imports(module: str, path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
            names.add(node.module)
    return {n for n in names if n == "betweencut" or n.startswith("betweencut.")}


def _layer(name: str) -> str:
    for package in ("betweencut.properties", "betweencut.proofs"):
        if name == package or name.startswith(package + "."):
            return package
    return "betweencut"


def _proof_rank(name: str) -> int:
    rest = name.removeprefix("betweencut.proofs").lstrip(".")
    return PROOF_RANK[rest.split(".")[0]]


def _core_group(name: str, strict: bool = True) -> str:
    """The subpackage of `core/` a module of `betweencut` belongs to ("" for the package itself
    and its top-level modules). `strict`: a name outside every group raises KeyError (a module
    not placed); else it is a name of the package (`from betweencut import classify`)."""
    first = name.removeprefix("betweencut").lstrip(".").split(".")[0]
    if first in TOP or first == "":
        return ""
    if first in CORE_RANK:
        return first
    if strict:
        raise KeyError(f"{name}: core/ holds it outside every subpackage of CORE_RANK and TOP")
    return ""


def _core_violation(module: str, target: str) -> str | None:
    """Why `module` may not import `target` (both of `betweencut`), or None."""
    group, other = _core_group(module), _core_group(target, strict=False)
    if group == other or CORE_RANK[other] < CORE_RANK[group]:
        return None
    return (f"{module} imports {target}: inside core, schemas <- errors, interop, progress <- "
            "numbers <- data <- noise <- boundary <- mechanism <- engines, baselines <- api, "
            "cli, testing")


def _privacy_rank(name: str) -> int:
    """The rank of a module of `proofs/privacy/` (-1 outside it)."""
    prefix = "betweencut.proofs.privacy"
    if name != prefix and not name.startswith(prefix + "."):
        return -1
    return PRIVACY_RANK[name.removeprefix(prefix).lstrip(".").split(".")[0]]


def _baseline_group(name: str) -> str:
    """The subpackage of `proofs/baselines/` holding `name` ("" outside them)."""
    prefix = "betweencut.proofs.baselines."
    first = name.removeprefix(prefix).split(".")[0] if name.startswith(prefix) else ""
    return first if first in BASELINE_GROUPS else ""


MODULES = modules()


def _violations(module: str, targets: set[str]) -> list[str]:
    layer, found = _layer(module), []
    for target in sorted(targets):
        where = f"{module} imports {target}"
        if (module, target) in ALLOWED:
            continue
        if layer == "betweencut":
            if module.startswith(BOUNDARY) and target.startswith(
                    (*COMPOSITION, "betweencut.engines", "betweencut.baselines")):
                found.append(f"{where}: the boundary with the user's code imports only the "
                             "core basics (the API, the CLI and the testing gate import it)")
                continue
            if module.startswith(COMPOSITION):
                continue
            if _layer(target) != "betweencut":
                found.append(f"{where}: core may not import proofs or properties (the API and "
                             "the CLI aside)")
            elif target.startswith("betweencut.baselines") and not module.startswith(
                "betweencut.baselines"
            ):
                found.append(f"{where}: the mechanism may not depend on a baseline")
            elif (why := _core_violation(module, target)) is not None:
                found.append(why)
        elif layer == "betweencut.proofs":
            if _layer(target) == "betweencut.properties":
                found.append(f"{where}: proofs may not import properties")
            elif (_layer(target) == "betweencut.proofs"
                  and (target in MODULES or target == "betweencut.proofs")
                  and _proof_rank(target) > _proof_rank(module)):
                found.append(f"{where}: inside proofs, exact <- laws <- privacy <- baselines")
            elif _privacy_rank(module) >= 0 and (
                    target in MODULES or target.rsplit(".", 1)[0] in MODULES) and (
                    _privacy_rank(target) > _privacy_rank(module)):
                found.append(f"{where}: inside proofs/privacy, divergence <- enumeration <- "
                             "audit <- claims <- depth <- accountants")
            elif "" != _baseline_group(module) != _baseline_group(target) != "":
                found.append(f"{where}: the subpackages of proofs/baselines do not import each "
                             "other")
        elif target.startswith("betweencut.properties.teaching") and not module.startswith(
            "betweencut.properties.teaching"
        ):
            found.append(f"{where}: the properties may not depend on the teaching helpers")
    return found


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_run_downwards(module: str) -> None:
    assert _violations(module, _imports(module, MODULES[module])) == []


@pytest.mark.parametrize(("module", "target"), [
    ("betweencut.proofs.laws.tct", "betweencut.proofs.privacy.enumeration.transcripts"),
    ("betweencut.proofs.exact.arith", "betweencut.proofs.laws.bt_laws"),
    ("betweencut.proofs.privacy.claims.theorems",
     "betweencut.proofs.baselines.privtree_checks.privtree"),
    ("betweencut.proofs.baselines.corpus_checks.corpus",
     "betweencut.proofs.baselines.privtree_checks.privtree_search.is_partition"),
    ("betweencut.proofs.baselines.privtree_checks.privtree_audit",
     "betweencut.proofs.baselines.corpus_checks"),
    ("betweencut.proofs.privacy.claims.theorems", "betweencut.properties.strategies"),
    ("betweencut.mechanism.betweencut", "betweencut.proofs.exact.arith"),
    ("betweencut.mechanism.sparse", "betweencut.baselines.full_tree"),
    ("betweencut.properties.check", "betweencut.properties.teaching.basics"),
    ("betweencut.boundary.sandbox", "betweencut.api.load"),
    ("betweencut.boundary.sandbox", "betweencut.proofs.exact.arith"),
])
def test_an_upward_import_is_caught(module: str, target: str) -> None:
    assert len(_violations(module, {target})) == 1


def test_every_proofs_module_has_a_layer() -> None:
    for module in MODULES:
        if _layer(module) == "betweencut.proofs":
            _proof_rank(module)  # KeyError names a module outside every layer


def test_every_core_module_has_a_rank() -> None:
    """core/ is its subpackages by role and a few top-level modules named in `TOP` (issue 38)."""
    for module in MODULES:
        if _layer(module) == "betweencut":
            _core_group(module)  # KeyError names a module outside every subpackage


def test_core_holds_only_its_plumbing_at_the_top() -> None:
    top = {p.stem for p in (ROOT / "core").glob("*.py")} - {"__init__", "__main__"}
    assert top == TOP, "place the new module in a subpackage of core/ (or add it to TOP)"


def test_each_core_subpackage_says_what_it_may_import() -> None:
    """As `proofs/privacy` does; the composition layers say that they compose every layer."""
    for init in sorted((ROOT / "core").glob("*/__init__.py")):
        assert init.parent.name in CORE_RANK, init
        if init.parent.name in {name.rpartition(".")[2] for name in COMPOSITION}:
            continue
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        assert "may import" in doc.lower(), f"{init}: its docstring says what it may import"


def test_every_privacy_subpackage_has_a_rank() -> None:
    for module in MODULES:
        _privacy_rank(module)  # KeyError names a subpackage outside every rank


def test_no_import_cycle_inside_proofs() -> None:
    packages = {m for m, path in MODULES.items() if path.name == "__init__.py"}
    graph = {m: {t for t in _imports(m, MODULES[m]) if t in MODULES and t != m
                 and t not in packages and (m, t) not in ALLOWED}
             for m in MODULES if _layer(m) == "betweencut.proofs" and m not in packages}
    state: dict[str, int] = {}

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for t in sorted(graph.get(m, ())):
            if state.get(t) == 1:
                raise AssertionError(" -> ".join([*path[path.index(t):], t]))
            if t in graph and state.get(t) is None:
                visit(t, [*path, t])
        state[m] = 2

    for m in sorted(graph):
        if state.get(m) is None:
            visit(m, [m])


def test_proofs_privacy_holds_at_most_eight_modules_at_its_top_level() -> None:
    top = [p for p in (ROOT / "proofs" / "privacy").iterdir()
           if p.suffix == ".py" or (p.is_dir() and (p / "__init__.py").exists())]
    assert len(top) <= 8, sorted(p.name for p in top)


# -- private names and the one precision cap (issue 22) ------------------------------------------

def _tree(module: str) -> ast.Module:
    return ast.parse(MODULES[module].read_text(encoding="utf-8"))


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _private_imports(module: str) -> list[str]:
    """`from m import _x` (a private name of another module), or an import from a private module
    `a._m` outside its package `a`; imports inside functions count too."""
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(_tree(module)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if not node.module.startswith("betweencut"):
                continue
            found += [f"{module} imports {alias.name} from {node.module}"
                      for alias in node.names if _is_private(alias.name)]
            parts = node.module.split(".")
            for i, part in enumerate(parts):
                if _is_private(part) and ".".join(parts[:i]) != package:
                    found.append(f"{module} imports from the private module {node.module}")
    return found


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_imports_a_private_name_of_another(module: str) -> None:
    assert _private_imports(module) == []


def test_a_private_import_is_caught(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("from betweencut.noise.bernoulli import _x\nfrom betweencut.cli._common "
                      "import y\n")
    MODULES["betweencut.fake"] = source
    try:
        assert len(_private_imports("betweencut.fake")) == 2
    finally:
        del MODULES["betweencut.fake"]


CAP = "betweencut.numbers.exact.MAX_PRECISION_BITS"
CAP_NAME = re.compile(r"MAX.*PREC|^MAX_BITS$|PREC.*(MAX|CAP)", re.IGNORECASE)
ARITHMETIC = ("iv_precision", "refine", "certified_sign", "enclosure_sign", "enclose",
              "certified_bisect")


def _precision_caps(module: str) -> list[str]:
    """Module constants named like a precision cap, parameters that would set another cap, and
    `while` loops on a precision (the package's one loop is `betweencut.numbers.exact.refine`)."""
    tree, found = _tree(module), []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) else [])
        found += [f"{module}.{t.id}" for t in targets
                  if isinstance(t, ast.Name) and CAP_NAME.search(t.id)]
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found += [f"{module}.{node.name}({a.arg}=...)" for a in node.args.args
                      + node.args.kwonlyargs if CAP_NAME.search(a.arg)]
        elif isinstance(node, ast.While) and module != "betweencut.numbers.exact":
            names = {n.id.lower() for n in ast.walk(node.test) if isinstance(n, ast.Name)}
            found += [f"{module}: a while loop on {n}" for n in sorted(names) if "prec" in n]
    return found


def test_one_precision_cap_and_one_rising_precision_loop() -> None:
    """One cap constant in the package, no other cap as a parameter, and no loop that raises a
    precision outside `betweencut.numbers.exact` (`refine`, the sign gate `certified_sign` on
    it)."""
    found = [cap for module in sorted(MODULES) for cap in _precision_caps(module)]
    assert found == [CAP]


def test_each_arithmetic_helper_is_defined_once() -> None:
    """One precision context, one loop, one sign gate, one `enclose`, one bisection."""
    defined: dict[str, list[str]] = {name: [] for name in ARITHMETIC}
    for module in sorted(MODULES):
        for node in _tree(module).body:
            if isinstance(node, ast.FunctionDef) and node.name in defined:
                defined[node.name].append(module)
    assert {name: len(where) for name, where in defined.items()} == dict.fromkeys(ARITHMETIC, 1)


TEST_ROOTS = {"api": "core/api", "core": "core", "proofs": "proofs", "properties": "properties"}
NOT_MIRRORED = {"project", "data", "__privacy_snapshots__", "__pycache__"}


def test_tests_follow_the_package_layout() -> None:
    """A module's tests are found from its path: `tests/proofs/privacy/depth/` holds the tests of
    `proofs/privacy/depth/`, `tests/api/` those of `core/api/` (`betweencut.api`), `tests/core/X/`
    those of `core/X/`; `tests/project/` holds what concerns the repository as a whole (layers,
    packaging, docs, notebooks, CI). Only the shared helpers and `conftest.py` lie at the top."""
    tests = ROOT / "tests"
    top = sorted(p.name for p in tests.glob("test_*.py"))
    assert top == [], f"test modules at the top of tests/: {top}"
    for path in sorted(tests.rglob("test_*.py")):
        parts = path.relative_to(tests).parts[:-1]
        if parts[0] in NOT_MIRRORED or any(p in NOT_MIRRORED for p in parts):
            continue
        folder = ROOT / TEST_ROOTS[parts[0]] / Path(*parts[1:])
        assert folder.is_dir(), f"{path.relative_to(ROOT)} has no package folder {folder}"
