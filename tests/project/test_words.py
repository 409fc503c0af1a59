"""One word per idea: "profile" in an identifier means a path profile only; a value's JSON is
its `as_json()` (a dict, or a list), and the command line only serialises it.

A profile is a path's counts (`betweencut.proofs.privacy.depth.paths.PathProfile`), the word the
depth audit shows its users ("the path profile given"). A pair's `δ(ε)` is a curve
(`PairCurve`, its `divergence(ε)`), one point of a bound is a point (`theorem_5_4_point`), and
named Hypothesis settings are settings (`betweencut.properties.settings`). Prose may still say
"privacy profile", the literature's name for `δ(ε)`; identifiers may not.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("core", "proofs", "properties")

# path profiles (proofs/privacy/depth and the depth audit's callers)
PATH_PROFILE = {
    "PathProfile", "ProfileSearch", "OTHER_PROFILES", "audit_profiles", "path_profiles",
    "profile", "profile_rows", "profiles", "profiles_audited", "search_profiles",
    "step_profiles",
}
# other libraries' names: Hypothesis's settings profiles, Python's profile hook
FOREIGN = {"register_profile", "load_profile", "get_profile", "setprofile", "getprofile"}
# the generic names `profile(s)` only where path profiles are at hand
GENERIC = {"profile", "profiles"}


def _identifiers(tree: ast.AST) -> Iterator[tuple[str, int]]:
    for node in ast.walk(tree):
        names: list[str | None] = []
        if isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, ast.arg):
            names = [node.arg]
        elif isinstance(node, ast.alias):
            names = [*node.name.split("."), node.asname]
        elif isinstance(node, ast.keyword):
            names = [node.arg]
        elif isinstance(node, ast.ImportFrom):
            names = (node.module or "").split(".")
        for name in names:
            if name and "profile" in name.lower():
                yield name, getattr(node, "lineno", 0)


def profile_words(source: str, path: str) -> list[str]:
    """Every use of "profile" in an identifier (or module name) of `source` that is not a path
    profile, as `path:line: name`."""
    found = [] if "profile" not in Path(path).stem else [f"{path}:1: module {Path(path).stem}"]
    tree = ast.parse(source)
    uses = list(_identifiers(tree))
    path_profiles_here = any(name == "PathProfile" or name in PATH_PROFILE - GENERIC
                             for name, _ in uses)
    for name, line in uses:
        if name in FOREIGN:
            continue
        if name in GENERIC and not path_profiles_here:
            found.append(f"{path}:{line}: {name} (no path profile in this module)")
        elif name not in PATH_PROFILE:
            found.append(f"{path}:{line}: {name}")
    return found


def test_profile_means_a_path_profile_only() -> None:
    found = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = str(path.relative_to(ROOT))
            found += profile_words(path.read_text(encoding="utf-8"), rel)
    assert not found, ("'profile' names a path profile only; rename (a pair's δ(ε) is a curve, "
                       "a bound's value a point):\n" + "\n".join(found))


def test_profile_words_rejects_the_other_meanings() -> None:
    """The checker sees each old meaning: a pair's curve, a bound's point, a settings module,
    a bare `profile` where no path profile is at hand."""
    wrong = {
        "class PairProfile:\n    pass\n": "PairProfile",
        "def theorem_5_4_profile(L: int) -> None:\n    pass\n": "theorem_5_4_profile",
        "from betweencut.properties import profiles\n": "profiles",
        "def f(joint):\n    return joint.profile(1)\n": "no path profile",
    }
    for source, word in wrong.items():
        found = profile_words(source, "x.py")
        assert found and word in found[0], (source, found)
    assert profile_words("x = 1\n", "proofs/privacy/divergence/profiles.py")
    fine = ("from betweencut.proofs.privacy.depth.paths import PathProfile\n"
            "def f(profile: PathProfile) -> None:\n    settings.load_profile('ci')\n")
    assert profile_words(fine, "x.py") == []


# -- JSON: `as_json()` gives the value, the command line writes it ------------------------------

def json_words(source: str, path: str) -> list[str]:
    """`to_json` anywhere; an `as_json` whose return annotation is not a dict or a list; and,
    in the command line, a `json.dumps` of anything but a `.as_json(...)` call (JSON built by
    hand)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name == "to_json":
            found.append(f"{path}:{node.lineno}: to_json (the name is as_json)")
        elif isinstance(node, ast.FunctionDef) and node.name == "as_json":
            shown = ast.unparse(node.returns) if node.returns else "nothing"
            if not shown.startswith(("dict[", "list[")):
                found.append(f"{path}:{node.lineno}: as_json returns {shown}, not a dict or list")
        elif (path.startswith("core/cli/") and isinstance(node, ast.Call)
              and ast.unparse(node.func) == "json.dumps"):
            arg = node.args[0] if node.args else None
            if not (isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute)
                    and arg.func.attr == "as_json"):
                found.append(f"{path}:{node.lineno}: json.dumps of "
                             f"{ast.unparse(arg) if arg else 'nothing'}, not of an as_json()")
    return found


def test_as_json_is_a_dict_and_the_cli_only_serialises_it() -> None:
    found = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            found += json_words(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert not found, "\n".join(found)


def test_json_words_rejects_to_json_a_string_and_json_by_hand() -> None:
    wrong = {
        "def to_json(self) -> str: ...\n": "to_json",
        "def as_json(self) -> str: ...\n": "not a dict",
        "import json\nprint(json.dumps({'rows': rows}))\n": "by hand",
    }
    for source, word in wrong.items():
        found = json_words(source, "core/cli/x.py")
        assert found and (word in found[0] or "not of an as_json" in found[0]), (source, found)
    assert json_words("import json\nprint(json.dumps(v.as_json(rows=False)))\n"
                      "def as_json(self) -> dict[str, int]: ...\n", "core/cli/x.py") == []
