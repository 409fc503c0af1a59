"""Checkers for the exercises of the teaching notebooks (`notebooks/`).

Each `check_...` takes the exercise's public setting and the reader's answer, returns a short
`"correct: ..."` text when the answer is right and raises `WrongAnswer` (saying what is wrong,
never the solution) otherwise. The reference solution kept in each notebook goes through the
same checker when CI executes the notebook, and `tests/properties/test_exercises.py` shows that
every
checker accepts the reference and rejects a wrong answer.

Answers are compared exactly: integers, `Fraction`s, node tuples, and exact numbers. An exact
number may be given as an `int`, a `Fraction`, an `ExpPoly`/`ExpRational`
(`betweencut.proofs.exact.arith`), a sympy expression, or a string such as `"1 - exp(-1)/2"`
or `"(E - 1)/E"` (rationals and `exp(rational)` with `+ - * / **`, read by the package's one
grammar for numbers, `betweencut.numbers.exact_text`: a student's answer is never run as code); it
is converted to an `ExpRational` and compared coefficient by coefficient (zero iff all
coefficients vanish, Hermite–Lindemann), no float.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from functools import wraps
from typing import ParamSpec

from betweencut.data.tree import Node, PublicTree
from betweencut.errors import BetweenCutError, ParameterError, shown
from betweencut.mechanism.betweencut import BetweenCut, Run
from betweencut.mechanism.calibration import path_query_bound
from betweencut.mechanism.depo import depo
from betweencut.mechanism.guarded_bt import BT
from betweencut.mechanism.params import Params
from betweencut.noise.noisy_test import Outcome
from betweencut.numbers.exact_text import NotExact, bounded, evaluate
from betweencut.proofs.exact.arith import ExpPoly, ExpRational, exact_str
from betweencut.proofs.laws.bt_laws import guarded_exact_law
from betweencut.proofs.laws.tct import q_lambda, theorem_5_4_bound
from betweencut.properties.teaching.basics import node_name, query_steps
from betweencut.properties.teaching.privacy import delta_curve

#: int, Fraction, ExpPoly, ExpRational, a sympy expression or a string (see `as_exact`).
ExactAnswer = object


class WrongAnswer(BetweenCutError, AssertionError):
    """The reader's answer to an exercise is wrong; the message says how (and which way it is
    off, where there is a way), not what is right.

    In a notebook it shows as one line, without a traceback through the checker (issue 36 item
    8: IPython asks an exception for `_render_traceback_`)."""

    def _render_traceback_(self) -> list[str]:
        return [f"WrongAnswer: {self}"]


P = ParamSpec("P")

#: What the student edition's exercise cells pass before the reader writes an answer.
NO_ANSWER = Ellipsis


def answer_required(kind: str) -> Callable[[Callable[P, str]], Callable[P, str]]:
    """Make a checker refuse the student edition's placeholder `...` with a message that says
    the answer is missing and what kind of value (`kind`) the exercise expects."""

    def decorate(check: Callable[P, str]) -> Callable[P, str]:
        @wraps(check)
        def checked(*args: P.args, **kwargs: P.kwargs) -> str:
            if any(a is NO_ANSWER for a in (*args, *kwargs.values())):
                raise WrongAnswer(
                    f"no answer yet: replace ... in the cell with {kind}, then run it again")
            return check(*args, **kwargs)

        return checked

    return decorate


def _correct(text: str) -> str:
    return f"correct: {text}"


def _integer(answer: object, what: str) -> int:
    if isinstance(answer, bool) or not isinstance(answer, int):
        raise WrongAnswer(f"{what} should be an integer, got {answer!r}")
    return answer


# -- exact numbers ------------------------------------------------------------------------------
class _ExpRationals:
    """`betweencut.numbers.exact_text`'s arithmetic for answers: quotients of sums of
    `exp(rational)`, at most `MAX_ANSWER_TERMS` terms in the numerator and in the denominator."""

    what = 'an exact number such as "1 - exp(-1)/2" or "(E - 1)/E" (rationals, exp, + - * / **)'

    def number(self, q: Fraction) -> ExpRational:
        return ExpRational.of(bounded(q))

    def exp(self, x: ExpRational) -> ExpRational:
        rational = _rational_part(x)
        if rational is None:
            raise NotExact("exp of a rational only")
        return ExpRational(ExpPoly.exp(rational))

    def log(self, x: ExpRational) -> ExpRational:
        raise NotExact("log(...) is not a combination of exp(rational) terms")

    def neg(self, x: ExpRational) -> ExpRational:
        return -x

    def add(self, x: ExpRational, y: ExpRational) -> ExpRational:
        return _small(x + y)

    def sub(self, x: ExpRational, y: ExpRational) -> ExpRational:
        return _small(x - y)

    def mul(self, x: ExpRational, y: ExpRational) -> ExpRational:
        return _small(x * y)

    def div(self, x: ExpRational, y: ExpRational) -> ExpRational:
        return _small(x / y)


MAX_ANSWER_TERMS = 64


def _rational_part(x: ExpRational) -> Fraction | None:
    """`x` as a rational if both its parts are constants, else None."""
    if set(x.num.terms) <= {Fraction(0)} and set(x.den.terms) == {Fraction(0)}:
        return x.num.terms.get(Fraction(0), Fraction(0)) / x.den.terms[Fraction(0)]
    return None


def _small(x: ExpRational) -> ExpRational:
    for part in (x.num, x.den):
        if len(part.terms) > MAX_ANSWER_TERMS:
            raise NotExact(f"more than {MAX_ANSWER_TERMS} exp terms")
        for exponent, coeff in part.terms.items():
            bounded(exponent)
            bounded(coeff)
    return x


def as_exact(answer: ExactAnswer) -> ExpRational:
    """Read an answer as an exact number (see the module docstring); raises `WrongAnswer` for
    a float or a form outside rational combinations of `exp(rational)`. Text is read by the
    package's one grammar for numbers (`betweencut.numbers.exact_text`), never evaluated as code."""
    if isinstance(answer, bool | float):
        raise WrongAnswer(f"give an exact number, not the float {answer!r}")
    if isinstance(answer, int | Fraction | ExpPoly | ExpRational):
        return ExpRational.of(answer)
    if isinstance(answer, str):
        try:
            return evaluate(answer, "answer", _ExpRationals())
        except ParameterError as exc:
            reason = str(exc).split(" is not allowed: ", 1)[-1]
            raise WrongAnswer(f"cannot read {shown(answer)}: {reason}") from None
    import sympy

    if not isinstance(answer, sympy.Expr):  # never sympify an object: its str() would be run
        raise WrongAnswer(f"cannot read {shown(answer)} as an exact number")
    num, den = sympy.fraction(sympy.together(answer))
    return ExpRational(_sympy_exppoly(num, answer), _sympy_exppoly(den, answer))


def _sympy_exppoly(expr: object, shown: object) -> ExpPoly:
    import sympy

    from betweencut.proofs.exact.symbolic import sympy_fraction

    out = ExpPoly()
    expanded = sympy.powsimp(sympy.expand(expr), combine="exp")
    for term in sympy.Add.make_args(expanded):
        coeff, rest = term.as_coeff_Mul()
        if not coeff.is_Rational:
            raise WrongAnswer(f"{shown!r}: the coefficient {coeff} is not an exact rational")
        exponent = _exp_argument(rest)
        if exponent is None:
            raise WrongAnswer(f"{shown!r}: the term {rest} is not exp(rational)")
        out = out + ExpPoly.exp(exponent, sympy_fraction(coeff))
    return out


def _exp_argument(rest: object) -> Fraction | None:
    import sympy

    from betweencut.proofs.exact.symbolic import sympy_fraction

    if rest == 1:
        return Fraction(0)
    if rest == sympy.E:
        return Fraction(1)
    base, exponent = rest.as_base_exp()  # type: ignore[attr-defined]
    if isinstance(rest, sympy.exp):
        exponent, base = rest.args[0], sympy.E
    if base == sympy.E and exponent.is_Rational:
        return sympy_fraction(exponent)
    return None


def _same_number(answer: ExactAnswer, expected: ExpPoly | ExpRational | Fraction) -> bool:
    return bool(as_exact(answer) == ExpRational.of(expected))


def _off(answer: ExactAnswer, expected: ExpPoly | ExpRational | Fraction | int) -> str:
    """Which way a wrong answer is off, decided exactly (`sign` of the difference): `"too
    large"` or `"too small"`; `""` when the sign cannot be decided (never a guess)."""
    from betweencut.errors import Undecided
    from betweencut.proofs.exact.arith import sign

    given = answer if isinstance(answer, int) and not isinstance(answer, bool) else None
    try:
        difference = (ExpRational.of(given) if given is not None else as_exact(answer)) \
            - ExpRational.of(expected)
        way = sign(difference)
    except (Undecided, WrongAnswer):
        return ""
    return "too large" if way > 0 else "too small" if way < 0 else ""


def _wrong(what: str, answer: object, expected: ExpPoly | ExpRational | Fraction | int,
           ) -> WrongAnswer:
    """`what` is not `answer`, and which way it is off (`_off`)."""
    way = _off(answer, expected)
    return WrongAnswer(f"{what} is not {answer}" + (f": {answer} is {way}" if way else ""))



def _check_number(answer: ExactAnswer, value: ExpPoly | ExpRational | Fraction, what: str,
                  shown: str) -> str:
    """`correct: <shown>` when `answer` is exactly `value`, else `WrongAnswer` on `what`."""
    if not _same_number(answer, value):
        raise _wrong(what, answer, value)
    return _correct(shown)

# -- notebook 1: GuardedBT -------------------------------------------------------------------
@answer_required('an exact number (an int, a Fraction or a string such as "1 - exp(-1)/2")')
def check_law_value(mechanism: BT, count: int, outcome: Outcome, answer: ExactAnswer) -> str:
    """Exercise: the exact probability `P(mechanism(count) = outcome)` (Alg. 1 / Alg. 4)."""
    value = guarded_exact_law(mechanism, count)[outcome]
    return _check_number(answer, value, f"P({outcome.value}) at c = {count}",
                         f"P({outcome.value}) at c = {count} is {exact_str(value)}")


@answer_required('an integer count')
def check_guard_cut(mechanism: BT, side: Outcome, answer: object) -> str:
    """Exercise: the largest count the lower guard sends to `L` (`side=L`), or the smallest the
    upper guard sends to `H` (`side=H`) (Alg. 1, l. 1-4)."""
    c = _integer(answer, "a count")
    if side not in (Outcome.L, Outcome.H):
        raise ParameterError("side", side, "Outcome.L or Outcome.H")
    inside = mechanism.guard(c) is side
    neighbour = c + 1 if side is Outcome.L else c - 1
    if not inside or mechanism.guard(neighbour) is side:
        which = "largest" if side is Outcome.L else "smallest"
        # L answers every count up to the cut, H every count from it: inside the guard's
        # side, a wrong count is short of the cut; outside, past it
        way = ("too small" if inside else "too large") if side is Outcome.L else (
            "too large" if inside else "too small")
        raise WrongAnswer(f"{c} is not the {which} count the guard answers {side.value}: "
                          f"{c} is {way}")
    return _correct(f"the guard answers {side.value} from c = {c} outwards")


@answer_required('an exact number (a string such as "(1 - exp(-2))/(1 + exp(1/2))")')
def check_q_lambda(lam: Fraction, answer: ExactAnswer) -> str:
    """Exercise: `q_λ = (1 - e^{-2})/(1 + e^λ)` (Eq. (16), Lemma 5.2, Eq. (99)) exactly."""
    value = q_lambda(Fraction(lam))
    return _check_number(answer, value, f"q_lambda at lambda = {lam}",
                         f"q_lambda = {exact_str(value)}")


# -- notebook 2: BetweenCut step by step --------------------------------------------------------
@answer_required('the list of depths in the order DepO visits them')
def check_depo(i: int, j: int, answer: Sequence[int]) -> str:
    """Exercise: the level order `DepO(i, j)` (Alg. 2)."""
    expected = depo(i, j)
    given = list(answer)
    if given != expected:
        first = next((k for k, (x, y) in enumerate(zip(given, expected, strict=False)) if x != y),
                     min(len(given), len(expected)))
        raise WrongAnswer(f"DepO({i}, {j}) differs from {given} at position {first}")
    return _correct(f"DepO({i}, {j}) = {expected}")


@answer_required('an integer')
def check_path_query_bound(height: int, answer: object) -> str:
    """Exercise: `L = ⌈log2(h + 1)⌉`, the most queried nodes on a path (Lemma 4.2, Eq. (14))."""
    value = path_query_bound(height)
    if _integer(answer, "L") != value:
        raise _wrong(f"at h = {height} the bound L of Lemma 4.2", answer, value)
    return _correct(f"L = {value} at h = {height}")


@answer_required('the list of nodes (tuples) the step labels, in order')
def check_step_writes(
    tree: PublicTree, params: Params, leaves: Sequence[Node], run: Run, step: int,
    answer: Iterable[Node],
) -> str:
    """Exercise: the set of nodes whose label was written because of query number `step`
    (1-based) of `run` (Alg. 3, l. 9-15 with Alg. 6)."""
    steps = query_steps(tree, params, leaves, run)
    if not 1 <= step <= len(steps):
        raise ParameterError("step", step, f"1 <= step <= {len(steps)}")
    expected = {u for u, _, _ in steps[step - 1].assignments}
    given = {tuple(u) for u in answer}
    if given != expected:
        missing, extra = len(expected - given), len(given - expected)
        raise WrongAnswer(f"query {step} wrote a different set: {missing} node(s) missing, "
                          f"{extra} node(s) too many")
    names = ", ".join(sorted(node_name(u) for u in expected))
    return _correct(f"query {step} wrote {{{names}}}")


# -- notebook 3: privacy, exactly --------------------------------------------------------------
@answer_required('an exact number (a string such as "exp(-3)/2")')
def check_theorem_5_4_delta(
    L: int, lam: Fraction, R: Fraction | int, r: int, answer: ExactAnswer
) -> str:
    """Exercise: Theorem 5.4's `δ_r = (L/2)·e^{-λ(R-1)} + 1{r<L}·(1 - q_λ)^r` (Eq. (22))."""
    value = theorem_5_4_bound(L, Fraction(lam), R, r)
    return _check_number(answer, value, f"delta_{r} of Theorem 5.4",
                         f"delta_{r} = {exact_str(value)}")


@answer_required('an exact number (a string such as "(1 - exp(-1))/2")')
def check_delta_value(
    tree: PublicTree, params: Params, db: Sequence[Node], z: Node, eps: Fraction,
    answer: ExactAnswer, variant: type[BetweenCut] = BetweenCut,
) -> str:
    """Exercise: the exact enumerated `δ(ε)` of the transcript on the pair `(D, D + z)`."""
    value = delta_curve(tree, params, db, z, [eps], variant)[0].delta
    return _check_number(answer, value, f"delta({eps}) on this pair",
                         f"delta({eps}) = {exact_str(value)}")


@answer_required('an integer r')
def check_pure_multiple(
    tree: PublicTree, params: Params, db: Sequence[Node], z: Node, answer: object,
    variant: type[BetweenCut] = BetweenCut,
) -> str:
    """Exercise: the least integer `r` with `δ(r·λ) = 0` on the pair `(D, D + z)`: the number
    of `λ`-costly queries the pair can tell apart (exactly zero, decided symbolically)."""
    r = _integer(answer, "r")
    if r < 1:
        raise WrongAnswer(f"r = {r} should be at least 1")
    lam = params.lam
    at, below = delta_curve(tree, params, db, z, [r * lam, (r - 1) * lam], variant)
    if not at.delta.is_zero():
        raise WrongAnswer(f"delta({r}*lambda) is not 0: r = {r} is too small")
    if below.delta.is_zero():
        raise WrongAnswer(f"delta({r - 1}*lambda) is already 0: r = {r} is not the least")
    return _correct(f"delta(r*lambda) = 0 first at r = {r}")


# -- notebook 4: error against height ----------------------------------------------------------
@answer_required('an integer')
def check_calibrated_r(height: int, epsilon: object, delta: object, answer: object) -> str:
    """Exercise: `r = min(L, r0)` of Theorem 5.5, Eq. (23), at `(h, ε, δ)`."""
    from betweencut.mechanism.calibration import calibrate

    value = calibrate(height, epsilon, delta).r
    if _integer(answer, "r") != value:
        raise _wrong(f"r at h = {height}", answer, value)
    return _correct(f"r = {value}")


@answer_required('an integer height')
def check_margin_block_end(height: int, answer: object) -> str:
    """Exercise: the largest height with the same `L = ⌈log2(h + 1)⌉` as `height`, hence (for
    fixed `ε`, `δ`) the same BetweenCut margin (Theorem 5.6, Eq. (24))."""
    h = _integer(answer, "a height")
    L = path_query_bound(height)
    if h < 1 or path_query_bound(h) != L:
        raise WrongAnswer(f"h = {h} does not have L = {L}")
    if path_query_bound(h + 1) == L:
        raise WrongAnswer(f"h = {h + 1} still has L = {L}: {h} is not the largest")
    return _correct(f"every h in [{2 ** (L - 1)}, {h}] has L = {L}")


@answer_required('a set of method names')
def check_deterministic_margins(answer: Iterable[str]) -> str:
    """Exercise: which methods of `betweencut margins` have a margin that holds on every run
    (with probability 1), not only except with probability `β`."""
    from betweencut.baselines.margins import DETERMINISTIC

    given = set(answer)
    unknown = given - set(DETERMINISTIC)
    if unknown:
        raise WrongAnswer(f"unknown method names {sorted(unknown)}; use {sorted(DETERMINISTIC)}")
    expected = {name for name, det in DETERMINISTIC.items() if det}
    if given != expected:
        raise WrongAnswer(f"{len(expected - given)} deterministic method(s) missing, "
                          f"{len(given - expected)} probabilistic one(s) included")
    return _correct(f"deterministic: {sorted(expected)}")


# -- notebook 5: PrivTree ----------------------------------------------------------------------
@answer_required('an exact number (an int or a Fraction)')
def check_privtree_scale(epsilon: object, answer: ExactAnswer) -> str:
    """Exercise: PrivTree's Laplace scale `λ_PT = (2β − 1)/((β − 1)·ε)` for fanout `β = 2`."""
    from betweencut.baselines.privtree import PrivTree, box_of

    value = PrivTree.of(box_of((0, 2)), epsilon).scale
    return _check_number(answer, value, f"the scale at epsilon = {epsilon}",
                         f"lambda_PT = {value}")


@answer_required('an exact number (an expression of mech.depth_penalty)')
def check_privtree_score(mechanism: object, n_points: int, depth: int,
                         answer: ExactAnswer) -> str:
    """Exercise: the biased, clamped score `b̂_v = max(n_v − δ_PT·ℓ, θ − δ_PT)`."""
    value = mechanism.score(n_points, depth)  # type: ignore[attr-defined]
    return _check_number(
        answer, value, f"the score of a node at depth {depth} with {n_points} points",
        f"b_hat = {value}")


@answer_required('a box ((x0, x1), (y0, y1))')
def check_first_split(mechanism: object, point: tuple[int, ...], answer: object) -> str:
    """Exercise: the child of the root box that holds `point` after the first split (halve
    the widest side at its integer midpoint, half-open cells)."""
    box = mechanism.box  # type: ignore[attr-defined]
    children = mechanism.split.children(box)  # type: ignore[attr-defined]
    inside = [c for c in children if mechanism.member(point, c)]  # type: ignore[attr-defined]
    if not inside:
        raise ParameterError("point", point, f"a point of the public box {box}")
    given = tuple(tuple(axis) for axis in answer)  # type: ignore[attr-defined]
    if given != inside[0]:
        raise WrongAnswer(f"{point} is not in the child box {given}")
    return _correct(f"{point} lies in {inside[0]}")


# -- notebook 6: privacy at depth --------------------------------------------------------------
@answer_required('one of the names "paper", "kov", "envelope"')
def check_smallest_accountant(L: int, lam: Fraction, R: object, eps: Fraction,
                              answer: object) -> str:
    """Exercise: which accountant (`betweencut.proofs.privacy.accountants.accountant`) gives the
    smallest certified upper bound on `δ(ε)` for BetweenCut with `L`, `λ`, `R`; decided by the exact
    gate (the exercise's point must have a unique smallest one)."""
    from betweencut.proofs.exact.arith import certainly_lt
    from betweencut.proofs.privacy.accountants.accountant import accountant

    names = ("paper", "kov", "envelope")
    if answer not in names:
        raise WrongAnswer(f"{answer!r} is not one of {', '.join(names)}")
    values = {n: accountant(n, L=L, lam=lam, R=R).delta_upper(eps) for n in names}  # type: ignore[arg-type]
    given = values[str(answer)]
    beaten = [n for n in names if n != answer and not certainly_lt(given, values[n])]
    if beaten:
        raise WrongAnswer(f"the {answer} bound is not below the {beaten[0]} bound at eps = {eps}")
    return _correct(f"the {answer} accountant's bound is the smallest at eps = {eps}")


@answer_required('an exact number (a string such as "exp(-1) - exp(-2)/4")')
def check_single_leaf_delta(height: int, params: Params, count: int, eps: Fraction,
                            answer: ExactAnswer) -> str:
    """Exercise: the exact transcript `δ(ε)` (both directions, Def. 2.7) of the single-leaf pair
    `count` vs `count + 1` records on one leaf of the binary tree of `height`, at `ε = rλ`, by
    the path grouping of `betweencut.proofs.privacy.depth.transcript`."""
    from betweencut.properties.teaching.depth import single_leaf_delta

    value = single_leaf_delta(height, params, count, eps)
    return _check_number(answer, value, f"delta({eps}) of the pair {count} vs {count + 1}",
                         f"delta({eps}) = {exact_str(value)}")
