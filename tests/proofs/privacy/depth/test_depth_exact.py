"""Exact depth values as integer tables (issue 13): the text is the value, both backends agree.

Principle 8: the flint path (`fmpz_mpoly`) and the pure-Python path give the same integers and
the same text, on BetweenCut and on a gallery variant that overrides `make_query`; the text
read back by sympy is exactly the `ExpPoly` of `DepthRow.delta_exact()`, which
`tests/proofs/privacy/depth/test_privacy_depth.py` proves equal to full enumeration of the real
code.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

import pytest
import sympy

from betweencut.data.tree import kary_tree
from betweencut.errors import MissingExtra, ParameterError
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.mechanism.params import Params
from betweencut.proofs.exact import intpoly
from betweencut.proofs.exact.arith import ExpPoly
from betweencut.proofs.laws.tct import theorem_5_4_bound
from betweencut.proofs.privacy.claims import gallery
from betweencut.proofs.privacy.depth.depth_audit import single_leaf_band, step_profiles
from betweencut.proofs.privacy.depth.exact_values import ExactValue
from betweencut.proofs.privacy.depth.paths import MAX_HEIGHT, PathProfile
from betweencut.proofs.privacy.depth.transcript import (
    ClaimedBound,
    DepthRow,
    depth_pair,
    profile_rows,
)

PARAMS = Params.of(Fraction(8), Fraction(1, 2), Fraction(2))
needs_flint = pytest.mark.skipif(not intpoly.flint_available(), reason="python-flint")


@pytest.fixture
def pure() -> Iterator[None]:
    with intpoly.use_backend("pure"):
        yield


def _parse(text: str) -> ExpPoly:
    """Read a `delta_exact` string back with sympy, term by term, into an `ExpPoly`."""
    expr = sympy.expand(sympy.sympify(text))
    terms: dict[Fraction, Fraction] = {}
    for term in sympy.Add.make_args(expr):
        coeff, rest = term.as_coeff_Mul()
        if rest == 1:
            x = Fraction(0)
        elif rest == sympy.E:  # sympy writes exp(1) as E
            x = Fraction(1)
        else:
            if not isinstance(rest, sympy.exp):
                raise AssertionError(f"not a term c*exp(q): {term}")
            arg = rest.args[0]
            x = Fraction(int(arg.p), int(arg.q))
        c = Fraction(int(coeff.p), int(coeff.q))
        terms[x] = terms.get(x, Fraction(0)) + c
    return ExpPoly(terms)


def _rows(mechanism: BetweenCut, profiles: list[PathProfile]) -> list[DepthRow]:
    h = mechanism.tree.height
    L = h.bit_length()
    params = mechanism.params
    bounds = [ClaimedBound.of(r, r * params.lam, theorem_5_4_bound(L, params.lam, params.R, r))
              for r in range(1, L + 1)]
    out: list[DepthRow] = []
    for profile in profiles:
        out.extend(profile_rows(depth_pair(mechanism, profile), profile, bounds))
    return out


def _texts(mechanism: BetweenCut, profiles: list[PathProfile]) -> list[str]:
    return [row.delta_exact_str() for row in _rows(mechanism, profiles)]


def test_delta_exact_text_reads_back_exactly_as_the_exact_value() -> None:
    mechanism = BetweenCut(kary_tree(2, 15), PARAMS)
    profiles = single_leaf_band(mechanism) + step_profiles(mechanism)
    rows = _rows(mechanism, profiles)
    assert len(rows) == 4 * len(profiles) and any(not row.delta_value().is_zero() for row in rows)
    for row in rows:
        assert _parse(row.delta_exact_str()) == row.delta_exact(), (row.profile, row.r)


def test_delta_exact_text_rejects_a_perturbed_value() -> None:
    """Principle 5: the read-back comparison sees one changed coefficient or exponent."""
    mechanism = BetweenCut(kary_tree(2, 15), PARAMS)
    row = next(r for r in _rows(mechanism, single_leaf_band(mechanism))
               if len(r.delta_value().coeffs) >= 2)
    v = row.delta_value()
    (e, c), *rest = v.coeffs
    for wrong in (ExactValue(((e, c + 1), *rest), v.N, v.D, v.most),
                  ExactValue(((e - 1, c), *rest), v.N, v.D, v.most)):
        assert _parse(wrong.text()) != row.delta_exact()


def test_exact_value_text_grammar() -> None:
    half = ExactValue(((-1, -1), (0, 1)), 2, 2, 2)  # (1 - e^{-1/2})/4
    assert half.text() == "(-exp(-1/2) + 1)/4"
    assert ExactValue((), 2, 2, 2).text() == "0"
    assert ExactValue(((0, 4),), 1, 2, 2).text() == "1"
    assert ExactValue(((-4, 6), (3, -9)), 2, 6, 1).text() == "(2*exp(-2) - 3*exp(3/2))/2"
    assert _parse(half.text()) == (ExpPoly.const(1) - ExpPoly.exp(Fraction(-1, 2))) / 4


@needs_flint
def test_flint_and_pure_give_identical_strings(pure: None) -> None:
    mechanism = BetweenCut(kary_tree(2, 2**20 - 1), PARAMS)
    profiles = single_leaf_band(mechanism) + step_profiles(mechanism)
    slow = _texts(mechanism, profiles)
    with intpoly.use_backend("flint"):
        assert _texts(mechanism, profiles) == slow


def _variant_case(name: str, heights: tuple[int, ...], step: int) -> None:
    variant = gallery.PRIVACY_BREAKING[name].variant
    assert variant.make_query is not BetweenCut.make_query
    params = Params.of(Fraction(18), Fraction(1, 2), Fraction(16))
    for h in heights:
        mechanism = variant(kary_tree(2, h), params)
        profiles = single_leaf_band(mechanism)[::step]
        with intpoly.use_backend("pure"):
            slow = _texts(mechanism, profiles)
        with intpoly.use_backend("flint"):
            assert _texts(mechanism, profiles) == slow, (name, h)


@needs_flint
@pytest.mark.parametrize("name", ["Laplace scale lambda", "guards without R"])
def test_flint_and_pure_agree_on_a_variant_overriding_make_query(pure: None, name: str) -> None:
    _variant_case(name, (15, 2**16 - 1), 6)


@needs_flint
@pytest.mark.slow
@pytest.mark.parametrize("name", ["Laplace scale lambda", "guards without R"])
def test_flint_and_pure_agree_on_a_variant_at_h_2_64_minus_1(pure: None, name: str) -> None:
    _variant_case(name, (MAX_HEIGHT,), 1)


@pytest.mark.parametrize("backend", ["pure", "flint"])
def test_tables_equal_the_grouped_pairs_exact_profile(pure: None, backend: str) -> None:
    """Each backend's value equals the exact hockey stick of the grouped pair
    (`Joint.profile`, computed from the factor bags, not from the tables)."""
    if backend == "flint" and not intpoly.flint_available():
        pytest.skip("python-flint")
    mechanism = BetweenCut(kary_tree(2, 15), PARAMS)
    for profile in single_leaf_band(mechanism)[::3] + step_profiles(mechanism)[::2]:
        pair = depth_pair(mechanism, profile)
        with intpoly.use_backend(backend):
            rows = _rows(mechanism, [profile])
        for row in rows:
            assert row.tables is not None and row.tables.backend == backend
            assert row.delta_exact() == pair.divergence(row.eps).delta, (profile, row.r)
            assert _parse(row.delta_exact_str()) == row.delta_exact()


def test_backend_choice_validates() -> None:
    with pytest.raises(ParameterError), intpoly.use_backend("gmpy"):
        pass
    with pytest.raises(ParameterError):
        intpoly.resolve_backend("gmpy")
    if not intpoly.flint_available():
        with pytest.raises(MissingExtra, match=r"betweencut\[fast\]"), \
                intpoly.use_backend("flint"):
            pass


def test_without_flint_the_pure_path_is_chosen_and_flint_refused(
        pure: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a machine without python-flint: `flint` is refused, values still computed."""
    monkeypatch.setattr(intpoly, "flint_context", lambda: None)
    assert not intpoly.flint_available() and intpoly.resolve_backend() == "pure"
    with pytest.raises(MissingExtra, match=r"pip install 'betweencut\[fast\]'"), \
            intpoly.use_backend("flint"):
        pass
    mechanism = BetweenCut(kary_tree(2, 7), PARAMS)
    for row in _rows(mechanism, single_leaf_band(mechanism)[::5]):
        assert _parse(row.delta_exact_str()) == row.delta_exact()


@needs_flint
def test_heavy_set_rows_flint_equals_pure_and_reads_back(pure: None) -> None:
    """The Heavy-set rows (`depth_heavy`, merged outputs, one sequence of a pair possibly
    impossible on one side) go through the same tables: both backends agree, text reads back."""
    from betweencut.proofs.privacy.depth.depth_audit import paper_bounds
    from betweencut.proofs.privacy.depth.heavy import heavy_pair, rows_on

    mechanism = BetweenCut(kary_tree(2, 2**10 - 1), PARAMS)
    bounds = paper_bounds(10, PARAMS)
    profiles = single_leaf_band(mechanism)[::2] + step_profiles(mechanism)[::3]
    texts = {}
    for backend in ("pure", "flint"):
        with intpoly.use_backend(backend):
            rows = [row for p in profiles for row in rows_on(mechanism, p, bounds, on="heavy")]
        texts[backend] = [row.delta_exact_str() for row in rows]
    assert texts["pure"] == texts["flint"]
    for row in rows[::7]:
        assert _parse(row.delta_exact_str()) == row.delta_exact()
    small = BetweenCut(kary_tree(2, 15), PARAMS)
    for profile in single_leaf_band(small)[::3]:
        pair = heavy_pair(small, profile)
        for row in rows_on(small, profile, paper_bounds(4, PARAMS), on="heavy"):
            assert row.delta_exact() == pair.divergence(row.eps).delta, (profile, row.r)


def test_a_forgotten_row_computes_the_same_value_again() -> None:
    """`DepthRow.forget` (the CLI drops each pair's values once written) loses nothing: the
    value read again equals the one read before, for every row of the band."""
    mechanism = BetweenCut(kary_tree(2, 15), PARAMS)
    rows = _rows(mechanism, single_leaf_band(mechanism))
    before = [row.delta_value() for row in rows]
    for row in rows:
        row.forget()
    assert all(row._exact is None and row._poly is None for row in rows)
    assert [row.delta_value() for row in rows] == before
