"""`q_λ >= 1/5` for every `0 < λ <= 1` (Eq. (16)): a proof over the whole interval.

`q_λ = (1 - e^{-2})/(1 + e^λ)`. Step 1 (monotone, symbolic): sympy differentiates `q_λ` and the
checker verifies the identity `dq/dλ = -K·e^λ/(1 + e^λ)^2` with `K = 1 - e^{-2}` (a symbolic zero
test of the difference), then that `e^λ/(1 + e^λ)^2 > 0` for every real `λ` (sympy's assumption
system, no numbers) and `K > 0` (the exact gate: `K` is an `ExpPoly`). So `q_λ` is strictly
decreasing on `(0, 1]`. Step 2 (end point, exact): `q_1 >= 1/5` iff `4 - 5e^{-2} - e >= 0`,
decided by the gate. Hence `min_{0<λ<=1} q_λ = q_1 >= 1/5`.
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp

from betweencut.proofs.exact.arith import ExpPoly, enclose, exact_str, sign
from betweencut.proofs.exact.certificate import Certificate, ClaimRefuted
from betweencut.proofs.laws.tct import q_lambda
from betweencut.proofs.registry import claim

__all__ = ["check_q_lambda_at_least_one_fifth"]

CLAIM = "Eq. (16)"


@claim("Eq. (16)", "q_lambda >= 1/5")
def check_q_lambda_at_least_one_fifth(lower: Fraction = Fraction(1, 5),
                                      lam_max: Fraction = Fraction(1)) -> Certificate:
    """Claim: Eq. (16): `q_λ = (1 - e^{-2})/(1 + e^λ) >= 1/5` for every `0 < λ <= 1`.

    Preconditions: `0 < lam_max` rational (the paper: 1), `lower` rational (the paper: 1/5).
    Checks: (1) symbolically, `dq/dλ = -(1 - e^{-2})·e^λ/(1 + e^λ)^2` and this is `< 0` for
    all real `λ` (sympy identity and sign by assumptions; `1 - e^{-2} > 0` by the exact gate);
    (2) exactly, `q_{lam_max} >= lower` (an `ExpRational` decided by the gate).
    Returns: a Certificate (method `exact`, scope `all 0 < lambda <= lam_max`).
    Raises: `ClaimRefuted` with `q_{lam_max}` if the end point fails or a step does not hold.
    """
    lam = sp.Symbol("lam", real=True)
    K = 1 - sp.exp(-2)
    q = K / (1 + sp.exp(lam))
    derivative = sp.diff(q, lam)
    claimed = -K * sp.exp(lam) / (1 + sp.exp(lam)) ** 2
    params = {"lambda": f"(0, {lam_max}]", "lower": lower}
    if sp.simplify(derivative - claimed) != 0:
        raise ClaimRefuted(CLAIM, "dq/dlambda is not -K e^lam/(1+e^lam)^2",
                           {**params, "derivative": str(derivative)})
    k = sp.Symbol("k", positive=True)
    if (-k * sp.exp(lam) / (1 + sp.exp(lam)) ** 2).is_negative is not True:
        raise ClaimRefuted(CLAIM, "sign of the derivative not established", params)
    K_exact = 1 - ExpPoly.exp(-2)
    if sign(K_exact) <= 0:
        raise ClaimRefuted(CLAIM, "1 - e^-2 is not positive", params)
    end = q_lambda(Fraction(lam_max))
    if sign(end - lower) < 0:
        raise ClaimRefuted(CLAIM, f"q at lambda = {lam_max} is below {lower}",
                           {**params, "q_end": exact_str(end),
                            "q_end_in": [str(x) for x in enclose(end, 64)]})
    return Certificate(CLAIM, params, "exact", {
        "dq/dlambda": str(claimed), "q_end": exact_str(end),
        "q_end_in": [str(x) for x in enclose(end, 64)], "lower": lower},
        scope=f"all 0 < lambda <= {lam_max}")
