"""Privacy snapshots: each pair's exact privacy curve as reviewable text, read back exactly.

A snapshot file holds, for every neighbouring pair `(D, D + z)` and release of one call, the
pair's curve `δ(ε)` (`betweencut.proofs.privacy.divergence.curve.PrivacyCurve`) as its pieces:
from each piece's first `ε` to the next piece's, `δ(ε) = A - exp(ε)·B` with `A`, `B` sums of
`c·exp(x)` (rationals `c`, `x`). A piece starts at `0`, at a rational, or at `log(N / M)` with
`N`, `M` such sums. Format 1:

    # comment lines start with '#'; '# ~' notes are floats for reading only
    format: betweencut-privacy-snapshot 1
    mechanism: flag                        (what was audited: descriptive, never compared)
    kind: function (db, test) -> output
    tree: complete 2-ary tree, h=3
    assumes: checked: each run's output is a function of the database and its noisy ...; how: ...
    assumes: checked: no randomness or clock read outside the noisy tests; how: ...

    pair: D = {}, z = 0/0, on output
    piece: from eps = 0
      A = 1/2
      B = 1/2*exp(-1)
    piece: from eps = log(N / M)  # ~ 1
      N = 1/2 - 1/2*exp(-1)
      M = 1/2*exp(-1) - 1/2*exp(-2)
      A = 0
      B = 0

Every number is read back by the package's one grammar for numbers (`betweencut.numbers.exact_text`,
one term at a time, never evaluated as code); a text written is read back and checked equal,
as a function of `ε`, to the curve it came from before it is stored. A file of a format this
version does not read fails with a message saying to rewrite it (`pytest
--privacy-snapshot-update`) or to upgrade betweencut.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from betweencut.errors import BetweenCutError, ParameterError
from betweencut.numbers.exact_text import NotExact, bounded, evaluate, read_rational
from betweencut.proofs.exact.arith import ExpPoly, ExpRational
from betweencut.proofs.privacy.divergence.curve import LogOf, Piece, PrivacyCurve, exceeds
from betweencut.testing.curves import (
    Curves,
    Excess,
    PairKey,
    excesses,
    poly_text,
    rational_log,
)

__all__ = ["FORMAT", "MAGIC", "READS", "SnapshotError", "SnapshotReport", "check_snapshot",
           "read_snapshot", "snapshot_text"]

MAGIC = "betweencut-privacy-snapshot"
FORMAT = 1  # the format written
READS = (1,)  # the formats this version reads
UPDATE = "pytest --privacy-snapshot-update"
HEADER_KEYS = ("mechanism", "kind", "tree", "parameters", "covered", "written by")
ASSUMES = "assumes"  # one header line per item the curves rest on (`betweencut.proofs.assumes`)
_PAIR = re.compile(r"pair: D = (\{[^}]*\}), z = (\S+), on (\w+)")
_SIGNED = re.compile(r" ([+-]) ")


class SnapshotError(BetweenCutError):
    """A snapshot file that cannot be read: the message names the file, the line and what to
    do (rewrite it with `pytest --privacy-snapshot-update`, or upgrade betweencut)."""


# -- exact sums as text -------------------------------------------------------------------------
class _Terms:
    """`betweencut.numbers.exact_text`'s arithmetic for one term `c*exp(x)` (rationals `c`, `x`)."""

    what = "a term such as 1/2, -3/4*exp(-1/2) (rationals, exp of a rational)"

    def number(self, q: Fraction) -> ExpPoly:
        return ExpPoly.const(bounded(q))

    def exp(self, x: ExpPoly) -> ExpPoly:
        r = x.rational_value()
        if r is None:
            raise NotExact("exp of a rational only")
        return ExpPoly.exp(bounded(r))

    def log(self, x: ExpPoly) -> ExpPoly:
        raise NotExact("log(...) is not a term c*exp(x)")

    def neg(self, x: ExpPoly) -> ExpPoly:
        return -x

    def add(self, x: ExpPoly, y: ExpPoly) -> ExpPoly:
        return x + y

    def sub(self, x: ExpPoly, y: ExpPoly) -> ExpPoly:
        return x - y

    def mul(self, x: ExpPoly, y: ExpPoly) -> ExpPoly:
        return x * y

    def div(self, x: ExpPoly, y: ExpPoly) -> ExpPoly:
        r = y.rational_value()
        if r is None:
            raise NotExact("division by a rational only")
        if r == 0:
            raise ZeroDivisionError
        return x * ExpPoly.const(1 / r)


TERMS = _Terms()


def read_poly(text: str, name: str) -> ExpPoly:
    """A sum written by `poly_text`, each term read by `betweencut.numbers.exact_text`."""
    parts = _SIGNED.split(text.strip())
    out = evaluate(parts[0], name, TERMS)
    for op, term in zip(parts[1::2], parts[2::2], strict=True):
        value = evaluate(term, name, TERMS)
        out = out + value if op == "+" else out - value
    return out


# -- writing -----------------------------------------------------------------------------------
def _start_lines(point: LogOf) -> list[str]:
    r = rational_log(point)
    if r is not None:
        return [f"piece: from eps = {r}"]
    x = point.exp()
    return [f"piece: from eps = log(N / M)  # ~ {point.display():.6g}",
            f"  N = {poly_text(x.num)}", f"  M = {poly_text(x.den)}"]


def snapshot_text(curves: Curves, version: str = "") -> str:
    """The snapshot file of `curves` (format `FORMAT`)."""
    lines = [
        "# betweencut privacy snapshot: the exact privacy curve delta(eps) of each neighbouring",
        "# pair (max over D||D+z and D+z||D). On each piece, delta(eps) = A - exp(eps)*B, from",
        "# its first eps to the next piece's (the last to infinity). Exact numbers; '# ~' notes",
        f"# are floats for reading only. Review changes like code; rewrite with: {UPDATE}",
        f"format: {MAGIC} {FORMAT}",
    ]
    subject = dict(curves.subject)
    if version:
        subject["written by"] = version
    for key in HEADER_KEYS:
        if key in subject:
            lines.append(f"{key}: {_one_line(subject[key])}")
    lines += [f"{ASSUMES}: {line}" for line in curves.assumes.lines(how=True)]
    for (D, z, on), curve in curves.curves.items():
        lines += ["", f"pair: D = {D}, z = {z}, on {on}"]
        for piece in curve.pieces:
            lines += _start_lines(piece.lo)
            lines += [f"  A = {poly_text(piece.a)}", f"  B = {poly_text(piece.b)}"]
    text = "\n".join(lines) + "\n"
    _check_round_trip(curves, text)
    return text


def _one_line(value: object) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{k} = {_one_line(v)}" for k, v in value.items())
    return " ".join(str(value).split())


def _check_round_trip(curves: Curves, text: str) -> None:
    back = read_snapshot(text, "the snapshot being written")
    for key, curve in curves.curves.items():
        other = back.curves.get(key)
        if other is None or exceeds(curve, other) or exceeds(other, curve):
            raise SnapshotError(f"the snapshot text of pair {key} does not read back to the "
                                "same exact curve (a bug in betweencut.testing.snapshot)")


# -- reading -----------------------------------------------------------------------------------
@dataclass
class _Reader:
    where: str
    lines: list[tuple[int, str]]
    at: int = 0

    def fail(self, why: str, line: int | None = None) -> SnapshotError:
        n = self.lines[min(self.at, len(self.lines) - 1)][0] if line is None and self.lines \
            else line
        place = f"{self.where}, line {n}" if n is not None else self.where
        return SnapshotError(f"{place}: {why}; rewrite it with {UPDATE} (and review the diff)")

    def peek(self) -> str | None:
        return self.lines[self.at][1] if self.at < len(self.lines) else None

    def take(self, prefix: str) -> str:
        line = self.peek()
        if line is None or not line.startswith(prefix):
            raise self.fail(f"expected a line starting {prefix.strip()!r}, found "
                            f"{'the end' if line is None else repr(line[:60])}")
        self.at += 1
        return line[len(prefix):]

    def number(self, prefix: str, name: str) -> ExpPoly:
        text = self.take(prefix)
        try:
            return read_poly(text, name)
        except ParameterError as exc:
            raise self.fail(f"{name}: {exc}", self.lines[self.at - 1][0]) from None


def _content(text: str) -> Iterator[tuple[int, str]]:
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].rstrip()
        if line.strip():
            yield n, line


def read_snapshot(text: str, where: str) -> Curves:
    """The curves a snapshot file holds (any format in `READS`); `SnapshotError` naming the
    file and line otherwise (an older format: rewrite it; a newer one: upgrade betweencut)."""
    reader = _Reader(where, list(_content(text)))
    first = reader.peek()
    found = re.fullmatch(rf"format: {MAGIC} (\d{{1,6}})", first or "")
    if found is None:
        raise reader.fail(f"not a betweencut privacy snapshot (its first line should be "
                          f"'format: {MAGIC} {FORMAT}')")
    version = int(found[1])
    if version not in READS:
        if version < min(READS):
            raise reader.fail(f"made by an older betweencut (snapshot format {version}; this "
                              f"version reads format {', '.join(map(str, READS))})")
        raise SnapshotError(f"{where}: made by a newer betweencut (snapshot format {version}; "
                            f"this version reads format {', '.join(map(str, READS))}): upgrade "
                            f"betweencut, or rewrite the snapshot with {UPDATE}")
    reader.at += 1
    out = Curves()
    subject: dict[str, object] = {}
    assumed: list[str] = []
    while (line := reader.peek()) is not None and not line.startswith("pair:"):
        name, sep, value = line.partition(": ")
        if not sep:
            raise reader.fail(f"expected 'key: value' or a 'pair:' line, found {line[:60]!r}")
        if name == ASSUMES:  # one line per item, kept as text (never compared)
            assumed.append(value)
        else:
            subject[name] = value
        reader.at += 1
    if assumed:
        subject[ASSUMES] = assumed
    out.subject = subject
    while reader.peek() is not None:
        key, curve = _pair(reader)
        if key in out.curves:
            raise reader.fail(f"the pair {key} appears twice")
        out.curves[key] = curve
    if not out.curves:
        raise reader.fail("no pair")
    return out


def _pair(reader: _Reader) -> tuple[PairKey, PrivacyCurve]:
    first = reader.peek() or ""
    found = _PAIR.fullmatch(first)
    if found is None:
        raise reader.fail(f"expected 'pair: D = {{...}}, z = ..., on RELEASE', found "
                          f"{first[:60]!r}")
    reader.at += 1
    key = (found[1], found[2], found[3])
    starts: list[LogOf] = []
    forms: list[tuple[ExpPoly, ExpPoly]] = []
    while (reader.peek() or "").startswith("piece:"):
        starts.append(_start(reader))
        forms.append((reader.number("  A = ", "A"), reader.number("  B = ", "B")))
    if not starts:
        raise reader.fail(f"the pair {key} has no piece")
    if starts[0].as_rational() != 0:
        raise reader.fail(f"the first piece of pair {key} does not start at eps = 0")
    for a, b in itertools.pairwise(starts):
        if a.compare(b) >= 0:
            raise reader.fail(f"the pieces of pair {key} do not start at increasing eps")
    pieces = tuple(Piece(lo, hi, a, b) for lo, hi, (a, b) in
                   zip(starts, [*starts[1:], None], forms, strict=True))
    return key, PrivacyCurve(pieces)


def _start(reader: _Reader) -> LogOf:
    text = reader.take("piece: from eps = ").strip()
    if text == "log(N / M)":
        n, m = reader.number("  N = ", "N"), reader.number("  M = ", "M")
        try:
            return LogOf(ExpRational(n, m))
        except (ParameterError, ZeroDivisionError) as exc:
            raise reader.fail(f"log(N / M) needs N / M > 0 ({exc})",
                              reader.lines[reader.at - 1][0]) from None
    try:
        r = read_rational(text, "eps")
    except ParameterError as exc:
        raise reader.fail(str(exc), reader.lines[reader.at - 1][0]) from None
    if r < 0:
        raise reader.fail(f"eps = {r} < 0", reader.lines[reader.at - 1][0])
    return LogOf.rational(r)


# -- comparing ---------------------------------------------------------------------------------
@dataclass
class SnapshotReport:
    """What checking one snapshot found: written (first time or update), the ranges where the
    new curve exceeds the stored one (`regressions`: fail) or the stored one exceeds the new
    (`improvements`: reported, not failing), pairs the call has and the file lacks
    (`missing`) or the reverse (`stale`)."""

    path: Path
    shown: str = ""  # the path as messages write it (relative to the project), else `path`
    written: bool = False
    strict_missing: bool = False
    regressions: list[Excess] = field(default_factory=list)
    improvements: list[Excess] = field(default_factory=list)
    missing: list[PairKey] = field(default_factory=list)
    stale: list[PairKey] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.shown or str(self.path)

    @property
    def failed(self) -> bool:
        return bool(self.strict_missing or self.regressions or self.missing or self.stale)

    def message(self) -> str:
        out = []
        if self.strict_missing:
            out.append(f"privacy snapshot {self.name} is missing (--privacy-snapshot-strict): "
                       f"write it with {UPDATE}, review it and commit it")
        if self.regressions:
            out.append(f"privacy snapshot {self.name}: the exact privacy curve exceeds the "
                       "snapshot (the mechanism spends more privacy) on:")
            out += ["  " + e.line("the new", "the snapshot's") for e in self.regressions]
        if self.missing or self.stale:
            out.append(f"privacy snapshot {self.name}: the pairs audited changed")
            out += [f"  not in the snapshot: D = {D}, z = {z}, on {on}"
                    for D, z, on in self.missing]
            out += [f"  in the snapshot, not audited any more: D = {D}, z = {z}, on {on}"
                    for D, z, on in self.stale]
        if self.regressions or self.missing or self.stale:
            out.append(f"If the change is intended, review it and record it: {UPDATE} (then "
                       "commit the snapshot)")
        return "\n".join(out)

    def improvement_message(self) -> str:
        return "\n".join([f"privacy snapshot {self.name}: more private than stored (record it "
                          f"with {UPDATE}) on:",
                          *("  " + e.line("the snapshot's", "the new") for e in
                            self.improvements)])


def check_snapshot(path: Path, curves: Curves, *, update: bool = False, strict: bool = False,
                   version: str = "", shown: str = "") -> SnapshotReport:
    """Compare `curves` with the snapshot at `path`, exactly; write it when it is missing
    (unless `strict`) or when `update`. Returns a `SnapshotReport`; `SnapshotError` for a
    file that cannot be read."""
    report = SnapshotReport(path, shown)
    if update or not path.exists():
        if strict and not update:
            report.strict_missing = True
            return report
        text = snapshot_text(curves, version)
        old = path.read_text(encoding="utf-8") if path.exists() else None
        if old != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            report.written = True
        return report
    stored = read_snapshot(path.read_text(encoding="utf-8"), report.name)
    for key, curve in curves.curves.items():
        old_curve = stored.curves.get(key)
        if old_curve is None:
            report.missing.append(key)
            continue
        report.regressions += excesses(key, curve, old_curve)
        report.improvements += excesses(key, old_curve, curve)
    report.stale = [key for key in stored.curves if key not in curves.curves]
    return report
