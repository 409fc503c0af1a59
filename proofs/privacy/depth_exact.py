"""Exact `δ(rλ)` of depth rows as integer tables, and their text (issue 13, Part 1).

A row of `betweencut.proofs.privacy.depth.profile_rows` has the exact value

    δ_dir(rλ) = Σ_{violating signatures} mult · (P(sig) - e^{rλ}·Q(sig))

in each direction (`P`, `Q` the signature's probabilities under the two databases), and the
row's `δ` is the larger direction. Every factor value (an answer's exact probability,
`betweencut.proofs.privacy.enumerate.factor_value`) is `Σ c·e^{x}` with rational `c`, `x`.
With `N` the common denominator of every exponent of both databases and of `λ`, and `D` that
of every coefficient, a factor is `x^s · F(x) / D` with `x = e^{1/N}`, `F` an integer polynomial
and `s` an integer shift, and a signature's probability is a product of powers of these over
`D^weight`. All sums of one pair are kept at the one denominator `D^most` (`most` the largest
weight), so `δ_dir(rλ)·D^most` is an integer polynomial in `x` (times a known power of `x`), and
the whole computation is integer multiplication and addition: no `Fraction` is built per term.

Backends, same integers: `flint.fmpz_mpoly` (python-flint, the `fast` extra; sparse polynomials
in C: the polynomials here have a few hundred terms spread over degrees up to ~10^4, so a dense
`fmpz_poly` is measured slower than even the pure path, see `bench/depth_exact.py`) when it is
importable, else pure Python dicts. `set_backend` chooses; the tests compare the two exactly.

Text grammar (`ExactValue.text`, read exactly by `sympy.sympify`):

    value    := "0" | numer | "(" numer ")/" denom
    numer    := ["-"] term (" + " term | " - " term)*
    term     := int | int "*exp(" expo ")" | "exp(" expo ")"
    expo     := ["-"] int ["/" int]          (a reduced fraction)
    denom    := int | int "**" int           (a power of D, or its value when not one)

`int` is a decimal natural number; terms are in increasing order of exponent; numerator and
denominator have no common factor. Example: `(1 - exp(-1/2))/4` is `(1 - e^{-1/2})/4`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from betweencut.errors import ParameterError
from betweencut.proofs.exact.arith import ExpPoly
from betweencut.proofs.laws.bt_laws import OUTCOMES
from betweencut.proofs.privacy.depth_paths import Signature
from betweencut.proofs.privacy.enumerate import factor_value

__all__ = ["BACKENDS", "ExactTables", "ExactValue", "backend", "flint_available", "set_backend"]

BACKENDS = ("flint", "pure")
Violating = tuple[int, Signature, int]  # (largest violating r, signature, multiplicity)


def flint_available() -> bool:
    """True when python-flint's sparse integer polynomials (`fmpz_mpoly`) can be used."""
    return _flint_context() is not None


def _flint_context() -> Any:
    try:
        import flint
    except ImportError:
        return None
    ctx_type = getattr(flint, "fmpz_mpoly_ctx", None)
    if ctx_type is None:
        return None
    try:
        if hasattr(ctx_type, "get"):
            return ctx_type.get(("x",), "lex")
        return ctx_type.get_context(1, flint.Ordering.lex, "x")  # python-flint 0.7
    except Exception:  # an API this module does not know: the pure path is exact too
        return None


_state: dict[str, str] = {"backend": "flint" if flint_available() else "pure"}


def backend() -> str:
    """The backend in use: `flint` or `pure`."""
    return _state["backend"]


def set_backend(name: str) -> str:
    """Choose the backend (`flint` needs python-flint, the `fast` extra); returns the previous.

    Raises: `ParameterError` for an unknown name or `flint` when it is not importable.
    """
    if name not in BACKENDS:
        raise ParameterError("backend", name, "flint or pure")
    if name == "flint" and not flint_available():
        raise ParameterError("backend", name, "pure (python-flint is not importable)",
                             "pip install 'betweencut[fast]'")
    previous = _state["backend"]
    _state["backend"] = name
    return previous


# -- the pure backend: dicts exponent -> integer coefficient (no zero coefficients) ------------

def _mul(a: dict[int, int], b: dict[int, int]) -> dict[int, int]:
    if len(a) < len(b):
        a, b = b, a
    if len(b) == 1:
        (f, d), = b.items()
        return {e + f: c * d for e, c in a.items()}
    out: dict[int, int] = {}
    for f, d in b.items():
        for e, c in a.items():
            out[e + f] = out.get(e + f, 0) + c * d
    return {e: c for e, c in out.items() if c}


def _add(acc: dict[int, int], b: dict[int, int]) -> None:
    for e, c in b.items():
        s = acc.get(e, 0) + c
        if s:
            acc[e] = s
        else:
            acc.pop(e, None)


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
            c //= g
            k = math.gcd(e, self.N)
            expo = str(e // k) if k == self.N else f"{e // k}/{self.N // k}"
            mag = abs(c)
            body = str(mag) if e == 0 else (f"exp({expo})" if mag == 1 else f"{mag}*exp({expo})")
            if not parts:
                parts.append(("-" if c < 0 else "") + body)
            else:
                parts.append((" - " if c < 0 else " + ") + body)
        numer = "".join(parts)
        if den == 1:
            return numer
        return f"({numer})/{_power_text(den, self.D)}"

    def __str__(self) -> str:
        return self.text()


def _power_text(den: int, base: int) -> str:
    if base > 1:
        k, p = 0, 1
        while p < den:
            p, k = p * base, k + 1
        if p == den and k > 1:
            return f"{base}**{k}"
    return str(den)


class _Side:
    """The factor values of one database as integer polynomials: column `i` (segment `k`,
    outcome) is `x^{shift[i]}·base[i](x) / D` (`None`: probability 1, a guard's answer, or
    impossible: then no signature with it is summed here)."""

    def __init__(self, laws: Sequence[dict[Any, int | None]], N: int, D: int) -> None:
        self.base: list[dict[int, int] | None] = []
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
            found = base if n == 1 else _mul(self.power(col, n - 1), base)
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
                    poly = _mul(poly, self.power(col, n))
                    shift += n * self.shift[col]
                    weight += n
            found = self.products[sig] = (poly, shift, weight)
        return found


class ExactTables:
    """The exact `δ_dir(rλ)` of one grouped pair, both directions, every `r = 1..top`.

    `violating[dir]` lists `(t, sig, mult)` with `t` the largest `r` at which the signature
    violates (`P > e^{rλ}Q`) in that direction, in non-increasing `t` (as `profile_rows`
    decides them); `possible[dir](sig)` says whether `Q(sig) > 0`. Everything is computed on
    the first `value` call, in one pass per direction (violating sets grow as `r` falls).
    """

    def __init__(self, laws: Sequence[tuple[dict[Any, int | None], dict[Any, int | None]]],
                 lam: Fraction, top: int,
                 violating: tuple[list[Violating], list[Violating]]) -> None:
        self.laws, self.lam, self.top, self.violating = laws, lam, top, violating
        self._values: list[list[ExactValue]] | None = None

    def value(self, forward: bool, r: int) -> ExactValue:
        if not 1 <= r <= self.top:
            raise ParameterError("r", r, f"1 <= r <= {self.top}")
        if self._values is None:
            self._values = self._compute()
        return self._values[0 if forward else 1][r]

    def _compute(self) -> list[list[ExactValue]]:
        values = [factor_value(fid) for pair in self.laws for law in pair
                  for fid in law.values() if fid is not None]
        N = math.lcm(self.lam.denominator, *(x.denominator for v in values for x in v.terms))
        D = math.lcm(1, *(c.denominator for v in values for c in v.terms.values()))
        sides = (_Side([p[0] for p in self.laws], N, D), _Side([p[1] for p in self.laws], N, D))
        sigs = [sig for d in self.violating for _, sig, _ in d]
        most = max([0, *(sum(sig) for sig in sigs)])
        smin = min([0, *sides[0].shift, *sides[1].shift])  # shift(sig) >= smin·weight(sig)
        ks = [r * self.lam * N for r in range(self.top + 1)]  # e^{rλ} = x^k
        if any(k.denominator != 1 for k in ks):
            raise ParameterError("N", N, "a common denominator of r*lambda")
        run = _flint_direction if backend() == "flint" else _pure_direction
        out: list[list[ExactValue]] = []
        for forward, found in zip((True, False), self.violating, strict=True):
            x_side, y_side = sides if forward else sides[::-1]
            for _, sig, _ in found:
                if not _possible(x_side, sig):
                    raise ParameterError("signature", sig, "possible under the first database "
                                         "of its direction (it violates there)")
            tables = run(x_side, y_side, found, [int(k) for k in ks], D, most, smin)
            out.append([ExactValue(tuple(sorted(t.items())), N, D, most) for t in tables])
        return out


def _possible(side: _Side, sig: Signature) -> bool:
    """`P(sig) > 0` under `side`'s database (no answer its law cannot give)."""
    return not any(n and side.impossible[col] for col, n in enumerate(sig))


Tables = list[dict[int, int]]  # per r: exponent (of x = e^{1/N}) -> coefficient over D^most


def _pure_direction(x_side: _Side, y_side: _Side, found: list[Violating], ks: list[int],
                    D: int, most: int, smin: int) -> Tables:
    """Per signature: its probability under both databases, an integer table; cumulative sums
    `Σ P` and `Σ Q` over the signatures violating at `r` or more; `Σ P - x^{k_r}·Σ Q`."""
    p_acc: dict[int, int] = {}
    q_acc: dict[int, int] = {}
    out: Tables = [{} for _ in ks]
    i = 0
    for r in range(len(ks) - 1, 0, -1):
        while i < len(found) and found[i][0] >= r:
            _, sig, n = found[i]
            _add(p_acc, _scaled(x_side.product(sig), n, D, most))
            if _possible(y_side, sig):
                _add(q_acc, _scaled(y_side.product(sig), n, D, most))
            i += 1
        total = dict(p_acc)
        _add(total, {e + ks[r]: -c for e, c in q_acc.items()})
        out[r] = total
    return out


def _scaled(product: tuple[dict[int, int], int, int], mult: int, D: int,
            most: int) -> dict[int, int]:
    poly, shift, weight = product
    scale = mult * D ** (most - weight)
    return {e + shift: c * scale for e, c in poly.items()}


def _flint_direction(x_side: _Side, y_side: _Side, found: list[Violating], ks: list[int],
                     D: int, most: int, smin: int) -> Tables:
    """The same tables, the same steps, with python-flint's sparse polynomials (`fmpz_mpoly`
    in `x`, exponents shifted by `-smin·most` so that none is negative): powers, products and
    sums in C, one Python call per operation."""
    ctx = _flint_context()
    lift = -smin * most  # shift(sig) >= smin·weight >= smin·most

    class Side:
        def __init__(self, side: _Side) -> None:
            self.side = side
            self.base: list[Any] = [
                None if b is None else ctx.from_dict({(e,): c for e, c in b.items()})
                for b in side.base]
            self.powers: dict[tuple[int, int], Any] = {}
            self.products: dict[Signature, Any] = {}

        def product(self, sig: Signature) -> Any:
            """`x^{shift + lift}·poly·D^{most - weight}`: `P(sig)` over `D^most`, lifted."""
            found = self.products.get(sig)
            if found is None:
                shift = weight = 0
                poly: Any = None
                for col, n in enumerate(sig):
                    if n and self.side.noisy[col]:
                        p = self.powers.get((col, n))
                        if p is None:
                            p = self.powers[(col, n)] = self.base[col] ** n
                        poly = p if poly is None else poly * p
                        shift += n * self.side.shift[col]
                        weight += n
                mono = ctx.from_dict({(shift + lift,): D ** (most - weight)})
                found = self.products[sig] = mono if poly is None else poly * mono
            return found

    xs, ys = Side(x_side), Side(y_side)
    p_acc = ctx.constant(0)
    q_acc = ctx.constant(0)
    out: Tables = [{} for _ in ks]
    i = 0
    for r in range(len(ks) - 1, 0, -1):
        while i < len(found) and found[i][0] >= r:
            _, sig, n = found[i]
            p_acc += xs.product(sig) * n
            if _possible(y_side, sig):
                q_acc += ys.product(sig) * n
            i += 1
        total = p_acc - q_acc * ctx.from_dict({(ks[r],): 1})
        out[r] = {int(e[0]) - lift: int(c) for e, c in total.to_dict().items()}
    return out
