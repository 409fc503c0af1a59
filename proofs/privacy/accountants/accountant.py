"""Privacy accountants for BetweenCut's full transcript: certified UPPER bounds on δ(ε).

Claim: "KOV composition bound (Kairouz et al. 2015) for BetweenCut's transcript".

Preconditions: a public tree of height `h`, `L = ⌈log2(h + 1)⌉` (Eq. (14)), rational
`0 < λ <= 1`, `R >= 1` (rational or `LogReal`), thresholds of Eq. (13), any `τ >= 0`, any
neighbouring pair `D, D' = D + z`.

Postcondition: for every rational `ε >= 0`, `δ_{D,D'}(ε) = max(H_{e^ε}(Tr(D)‖Tr(D')),
H_{e^ε}(Tr(D')‖Tr(D))) <= Accountant.delta_upper(ε)`, the transcript `Tr` of Eq. (112) (so also
for the Heavy set, a function of it).

Derivation (in full in `docs/explanation/accountant.md`):

1. Eq. (4): only the counts on `z`'s root-to-leaf path differ, by exactly one (`c` vs `c + 1`).
2. Lemma 4.2 (Eq. (14)): on every run, whatever the data, at most `L` nodes of any root-to-leaf
   path are queried; so at most `L` of the queries of a run have different laws under `D`, `D'`.
3. Simulation: an adversary that knows `D` and `D'` (everything but which one is used) runs
   Alg. 3 itself; it answers every off-path query by sampling GuardedBT on the shared count (the
   same law under both databases), and hands each on-path query to the next round of an
   `L`-round adaptive composition game (the round's pair of mechanisms is GuardedBT at the
   node's count under `D` and under `D'`); rounds left over at the end are a constant
   mechanism. The transcript is a post-processing of the adversary's view, so its hockey-stick
   divergence is at most the game's (both directions).
4. Lemma 5.3 (Eq. (19), (105)): each round's pair, GuardedBT at `(c, c + 1)` or `(c + 1, c)`, is
   `(λ, δ0)`-indistinguishable with `δ0 = ½·e^{-λ(R-1)}` (both randomized: `λ`-DP by Lemma 5.2;
   one guard crossed: the hockey-stick at `e^λ` is `κ = ½e^{-λd} <= δ0`); a constant round is
   `(0, 0)`-DP, hence `(λ, δ0)`-DP.
5. KOV's optimal composition theorem for `k = L` adaptive `(λ, δ0)`-DP rounds gives, for every
   `ε >= 0`, `δ(ε) <= 1 - (1-δ0)^L·(1 - Σ_l C(L,l)·max(0, e^{(L-l)λ} - e^ε e^{lλ})/(1+e^λ)^L)`.

Accountants: one class each, all implementing the `Accountant` protocol (inputs `L`, `λ`, `R`,
the `claim` it rests on, `errs = "upper"`: every value is an UPPER bound on `δ(ε)`, and
`delta_upper(ε)`, `epsilon_upper(δ)`), chosen by name with `accountant(name, L=, lam=, R=)`:

* `paper` (`PaperAccountant`): Theorem 5.4 (Eq. (22)) at `ε = rλ`, `r = 1..L`; between those
  points the bound of the largest `r` with `rλ <= ε`, and `1` below `λ` (`δ <= 1` always holds).
* `kov` (`KovAccountant`): step 5 above, exact
  (`betweencut.proofs.privacy.accountants.kov.kov_delta`).
* `envelope` (`EnvelopeAccountant`): the dominating pair of the whole GuardedBT family composed
  `L` times with a pessimistic PLD (`betweencut.proofs.privacy.accountants.envelope`): it
  replaces step 4-5's worst-case `(λ, δ0)` pair by the upper envelope of the family's
  hockey-stick curves (adaptive composition of dominating pairs, Zhu–Dong–Wang 2022), a
  certified rational.
* `tight` (`Minimum` of the three, in that order): the pointwise minimum of `paper`, `kov`,
  `envelope` and `1`, chosen by the exact gate: each is an upper bound, so is their minimum.

`epsilon_upper(δ)` is the least `ε` of a grid whose `delta_upper(ε) <= δ` is certified, found by
the package's one bisection (`betweencut.numbers.bisection.certified_bisect`) with the
exact gate as its predicate.

`δ0` is exact (`tct.delta0`) when `λ·coeff` of `R = const + coeff·ln(arg)` is an integer, else a
certified rational UPPER bound (mpmath intervals, outward); every formula is increasing in `δ0`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar, Final, Protocol, Self, Union, runtime_checkable

from betweencut.data.validate import positive_rational
from betweencut.errors import ParameterError, Undecided
from betweencut.numbers.bisection import certified_bisect, grid_midpoint
from betweencut.numbers.exact import LogReal, interval_bounds
from betweencut.proofs.exact.arith import ExpPoly, ExpRational, certainly_le, enclose
from betweencut.proofs.laws.tct import as_log_real, lemma_4_1_bound, q_lambda, theorem_5_4_bound
from betweencut.proofs.laws.tct import delta0 as exact_delta0
from betweencut.proofs.privacy.accountants.envelope import envelope_delta_upper
from betweencut.proofs.privacy.accountants.kov import kov_delta, kov_delta_float

__all__ = [
    "ACCOUNTANTS", "CLAIMS", "Accountant", "EnvelopeAccountant", "KovAccountant", "Minimum",
    "PaperAccountant", "TranscriptAccountant", "UpperDelta", "accountant", "delta0_upper",
]

ACCOUNTANTS: Final = ("paper", "kov", "envelope", "tight")
CLAIMS: Final = {
    "paper": "Theorem 5.4 (Eq. 22)",
    "kov": "KOV composition bound (Kairouz et al. 2015) for BetweenCut's transcript",
    "envelope": "KOV composition bound (Kairouz et al. 2015) for BetweenCut's transcript "
                "(reduction); GuardedBT envelope dominating pair",
    "tight": "KOV composition bound (Kairouz et al. 2015) for BetweenCut's transcript; "
             "GuardedBT envelope dominating pair; Theorem 5.4 (Eq. 22)",
}
UpperDelta = Union[ExpPoly, ExpRational, Fraction]  # noqa: UP007
_DELTA0_BITS: Final = 96
KOV_GRID: Final = Fraction(1, 1 << 20)  # kov's epsilon_upper: the least fitting multiple
ENVELOPE_GRID: Final = 40  # envelope's epsilon_upper: the least fitting multiple of lambda/40


@runtime_checkable
class Accountant(Protocol):
    """A privacy accountant for BetweenCut's transcript: a value with its inputs (`L`, `λ`, `R`),
    the claim it rests on (`claim`), the side its numbers err on (`errs`: `"upper"`, every
    value an upper bound on `δ(ε)`), and both directions of its profile."""

    @property
    def name(self) -> str: ...

    @property
    def claim(self) -> str: ...

    @property
    def errs(self) -> str: ...

    @property
    def L(self) -> int: ...

    @property
    def lam(self) -> Fraction: ...

    @property
    def R(self) -> LogReal: ...

    def delta_upper(self, eps: Fraction) -> UpperDelta:
        """A certified UPPER bound on `δ(ε)`, exact (`certainly_le` compares it)."""
        ...

    def epsilon_upper(self, delta: Fraction, below: Fraction | None = None) -> Fraction:
        """A rational `ε` (`<= below` when given) with `delta_upper(ε) <= δ` certified;
        `ParameterError` if none."""
        ...

    def describe(self) -> dict[str, object]: ...


def delta0_upper(lam: Fraction, R: LogReal | Fraction | int) -> ExpPoly | Fraction:
    """`δ0 = ½·e^{-λ(R-1)}` (Eq. (19)) exactly when `λ·coeff` is an integer (`tct.delta0`),
    else a certified rational UPPER bound: `-λ(R-1)` is enclosed by mpmath intervals and `e^x`
    of its upper end by `ExpPoly` enclosures, both rounded outward."""
    R = as_log_real(R)
    try:
        return exact_delta0(lam, R)
    except ParameterError:
        if R.compare(1) < 0:
            raise
    x = (R - 1) * (-lam)
    _, x_hi = interval_bounds(x.const, x.coeff, x.arg, _DELTA0_BITS)
    _, e_hi = ExpPoly.exp(x_hi).enclose(_DELTA0_BITS)
    return e_hi / 2


def _eps(eps: object) -> Fraction:
    return positive_rational(eps, "eps", zero=True)


def _delta(delta: object) -> Fraction:
    if not isinstance(delta, Fraction | int) or isinstance(delta, bool) or not 0 < delta <= 1:
        raise ParameterError("delta", delta, "a rational 0 < delta <= 1")
    return Fraction(delta)


@dataclass(frozen=True)
class TranscriptAccountant:
    """What the accountants of BetweenCut's transcript share: the inputs (`L` path queries,
    Eq. (14); rational `0 < λ <= 1`; guard budget `R >= 1`, checked), `δ0`, and `epsilon_upper`
    from `delta_upper` (subclasses say where to search). `of(L, lam, R)` reads `R` given as a
    rational too."""

    L: int
    lam: Fraction
    R: LogReal
    name: ClassVar[str] = ""
    errs: ClassVar[str] = "upper"

    def __post_init__(self) -> None:
        if not isinstance(self.L, int) or isinstance(self.L, bool) or self.L < 1:
            raise ParameterError("L", self.L, "an integer L >= 1 (Eq. (14))")
        lam = self.lam
        if not isinstance(lam, Fraction | int) or isinstance(lam, bool) or not 0 < lam <= 1:
            raise ParameterError("lam", lam,
                                 "a rational 0 < lambda <= 1 (Lemma 5.3, Theorem 5.4)")
        if not isinstance(self.R, LogReal):
            raise ParameterError("R", self.R, "a LogReal (use .of for a rational R)")
        if self.R.compare(1) < 0:
            raise ParameterError("R", self.R.exact_str(), "R >= 1")
        object.__setattr__(self, "lam", Fraction(lam))

    @classmethod
    def of(cls, L: int, lam: Fraction, R: LogReal | Fraction | int) -> Self:
        """The accountant for these inputs (`R` a rational or a `LogReal`), checked."""
        return cls(L, lam, as_log_real(R))

    @property
    def claim(self) -> str:
        return CLAIMS[self.name]

    def delta0_upper(self) -> ExpPoly | Fraction:
        """`δ0 = ½·e^{-λ(R-1)}`, exact or a certified rational upper bound."""
        return delta0_upper(self.lam, self.R)

    def delta0_rational_upper(self) -> Fraction:
        """A rational UPPER bound on `δ0` (the exact value when it is rational)."""
        d0 = self.delta0_upper()
        return d0 if isinstance(d0, Fraction) else enclose(d0, 96)[1]

    def delta_upper(self, eps: Fraction) -> UpperDelta:
        raise NotImplementedError

    def fits(self, eps: Fraction, delta: Fraction) -> bool:
        """`delta_upper(ε) <= δ`, decided by the exact gate."""
        return certainly_le(self.delta_upper(eps), delta)

    def epsilon_upper(self, delta: Fraction, below: Fraction | None = None) -> Fraction:
        """A rational `ε` whose `delta_upper(ε) <= δ` is certified (an UPPER bound on the least
        such `ε`), searched up to `below` when given (a value known to fit another bound).
        Raises `ParameterError` when no `ε` reaches `δ` (`δ` below the accountant's bound as
        `ε -> ∞`: the floor `Lδ0` of `paper`, `1 - (1-δ0)^L` of `kov`; or none up to `below`)."""
        delta = _delta(delta)
        top = self.L * self.lam if below is None else min(self.L * self.lam, _eps(below))
        found = self._least_fitting(delta, top)
        if found is None:
            raise ParameterError("delta", delta,
                                 f"delta above the {self.name} accountant's bound as eps -> oo")
        return found

    def _least_fitting(self, delta: Fraction, top: Fraction) -> Fraction | None:
        """The least point of the accountant's grid up to `top` that fits, None if none does."""
        raise NotImplementedError

    def _least_on_grid(self, delta: Fraction, points: Sequence[Fraction],
                       guess: int | None = None) -> Fraction | None:
        """The least of the increasing `points` whose bound fits, by `certified_bisect` (the
        bound is non-increasing in `ε`); None if the last does not fit. A `guess` index is
        tried first: if it fits and the point below it does not, it is the answer."""
        top = len(points) - 1
        if not self.fits(points[top], delta):
            return None

        def fits(i: int) -> bool:
            return self.fits(points[i], delta)

        good, bad = top, -1
        if guess is not None and 0 <= guess < top:
            good, bad = (guess, -1) if fits(guess) else (top, guess)
            if good == guess and guess > 0 and not fits(guess - 1):
                return points[guess]
        good, _ = certified_bisect(fits, good, bad, grid_midpoint)
        return points[good]

    def describe(self) -> dict[str, object]:
        return {"accountant": self.name, "L": self.L, "lambda": str(self.lam),
                "R": self.R.exact_str(), "claim": self.claim}


class _Points(Sequence[Fraction]):
    """`k·step` for `k = 0..n - 1`, then `last` (a lazy increasing grid)."""

    def __init__(self, step: Fraction, n: int, last: Fraction) -> None:
        self.step, self.n, self.last = step, n, last

    def __len__(self) -> int:
        return self.n + 1

    def __getitem__(self, i: int) -> Fraction:  # type: ignore[override]
        return self.last if i == self.n else i * self.step


@dataclass(frozen=True)
class PaperAccountant(TranscriptAccountant):
    """Theorem 5.4 (Eq. (22)) at `ε = rλ`; the bound of the largest `r <= L` with `rλ <= ε`
    between those points, `1` below `λ`: an UPPER bound."""

    name: ClassVar[str] = "paper"

    def delta_upper(self, eps: Fraction) -> UpperDelta:
        eps = _eps(eps)
        r = min(self.L, math.floor(eps / self.lam))
        if r < 1:
            return Fraction(1)
        try:
            return theorem_5_4_bound(self.L, self.lam, self.R, r)
        except ParameterError:  # δ0 not exact: Lemma 4.1 with the certified upper δ0
            return lemma_4_1_bound(self.L, r, self.lam, self.delta0_upper(),
                                   q_lambda(self.lam)).delta

    def _least_fitting(self, delta: Fraction, top: Fraction) -> Fraction | None:
        for r in range(1, self.L + 1):  # the claim's own points rλ, in order
            if r * self.lam > top:
                return None
            if self.fits(r * self.lam, delta):
                return r * self.lam
        return None


@dataclass(frozen=True)
class KovAccountant(TranscriptAccountant):
    """KOV's optimal composition (Kairouz, Oh, Viswanath 2015) of `L` `(λ, δ0)` rounds,
    exact: an UPPER bound (module docstring, steps 1-5)."""

    name: ClassVar[str] = "kov"

    def delta_upper(self, eps: Fraction) -> UpperDelta:
        return kov_delta(self.L, self.lam, self.delta0_upper(), _eps(eps))

    def _least_fitting(self, delta: Fraction, top: Fraction) -> Fraction | None:
        """The least multiple of `KOV_GRID` below `top` that fits, else `top` (at `Lλ` and
        beyond the KOV sum is 0: `δ = 1 - (1-δ0)^L`). A float estimate of the crossing
        (`kov_delta_float`, bisected) proposes the grid index first tried: a speed path, the
        answer is decided by the exact gate either way."""
        points = _Points(KOV_GRID, math.ceil(top / KOV_GRID), top)
        d0 = float(enclose(self.delta0_upper(), 64)[1])
        lam, dlt = float(self.lam), float(delta)

        def roughly(x: float) -> bool:
            return kov_delta_float(self.L, lam, d0, x) <= dlt

        root, _ = certified_bisect(roughly, float(top), 0.0,
                                   lambda good, bad: (good + bad) / 2, steps=60)
        guess = math.ceil(Fraction(root) / KOV_GRID)
        return self._least_on_grid(delta, points, guess)


@dataclass(frozen=True)
class EnvelopeAccountant(TranscriptAccountant):
    """The GuardedBT family's dominating pair composed `L` times, pessimistic PLD: an UPPER
    bound (`1` if the construction's checks cannot be certified)."""

    name: ClassVar[str] = "envelope"

    def delta_upper(self, eps: Fraction) -> UpperDelta:
        try:
            return envelope_delta_upper(self.L, self.lam, self.delta0_rational_upper(),
                                        _eps(eps))
        except Undecided:
            return Fraction(1)

    def _least_fitting(self, delta: Fraction, top: Fraction) -> Fraction | None:
        """The least multiple of `λ/ENVELOPE_GRID` up to `top` that fits."""
        step = self.lam / ENVELOPE_GRID
        n = math.floor(top / step)
        return self._least_on_grid(delta, _Points(step, n, n * step))


@dataclass(frozen=True)
class Minimum:
    """The pointwise minimum of accountants of one mechanism (`parts`, in order; `1` first):
    each is an UPPER bound on `δ(ε)`, so is their minimum, chosen by the exact gate (a later
    part replaces the best only when certainly smaller). `claim` names what it rests on."""

    parts: tuple[Accountant, ...]
    name: str
    claim: str
    errs: ClassVar[str] = "upper"

    def __post_init__(self) -> None:
        if not self.parts:
            raise ParameterError("parts", "()", "at least one accountant")
        first = self.parts[0]
        for part in self.parts[1:]:
            if (part.L, part.lam, part.R) != (first.L, first.lam, first.R):
                raise ParameterError("parts", part.describe(), "accountants of the same inputs")

    @property
    def L(self) -> int:
        return self.parts[0].L

    @property
    def lam(self) -> Fraction:
        return self.parts[0].lam

    @property
    def R(self) -> LogReal:
        return self.parts[0].R

    def delta_upper(self, eps: Fraction) -> UpperDelta:
        eps = _eps(eps)
        best: UpperDelta = Fraction(1)
        for value in [part.delta_upper(eps) for part in self.parts]:
            if not certainly_le(best, value):
                best = value
        return best

    def epsilon_upper(self, delta: Fraction, below: Fraction | None = None) -> Fraction:
        """The least of the parts' `epsilon_upper(δ)` (each certified for its own bound, hence
        for the minimum), each part searching only below the best found so far;
        `ParameterError` if no part reaches `δ`."""
        delta = _delta(delta)
        found: list[Fraction] = []
        for part in self.parts:
            try:
                found.append(part.epsilon_upper(delta, min(found, default=below)))
            except ParameterError:  # this part does not reach delta below the best: others may
                continue
        if not found:
            raise ParameterError("delta", delta,
                                 f"delta above the {self.name} accountant's bound as eps -> oo")
        return min(found)

    def describe(self) -> dict[str, object]:
        return {"accountant": self.name, "L": self.L, "lambda": str(self.lam),
                "R": self.R.exact_str(), "claim": self.claim}


KINDS: Final[dict[str, type[TranscriptAccountant]]] = {
    "paper": PaperAccountant, "kov": KovAccountant, "envelope": EnvelopeAccountant,
}


def accountant(name: str, *, L: int, lam: Fraction, R: LogReal | Fraction | int) -> Accountant:
    """The accountant `name` ("paper", "kov", "envelope" or "tight") for BetweenCut with `L`
    path queries (Eq. (14)), rational `0 < λ <= 1` and guard budget `R >= 1` (checked): the one
    lookup by name (the CLI and the library call it).

    Every accountant's `delta_upper(ε)` is a certified UPPER bound on the transcript's `δ(ε)`;
    `tight` is the pointwise minimum of the others (`Minimum`, in the order paper, kov,
    envelope).
    """
    if name not in ACCOUNTANTS:
        raise ParameterError("name", name, f"one of {', '.join(ACCOUNTANTS)}")
    if name == "tight":
        parts = tuple(KINDS[n].of(L, lam, R) for n in ("paper", "kov", "envelope"))
        return Minimum(parts, "tight", CLAIMS["tight"])
    return KINDS[name].of(L, lam, R)
