"""The folders say what the imports do: every import of the package runs downwards (issue 11).

core never imports proofs or properties (its CLI aside), and the paper's mechanism never imports
`betweencut.baselines`; proofs never imports properties; inside proofs the layers are
exact <- laws <- privacy <- baselines, with `registry` beside `exact` (every checker registers
through it) and `calibration`, `checkers` on top; properties' own modules never import the
teaching helpers. Imports inside functions count too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {
    "core": "betweencut", "proofs": "betweencut.proofs", "properties": "betweencut.properties",
}
PROOF_RANK = {"exact": 0, "registry": 0, "": 0, "laws": 1, "privacy": 2, "baselines": 3,
              "calibration": 4, "checkers": 4}
# The registry finds every checker by importing `checkers` when asked (a registration side effect).
ALLOWED = {("betweencut.proofs.registry", "betweencut.proofs.checkers"),
           # the audit command composes every layer: it registers the structural claims'
           # audit cases, which live with their predicates in properties (issue 18)
           ("betweencut.cli.audit", "betweencut.properties"),
           ("betweencut.cli.audit", "betweencut.properties.audit")}


def _modules() -> dict[str, Path]:
    found = {}
    for folder, package in FOLDERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join([package, *parts])] = path
    return found


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


MODULES = _modules()


def _violations(module: str, targets: set[str]) -> list[str]:
    layer, found = _layer(module), []
    for target in sorted(targets):
        where = f"{module} imports {target}"
        if (module, target) in ALLOWED:
            continue
        if layer == "betweencut":
            if _layer(target) != "betweencut" and not module.startswith("betweencut.cli"):
                found.append(f"{where}: core may not import proofs or properties (CLI aside)")
            elif target.startswith("betweencut.properties"):
                found.append(f"{where}: core may not import properties")
            elif target.startswith("betweencut.baselines") and not module.startswith(
                ("betweencut.baselines", "betweencut.cli")
            ):
                found.append(f"{where}: the mechanism may not depend on a baseline")
        elif layer == "betweencut.proofs":
            if _layer(target) == "betweencut.properties":
                found.append(f"{where}: proofs may not import properties")
            elif (_layer(target) == "betweencut.proofs"
                  and (target in MODULES or target == "betweencut.proofs")
                  and _proof_rank(target) > _proof_rank(module)):
                found.append(f"{where}: inside proofs, exact <- laws <- privacy <- baselines")
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
    ("betweencut.proofs.privacy.claims.checkers", "betweencut.proofs.baselines.privtree"),
    ("betweencut.proofs.privacy.claims.checkers", "betweencut.properties.strategies"),
    ("betweencut.betweencut", "betweencut.proofs.exact.arith"),
    ("betweencut.sparse", "betweencut.baselines.full_tree"),
    ("betweencut.properties.check", "betweencut.properties.teaching.basics"),
])
def test_an_upward_import_is_caught(module: str, target: str) -> None:
    assert len(_violations(module, {target})) == 1


def test_every_proofs_module_has_a_layer() -> None:
    for module in MODULES:
        if _layer(module) == "betweencut.proofs":
            _proof_rank(module)  # KeyError names a module outside every layer
