"""Exact `δ(ε_r)` of depth rows (`ε_r` the claim's points) as integer tables, and their text.

A row of `betweencut.proofs.privacy.depth.transcript.profile_rows` has the exact value

    δ_dir(ε_r) = Σ_{violating signatures} mult · (P(sig) - e^{ε_r}·Q(sig))

in each direction (`P`, `Q` the signature's probabilities under the two databases), and the
row's `δ` is the larger direction. Every factor value (an answer's exact probability,
`betweencut.proofs.laws.factors.factor_value`) is `Σ c·e^{x}` with rational `c`,
`x`. With `N` the common denominator of every exponent of both databases and of the claimed
points `ε_r`, and `D` that of every coefficient, a factor is `x^s · F(x) / D` with
`x = e^{1/N}`, `F` an integer polynomial and `s` an integer shift, and a signature's
probability is a product of powers of these over `D^weight`. All sums of one pair are kept
at the one denominator `D^most` (`most` the largest weight), so `δ_dir(ε_r)·D^most` is an
integer polynomial in `x` (times a known power of `x`), and the whole computation is integer
multiplication and addition: no `Fraction` is built per term.

Backends, same integers (`betweencut.proofs.exact.intpoly`): `flint.fmpz_mpoly` (python-flint,
the `fast` extra; sparse polynomials in C: the polynomials here have a few hundred terms spread
over degrees up to ~10^4, so a dense `fmpz_poly` is measured slower than even the pure path, see
`bench/depth_exact.py`) when it is importable, else pure Python dicts. `ExactTables` takes the
backend as an argument, or from the context (`intpoly.use_backend`) when it is built; the tests
compare the two exactly.

Text grammar (`ExactValue.text`, read exactly by `sympy.sympify`):

    value    := "0" | numer | "(" numer ")/" denom
    numer    := ["-"] term (" + " term | " - " term)*
    term     := int | int "*exp(" expo ")" | "exp(" expo ")"
    expo     := ["-"] int ["/" int]          (a reduced fraction)
    denom    := int | int "**" int           (`D**k` when that is shorter than its digits)

`int` is a decimal natural number; terms are in increasing order of exponent; numerator and
denominator have no common factor. Example: `(-exp(-1/2) + 1)/4` is `(1 - e^{-1/2})/4`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from betweencut.errors import MissingExtra, ParameterError
from betweencut.proofs.exact.arith import ExpPoly
from betweencut.proofs.exact.intpoly import (
    Poly,
    add_into,
    flint_context,
    mul,
    resolve_backend,
    tree_sum,
)
from betweencut.proofs.laws.bt_laws import OUTCOMES
from betweencut.proofs.laws.factors import factor_value
from betweencut.proofs.privacy.depth.paths import Signature

__all__ = ["ExactTables", "ExactValue", "Violating"]

Violating = tuple[int, Signature, int]  # (largest violating r, signature, multiplicity)


# -- exact values -------------------------------------------------------------------------------

@dataclass(frozen=True)
class ExactValue:
    """`Σ_j c_j·e^{e_j/N} / D^most`: `coeffs` the pairs `(e_j, c_j)`, `c_j ≠ 0`, sorted by `e_j`.

    One pair's values share `N`, `D` and `most`; since `e^{q}` for distinct rationals `q` are
    linearly independent over the rationals (Lindemann-Weierstrass), two such values are equal
    exactly when their `coeffs` are.
    """

    coeffs: tuple[tuple[int, int], ...]
    N: int
    D: int
    most: int

    def is_zero(self) -> bool:
        return not self.coeffs

    def to_exppoly(self) -> ExpPoly:
        """The same number as an `ExpPoly` (one `Fraction` per term)."""
        den = self.D**self.most
        return ExpPoly({Fraction(e, self.N): Fraction(c, den) for e, c in self.coeffs})

    def text(self) -> str:
        """The value in the module's grammar: one common denominator, integers throughout."""
        if not self.coeffs:
            return "0"
        den = self.D**self.most
        g = math.gcd(den, *(c for _, c in self.coeffs))
        den //= g
        parts: list[str] = []
        for e, c in self.coeffs:
            if g != 1:
                c //= g
            mag = -c if c < 0 else c
            body = str(mag) if e == 0 else (
                _exp_text(e, self.N) if mag == 1 else f"{mag}*{_exp_text(e, self.N)}")
            parts.append((" - " if c < 0 else " + ") + body)
        numer = "".join(parts)
        numer = ("-" + numer[3:]) if numer.startswith(" - ") else numer[3:]
        if den == 1:
            return numer
        return f"({numer})/{_power_text(den, self.D)}"

    def __str__(self) -> str:
        return self.text()


@lru_cache(maxsize=1 << 16)
def _exp_text(e: int, N: int) -> str:
    k = math.gcd(e, N)
    return f"exp({e // k})" if k == N else f"exp({e // k}/{N // k})"


def _power_text(den: int, base: int) -> str:
    if base > 1:
        k, p = 0, 1
        while p < den:
            p, k = p * base, k + 1
        if p == den and len(f"{base}**{k}") < len(str(den)):
            return f"{base}**{k}"
    return str(den)


class _Side:
    """The factor values of one database as integer polynomials: column `i` (segment `k`,
    outcome) is `x^{shift[i]}·base[i](x) / D` (`None`: probability 1, a guard's answer, or
    impossible: then no signature with it is summed here)."""

    def __init__(self, laws: Sequence[dict[Any, int | None]], N: int, D: int) -> None:
        self.base: list[Poly | None] = []
        self.shift: list[int] = []
        self.noisy: list[bool] = []
        self.impossible: list[bool] = []
        for law in laws:
            for s in OUTCOMES:
                fid = law.get(s)
                self.impossible.append(s not in law)
                if fid is None:
                    self.base.append(None)
                    self.shift.append(0)
                    self.noisy.append(False)
                    continue
                v = factor_value(fid)
                ints = {x.numerator * (N // x.denominator): c.numerator * (D // c.denominator)
                        for x, c in v.terms.items()}
                low = min(ints)
                self.base.append({e - low: c for e, c in ints.items() if c})
                self.shift.append(low)
                self.noisy.append(True)
        self.powers: dict[tuple[int, int], dict[int, int]] = {}
        self.products: dict[Signature, tuple[dict[int, int], int, int]] = {}

    def power(self, col: int, n: int) -> dict[int, int]:
        key = (col, n)
        found = self.powers.get(key)
        if found is None:
            base = self.base[col]
            if base is None:
                raise ParameterError("column", col, "a noisy answer (a factor value)")
            found = base if n == 1 else mul(self.power(col, n - 1), base)
            self.powers[key] = found
        return found

    def product(self, sig: Signature) -> tuple[dict[int, int], int, int]:
        """`(poly, shift, weight)` with `P(sig) = x^shift·poly(x) / D^weight`."""
        found = self.products.get(sig)
        if found is None:
            poly = {0: 1}
            shift = weight = 0
            for col, n in enumerate(sig):
                if n and self.noisy[col]:
                    poly = mul(poly, self.power(col, n))
                    shift += n * self.shift[col]
                    weight += n
            found = self.products[sig] = (poly, shift, weight)
        return found


class ExactTables:
    """The exact `δ_dir(ε_r)` of one grouped pair, both directions, every `r = 1..top`, at the
    claim's points `eps = (ε_1, ..., ε_top)` (increasing rationals).

    `violating[dir]` lists `(t, sig, mult)` with `t` the largest `r` at which the signature
    (or the output it belongs to, `depth_heavy`) violates (`P > e^{ε_r}Q`) in that direction,
    in non-increasing `t` (as `profile_rows` decides them); a signature a database cannot give
    adds nothing to its side. Everything is computed on
    the first `value` call, in one pass per direction (violating sets grow as `r` falls), with
    `backend` (`flint` or `pure`, `intpoly.resolve_backend`: None takes the context's).
    """

    def __init__(self, laws: Sequence[tuple[dict[Any, int | None], dict[Any, int | None]]],
                 eps: Sequence[Fraction],
                 violating: tuple[list[Violating], list[Violating]],
                 backend: str | None = None) -> None:
        self.laws, self.eps, self.violating = laws, [Fraction(e) for e in eps], violating
        self.backend = resolve_backend(backend)  # fixed now: the values are computed lazily
        self.top = len(self.eps)
        self._tables: list[Tables] | None = None
        self._values: dict[tuple[bool, int], ExactValue] = {}
        self._common = (1, 1, 0)

    def value(self, forward: bool, r: int) -> ExactValue:
        """`δ_dir(ε_r)`; the tables are built on the first call, each value read out on its own
        (a row reads one direction unless the two enclosures overlap)."""
        if not 1 <= r <= self.top:
            raise ParameterError("r", r, f"1 <= r <= {self.top}")
        if self._tables is None:
            self._tables = self._compute()
        key = (forward, r)
        found = self._values.get(key)
        if found is None:
            table = self._tables[0 if forward else 1][r]()
            found = self._values[key] = ExactValue(tuple(sorted(table.items())), *self._common)
        return found

    def forget(self) -> None:
        """Drop the sums and every value read (a later `value` computes them again): for a
        caller that has written the values out and keeps the rows."""
        self._tables = None
        self._values.clear()

    def release(self) -> None:
        """Drop the sums behind the values (values read so far stay; a later `value` of an
        unread one computes the tables again)."""
        self._tables = None

    def _sides(self) -> tuple[int, int, tuple[_Side, _Side]]:
        """`N`, `D` and both databases' factor tables (see the module docstring)."""
        values = [factor_value(fid) for pair in self.laws for law in pair
                  for fid in law.values() if fid is not None]
        N = math.lcm(*(e.denominator for e in self.eps),
                     *(x.denominator for v in values for x in v.terms))
        D = math.lcm(1, *(c.denominator for v in values for c in v.terms.values()))
        return N, D, (_Side([p[0] for p in self.laws], N, D),
                      _Side([p[1] for p in self.laws], N, D))

    def event(self, forward: bool, r: int) -> tuple[ExpPoly, ExpPoly, int, list[Signature]]:
        """The event of row `r` in one direction, exactly: `(P(S), Q(S), |S|)` summed over the
        answer sequences whose signature violates at `ε_r` (`P` under the direction's first
        database), so that `δ_dir(ε_r) = P(S) - e^{ε_r}·Q(S)`, and its signatures in order.
        Computed on its own (for the one refuted row a counterexample shows), `ExpPoly` sums."""
        if not 1 <= r <= self.top:
            raise ParameterError("r", r, f"1 <= r <= {self.top}")
        N, D, sides = self._sides()
        x_side, y_side = sides if forward else sides[::-1]
        p, q, size = ExpPoly(), ExpPoly(), 0
        sigs: list[Signature] = []
        for t, sig, n in self.violating[0 if forward else 1]:
            if t < r:
                continue
            size += n
            sigs.append(sig)
            for side, is_p in ((x_side, True), (y_side, False)):
                if not _possible(side, sig):
                    continue
                poly, shift, weight = side.product(sig)
                den = D**weight
                term = ExpPoly({Fraction(e + shift, N): Fraction(c * n, den)
                                for e, c in poly.items()})
                if is_p:
                    p = p + term
                else:
                    q = q + term
        return p, q, size, sigs

    def _compute(self) -> list[Tables]:
        N, D, sides = self._sides()
        sigs = [sig for d in self.violating for _, sig, _ in d]
        # twice the largest number of answers: the flint path splits a signature's weight
        # into two parts, each at most that (the value is the same at any common denominator)
        most = 2 * max([0, *(sum(sig) for sig in sigs)])
        smin = min([0, *sides[0].shift, *sides[1].shift])  # shift(sig) >= smin·weight(sig)
        ks = [e * N for e in (Fraction(0), *self.eps)]  # e^{ε_r} = x^k
        if any(k.denominator != 1 for k in ks):
            raise ParameterError("N", N, "a common denominator of the claimed eps")
        run = _flint_direction if self.backend == "flint" else _pure_direction
        self._common = (N, D, most)
        out: list[Tables] = []
        for forward, found in zip((True, False), self.violating, strict=True):
            x_side, y_side = sides if forward else sides[::-1]
            out.append(run(x_side, y_side, found, [int(k) for k in ks], D, most, smin))
        return out


def _possible(side: _Side, sig: Signature) -> bool:
    """`P(sig) > 0` under `side`'s database (no answer its law cannot give)."""
    return not any(n and side.impossible[col] for col, n in enumerate(sig))


# per r: a thunk giving exponent (of x = e^{1/N}) -> coefficient over D^most
Tables = list[Callable[[], dict[int, int]]]


def _pure_direction(x_side: _Side, y_side: _Side, found: list[Violating], ks: list[int],
                    D: int, most: int, smin: int) -> Tables:
    """Per signature: its probability under both databases, an integer table; cumulative sums
    `Σ P` and `Σ Q` over the signatures violating at `r` or more; `Σ P - x^{k_r}·Σ Q`."""
    p_acc: dict[int, int] = {}
    q_acc: dict[int, int] = {}
    out: list[dict[int, int]] = [{} for _ in ks]
    i = 0
    for r in range(len(ks) - 1, 0, -1):
        while i < len(found) and found[i][0] >= r:
            _, sig, n = found[i]
            if _possible(x_side, sig):  # a merged output's sequence may be impossible here
                add_into(p_acc, _scaled(x_side.product(sig), n, D, most))
            if _possible(y_side, sig):
                add_into(q_acc, _scaled(y_side.product(sig), n, D, most))
            i += 1
        total = dict(p_acc)
        add_into(total, {e + ks[r]: -c for e, c in q_acc.items()})
        out[r] = total
    return [lambda t=t: t for t in out]  # type: ignore[misc]


def _scaled(product: tuple[dict[int, int], int, int], mult: int, D: int,
            most: int) -> dict[int, int]:
    poly, shift, weight = product
    scale = mult * D ** (most - weight)
    return {e + shift: c * scale for e, c in poly.items()}


def _flint_direction(x_side: _Side, y_side: _Side, found: list[Violating], ks: list[int],
                     D: int, most: int, smin: int) -> Tables:
    """The same tables with python-flint's sparse polynomials (`fmpz_mpoly` in `x`, every
    exponent lifted by `-smin·most` so that none is negative), grouped: the signatures that
    violate from the same `r` and agree off one column `j` share one product of the other
    columns' powers, times `Σ mult·F_j^{n_j}` (a linear combination of `F_j`'s powers). `j`
    is the column that leaves the fewest groups (for the single-leaf family about 130 instead
    of about 2,000 products per direction)."""
    ctx = flint_context()
    if ctx is None:
        raise MissingExtra("fast", "the flint integer-polynomial backend (python-flint)")
    C = most // 2  # every signature has at most C answers
    width = len(x_side.base)

    def groups(col: int) -> int:
        return len({(t, sig[:col] + sig[col + 1:]) for t, sig, _ in found})

    j = min(range(width), key=groups)

    class Side:
        def __init__(self, side: _Side) -> None:
            self.side = side
            self.base: list[Any] = [
                None if b is None else ctx.from_dict({(e,): c for e, c in b.items()})
                for b in side.base]
            self.inner: dict[int, Any] = {}
            self.prefixes: dict[Signature, Any] = {}

        def term(self, n: int) -> Any:
            """`F_j^n · x^{n·s_j - smin·C} · D^{C - n}` (a guard's answer: `F_j = 1`,
            weight 0), None when the database cannot give it."""
            if n in self.inner:
                return self.inner[n]
            side = self.side
            out: Any
            if n and side.impossible[j]:
                out = None
            elif n and side.noisy[j]:
                out = self.base[j] ** n * ctx.from_dict(
                    {(n * side.shift[j] - smin * C,): D ** (C - n)})
            else:
                out = ctx.from_dict({(-smin * C,): D**C})
            self.inner[n] = out
            return out

        def prefix(self, rest: Signature) -> Any:
            """The other columns: `Π F^n · x^{-smin·(most - C) + Σ n·s} · D^{most - C - w}`."""
            if rest in self.prefixes:
                return self.prefixes[rest]
            side = self.side
            poly: Any = None
            shift = weight = 0
            for col, n in enumerate(rest):
                if not n:
                    continue
                if side.impossible[col]:
                    self.prefixes[rest] = None
                    return None
                if side.noisy[col]:
                    p = self.base[col] ** n
                    poly = p if poly is None else poly * p
                    shift += n * side.shift[col]
                    weight += n
            mono = ctx.from_dict({(shift - smin * (most - C),): D ** (most - C - weight)})
            out = mono if poly is None else poly * mono
            self.prefixes[rest] = out
            return out

        def bucket(self, items: list[tuple[Signature, int]]) -> Any:
            by_rest: dict[Signature, list[Any]] = {}
            for sig, m in items:
                rest = (*sig[:j], 0, *sig[j + 1:])
                t = self.term(sig[j])
                if t is None or self.prefix(rest) is None:
                    continue
                by_rest.setdefault(rest, []).append(t * m)
            parts = [self.prefix(rest) * tree_sum(ts) for rest, ts in by_rest.items()]
            return tree_sum(parts) if parts else None

    xs, ys = Side(x_side), Side(y_side)
    p_acc = ctx.constant(0)
    q_acc = ctx.constant(0)
    lift = -smin * most
    out: Tables = [dict for _ in ks]
    i = 0
    for r in range(len(ks) - 1, 0, -1):
        items: list[tuple[Signature, int]] = []
        while i < len(found) and found[i][0] >= r:
            items.append((found[i][1], found[i][2]))
            i += 1
        if items:
            p_new, q_new = xs.bucket(items), ys.bucket(items)
            if p_new is not None:
                p_acc += p_new
            if q_new is not None:
                q_acc += q_new
        out[r] = _reader(p_acc, q_acc, ctx.from_dict({(ks[r],): 1}), lift)
    return out


def _reader(p_acc: Any, q_acc: Any, shift: Any, lift: int) -> Callable[[], dict[int, int]]:
    def read() -> dict[int, int]:
        total = p_acc - q_acc * shift
        return {int(e[0]) - lift: int(c) for e, c in total.to_dict().items()}
    return read
