"""`audit_mechanism` for a PrivTree (the baseline, a subclass overriding a seam, or one built
with another membership or split rule): this module only resolves the user's input (refuses the
tree arguments, reads the claim and the database sizes, runs the user's rules and seams under
the outside-randomness guard) and calls
`betweencut.proofs.baselines.privtree_checks.privtree_audit_run.audit_privtree_run`, which
chooses the pairs, builds the law cache, bounds `ε` at `δ` over every pair covered and answers
with the same `Verdict` as for any mechanism (its docstring says what `exhaustive=N` and
`search=N` cover).

The PrivTree carries its own public box, so the tree arguments are refused; the claim is the
`(epsilon, delta)` given (never read off the mechanism object: the audited code does not choose
its own claim). `N` of `exhaustive=N` and `search=N` is a database size, `0..MAX_PRIVTREE_SIZE`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from betweencut.api.load import UserMechanism, raised_line
from betweencut.errors import BetweenCutError, MechanismError, ParameterError
from betweencut.proofs.baselines.privtree_checks.privtree_audit_run import (
    MAX_PRIVTREE_SIZE,
    audit_privtree_run,
    is_own,
)
from betweencut.proofs.privacy.audit.run import Pairs
from betweencut.proofs.verdict import Claim, Relation, Release, Verdict, dp_point

__all__ = ["MAX_PRIVTREE_SIZE", "audit_privtree", "is_own"]


def audit_privtree(
    user: UserMechanism, pairs: Iterable[tuple[object, object]] | None, *,
    exhaustive: int | None, search: int | None, epsilon: object, delta: object,
    claim: object, on: tuple[Release, ...] | None, baseline: object, tree: object,
    height: object, tau: object, lam: object, R: object,
    progress: Callable[[Iterable[Any], int], Iterable[Any]] | None,
    relation: Any = None,
) -> Verdict:
    """The PrivTree kind of `betweencut.audit_mechanism` (see the module docstring): the
    input checked, then `audit_privtree_run` (what each kind of pairs covers, under `relation`
    too) with the user's rules and seams under the outside-randomness guard; what they raise is
    a `MechanismError` naming the PrivTree."""
    relation = Relation.of(relation)
    given = [n for n, v in (("tree", tree), ("height", height), ("tau", tau), ("lam", lam),
                            ("R", R)) if v is not None]
    if given:
        raise ParameterError(given[0], "given", f"nothing: {user.name} builds a PrivTree, which "
                             "carries its own public box")
    if baseline is not None:
        raise ParameterError("baseline", baseline, "none for a PrivTree (audit each one)")
    if on not in (None, (Release.OUTPUT,)):
        raise ParameterError("on", ", ".join(on or ()), "'output' (a PrivTree releases its "
                             "partition)")
    if claim is not None:
        raise ParameterError("claim", claim, "epsilon= and delta= for a PrivTree")
    eps, dlt = dp_point(epsilon, delta)
    for name, n in (("exhaustive", exhaustive), ("search", search)):
        if n is not None and (isinstance(n, bool) or not isinstance(n, int)
                              or not 0 <= n <= MAX_PRIVTREE_SIZE):
            raise ParameterError(name, n, f"a PrivTree database size 0..{MAX_PRIVTREE_SIZE}")
    from betweencut.api.load import in_user_code
    from betweencut.boundary.sandbox import OutsideRandomness

    own = is_own(user.built)
    the_claim = Claim.dp(eps, dlt).under(relation)
    which = Pairs(pairs, exhaustive, search)
    try:
        with in_user_code(refuse=not own):  # your rules and seams: outside randomness refused
            return audit_privtree_run(user.built, user.name, user.kind, which, the_claim,
                                      relation, progress)
    except OutsideRandomness as exc:
        raise MechanismError(f"the PrivTree of {user.name} {exc}") from None
    except (BetweenCutError, KeyboardInterrupt):
        raise
    except BaseException as exc:  # the user's membership rule, split rule or run
        raise MechanismError(f"the PrivTree of {user.name} raised {raised_line(exc)}") from None
