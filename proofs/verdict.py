"""One verdict shape for every audit (issue 22): `Verdict`, its `Row`s and its `Refutation`.

Every audit of the package (a user's mechanism on chosen pairs, BetweenCut's claims on a small
tree, the audits at depth, each corpus row) returns a `Verdict`: `holds`, `worst`,
`refutation`, `rows`, `as_json()` and `text()`; the audit of the registered claims returns a
`ClaimsVerdict` with the same five members. JSON conventions (the schemas in
`betweencut.schemas` state them):

* a quantity that is an exact real (`δ`, a bound, an excess) is `X` (a float, for reading
  only: it never decides anything), `X_exact` (exact text, the grammar of `exact_str`,
  sympy-readable) and, for `δ`, `delta_in` (a certified enclosure `[lo, hi]` of exact
  rationals as text);
* an event's two probabilities are `P` and `Q` (exact text) with `P_approx`, `Q_approx`;
  `P` is the probability under the first database of `direction`, `Q` under the second;
* `eps` is exact text (a rational such as `"1/4"`);
* databases and records are written in the notation of `betweencut.data.notation` (`{0/1*2, 1/0}`,
  `0/1`), the same strings in text and JSON;
* every key is an identifier and always carries one JSON type.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from fractions import Fraction
from typing import Any, ClassVar, Literal, Union, overload

from betweencut.errors import ParameterError
from betweencut.numbers.exact import midpoint_float
from betweencut.proofs.assumes import Assumes
from betweencut.proofs.exact.arith import ExpPoly, ExpRational, enclose, exact_str
from betweencut.proofs.exact.certificate import jsonable
from betweencut.proofs.exact.enclosure import Enclosure
from betweencut.schemas import header

__all__ = [
    "EXIT_HOLDS", "EXIT_REFUTED", "EXIT_UNDECIDED", "RELATIONS", "RELEASES_ALLOWED", "Claim",
    "ClaimedEpsilon", "Direction", "Neighbours", "Refutation", "Relation", "Release", "Row",
    "StreamedVerdict", "Value", "Verdict", "approx", "certified", "checked_epsilon",
    "claim_point", "dp_point", "enclosure", "projection",
]

Exact = Union[Fraction, int, ExpPoly, ExpRational]  # noqa: UP007
# a computed δ or probability: exact, or a certified enclosure (the Gaussian laws)
Value = Union[Fraction, int, ExpPoly, ExpRational, Enclosure]  # noqa: UP007
EXIT_HOLDS, EXIT_REFUTED, EXIT_UNDECIDED = 0, 1, 3
SHOWN_EVENT = 4  # outputs of an event written out (`event_size` counts them all)
SHOWN_CHARS = 240  # characters of one exact value or output written out in the text
SHOWN_ROWS = 12  # rows in a text verdict (the JSON has them all)


class Direction(StrEnum):
    """Which divergence a `δ` measures: `δ(P_D ‖ P_{D+z})` or `δ(P_{D+z} ‖ P_D)` for an
    add/remove pair, `δ(P_D ‖ P_D')` or `δ(P_D' ‖ P_D)` for a replace-one pair."""

    FORWARD = "D||D+z"
    BACKWARD = "D+z||D"
    REPLACE_FORWARD = "D||D'"
    REPLACE_BACKWARD = "D'||D"

    @staticmethod
    def of(forward: bool) -> Direction:
        """`FORWARD` for `δ(P_D ‖ P_{D+z})`, else `BACKWARD`."""
        return Direction.FORWARD if forward else Direction.BACKWARD

    def databases(self) -> tuple[str, str]:
        """The databases whose output laws are `P` and `Q`, in that order."""
        first, second = self.value.split("||")
        return first, second

    def replaced(self) -> Direction:
        """The same direction for a replace-one pair."""
        forward = self in (Direction.FORWARD, Direction.REPLACE_FORWARD)
        return Direction.REPLACE_FORWARD if forward else Direction.REPLACE_BACKWARD


RELEASES_ALLOWED = ("'output' (the whole output), 'transcript', 'heavy', or the name of a public "
                    "attribute of the output (a Python identifier not starting with '_')")


class Release(str):
    """What an audit compares (its `on`): the mechanism's whole output (`Release.OUTPUT`), or
    one attribute of it, `getattr(output, name)`: BetweenCut's `Release.TRANSCRIPT` (Tr(D),
    Eq. 112) and `Release.HEAVY` (the Heavy set), or any public attribute a user's output has.

    Why a validated `str` (like the `StrEnum` it replaces, which could not name a user's
    attribute) rather than a dataclass: a release is written as its name everywhere it goes
    out (JSON `"on"`, the text rows, the privacy snapshot files, replay lines), and is the key
    of the law caches' projections; as a `str` it is all of these unchanged, byte for byte,
    while a plain `str` is not a `Release` to the type checker, so every `on` past the public
    boundary is one that `Release.of` (the one parser) has accepted. Every instance is valid:
    the constructor refuses what `of` refuses, and the three fixed names are the constants
    (`Release.of("heavy") is Release.HEAVY`)."""

    __slots__ = ()
    OUTPUT: ClassVar[Release]
    TRANSCRIPT: ClassVar[Release]
    HEAVY: ClassVar[Release]
    _FIXED: ClassVar[dict[str, Release]] = {}

    def __new__(cls, name: object) -> Release:
        if isinstance(name, Release):
            return name
        if isinstance(name, str) and name in cls._FIXED:
            return cls._FIXED[name]
        if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
            raise ParameterError("on", name if name != "" else "''", RELEASES_ALLOWED)
        return super().__new__(cls, name)

    @staticmethod
    def of(value: object) -> Release:
        """`value` (a `Release` or its name) as a `Release`: `"output"`, `"transcript"`,
        `"heavy"` or a public attribute name of the output (an identifier, neither private
        `_x` nor dunder); `ParameterError` naming `on` and the allowed values otherwise."""
        return Release(value)

    @staticmethod
    def several(value: object, default: Sequence[Release] | None = None,
                ) -> tuple[Release, ...]:
        """`on` as given to a public entry: one release (a `Release` or its name), a list of
        them, or `None` for `default` (`ParameterError` if there is none); each by `of`, at
        least one, each once."""
        if value is None:
            if default is None:
                raise ParameterError("on", None, RELEASES_ALLOWED)
            return tuple(default)
        if isinstance(value, str):
            return (Release.of(value),)
        if not isinstance(value, Sequence):
            raise ParameterError("on", repr(value), RELEASES_ALLOWED + ", or a list of them")
        chosen = tuple(Release.of(v) for v in value)
        if not chosen:
            raise ParameterError("on", "[]", "at least one release")
        if len(set(chosen)) != len(chosen):
            raise ParameterError("on", list(value), "each release once")
        return chosen


Release.OUTPUT = Release._FIXED["output"] = str.__new__(Release, "output")
Release.TRANSCRIPT = Release._FIXED["transcript"] = str.__new__(Release, "transcript")
Release.HEAVY = Release._FIXED["heavy"] = str.__new__(Release, "heavy")


class Neighbours(StrEnum):
    """The neighbour relation of the pairs audited (stated in every output)."""

    ADD_REMOVE = "add-remove"  # D and D + z: one record added or removed
    REPLACE_ONE = "replace-one"  # D and D': one record replaced by another, |D| = |D'|
    ADD_REMOVE_BOUNDED = "add-remove-bounded"  # add/remove with a public bound |D + z| <= n


@dataclass(frozen=True)
class Relation:
    """A neighbour relation as a parameter: its kind and, for `add-remove-bounded`, the public
    bound `n` on the size of every database (written `add-remove-bounded:n`)."""

    kind: Neighbours = Neighbours.ADD_REMOVE
    bound: int | None = None

    def __post_init__(self) -> None:
        if (self.kind is Neighbours.ADD_REMOVE_BOUNDED) != (self.bound is not None):
            raise ParameterError("neighbours", self.text(), RELATIONS)
        if self.bound is not None and (isinstance(self.bound, bool) or not isinstance(
                self.bound, int) or not 1 <= self.bound <= MAX_BOUND):
            raise ParameterError("neighbours", self.text(), f"a bound 1..{MAX_BOUND} on n")

    @staticmethod
    def of(value: object) -> Relation:
        """`Relation`, `Neighbours` or text (`add-remove`, `replace-one`,
        `add-remove-bounded:N`) as a `Relation`; `ParameterError` naming `neighbours`."""
        if isinstance(value, Relation):
            return value
        if value is None:
            return Relation()
        text = value.value if isinstance(value, Neighbours) else value
        if not isinstance(text, str) or len(text) > 64:
            raise ParameterError("neighbours", repr(value), RELATIONS)
        kind, colon, bound = text.strip().partition(":")
        if kind not in {n.value for n in Neighbours}:
            raise ParameterError("neighbours", text, RELATIONS)
        if colon and not bound.strip().isdigit():
            raise ParameterError("neighbours", text, RELATIONS)
        return Relation(Neighbours(kind), int(bound) if colon else None)

    def text(self) -> str:
        return self.kind.value + ("" if self.bound is None else f":{self.bound}")

    @property
    def is_replace(self) -> bool:
        return self.kind is Neighbours.REPLACE_ONE

    def largest(self, size: int) -> int:
        """The largest `|D|` of an add/remove pair `(D, D + z)` audited at `size` (the bound
        caps `|D + z|`)."""
        return size if self.bound is None else min(size, self.bound - 1)


RELATIONS = "add-remove, replace-one or add-remove-bounded:N (a public bound N >= 1 on n)"
MAX_BOUND = 1 << 20


def approx(x: Value, prec: int = 64) -> float:
    """A float near an exact number, for reading only (the midpoint of a certified enclosure)."""
    return midpoint_float(*enclose(x, prec))  # every kind has `enclose(prec)`


def enclosure(x: Value, prec: int = 64) -> tuple[Fraction, Fraction]:
    """A certified enclosure of an exact number (a rational is its own)."""
    if isinstance(x, int | Fraction):
        return Fraction(x), Fraction(x)
    return enclose(x, prec)  # every kind has `enclose(prec)`


def certified(rows: Sequence[Row]) -> bool:
    """Is a row's `δ` a certified enclosure (a Gaussian law), not an exact value?"""
    return any(isinstance(row.delta, Enclosure) for row in rows)


def _exact(value: Value | Callable[[], Value]) -> Value:
    return value() if callable(value) else value


@dataclass(frozen=True)
class Claim:
    """What is claimed: `text` in words ("(1, 1/20)-DP", "Theorem 5.4, Eq. (22)") and its
    points `(ε, δ)`, each exact; the release compared and the neighbour relation."""

    text: str
    points: tuple[tuple[Fraction, Exact], ...]
    on: tuple[Release, ...] = (Release.OUTPUT,)
    neighbours: Neighbours = Neighbours.ADD_REMOVE
    parameters: Mapping[str, object] = field(default_factory=dict)
    labels: tuple[Mapping[str, object], ...] = ()  # per point, e.g. {"r": 1} (Theorem 5.4)
    bound: int | None = None  # add-remove-bounded: the public bound on every database's size

    def under(self, relation: Relation) -> Claim:
        """This claim stated for the pairs of `relation`."""
        return replace(self, neighbours=relation.kind, bound=relation.bound)

    @staticmethod
    def dp(epsilon: Fraction, delta: Exact, on: Sequence[Release] = (Release.OUTPUT,)) -> Claim:
        return Claim(f"({epsilon}, {exact_str(delta)})-DP", ((checked_epsilon(epsilon), delta),),
                     tuple(on))

    def as_json(self) -> dict[str, Any]:
        return {
            "text": self.text, "releases": list(self.on), "neighbours": self.neighbours.value,
            **({} if self.bound is None else {"neighbours_bound": self.bound}),
            "points": [{"eps": str(e), "delta": approx(d), "delta_exact": exact_str(d)}
                       for e, d in self.points],
            "parameters": jsonable(self.parameters),
        }


@dataclass(frozen=True)
class Row:
    """One neighbouring pair `(D, D + z)` at one claimed point: `δ(ε)` against `bound`.

    `delta` is the exact `δ(ε)` (or a function computing it, for rows whose exact value is
    expensive: the audits at depth); `delta_in` a certified enclosure that contains it;
    `holds` was decided by the gate (enclosures, exactly where they straddle). `facts` holds
    what only some audits have (`r`, `count`, `profile`, `epsilon_at_delta`)."""

    D: str
    z: str
    on: Release
    eps: Fraction
    delta: Value | Callable[[], Value]
    delta_in: tuple[Fraction, Fraction]
    bound: Exact
    holds: bool
    direction: Direction
    facts: Mapping[str, object] = field(default_factory=dict)
    D_prime: str | None = None  # replace-one: the other database (add/remove: D + z)
    order: Fraction | None = None  # a Renyi row: `delta` is D_order, `bound` the claimed eps

    def delta_exact(self) -> Value:
        return _exact(self.delta)

    def as_json(self, exact: bool = True) -> dict[str, Any]:
        """The row; `exact=False` leaves `delta_exact` null (a table of many rows at depth)."""
        lo, hi = self.delta_in
        return {
            "D": self.D, "z": self.z, "D_prime": self.D_prime, "on": self.on,
            "eps": str(self.eps), "delta": midpoint_float(lo, hi),
            "delta_exact": _exact_text(self.delta_exact()) if exact else None,
            "delta_in": [str(lo), str(hi)],
            "bound": approx(self.bound), "bound_exact": exact_str(self.bound),
            "holds": self.holds, "direction": self.direction.value,
            **({} if self.order is None else {"order": str(self.order)}),
            **{k: jsonable(v) for k, v in self.facts.items()},
        }

    def line(self) -> str:
        lo, hi = self.delta_in
        verdict = "holds" if self.holds else "REFUTED"
        if self.order is not None:
            pair = f"D = {self.D}, " + (f"z = {self.z}" if self.D_prime is None else
                                        f"D' = {self.D_prime} ({self.z})")
            return (f"{pair}, on {self.on}: D_{self.order} = {midpoint_float(lo, hi):.6g} "
                    f"({self.direction.value}) vs {approx(self.bound):.6g}: {verdict}")
        where = "".join(f"{k} = {v}, " for k, v in self.facts.items()
                        if k in ("r", "count", "promised"))
        pair = f"D = {self.D}, " + (f"z = {self.z}" if self.D_prime is None else
                                    f"D' = {self.D_prime} ({self.z})")
        return (f"{pair}, {where}on {self.on}: delta({self.eps}) = "
                f"{midpoint_float(lo, hi):.6g} ({self.direction.value}) vs {approx(self.bound):.6g}"
                f": {verdict}")


@dataclass(frozen=True)
class Refutation:
    """A counterexample, self-contained: the pair, the direction, `ε`, the event `S` (its first
    outputs and its size), `P(S)` and `Q(S)` exactly, so that `P(S) - e^ε·Q(S) = δ > bound`.
    `note` says how to read the event where its outputs are abbreviated."""

    claim: str
    D: str
    z: str
    on: Release
    direction: Direction
    eps: Fraction
    event: tuple[str, ...]
    event_size: int
    P: Value
    Q: Value
    delta: Value
    bound: Exact
    note: str = ""
    D_prime: str | None = None  # replace-one: the other database (add/remove: D + z)
    # a Renyi refutation: `delta` is D_order > `bound`, `P` the moment S = Σ P^α Q^(1-α) and `Q`
    # its bound e^((α-1)·bound) (the event: the outputs that contribute most)
    order: Fraction | None = None

    def as_json(self) -> dict[str, Any]:
        excess = self.delta - self.bound
        return {
            "violates": self.claim, "D": self.D, "z": self.z, "D_prime": self.D_prime,
            "on": self.on, "direction": self.direction.value, "eps": str(self.eps),
            "event": list(self.event), "event_size": self.event_size,
            "P": _exact_text(self.P), "Q": _exact_text(self.Q),
            "P_approx": approx(self.P), "Q_approx": approx(self.Q),
            "delta": approx(self.delta), "delta_exact": _exact_text(self.delta),
            "bound": approx(self.bound), "bound_exact": exact_str(self.bound),
            "excess": approx(excess), "excess_exact": _exact_text(excess), "note": self.note,
            **({} if self.order is None else {"order": str(self.order)}),
        }

    def lines(self) -> list[str]:
        p_db, q_db = self.direction.databases()
        out = [
            f"REFUTED: not {self.claim} on the {self.on}",
            (f"  pair: D = {self.D}, z = {self.z} (D+z adds z); direction "
             f"{self.direction.value}" if self.D_prime is None else
             f"  pair: D = {self.D}, D' = {self.D_prime} (replace-one: {self.z}); direction "
             f"{self.direction.value}"),
        ]
        out += self._renyi_lines(p_db, q_db) if self.order is not None else \
            self._event_lines(p_db, q_db)
        if self.note:
            out.append(f"  ({self.note})")
        return out

    def _event_lines(self, p_db: str, q_db: str) -> list[str]:
        shown = ", ".join(cut(output) for output in self.event[:SHOWN_EVENT])
        more = self.event_size - min(self.event_size, SHOWN_EVENT)
        event = f"{{{shown}{', ...' if more > 0 else ''}}}"
        return [
            f"  event S ({self.event_size} output{'s' if self.event_size != 1 else ''}): "
            f"{event}",
            f"  P_{p_db}(S) = {_exact_text(self.P)} ~ {approx(self.P):.6g}",
            f"  P_{q_db}(S) = {_exact_text(self.Q)} ~ {approx(self.Q):.6g}",
            f"  P_{p_db}(S) - {power('e', self.eps)} * P_{q_db}(S) = {_exact_text(self.delta)} ~ "
            f"{approx(self.delta):.6g} > delta = {exact_str(self.bound)} ~ "
            f"{approx(self.bound):.6g}",
        ]

    def _renyi_lines(self, p_db: str, q_db: str) -> list[str]:
        """A Renyi refutation: the order, the moment `S` and `D_order` against the claim."""
        a = self.order
        return [
            f"  order alpha = {a}: S = sum over outputs of {power(f'P_{p_db}', a)} * "
            f"P_{q_db}^(1-{a}) = "
            f"{_exact_text(self.P)} ~ {approx(self.P):.6g}",
            f"  D_{a}(P_{p_db} || P_{q_db}) = ln(S)/({a} - 1) = {_exact_text(self.delta)} ~ "
            f"{approx(self.delta):.6g} > {exact_str(self.bound)} ~ {approx(self.bound):.6g}",
        ]


@dataclass
class Verdict:
    """The answer of one privacy audit.

    `subject` names what was audited (the mechanism, its kind, the public tree, the parameters
    a builder was called with); `claim` what was claimed; `rows` one row per pair, point and
    release reported (all of them for given pairs; the worst pair's for an exhaustive or
    searched audit, `pairs` counting every pair audited); `refutation` the counterexample of a
    refuted claim: the worst over the pairs audited, or with `first` the first found, where the
    audit stopped (issue 35, item 4); `facts` what the audit adds (`epsilon_at_delta`, the
    worst pair's exact curve, profiles refused at depth, regressions against a baseline);
    `assumes` what the verdict rests on, checked or not (`betweencut.proofs.assumes`), filled
    by each entry point."""

    audit: str
    subject: Mapping[str, object]
    claim: Claim
    holds: bool
    rows: list[Row] = field(default_factory=list)
    refutation: Refutation | None = None
    pairs: int = 0
    facts: dict[str, Any] = field(default_factory=dict)
    regressions: list[Any] = field(default_factory=list)
    curve: Any = field(default=None, repr=False, compare=False)  # the exact curve (facts: JSON)
    assumes: Assumes = field(default_factory=Assumes)  # what the verdict rests on
    first: bool = False  # asked to stop at the first refutation (`--first`, `first=True`)

    @property
    def stopped_early(self) -> bool:
        """Refuted with `first`: the audit stopped at its first refuting pair, so the
        refutation and `epsilon_at_delta` are not the worst over the pairs in scope."""
        return self.first and not self.holds and self.refutation is not None

    @property
    def worst(self) -> Row | None:
        """The refuted row with the largest certified excess, else the row closest to its
        bound (by the certified upper end of `δ/bound`); a report, not a verdict."""
        refuted = [row for row in self.rows if not row.holds]
        if refuted:
            return max(refuted, key=lambda r: r.delta_in[0] - enclosure(r.bound)[1])
        best: Row | None = None
        best_hi = Fraction(-1)
        for row in self.rows:
            b_lo = enclosure(row.bound)[0]
            hi = row.delta_in[1] / b_lo if b_lo > 0 else (
                Fraction(0) if row.delta_in[1] <= 0 else row.delta_in[1])
            if hi > best_hi:
                best, best_hi = row, hi
        return best

    @property
    def exit_status(self) -> int:
        """0 holds (and no regression), 1 refuted or a regression."""
        return EXIT_HOLDS if self.holds and not self.regressions else EXIT_REFUTED

    def as_json(self, rows: bool = True, with_header: bool = True) -> dict[str, Any]:
        """The verdict as JSON (schema `verdict`); `rows=False` leaves `rows` empty (a caller
        streaming them), `with_header=False` drops `schema` and `version` (a verdict nested in
        another output, such as a corpus row)."""
        worst = self.worst
        out: dict[str, Any] = {
            **(header("verdict") if with_header else {}), "audit": self.audit,
            "subject": jsonable(self.subject),
            "claim": self.claim.as_json(), "holds": self.holds, "pairs": self.pairs,
            "first": self.first,
            "worst": None if worst is None else worst.as_json(),
            "refutation": None if self.refutation is None else self.refutation.as_json(),
            "rows": [row.as_json() for row in self.rows] if rows else [],
            "regressions": [r.as_json() for r in self.regressions],
            "assumes": self.assumes.as_json(),
        }
        out.update({k: jsonable(v) for k, v in self.facts.items()})
        return out

    def __str__(self) -> str:
        """`text()`: printing a verdict shows what the command line prints (issue 36)."""
        return self.text()

    def __repr__(self) -> str:
        """A summary; `text()` and `as_json()` hold the whole verdict."""
        state = "holds" if self.holds else "refuted"
        return (f"Verdict(audit={self.audit!r}, claim={self.claim.text!r}, {state}, "
                f"pairs={self.pairs}, rows={len(self.rows)}, "
                f"regressions={len(self.regressions)})")

    def text(self) -> str:
        """The verdict in words, self-contained: what was audited with which parameters, the
        claim, the verdict, the counterexample (pair, event, exact P and Q) or the worst row."""
        subject = ", ".join(f"{k} = {_text(v)}" for k, v in jsonable(self.subject).items())
        out = [f"audit {self.audit}: {subject}",
               f"  claim: {self.claim.text} on the {' and '.join(self.claim.on)} "
               f"({self.claim.neighbours.value}"
               f"{'' if self.claim.bound is None else f', n <= {self.claim.bound}'} neighbours); "
               f"{self.pairs} pair(s) audited" + (
                   ", stopped at the first refutation (first): not the worst pair"
                   if self.stopped_early else "")]
        if self.refutation is not None:
            lines = self.refutation.lines()
            if not self.first and self.pairs > 1 and lines:  # which refutation this is
                lines[0] += ("; the worst pair audited (the largest delta(eps) - delta)"
                             if getattr(self.refutation, "order", None) is None else
                             "; the worst pair audited (the largest D_alpha - claimed)")
            out += ["  " + line for line in lines]
        else:
            out.append("  holds" + (" on every pair audited" if self.pairs > 1 else ""))
            worst = self.worst
            if worst is not None:
                out.append(f"  closest to the claim: {worst.line()}")
        pair = self.facts.get("epsilon_at_delta_pair")
        if isinstance(pair, Mapping):
            found = self.facts.get("epsilon_at_delta")
            value = "inf (no finite eps)" if found is None else f"{found:.6g}"
            where = (f"D = {pair['D']}, z = {pair['z']}" if "D_prime" not in pair else
                     f"D = {pair['D']}, D' = {pair['D_prime']} ({pair['z']})")
            certified = self.facts.get("epsilon_at_delta_certified")
            own = (f"exact: {cut(str(self.facts.get('epsilon_at_delta_exact')))}" if not isinstance(
                certified, Mapping) else "certified, not exact: the pair's own eps lies in "
                f"[{_shown_float(certified['in'][0])}, {_shown_float(certified['in'][1])}], "
                f"its probabilities enclosed at {certified['bits']} bits")
            over = ("over the pairs audited up to the first refutation" if self.stopped_early
                    else "over the pairs audited")
            out.append(f"  epsilon_at_delta = {value} at delta = {pair['delta_exact']}, largest "
                       f"{over}, on {where}: a certified "
                       f"lower bound on the mechanism's eps ({own})")
        shown = self.rows if len(self.rows) <= SHOWN_ROWS else [
            r for r in self.rows if not r.holds][:SHOWN_ROWS]
        if shown and len(self.rows) > 1:
            out.append(f"  rows ({len(self.rows)}" + (", the refuted ones shown" if
                                                      len(shown) < len(self.rows) else "") + "):")
            out += [f"    {row.line()}" for row in shown]
        out += [f"  regression: {r.line()}" for r in self.regressions]
        out += self.assumes.block()
        return "\n".join(out)


class StreamedVerdict:
    """A verdict's `as_json()` written as JSON text while its rows are still being decided
    (an audit whose rows are too many to hold: `audit depth` at `h = 2^64 - 1`).

    `rows(...)` writes each row's `as_json()` as it comes (the audit's `each=` callback), the
    first one after `{"rows": [`; `close(verdict)` writes the verdict's other keys (its
    `as_json(rows=False)`) and closes the object. The pieces concatenate to one JSON object
    equal, once parsed, to `verdict.as_json()` with those rows (rows first: key order aside);
    nothing is written before the first row, so an audit refused before any leaves no
    fragment. This is the one place where a verdict is framed by hand."""

    def __init__(self, write: Callable[[str], object]) -> None:
        self.write = write
        self.written = 0
        self.opened = False

    def _open(self) -> None:
        if not self.opened:
            self.write('{"rows": [')
            self.opened = True

    def rows(self, rows: Iterable[Row]) -> None:
        for row in rows:
            self._open()
            self.write(("," if self.written else "") + json.dumps(row.as_json()))
            self.written += 1

    def close(self, verdict: Verdict) -> None:
        self._open()
        tail = verdict.as_json(rows=False)
        del tail["rows"]
        self.write("], " + json.dumps(tail)[1:] + "\n")


def power(base: str, exponent: object) -> str:
    """`base^x`, the exponent in parentheses unless it is a plain integer: `e^(9/10)`, never
    `e^9/10` (which reads as `e^9 / 10`; issue 36 item 7)."""
    text = str(exponent)
    return f"{base}^{text}" if text.lstrip("-").isdigit() and not text.startswith("-") \
        else f"{base}^({text})"


def _shown_float(x: object) -> str:
    """A display float as text (`inf` for None: no finite value)."""
    return "inf" if x is None else f"{x:.6g}"


def _text(value: object) -> str:
    if isinstance(value, Mapping):
        return "(" + ", ".join(f"{k} = {_text(v)}" for k, v in value.items()) + ")"
    return str(value)


def _exact_text(value: object) -> str:
    """Exact text: a value's own grammar when it has one (`text()`, e.g. the integer tables of
    the audits at depth, one common denominator), else `exact_str`; a certified enclosure as
    `[lo, hi]`."""
    text = getattr(value, "text", None)
    if callable(text):
        return cut(str(text()))
    if isinstance(value, Enclosure):
        return str(value)
    return cut(exact_str(value))  # type: ignore[arg-type]


def cut(text: str) -> str:
    """`text` for the text form of a verdict: whole up to `SHOWN_CHARS` characters, else its
    head and how long it is (a deep PrivTree pair's exact eps runs to megabytes); the JSON form
    (`as_json()`) holds every value whole."""
    if len(text) <= SHOWN_CHARS:
        return text
    return f"{text[:SHOWN_CHARS]}... ({len(text):,} characters in all; the JSON holds it whole)"


class ClaimedEpsilon(Fraction):
    """A claimed `ε`, range-checked: an exact rational `>= 0`. Its construction is the one
    range check of `ε` on its route (`ClaimedEpsilon(value, name)`: `value` read by
    `betweencut.numbers.exact.as_rational`, a float refused, `ParameterError` naming `name`
    when negative); the route's functions (`audit_pairs`, the divergences, the hockey sticks)
    accept one as it is, and check any other value through `checked_epsilon`. It is a
    `Fraction` in every other respect: arithmetic on it gives plain `Fraction`s (a computed
    `ε` is not a claimed one), and it is written as one (`repr`, `str`)."""

    __slots__ = ()

    def __new__(cls, value: object, name: str = "eps") -> ClaimedEpsilon:
        from betweencut.data.validate import positive_rational

        return super().__new__(cls, positive_rational(value, name, text=True, zero=True))

    def __repr__(self) -> str:
        return f"Fraction({self.numerator}, {self.denominator})"

    def __reduce__(self) -> tuple[Any, ...]:  # unpickled through the check again
        return (ClaimedEpsilon, (Fraction(self.numerator, self.denominator),))

    def __copy__(self) -> ClaimedEpsilon:
        return self

    def __deepcopy__(self, memo: object) -> ClaimedEpsilon:
        return self


def checked_epsilon(eps: object, name: str = "eps") -> ClaimedEpsilon:
    """`eps` as a `ClaimedEpsilon`: one already checked as it is, any other value checked here
    (the one check, `ClaimedEpsilon`); the public entry points that take a raw `ε` call this."""
    return eps if isinstance(eps, ClaimedEpsilon) else ClaimedEpsilon(eps, name)


@overload
def claim_point(point: object, names: tuple[str, str] = ...,
                *, limits: Literal[True] = ...) -> tuple[Fraction, Fraction]: ...


@overload
def claim_point(point: object, names: tuple[str, str] = ...,
                *, limits: Literal[False]) -> tuple[Fraction, Exact]: ...


def claim_point(point: object, names: tuple[str, str] = ("epsilon", "delta"), *,
                limits: bool = True) -> tuple[Fraction, Exact]:
    """One claimed `(ε, δ)` point, built here only: `ε` a `ClaimedEpsilon` (an exact rational
    `>= 0`, checked once: one given already checked passes as it is, without `limits`), `δ` an
    exact rational or an exact symbolic value (`ExpPoly`, `ExpRational`: a bound of the paper)
    `>= 0`; text is read by `betweencut.numbers.exact_text`'s grammar, floats are refused.
    `limits` (a user's point, the API's): the command line's limits on numbers
    (`betweencut.data.validate.exact_value`), rationals only and `δ <= 1`; without (a checker's
    point, `audit_pairs`): any exact value. `ParameterError` naming `names`' `ε` or `δ`, or `claim`,
    otherwise."""
    if not isinstance(point, tuple | list) or len(point) != 2:
        raise ParameterError("claim", repr(point), "(eps, delta) pairs")
    from betweencut.data.validate import exact_value
    from betweencut.numbers.exact import as_rational
    from betweencut.proofs.exact.arith import sign

    read = exact_value if limits else as_rational
    eps_name, delta_name = names
    # a user's ε within the command line's limits; a checker's as it comes (checked once)
    eps = ClaimedEpsilon(exact_value(point[0], eps_name), eps_name) if limits else \
        checked_epsilon(point[0], eps_name)
    delta = point[1]
    if isinstance(delta, ExpPoly | ExpRational) and not limits:
        if sign(delta) < 0:
            raise ParameterError(delta_name, exact_str(delta), f"{delta_name} >= 0")
        return eps, delta
    dlt = read(delta, delta_name)
    if dlt < 0 or (limits and dlt > 1):
        raise ParameterError(delta_name, dlt, f"0 <= {delta_name} <= 1" if limits
                             else f"{delta_name} >= 0")
    return eps, dlt



def dp_point(epsilon: object, delta: object) -> tuple[Fraction, Fraction]:
    """The `(ε, δ)`-DP claim of an audit given as `epsilon=` and `delta=` (both needed: the
    one not given is named), read by `claim_point`, with `δ < 1` (a claim `δ = 1` says
    nothing); `ParameterError` otherwise."""
    if epsilon is None or delta is None:  # the one not given, named (issue 36 item 4)
        raise ParameterError("epsilon" if epsilon is None else "delta", None,
                             "epsilon= and delta= state the (epsilon, delta)-DP claim audited")
    eps, dlt = claim_point((epsilon, delta))
    if not dlt < 1:
        raise ParameterError("delta", dlt, "0 <= delta < 1")
    return eps, dlt

def projection(on: Release) -> Callable[[object], Hashable]:
    """What an audit compares of an output, for the release `on`: the whole output keyed by
    its canonical bytes (`Release.OUTPUT`: `boundary.encoding.release_of`), or its attribute
    `on` (`ParameterError` naming `on` when the output has none). The law caches call it on
    every output: it lives below them."""
    if on == Release.OUTPUT:
        from betweencut.boundary.encoding import release_of

        return release_of

    def project(o: object) -> Any:
        if not hasattr(o, on):
            raise ParameterError("on", on, f"'output' or an attribute of the mechanism's output "
                                 f"(a {type(o).__name__} has no attribute {on!r})")
        return getattr(o, on)

    return project
