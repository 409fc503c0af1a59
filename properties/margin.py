"""Theorem C.2 (Eq. (121)-(122)): the deterministic margin, checked exactly on one run.

With `E = w + R` (Theorem 5.6, Eq. (24)): a Heavy node has `c_u > τ - E` and a node that is not
Heavy has `c_u < τ + E`, on every run, whatever the noise did. `E` may be irrational after
calibration, so each comparison is `LogReal.compare` (certified, never a float).
"""

from __future__ import annotations

from collections.abc import Sequence

from betweencut.data.tree import Node, PublicTree
from betweencut.mechanism.betweencut import path_counts
from betweencut.mechanism.params import Params
from betweencut.proofs.registry import claim
from betweencut.properties.violation import PropertyViolation, RunRecord

THEOREM_C_2 = "Theorem C.2"


@claim("Theorem C.2")
def check_theorem_c_2(
    tree: PublicTree, leaves: Sequence[Node], params: Params, run: RunRecord
) -> None:
    """Theorem C.2: `u in Heavy => c_u > τ - (w + R)` and `u not in Heavy => c_u < τ + (w + R)`,
    for every node of `tree` (the public tree the run was on). Zero-count nodes outside Heavy
    satisfy the second half because `τ >= 0` and `E > 0` (checked, not assumed), so only Heavy
    and positive-count nodes are compared. The witness is the shallowest offending node."""
    counts = path_counts(leaves)
    margin = params.margin
    if params.tau < 0 or margin.sign() <= 0:
        raise PropertyViolation(
            THEOREM_C_2, "parameters outside the theorem (tau >= 0, E > 0)",
            {"tau": params.tau, "E": margin.exact_str()},
        )
    candidates = set(run.heavy) | set(counts)
    for u in sorted(candidates, key=lambda v: (len(v), v)):
        c = counts.get(u, 0)
        if u in run.heavy:
            if margin.compare(params.tau - c) <= 0:  # not c > tau - E
                raise PropertyViolation(
                    THEOREM_C_2, "a Heavy node has c_u <= tau - (w + R)",
                    {"node": u, "count": c, "tau": params.tau, "E": margin.exact_str()},
                )
        elif margin.compare(c - params.tau) <= 0:  # not c < tau + E
            raise PropertyViolation(
                THEOREM_C_2, "a node that is not Heavy has c_u >= tau + (w + R)",
                {"node": u, "count": c, "tau": params.tau, "E": margin.exact_str()},
            )
