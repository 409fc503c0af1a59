"""Strict mode: the user's mechanism verified pure by reading its source (issue 34, "Strict
mode: purity verified statically").

The dynamic checks (the sandbox, the replay or fresh processes) catch what a run shows; code
written to pass an audit can behave while audited. Strict mode (`--strict`, `strict=True`)
reads the code instead, before anything of it runs: the mechanism's source, and every function
and class of the user's modules it reaches through the names it references (resolved through
the function's globals, closure and builtins), must keep to a pure subset:

* no `global` or `nonlocal`; no assignment, augmented assignment, `del` or mutating method
  call (`append`, `update`, `setdefault`, `pop`, `add`, `clear`, ...) on anything but an object
  the call created (a local bound only to a literal, a comprehension or a constructor call):
  module-level names, default-argument objects, closure cells, function attributes and the
  parameters (the database, `self` outside `__init__`) are read only; in `__init__`, `self.x =
  ...` is allowed (the instance is being created);
* no `eval`, `exec`, `compile`, `open`, `__import__`, `setattr`, `delattr`, `globals`, `vars`,
  `locals`, `input`, `breakpoint`, `id`, `hash`; `getattr` only with a constant name; no dunder
  attribute but `__init__`, `__name__`, `__qualname__` (`__dict__`, `__class__`, `__code__`,
  ... reach state or code);
* imports, and every module, function or object the code reaches, only from the package, the
  user's own modules (read in turn) and an allow-list of the standard library (`ALLOWED`:
  `fractions`, `math`, `itertools`, `functools`, `collections`, `dataclasses`, `typing`, `enum`,
  `operator`, `decimal`, `numbers`, `abc`, ...); `functools.lru_cache`, `cache` and
  `cached_property` are memos and refused; so is a module-level iterator (`itertools.count()`);
* decorators only from the allow-list (so no memo).

A violation is `NotPure` (a `MechanismError`: the command line exits 2 with one line naming the
file, the line and the construct). Source that cannot be read (a lambda typed at the prompt, a
C function, a library without source) is refused the same way: strict mode verifies, it never
assumes. The package's own code is trusted (it is the code the proofs check). What strict mode
does not see: what the allow-listed standard library and the package do with what they are
given (they are trusted), and code run through them by name (a `functools.partial` of a module
object built at import is checked as that object's type).
"""

from __future__ import annotations

import ast
import builtins
import functools
import inspect
import sys
import textwrap
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from betweencut.errors import MechanismError

__all__ = ["ALLOWED", "NotPure", "Purity", "check_pure"]

ALLOWED = frozenset({
    "fractions", "math", "itertools", "functools", "collections", "dataclasses", "typing",
    "enum", "operator", "decimal", "numbers", "abc", "__future__", "typing_extensions",
    "string", "cmath", "bisect", "heapq", "copy", "types",
    # their C halves, where the functions above are defined
    "_functools", "_operator", "_collections", "_collections_abc", "_decimal", "_pydecimal",
    "_heapq", "_bisect", "_abc", "_string", "_pydatetime",
})
REFUSED_IN_ALLOWED = {
    ("functools", "lru_cache"): "functools.lru_cache (a memo)",
    ("functools", "cache"): "functools.cache (a memo)",
    ("functools", "cached_property"): "functools.cached_property (a memo)",
    ("functools", "_lru_cache_wrapper"): "functools.lru_cache (a memo)",
    ("itertools", "count"): "itertools.count (a counter)",
    ("types", "FunctionType"): "types.FunctionType (makes code)",
    ("types", "CodeType"): "types.CodeType (makes code)",
}
BANNED_BUILTINS = frozenset({
    "eval", "exec", "compile", "open", "__import__", "setattr", "delattr", "globals", "vars",
    "locals", "input", "breakpoint", "id", "hash", "memoryview", "__build_class__",
})
MUTATORS = frozenset({
    "append", "extend", "insert", "pop", "popitem", "remove", "clear", "update", "setdefault",
    "add", "discard", "difference_update", "intersection_update",
    "symmetric_difference_update", "sort", "reverse", "appendleft", "extendleft", "popleft",
    "rotate", "move_to_end", "write", "writelines", "send", "throw", "close", "__setitem__",
    "__delitem__", "__setattr__", "__delattr__", "__set__", "__iadd__", "seed", "setstate",
})
DUNDERS_ALLOWED = frozenset({"__init__", "__name__", "__qualname__", "__post_init__"})
PACKAGE = "betweencut"
OUTSIDE = "not in strict mode's allow-list: the package, your modules, " \
    "betweencut.boundary.purity.ALLOWED"


class NotPure(MechanismError):
    """The mechanism's code is outside the pure subset strict mode verifies: `where` (file and
    line) and `construct`."""

    def __init__(self, where: str, construct: str) -> None:
        self.where = where
        self.construct = construct
        super().__init__(f"strict mode: {where}: {construct}")


@dataclass
class Purity:
    """What strict mode read: the qualified names of the functions checked, in order."""

    checked: list[str] = field(default_factory=list)


def _top(module: object) -> str:
    return str(module).partition(".")[0] if isinstance(module, str) else ""


def _origin(value: object) -> str | None:
    """The module `value` comes from, read without running its code."""
    if isinstance(value, types.ModuleType):
        return value.__name__
    if isinstance(value, types.BuiltinFunctionType | types.BuiltinMethodType):
        owner = getattr(value, "__self__", None)
        if owner is None or isinstance(owner, types.ModuleType):
            return getattr(owner, "__name__", None) or getattr(value, "__module__", None) \
                or "builtins"
        return type(owner).__module__ if not isinstance(owner, type) else owner.__module__
    if isinstance(value, type | types.FunctionType):
        return value.__module__
    if isinstance(value, types.MethodType):
        return _origin(value.__func__)
    return type(value).__module__


def _is_user(module: str | None) -> bool:
    """A module of the user's (read in turn): not the package, not the standard library,
    not a library without readable source (decided when its source is read)."""
    top = _top(module)
    return bool(top) and top != PACKAGE and top not in sys.stdlib_module_names \
        and top != "builtins"


class _Checker:
    def __init__(self) -> None:
        self.seen: set[int] = set()
        self.queue: list[tuple[object, str]] = []
        self.result = Purity()

    # -- values reached ---------------------------------------------------------------------

    def value(self, value: object, name: str, where: str) -> None:
        """A value the code reaches by `name`: trusted, read in turn, or refused."""
        if value is None or isinstance(value, bool | int | float | complex | str | bytes):
            return
        if isinstance(value, tuple | frozenset):
            for item in value:
                self.value(item, name, where)
            return
        if isinstance(value, list | dict | set | bytearray):
            return  # read only: a write is refused where it is written
        origin = _origin(value)
        top = _top(origin)
        if top == PACKAGE:
            return
        if isinstance(value, types.ModuleType):
            if top in ALLOWED or top == "builtins":
                return
            if _is_user(origin):
                return  # its attributes are read as the code names them
            raise NotPure(where, f"uses module {value.__name__} ({OUTSIDE})")
        if origin == "builtins":
            short = str(getattr(value, "__name__", ""))
            if isinstance(value, types.BuiltinFunctionType) and short in BANNED_BUILTINS \
                    and getattr(builtins, short, None) is value:
                raise NotPure(where, f"calls {short}()")
            if isinstance(value, type):
                return
            if hasattr(value, "__next__"):
                raise NotPure(where, f"reads {name}, a {type(value).__name__} iterator (its "
                              "state advances from call to call)")
            return
        if top in ALLOWED:
            short = getattr(value, "__name__", type(value).__name__)
            refused = REFUSED_IN_ALLOWED.get((top, short)) or REFUSED_IN_ALLOWED.get(
                (top, type(value).__name__))
            if refused is not None:
                raise NotPure(where, f"uses {refused}")
            if hasattr(value, "__next__"):
                raise NotPure(where, f"reads {name}, a {type(value).__name__} iterator (its "
                              "state advances from call to call)")
            if isinstance(value, type | types.FunctionType | types.BuiltinFunctionType):
                return
            if type(value).__module__ == origin and not _is_user(type(value).__module__):
                return  # an instance of an allowed type (a Fraction, a Decimal, a partial)
            return
        if _is_user(origin):
            if isinstance(value, type | types.FunctionType | types.MethodType):
                self.enqueue(value, name)
                return
            self.enqueue(type(value), name)  # an object of the user's: its class's code
            return
        raise NotPure(where, f"uses {name}, from {origin} ({OUTSIDE})")

    def enqueue(self, target: object, name: str) -> None:
        if isinstance(target, types.MethodType):
            target = target.__func__
        if id(target) in self.seen:
            return
        self.seen.add(id(target))
        self.queue.append((target, name))

    # -- code read --------------------------------------------------------------------------

    def run(self) -> Purity:
        while self.queue:
            target, name = self.queue.pop(0)
            if isinstance(target, type):
                self.klass(target, name)
            else:
                self.function(target, name)
        return self.result

    def klass(self, cls: type, name: str) -> None:
        for base in cls.__mro__:
            module = base.__module__
            if base is object or _top(module) == PACKAGE:
                continue
            if not _is_user(module):
                raise NotPure(_place_of(cls), f"{cls.__qualname__} derives from "
                              f"{module}.{base.__qualname__} (strict mode reads your classes "
                              "and the package's)")
            for attr, value in vars(base).items():
                if isinstance(value, staticmethod | classmethod):
                    value = value.__func__
                if isinstance(value, property):
                    for part in (value.fget, value.fset, value.fdel):
                        if part is not None:
                            self.enqueue(part, f"{base.__qualname__}.{attr}")
                elif isinstance(value, types.FunctionType):
                    self.enqueue(value, f"{base.__qualname__}.{attr}")
                elif attr.startswith("__") and attr.endswith("__"):
                    continue
                else:
                    self.value(value, f"{base.__qualname__}.{attr}", _place_of(base))

    def function(self, target: object, name: str) -> None:
        if isinstance(target, functools.partial):
            self.value(target.func, name, _place_of(target.func))
            for arg in (*target.args, *target.keywords.values()):
                self.value(arg, name, _place_of(target.func))
            return
        if not isinstance(target, types.FunctionType):
            if callable(target) and _is_user(type(target).__module__):
                self.enqueue(type(target), name)
                return
            raise NotPure(name, f"the source of {name} (a {type(target).__name__}) cannot be "
                          "read: strict mode verifies source only")
        code = target.__code__
        file = code.co_filename
        try:
            lines, start = inspect.getsourcelines(target)
        except (OSError, TypeError):
            raise NotPure(f"{file}:{code.co_firstlineno}", f"the source of {name} cannot be "
                          "read (a function typed at the prompt, or made by exec): strict "
                          "mode verifies source only") from None
        text = textwrap.dedent("".join(lines))
        try:
            tree = ast.parse(text)
        except SyntaxError:
            tree = ast.parse("(" + text.strip().rstrip(",").strip() + ")") \
                if target.__name__ == "<lambda>" else None  # type: ignore[assignment]
            if tree is None:
                raise NotPure(f"{file}:{start}", f"the source of {name} does not parse "
                              "alone") from None
        node = _the_function(tree, target)
        self.result.checked.append(f"{target.__module__}.{target.__qualname__}")
        _Body(self, target, node, file, start - 1, name).check()


def _the_function(tree: ast.AST, target: types.FunctionType) -> ast.AST:
    if target.__name__ == "<lambda>":
        lambdas = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)]
        if len(lambdas) == 1:
            return lambdas[0]
        return tree  # several lambdas on the line: all of them are read
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and \
                node.name == target.__name__:
            return node
    return tree


def _place_of(target: object) -> str:
    try:
        file = inspect.getsourcefile(target)  # type: ignore[arg-type]
        line = inspect.getsourcelines(target)[1]  # type: ignore[arg-type]
        return f"{file}:{line}"
    except (OSError, TypeError):
        return getattr(target, "__qualname__", type(target).__name__)


def _root(node: ast.AST) -> ast.AST:
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Starred):
        node = node.value
    return node


def _params(node: ast.AST) -> Iterator[str]:
    args = getattr(node, "args", None)
    if isinstance(args, ast.arguments):
        for a in (*args.posonlyargs, *args.args, *args.kwonlyargs):
            yield a.arg
        if args.vararg:
            yield args.vararg.arg
        if args.kwarg:
            yield args.kwarg.arg


class _Body:
    """One function's source, read against the pure subset."""

    def __init__(self, checker: _Checker, target: types.FunctionType, node: ast.AST,
                 file: str, offset: int, name: str) -> None:
        self.checker = checker
        self.target = target
        self.node = node
        self.file = file
        self.offset = offset
        self.name = name
        self.params: set[str] = set()
        self.assigned: dict[str, bool] = {}  # local name -> bound only to a fresh object
        self.in_init = target.__name__ == "__init__"

    def where(self, node: ast.AST) -> str:
        return f"{self.file}:{getattr(node, 'lineno', 1) + self.offset}"

    def refuse(self, node: ast.AST, construct: str) -> NotPure:
        return NotPure(self.where(node), f"{construct} (in {self.name})")

    def check(self) -> None:
        for n in ast.walk(self.node):
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                self.params.update(_params(n))
        self._locals()
        for n in ast.walk(self.node):
            self._node(n)

    def _locals(self) -> None:
        for n in ast.walk(self.node):
            if isinstance(n, ast.Assign):
                fresh = self._fresh(n.value)
                for t in n.targets:
                    for name in _names(t):
                        self.assigned[name] = self.assigned.get(name, True) and fresh \
                            and isinstance(t, ast.Name)
            elif isinstance(n, ast.AnnAssign | ast.AugAssign | ast.NamedExpr):
                target = n.target
                value = n.value
                if isinstance(target, ast.Name):
                    fresh = value is not None and self._fresh(value) and \
                        not isinstance(n, ast.AugAssign)
                    self.assigned[target.id] = self.assigned.get(target.id, True) and fresh \
                        if not isinstance(n, ast.AugAssign) else \
                        self.assigned.get(target.id, False)
            elif isinstance(n, ast.For | ast.AsyncFor | ast.comprehension):
                for name in _names(n.target):
                    self.assigned[name] = False
            elif isinstance(n, ast.With | ast.AsyncWith):
                for item in n.items:
                    if item.optional_vars is not None:
                        for name in _names(item.optional_vars):
                            self.assigned[name] = False
            elif isinstance(n, ast.ExceptHandler) and n.name:
                self.assigned[n.name] = False
            elif isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and \
                    n is not self.node:
                self.assigned[n.name] = True
            elif isinstance(n, ast.Import | ast.ImportFrom):
                for alias in n.names:
                    self.assigned[(alias.asname or alias.name).partition(".")[0]] = False
        for p in self.params:
            self.assigned[p] = False

    def _fresh(self, value: ast.AST) -> bool:
        if isinstance(value, ast.List | ast.Dict | ast.Set | ast.ListComp | ast.DictComp |
                      ast.SetComp | ast.GeneratorExp | ast.Tuple | ast.Constant):
            return True
        if isinstance(value, ast.BinOp):
            return True  # a new object (a user type's operator is read in turn)
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            found = self._resolve(value.func.id)
            return isinstance(found, type) or found is sorted
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
            return value.func.attr == "copy" and not value.args
        return False

    def _resolve(self, name: str) -> Any:
        code = self.target.__code__
        if name in code.co_freevars and self.target.__closure__ is not None:
            cell = self.target.__closure__[code.co_freevars.index(name)]
            try:
                return cell.cell_contents
            except ValueError:
                return None
        if name in self.target.__globals__:
            return self.target.__globals__[name]
        return getattr(builtins, name, None)

    def _mine(self, root: ast.AST) -> bool:
        """Is `root` a local bound only to an object this call created (or `self` in
        `__init__`)?"""
        if not isinstance(root, ast.Name):
            return False
        if self.in_init and root.id == "self":
            return True
        return self.assigned.get(root.id, False) is True and root.id not in self.params

    def _write(self, target: ast.AST, node: ast.AST) -> None:
        if isinstance(target, ast.Tuple | ast.List):
            for t in target.elts:
                self._write(t, node)
            return
        if isinstance(target, ast.Starred):
            self._write(target.value, node)
            return
        if isinstance(target, ast.Name):
            return  # a local: `global` and `nonlocal` are refused
        root = _root(target)
        if self.in_init and isinstance(root, ast.Name) and root.id == "self":
            if isinstance(target, ast.Attribute) and target.value is root:
                return  # self.x = ... while the instance is made
            raise self.refuse(node, f"writes {ast.unparse(target)} (in __init__, only "
                              "self.x = ... is allowed)")
        if not self._mine(root):
            raise self.refuse(node, f"writes {ast.unparse(target)}, on an object this call "
                              "did not create")

    def _node(self, n: ast.AST) -> None:
        if isinstance(n, ast.Global | ast.Nonlocal):
            kind = "global" if isinstance(n, ast.Global) else "nonlocal"
            raise self.refuse(n, f"{kind} {', '.join(n.names)}")
        if isinstance(n, ast.Assign):
            for t in n.targets:
                self._write(t, n)
        elif isinstance(n, ast.AugAssign | ast.AnnAssign):
            self._write(n.target, n)
        elif isinstance(n, ast.Delete):
            for t in n.targets:
                self._write(t, n)
        elif isinstance(n, ast.Import | ast.ImportFrom):
            module = n.module if isinstance(n, ast.ImportFrom) else None
            names = [module] if module is not None else [a.name for a in n.names]
            if isinstance(n, ast.ImportFrom) and n.level:
                raise self.refuse(n, "a relative import inside a function")
            for m in names:
                if m is not None and _top(m) not in ALLOWED and _top(m) != PACKAGE:
                    raise self.refuse(n, f"imports {m} ({OUTSIDE})")
        elif isinstance(n, ast.Attribute):
            if n.attr.startswith("__") and n.attr.endswith("__") and \
                    n.attr not in DUNDERS_ALLOWED:
                raise self.refuse(n, f"reads .{n.attr}")
            if n.attr.startswith(("f_", "gi_", "cr_", "tb_")) and n.attr in (
                    "f_globals", "f_locals", "f_back", "gi_frame", "cr_frame", "tb_frame"):
                raise self.refuse(n, f"reads .{n.attr}")
            self._attribute(n)
        elif isinstance(n, ast.Call):
            self._call(n)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            if n.id in self.assigned:
                return
            value = self._resolve(n.id)
            if value is None and n.id not in self.target.__globals__ and \
                    not hasattr(builtins, n.id):
                return  # unbound here: a NameError when run, not state
            self.value(value, n.id, n)
        elif isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef |
                        ast.Lambda):
            for d in getattr(n, "decorator_list", ()):
                self._decorator(d)

    def value(self, value: object, name: str, node: ast.AST) -> None:
        """`checker.value`, a refusal naming this function."""
        try:
            self.checker.value(value, name, self.where(node))
        except NotPure as exc:
            raise NotPure(exc.where, f"{exc.construct} (in {self.name})") from None

    def _decorator(self, d: ast.AST) -> None:
        base = d.func if isinstance(d, ast.Call) else d
        if isinstance(base, ast.Name) and base.id in ("staticmethod", "classmethod",
                                                      "property"):
            return
        value = self._value_of(base)
        origin = _top(_origin(value)) if value is not None else ""
        if origin in ALLOWED or origin == PACKAGE:
            self.value(value, ast.unparse(base), d)
            return
        raise self.refuse(d, f"decorator @{ast.unparse(base)} (strict mode allows the "
                          "package's and the allow-list's, not memos)")

    def _value_of(self, node: ast.AST) -> Any:
        """The value of a name or a dotted name through modules, without running code."""
        if isinstance(node, ast.Name):
            return None if node.id in self.assigned else self._resolve(node.id)
        if isinstance(node, ast.Attribute):
            owner = self._value_of(node.value)
            if isinstance(owner, types.ModuleType | type):
                try:
                    return inspect.getattr_static(owner, node.attr)
                except AttributeError:
                    return None
        return None

    def _attribute(self, n: ast.Attribute) -> None:
        """`module.name` or `Class.name` read: the value it names is checked in turn."""
        if not isinstance(n.ctx, ast.Load):
            return
        owner = self._value_of(n.value)
        if isinstance(owner, types.ModuleType) and (
                _is_user(owner.__name__) or _top(owner.__name__) in ALLOWED):
            try:
                value = inspect.getattr_static(owner, n.attr)
            except AttributeError:
                return
            self.value(value, f"{owner.__name__}.{n.attr}", n)

    def _call(self, n: ast.Call) -> None:
        func = n.func
        if isinstance(func, ast.Name) and func.id not in self.assigned:
            if func.id == "getattr" and self._resolve("getattr") is getattr and (
                    len(n.args) < 2 or not isinstance(n.args[1], ast.Constant)):
                raise self.refuse(n, "getattr with a name computed at run time")
            if func.id in BANNED_BUILTINS and self._resolve(func.id) is getattr(
                    builtins, func.id, None):
                raise self.refuse(n, f"calls {func.id}()")
        if isinstance(func, ast.Attribute) and func.attr in MUTATORS:
            root = _root(func.value)
            if not self._mine(root):
                owner = self._value_of(func.value)
                if isinstance(owner, types.ModuleType):
                    return  # a module's function named like a mutator (checked as a value)
                raise self.refuse(n, f"calls {ast.unparse(func)}(), mutating an object this "
                                  "call did not create")


def _names(target: ast.AST) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, ast.Tuple | ast.List):
        for t in target.elts:
            yield from _names(t)
    elif isinstance(target, ast.Starred):
        yield from _names(target.value)


def check_pure(mechanism: object, name: str | None = None) -> Purity:
    """Read `mechanism` (a function, a class, a callable object, a PrivTree or a builder's
    product) and everything of the user's it reaches against the pure subset, without running
    any of it. Returns what was read; raises `NotPure` naming the file, the line and the
    construct."""
    checker = _Checker()
    label = name or getattr(mechanism, "__qualname__", type(mechanism).__name__)
    origin = _origin(mechanism)
    if _top(origin) == PACKAGE:
        return checker.result  # the package's own mechanism: the code the proofs check
    if isinstance(mechanism, type | types.FunctionType | types.MethodType):
        checker.enqueue(mechanism, str(label))
    elif isinstance(mechanism, types.BuiltinFunctionType):
        raise NotPure(str(label), f"the source of {label} (a built-in) cannot be read: "
                      "strict mode verifies source only")
    elif not _is_user(type(mechanism).__module__):
        checker.value(mechanism, str(label), _place_of(getattr(mechanism, "__wrapped__",
                                                               mechanism)))
        if not isinstance(mechanism, functools.partial):
            raise NotPure(str(label), f"{label} is a {type(mechanism).__qualname__}: strict "
                          "mode reads functions and classes of yours")
        checker.function(mechanism, str(label))
    else:
        checker.enqueue(type(mechanism), str(label))
        for attr, value in getattr(mechanism, "__dict__", {}).items():
            checker.value(value, f"{label}.{attr}", _place_of(type(mechanism)))
    return checker.run()
