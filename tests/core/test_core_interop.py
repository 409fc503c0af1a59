"""Issue 17: exact numbers of other libraries are read at the boundary, floats are refused, and
no backend number type (gmpy2's, when mpmath and sympy use it) leaks into `Fraction`s.

The backend tests run in whichever world this process is in (CI runs the suite once with gmpy2
and once with `MPMATH_NOGMPY=1 SYMPY_GROUND_TYPES=python`), and, when gmpy2 is installed, also
re-run a small probe in a subprocess of the other world, so both are covered by one run.
"""

from __future__ import annotations

import decimal
import json
import os
import subprocess
import sys
from fractions import Fraction as F
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy
from mpmath import iv

from betweencut.data.tree import kary_tree
from betweencut.errors import ParameterError, public_height
from betweencut.interop import exact_integer, exact_rational
from betweencut.mechanism.calibration import calibrate
from betweencut.numbers.exact import LogReal, as_rational, iv_endpoints, iv_precision, mpf_fraction
from betweencut.proofs.exact.arith import ExpPoly, _exp_fixed, enclose
from betweencut.proofs.exact.symbolic import sympy_fraction

try:
    import gmpy2
except ImportError:  # pragma: no cover - depends on the environment
    gmpy2 = None
try:
    import flint
except ImportError:  # pragma: no cover - python-flint is optional
    flint = None


def _int_parts(x: F) -> bool:
    return type(x) is F and type(x.numerator) is int and type(x.denominator) is int


def exact_values() -> list[tuple[object, F]]:
    """Exact integers and rationals a user may hold, with their value."""
    out: list[tuple[object, F]] = [
        (np.int64(3), F(3)), (np.uint8(200), F(200)), (np.int32(-7), F(-7)),
        (sympy.Integer(5), F(5)), (sympy.Rational(2, 6), F(1, 3)),
        (decimal.Decimal("0.05"), F(1, 20)), (F(3, 4), F(3, 4)), (12, F(12)),
    ]
    if gmpy2 is not None:
        out += [(gmpy2.mpz(29), F(29)), (gmpy2.mpq(1, 3), F(1, 3)),
                (F(gmpy2.mpz(2), gmpy2.mpz(6)), F(1, 3))]
    if flint is not None:
        out += [(flint.fmpz(-4), F(-4)), (flint.fmpq(5, 10), F(1, 2))]
    return out


def inexact_values() -> list[object]:
    out: list[object] = [0.1, np.float64(0.5), np.float32(2.0), 1 + 2j, sympy.Float("0.1"),
                         float("nan")]
    if gmpy2 is not None:
        out.append(gmpy2.mpfr("0.1"))
    if flint is not None:
        out.append(flint.arb(1))
    return out


@pytest.mark.parametrize(("value", "expected"), exact_values(), ids=lambda v: type(v).__name__)
def test_as_rational_reads_exact_numbers_of_other_libraries(value: object, expected: F) -> None:
    got = as_rational(value, "tau")
    assert got == expected and _int_parts(got)


@pytest.mark.parametrize("value", inexact_values(), ids=lambda v: type(v).__name__)
def test_as_rational_refuses_floats_of_every_library_and_says_how(value: object) -> None:
    with pytest.raises(ParameterError, match="exact rational: pass an int, a Fraction, a string"):
        as_rational(value, "epsilon")


@pytest.mark.parametrize("value", [True, np.bool_(True), None, [1], decimal.Decimal("inf"),
                                   decimal.Decimal("nan")])
def test_as_rational_refuses_what_is_not_a_number(value: object) -> None:
    with pytest.raises(ParameterError):
        as_rational(value, "delta")


def test_exact_integer_and_rational_helpers() -> None:
    assert exact_integer(np.int16(9)) == 9 and type(exact_integer(np.int16(9))) is int
    assert exact_integer(F(4, 2)) is None and exact_integer(2.0) is None
    assert exact_integer(True) is None
    assert exact_rational("1/3") is None  # strings are parsed by as_rational, not here


def test_public_integers_of_other_libraries_become_python_ints() -> None:
    assert type(public_height(np.int64(4))) is int
    tree = kary_tree(np.int32(3), np.uint16(2))
    assert tree.height == 2 and type(tree.height) is int
    with pytest.raises(ParameterError):
        public_height(np.float64(4))
    with pytest.raises(ParameterError):
        kary_tree(2.0, 3)  # type: ignore[arg-type]


def test_calibration_with_numpy_and_gmpy2_parameters() -> None:
    cal = calibrate(np.int64(15), np.int64(1), F(1, 20))
    assert cal.E == calibrate(15, 1, "0.05").E
    tau = cal.E.ceil()
    assert type(tau) is int
    assert type(cal.params(np.int64(tau)).tau) is F
    if gmpy2 is not None:
        assert calibrate(gmpy2.mpz(15), gmpy2.mpq(1), gmpy2.mpq(1, 20)).E == cal.E


# -- the backend: what mpmath and sympy hand back becomes int / Fraction at one place each -------
def backend_probe() -> dict[str, object]:
    """Types of every value that crosses from mpmath or sympy into betweencut's rationals."""
    with iv_precision(80):
        lo, hi = iv_endpoints(iv.log(iv.mpf(3)))
    e_lo, e_hi = _exp_fixed(1, 3, 64)
    s_lo, s_hi = enclose(sympy.log(3) + sympy.Rational(1, 7), 96)
    return {
        "mpmath": mpmath.libmp.BACKEND,
        "iv_endpoints": _int_parts(lo) and _int_parts(hi) and lo < hi,
        "mpf_fraction": _int_parts(mpf_fraction(mpmath.mpf(0.375))),
        "exp_fixed": type(e_lo) is int and type(e_hi) is int and e_lo <= e_hi,
        "enclose": _int_parts(s_lo) and _int_parts(s_hi) and s_lo < s_hi,
        "sympy_fraction": _int_parts(sympy_fraction(sympy.Rational(-3, 9))),
        "floor": type(LogReal(F(1), F(4), F(80)).floor()) is int,
        "expoly_sign": ExpPoly.exp(F(1, 3)).sign() == 1,
    }


def test_no_backend_number_type_crosses_into_fractions() -> None:
    probe = backend_probe()
    assert all(v is True for k, v in probe.items() if k != "mpmath"), probe
    with pytest.raises(TypeError):
        sympy_fraction(sympy.Float("0.5"))


@pytest.mark.skipif(gmpy2 is None, reason="gmpy2 not installed: only one world to probe")
@pytest.mark.parametrize("world", ["gmpy", "python"])
def test_backend_probe_in_both_worlds(world: str) -> None:
    """A subprocess with mpmath/sympy on gmpy2 and one on pure Python: same exact types."""
    env = dict(os.environ)
    for key in ("MPMATH_NOGMPY", "SYMPY_GROUND_TYPES"):
        env.pop(key, None)
    if world == "python":
        env.update(MPMATH_NOGMPY="1", SYMPY_GROUND_TYPES="python")
    code = ("import json, sys; sys.path.insert(0, 'tests/core'); import test_core_interop as t; "
            "print(json.dumps(t.backend_probe()))")
    here = str(Path(__file__).resolve().parents[2])
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=here, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    probe = json.loads(done.stdout.strip().splitlines()[-1])
    assert probe.pop("mpmath") == world
    assert all(v is True for v in probe.values()), probe
