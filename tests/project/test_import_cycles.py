"""No import cycle anywhere in the package (issue 38): the static import graph of every module
of `betweencut` (core, proofs, properties), imports inside functions included, has no cycle; a
cycle fails the test with the cycle printed.

How an import counts (one edge from the importing module):

* `import betweencut.x.y`: to `betweencut.x.y`;
* `from betweencut.x import name`: to `betweencut.x.name` when that is a module of the package
  (a submodule imported by name), else to `betweencut.x` (the module, or the package's
  `__init__`, that defines `name`); relative imports are resolved first;
* an import to the module itself, or to nothing of the package, is no edge; imports under
  `if TYPE_CHECKING:` count too: they never run, but two modules that need each other's types
  are one idea split in two (a `Protocol` of what one reads breaks such a pair).

Importing a submodule also runs its packages' `__init__`, but that is not counted as an edge:
a package's `__init__` re-exporting its modules would otherwise close a cycle with every module
that imports a sibling.
"""

from __future__ import annotations

import ast
from pathlib import Path

from package_modules import modules


def edges(module: str, source: str, known: set[str], package: bool) -> set[str]:
    """The modules of `known` that `module` (its `source`; `package`: an `__init__`) imports,
    by the rules of the module docstring."""
    tree = ast.parse(source)
    here = module if package else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = here.split(".")
                base = parts[:len(parts) - (node.level - 1)]
                source_module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source_module = node.module or ""
            for alias in node.names:
                submodule = f"{source_module}.{alias.name}"
                found.add(submodule if submodule in known else source_module)
    return {t for t in found if t in known and t != module}


def graph(found: dict[str, Path]) -> dict[str, set[str]]:
    known = set(found)
    return {m: edges(m, path.read_text(encoding="utf-8"), known, path.name == "__init__.py")
            for m, path in found.items()}


def a_cycle(g: dict[str, set[str]]) -> list[str] | None:
    """One cycle of `g` (its modules in order, the first repeated at the end), or None."""
    state: dict[str, int] = {}
    for start in sorted(g):
        if start in state:
            continue
        path, stack = [start], [iter(sorted(g[start]))]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(g.get(nxt, ()))))
    return None


def test_no_import_cycle_in_the_package() -> None:
    cycle = a_cycle(graph(modules()))
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_a_cycle_is_caught_and_printed() -> None:
    known = {"betweencut.a", "betweencut.b", "betweencut.c", "betweencut.p", "betweencut.p.m"}
    g = {
        "betweencut.a": edges("betweencut.a", "def f():\n    from betweencut import b\n",
                              known, False),
        "betweencut.b": edges("betweencut.b", "from betweencut.c import x\n", known, False),
        "betweencut.c": edges("betweencut.c", "import betweencut.a\n", known, False),
    }
    assert a_cycle(g) == ["betweencut.a", "betweencut.b", "betweencut.c", "betweencut.a"]


def test_how_an_import_counts() -> None:
    known = {"betweencut.p", "betweencut.p.m", "betweencut.p.q", "betweencut.t"}
    source = ("from betweencut.p import m, name\nfrom . import q\nfrom .m import y\n"
              "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import betweencut.t\n")
    assert edges("betweencut.p.q", source, known, False) == {
        "betweencut.p.m", "betweencut.p", "betweencut.t"}
    assert edges("betweencut.p", "from .q import z\n", known, True) == {"betweencut.p.q"}
