"""Which seams does this object override, and where? Checked on the constructed object.

A fast path that models a class's structure (the depth audit's path grouping models Alg. 3's
`level_order`, `apply` and `run`; the shared outcome tree models `BetweenCut.run`; PrivTree's
reduction models `PrivTree.run`) answers for that structure only if the object it audits runs
it. Reading the class alone is not enough: a method set on the instance (`self.level_order =
...` in `__init__`), a `__getattr__` or `__getattribute__`, a property, a slot, a base class
patched after import or a function whose code was swapped all change what the object runs
while its class looks unchanged. `overrides(obj, seams)` looks at what an attribute read on
`obj` resolves to, without running any of the object's code:

* the object's type must be a real subclass of the base (`type(obj)`, never `__class__`);
* no class of its MRO (the real one, read past any metaclass) may define `__getattribute__`,
  `__getattr__` or `__dict__`: any read could be computed;
* each step (a method, a property or a slot of the base) must resolve, through the instance
  dictionary and then the MRO, to the base's own definition as it was when the base was
  defined (`Seams.of` snapshots it, code, defaults and closure included);
* each field (an instance attribute such as `tree`) must not be defined by any class as a
  property or other descriptor, which would compute it on every read;
* finally each step read on the instance must be the base's function bound to `obj` itself.

Each override found is an `Override`: the seam and where it was set (the instance, a class,
with the file and line of the code it holds), one line for an error message. What this cannot
see: changes to the package's other code (a patched module global, `gc` or `ctypes` edits),
and state hidden in the base's own attributes; see the trust page's threat model.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import types
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from betweencut.errors import MechanismError

__all__ = ["Override", "Seams", "check_unchanged", "overrides", "own_code", "packaged",
           "refusal"]

TRAPS = ("__getattribute__", "__getattr__", "__dict__")
_CLASS_DICT = type.__dict__["__dict__"]  # read past a metaclass that redefines `__dict__`
_CLASS_MRO = type.__dict__["__mro__"]


@dataclass(frozen=True)
class Override:
    """One seam `obj` does not take from the base: `seam` (a name), `where` it was set, and
    `by` the subclass defining it when it is a plain override in a class body (else None)."""

    seam: str
    where: str
    by: type | None = None

    def line(self) -> str:
        return f"{self.seam} {self.where}"


@dataclass(frozen=True)
class _Original:
    value: object
    code: object = None
    defaults: object = None
    kwdefaults: object = None
    cells: tuple[object, ...] = ()

    @staticmethod
    def of(value: object) -> _Original:
        func = _function(value)
        if func is None:
            return _Original(value)
        return _Original(value, func.__code__, func.__defaults__, func.__kwdefaults__,
                         tuple(_cell(c) for c in func.__closure__ or ()))

    def same(self, value: object) -> bool:
        if value is not self.value:
            return False
        func = _function(value)
        return func is None or (
            func.__code__ is self.code and func.__defaults__ is self.defaults
            and func.__kwdefaults__ is self.kwdefaults
            and tuple(_cell(c) for c in func.__closure__ or ()) == self.cells)


def _cell(cell: object) -> object:
    try:
        return id(cell.cell_contents)  # type: ignore[attr-defined]
    except ValueError:  # an empty cell
        return None


def _function(value: object) -> types.FunctionType | None:
    if isinstance(value, staticmethod | classmethod):
        value = value.__func__
    return value if isinstance(value, types.FunctionType) else None


@dataclass(frozen=True)
class Seams:
    """The seams of `base` (and of the `also` classes, whose own definitions are accepted too:
    `GuardedBT.query` beside `BT.query`), snapshot when `of` is called: call it where the base
    is defined, so the snapshot is taken before any user code runs."""

    base: type
    steps: tuple[str, ...]
    fields: tuple[str, ...] = ()
    owners: tuple[type, ...] = ()
    originals: Mapping[str, tuple[_Original, ...]] = field(default_factory=dict, repr=False)

    @staticmethod
    def of(base: type, steps: Iterable[str], fields: Iterable[str] = (),
           also: Iterable[type] = ()) -> Seams:
        steps, fields = tuple(steps), tuple(fields)
        owners = (base, *also)
        originals = {name: tuple(_Original.of(_vars(c)[name]) for c in owners
                                 if name in _vars(c)) for name in (*steps, *fields, *TRAPS)}
        return Seams(base, steps, fields, owners, originals)

    def accepts(self, name: str, value: object) -> bool:
        return any(o.same(value) for o in self.originals.get(name, ()))


def _vars(cls: type) -> Mapping[str, object]:
    found: Mapping[str, object] = _CLASS_DICT.__get__(cls)
    return found


def _mro(cls: type) -> tuple[type, ...]:
    found: tuple[type, ...] = _CLASS_MRO.__get__(cls)
    return found


def _instance_dict(obj: object) -> Mapping[str, object]:
    """The object's own attribute dictionary, read through the interpreter's own `__dict__`
    descriptor (a class redefining `__dict__` is reported as a trap, not trusted)."""
    for cls in _mro(type(obj)):
        found = _vars(cls).get("__dict__")
        if isinstance(found, types.GetSetDescriptorType):
            value = found.__get__(obj)
            return value if isinstance(value, dict) else {}
    return {}


def _where(value: object) -> str:
    """Where the code of `value` lives: `file:line` of a function (a bound method's, a
    property's getter), else its type."""
    if isinstance(value, property):
        value = value.fget
    if isinstance(value, types.MethodType):
        value = value.__func__
    func = _function(value)
    if func is not None:
        code = func.__code__
        return f"{func.__qualname__} at {os.path.basename(code.co_filename)}:{code.co_firstlineno}"
    if isinstance(value, types.MemberDescriptorType):
        return "a slot (__slots__)"
    return f"a {type(value).__qualname__}"


def overrides(obj: object, seams: Seams, only: Iterable[str] | None = None
              ) -> tuple[Override, ...]:
    """Every seam of `seams` that `obj` does not take from the base, and where it was set
    (the module docstring lists what is looked at). `only`: the steps to look at (default all);
    the type, the traps and the fields are always looked at. No code of `obj` runs before the
    traps and the steps are found clean."""
    cls = type(obj)
    if seams.base not in _mro(cls):
        return (Override("class", f"of the object, {_name(cls)}, is not a subclass of "
                                  f"{_name(seams.base)}"),)
    names = seams.steps if only is None else tuple(n for n in seams.steps if n in set(only))
    found = [o for c in _mro(cls) if c is not object for o in _class_traps(c, seams)]
    own = _instance_dict(obj)
    for name in names:
        if name in own:
            found.append(Override(name, f"is set on the instance ({_where(own[name])})"))
        found += _class_step(cls, name, seams)
    if found:
        return tuple(found)
    for name in names:  # every static check passed: the read itself, as the run makes it
        if _function(_static(cls, name)) is None:
            continue  # a property or a slot of the base: read on the class, checked above
        bound = getattr(obj, name)
        if not (isinstance(bound, types.MethodType) and bound.__self__ is obj
                and seams.accepts(name, bound.__func__)):
            found.append(Override(name, f"reads as {_where(bound)} on the instance"))
    return tuple(found)


def _class_traps(cls: type, seams: Seams) -> list[Override]:
    """What one class of the MRO defines that computes reads: a trap, or a field as a
    property or another descriptor (a slot stores it: not computed)."""
    attrs = _vars(cls)
    found = []
    for trap in TRAPS:
        value = attrs.get(trap)
        if value is not None and not isinstance(value, types.GetSetDescriptorType) \
                and not seams.accepts(trap, value):
            found.append(Override(trap, f"is defined by class {_name(cls)} ({_where(value)}): "
                                        "any attribute read may be computed"))
    for name in seams.fields:
        value = attrs.get(name)
        if value is not None and hasattr(type(value), "__get__") \
                and not isinstance(value, types.MemberDescriptorType) \
                and not seams.accepts(name, value):
            kind = "a property" if isinstance(value, property) else "a descriptor"
            found.append(Override(name, f"is {kind} of class {_name(cls)} ({_where(value)}): "
                                        "computed on every read"))
    return found


def _class_step(cls: type, name: str, seams: Seams) -> list[Override]:
    """The step `name` as the MRO resolves it, unless it is the base's own definition."""
    owner = next((c for c in _mro(cls) if name in _vars(c)), None)
    if owner is None:
        return [Override(name, f"is missing from {_name(cls)}")]
    value = _vars(owner)[name]
    if seams.accepts(name, value):
        return []
    if owner in seams.owners:
        return [Override(name, f"of {_name(owner)} was replaced after import ({_where(value)})")]
    return [Override(name, f"is overridden by class {_name(owner)} ({_where(value)})", owner)]


def _name(cls: type) -> str:
    return cls.__qualname__


def _static(cls: type, name: str) -> object:
    return next(_vars(c)[name] for c in _mro(cls) if name in _vars(c))


def refusal(found: Iterable[Override], what: str) -> str:
    """The overrides in one line: `what` (the object's class), then each seam and where."""
    return f"{what}: " + "; ".join(o.line() for o in found)



def check_unchanged(obj: object, seams: Seams, before: tuple[Override, ...], who: str) -> None:
    """Refuse an object whose seams changed while it was audited (its code set one on the
    instance or patched a class while it ran): `MechanismError` naming `who` and the seam."""
    after = overrides(obj, seams)
    if after != before:
        new = [o for o in after if o not in before] or [o for o in before if o not in after]
        raise MechanismError(f"the mechanism {who} changed its own seams while it was audited "
                             f"({refusal(new, type(obj).__name__)}): its output may depend on "
                             "more than the database and the answers")


def packaged(target: object) -> bool:
    """Is `target` (a class or a function) the package's own code, as defined in its modules?
    Its module is one of the package's, imported from the package's folder; the module's
    attribute at its qualified name is `target` itself; and the code it holds (the function's,
    or every function of the class body) was compiled from that module's file (or generated,
    as `dataclasses` generates `__init__`). A user's object
    that only names a package module (`__module__ = "betweencut.x"`) is not."""
    name = getattr(target, "__module__", None)
    module = sys.modules.get(name) if isinstance(name, str) else None
    root = sys.modules.get("betweencut")
    if module is None or root is None or not str(name).startswith("betweencut."):
        return False
    file, top = getattr(module, "__file__", None), getattr(root, "__file__", None)
    if not isinstance(file, str) or not isinstance(top, str) or not os.path.abspath(
            file).startswith(os.path.dirname(os.path.abspath(top)) + os.sep):
        return False
    found: object = module
    for part in str(getattr(target, "__qualname__", "<locals>")).split("."):
        found = _vars(found).get(part) if isinstance(found, type) else vars(found).get(part)
        if found is None:
            return False
    if found is not target:
        return False
    values = list(_vars(target).values()) if isinstance(target, type) else [target]
    made = (file, "<string>", dataclasses.__file__)  # dataclasses make __init__, __repr__
    return all(func.__code__.co_filename in made
               for func in map(_function, values) if func is not None)


def own_code(target: object, built: object = None, seams: Seams | None = None,
             parts: Iterable[object] = ()) -> bool:
    """Is all the code an audit runs the package's own? `target` (None: only the built object
    counts) is `packaged`; the object built from it has a packaged class whose overrides of
    `seams` are all plain methods of packaged subclasses; and each of `parts` (the callables
    the object holds and runs, such as a PrivTree's membership rule) is packaged."""
    if target is not None and not packaged(target):
        return False
    if built is not None:
        if not packaged(type(built)):
            return False
        if seams is not None and not all(
                o.by is not None and packaged(o.by) for o in overrides(built, seams)):
            return False
    return all(packaged(p) for p in parts)
