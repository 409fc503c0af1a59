"""`betweencut.data.validate.positive_rational`: the one check of "an exact rational > 0" (and
`>= 0`), its table of accepted and refused values, and a scan of the package's source so that
no copy of the check (a `ParameterError` saying "rational > 0" of its own) comes back."""

from __future__ import annotations

import ast
import math
import random
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from betweencut.data.validate import MAX_EXACT_BITS, positive_rational
from betweencut.errors import ParameterError

ROOT = Path(__file__).resolve().parents[3]
WHY = " (the noise is Lap(1/lam))"

ACCEPTED = [
    # value, text, zero, the Fraction returned
    (1, False, False, Fraction(1)),
    (Fraction(1, 3), False, False, Fraction(1, 3)),
    (np.int64(2), False, False, Fraction(2)),
    ("1/2", True, False, Fraction(1, 2)),
    ("0.1", True, False, Fraction(1, 10)),
    (0, False, True, Fraction(0)),
    ("0", True, True, Fraction(0)),
    (Fraction(0), False, True, Fraction(0)),
]

REFUSED = [
    # value, text, zero, a piece of the message past the allowed range ("" if none)
    (True, False, False, "an int or a Fraction"),
    (False, False, True, "an int or a Fraction"),
    (0.5, False, False, "a float is not an exact value"),
    (0.5, True, False, "a float is not an exact value"),
    (math.nan, False, False, "a float is not an exact value"),
    (math.inf, True, True, "a float is not an exact value"),
    (np.float64(2), False, False, "a float is not an exact value"),
    (np.float32(2), False, False, "float32"),
    ("1/2", False, False, "an int or a Fraction"),
    ("abc", True, False, "a rational number"),
    (None, False, False, "an int or a Fraction"),
    (b"1", False, False, "an int or a Fraction"),
    ([1], False, False, "a rational number"),
    (Fraction(1, 2 ** (MAX_EXACT_BITS + 1)), False, False, "bits"),
    (0, False, False, ""),
    (Fraction(0), False, False, ""),
    ("0", True, False, ""),
    (-1, False, False, ""),
    (-1, False, True, ""),
    (Fraction(-1, 3), False, True, ""),
    ("-1/3", True, True, ""),
]


@pytest.mark.parametrize(("value", "text", "zero", "expected"), ACCEPTED,
                         ids=[f"{v!r}-text={t}-zero={z}" for v, t, z, _ in ACCEPTED])
def test_positive_rational_accepts_exact_values_in_range(
        value: object, text: bool, zero: bool, expected: Fraction) -> None:
    got = positive_rational(value, "lam", WHY, text=text, zero=zero)
    assert got == expected
    assert type(got) is Fraction and type(got.numerator) is int


@pytest.mark.parametrize(("value", "text", "zero", "detail"), REFUSED,
                         ids=[f"{v!r}-text={t}-zero={z}"[:60] for v, t, z, _ in REFUSED])
def test_positive_rational_refuses_with_the_range_and_the_reason(
        value: object, text: bool, zero: bool, detail: str) -> None:
    with pytest.raises(ParameterError) as caught:
        positive_rational(value, "lam", WHY, text=text, zero=zero)
    error = caught.value
    assert error.name == "lam"
    message = str(error)
    assert message.startswith("lam=")
    if detail != "bits":  # too many bits: the size is the range that was broken
        relation = ">= 0" if zero else "> 0"
        assert error.allowed == f"an exact rational {relation}{WHY}", message
    assert detail in message


def test_positive_rational_quotes_text_it_does_not_read() -> None:
    """`"15"` refused as text must not read as the number 15 in the message."""
    with pytest.raises(ParameterError, match=r"lam='15' is not allowed"):
        positive_rational("15", "lam")


# "a rational > 0", "an exact rational eps >= 0 (...)", "a rational sigma^2 > 0"...
COPY = re.compile(r"rational\b[^()]*?>=? ?0(?![\d/.])")


def _message_texts(call: ast.Call) -> str:
    """The string constants of a `ParameterError(name, value, allowed, why)` call's message."""
    parts = [*call.args[2:], *(k.value for k in call.keywords)]
    return " ".join(node.value for part in parts for node in ast.walk(part)
                    if isinstance(node, ast.Constant) and isinstance(node.value, str))


def copies_of_the_check(root: Path) -> list[str]:
    """`file:line` of every `ParameterError(...)` under `root`'s `core/` and `proofs/` whose
    message says "rational > 0" (or `>= 0`, or names the value between) outside `validate.py`."""
    found = []
    for folder in ("core", "proofs"):
        for path in sorted((root / folder).rglob("*.py")):
            if path == root / "core" / "data" / "validate.py":
                continue
            source = path.read_text(encoding="utf-8")
            if "ParameterError" not in source:
                continue
            lines = []
            for node in ast.walk(ast.parse(source)):
                if not isinstance(node, ast.Call):
                    continue
                func = node.func
                called = func.id if isinstance(func, ast.Name) else (
                    func.attr if isinstance(func, ast.Attribute) else "")
                if called == "ParameterError" and COPY.search(_message_texts(node)):
                    lines.append(node.lineno)
            found += [f"{path.relative_to(root).as_posix()}:{line}" for line in sorted(lines)]
    return found


def test_no_copy_of_the_positive_rational_check() -> None:
    copies = copies_of_the_check(ROOT)
    assert copies == [], ("a ParameterError saying 'rational > 0' of its own: use "
                          f"betweencut.data.validate.positive_rational at {', '.join(copies)}")


def test_the_scan_finds_a_copy(tmp_path: Path) -> None:
    """The scan can fail: a planted copy is found, with its file and line."""
    planted = tmp_path / "core" / "noise" / "planted.py"
    planted.parent.mkdir(parents=True)
    planted.write_text("from betweencut.errors import ParameterError\n\n\n"
                       "def f(x):\n"
                       "    if x <= 0:\n"
                       "        raise ParameterError('x', x, 'a rational x > 0')\n"
                       "    raise errors.ParameterError('y', x, f'an exact rational >= 0{x}')\n")
    assert copies_of_the_check(tmp_path) == ["core/noise/planted.py:6",
                                             "core/noise/planted.py:7"]


def _sites() -> list[tuple[str, str, bool, Any]]:
    """The former copies of the check, each as (label, parameter name, zero allowed, a call
    taking the value): every one now answers with `positive_rational`'s message."""
    from betweencut.baselines import svt_corpus
    from betweencut.baselines.full_tree import FullTreeGaussian
    from betweencut.baselines.hhh import hhh_threshold
    from betweencut.baselines.margins import MarginSetting
    from betweencut.baselines.privtree import PrivTree, box_of
    from betweencut.data.tree import kary_tree
    from betweencut.mechanism.guarded_bt import GuardedBT
    from betweencut.mechanism.params import Params, public_tau
    from betweencut.noise.gaussian import LazyGaussian, discrete_gaussian_t
    from betweencut.noise.noisy_queries import AboveThreshold, DrawNoise, NoisyMax
    from betweencut.noise.noisy_test import BTQuery
    from betweencut.noise.primitives import BernoulliExp, Noise, RandomizedResponse
    from betweencut.proofs.baselines.appendix_e import e_h
    from betweencut.proofs.baselines.corpus_checks.corpus import user_row
    from betweencut.proofs.baselines.corpus_checks.gaussian_corpus import zhu_wang_delta
    from betweencut.proofs.baselines.corpus_checks.gaussian_pairs import GaussianGridPair
    from betweencut.proofs.baselines.privtree_checks.privtree_depth import (
        check_privtree_copies_at_depth,
    )
    from betweencut.proofs.baselines.privtree_checks.privtree_search import (
        check_privtree_worst_pair,
    )
    from betweencut.proofs.laws.continuous_gaussian import (
        analytic_gaussian_delta,
        gaussian_noisy_max_law,
        normal_mass,
    )
    from betweencut.proofs.laws.discrete_gaussian import DiscreteGaussian
    from betweencut.proofs.laws.indist import check_indistinguishable
    from betweencut.proofs.laws.models import exact_model
    from betweencut.proofs.laws.noisy_laws import laplace_cdf, laplace_density
    from betweencut.proofs.laws.tct import q_lambda
    from betweencut.proofs.privacy.accountants.envelope import envelope_delta_upper
    from betweencut.proofs.privacy.accountants.kov import kov_delta
    from betweencut.proofs.privacy.audit.renyi_claims import RenyiClaim
    from betweencut.proofs.privacy.depth.transcript import ClaimedBound
    from betweencut.proofs.verdict import ClaimedEpsilon

    one = Fraction(1)
    privtree = PrivTree.of(box_of((0, 2)), 1)

    def unused(*_: object) -> object:
        raise AssertionError("the value was not refused before any work")

    return [
        ("discrete_gaussian_t", "sigma2", False, discrete_gaussian_t),
        ("LazyGaussian", "scale", False, lambda v: LazyGaussian(v, random.Random(0))),
        ("Noise.laplace", "b", False, Noise.laplace),
        ("BernoulliExp", "x", True, BernoulliExp),
        ("RandomizedResponse", "eps", True, lambda v: RandomizedResponse(True, v)),
        ("DrawNoise", "scale", False, DrawNoise),
        ("AboveThreshold", "scale", True, lambda v: AboveThreshold(one, one, v)),
        ("NoisyMax", "scale", False, lambda v: NoisyMax((one,), v)),
        ("BTQuery", "lam", False, lambda v: BTQuery(one, one, one, v)),
        ("GuardedBT.of", "lam", False, lambda v: GuardedBT.of(1, 1, 0, v)),
        ("Params.of", "lambda", False, lambda v: Params.of(1, v, 1)),
        ("public_tau", "tau", True, public_tau),
        ("MarginSetting.of", "tau", False,
         lambda v: MarginSetting.of(1, Fraction(1, 10**6), tau=v)),
        ("FullTreeGaussian.of", "tau", True,
         lambda v: FullTreeGaussian.of(v, 1, Fraction(1, 10**6), 3)),
        ("hhh_threshold", "epsilon", False,
         lambda v: hhh_threshold(kary_tree(2, 2), [], one, v, unused, shared=True)),
        ("PrivTree.of", "epsilon", False, lambda v: PrivTree.of(box_of((0, 2)), v)),
        ("check_privtree_worst_pair", "epsilon", False,
         lambda v: check_privtree_worst_pair(privtree, 0, epsilon=v)),
        ("check_privtree_copies_at_depth", "epsilon", False,
         lambda v: check_privtree_copies_at_depth(privtree, 0, v)),
        ("svt noisy_max", "eps", False, lambda v: svt_corpus.noisy_max((one,), v, unused)),
        ("gaussian_noisy_max", "sigma", False,
         lambda v: svt_corpus.gaussian_noisy_max((one,), v, unused)),
        ("e_h", "epsilon", False, lambda v: e_h(4, v, Fraction(1, 2))),
        ("user_row", "epsilon", False, lambda v: user_row("user", unused, 1, v)),
        ("zhu_wang_delta", "sigma_rho", False, lambda v: zhu_wang_delta(one, v, one, 1)),
        ("GaussianGridPair", "sigma", False, lambda v: GaussianGridPair(v, one)),
        ("normal_mass", "scale", False, lambda v: normal_mass(v, None, one)),
        ("gaussian_noisy_max_law", "sigma", False, lambda v: gaussian_noisy_max_law((one,), v)),
        ("analytic_gaussian_delta", "sigma", False,
         lambda v: analytic_gaussian_delta(one, v, one)),
        ("DiscreteGaussian", "sigma2", False, DiscreteGaussian),
        ("check_indistinguishable", "lam", False,
         lambda v: check_indistinguishable({"a": one}, {"a": one}, v)),
        ("exact_model", "lam", False, lambda v: exact_model(one, v)),
        ("laplace_cdf", "scale", False, lambda v: laplace_cdf(v, one)),
        ("laplace_density", "scale", False, laplace_density),
        ("q_lambda", "lam", False, q_lambda),
        ("envelope_delta_upper", "eps", True,
         lambda v: envelope_delta_upper(1, one, Fraction(1, 10), v)),
        ("kov_delta", "eps0", False, lambda v: kov_delta(1, v, Fraction(0), one)),
        ("RenyiClaim.parse", "rho", False, lambda v: RenyiClaim.parse(f"zcdp:{v}")),
        ("ClaimedBound.of", "eps", False, lambda v: ClaimedBound.of(1, v, one)),
        ("ClaimedEpsilon", "eps", True, ClaimedEpsilon),
    ]


SITES = _sites()


@pytest.mark.parametrize(("label", "name", "zero", "call"), SITES, ids=[s[0] for s in SITES])
def test_every_former_copy_refuses_with_the_one_message(
        label: str, name: str, zero: bool, call: Any) -> None:
    """Out of range (`0`, or `-1` where `0` is allowed) and a float: each site names its
    parameter and says "an exact rational > 0" (`>= 0`), whatever its own reason adds."""
    relation = ">= 0" if zero else "> 0"
    with pytest.raises(ParameterError) as caught:
        call(-1 if zero else 0)
    assert caught.value.name == name, str(caught.value)
    assert caught.value.allowed.startswith(f"an exact rational {relation}"), str(caught.value)
    if label != "RenyiClaim.parse":  # its value is text (a claim as written)
        with pytest.raises(ParameterError) as caught:
            call(0.5)
        assert caught.value.name == name, str(caught.value)
        assert "a float is not an exact value" in str(caught.value)


def test_a_fraction_subclass_is_read_by_its_value_not_its_comparisons() -> None:
    """A `Fraction` subclass whose `__gt__` says yes to every bound passed the range check with
    the value -1 (the converter handed the subclass on): every exact converter now re-builds it
    as a plain `Fraction`, so the check and everything after it compare exactly."""
    from betweencut.data.validate import exact_number, exact_value
    from betweencut.numbers.exact import as_rational

    class Liar(Fraction):
        def __gt__(self, other: object) -> bool:
            return True

        def __ge__(self, other: object) -> bool:
            return True

    with pytest.raises(ParameterError, match="an exact rational > 0"):
        positive_rational(Liar(-1), "eps")
    for convert in (exact_number, exact_value, as_rational, positive_rational):
        got = convert(Liar(1, 2), "x")
        assert type(got) is Fraction and got == Fraction(1, 2)
