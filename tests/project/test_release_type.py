"""`on` is a `Release` everywhere past the public entries (issue 38).

What an audit compares is `betweencut.proofs.verdict.Release`: the whole output, BetweenCut's
transcript or Heavy set, or a public attribute of a user's output. `Release.of` (and
`Release.several` for a list) is the one parser, called once where a user's text comes in; past
it no function takes an `on` typed `str`. The scan below reads the package's source with `ast`:
a parameter named `on` (or a class field `on`, a dataclass's constructor parameter) whose
annotation names `str` fails, outside the public entries listed with their reason.
"""

from __future__ import annotations

import ast
import json
import pickle
from collections.abc import Iterator
from fractions import Fraction

import pytest
from package_modules import modules

from betweencut.errors import ParameterError
from betweencut.noise.noisy_test import BTQuery, NoisyTest, Outcome
from betweencut.proofs.verdict import RELEASES_ALLOWED, Release

# the public entries that accept `on` as text (documented), each converting it once
PUBLIC_ENTRIES = {
    "betweencut.api.mechanism.audit_mechanism": "the library's audit: a name or a list of "
    "names, read by Release.several",
    "betweencut.api.depth.audit_depth": "the library's depth audit: 'transcript' or 'heavy', "
    "read by heavy.check_on (Release.of, restricted to the two releases at depth)",
    "betweencut.testing.assertions.assert_private": "the privacy gate of a user's tests",
    "betweencut.testing.assertions.assert_no_regression": "the regression gate of a user's tests",
    "betweencut.testing.curves.pair_curves": "the exact curves of a privacy snapshot",
}


def _names_str(annotation: ast.expr | None) -> bool:
    """Whether an annotation names `str` anywhere (`str`, `str | None`, `Sequence[str]`, or
    the same written as a string)."""
    if annotation is None:
        return False
    for node in ast.walk(annotation):
        if isinstance(node, ast.Name) and node.id == "str":
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                inner = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                continue
            if _names_str(inner):
                return True
    return False


def _scopes(tree: ast.AST, prefix: str) -> Iterator[tuple[str, ast.AST]]:
    """Every function and class with its dotted name under `prefix`."""
    body = getattr(tree, "body", [])
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            name = f"{prefix}.{node.name}"
            yield name, node
            yield from _scopes(node, name)


def str_releases(source: str, module: str) -> list[tuple[str, int]]:
    """Every `on` typed with `str` in `source`: function parameters and class fields, as
    `(dotted name of the function or class, line)`."""
    found = []
    for name, node in _scopes(ast.parse(source), module):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            a = node.args
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs]:
                if arg.arg == "on" and _names_str(arg.annotation):
                    found.append((name, arg.lineno))
        elif isinstance(node, ast.ClassDef):
            for stmt in node.body:
                if (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
                        and stmt.target.id == "on" and _names_str(stmt.annotation)):
                    found.append((name, stmt.lineno))
    return found


def _package_str_releases() -> dict[str, int]:
    found: dict[str, int] = {}
    for module, path in modules().items():
        for name, line in str_releases(path.read_text(encoding="utf-8"), module):
            found[name] = line
    return found


def test_no_internal_on_is_typed_str() -> None:
    found = _package_str_releases()
    internal = sorted(f"{name} (line {line})" for name, line in found.items()
                      if name not in PUBLIC_ENTRIES)
    assert not internal, ("`on` typed str past the public entries (take a Release; parse "
                          f"with Release.of at the entry): {internal}")


def test_the_public_entries_listed_still_take_text() -> None:
    """The list is not stale: each entry exists and still accepts `on` as text."""
    found = _package_str_releases()
    assert sorted(set(PUBLIC_ENTRIES) - set(found)) == []


def test_the_scan_finds_an_on_typed_str() -> None:
    source = '''
from dataclasses import dataclass
def plain(on: str) -> None: ...
def listed(x: int, *, on: "Sequence[str] | None" = None) -> None: ...
def typed(on: Release) -> None: ...
class Holder:
    on: str
    def method(self, on: str | Release) -> None: ...
@dataclass
class Fine:
    on: Release
'''
    assert str_releases(source, "m") == [
        ("m.plain", 3), ("m.listed", 4), ("m.Holder", 7), ("m.Holder.method", 8)]


@pytest.mark.parametrize("name", ["__class__", "_x", "1a", "", "a b", "__dict__"])
def test_release_of_refuses_private_dunder_and_non_identifiers(name: str) -> None:
    with pytest.raises(ParameterError, match=r"^on=") as caught:
        Release.of(name)
    assert caught.value.name == "on" and caught.value.allowed == RELEASES_ALLOWED
    with pytest.raises(ParameterError, match=r"^on="):
        Release(name)  # no Release is made without the check


@pytest.mark.parametrize("value", [3, None, b"output", ("output",)])
def test_release_of_refuses_what_is_not_a_name(value: object) -> None:
    with pytest.raises(ParameterError, match="on="):
        Release.of(value)


def test_release_of_reads_the_fixed_releases_and_attributes() -> None:
    assert Release.of("output") is Release.OUTPUT
    assert Release.of("transcript") is Release.TRANSCRIPT
    assert Release.of("heavy") is Release.HEAVY
    assert Release.of(Release.HEAVY) is Release.HEAVY
    score = Release.of("score")
    assert isinstance(score, Release) and score == "score" and repr(score) == "'score'"
    # written out as its name, byte for byte (JSON, text rows, snapshot files, replay lines)
    assert json.dumps({Release.HEAVY: [score]}) == '{"heavy": ["score"]}'
    assert f"{Release.OUTPUT}" == "output" and type(str(score)) is str
    assert pickle.loads(pickle.dumps(Release.HEAVY)) is Release.HEAVY  # the children's audits


def test_release_several_reads_a_name_a_list_or_the_default() -> None:
    both = (Release.TRANSCRIPT, Release.HEAVY)
    assert Release.several(None, both) == both
    assert Release.several("heavy") == (Release.HEAVY,)
    assert Release.several(["output", "score"]) == (Release.OUTPUT, Release.of("score"))
    for bad, why in (([], "at least one"), (["heavy", "heavy"], "each release once"),
                     (["output", "_x"], "Python identifier"), (None, "is required"),
                     (3, "list of them")):
        with pytest.raises(ParameterError, match=why):
            Release.several(bad)


def _flag(db: tuple[tuple[int, ...], ...], test: NoisyTest) -> Outcome:
    """BT(|D|; 1, 2, 1/2) (examples/my_mechanism.py's flag)."""
    return test(BTQuery(Fraction(len(db)), Fraction(1), Fraction(2), Fraction(1, 2)))


@pytest.mark.parametrize("on", ["__class__", "_x", ["output", "__dict__"]])
def test_the_public_entries_read_on_with_release_of(on: object) -> None:
    """Each public entry refuses what `Release.of` refuses, and takes a `Release` as it is."""
    from betweencut.api import audit_mechanism
    from betweencut.testing import assert_private, pair_curves

    for entry in (lambda: audit_mechanism(_flag, [((), ())], height=1, epsilon=1, delta=0,
                                          on=on),
                  lambda: assert_private(_flag, 1, 0, [((), ())], height=1, on=on),
                  lambda: pair_curves(_flag, [((), ())], height=1, on=on)):
        with pytest.raises(ParameterError, match="on=") as caught:
            entry()
        assert caught.value.allowed == RELEASES_ALLOWED
    assert audit_mechanism(_flag, [((), ())], height=1, epsilon=1, delta=0,
                           on=Release.OUTPUT).holds
