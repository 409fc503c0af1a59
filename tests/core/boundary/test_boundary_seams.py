"""`betweencut.boundary.seams`: which seams an object overrides, and where, read on the object.

One case per way to change what a constructed object runs while its class looks unchanged,
and the objects that change nothing (BetweenCut itself, a GuardedBT, a PrivTree) answered clean.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from betweencut.baselines.privtree import SEAMS as PRIVTREE_SEAMS
from betweencut.baselines.privtree import PrivTree, box_of
from betweencut.boundary.seams import Override, check_unchanged, overrides, packaged, refusal
from betweencut.data.tree import kary_tree
from betweencut.errors import MechanismError
from betweencut.mechanism.betweencut import SEAMS, BetweenCut
from betweencut.mechanism.guarded_bt import BT, GuardedBT
from betweencut.mechanism.guarded_bt import SEAMS as QUERY_SEAMS
from betweencut.mechanism.params import Params

TREE = kary_tree(2, 3)
PARAMS = Params.of(2, Fraction(1, 2), 3)


def top_down(self: BetweenCut) -> list[int]:
    return list(range(self.tree.height))


def _seams(obj: object, **kw: Any) -> list[str]:
    return [o.seam for o in overrides(obj, SEAMS, **kw)]


def test_the_package_objects_override_nothing() -> None:
    mech = BetweenCut(TREE, PARAMS)
    assert overrides(mech, SEAMS) == ()
    assert overrides(mech.count_query, QUERY_SEAMS) == ()
    assert overrides(BT(Fraction(0), Fraction(1), Fraction(1)), QUERY_SEAMS) == ()
    assert overrides(PrivTree.of(box_of((0, 4)), 1), PRIVTREE_SEAMS) == ()


def test_a_method_of_a_subclass_is_found_with_its_place() -> None:
    class TopDown(BetweenCut):
        def level_order(self) -> list[int]:
            return top_down(self)

    (found,) = overrides(TopDown(TREE, PARAMS), SEAMS)
    assert found.seam == "level_order" and "overridden by class" in found.where
    assert "TopDown.level_order at test_boundary_seams.py:" in found.where


def test_a_method_set_on_the_instance_is_found() -> None:
    mech = BetweenCut(TREE, PARAMS)
    mech.level_order = lambda: top_down(mech)  # type: ignore[method-assign]
    (found,) = overrides(mech, SEAMS)
    assert found.line().startswith("level_order is set on the instance (")
    mech.apply = mech.apply  # type: ignore[method-assign]  # even bound to itself: refused
    assert _seams(mech) == ["level_order", "apply"]
    assert _seams(mech, only=("run",)) == []


def test_the_base_patched_after_import_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    mech = BetweenCut(TREE, PARAMS)
    monkeypatch.setattr(BetweenCut, "level_order", top_down)
    (found,) = overrides(mech, SEAMS)
    assert found.where.startswith("of BetweenCut was replaced after import (top_down at")
    monkeypatch.undo()
    assert overrides(mech, SEAMS) == ()


def test_swapped_code_or_defaults_are_found(monkeypatch: pytest.MonkeyPatch) -> None:
    mech = BetweenCut(TREE, PARAMS)
    monkeypatch.setattr(BetweenCut.level_order, "__code__", top_down.__code__)
    assert _seams(mech) == ["level_order"]
    monkeypatch.undo()
    monkeypatch.setattr(BetweenCut.run, "__defaults__", (object(),))
    assert _seams(mech) == ["run"]


def test_traps_are_found_without_running_them() -> None:
    read: list[str] = []

    class Watched(BetweenCut):
        def __getattribute__(self, name: str) -> Any:
            read.append(name)
            return object.__getattribute__(self, name)

    class Missing(BetweenCut):
        def __getattr__(self, name: str) -> Any:
            return top_down

    class OwnDict(BetweenCut):
        __dict__ = {}  # type: ignore[assignment]

    watched = Watched(TREE, PARAMS)
    read.clear()
    assert _seams(watched) == ["__getattribute__"] and read == []
    assert _seams(Missing(TREE, PARAMS)) == ["__getattr__"]
    assert _seams(OwnDict(TREE, PARAMS)) == ["__dict__"]


def test_fields_computed_on_read_slots_and_metaclasses_are_found() -> None:
    class Computed(BetweenCut):
        @property
        def count_query(self) -> Any:  # type: ignore[override]
            return GuardedBT.of(0, 1, 1, 1)

        @count_query.setter
        def count_query(self, value: object) -> None:
            pass

    class Slot(BetweenCut):
        __slots__ = ("apply",)

        def __init__(self, tree: Any, params: Any) -> None:
            super().__init__(tree, params)
            self.apply = lambda *a: None  # type: ignore[method-assign]

    class Inserted(BetweenCut):
        def level_order(self) -> list[int]:
            return top_down(self)

    class Reordering(type):
        def mro(cls) -> list[type]:
            return [cls, Inserted, *super().mro()[1:]] if cls.__name__ == "Plain" else \
                super().mro()

    class Plain(BetweenCut, metaclass=Reordering):
        pass

    assert _seams(Computed(TREE, PARAMS)) == ["count_query"]
    (found,) = overrides(Slot(TREE, PARAMS), SEAMS)
    assert found.seam == "apply" and "a slot" in found.where
    assert _seams(Plain(TREE, PARAMS)) == ["level_order"]


def test_an_object_pretending_to_be_a_betweencut_is_not_one() -> None:
    class Pretender:
        __class__ = BetweenCut  # type: ignore[assignment]
        level_order = BetweenCut.level_order

    fake = Pretender()
    assert isinstance(fake, BetweenCut)  # what isinstance() says
    (found,) = overrides(fake, SEAMS)
    assert found.seam == "class" and "not a subclass of BetweenCut" in found.where


def test_the_count_query_seams_are_read_on_the_query_object() -> None:
    class Loose(GuardedBT):
        pass

    g = GuardedBT.of(0, 2, 1, 1)
    q = Loose(g.a, g.b, g.lam, g.R, g.lower_cut, g.upper_cut)
    assert overrides(q, QUERY_SEAMS) == ()  # GuardedBT's own query and guard: accepted
    object.__setattr__(q, "query", lambda count, node=None: g.query(count, node))
    assert [o.seam for o in overrides(q, QUERY_SEAMS)] == ["query"]
    assert overrides(q, QUERY_SEAMS, only=("__call__", "guard")) == ()


def test_privtree_seams_on_the_instance() -> None:
    tree = PrivTree.of(box_of((0, 4)), 1)
    object.__setattr__(tree, "run", lambda points, test=None: frozenset())
    assert [o.seam for o in overrides(tree, PRIVTREE_SEAMS)] == ["run"]


def test_a_change_while_audited_is_refused() -> None:
    mech = BetweenCut(TREE, PARAMS)
    before = overrides(mech, SEAMS)
    check_unchanged(mech, SEAMS, before, "mine")
    mech.apply = lambda *a: None  # type: ignore[method-assign]
    with pytest.raises(MechanismError, match=r"mine changed its own seams .*apply is set on "
                                             r"the instance"):
        check_unchanged(mech, SEAMS, before, "mine")


def test_refusal_is_one_line() -> None:
    found = [Override("run", "is set on the instance (f at x.py:1)"),
             Override("apply", "is overridden by class X (g at x.py:2)")]
    assert refusal(found, "X") == ("X: run is set on the instance (f at x.py:1); apply is "
                                   "overridden by class X (g at x.py:2)")


def test_the_package_own_code_is_told_by_what_it_is_not_by_its_module_name() -> None:
    from betweencut.baselines.svt_corpus import svt_alg1
    from betweencut.proofs.privacy.claims.gallery import TopDownOrder

    assert all(packaged(t) for t in (BetweenCut, TopDownOrder, PrivTree, GuardedBT, svt_alg1))

    class Named(BetweenCut):
        pass

    def mine(db: object, test: object) -> None:
        pass

    Named.__module__ = mine.__module__ = "betweencut.mechanism.betweencut"
    Named.__qualname__ = "BetweenCut"
    assert not packaged(Named) and not packaged(mine) and not packaged(1)
    assert not packaged(top_down)


def test_a_function_naming_a_package_module_is_still_replayed() -> None:
    """`__module__ = "betweencut.x"` used to skip the replay check (the package's own code is
    not replayed): a mechanism drawing its own randomness went unreplayed. Its draw is now
    refused as it is made (the sandbox reads the caller's frame, not `__module__`)."""
    import random

    from betweencut.api import audit_mechanism
    from betweencut.errors import MechanismError
    from betweencut.noise.noisy_test import BTQuery

    def drawn(db: object, test: Any) -> object:
        test(BTQuery(Fraction(len(db)), Fraction(1), Fraction(3), Fraction(1, 2)))  # type: ignore[arg-type]
        return random.random()

    drawn.__module__ = "betweencut.baselines.svt_corpus"
    with pytest.raises(MechanismError, match=r"called random\.random\(\) outside"):
        audit_mechanism(drawn, [("{}", "0")], height=2, epsilon=1, delta=0)
