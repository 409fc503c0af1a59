"""A seam set on the constructed object is never certified (issue 34, seams on the instance).

`self.level_order = ...` in `__init__` passed the depth audit's structural check, which read the
class only: at h = 15, calibrated to (1, 1/20) with tau = 23, it certified delta(1) = 0.022 on the
pair C = 45 vs 46, where the real run (top-down levels) has delta(1) = 0.080 > 1/20. Each variant
below overrides a seam the way a user could, outside the class body: on the instance, through
`__getattr__` or `__getattribute__`, a slot, a metaclass, the base class patched after import.
Each is refused by `audit_depth` (which models Alg. 3's structure and has no slower path) and
refuted by `audit_mechanism` with a builder and by `assert_private` (which enumerate the real
code where the fast path does not model the seam): never certified.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from betweencut.api import audit_depth, audit_mechanism
from betweencut.mechanism.betweencut import BetweenCut, Run
from betweencut.mechanism.guarded_bt import GuardedBT
from betweencut.noise.noisy_test import BTQuery, Outcome
from betweencut.testing import assert_private

H, TAU, EPS, DELTA = 15, 23, 1, Fraction(1, 20)  # calibrated: lambda = 1/4, R = 1 + 4*log(80)
PATH = "0^14"  # the leaf of a chain of height 15 (the path is all that matters)


def top_down(self: BetweenCut) -> list[int]:
    return list(range(self.tree.height))


class LevelOrderOnInstance(BetweenCut):
    """Issue 34's example: top-down levels, set on the instance."""

    def __init__(self, tree: Any, params: Any) -> None:
        super().__init__(tree, params)
        self.level_order = lambda: top_down(self)  # type: ignore[method-assign]


class ApplyOnInstance(BetweenCut):
    """An `L` answer labels its node only: the nodes below it are still asked."""

    def __init__(self, tree: Any, params: Any) -> None:
        super().__init__(tree, params)

        def apply(labels: Any, u: Any, outcome: Outcome) -> None:
            if outcome is Outcome.L:
                labels.label[u] = Outcome.L
            else:
                BetweenCut.apply(self, labels, u, outcome)

        self.apply = apply  # type: ignore[method-assign]


class RunOnInstance(BetweenCut):
    """A run that releases the count, set on the instance."""

    def __init__(self, tree: Any, params: Any) -> None:
        super().__init__(tree, params)
        self.run = lambda leaves, test=None: Run(  # type: ignore[method-assign]
            frozenset(), ((("count",), Outcome.L),) * len(list(leaves)), (), {})


class _Loose(GuardedBT):
    """A GuardedBT subclass with an instance dictionary (no `__slots__`)."""


class QueryOnTheQuery(BetweenCut):
    """The count query's noisy test, set on the query object: nearly noiseless at the root."""

    def __init__(self, tree: Any, params: Any) -> None:
        super().__init__(tree, params)
        g = GuardedBT.of(params.a, params.b, params.R, params.lam)
        q = _Loose(g.a, g.b, g.lam, g.R, g.lower_cut, g.upper_cut)

        def query(count: int, node: object = None) -> BTQuery:
            lam = g.lam * 1000 if node == () else g.lam
            return BTQuery(Fraction(count), g.a, g.b, lam, node, (g.lower_cut, g.upper_cut))

        object.__setattr__(q, "query", query)
        self.count_query = q


class ThroughGetattr(BetweenCut):
    """`level_order` read through `__getattr__` (the property gives up)."""

    @property
    def level_order(self) -> Any:  # type: ignore[override]
        raise AttributeError("level_order")

    def __getattr__(self, name: str) -> Any:
        if name == "level_order":
            return lambda: top_down(self)
        raise AttributeError(name)


class ThroughGetattribute(BetweenCut):
    """`level_order` read through `__getattribute__`."""

    def __getattribute__(self, name: str) -> Any:
        if name == "level_order":
            return lambda: top_down(self)
        return object.__getattribute__(self, name)


class InASlot(BetweenCut):
    """`level_order` is a slot, filled in `__init__`."""

    __slots__ = ("level_order",)

    def __init__(self, tree: Any, params: Any) -> None:
        super().__init__(tree, params)
        self.level_order = lambda: top_down(self)  # type: ignore[method-assign]


class SetsAfterInit(type):
    """A metaclass whose call sets `level_order` on the object after `__init__`."""

    def __call__(cls, *args: Any) -> Any:
        obj = super().__call__(*args)
        obj.level_order = lambda: top_down(obj)
        return obj


class ByMetaclass(BetweenCut, metaclass=SetsAfterInit):
    pass


class PatchesTheBase(BetweenCut):
    """Replaces `BetweenCut.level_order` itself once constructed (a class patched after
    construction: the class and its base read the same)."""

    def __init__(self, tree: Any, params: Any) -> None:
        super().__init__(tree, params)
        BetweenCut.level_order = top_down  # type: ignore[method-assign]


VARIANTS = {  # variant -> the count C of the pair C vs C + 1 on the path where it is refuted
    LevelOrderOnInstance: 45, ApplyOnInstance: 0, RunOnInstance: 0, QueryOnTheQuery: 18,
    ThroughGetattr: 45, ThroughGetattribute: 45, InASlot: 45, ByMetaclass: 45,
    PatchesTheBase: 45,
}


@pytest.fixture(autouse=True)
def _restore_the_base(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(BetweenCut, "level_order", BetweenCut.level_order)


def _pair(count: int) -> tuple[str, str]:
    return (f"{{{PATH}*{count}}}" if count else "{}", PATH)


@pytest.mark.parametrize("variant", list(VARIANTS), ids=lambda v: v.__name__)
def test_audit_depth_refuses_a_seam_set_outside_the_class_body(variant: type) -> None:
    with pytest.raises(Exception) as info:
        audit_depth(H, tau=TAU, epsilon=EPS, delta=DELTA, variant=variant,
                    count=VARIANTS[variant])
    assert type(info.value).__name__ == "ParameterError"
    assert "mechanism" in str(info.value)


def test_the_issue_example_is_refuted_by_enumerating_the_real_code() -> None:
    """The depth audit's old answer (0.022) was the unchanged class's; the real run's is 0.080."""
    real = audit_mechanism(LevelOrderOnInstance, [_pair(45)], height=H, arity=1, tau=TAU,
                           epsilon=EPS, delta=DELTA, on="transcript")
    at_one = [row for row in real.rows if row.eps == 1]
    assert not real.holds and at_one and not all(row.holds for row in at_one)
    assert 0.080 < max(float(row.delta_in[0]) for row in at_one) < 0.081
    plain = audit_depth(H, tau=TAU, epsilon=EPS, delta=DELTA, count=45)
    assert plain.holds and all(float(r.delta_in[1]) < 0.023 for r in plain.rows)


@pytest.mark.parametrize("variant", list(VARIANTS), ids=lambda v: v.__name__)
def test_audit_mechanism_and_assert_private_refute_a_seam_set_outside_the_class_body(
        variant: type) -> None:
    pair = _pair(VARIANTS[variant])
    verdict = audit_mechanism(variant, [pair], height=H, arity=1, tau=TAU, epsilon=EPS,
                              delta=DELTA, on="transcript")
    assert not verdict.holds
    with pytest.raises(AssertionError, match="privacy assertion failed"):
        assert_private(variant, EPS, DELTA, pairs=[pair], height=H, arity=1, tau=TAU,
                       on="transcript")


class ChangesItself(BetweenCut):
    """A class-level `level_order` (a seam the shared tree models) that sets `apply` on the
    instance the first time it runs: state carried from one run to the next."""

    def level_order(self) -> list[int]:
        self.apply = lambda labels, u, outcome: None  # type: ignore[method-assign]
        return super().level_order()


def test_an_object_changing_its_seams_while_audited_is_refused() -> None:
    from betweencut.errors import MechanismError

    with pytest.raises(MechanismError, match=r"ChangesItself changed its own seams while it "
                                             r"was audited \(ChangesItself: apply is set on "
                                             r"the instance"):
        audit_mechanism(ChangesItself, [("{}", "0/0")], height=3, tau=0, lam=1, R=4)
