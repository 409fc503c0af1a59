"""`audit_mechanism`: is a mechanism (ε, δ)-DP on the pairs audited? One function for every
kind (issue 22): a function `(db, test)`, a builder `(tree, params)` (BetweenCut and its
variants), a PrivTree, asking fresh-noise `BTQuery` tests or the shared-noise primitives.

The pairs are given (`pairs`), every database up to a size (`exhaustive`), or searched
(`search`, derandomised Hypothesis). The claim is `(epsilon, delta)`, or a list of points, or
`"theorem-5.4"` (Eq. (22) at the builder's parameters, with Theorem 5.5's `(ε, δ)` too when
they were calibrated), or a Rényi claim `"zcdp:RHO"` / `"rdp:ALPHA:EPS"` (a mechanism asking
the field's primitives, `betweencut.noise`). The answer is a `Verdict`
(`betweencut.proofs.verdict`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Any

from betweencut.api.load import (
    BUILDER,
    PRIVTREE,
    UserMechanism,
    build,
    guarded,
    resolve,
    user_first,
)
from betweencut.api.privtree import audit_privtree, is_own
from betweencut.boundary.seal import sealing
from betweencut.boundary.seams import packaged
from betweencut.data.tree import PublicTree, kary_tree
from betweencut.errors import ParameterError, shown
from betweencut.mechanism.calibration import AccountantKind, Calibration
from betweencut.mechanism.params import Params
from betweencut.proofs.privacy.accountants import Chosen
from betweencut.proofs.privacy.audit.run import Audited, Pairs, audit_run, claim_of
from betweencut.proofs.verdict import Relation, Release, Verdict

__all__ = ["MAX_AUDIT_NODES", "MAX_AUDIT_PAIRS", "MAX_EXHAUSTIVE", "audit_mechanism"]

# Enumeration sizes that finish in reasonable time (measured: binary h = 4, every pair with
# |D| <= 2, 360 pairs, about 17 s; one pair on the 4-ary tree of height 3, 21 nodes, > 40 s).
MAX_AUDIT_NODES = 15
MAX_AUDIT_PAIRS = 400
MIN_AUDIT_LAMBDA = Fraction(1, 1000)  # exact weights e^(-lambda*x) grow with 1/lambda and R
MAX_AUDIT_R = 1000
MAX_AUDIT_TAU = 10**6
MAX_EXHAUSTIVE = 64


@sealing
def audit_mechanism(
    mechanism: object,
    pairs: Iterable[tuple[object, object]] | None = None,
    *,
    exhaustive: int | None = None,
    search: int | None = None,
    max_size: int | None = None,
    epsilon: object = None,
    delta: object = None,
    claim: str | Sequence[tuple[object, object]] | None = None,
    on: str | Sequence[str] | None = None,
    baseline: object = None,
    tree: PublicTree | None = None,
    height: int | None = None,
    arity: int = 2,
    tau: object = None,
    lam: object = None,
    R: object = None,
    accountant: str | AccountantKind = AccountantKind.PAPER,
    progress: Callable[[Iterable[Any], int], Iterable[Any]] | None = None,
    seed: int | None = None,
    neighbours: object = "add-remove",
    strict: bool = False,
    first: bool = False,
) -> Verdict:
    """Audit `mechanism` (a `MODULE:CALLABLE` string or the object) on neighbouring pairs.

    `neighbours` is the relation of the pairs (stated in the verdict's `claim.neighbours`):
    "add-remove" (default: a pair is `(D, z)`, `D` against `D + z`), "replace-one" (a pair is
    `(D, D')` with one record of `D` replaced; `exhaustive=N`: every pair of databases of at most
    `N + 1` records; no `search` or `baseline`), "add-remove-bounded:n" (add/remove pairs with
    `|D + z| <= n`, a public bound).

    Preconditions (checked, `ParameterError` naming the argument otherwise): exactly one of
    `pairs` (`(D, z)` with `D` an iterable of records or a database text `{0/0*2, 0/1}` and `z`
    a record or its text), `exhaustive=N` (every `|D| <= N`, every added record) and `search=N`
    (`N` pairs drawn, `|D| <= max_size`, default 3; derandomised, the same pairs on every run,
    or seeded with `seed` for other pairs, the same for that seed); a public tree (`tree`, or
    `height` and `arity`) for a function or a builder; for a builder, `tau` with `lam` and `R`,
    or with `epsilon` and `delta` (calibrated by `accountant`: an `AccountantKind`, or its name
    "paper" or "tight"); the claim: `epsilon` and `delta` (`0 <= delta < 1`), a list of `(eps,
    delta)` points, or `"theorem-5.4"` (the default for a builder given `lam` and `R`); or, for
    a mechanism asking the field's primitives, `"zcdp:RHO"` (`D_α <= ρα` at every order `α > 1`,
    refuted at a witness order or certified: `betweencut.proofs.privacy.divergence.renyi`) or
    `"rdp:ALPHA:EPS"` (one order), on the whole output, with no `epsilon`/`delta`.
    `first`: a refuted claim stops at the first refuting pair (the CI use: `verdict.first`
    says so); by default the audit goes on over every pair (or its whole search) and reports
    the worst: the refutation with the largest `δ_pair(ε) - δ` and `epsilon_at_delta`, the
    largest over every pair, each with its pair (issue 35, item 4).
    Returns: a `Verdict`; `rows` per pair, claimed point and release (`on`: "output", the
    mechanism's whole output, default; or a public attribute of it such as "transcript",
    "heavy"; several with a list; a `Release` or its name, read once by `Release.several`);
    for an exhaustive or searched audit the worst pair's rows; `facts`:
    `epsilon_at_delta` (the largest over the pairs audited, a certified lower bound on the
    mechanism's ε at the claimed δ, with its pair and exact curve) and, with `baseline`, the
    privacy regressions against it.
    `strict=True` (strict mode, issue 34): the mechanism's source, and every function of your
    modules it reaches, is first verified pure (`betweencut.boundary.purity`), before any of
    it runs; the verdict then states "pure: verified" in its `assumes`.
    Raises: `MechanismError` when the user's code fails to load or raises (one line naming
    the database), `NotPure` (a `MechanismError`) under strict mode naming the file, line and
    construct, `ParameterError` on bad input, `Undecided` when the gate cannot decide.
    """
    from betweencut.proofs import assumes as a

    if not isinstance(strict, bool):
        raise ParameterError("strict", strict, "True or False")
    user = resolve(mechanism, strict=strict)
    relation = Relation.of(neighbours)
    releases = None if on is None else Release.several(on)  # `on` read once, on this route
    if relation.is_replace and (search is not None or baseline is not None):
        raise ParameterError("search" if search is not None else "baseline", "given",
                             "add/remove pairs only (replace-one: pairs= or exhaustive=N)")
    modes = [pairs is not None, exhaustive is not None, search is not None]
    if sum(modes) != 1:
        raise ParameterError("pairs", "none given" if not any(modes) else "several given",
                             "exactly one of pairs=, exhaustive=N or search=N")
    if max_size is not None and search is None:
        raise ParameterError("max_size", max_size, "only with search=N")
    if seed is not None and (search is None or isinstance(seed, bool) or not isinstance(
            seed, int) or not 0 <= seed < 2**64):
        raise ParameterError("seed", seed, "an integer 0..2^64 - 1, only with search=N on a "
                             "tree's leaves (default: derandomised, the same pairs every run)")
    chosen = Chosen.of(accountant)  # the accountant's name read once, on this route
    if not isinstance(first, bool):
        raise ParameterError("first", repr(first), "True (stop at the first refutation) or "
                             "False (the worst pair, the default)")
    if user.kind == PRIVTREE:
        if seed is not None:
            raise ParameterError("seed", seed, "none for a PrivTree (its search=N lists every "
                                 "database of few distinct points: nothing is drawn)")
        if chosen.kind is not AccountantKind.PAPER:
            raise ParameterError("accountant", str(chosen), "the default: it calibrates "
                                 "BetweenCut, a PrivTree carries its own noise")
        listed = None if pairs is None else list(pairs)

        def privtree() -> Verdict:
            return audit_privtree(user, listed, exhaustive=exhaustive, search=search,
                                  epsilon=epsilon, delta=delta, claim=claim, on=releases,
                                  baseline=baseline, tree=tree, height=height, tau=tau,
                                  lam=lam, R=R, progress=progress, relation=relation)

        if not is_own(user.built) or baseline is not None:  # your seams: a child first
            user_first(privtree, user.name, "while auditing it")
        found = privtree()
        found.assumes = a.strict(found.assumes, user.pure)
        return found
    t = _tree(tree, height, arity, exhaustive, relation)
    renyi = _renyi_claim(claim, epsilon, delta, releases, search, baseline)
    params, cal = _params(user, t, tau, lam, R, epsilon, delta, chosen)
    the_claim = claim_of(claim, epsilon, delta, params, cal, chosen, t, releases, relation,
                         renyi)
    run, built = _run(user, t, params)
    audited = Audited(user.name, user.kind, user.target, built, run, user.pure,
                      None if baseline is None else _baseline_runs(user, baseline, t, params))
    return audit_run(audited, t, Pairs(pairs, exhaustive, search, max_size, seed), the_claim,
                     params, cal, renyi, progress, first, relation)


def _renyi_claim(claim: object, epsilon: object, delta: object,
                 on: tuple[Release, ...] | None, search: object, baseline: object) -> Any:
    """The Renyi or zCDP claim `zcdp:RHO` / `rdp:ALPHA:EPS`, else None (an (eps, delta) claim);
    it goes with the whole output and given or exhaustive pairs only."""
    if not isinstance(claim, str) or not claim.startswith(("zcdp:", "rdp:")):
        return None
    from betweencut.proofs.privacy.audit.renyi_claims import RenyiClaim

    for name, value in (("epsilon", epsilon), ("delta", delta), ("search", search),
                        ("baseline", baseline)):
        if value is not None:
            raise ParameterError(name, "given", f"none with the claim {claim!r} (its orders "
                                 "are the claim; pairs= or exhaustive=N)")
    if on not in (None, (Release.OUTPUT,)):
        raise ParameterError("on", ", ".join(on or ()), "'output' for a Renyi or zCDP claim")
    return RenyiClaim.parse(claim)


def _tree(tree: PublicTree | None, height: int | None, arity: int,
          exhaustive: int | None, relation: Any = None) -> PublicTree:
    """The public tree, refused up front when its enumeration cannot finish in reasonable time."""
    if tree is None:
        if height is None:
            raise ParameterError("height", None, "height= and arity= state the public tree",
                                 library="or tree=, a PublicTree")
        for name, value in (("height", height), ("arity", arity)):
            if isinstance(value, bool) or not isinstance(value, int) or not (
                    1 <= value <= MAX_AUDIT_NODES):
                raise ParameterError(name, value, f"an integer 1..{MAX_AUDIT_NODES}")
        nodes = sum(arity**d for d in range(height))
        if nodes > MAX_AUDIT_NODES:
            raise ParameterError(
                "tree", f"the {arity}-ary tree of height {height} ({nodes} nodes)",
                f"at most {MAX_AUDIT_NODES} nodes for exact enumeration (binary h <= 4, "
                "ternary h <= 3)")
        tree = kary_tree(arity, height)
    if not isinstance(tree, PublicTree):
        raise ParameterError("tree", repr(tree), "a PublicTree (kary_tree, prefix_tree)")
    if exhaustive is not None:
        if isinstance(exhaustive, bool) or not isinstance(exhaustive, int) or not (
                0 <= exhaustive <= MAX_EXHAUSTIVE):
            raise ParameterError("exhaustive", exhaustive, f"a database size 0..{MAX_EXHAUSTIVE}")
        leaves = len(list(tree.level(tree.height - 1)))
        if relation is not None and relation.is_replace:
            count = sum(math.comb(leaves + n - 1, n) for n in range(exhaustive + 1)) * \
                math.comb(leaves, 2)
        else:
            largest = exhaustive if relation is None else relation.largest(exhaustive)
            count = sum(math.comb(leaves + n - 1, n) for n in range(largest + 1)) * leaves
        if count > MAX_AUDIT_PAIRS:
            raise ParameterError(
                "exhaustive", exhaustive, f"at most {MAX_AUDIT_PAIRS} neighbouring pairs "
                f"(this tree gives {count}; binary h = 4: N <= 2)")
    return tree


def _params(user: UserMechanism, tree: PublicTree, tau: object, lam: object, R: object,
            epsilon: object, delta: object, accountant: Chosen
            ) -> tuple[Params | None, Calibration | None]:
    """A builder's parameters: `Params(tau, lam, R)`, or calibrated from `(epsilon, delta)`."""
    if user.kind != BUILDER:
        given = [n for n, v in (("tau", tau), ("lam", lam), ("R", R)) if v is not None]
        if accountant.kind is not AccountantKind.PAPER:
            given.append("accountant")
        if given:
            raise ParameterError(given[0], "given", f"only for a builder; {user.name} is a "
                                 "function (db, test) -> output")
        return None, None
    if tau is None:
        raise ParameterError("tau", None, f"{user.name} is a builder (tree, params): give tau "
                             "with lam and R, or with epsilon and delta to calibrate")
    if (lam is None) != (R is None):
        raise ParameterError("lam" if lam is None else "R", None, "lam and R go together")
    if lam is not None:
        params = Params.of(tau, lam, R)
        cal = None
    else:
        if epsilon is None or delta is None:
            raise ParameterError("epsilon", epsilon, "lam and R, or epsilon and delta")
        cal = accountant.calibrate(tree.height, epsilon, delta)
        params = cal.params(tau)
    if params.lam < MIN_AUDIT_LAMBDA:
        raise ParameterError("lambda", shown(params.lam), "lambda >= 1/1000 for enumeration")
    if params.R.compare(MAX_AUDIT_R) > 0:
        raise ParameterError("R", shown(params.R), f"R <= {MAX_AUDIT_R} for enumeration")
    if params.tau > MAX_AUDIT_TAU:
        raise ParameterError("tau", shown(params.tau), f"tau <= {MAX_AUDIT_TAU} for enumeration")
    return params, cal


def _run(user: UserMechanism, tree: PublicTree, params: Params | None
         ) -> tuple[Callable[[Any, Any], Any], Any]:
    isolate = not _packaged(user.target)
    if user.kind == BUILDER:
        built = build(user, tree, params)
        return guarded(user.name, built.run, isolate=isolate), built
    return guarded(user.name, user.target, isolate=isolate), None


def _packaged(target: object) -> bool:
    """The package's own mechanism (BetweenCut itself, a baseline): not isolated, its runs are
    functions of their answers by construction (and tested so). Identified by what it is, not
    by the module it names (`betweencut.boundary.seams.packaged`); a user's subclass is the
    user's code."""
    return packaged(target)


def _baseline_runs(user: UserMechanism, baseline: object, tree: PublicTree,
                   params: Params | None) -> tuple[Any, Any]:
    """The runs `(mine, the baseline's)` a regression audit compares, each built afresh; the
    baseline is a mechanism of the same kind, verified pure as the mechanism was (`strict`:
    a verdict saying "pure: verified" compares two verified mechanisms)."""
    other = resolve(baseline, "baseline", strict=user.pure)
    if other.kind != user.kind:
        raise ParameterError("baseline", other.name, f"a mechanism of the same kind as "
                             f"{user.name} ({user.kind})")
    return _run(user, tree, params)[0], _run(other, tree, params)[0]
