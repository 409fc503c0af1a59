"""Symbolic query answers: the proof path's stand-in for a mechanism's private input `q`.

A mechanism of the sparse-vector family is a function `run(q, test)` of its query answers
`q = (q_0, ..., q_(m-1))`. The audits at scale (`betweencut.proofs.privacy.enumeration.
every_input`) run it once on *symbols*: `QueryAnswer(i)` stands for `q_i` whatever its value.
A symbol is a `Fraction` (so `isinstance` checks behave as on the real input) whose every
value-dependent operation (comparison, hashing, truth value, arithmetic, conversion, text,
reading its numerator or denominator) raises `DataDependent` and is recorded on a shared
tripwire, so a mechanism that catches the error is still caught (`repr` only records: a message
may name the symbol). The shared-noise primitives
(`betweencut.noise.noisy_queries`) accept a symbol as a count or a threshold unchanged: a run that
completes on symbols passes each `q_i` only into those slots, so its control flow, its queries
and its output cannot depend on the values of `q` (it is *oblivious*).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, NoReturn

from betweencut.errors import BetweenCutError, ParameterError

__all__ = ["DataDependent", "QueryAnswer", "symbols"]


class DataDependent(BetweenCutError):
    """A mechanism used the value of a symbolic query answer (it is not oblivious)."""

    def __init__(self, index: int, operation: str) -> None:
        self.index, self.operation = index, operation
        super().__init__(f"the mechanism applied {operation} to the query answer q[{index}]: "
                         "its control flow or queries depend on the values of q")


def _refuse(name: str) -> Any:
    def refused(self: QueryAnswer, *args: object) -> NoReturn:
        self.trip(name)

    refused.__name__ = name
    return refused


class QueryAnswer(Fraction):
    """`q_i` as a symbol (see the module docstring): only passing it on is allowed."""

    __slots__ = ("index", "trips")
    index: int
    trips: list[DataDependent]

    def __new__(cls, index: int, trips: list[DataDependent]) -> QueryAnswer:
        if isinstance(index, bool) or not isinstance(index, int) or index < 0:
            raise ParameterError("index", index, "a query's index, an int >= 0")
        out = object.__new__(cls)
        object.__setattr__(out, "index", index)
        object.__setattr__(out, "trips", trips)
        return out

    def trip(self, operation: str) -> NoReturn:
        error = DataDependent(self.index, operation)
        self.trips.append(error)
        raise error

    @property
    def symbol(self) -> str:
        """`q[i]`: the symbol's name, for messages (reading it says nothing about `q`)."""
        return f"q[{self.index}]"

    def __repr__(self) -> str:
        """The symbol's name, with a trip recorded: the real `q_i`'s text is its value, so a run
        that reads it is not oblivious (recorded, not raised, so that a message naming the
        symbol still reads; the run is refused all the same)."""
        self.trips.append(DataDependent(self.index, "repr()"))
        return self.symbol

    def __str__(self) -> NoReturn:
        self.trip("str()")

    def __copy__(self) -> QueryAnswer:
        return self

    def __deepcopy__(self, memo: object) -> QueryAnswer:
        return self

    @property
    def _numerator(self) -> NoReturn:
        self.trip("reading its value")

    @property
    def _denominator(self) -> NoReturn:
        self.trip("reading its value")

    @property
    def numerator(self) -> NoReturn:
        self.trip("reading its numerator")

    @property
    def denominator(self) -> NoReturn:
        self.trip("reading its denominator")

    @property
    def real(self) -> NoReturn:
        self.trip("reading its value")

    @property
    def imag(self) -> NoReturn:
        self.trip("reading its value")


for _name in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__bool__",
              "__abs__", "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
              "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__",
              "__rmod__", "__divmod__", "__rdivmod__", "__pow__", "__rpow__", "__neg__", "__pos__",
              "__float__", "__int__", "__index__", "__complex__", "__round__", "__trunc__",
              "__floor__", "__ceil__", "__format__", "__reduce__", "__reduce_ex__",
              "as_integer_ratio", "limit_denominator", "is_integer", "conjugate"):
    setattr(QueryAnswer, _name, _refuse(_name.strip("_")))


def symbols(m: int) -> tuple[tuple[QueryAnswer, ...], list[DataDependent]]:
    """`(q_0, ..., q_(m-1))` as symbols sharing one tripwire (the list of refusals)."""
    if isinstance(m, bool) or not isinstance(m, int) or m < 1:
        raise ParameterError("queries", m, "an integer m >= 1")
    trips: list[DataDependent] = []
    return tuple(QueryAnswer(i, trips) for i in range(m)), trips
