"""Issue 34, class 2 ("outputs merged by the user's equality"): the release is its bytes.

`betweencut.boundary.encoding` keys every output by its canonical bytes. Pinned here: each twin
pair of the issue (and the variants of `betweencut.properties.twins`) encodes to two keys, a
law never merges them, every refused type is refused with one line naming it, the same value
built twice encodes alike; and each twin, written as a user's mechanism (a module loaded with
`--mechanism module:name`) that releases twin A or twin B on one noisy answer, is refuted or
refused by every entry point (`audit privacy`, `audit_mechanism`, `assert_private`, the curves
of `privacy_snapshot`, `audit corpus --mechanism`): never certified.
"""

from __future__ import annotations

import copy
import enum
from collections import OrderedDict, namedtuple
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cli_in_process import cli, user_module
from hypothesis import given, settings
from hypothesis import strategies as st

from betweencut import audit_mechanism
from betweencut.boundary.encoding import (
    MAX_DEPTH,
    decoded,
    release_bytes,
    release_of,
    release_text,
)
from betweencut.errors import BetweenCutError, ParameterError
from betweencut.noise.noisy_test import BTQuery, NoisyTest, Outcome
from betweencut.proofs.privacy.enumeration.cache import LawCache
from betweencut.properties.twins import BASES, releasable, twins

F = Fraction

# -- the encoder ----------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "a", "b"), BASES, ids=[n for n, _, _ in BASES])
def test_every_base_twin_pair_is_two_releases(name: str, a: Any, b: Any) -> None:
    assert release_bytes(a) != release_bytes(b)
    assert release_of(a) != release_of(b) and release_of(a) == release_of(copy.deepcopy(a))
    assert release_text(release_bytes(a)) != release_text(release_bytes(b)), name


class Loud(int):
    def __repr__(self) -> str:
        return "LOUD"


class Shouted(str):
    pass


class Sub(float):
    pass


class Items(dict):  # type: ignore[type-arg]
    pass


class Row(tuple):  # type: ignore[type-arg]
    pass


class IgnoresNote:
    """Not a dataclass: its `==`/`hash` ignore `note`, which its `repr` shows."""

    def __init__(self, x: int, note: str) -> None:
        self.x, self.note = x, note

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IgnoresNote) and other.x == self.x

    def __hash__(self) -> int:
        return hash(self.x)

    def __repr__(self) -> str:
        return f"IgnoresNote({self.x}, {self.note})"


@dataclass(frozen=True)
class Plain:
    x: int


@dataclass(frozen=True)
class HidesItsDict:
    x: int

    @property  # type: ignore[misc]
    def __dict__(self) -> dict[str, Any]:  # type: ignore[override]
        return {}


def _with_extra() -> Plain:
    p = Plain(1)
    object.__setattr__(p, "hidden", 2)
    return p


def _cycle() -> list[Any]:
    out: list[Any] = []
    out.append(out)
    return out


def _deep() -> Any:
    out: Any = ()
    for _ in range(MAX_DEPTH + 5):
        out = (out,)
    return out


class Shade(enum.Enum):
    DARK = [1]  # noqa: RUF012 - a mutable value is the case tested
    LIGHT = 2


def _enum_with_attribute() -> enum.Enum:
    class Tone(enum.Enum):
        LOW = 1

    Tone.LOW.count = 3  # type: ignore[attr-defined]  # one object shared by every run
    return Tone.LOW


class Slotted:
    __slots__ = ("hidden",)


@dataclass
class KeepsASlot(Slotted):
    x: int


def _with_slot() -> KeepsASlot:
    out = KeepsASlot(1)
    out.hidden = 2
    return out


REFUSED = {
    "int subclass": (lambda: Loud(1), "Loud"),
    "str subclass": (lambda: Shouted("x"), "Shouted"),
    "float subclass": (lambda: Sub(0.5), "Sub"),
    "dict subclass": (lambda: Items(a=1), "Items"),
    "tuple subclass": (lambda: Row((1,)), "Row"),
    "own equality, not a dataclass": (lambda: IgnoresNote(1, "a"), "IgnoresNote"),
    "object": (object, "object"),
    "generator": (lambda: (x for x in [1]), "generator"),
    "dataclass with an attribute that is not a field": (_with_extra, "Plain"),
    "dataclass defining its own __dict__": (lambda: HidesItsDict(1), "HidesItsDict"),
    "a cycle": (_cycle, "nested deeper"),
    "too deep": (_deep, "nested deeper"),
    "array of objects": (lambda: np.array([1, None], dtype=object), "ndarray"),
    "inside a tuple": (lambda: (1, [Loud(2)]), "Loud"),
    "a mapping view": (lambda: __import__("types").MappingProxyType({}), "mappingproxy"),
    "dataclass with a slot that is not a field": (_with_slot, "KeepsASlot"),
    "enum member with an attribute of its own": (_enum_with_attribute, "attributes of its own"),
    # `dtype.str` is `|V8` for both: the field names and types would go unseen
    "structured array": (lambda: np.zeros(1, dtype=[("n3", "<i4"), ("b", "<f4")]), "structured"),
    "structured scalar": (lambda: np.zeros(1, dtype=[("n3", "<i4")])[0], "structured"),
    "dtype with metadata": (lambda: np.zeros(1, dtype=np.dtype(np.float64, metadata={"n": 3})),
                            "metadata"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_anything_else_is_refused_in_one_line_naming_it(name: str) -> None:
    make, named = REFUSED[name]
    with pytest.raises(ParameterError, match=named) as caught:
        release_bytes(make())
    assert "\n" not in str(caught.value) and str(caught.value).startswith("output=")


def test_the_package_types_and_records_are_encoded_by_their_fields() -> None:
    from betweencut.data.tree import kary_tree
    from betweencut.mechanism.betweencut import BetweenCut
    from betweencut.mechanism.params import Params

    run = BetweenCut(kary_tree(2, 3), Params(2, F(1, 2), 2)).run(((0, 0),), None)
    key = release_of(run)
    assert key == release_of(copy.deepcopy(run)) and key.shown.startswith("Run(heavy=")
    point = namedtuple("point", "x y")
    assert release_of(point(1, 2)) != release_of((1, 2))
    assert release_of(Outcome.H) != release_of("H") and release_of(Outcome.H).shown == "H"


def test_an_enum_member_is_encoded_with_its_value_which_the_code_may_change() -> None:
    before = release_bytes(Shade.DARK)
    Shade.DARK.value.append(2)
    try:
        assert release_bytes(Shade.DARK) != before
        assert release_of(Shade.DARK).shown == "Shade.DARK"
    finally:
        Shade.DARK.value.pop()
    assert release_bytes(Shade.DARK) == before != release_bytes(Shade.LIGHT)


def test_a_key_of_a_key_is_itself_and_keys_compare_by_bytes_only() -> None:
    key = release_of((1, OrderedDict(a=Decimal("-0"))))
    assert release_of(key) is key and release_of((key,)) == release_of(((1, OrderedDict(
        a=Decimal("-0"))),))
    assert key != (1, OrderedDict(a=Decimal("-0")))  # never equal to a raw output


@settings(max_examples=150, deadline=None)
@given(twins())
def test_no_near_twin_pair_shares_an_encoding(pair: tuple[str, Any, Any]) -> None:
    _, a, b = pair
    assert release_bytes(a) != release_bytes(b)


@settings(max_examples=60, deadline=None)
@given(twins(max_depth=2))
def test_a_law_never_merges_near_twins(pair: tuple[str, Any, Any]) -> None:
    """A mechanism releasing `a` on `H` and `b` otherwise: its law has two outputs."""
    _, a, b = pair

    def twin(db: tuple[Any, ...], test: NoisyTest) -> object:
        return a if test(BTQuery(F(len(db)), F(0), F(0), F(1))) is Outcome.H else b

    law = LawCache(twin).law((), "output")
    assert len(law.bags) == 2, law.bags


@settings(max_examples=150, deadline=None)
@given(releasable())
def test_the_same_value_built_twice_encodes_alike(value: Any) -> None:
    data = release_bytes(value)
    assert release_bytes(copy.deepcopy(value)) == data
    assert release_text(data) == release_text(release_bytes(copy.deepcopy(value)))
    decoded(data)  # reads back without error


# -- the twins as a user writes them, through every entry point ------------------------------

TWIN_MODULE = '''
import struct
from collections import OrderedDict
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

import numpy as np

from betweencut.noise.noisy_queries import AboveThreshold
from betweencut.noise.noisy_test import BTQuery, Outcome


@dataclass(frozen=True)
class Noted:
    value: int
    note: str = field(default="", compare=False)


class IgnoresNote:
    def __init__(self, x, note):
        self.x, self.note = x, note

    def __eq__(self, other):
        return isinstance(other, IgnoresNote) and other.x == self.x

    def __hash__(self):
        return hash(self.x)

    def __repr__(self):
        return f"IgnoresNote({self.x}, {self.note})"


class Loud(int):
    def __repr__(self):
        return "LOUD"


class Shouted(str):
    pass


def nan(payload):
    return struct.unpack(">d", (0x7FF8 << 48 | payload).to_bytes(8, "big"))[0]


TWINS = {
    "ordered_mapping": (lambda: OrderedDict(a=1, b=2), lambda: OrderedDict(b=2, a=1)),
    "dict_order": (lambda: {"a": 1, "b": 2}, lambda: {"b": 2, "a": 1}),
    "decimal_zero": (lambda: Decimal("0"), lambda: Decimal("-0")),
    "decimal_digits": (lambda: Decimal("1.0"), lambda: Decimal("1.00")),
    "float32_zero": (lambda: np.float32(0.0), lambda: np.float32(-0.0)),
    "float16_zero": (lambda: np.float16(0.0), lambda: np.float16(-0.0)),
    "eq_ignores_field": (lambda: IgnoresNote(1, "a"), lambda: IgnoresNote(1, "b")),
    "compare_false": (lambda: Noted(1, "a"), lambda: Noted(1, "b")),
    "int_subclass": (lambda: 1, lambda: Loud(1)),
    "str_subclass": (lambda: "x", lambda: Shouted("x")),
    "nan_payload": (lambda: nan(0), lambda: nan(1)),
    "complex_zero": (lambda: complex(0.0, 0.0), lambda: complex(0.0, -0.0)),
    "one_true": (lambda: 1, lambda: True),
    "one_fraction": (lambda: 1, lambda: Fraction(1)),
    "tuple_list": (lambda: (1,), lambda: [1]),
    "bytes_bytearray": (lambda: b"x", lambda: bytearray(b"x")),
}


def _twin(name):
    first, second = TWINS[name]

    def run(db, test):
        return first() if test(BTQuery(len(db), 0, 0, Fraction(1))) is Outcome.H else second()

    def corpus(q, test):
        return first() if test(AboveThreshold(q[0], Fraction(0), Fraction(2))) else second()

    run.__name__, corpus.__name__ = name, name + "_q"
    return run, corpus


for _name in TWINS:
    globals()[_name], globals()[_name + "_q"] = _twin(_name)
'''

TWIN_NAMES = ["ordered_mapping", "dict_order", "decimal_zero", "decimal_digits", "float32_zero",
              "float16_zero", "eq_ignores_field", "compare_false", "int_subclass",
              "str_subclass", "nan_payload", "complex_zero", "one_true", "one_fraction",
              "tuple_list", "bytes_bytearray"]
PAIR = ["--height", "3", "--db", "0/0", "--add", "0/1"]


@pytest.fixture
def twinmechs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The module `twinmechs` in a fresh folder, the working directory (as a user runs it)."""
    return user_module(tmp_path, monkeypatch, "twinmechs", TWIN_MODULE)



def _refuted_or_refused(status: int, out: str, err: str) -> None:
    assert status in (1, 2), (status, out, err)
    if status == 2:
        lines = err.strip("\n").split("\n")
        assert len(lines) == 1 and lines[0].startswith("betweencut: error: "), err
        assert "is not allowed" in lines[0], err  # the encoder's refusal
    else:
        assert "REFUTED" in out or "refuted (" in out, out


@pytest.mark.parametrize("name", TWIN_NAMES)
def test_audit_privacy_never_certifies_a_twin(twinmechs: Path, name: str) -> None:
    _refuted_or_refused(*cli(["audit", "privacy", "--mechanism", f"twinmechs:{name}",
                               "--epsilon", "0", "--delta", "0", *PAIR]))


@pytest.mark.parametrize("name", TWIN_NAMES)
def test_audit_mechanism_never_certifies_a_twin(twinmechs: Path, name: str) -> None:
    try:
        verdict = audit_mechanism(f"twinmechs:{name}", [("0/0", "0/1")], height=3, epsilon=0,
                                  delta=0)
    except BetweenCutError as exc:  # the encoder's refusal, naming the mechanism
        assert "is not allowed" in str(exc)
    else:
        assert not verdict.holds and verdict.refutation is not None


@pytest.mark.parametrize("name", TWIN_NAMES)
def test_assert_private_never_passes_a_twin(twinmechs: Path, name: str) -> None:
    from betweencut.testing import assert_private

    with pytest.raises((AssertionError, BetweenCutError)):
        assert_private(f"twinmechs:{name}", 0, 0, pairs=[("0/0", "0/1")], height=3)


@pytest.mark.parametrize("name", TWIN_NAMES)
def test_a_snapshot_of_a_twin_never_stores_delta_zero(twinmechs: Path, name: str) -> None:
    """The curves `privacy_snapshot` stores: δ(0) > 0 (it was ≡ 0 with the twins merged)."""
    from betweencut.testing import pair_curves

    try:
        curves = pair_curves(f"twinmechs:{name}", [("0/0", "0/1")], height=3)
    except BetweenCutError as exc:
        assert "is not allowed" in str(exc)
        return
    (curve,) = curves.curves.values()
    assert not curve.at(F(0)).is_zero()  # δ(0) >= 0 always


@pytest.mark.parametrize("name", TWIN_NAMES)
def test_audit_corpus_never_certifies_a_twin(twinmechs: Path, name: str) -> None:
    _refuted_or_refused(*cli(["audit", "corpus", "--mechanism", f"twinmechs:{name}_q",
                               "--queries", "1", "--epsilon", "1/1000"]))


def test_the_refutation_shows_the_outputs_from_their_bytes(twinmechs: Path) -> None:
    status, out, _ = cli(["audit", "privacy", "--mechanism", "twinmechs:compare_false",
                           "--epsilon", "0", "--delta", "0", *PAIR, "--json"])
    assert status == 1
    assert "Noted(value=1, note=" in out  # all fields, whatever the dataclass's own repr


_LEAVES = st.one_of(st.integers(), st.integers(-3, 3), st.booleans(), st.none(),
                    st.sampled_from(list(Outcome)), st.text(max_size=1))
_NESTED = st.one_of(_LEAVES, st.lists(_LEAVES, max_size=3).map(tuple))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_NESTED, max_size=4).map(tuple), max_size=4))
def test_the_inline_path_writes_what_the_general_path_writes(items: list[Any]) -> None:
    """Fast path against slow: a tuple nested in a container is written inline when it holds
    small ints, outcomes, None and tuples of small ints (nodes, steps); alone (the general
    path) it must encode to the same bytes."""
    from betweencut.boundary.encoding import _length

    assert release_bytes(items) == b"[" + _length(len(items)) + b"".join(
        release_bytes(u) for u in items)
