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

Accountants (all with the error direction in the name: every value is an UPPER bound):

* `paper`: Theorem 5.4 (Eq. (22)) at `ε = rλ`, `r = 1..L`; between those points the bound of
  the largest `r` with `rλ <= ε`, and `1` below `λ` (`δ <= 1` always holds).
* `kov`: step 5 above, exact (`betweencut.proofs.privacy.accountants.kov.kov_delta`).
* `envelope`: the dominating pair of the whole GuardedBT family composed `L` times with a
  pessimistic PLD (`betweencut.proofs.privacy.accountants.envelope`): it replaces step 4-5's
  worst-case
  `(λ, δ0)` pair by the upper envelope of the family's hockey-stick curves (adaptive composition
  of dominating pairs, Zhu–Dong–Wang 2022), a certified rational.
* `tight`: the pointwise minimum of `paper`, `kov`, `envelope` and `1`, chosen by the exact
  gate: each is an upper bound, so is their minimum.

`δ0` is exact (`tct.delta0`) when `λ·coeff` of `R = const + coeff·ln(arg)` is an integer, else a
certified rational UPPER bound (mpmath intervals, outward); every formula is increasing in `δ0`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Final, Union

from betweencut.errors import ParameterError, Undecided
from betweencut.exact import LogReal, interval_bounds
from betweencut.proofs.exact.arith import ExpPoly, ExpRational, certainly_le, enclose
from betweencut.proofs.laws.tct import delta0 as exact_delta0
from betweencut.proofs.laws.tct import lemma_4_1_bound, q_lambda, theorem_5_4_bound
from betweencut.proofs.privacy.accountants.envelope import envelope_delta_upper
from betweencut.proofs.privacy.accountants.kov import kov_delta

__all__ = ["ACCOUNTANTS", "Accountant", "UpperDelta", "accountant", "delta0_upper"]

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


def _as_logreal(R: LogReal | Fraction | int) -> LogReal:
    if isinstance(R, LogReal):
        return R
    if isinstance(R, Fraction | int) and not isinstance(R, bool):
        return LogReal(Fraction(R))
    raise ParameterError("R", R, "a rational R >= 1 or a LogReal const + coeff*ln(arg)")


def delta0_upper(lam: Fraction, R: LogReal | Fraction | int) -> ExpPoly | Fraction:
    """`δ0 = ½·e^{-λ(R-1)}` (Eq. (19)) exactly when `λ·coeff` is an integer (`tct.delta0`),
    else a certified rational UPPER bound: `-λ(R-1)` is enclosed by mpmath intervals and `e^x`
    of its upper end by `ExpPoly` enclosures, both rounded outward."""
    R = _as_logreal(R)
    try:
        return exact_delta0(lam, R)
    except ParameterError:
        if R.compare(1) < 0:
            raise
    x = (R - 1) * (-lam)
    _, x_hi = interval_bounds(x.const, x.coeff, x.arg, _DELTA0_BITS)
    _, e_hi = ExpPoly.exp(x_hi).enclose(_DELTA0_BITS)
    return e_hi / 2


def float_kov(L: int, lam: float, d0: float, eps: float) -> float:
    """A float estimate of `kov_delta` (search only: never a verdict)."""
    s = sum(math.comb(L, i) * max(0.0, math.exp((L - i) * lam) - math.exp(eps + i * lam))
            for i in range(L + 1)) / (1 + math.exp(lam)) ** L
    return 1 - (1 - d0) ** L * (1 - s)


@dataclass(frozen=True)
class Accountant:
    """A privacy accountant for BetweenCut's transcript: a value (inputs, claim, name) whose
    `delta_upper(ε)` is a certified UPPER bound on `δ(ε)` for every neighbouring pair and
    every `τ` (see the module docstring for the derivation; `claim` names what it rests on)."""

    name: str
    L: int
    lam: Fraction
    R: LogReal
    claim: str

    # δ0 ----------------------------------------------------------------------------------
    def delta0_upper(self) -> ExpPoly | Fraction:
        """`δ0 = ½·e^{-λ(R-1)}`, exact or a certified rational upper bound."""
        return delta0_upper(self.lam, self.R)

    # δ(ε) --------------------------------------------------------------------------------
    def paper_delta_upper(self, eps: Fraction) -> UpperDelta:
        """Theorem 5.4 at the largest `r <= L` with `rλ <= ε` (`1` if `ε < λ`): UPPER bound."""
        r = min(self.L, math.floor(Fraction(eps) / self.lam))
        if r < 1:
            return Fraction(1)
        try:
            return theorem_5_4_bound(self.L, self.lam, self.R, r)
        except ParameterError:  # δ0 not exact: Lemma 4.1 with the certified upper δ0
            return lemma_4_1_bound(self.L, r, self.lam, self.delta0_upper(),
                                   q_lambda(self.lam)).delta

    def kov_delta_upper(self, eps: Fraction) -> UpperDelta:
        """KOV's optimal composition with `k = L`, `(λ, δ0)` rounds: UPPER bound."""
        return kov_delta(self.L, self.lam, self.delta0_upper(), Fraction(eps))

    def delta0_rational_upper(self) -> Fraction:
        """A rational UPPER bound on `δ0` (the exact value when it is rational)."""
        d0 = self.delta0_upper()
        return d0 if isinstance(d0, Fraction) else enclose(d0, 96)[1]

    def envelope_delta_upper(self, eps: Fraction) -> UpperDelta:
        """The GuardedBT family's dominating pair composed `L` times, pessimistic PLD: UPPER
        bound (`1` if the construction's checks cannot be certified)."""
        try:
            return envelope_delta_upper(self.L, self.lam, self.delta0_rational_upper(),
                                        Fraction(eps))
        except Undecided:
            return Fraction(1)

    def delta_upper(self, eps: Fraction) -> UpperDelta:
        """A certified UPPER bound on `δ(ε)` of the full transcript, every neighbouring pair.

        Preconditions: rational `ε >= 0` (checked). Returns an exact `ExpRational`,
        `ExpPoly` or `Fraction` that `certainly_le(exact_delta, bound)` can compare.
        """
        eps = _eps(eps)
        if self.name == "paper":
            return self.paper_delta_upper(eps)
        if self.name == "kov":
            return self.kov_delta_upper(eps)
        if self.name == "envelope":
            return self.envelope_delta_upper(eps)
        best: UpperDelta = Fraction(1)
        for value in (self.paper_delta_upper(eps), self.kov_delta_upper(eps),
                      self.envelope_delta_upper(eps)):
            if not certainly_le(best, value):
                best = value
        return best

    # ε(δ) --------------------------------------------------------------------------------
    def epsilon_upper(self, delta: Fraction) -> Fraction:
        """A rational `ε` whose `delta_upper(ε) <= δ` is certified (an UPPER bound on the least
        such `ε`). Raises `ParameterError` when no `ε` reaches `δ` (`δ` below the floor `Lδ0`
        of `paper` or `1 - (1-δ0)^L` of `kov`)."""
        delta = Fraction(delta)
        if not 0 < delta <= 1:
            raise ParameterError("delta", delta, "0 < delta <= 1")
        found = []
        if self.name in ("paper", "tight"):
            found += self._paper_epsilon(delta)
        if self.name in ("kov", "tight"):
            found += self._kov_epsilon(delta)
        if self.name in ("envelope", "tight"):
            found += self._envelope_epsilon(delta, min(found, default=self.L * self.lam))
        if not found:
            raise ParameterError("delta", delta,
                                 f"delta above the {self.name} accountant's bound as eps -> oo")
        return min(found)

    def _paper_epsilon(self, delta: Fraction) -> list[Fraction]:
        for r in range(1, self.L + 1):
            if certainly_le(self.paper_delta_upper(r * self.lam), delta):
                return [r * self.lam]
        return []

    def _kov_epsilon(self, delta: Fraction) -> list[Fraction]:
        top = self.L * self.lam  # at ε >= Lλ the KOV sum is 0: δ = 1 - (1-δ0)^L
        if not certainly_le(self.kov_delta_upper(top), delta):
            return []
        d0 = float(enclose(self.delta0_upper(), 64)[1])
        lam = float(self.lam)
        lo, hi = 0.0, float(top)
        for _ in range(60):  # float bisection: a speed path, the result is checked exactly
            mid = (lo + hi) / 2
            lo, hi = (lo, mid) if float_kov(self.L, lam, d0, mid) <= float(delta) else (mid, hi)
        step = Fraction(1, 1 << 20)
        candidate = Fraction(math.ceil(Fraction(hi) / step)) * step
        while candidate < top:
            if certainly_le(self.kov_delta_upper(candidate), delta):
                return [candidate]
            step *= 4
            candidate = Fraction(math.ceil(candidate / step) + 1) * step
        return [top]

    def _envelope_epsilon(self, delta: Fraction, start: Fraction) -> list[Fraction]:
        """Bisection on the grid `λ/40` below `start` for the least `ε` whose envelope bound is
        certified `<= δ` (every returned `ε` is checked by the exact gate)."""
        step = self.lam / 40
        hi = math.floor(start / step)
        if not certainly_le(self.envelope_delta_upper(hi * step), delta):
            return []
        lo = -1  # invariant: hi fits, lo does not (or is below 0)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if certainly_le(self.envelope_delta_upper(mid * step),
                                               delta) else (mid, hi)
        return [hi * step]

    def describe(self) -> dict[str, object]:
        return {"accountant": self.name, "L": self.L, "lambda": str(self.lam),
                "R": self.R.exact_str(), "claim": self.claim}


def _eps(eps: object) -> Fraction:
    if not isinstance(eps, Fraction | int) or isinstance(eps, bool) or eps < 0:
        raise ParameterError("eps", eps, "a rational eps >= 0")
    return Fraction(eps)


def accountant(name: str, *, L: int, lam: Fraction, R: LogReal | Fraction | int) -> Accountant:
    """The accountant `name` ("paper", "kov", "envelope" or "tight") for BetweenCut with `L`
    path queries (Eq. (14)), rational `0 < λ <= 1` and guard budget `R >= 1`.

    Every accountant's `delta_upper(ε)` is a certified UPPER bound on the transcript's `δ(ε)`;
    `tight` is the pointwise minimum of the others.
    """
    if name not in ACCOUNTANTS:
        raise ParameterError("name", name, f"one of {', '.join(ACCOUNTANTS)}")
    if not isinstance(L, int) or isinstance(L, bool) or L < 1:
        raise ParameterError("L", L, "an integer L >= 1 (Eq. (14))")
    if not isinstance(lam, Fraction | int) or isinstance(lam, bool) or not 0 < lam <= 1:
        raise ParameterError("lam", lam, "a rational 0 < lambda <= 1 (Lemma 5.3, Theorem 5.4)")
    big_r = _as_logreal(R)
    if big_r.compare(1) < 0:
        raise ParameterError("R", big_r.exact_str(), "R >= 1")
    return Accountant(name, L, Fraction(lam), big_r, CLAIMS[name])
