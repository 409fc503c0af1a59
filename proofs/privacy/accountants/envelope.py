"""A dominating pair for the whole GuardedBT family, composed L times with a pessimistic PLD.

Claim (used by the `tight` accountant; docs/explanation/accountant.md, section 5): for
rational `0 < λ <= 1`, `R >= 1`, every `τ` and every count `c`, the pair `(P, Q)` built here
dominates both `(GuardedBT(c), GuardedBT(c+1))` and `(GuardedBT(c+1), GuardedBT(c))`:
`H_α(A‖B) <= H_α(P‖Q)` for every `α >= 0`. Hence (adaptive composition of dominating pairs,
Zhu–Dong–Wang 2022, and the reduction of `accountant`) `δ(ε) <= H_{e^ε}(P^L‖Q^L)`, and
`envelope_delta_upper` returns a certified rational UPPER bound on the latter.

Construction, each step sound on its own:

1. **Both-randomized pairs.** With `y = λ·(c − a)` (any real: `τ` is any rational) the laws of
   BT at `y` and `y + λ` are standard-Laplace tails; on each of the five intervals cut at
   `y ∈ {−λ, 0, 2 − λ, 2}` every probability is `C + A·e^y + B·e^{−y}` with `ExpPoly`
   coefficients. For `α >= 1`, `H_α = max` over the sums of the terms that can be positive
   (`L` and `B` in the order `(y, y+λ)`; `B` and `H` in the order `(y+λ, y)`: the others are
   `<= 0` because the tails are monotone), and the supremum of `C + A·x + B/x` over an interval
   of `x = e^y` is attained at an end or at `x* = sqrt(B/A)` (value `C − 2·sqrt(AB)`) when
   `A, B < 0` and `x*` is inside (decided exactly). So `F(a) >= sup_y H_{e^a}` is a certified
   rational, and it does not depend on `R` (the guards only shrink the set of `y`).
2. **Guarded pairs.** One guard crossed: `H_α = κ <= δ0` for `α >= 1` (Lemma 5.3, Eq. (105));
   both guarded: identical laws, `H_α = 0`. For `α >= e^λ` both-randomized pairs give 0.
   So the family's envelope `f(α) <= max(δ0, F(ln α))` on `[1, ∞)` and `f <= δ0` beyond `e^λ`.
3. **A convex upper bound.** At `α_i = e^{iλ/m}`, `i = 0..m`, take `G_i = max(δ0, F(iλ/m))`
   (`G_m` the value at infinity, `g_∞`). A piecewise-linear `g` whose pieces join points
   `(α_j, G_j)` lies above `f` on `[1, e^λ]` because `f` is convex (a supremum of convex
   hockey-stick curves) and `G >= f` at the joints. The joints are chosen by a (float) lower
   convex hull, then convexity is CHECKED (`ν_j >= 0` by certified rational enclosures).
4. **A realisable symmetric pair.** `g(α) = g_∞ + Σ_j ν_j·(α_j − α)_+` on `α >= 1` is the
   hockey-stick of the pair with outcomes: `+∞` (`P = g_∞`, `Q = 0`), `+a_j` (`P = ν_j α_j`,
   `Q = ν_j`), `−a_j` (`P = ν_j`, `Q = ν_j α_j`), neutral (`P = Q = n`), `−∞` (`P = 0`,
   `Q = g_∞`), with `n = 1 − g_∞ − Σ_j ν_j(α_j + 1) >= 0` CHECKED (enclosures). The pair is
   symmetric, so `H_α(P‖Q) = H_α(Q‖P) = g(α) >= f(α)` on `α >= 1`, and for `α < 1`
   `H_α(A‖B) = 1 − α + α·H_{1/α}(B‖A) <= 1 − α + α·g(1/α) = H_α(P‖Q)` (the family is closed
   under swapping, step 1 bounds both orders).
5. **Pessimistic composition.** The privacy-loss distribution of `P` lives on the grid
   `kλ/m` (no loss rounding needed) plus `+∞`; masses are rounded UP to integers over `2^b`,
   the `L`-fold convolution is exact integer arithmetic with every intermediate rounded UP,
   and `H_{e^ε} <= 1 − (1 − g_∞)^L + Σ_{s_k > ε} p_k·(1 − lower(e^{ε − s_k}))`. Everything is
   non-negative, so each rounding only raises the result.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from betweencut.data.validate import positive_rational
from betweencut.errors import ParameterError, Undecided
from betweencut.proofs.exact.arith import ExpPoly, sign
from betweencut.proofs.exact.packed import mul_round_up

__all__ = ["EnvelopePair", "bt_envelope_upper", "envelope_delta_upper", "envelope_pair"]

E: Final = ExpPoly.exp
PREC: Final = 96
MASS_BITS: Final = 64
GRID: Final = 40
_HALF: Final = Fraction(1, 2)

Piece = tuple[ExpPoly, ExpPoly, ExpPoly]  # C + A·x + B/x, x = e^y
End = Fraction | None  # a piece's end in y; None is infinite


def _p(c: ExpPoly | Fraction | int = 0, a: ExpPoly | Fraction | int = 0,
       b: ExpPoly | Fraction | int = 0) -> Piece:
    def q(v: ExpPoly | Fraction | int) -> ExpPoly:
        return v if isinstance(v, ExpPoly) else ExpPoly.const(Fraction(v))
    return q(c), q(a), q(b)


def _lin(*terms: tuple[ExpPoly | Fraction | int, Piece]) -> Piece:
    """`Σ k·piece`, coefficient-wise."""
    out = _p()
    for k, (c, a, b) in terms:
        out = (out[0] + c * k, out[1] + a * k, out[2] + b * k)
    return out


def _laws(lam: Fraction, mid: Fraction) -> dict[str, Piece]:
    """`ℓ, m, h` at `y` (`0`) and `y + λ` (`1`) on the piece containing `mid` (standard Laplace:
    `ℓ(y) = P(Z < −y)`, `h(y) = P(Z > 2 − y)`, `m = 1 − ℓ − h`)."""
    l0 = _p(0, 0, _HALF) if mid >= 0 else _p(1, -_HALF, 0)
    l1 = _p(0, 0, E(-lam, _HALF)) if mid >= -lam else _p(1, E(lam, -_HALF), 0)
    h0 = _p(0, E(-2, _HALF), 0) if mid <= 2 else _p(1, 0, E(2, -_HALF))
    h1 = _p(0, E(lam - 2, _HALF), 0) if mid <= 2 - lam else _p(1, 0, E(2 - lam, -_HALF))
    one = _p(1)
    m0 = _lin((1, one), (-1, l0), (-1, h0))
    m1 = _lin((1, one), (-1, l1), (-1, h1))
    return {"l0": l0, "l1": l1, "m0": m0, "m1": m1, "h0": h0, "h1": h1}


def _upper(x: ExpPoly) -> Fraction:
    return x.enclose(PREC)[1]


def _sqrt_lower(q: Fraction) -> Fraction:
    """A rational `<= sqrt(q)` for rational `q >= 0` (integer square root, 2^-80 resolution)."""
    if q <= 0:
        return Fraction(0)
    scale = 1 << 160
    return Fraction(math.isqrt(math.floor(q * scale)), 1 << 80)


def _sup_piece(piece: Piece, lo: Fraction | None, hi: Fraction | None) -> Fraction | None:
    """A certified rational `>= sup` of `C + A·e^y + B·e^{−y}` over `y ∈ [lo, hi]` (None ends
    are infinite); None if the function tends to −∞ at both ends with no interior maximum
    (cannot happen for differences of probabilities, which are bounded)."""
    C, A, B = piece
    sa, sb = sign(A), sign(B)
    found: list[Fraction] = []
    for end, s_inf in ((lo, sb), (hi, sa)):
        if end is None:
            if s_inf > 0:
                raise Undecided("an unbounded piece: the piece formulas are wrong")
            if s_inf == 0:
                found.append(_upper(C))  # the limit C at this infinite end
        else:
            found.append(_upper(C + A * E(end) + B * E(-end)))
    if sa < 0 and sb < 0:
        inside_lo = lo is None or sign(B - A * E(2 * lo)) < 0
        inside_hi = hi is None or sign(B - A * E(2 * hi)) > 0
        if inside_lo and inside_hi:
            ab_lo, _ = (A * B).enclose(PREC)
            found.append(_upper(C) - 2 * _sqrt_lower(ab_lo))
    return max(found) if found else None


def _pieces(lam: Fraction) -> list[tuple[Fraction | None, Fraction | None, Fraction]]:
    cuts: list[Fraction | None] = [None, -lam, Fraction(0), 2 - lam, Fraction(2), None]
    out = []
    for lo, hi in itertools.pairwise(cuts):
        if lo is None and hi is not None:
            mid = hi - 1
        elif hi is None and lo is not None:
            mid = lo + 1
        elif lo is not None and hi is not None:
            mid = (lo + hi) / 2
        out.append((lo, hi, mid))
    return out


@functools.lru_cache(maxsize=64)
def _terms(lam: Fraction) -> list[tuple[End, End, list[tuple[Piece, Piece]]]]:
    """Per piece, the `(X, Y)` of the six candidate sums `X − α·Y` (step 1): `ℓ`, `m`, `ℓ + m`
    in the order `(y, y+λ)` and `m`, `h`, `m + h` in the order `(y+λ, y)`."""
    out = []
    for lo, hi, mid in _pieces(lam):
        w = _laws(lam, mid)
        pairs = [(w["l0"], w["l1"]), (w["m0"], w["m1"]),
                 (_lin((1, w["l0"]), (1, w["m0"])), _lin((1, w["l1"]), (1, w["m1"]))),
                 (w["m1"], w["m0"]), (w["h1"], w["h0"]),
                 (_lin((1, w["m1"]), (1, w["h1"])), _lin((1, w["m0"]), (1, w["h0"])))]
        out.append((lo, hi, pairs))
    return out


@functools.lru_cache(maxsize=8192)
def bt_envelope_upper(lam: Fraction, a: Fraction) -> Fraction:
    """`F(a) >= sup_{y ∈ ℝ} max(H_{e^a}(BT_y‖BT_{y+λ}), H_{e^a}(BT_{y+λ}‖BT_y))`, `0 <= a`,
    certified rational (step 1 of the module docstring)."""
    if not 0 < lam <= 1 or a < 0:
        raise ParameterError("lam, a", (lam, a), "0 < lambda <= 1 and a >= 0")
    alpha = E(a)
    best = Fraction(0)
    for lo, hi, pairs in _terms(lam):
        for x, y in pairs:
            s = _sup_piece(_lin((1, x), (-alpha, y)), lo, hi)
            if s is not None and s > best:
                best = s
    return best


Box = tuple[Fraction, Fraction]  # a certified enclosure lo <= x <= hi


def _box_sub(x: Box, y: Box) -> Box:
    return x[0] - y[1], x[1] - y[0]


def _box_div_pos(num: Fraction, den: Box) -> Box:
    """`num / den` for an exact rational `num` and an enclosure `den` with `den_lo > 0`."""
    if den[0] <= 0:
        raise Undecided("a slope denominator is not certified positive")
    q = (num / den[0], num / den[1])
    return min(q), max(q)


@dataclass(frozen=True)
class EnvelopePair:
    """The symmetric dominating pair of step 4 on the loss grid `λ/m`: for each joint `j`,
    a certified enclosure of `ν_j` (whose lower end is `>= 0`: convexity), of the neutral
    mass `n` (lower end `>= 0`: realisability), and the exact `g_∞`."""

    lam: Fraction
    m: int
    g_inf: Fraction
    nu: dict[int, Box]
    alpha: dict[int, Box]
    neutral: Box

    def masses_upper(self) -> dict[int, Fraction]:
        """UPPER bounds of `P`'s finite masses by grid index `k` (loss `kλ/m`)."""
        out: dict[int, Fraction] = {0: self.neutral[1]}
        for j, (_, hi) in self.nu.items():
            out[j] = hi * self.alpha[j][1]
            out[-j] = hi
        return out


@functools.lru_cache(maxsize=64)
def envelope_pair(lam: Fraction, delta0: Fraction, m: int = GRID) -> EnvelopePair:
    """Steps 2-4: the convex upper bound `g` and its symmetric pair, every condition checked
    by certified enclosures. `delta0` a rational upper bound on `½e^{−λ(R−1)}`. Raises
    `Undecided` if convexity or `n >= 0` cannot be certified (then this accountant is unused)."""
    if not 0 < delta0 <= _HALF:
        raise ParameterError("delta0", delta0, "0 < delta0 <= 1/2")
    a = [Fraction(i) * lam / m for i in range(m + 1)]
    G = [max(delta0, bt_envelope_upper(lam, x)) for x in a]
    alpha = [ExpPoly.exp(x).enclose(PREC) for x in a]
    af = [float((lo + hi) / 2) for lo, hi in alpha]
    hull = [0]  # float lower convex hull: proposes the joints; convexity is certified below
    for i in range(1, m + 1):
        while len(hull) >= 2:
            i1, i2 = hull[-2], hull[-1]
            if float(G[i2] - G[i1]) * (af[i] - af[i1]) >= float(G[i] - G[i1]) * (af[i2] - af[i1]):
                hull.pop()
            else:
                break
        hull.append(i)
    while True:
        slopes = [_box_div_pos(G[j] - G[i], _box_sub(alpha[j], alpha[i]))
                  for i, j in itertools.pairwise(hull)] + [(Fraction(0), Fraction(0))]
        nu = {hull[k]: _box_sub(slopes[k], slopes[k - 1]) for k in range(1, len(hull))}
        bad = [j for j, v in nu.items() if v[0] < 0 and j != m]
        if not bad:
            break
        hull.remove(bad[0])  # joining its neighbours keeps every piece between points >= f
    if any(v[0] < 0 for v in nu.values()):
        raise Undecided("the envelope's upper bound is not certified convex at its last joint")
    g_inf = G[hull[-1]]  # = G[m]: g is flat (= g_inf) from e^lambda on
    spent_lo = g_inf + sum((v[0] * (alpha[j][0] + 1) for j, v in nu.items()), Fraction(0))
    spent_hi = g_inf + sum((v[1] * (alpha[j][1] + 1) for j, v in nu.items()), Fraction(0))
    neutral = (1 - spent_hi, 1 - spent_lo)
    if neutral[0] < 0:
        raise Undecided("the envelope pair's neutral mass is not certified >= 0")
    return EnvelopePair(lam, m, g_inf, {j: v for j, v in nu.items() if v[1] > 0},
                        {j: alpha[j] for j in nu}, neutral)


@functools.lru_cache(maxsize=64)
def _composed(lam: Fraction, delta0: Fraction, L: int, m: int, bits: int) -> tuple[
        tuple[int, ...], Fraction]:
    """Step 5: the `L`-fold convolution of `P`'s finite masses, rounded UP, scaled by `2^bits`
    (index `i` is loss `(i − mL)·λ/m`), and `g_∞`."""
    pair = envelope_pair(lam, delta0, m)
    base = [0] * (2 * m + 1)
    for k, hi in pair.masses_upper().items():
        base[k + m] = math.ceil(hi * (1 << bits)) if hi > 0 else 0
    result: list[int] | None = None
    power, n = base, L
    while n:
        if n & 1:
            result = power if result is None else mul_round_up(result, power, bits)
        n >>= 1
        if n:
            power = mul_round_up(power, power, bits)
    if result is None:
        raise ParameterError("L", L, "L >= 1")
    return tuple(result), pair.g_inf


def envelope_delta_upper(L: int, lam: Fraction, delta0: Fraction, eps: Fraction,
                         m: int = GRID, bits: int = MASS_BITS) -> Fraction:
    """A certified rational UPPER bound on `H_{e^ε}(P^L‖Q^L)` for the envelope pair of
    `(λ, δ0)` (module docstring, steps 1-5); `δ0` a rational upper bound on Eq. (19)'s."""
    if not isinstance(L, int) or L < 1:
        raise ParameterError("L", L, "an integer L >= 1")
    eps = positive_rational(eps, "eps", zero=True)
    coeffs, g_inf = _composed(Fraction(lam), Fraction(delta0), L, m, bits)
    step = Fraction(lam) / m
    total = 0
    scale_bits = PREC
    for i, c in enumerate(coeffs):
        s = (i - m * L) * step
        if c == 0 or s <= eps:
            continue
        e_lo = ExpPoly.exp(eps - s).enclose(scale_bits)[0]  # e^{ε - s} >= e_lo
        factor_hi = math.ceil((1 - max(e_lo, Fraction(0))) * (1 << scale_bits))
        total += c * factor_hi
    finite = Fraction(total, 1 << (bits + scale_bits))
    return 1 - (1 - g_inf) ** L + finite
