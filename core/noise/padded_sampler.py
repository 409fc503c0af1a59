"""One GuardedBT draw whose work does not depend on the private count (issues 18 and 25).

The unpadded sampler (`betweencut.noise.bt_sampler.bt_outcome`) asks for Bernoulli(exp(-λ·t)) with
`t` the distance from the count to a threshold: its loops run about `λ·|a - c|` times, so its time
and the random bits it reads depend on the private count `c`. Here every draw of one GuardedBT
query reads the same random bits, in the same calls, and runs the same lines for every count in
its public noisy band `floor(a - R) < c < ceil(b + R)`: all of it is a function of the random
stream and of public values (`a`, `b`, `λ`, the band) only; the count enters only the final
integer comparisons.

The law is exactly BT's (Alg. 4). Write `Z = S·M` with a fair sign `S` and `M ~ Exp(λ)`, and
put every distance over the public denominator `D = den(λ)·den(a)·den(b)`: for an integer
count, `λ·(a - c) = A/D` and `λ·(b - c) = B/D` with integers `A <= B`. With `Y = D·λ·M`
(`Y/D ~ Exp(1)`), BT's outcome (`c + Z < a`, `c + Z > b`) is, up to null events,

    S = +1:  L iff Y < A,    H iff Y >= B,    B otherwise;
    S = -1:  L iff Y >= -A,  H iff Y < -B,    B otherwise.

Over the band, `Y` is only compared with the public points `|A|, |B| <= T` (nonpositive ones
decide alike for every `Y >= 0`). Put `l = λ·D` (an integer) and `Y = l·V + F`, `V = floor(Y/l)`,
`0 <= F < l`. Every point is `o + l·k` with its offset `o` one of at most four public residues
mod `l`, so with `g` the largest offset `<= F` (or 0) and `V' = min(V, ceil(T/l))`, the integer
`n = l·V' + g` satisfies `n >= x` iff `Y >= x` for every point `x`: the comparisons above are
made with `n` instead of `Y`. `V` and `F` are independent (memorylessness): `P(V >= k) =
e^(-λ·k)`, `P(F >= o) = P(X >= o/D | X < λ)` for `X ~ Exp(1)`; and the base-`2^12` digits of
`V` are independent too, digit `i` with `P(d >= k) = P(X >= λ·2^(12·i)·k | X < λ·2^(12·(i+1)))`
(the top digit unconditioned, capped at a public bound past which every `V` decides alike). So
one draw is the sign and a few independent values, each from a public `Table`: a law on
`{0, ..., K}` with `P(value >= j) = θ_j`, every `θ_j = P(X >= α_j | X < β)` (`K <= 4096`; `β`
absent for the top digit).

A `Table` draws by inversion: `value = #{j : U < θ_j}` for `U` uniform on (0, 1), read as binary
digits. It holds the certified integers `floor(2^W·θ_j)` (mpmath intervals,
`betweencut.numbers.exact`) and the least width `w` at which the `floor(2^w·θ_j)` are distinct (at
least `bit_length(K) + 2`, so that at most a quarter of the cells holds a threshold). One draw reads
the first `w` digits `u` of `U`: each `θ_j` with `floor(2^w·θ_j) > u` is above `U`, each other
one below, except at most one, the `θ_j` with `floor(2^w·θ_j) = u` (it lies in `U`'s cell), which
is then settled by reading `CHUNK` more digits at a time until `U` and `θ_j` differ (beyond `W`
digits, certified on demand). `θ_j` is irrational (`e^(-α) + (θ - 1)·e^(-β) - θ = 0` has no
rational solution `θ`, by Lindemann–Weierstrass), so this stops with probability 1, exactly at
`U < θ_j` or `U > θ_j`.

What is the same for every count, given the same random stream: the random bits read (one call
of `1 + Σ w` bits for the sign and every table's first digits, then `CHUNK` bits per refinement
round: how many rounds depends on the stream and the public thresholds only), the calls and
loops (no loop runs over the count), the lines executed (`tests/core/test_core_padded_sampler.py`
checks calls and lines). What is not: Python-level timing (big integers are not constant-time in
the final products and comparisons with the count; the OS CSPRNG block pattern, caches and the
allocator follow the stream, not the count, but nothing makes them constant; see
docs/explanation/release.md).
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise

from mpmath import iv

from betweencut.errors import ParameterError
from betweencut.noise.bernoulli import Bits
from betweencut.noise.noisy_test import BTQuery, Outcome
from betweencut.numbers.exact import iv_endpoints, iv_precision, refine

#: Outcome by `1 + [high] - [low]`: low -> L, neither -> B, high -> H.
_BY_INDEX = (Outcome.L, Outcome.B, Outcome.H)
DIGIT_BITS = 12  # V is drawn in base 2^12: no table holds more than 4096 thresholds
CHUNK = 8  # digits of U read per refinement round
GUARD = 64  # a table's floors are stored this many digits past its width


def threshold_floor(alpha: Fraction, beta: Fraction | None, k: int) -> int:
    """`floor(2^k·θ)` for `θ = P(X >= α | X < β)`, `X ~ Exp(1)`, `0 < α < β` (`β = None`:
    `θ = e^(-α)`), certified: mpmath intervals of increasing precision until both ends floor
    alike (`betweencut.numbers.exact.refine`). `2^k·θ` is irrational, so that happens; past the
    package's precision cap (never reached in practice) `Undecided` is raised rather than a
    guess."""

    def floored(prec: int) -> int | None:
        with iv_precision(prec):
            value = iv.exp(-iv.mpf(alpha.numerator) / alpha.denominator)
            if beta is not None:
                tail = iv.exp(-iv.mpf(beta.numerator) / beta.denominator)
                value = (value - tail) / (1 - tail)
        lo, hi = iv_endpoints(value)
        low = (lo.numerator << k) // lo.denominator
        return low if low == (hi.numerator << k) // hi.denominator else None

    return refine(floored, lambda: f"floor(2^{k}·θ) for α = {alpha}, β = {beta}", k + 32)[0]


def _exp_bounds(x: Fraction, scale: int) -> tuple[int, int]:
    """Integers `lo <= 2^scale·e^(-x) <= hi`, from one certified mpmath interval."""
    with iv_precision(scale + 32):
        lo, hi = iv_endpoints(iv.exp(-iv.mpf(x.numerator) / x.denominator))
    return (lo.numerator << scale) // lo.denominator, -((-hi.numerator << scale) // hi.denominator)


def table_floors(alphas: tuple[Fraction, ...], beta: Fraction | None, k: int) -> list[int]:
    """`threshold_floor(α, β, k)` for every `α`. The digit tables' `α` are `s, 2·s, 3·s, ...`:
    there the `e^(-α)` are powers of one certified `e^(-s)`, taken in integers rounded down for
    the lower bound and up for the upper one, `32 + bit_length(K)` bits beyond `k`; a floor the
    two bounds leave open (or any `α` off that progression) is certified on its own."""
    step = alphas[0] if alphas else Fraction(0)
    if any(x != step * i for i, x in enumerate(alphas, start=1)) or len(alphas) < 4:
        return [threshold_floor(x, beta, k) for x in alphas]
    scale = k + len(alphas).bit_length() + 32  # each product loses at most one unit
    if beta is not None and beta < 1:  # 1 - e^(-β) ~ β: its leading zeros are lost in θ
        scale += beta.denominator.bit_length() - beta.numerator.bit_length() + 2
    one = 1 << scale
    base_lo, base_hi = _exp_bounds(step, scale)
    tail_lo, tail_hi = _exp_bounds(beta, scale) if beta is not None else (0, 0)
    out = []
    lo, hi = one, one
    for alpha in alphas:
        lo, hi = (lo * base_lo) >> scale, -((-hi * base_hi) >> scale)
        # θ = (e - t)/(1 - t) grows with e and falls with t
        if one - tail_hi <= 0:  # 1 - e^(-β) not separated from 0 at this scale
            out.append(threshold_floor(alpha, beta, k))
            continue
        low = ((lo - tail_hi) << k) // (one - tail_hi)
        high = ((hi - tail_lo) << k) // (one - tail_lo)
        out.append(low if low == high else threshold_floor(alpha, beta, k))
    return out


@dataclass(frozen=True, slots=True)
class Table:
    """A law on `{0, ..., K}` with `P(value >= j) = θ_j = P(X >= α_j | X < β)`, `X ~ Exp(1)`,
    `α_1 < ... < α_K` (so `θ_j` decreases), drawn by inversion (see the module docstring).

    All public: `floors[j - 1] = floor(2^precision·θ_j)`, certified, strictly decreasing;
    `cells[j - 1] = -floor(2^width·θ_j)`, strictly increasing (for `bisect`); `u` is a draw's
    `word & mask`."""

    alphas: tuple[Fraction, ...]
    beta: Fraction | None
    width: int
    precision: int
    floors: tuple[int, ...]
    cells: tuple[int, ...]
    mask: int  # 2^width - 1

    @staticmethod
    def of(alphas: tuple[Fraction, ...], beta: Fraction | None) -> Table:
        if any(x <= 0 or (beta is not None and x >= beta) for x in alphas) or any(
                x >= y for x, y in pairwise(alphas)):
            raise ParameterError("alphas", alphas, "increasing, in (0, beta)")
        least = len(alphas).bit_length() + 2 if alphas else 0
        precision = 2 * GUARD  # wide enough for the widths met in practice: one pass
        while True:
            floors = tuple(table_floors(alphas, beta, precision))
            if any(f <= g for f, g in pairwise(floors)):
                precision *= 2  # two thresholds share their first `precision` digits
                continue
            # floor(2^w·θ) = floors >> (precision - w): two differ iff their top differing bit
            # survives the shift
            shift = min(((f ^ g).bit_length() - 1 for f, g in pairwise(floors)),
                        default=precision)
            width = max(least, precision - shift)
            if precision >= width + GUARD:
                cells = tuple(-(f >> (precision - width)) for f in floors)
                return Table(alphas, beta, width, precision, floors, cells, (1 << width) - 1)
            precision = width + GUARD

    def floor_at(self, j: int, k: int) -> int:
        """`floor(2^k·θ_(j+1))`, from the stored floors up to `precision`, else certified anew."""
        if k <= self.precision:
            return self.floors[j] >> (self.precision - k)
        return threshold_floor(self.alphas[j], self.beta, k)

    def value(self, u: int, bits: Bits) -> int:
        """`#{j : U < θ_j}` for `U` whose first `width` binary digits are `u`."""
        j = bisect_left(self.cells, -u)  # floor(2^w·θ_i) > u for the first j thresholds
        if j < len(self.cells) and self.cells[j] == -u:
            j += _below(self, j, u, bits)
        return j


def _below(table: Table, j: int, u: int, bits: Bits) -> bool:
    """`U < θ_(j+1)`, given that `U`'s first `width` digits `u` are those of `θ_(j+1)`: read more
    digits of `U` until they differ from `θ_(j+1)`'s (True with probability
    `2^width·θ_(j+1) - u`)."""
    v, k = u, table.width
    while True:
        v = (v << CHUNK) | bits(CHUNK)
        k += CHUNK
        f = table.floor_at(j, k)
        if v != f:
            return v < f


@dataclass(frozen=True, slots=True)
class Padding:
    """The public plan of one padded query BT(c; a, b, λ) on the band `lower < c < upper`: `D`,
    the scaled thresholds `a·λ·D`, `b·λ·D` and step `l = λ·D` (integers), and the tables drawn,
    each with what its value adds to `n`: `F`'s table (the offset `g_j` of the points mod `l`),
    then `V'`'s base-`2^DIGIT_BITS` digits, low to high (`l·2^(12·i)·k` for value `k` of digit
    `i`); a table with no threshold always draws 0 and is left out. `word_bits` is the size of a
    draw's first call: the sign and every table's first digits. All public: the same for every
    count in the band."""

    band: tuple[int, int]
    den: int
    a_scaled: int
    b_scaled: int
    lam_scaled: int
    tables: tuple[tuple[Table, tuple[int, ...]], ...]
    word_bits: int

    @staticmethod
    def of(a: Fraction, b: Fraction, lam: Fraction, band: tuple[int, int]) -> Padding:
        """The plan for BT(c; a, b, λ) with `c` an integer in `lower < c < upper` (public)."""
        lower, upper = band
        if upper - lower < 2 or a > b or lam <= 0:
            raise ParameterError("band", band, "lower < c < upper with a count in it, a <= b, "
                                 "lam > 0")
        den = lam.denominator * a.denominator * b.denominator
        step = int(lam * den)  # l = λ·D, an integer, as are a·l and b·l
        a_scaled, b_scaled = int(a * step), int(b * step)
        widest = max(abs(t - c * step) for t in (a_scaled, b_scaled)
                     for c in (lower + 1, upper - 1))  # T: largest at the band's two ends
        offsets = sorted({r % step for t in (a_scaled, b_scaled) for r in (t, -t)} | {0})
        tables = [(Table.of(tuple(Fraction(o, den) for o in offsets[1:]), lam), tuple(offsets))]
        for i, digit in enumerate(_digit_tables(lam, -(-widest // step))):
            unit = step << (DIGIT_BITS * i)
            tables.append((digit, tuple(unit * k for k in range(len(digit.alphas) + 1))))
        drawn = tuple((t, v) for t, v in tables if t.alphas)
        return Padding(band, den, a_scaled, b_scaled, step, drawn,
                       1 + sum(t.width for t, _ in drawn))


def _digit_tables(lam: Fraction, cap: int) -> tuple[Table, ...]:
    """The tables of `min(V, cap)`'s base-`2^DIGIT_BITS` digits, `P(V >= k) = e^(-λ·k)`: each
    lower digit a truncated geometric, the top one capped at `ceil(cap / unit)`."""
    size = 1 << DIGIT_BITS
    levels = max(1, -(-cap.bit_length() // DIGIT_BITS))
    tables = []
    for i in range(levels - 1):
        rate = lam * (1 << (DIGIT_BITS * i))
        tables.append(Table.of(tuple(rate * k for k in range(1, size)), rate * size))
    unit = 1 << (DIGIT_BITS * (levels - 1))
    top = lam * unit
    tables.append(Table.of(tuple(top * k for k in range(1, -(-cap // unit) + 1)), None))
    return tuple(tables)


def padded_bt_outcome(query: BTQuery, plan: Padding, bits: Bits) -> Outcome:
    """One exact draw of BT(c; a, b, λ) (Alg. 4) for an integer count in the plan's band, with
    work that depends on public values and the random stream only (see the module docstring).

    The plan must be `Padding.of(query.a, query.b, query.lam, band)`; a count that is not an
    integer inside the band is refused (GuardedBT never sends one: its guards decide them).
    """
    count = query.count
    c = count.numerator
    lower, upper = plan.band
    if count.denominator != 1 or not lower < c < upper:
        raise ParameterError("count", "a count outside the noisy band",
                             f"an integer count c with {lower} < c < {upper}")
    word = bits(plan.word_bits)  # the sign, then every table's first digits
    rest = word >> 1
    n = 0  # l·V' + g
    for table, adds in plan.tables:
        n += adds[table.value(rest & table.mask, bits)]
        rest >>= table.width
    scaled = c * plan.lam_scaled  # A = a_scaled - scaled, B = b_scaled - scaled
    if word & 1:  # S = +1: L iff n < A, H iff n >= B
        return _BY_INDEX[1 + (n >= plan.b_scaled - scaled) - (n < plan.a_scaled - scaled)]
    return _BY_INDEX[1 + (n < scaled - plan.b_scaled) - (n >= scaled - plan.a_scaled)]
