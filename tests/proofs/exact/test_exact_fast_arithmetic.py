"""The fast arithmetic of `proofs/exact/` answers to exact `Fraction` arithmetic (principle 8).

Dyadic intervals (`dyadic`), outward-rounded float boxes (`boxes`), integer polynomials with two
backends (`intpoly`) and packed products (`packed`): every operation is compared with the same
computation in exact rationals (or exact `ExpPoly`), on random inputs and on edge cases.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import betweencut.proofs.exact.boxes as boxes
import betweencut.proofs.exact.dyadic as dyadic
import betweencut.proofs.exact.intpoly as intpoly
import betweencut.proofs.exact.packed as packed
from betweencut.errors import ParameterError, Undecided
from betweencut.proofs.exact.arith import ExpPoly, sign

positive = st.fractions(min_value=F(1, 10**30), max_value=F(10**6), max_denominator=10**30)
probability = st.fractions(min_value=F(1, 10**40), max_value=F(1), max_denominator=10**40)
small_eps = st.fractions(min_value=F(0), max_value=F(5), max_denominator=50)


def _contains(box: tuple[F, F], lo: F, hi: F) -> bool:
    return box[0] <= lo and hi <= box[1]


# -- dyadic ---------------------------------------------------------------------------------------

@given(probability, probability)
def test_dyadic_encloses_and_products_round_outward(x: F, y: F) -> None:
    dx, dy = dyadic.dyadic(x, x), dyadic.dyadic(y, y)
    assert _contains(dyadic.as_fractions(dx), x, x)
    prod = dyadic.mul(dx, dy)
    assert _contains(dyadic.as_fractions(prod), x * y, x * y)
    assert prod[1].bit_length() <= dyadic.MANTISSA_BITS
    lo, hi = dyadic.absolute(prod)
    unit = F(1, 1 << dyadic.SUM_SCALE)
    assert lo * unit <= x * y <= hi * unit


@given(st.lists(probability, min_size=1, max_size=12))
def test_dyadic_powers_enclose_the_exact_product(xs: list[F]) -> None:
    out, exact = dyadic.ONE, F(1)
    for x in xs:
        out, exact = dyadic.mul(out, dyadic.dyadic(x, x)), exact * x
    assert _contains(dyadic.as_fractions(out), exact, exact)


@given(st.fractions(min_value=F(-10**9), max_value=F(10**9), max_denominator=10**20),
       st.fractions(min_value=F(0), max_value=F(10**9), max_denominator=10**20))
def test_round_out_widens_to_short_dyadics(a: F, width: F) -> None:
    lo, hi = dyadic.round_out(a, a + width)
    assert lo <= a and a + width <= hi
    assert lo.denominator & (lo.denominator - 1) == 0 and hi.denominator & (hi.denominator - 1) == 0


@given(small_eps)
def test_exp_enclosure_is_certified(eps: F) -> None:
    lo, hi = dyadic.exp_enclosure(eps, 64)
    e = ExpPoly.exp(eps)
    assert sign(e - lo) >= 0 and sign(e - hi) <= 0 and hi - lo < F(1, 2**50) * (hi + 1)


def test_dyadic_refuses_a_non_positive_upper_end() -> None:
    with pytest.raises(ParameterError):
        dyadic.dyadic(F(0), F(0))


# -- float boxes ----------------------------------------------------------------------------------

@given(st.fractions(max_denominator=10**30))
def test_float_box_encloses_a_rational(x: F) -> None:
    lo, hi = boxes.float_box((x, x))
    assert F(lo) <= x <= F(hi)


@given(st.lists(st.tuples(probability, st.integers(1, 10**6)), max_size=20))
def test_weighted_sum_encloses_the_exact_sum(terms: list[tuple[F, int]]) -> None:
    lo, hi = boxes.weighted_sum((boxes.float_box((x, x)), n) for x, n in terms)
    exact = sum((n * x for x, n in terms), F(0))
    assert F(lo) <= exact <= F(hi) and lo >= 0


@given(probability, probability, small_eps)
def test_box_exceeds_agrees_with_the_exact_sign_when_it_decides(p: F, q: F, eps: F) -> None:
    decided = boxes.box_exceeds(boxes.float_box((p, p)), boxes.float_box((q, q)), eps)
    if decided is not None:
        assert decided == (sign(p - q * ExpPoly.exp(eps)) > 0)


huge = st.integers(0, 4096).map(lambda k: F(2) ** k) | st.just(F(10) ** 1000)
any_eps = small_eps | st.fractions(min_value=F(700), max_value=F(720), max_denominator=8) | \
    st.sampled_from([F(10) ** 12, F(2) ** 4096 - 1])
tiny = st.integers(1, 4096).map(lambda k: F(1, 2**k)) | st.just(F(1, 10**1000))


@given(huge | tiny)
def test_float_box_encloses_any_rational_past_the_double_range(x: F) -> None:
    """Past the largest double a box ends at inf (float() raises there); below the smallest
    subnormal it starts below 0: one ulp outward of `nearest` still encloses."""
    for value in (x, -x):
        lo, hi = boxes.float_box((value, value))
        assert (lo == -math.inf or F(lo) <= value) and (hi == math.inf or value <= F(hi))


@given(probability | tiny | huge, probability | tiny | huge, any_eps)
def test_box_exceeds_agrees_with_the_exact_sign_at_any_eps(p: F, q: F, eps: F) -> None:
    """At any epsilon the parser reads (e^710 is past the largest double) the boxes decide
    only what exact arithmetic decides, else say None."""
    decided = boxes.box_exceeds(boxes.float_box((p, p)), boxes.float_box((q, q)), eps)
    if decided is not None:
        assert decided == (sign(p - q * ExpPoly.exp(eps)) > 0)


def test_exp_box_past_the_double_range_is_certified_without_computing() -> None:
    for eps in (F(710), F(10) ** 12, F(2) ** 4096 - 1):
        lo, hi = boxes.exp_box(eps)
        assert lo == boxes.sys.float_info.max and hi == math.inf
        assert sign(ExpPoly.exp(eps) - F(lo)) > 0  # e^710 > the largest double, exactly
    lo, hi = boxes.exp_box(F(709))
    assert F(lo) <= F(math.exp(709)) <= F(hi) and hi < math.inf


def test_box_exceeds_leaves_ties_to_exact_arithmetic() -> None:
    p = F(1, 3)
    assert boxes.box_exceeds(boxes.float_box((p, p)), boxes.float_box((p, p)), F(0)) is None


@given(positive, positive)
def test_ln_box_is_certified(a: F, b: F) -> None:
    lo, hi = boxes.ln_box(min(a, b), max(a, b))
    assert sign(ExpPoly.exp(F(lo)) - min(a, b)) <= 0  # e^lo <= min: lo <= ln(min)
    assert sign(ExpPoly.exp(F(hi)) - max(a, b)) >= 0
    with pytest.raises(Undecided):
        boxes.ln_box(F(0), a)


@settings(max_examples=50)
@given(st.lists(st.lists(st.integers(0, 200), min_size=3, max_size=3), min_size=1, max_size=8),
       st.lists(st.tuples(probability, probability), min_size=3, max_size=3))
def test_log_dot_encloses_the_exact_dot_product(rows: list[list[int]],
                                                 ends: list[tuple[F, F]]) -> None:
    lns = [boxes.ln_box(min(a, b), max(a, b)) for a, b in ends]
    ln_lo = np.array([x for x, _ in lns])
    ln_hi = np.array([y for _, y in lns])
    matrix = np.array(rows, dtype=np.float64)
    lo, hi = boxes.log_dot(matrix, ln_lo, ln_hi)
    for i, row in enumerate(rows):  # the float ends are exact rationals: compare exactly
        assert F(lo[i]) <= sum((n * F(x) for n, x in zip(row, ln_lo, strict=True)), F(0))
        assert sum((n * F(y) for n, y in zip(row, ln_hi, strict=True)), F(0)) <= F(hi[i])


@given(st.lists(st.tuples(st.fractions(max_denominator=10**9), st.fractions(max_denominator=10**9)),
                min_size=1, max_size=10))
def test_array_sums_and_differences_round_outward(pairs: list[tuple[F, F]]) -> None:
    a = np.array([float(x) for x, _ in pairs])
    b = np.array([float(y) for _, y in pairs])
    s_lo, s_hi = boxes.add_boxes(a, a, b, b)
    d_lo, d_hi = boxes.sub_boxes(a, a, b, b)
    for i in range(len(pairs)):
        x, y = F(a[i]), F(b[i])
        assert F(s_lo[i]) <= x + y <= F(s_hi[i]) and F(d_lo[i]) <= x - y <= F(d_hi[i])


def test_point_boxes_bracket_the_points() -> None:
    pts = [F(1, 3), F(2, 3), F(1), F(10, 7)]
    lo, hi = boxes.point_boxes(pts)
    assert all(F(lo[i]) <= p <= F(hi[i]) for i, p in enumerate(pts))


# -- integer polynomials ----------------------------------------------------------------------

polys = st.dictionaries(st.integers(-20, 20), st.integers(-10**6, 10**6).filter(bool),
                        max_size=8)


def _value(p: dict[int, int], x: F) -> F:
    return sum((c * x**e for e, c in p.items()), F(0))


@given(polys, polys)
def test_pure_polynomials_multiply_and_add_exactly(a: dict[int, int], b: dict[int, int]) -> None:
    x = F(3, 7)
    assert _value(intpoly.mul(a, b), x) == _value(a, x) * _value(b, x)
    assert all(c for c in intpoly.mul(a, b).values())
    acc = dict(a)
    intpoly.add_into(acc, b)
    assert _value(acc, x) == _value(a, x) + _value(b, x) and all(acc.values())
    assert intpoly.tree_sum([len(a), len(b), 1]) == len(a) + len(b) + 1  # any `+`
    with pytest.raises(ParameterError):
        intpoly.tree_sum([])


@pytest.mark.skipif(not intpoly.flint_available(), reason="python-flint")
@given(st.lists(st.dictionaries(st.integers(0, 30), st.integers(-10**9, 10**9).filter(bool),
                                min_size=1, max_size=6), min_size=1, max_size=7))
def test_flint_and_pure_backends_give_the_same_integers(parts: list[dict[int, int]]) -> None:
    ctx = intpoly.flint_context()
    product: dict[int, int] = {0: 1}
    for p in parts:
        product = intpoly.mul(product, p)
    flint_product = ctx.from_dict({(0,): 1})
    for p in parts:
        flint_product = flint_product * ctx.from_dict({(e,): c for e, c in p.items()})
    assert {int(e[0]): int(c) for e, c in flint_product.to_dict().items()} == product
    total = intpoly.tree_sum([ctx.from_dict({(e,): c for e, c in p.items()}) for p in parts])
    expected: dict[int, int] = {}
    for p in parts:
        intpoly.add_into(expected, p)
    assert {int(e[0]): int(c) for e, c in total.to_dict().items()} == expected


def test_backend_is_chosen_by_argument_or_context_never_globally() -> None:
    default = intpoly.resolve_backend()
    with intpoly.use_backend("pure"):
        assert intpoly.resolve_backend() == "pure"
        assert intpoly.resolve_backend("pure") == "pure"
    assert intpoly.resolve_backend() == default
    with pytest.raises(ParameterError):
        intpoly.resolve_backend("gmpy")


# -- packed products ------------------------------------------------------------------------------

@given(st.lists(st.lists(st.integers(0, 2**70), min_size=1, max_size=9), min_size=2, max_size=2),
       st.integers(0, 80))
def test_mul_round_up_is_the_exact_product_rounded_up(ab: list[list[int]], bits: int) -> None:
    a, b = ab
    exact = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            exact[i + j] += x * y
    assert packed.mul_round_up(a, b, bits) == [math.ceil(F(c, 1 << bits)) for c in exact]


def test_mul_round_up_refuses_negative_coefficients() -> None:
    with pytest.raises(ParameterError):
        packed.mul_round_up([1, -1], [1], 0)


FACTORS = {1: ExpPoly({F(0): F(1, 2), F(-1, 3): F(-1, 4)}), 2: ExpPoly({F(-2): F(3, 2)}),
           3: ExpPoly({F(0): F(1), F(-1, 2): F(-1, 2)})}


@given(st.lists(st.lists(st.sampled_from(sorted(FACTORS)), max_size=6).map(
    lambda b: tuple(sorted(b))), min_size=1, max_size=6))
def test_packer_packs_bag_products_exactly(bags: list[tuple[int, ...]]) -> None:
    packer = packed.Packer(F(1, 6), FACTORS.__getitem__)
    packer.admit(bags, len(bags))
    total = 0
    exact = ExpPoly()
    for bag in bags:
        value = ExpPoly.const(1)
        for f in bag:
            value = value * FACTORS[f]
        assert packer.lattice.decode(packer.pack(bag)) == value
        assert packer.pack(bag) == packer.lattice.encode(value)
        total += packer.pack(bag)
        exact = exact + value
    assert packer.lattice.decode(total) == exact


@settings(max_examples=300)
@given(st.integers(2, 90), st.integers(-30, 30), st.integers(1, 6), st.integers(1, 12),
       st.lists(st.integers(-(1 << 89), (1 << 89) - 1), max_size=40), st.booleans())
def test_packed_decode_is_the_digitwise_decode(width: int, low: int, n: int, den: int,
                                               raw: list[int], extreme_top: bool) -> None:
    """The linear-time `decode` (one binary text) reads the same balanced digits as the
    digit-by-digit reference, on any integer built from digits in `[-2^(w-1), 2^(w-1))`,
    including a top digit at either end of that range."""
    half = 1 << (width - 1)
    digits = [d % (2 * half) - half for d in raw]
    if extreme_top and digits:
        digits[-1] = -half if raw[-1] % 2 else half - 1
    x = sum(d << (width * i) for i, d in enumerate(digits))
    lattice = packed.Lattice(n, den, low, width)
    assert lattice.decode(x) == lattice.decode_digitwise(x)


def test_packed_decode_is_linear_enough_for_million_bit_values() -> None:
    """A 700,000-bit value (4,500 digits of 157 bits) decodes to the digitwise result."""
    import random

    rng = random.Random(7)
    lattice, half = packed.Lattice(3, 7, -100, 157), 1 << 156
    x = sum(rng.randrange(-half, half) << (157 * i) for i in range(4500))
    assert lattice.decode(x) == lattice.decode_digitwise(x)


@pytest.mark.parametrize("backend", ["gmpy2", "flint", "python"])
def test_big_product_is_the_exact_product_on_every_backend(
        backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past `BIG_PRODUCT_BITS`, products go through GMP when it is installed: the same integer
    as Python's own product, negative factors and zero included."""
    import random

    if backend == "python":
        monkeypatch.setattr(packed, "_gmp_integer", lambda: None)
    else:
        module = pytest.importorskip(backend)
        kind = module.mpz if backend == "gmpy2" else module.fmpz
        monkeypatch.setattr(packed, "_gmp_integer", lambda: kind)
    rng = random.Random(11)
    big = [rng.getrandbits(40_000) - (1 << 39_999) for _ in range(4)]
    for values in (big, [*big, 0], big[:1], [3, 5], []):
        assert packed.big_product(values) == math.prod(values)
        assert type(packed.big_product(values)) is int
