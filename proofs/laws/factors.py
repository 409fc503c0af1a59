"""Single-query laws as interned factors, and their products (bags): the exact probability of
an answer sequence of fresh-noise BT queries (Alg. 4, Eq. (69)-(71)).

A law value depends only on `(a - c, b - c, λ, outcome)` (a `FactorKey`), interned as a small
integer (a factor id); the probability of one answer sequence is the product of its answers'
factors, a multiset of factor ids (a `Bag`, a sorted tuple). `bag_value` is that product as an
exact `ExpPoly`, `bag_enclosure` a certified enclosure of it, `bags_value` an exact sum of
many. The enumeration (`betweencut.proofs.privacy.enumeration.transcripts`) builds the bags,
the divergences (`betweencut.proofs.privacy.divergence`) compare them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import lru_cache

from betweencut.noise.noisy_test import BTQuery, Outcome
from betweencut.proofs.exact.arith import ExpPoly
from betweencut.proofs.exact.dyadic import round_out
from betweencut.proofs.laws.bt_laws import OUTCOMES, exact_law

__all__ = [
    "Bag", "FactorKey", "bag_enclosure", "bag_value", "bags_value", "factor_id", "factor_key",
    "factor_value", "law_key", "make_bag", "query_factor_ids", "query_factors",
]

FactorKey = tuple[Fraction, Fraction, Fraction, Outcome]  # (a - c, b - c, λ, outcome)
Bag = tuple[int, ...]  # a multiset of interned factor ids, as a sorted tuple
ENCLOSURE_BITS = 64


def law_key(query: BTQuery) -> tuple[Fraction, Fraction, Fraction]:
    """What the law of BT(c; a, b, λ) depends on: `(a - c, b - c, λ)`."""
    return (query.a - query.count, query.b - query.count, query.lam)


@lru_cache(maxsize=4096)
def _law(key: tuple[Fraction, Fraction, Fraction]) -> dict[Outcome, ExpPoly]:
    d_a, d_b, lam = key
    return exact_law(BTQuery(Fraction(0), d_a, d_b, lam))


def _support(key: tuple[Fraction, Fraction, Fraction]) -> tuple[Outcome, ...]:
    law = _law(key)
    return tuple(s for s in OUTCOMES if not law[s].is_zero())


_FACTORS: list[FactorKey] = []
_FACTOR_IDS: dict[FactorKey, int] = {}
_QUERY_IDS: dict[tuple[int, ...], tuple[tuple[Outcome, int], ...]] = {}


def factor_id(factor: FactorKey) -> int:
    """A small integer naming one factor key (interned, so bags hash and sort fast)."""
    found = _FACTOR_IDS.get(factor)
    if found is None:
        found = _FACTOR_IDS[factor] = len(_FACTORS)
        _FACTORS.append(factor)
    return found


def factor_key(fid: int) -> FactorKey:
    return _FACTORS[fid]


def query_factors(query: BTQuery) -> tuple[tuple[Outcome, int], ...]:
    """The outcomes of non-zero probability of `query`, each with its factor id (cached)."""
    c, a, b, lam = query.count, query.a, query.b, query.lam
    raw = (c.numerator, c.denominator, a.numerator, a.denominator, b.numerator, b.denominator,
           lam.numerator, lam.denominator)
    found = _QUERY_IDS.get(raw)
    if found is None:
        key = law_key(query)
        found = _QUERY_IDS[raw] = tuple((s, factor_id((*key, s))) for s in _support(key))
    return found


def query_factor_ids(query: BTQuery) -> dict[Outcome, int]:
    """The factor id of each outcome of non-zero probability of `query`."""
    return dict(query_factors(query))


def factor_value(factor: FactorKey | int) -> ExpPoly:
    """The exact probability of one answer: `P(BT = outcome)` for the law `(a - c, b - c, λ)`."""
    key = factor_key(factor) if isinstance(factor, int) else factor
    return _law(key[:3])[key[3]]


@lru_cache(maxsize=1 << 16)
def bag_value(bag: Bag) -> ExpPoly:
    """The exact product of the factors of `bag` (the probability of one answer sequence)."""
    out = ExpPoly.const(1)
    for factor, power in Counter(bag).items():
        out = out * factor_value(factor) ** power
    return out


@lru_cache(maxsize=4096)
def _factor_enclosure(factor: int) -> tuple[Fraction, Fraction]:
    return round_out(*factor_value(factor).enclose(ENCLOSURE_BITS))


@lru_cache(maxsize=1 << 16)
def bag_enclosure(bag: Bag) -> tuple[Fraction, Fraction]:
    """Certified rational bounds of `bag_value(bag)` (products of certified positive factors)."""
    lo, hi = Fraction(1), Fraction(1)
    for factor, power in Counter(bag).items():
        f_lo, f_hi = _factor_enclosure(factor)
        lo, hi = lo * max(f_lo, Fraction(0)) ** power, hi * f_hi**power
    return round_out(lo, hi)


def make_bag(factors: Sequence[int]) -> Bag:
    return tuple(sorted(factors))


_EXPONENTS: list[Fraction] = []
_EXPONENT_IDS: dict[Fraction, int] = {}


@lru_cache(maxsize=1 << 16)
def _bag_terms(bag: Bag) -> tuple[tuple[int, int, int], ...]:
    """`bag_value(bag)` as `(exponent id, coefficient denominator, numerator)` integer triples."""
    out = []
    for x, c in bag_value(bag).terms.items():
        xid = _EXPONENT_IDS.get(x)
        if xid is None:
            xid = _EXPONENT_IDS[x] = len(_EXPONENTS)
            _EXPONENTS.append(x)
        out.append((xid, c.denominator, c.numerator))
    return tuple(out)


def bags_value(bags: Mapping[Bag, int]) -> ExpPoly:
    """`Σ n·bag_value(bag)`, exactly (accumulated in integers, one `ExpPoly` at the end)."""
    acc: dict[tuple[int, int], int] = {}
    for bag, n in bags.items():
        for xid, den, num in _bag_terms(bag):
            acc[xid, den] = acc.get((xid, den), 0) + n * num
    terms: dict[Fraction, Fraction] = {}
    for (xid, den), num in acc.items():
        if num:
            x = _EXPONENTS[xid]
            terms[x] = terms.get(x, Fraction(0)) + Fraction(num, den)
    return ExpPoly(terms)
