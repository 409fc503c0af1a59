"""q-target witnesses (Def. 2.8 / 5.1) and their exact verifier.

A witness for "`T` is a `q`-target of `(P0, P1)` with `(λ, κ)`" is `p, C, N0, N1, κ, F0, F1` with

    P_b = (1 - κ)·(p·C + (1 - p)·N_b) + κ·F_b,   N0 ≈λ N1,   min_b N_b(T) >= q.

`verify_target_witness` checks every condition exactly (Fractions or exact `ExpRational`s,
decided through the gate `betweencut.proofs.exact.arith.sign`) and names the first violated one with
its numbers. `N0 ≈λ N1` is checked outcome by outcome (`N0(y) <= ξ·N1(y)` and back), which is
equivalent to Def. 2.7 on every event because event probabilities are sums of outcome ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Generic

from betweencut.noise.noisy_test import Outcome
from betweencut.proofs.exact.arith import ExpRational, certainly_le, exact_str, sign
from betweencut.proofs.exact.certificate import ClaimRefuted
from betweencut.proofs.laws.models import OUTCOMES, V

__all__ = ["Law", "TargetWitness", "is_zero", "law_str", "verify_target_witness"]

Law = Mapping[Outcome, V]


def law_str(law: Mapping[Outcome, object]) -> dict[str, str]:
    return {s.value: exact_str(v) for s, v in law.items()}  # type: ignore[arg-type]


@dataclass(frozen=True)
class TargetWitness(Generic[V]):
    """The numbers of Def. 5.1 for one pair `(P0, P1)`; `case` names the proof step used."""

    p: V
    C: Mapping[Outcome, V]
    N0: Mapping[Outcome, V]
    N1: Mapping[Outcome, V]
    kappa: V
    F0: Mapping[Outcome, V]
    F1: Mapping[Outcome, V]
    case: str = ""

    def perturbed(self, field: str, outcome: Outcome | None, eps: Fraction) -> TargetWitness[V]:
        """A copy with `eps` added to one coordinate (for rejection tests)."""
        value = getattr(self, field)
        changes: dict[str, Any] = {}
        if outcome is None:
            changes[field] = value + eps
        else:
            changes[field] = {**value, outcome: value[outcome] + eps}
        return replace(self, **changes)

    def as_json(self) -> dict[str, object]:
        return {"case": self.case, "p": exact_str(self.p), "kappa": exact_str(self.kappa),
                "C": law_str(self.C), "N0": law_str(self.N0), "N1": law_str(self.N1),
                "F0": law_str(self.F0), "F1": law_str(self.F1)}


def verify_target_witness(
    claim: str,
    P0: Law[V],
    P1: Law[V],
    w: TargetWitness[V],
    xi: V,
    q: V,
    kappa_max: V,
    target: frozenset[Outcome] = frozenset({Outcome.B}),
    context: Mapping[str, object] | None = None,
) -> None:
    """Raise `ClaimRefuted` (naming the condition and its numbers) unless `w` is a witness.

    Checks, all exactly: `C, N0, N1, F0, F1` are distributions (non-negative, sum 1);
    `0 <= p <= 1`; `0 <= κ <= kappa_max`; the mixture identity for each `b` and outcome;
    `N0(y) <= ξ·N1(y)` and `N1(y) <= ξ·N0(y)` for each `y`; `N_b(T) >= q` for each `b`.
    """
    ctx = dict(context or {})

    def refute(message: str, **numbers: object) -> ClaimRefuted:
        return ClaimRefuted(claim, message, {**ctx, **{k: _s(v) for k, v in numbers.items()},
                                             "witness_case": w.case})

    for name, dist in (("C", w.C), ("N0", w.N0), ("N1", w.N1), ("F0", w.F0), ("F1", w.F1)):
        for s in OUTCOMES:
            if sign(dist[s]) < 0:
                raise refute(f"{name}({s.value}) < 0", value=dist[s])
        mass = sum((dist[s] for s in OUTCOMES[1:]), dist[OUTCOMES[0]])
        if not is_zero(mass - 1):
            raise refute(f"{name} does not sum to 1", total=mass)
    if not (certainly_le(0, w.p) and certainly_le(w.p, 1)):
        raise refute("p outside [0, 1]", p=w.p)
    if not certainly_le(0, w.kappa):
        raise refute("kappa < 0", kappa=w.kappa)
    if not certainly_le(w.kappa, kappa_max):
        raise refute("kappa exceeds the claimed bound", kappa=w.kappa, kappa_max=kappa_max)
    for b, P, N, F in ((0, P0, w.N0, w.F0), (1, P1, w.N1, w.F1)):
        for s in OUTCOMES:
            rebuilt = (1 - w.kappa) * (w.p * w.C[s] + (1 - w.p) * N[s]) + w.kappa * F[s]
            if not is_zero(rebuilt - P[s]):
                raise refute(f"mixture identity fails: P{b}({s.value}) is not rebuilt",
                             P=P[s], rebuilt=rebuilt, outcome=s.value, b=b)
    for s in OUTCOMES:
        if not certainly_le(w.N0[s], xi * w.N1[s]):
            raise refute(f"N0({s.value}) > xi*N1({s.value})", N0=w.N0[s], N1=w.N1[s], xi=xi)
        if not certainly_le(w.N1[s], xi * w.N0[s]):
            raise refute(f"N1({s.value}) > xi*N0({s.value})", N0=w.N0[s], N1=w.N1[s], xi=xi)
    for b, N in ((0, w.N0), (1, w.N1)):
        hit = sum((N[s] for s in target), 0 * q)
        if not certainly_le(q, hit):
            raise refute(f"N{b}(target) < q", N_target=hit, q=q, b=b)


def is_zero(x: Fraction | ExpRational) -> bool:
    """Exact zero test (no intervals): `ExpRational` is zero iff its numerator's terms vanish."""
    return x == 0 if isinstance(x, Fraction) else x.is_zero()


def _s(x: object) -> object:
    if isinstance(x, int | str | Fraction):
        return x
    return exact_str(x)  # type: ignore[arg-type]
