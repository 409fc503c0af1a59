"""A small mutation tester for the mechanism modules of `core/` (fallback for mutmut).

mutmut 2.x edits files in place (unsafe in a shared checkout) and crashed on this layout
(`ValueError: Attribute Mutant.line is required` from its cache, after ~30 mutants). This script
does the same job safely: it copies the package into a scratch tree laid out as
`src/betweencut/...`, applies one AST mutation at a time to one module of the copy, runs the
oracle (pytest on the given test files, `PYTHONPATH` pointing at the copy, Hypothesis profile
`mutation`: deterministic, no shrinking) and counts kills. The checkout is never written.

Operators: comparison swaps (`<`/`<=`, `>`/`>=`, `==`/`!=`, `is`/`is not`, `in`/`not in`),
arithmetic swaps (`+`/`-`, `*`/`//`, `//`/`/`), integer constant `n -> n + 1`, `True`/`False`,
dropping a `not`, `and`/`or`, and replacing an expression statement (a call) by `pass`.
Docstrings, annotations and module-level type aliases are not mutated (equivalent by design).

    python bench/mutation.py core/mechanism/depo.py core/mechanism/marking.py --jobs 2 \\
        --out /tmp/mutation.json

prints one line per mutant (`KILLED`, `SURVIVED`, `TIMEOUT`) and the score, and writes JSON.
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TESTS = (
    "tests/core/test_core_depo.py",
    "tests/core/test_core_sparse.py",
    "tests/properties/test_properties_predicates.py",
    "tests/properties/test_properties_mutation_gaps.py",
    "tests/proofs/test_proofs_calibration.py",
)
_CMP_SWAP: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
    ast.In: ast.NotIn, ast.NotIn: ast.In,
}
_BIN_SWAP: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Div,
    ast.Div: ast.Mult,
}


@dataclass(frozen=True)
class Mutant:
    module: str
    index: int
    line: int
    operator: str
    before: str
    after: str


@dataclass(frozen=True)
class Result:
    mutant: Mutant
    status: str
    seconds: float


def _skip_ids(tree: ast.Module) -> set[int]:
    """Nodes never mutated: docstrings, annotations, module-level type aliases."""
    skip: set[int] = set()

    def mark(node: ast.AST | None) -> None:
        if node is not None:
            skip.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                and isinstance(first.value.value, str):
            mark(first)
        if isinstance(node, ast.arg | ast.AnnAssign):
            mark(node.annotation)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            mark(node.returns)
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Subscript | ast.BinOp) \
                and all(isinstance(t, ast.Name) and t.id[:1].isupper() for t in stmt.targets):
            mark(stmt)  # `Step = tuple[Node, Outcome]`: a type alias
    return skip


def _sites(tree: ast.Module) -> Iterator[tuple[ast.AST, str, object]]:
    """Every (node, operator name, change) in a fixed order."""
    skip = _skip_ids(tree)
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in _CMP_SWAP:
                    yield node, "compare", i
        elif isinstance(node, ast.BinOp) and type(node.op) in _BIN_SWAP:
            yield node, "arith", None
        elif isinstance(node, ast.BoolOp):
            yield node, "bool", None
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            yield node, "not", None
        elif isinstance(node, ast.Constant) and type(node.value) in (int, bool):
            yield node, "constant", None
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            yield node, "drop-call", None


def _apply(tree: ast.Module, index: int) -> tuple[ast.Module, int, str]:
    """A copy of `tree` with mutation `index` applied; returns (tree, line, operator)."""
    new = copy.deepcopy(tree)
    node, kind, arg = list(_sites(new))[index]
    line = getattr(node, "lineno", 0)
    if kind == "compare" and isinstance(node, ast.Compare) and isinstance(arg, int):
        node.ops[arg] = _CMP_SWAP[type(node.ops[arg])]()
    elif kind == "arith" and isinstance(node, ast.BinOp):
        node.op = _BIN_SWAP[type(node.op)]()
    elif kind == "bool" and isinstance(node, ast.BoolOp):
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif kind == "not" and isinstance(node, ast.UnaryOp):
        holder = _parent_slot(new, node)
        holder(node.operand)
    elif kind == "constant" and isinstance(node, ast.Constant):
        node.value = (not node.value) if isinstance(node.value, bool) else node.value + 1
    elif kind == "drop-call" and isinstance(node, ast.Expr):
        holder = _parent_slot(new, node)
        holder(ast.Pass())
    return ast.fix_missing_locations(new), line, kind


def _parent_slot(tree: ast.AST, child: ast.AST):  # type: ignore[no-untyped-def]
    """A setter replacing `child` in its parent."""
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is child:
                return lambda new, p=parent, f=field: setattr(p, f, new)
            if isinstance(value, list) and any(v is child for v in value):
                i = next(k for k, v in enumerate(value) if v is child)
                return lambda new, lst=value, k=i: lst.__setitem__(k, new)
    raise LookupError("node without parent")


def mutants(module: Path) -> list[tuple[Mutant, str]]:
    source = module.read_text(encoding="utf-8")
    tree = ast.parse(source)
    out = []
    for index in range(len(list(_sites(tree)))):
        mutated, line, kind = _apply(tree, index)
        text = ast.unparse(mutated)
        before = source.splitlines()[line - 1].strip() if line else ""
        after_lines = [a for a, b in zip(text.splitlines(), ast.unparse(tree).splitlines(),
                                         strict=False) if a != b]
        out.append((Mutant(str(module.relative_to(ROOT)), index, line, kind, before,
                           after_lines[0].strip() if after_lines else "(same text)"), text))
    return out


def stage(dest: Path) -> Path:
    """Copy the package into `dest/src/betweencut` (core, proofs, properties) and the tests."""
    src = dest / "src" / "betweencut"
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "core", src, ignore=ignore)
    shutil.copytree(ROOT / "proofs", src / "proofs", ignore=ignore)
    shutil.copytree(ROOT / "properties", src / "properties", ignore=ignore)
    shutil.copytree(ROOT / "tests", dest / "tests", ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", dest / "pyproject.toml")
    return dest


def run_oracle(workdir: Path, tests: list[str], timeout: float) -> str:
    env = dict(os.environ, PYTHONPATH=str(workdir / "src"), HYPOTHESIS_PROFILE="mutation")
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
    try:
        done = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "TIMEOUT"
    return "SURVIVED" if done.returncode == 0 else "KILLED"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="+",
                        help="core/ modules to mutate, e.g. core/mechanism/depo.py")
    parser.add_argument("--tests", nargs="+", default=list(DEFAULT_TESTS))
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds per mutant (default: 3 x the baseline run, at least 60)")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--every", type=int, default=1,
                        help="run only every k-th mutant (a bounded, evenly spread sample)")
    args = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="betweencut-mutation-"))
    workers = [stage(scratch / f"w{j}") for j in range(args.jobs)]
    start = time.perf_counter()
    baseline = run_oracle(workers[0], args.tests, args.timeout or 1800.0)
    if baseline != "SURVIVED":
        print(f"the oracle fails without mutations ({baseline}); fix the tests first")
        return 2
    seconds = time.perf_counter() - start
    timeout = args.timeout or max(60.0, 3 * seconds)
    print(f"baseline oracle run: {seconds:.1f} s; timeout per mutant {timeout:.0f} s")
    jobs = [(m, text) for module in args.modules for m, text in mutants(ROOT / module)]
    jobs = jobs[::args.every]
    print(f"{len(jobs)} mutants in {', '.join(args.modules)}; oracle: {' '.join(args.tests)}")
    free = list(range(args.jobs))
    results: list[Result] = []

    def one(item: tuple[Mutant, str]) -> Result:
        mutant, text = item
        slot = free.pop()
        target = workers[slot] / "src" / "betweencut" / Path(mutant.module).relative_to("core")
        original = target.read_text(encoding="utf-8")
        start = time.perf_counter()
        try:
            target.write_text(text, encoding="utf-8")
            status = run_oracle(workers[slot], args.tests, timeout)
        finally:
            target.write_text(original, encoding="utf-8")
            free.append(slot)
        result = Result(mutant, status, time.perf_counter() - start)
        print(f"{status:8} {mutant.module}:{mutant.line} [{mutant.operator}] "
              f"{mutant.before}  ->  {mutant.after}", flush=True)
        return result

    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(one, jobs))
    killed = sum(r.status != "SURVIVED" for r in results)
    print(f"score: {killed}/{len(results)} killed (timeouts count as killed)")
    if args.out:
        args.out.write_text(json.dumps([asdict(r) for r in results], indent=1), encoding="utf-8")
    shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
