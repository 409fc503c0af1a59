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
from collections.abc import Callable, Hashable, Iterable, Sequence
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
from betweencut.betweencut import SEAMS, BetweenCut
from betweencut.boundary.encoding import release_of
from betweencut.boundary.isolation import one_audit
from betweencut.boundary.seams import check_unchanged, overrides, own_code, packaged, refusal
from betweencut.calibration import Calibration, path_query_bound
from betweencut.errors import ParameterError, shown
from betweencut.notation import parse_database, parse_record
from betweencut.params import Params
from betweencut.proofs.assumes import Assumes
from betweencut.proofs.exact.arith import exact_str
from betweencut.proofs.privacy.enumeration.transcripts import MechanismNotReplayable
from betweencut.proofs.verdict import Claim, Release, Row, Verdict, certified
from betweencut.tree import PublicTree, kary_tree

__all__ = ["MAX_AUDIT_NODES", "MAX_AUDIT_PAIRS", "MAX_EXHAUSTIVE", "audit_mechanism"]

# Enumeration sizes that finish in reasonable time (measured: binary h = 4, every pair with
# |D| <= 2, 360 pairs, about 17 s; one pair on the 4-ary tree of height 3, 21 nodes, > 40 s).
MAX_AUDIT_NODES = 15
MAX_AUDIT_PAIRS = 400
MIN_AUDIT_LAMBDA = Fraction(1, 1000)  # exact weights e^(-lambda*x) grow with 1/lambda and R
MAX_AUDIT_R = 1000
MAX_AUDIT_TAU = 10**6
MAX_EXHAUSTIVE = 64
MAX_PRIVTREE_SIZE = 1000  # a PrivTree database size (the count DP's table is (depth+1)(N+1))
THEOREM_5_4 = "theorem-5.4"
ACCOUNTANTS = ("paper", "tight")


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
    accountant: str = "paper",
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
    `pairs` (`(D, z)` with `D` an iterable of records or a database text `{0/0*2, 0/1}` and
    `z` a record or its text), `exhaustive=N` (every `|D| <= N`, every added record) and
    `search=N` (`N` pairs drawn, `|D| <= max_size`, default 3; derandomised, the same pairs
    on every run, or seeded with `seed` for other pairs, the same for that seed); a public
    tree (`tree`, or `height` and `arity`) for a function or a builder; for a builder, `tau`
    with `lam` and `R`, or with `epsilon` and `delta` (calibrated by `accountant`, "paper" or
    "tight"); the claim: `epsilon` and `delta` (`0 <= delta < 1`), a list of `(eps, delta)`
    points, or `"theorem-5.4"` (the default for a builder given `lam` and `R`); or, for a
    mechanism asking the field's primitives, `"zcdp:RHO"` (`D_α <= ρα` at every order `α > 1`,
    refuted at a witness order or certified: `betweencut.proofs.privacy.divergence.renyi`) or
    `"rdp:ALPHA:EPS"` (one order), on the whole output, with no `epsilon`/`delta`.
    `first`: a refuted claim stops at the first refuting pair (the CI use: `verdict.first`
    says so); by default the audit goes on over every pair (or its whole search) and reports
    the worst: the refutation with the largest `δ_pair(ε) - δ` and `epsilon_at_delta`, the
    largest over every pair, each with its pair (issue 35, item 4).
    Returns: a `Verdict`; `rows` per pair, claimed point and release (`on`: "output", the
    mechanism's whole output, default; or an attribute of it such as "transcript", "heavy";
    several with a list); for an exhaustive or searched audit the worst pair's rows; `facts`:
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
    from betweencut.proofs.verdict import Relation

    if not isinstance(strict, bool):
        raise ParameterError("strict", strict, "True or False")
    user = resolve(mechanism, strict=strict)
    relation = Relation.of(neighbours)
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
    if accountant not in ACCOUNTANTS:
        raise ParameterError("accountant", accountant, ", ".join(ACCOUNTANTS))
    if not isinstance(first, bool):
        raise ParameterError("first", repr(first), "True (stop at the first refutation) or "
                             "False (the worst pair, the default)")
    if user.kind == PRIVTREE:
        from betweencut.api.privtree import audit_privtree

        if seed is not None:
            raise ParameterError("seed", seed, "none for a PrivTree (its search=N lists every "
                                 "database of few distinct points: nothing is drawn)")
        from betweencut.api.privtree import is_own

        listed = None if pairs is None else list(pairs)

        def privtree() -> Verdict:
            return audit_privtree(user, listed, exhaustive=exhaustive, search=search,
                                  epsilon=epsilon, delta=delta, claim=claim, on=on,
                                  baseline=baseline, tree=tree, height=height, tau=tau,
                                  lam=lam, R=R, accountant=accountant, progress=progress,
                                  relation=relation)

        if not is_own(user.built) or baseline is not None:  # your seams: a child first
            user_first(privtree, user.name, "while auditing it")
        found = privtree()
        found.assumes = a.strict(found.assumes, user.pure)
        return found
    t = _tree(tree, height, arity, exhaustive, relation)
    renyi = _renyi_claim(claim, epsilon, delta, on, search, baseline)
    params, cal = _params(user, t, tau, lam, R, epsilon, delta, accountant)
    the_claim = (_claim(user, claim, epsilon, delta, params, cal, accountant, t, on)
                 if renyi is None else Claim(renyi.text, (), (Release.OUTPUT.value,),
                                             parameters=renyi.parameters())).under(relation)
    run, built = _run(user, t, params)
    seams = overrides(built, SEAMS) if issubclass(type(built), BetweenCut) else None
    cache = _cache(run, built, the_claim.on)
    if seams is not None:  # checked where the runs run (a child, for your code) and here
        cache.after = lambda: check_unchanged(built, SEAMS, seams, user.name)
    leaves = sorted(t.level(t.height - 1))
    try:
        with one_audit():  # the children's results reused within this audit only
            chosen = _pairs(pairs, exhaustive, search, max_size, leaves, t, cache, the_claim,
                            relation, seed, first)
            if renyi is None and search is None:
                _afford(cache, chosen, the_claim, exhaustive is None)
            _prefetch(cache, chosen, search is None and not first)
            if renyi is not None:
                verdict = _audit_renyi(user, t, the_claim, renyi, cache, chosen, first)
            else:
                verdict = _audit(user, t, params, cal, the_claim, run, cache, chosen,
                                 exhaustive is None and search is None, baseline, progress,
                                 first)
    except MechanismNotReplayable as exc:
        raise MechanismNotReplayable(f"the mechanism {user.name} is not replayable: {exc}") \
            from None
    if seams is not None:  # the structure the shared outcome tree read at the start
        check_unchanged(built, SEAMS, seams, user.name)
    verdict.assumes = a.strict(_assumes(user, built, cache, verdict, exhaustive, search, seed,
                                        relation, len(chosen), renyi is not None), user.pure)
    verdict.first = first  # a Renyi audit too: its worst witness unless first
    return verdict


def _assumes(user: UserMechanism, built: Any, cache: Any, verdict: Verdict,
             exhaustive: int | None, search: int | None, seed: int | None,
             relation: Any, listed: int, renyi: bool = False) -> Assumes:
    """What this verdict rests on (`betweencut.proofs.assumes`): whose code, what is checked
    of it, the structure the shared outcome tree models, the arithmetic and the pairs."""
    from betweencut.proofs import assumes as a
    from betweencut.proofs.privacy.enumeration.outcome_tree import SharedTreeCache

    own = own_code(user.target, built, SEAMS if issubclass(type(built), BetweenCut) else None)
    kind = getattr(cache, "other", None) or cache  # the enumeration kind the audit used
    items = [*a.code_items(own, isolated=getattr(kind, "isolates", True))]
    if isinstance(cache, SharedTreeCache):
        items.append(a.SHARED_SEAMS if cache.shared else a.direct(
            refusal(cache.unshared, type(built).__name__)))
    items.append(a.ARITHMETIC_RENYI if renyi else a.arithmetic(certified(verdict.rows)))
    if exhaustive is not None:
        scope = (f"every (D, D') of at most {exhaustive + 1} records" if relation.is_replace
                 else f"every (D, z) with |D| <= {relation.largest(exhaustive)}")
        items.append(a.pairs_every(scope + " on the public tree's leaves", verdict.pairs,
                                   listed))
    elif search is not None:
        items.append(a.pairs_searched(verdict.pairs, listed, seed))
    else:
        items.append(a.pairs_given(verdict.pairs, listed))
    return Assumes.of(items, a.OTHER_PAIRS)


def _renyi_claim(claim: object, epsilon: object, delta: object, on: object, search: object,
                 baseline: object) -> Any:
    """The Renyi or zCDP claim `zcdp:RHO` / `rdp:ALPHA:EPS`, else None (an (eps, delta) claim);
    it goes with the whole output and given or exhaustive pairs only."""
    if not isinstance(claim, str) or not claim.startswith(("zcdp:", "rdp:")):
        return None
    from betweencut.proofs.privacy.audit.renyi import RenyiClaim

    for name, value in (("epsilon", epsilon), ("delta", delta), ("search", search),
                        ("baseline", baseline)):
        if value is not None:
            raise ParameterError(name, "given", f"none with the claim {claim!r} (its orders "
                                 "are the claim; pairs= or exhaustive=N)")
    if on not in (None, Release.OUTPUT.value, (Release.OUTPUT.value,), [Release.OUTPUT.value]):
        raise ParameterError("on", on, "'output' for a Renyi or zCDP claim")
    return RenyiClaim.parse(claim)


def _audit_renyi(user: UserMechanism, tree: PublicTree, claim: Claim, renyi: Any, cache: Any,
                 chosen: list[Any], first: bool = False) -> Verdict:
    """A Renyi or zCDP claim on every pair, both directions (`audit.renyi.audit_renyi`)."""
    from betweencut.proofs.privacy.audit.renyi import (
        audit_renyi,
        renyi_refutation,
        renyi_row,
    )
    from betweencut.proofs.privacy.enumeration.cache import Neighbour

    pairs = [p if isinstance(p, Neighbour) else Neighbour.add(*p) for p in chosen]
    found = audit_renyi(cache, pairs, renyi, first)
    subject = {"mechanism": user.name, "kind": user.kind, "tree": tree.description}
    out = Verdict("mechanism", subject, claim, found.holds, pairs=found.pairs)
    if found.witness is not None:
        pair, forward, result, parts = found.witness
        out.rows = [renyi_row(pair, forward, result)]
        out.refutation = renyi_refutation(claim.text, pair, forward, result, parts)
    else:
        if found.closest is not None:
            out.rows = [renyi_row(*found.closest)]
        out.facts["argument"] = found.arguments
    return out


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


def calibration_of(accountant: str, height: int, epsilon: object, delta: object) -> Calibration:
    """The calibration of `accountant` ("paper": Theorem 5.5; "tight": the certified
    accountant's smallest margin) for the public `(h, ε, δ)`: the accountants' one lookup by
    name (`betweencut.proofs.privacy.accountants.calibrate_by`)."""
    from betweencut.proofs.privacy.accountants import calibrate_by

    return calibrate_by(accountant, height, epsilon, delta)


def _params(user: UserMechanism, tree: PublicTree, tau: object, lam: object, R: object,
            epsilon: object, delta: object, accountant: str
            ) -> tuple[Params | None, Calibration | None]:
    """A builder's parameters: `Params(tau, lam, R)`, or calibrated from `(epsilon, delta)`."""
    if user.kind != BUILDER:
        given = [n for n, v in (("tau", tau), ("lam", lam), ("R", R)) if v is not None]
        if accountant != "paper":
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
        cal = calibration_of(accountant, tree.height, epsilon, delta)
        params = cal.params(tau)
    if params.lam < MIN_AUDIT_LAMBDA:
        raise ParameterError("lambda", shown(params.lam), "lambda >= 1/1000 for enumeration")
    if params.R.compare(MAX_AUDIT_R) > 0:
        raise ParameterError("R", shown(params.R), f"R <= {MAX_AUDIT_R} for enumeration")
    if params.tau > MAX_AUDIT_TAU:
        raise ParameterError("tau", shown(params.tau), f"tau <= {MAX_AUDIT_TAU} for enumeration")
    return params, cal


def _on(on: str | Sequence[str] | None, default: Sequence[str]) -> tuple[str, ...]:
    chosen = (on,) if isinstance(on, str) else tuple(default if on is None else on)
    for name in chosen:
        if not isinstance(name, str) or not name.isidentifier():
            raise ParameterError("on", name, "'output' or an attribute of the output, such as "
                                 "'transcript' or 'heavy'")
    if not chosen:
        raise ParameterError("on", "[]", "at least one release")
    return chosen


def _claim(user: UserMechanism, claim: object, epsilon: object, delta: object,
           params: Params | None, cal: Calibration | None, accountant: str,
           tree: PublicTree, on: str | Sequence[str] | None) -> Claim:
    if claim is None and (epsilon is None or delta is None or cal is not None):
        claim = THEOREM_5_4 if (params is not None and cal is None) else None
    if claim == THEOREM_5_4:
        if params is None:
            raise ParameterError("claim", claim, "Theorem 5.4's points need a builder's "
                                 "parameters (tau, lam, R)")
        if params.lam > 1:
            raise ParameterError("lambda", shown(params.lam), "0 < lambda <= 1 (Theorem 5.4)")
        points = theorem_5_4_points(tree.height, params, accountant)
        labels: list[dict[str, object]] = [{"r": r} for r in range(1, len(points) + 1)]
        text = ("Theorem 5.4, Eq. (22): (r*lambda, delta_r)-DP for r = 1..L"
                if accountant == "paper" else
                "the tight accountant's (r*lambda, delta_r)-DP for r = 1..L")
        if cal is not None:
            points.append((cal.epsilon, cal.delta))
            labels.append({"promised": f"Theorem 5.5: ({cal.epsilon}, {cal.delta})-DP"})
            text += f"; Theorem 5.5: ({cal.epsilon}, {cal.delta})-DP"
        facts: dict[str, object] = {"lambda": params.lam, "R": params.R.exact_str(),
                                    "L": path_query_bound(tree.height), "accountant": accountant}
        return Claim(text, tuple(points), _on(on, (Release.TRANSCRIPT, Release.HEAVY)),
                     parameters=facts, labels=tuple(labels))
    if claim is not None:
        if isinstance(claim, str) or not isinstance(claim, Sequence):
            raise ParameterError("claim", claim, f"(eps, delta) points or {THEOREM_5_4!r}")
        points = [claim_point(p) for p in claim]
        if not points:
            raise ParameterError("claim", "[]", "at least one (eps, delta) point")
        text = "; ".join(f"({e}, {exact_str(d)})-DP" for e, d in points)
        return Claim(text, tuple(points), _on(on, (Release.OUTPUT,)))
    if epsilon is None or delta is None:  # the one not given, named (issue 36 item 4)
        raise ParameterError("epsilon" if epsilon is None else "delta", None,
                             "epsilon= and delta= state the (epsilon, delta)-DP claim audited")
    eps, dlt = claim_point((epsilon, delta))
    if not dlt < 1:
        raise ParameterError("delta", dlt, "0 <= delta < 1")
    return Claim.dp(eps, dlt, _on(on, (Release.OUTPUT,)))


def claim_point(point: object) -> tuple[Fraction, Fraction]:
    if not isinstance(point, tuple | list) or len(point) != 2:
        raise ParameterError("claim", repr(point), "(eps, delta) pairs")
    from betweencut.validate import exact_value  # the command line's limits (4096 bits)

    eps, dlt = exact_value(point[0], "epsilon"), exact_value(point[1], "delta")
    if eps < 0:
        raise ParameterError("epsilon", eps, "epsilon >= 0")
    if not 0 <= dlt <= 1:
        raise ParameterError("delta", dlt, "0 <= delta <= 1")
    return eps, dlt


def theorem_5_4_points(height: int, params: Params, accountant: str = "paper") -> list[Any]:
    """`(rλ, δ_r)`, `r = 1..L`, with `λ`, `R` the claimed parameters: Eq. (22)'s bound
    ("paper") or the tight accountant's certified upper bound ("tight")."""
    from betweencut.proofs.laws.tct import theorem_5_4_bound

    L = path_query_bound(height)
    if accountant == "paper":
        return [(r * params.lam, theorem_5_4_bound(L, params.lam, params.R, r))
                for r in range(1, L + 1)]
    from betweencut.proofs.privacy.accountants.accountant import accountant as named

    acc = named(accountant, L=L, lam=params.lam, R=params.R)
    return [(r * params.lam, acc.delta_upper(r * params.lam)) for r in range(1, L + 1)]


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


def _projection(on: str) -> Callable[[object], Hashable]:
    if on == Release.OUTPUT:
        return release_of  # the whole output, keyed by its bytes (`boundary.encoding`)

    def project(o: object) -> Any:
        if not hasattr(o, on):
            raise ParameterError("on", on, f"'output' or an attribute of the mechanism's output "
                                 f"(a {type(o).__name__} has no attribute {on!r})")
        return getattr(o, on)

    return project


def _cache(run: Callable[[Any, Any], Any], built: Any, on: Sequence[str]) -> Any:
    """The law cache: BetweenCut and its variants, on the transcript or the Heavy set, through
    the shared outcome tree (equal to direct enumeration of the real code,
    `betweencut.proofs.privacy.enumeration.outcome_tree`); anything else by direct
    enumeration."""
    from betweencut.proofs.privacy.enumeration.cache import LawCache

    projections = {name: _projection(name) for name in on}
    if issubclass(type(built), BetweenCut) and set(on) <= {Release.TRANSCRIPT, Release.HEAVY}:
        from betweencut.proofs.privacy.enumeration.outcome_tree import SharedTreeCache

        return SharedTreeCache(built, run, projections)
    return LawCache(run, projections)


def _as_pair(pair: object, tree: PublicTree | None, replace: bool = False) -> tuple[Any, Any]:
    """`(D, z)`, or `(D, D')` for replace-one pairs, read from text or records."""
    if not isinstance(pair, tuple | list) or len(pair) != 2:
        raise ParameterError("pairs", repr(pair), "(database, other database) pairs" if replace
                             else "(database, added record) pairs")
    db, z = pair
    records = parse_database(db, "D") if isinstance(db, str) else db
    if replace:
        other = parse_database(z, "D'") if isinstance(z, str) else z
        if tree is not None:
            from betweencut.validate import check_leaves

            check_leaves(tree, [*records, *other], "pairs")
        return tuple(records), tuple(other)
    record = parse_record(z, "z") if isinstance(z, str) else z
    if tree is not None:
        from betweencut.validate import check_leaves

        check_leaves(tree, [*records, record], "pairs")
    return tuple(records), record


def _pairs(pairs: Iterable[tuple[object, object]] | None, exhaustive: int | None,
           search: int | None, max_size: int | None, leaves: list[Any], tree: PublicTree,
           cache: Any, claim: Claim, relation: Any, seed: int | None = None,
           first: bool = False) -> list[Any]:
    from betweencut.proofs.privacy.enumeration.cache import (
        Neighbour,
        as_database,
        as_node,
        neighbouring_pairs,
        replace_pairs,
    )

    if exhaustive is not None:
        if relation.is_replace:
            return list(replace_pairs(leaves, exhaustive + 1))
        return list(neighbouring_pairs(leaves, relation.largest(exhaustive)))
    if search is not None:
        from betweencut.proofs.privacy.audit.search import search_pairs

        size = 3 if max_size is None else max_size
        if isinstance(search, bool) or not isinstance(search, int) or search < 1 or size < 0:
            raise ParameterError("search", search, "an integer >= 1 (and max_size >= 0)")
        eps, dlt = claim.points[0]
        found = search_pairs(cache, leaves, eps, dlt, claim.on[0], size, search,
                             hypothesis_seed=seed, first=first)
        return list(dict.fromkeys(found.tried))
    if pairs is None or isinstance(pairs, str | bytes):
        raise ParameterError("pairs", repr(pairs), "an iterable of (database, added record)")
    out: list[Any] = []
    for pair in pairs:
        db, z = _as_pair(pair, tree, relation.is_replace)
        if relation.is_replace:
            out.append(Neighbour.between(as_database(db, "D"), as_database(z, "D'")))
            continue
        if relation.bound is not None and len(db) + 1 > relation.bound:
            raise ParameterError("pairs", f"|D + z| = {len(db) + 1}",
                                 f"databases of at most {relation.bound} records "
                                 f"({relation.text()})")
        out.append((as_database(db, "D"), as_node(z, "z")))
    return out


def _prefetch(cache: Any, chosen: list[Any], known: bool) -> None:
    """When the audit knows its databases up front (`known`: listed or exhaustive pairs, not
    a search, not stopping at the first refutation), the user's code enumerates them all in
    two children instead of two per database (`isolated.prefetch`: an accelerator only; on
    any failure or difference the per-database path runs as before)."""
    if not known:
        return
    from betweencut.proofs.privacy.enumeration.cache import Neighbour, with_record
    from betweencut.proofs.privacy.enumeration.isolated import prefetch

    databases: list[Any] = []
    for pair in chosen:
        if isinstance(pair, Neighbour):
            databases += [pair.first, pair.second]
        else:
            databases += [pair[0], with_record(pair[0], pair[1])]
    prefetch(cache, databases)


def _afford(cache: Any, chosen: list[Any], claim: Claim, given: bool) -> None:
    """Under a time budget, refuse before any work an audit whose projected time passes it;
    under a work limit (the command line's default), one whose projected work at fixed rates
    passes it (the same on every machine, issue 35, item 7)
    (`betweencut.proofs.privacy.enumeration.cost.audit_cost`: the pairs at every claimed point
    and release, and the exact curves `_audit` draws: one point's `epsilon_at_delta`, every
    pair's; several points, beside the rows of every given pair or of the worst pair, per
    release: that pair is not known before, the last one, of the largest databases, stands
    for it)."""
    from betweencut.progress import current

    tracker = current()
    if tracker.budget is None and tracker.work is None:
        return
    from betweencut.proofs.privacy.enumeration.cost import audit_cost

    points, releases = len(claim.points), len(claim.on)
    curves = chosen if points == 1 else (chosen if given else chosen[-1:]) * releases
    cost = audit_cost(cache, chosen, points, releases, curves)
    if cost is not None:
        cost.afford(tracker)


def _audit(user: UserMechanism, tree: PublicTree, params: Params | None,
           cal: Calibration | None, claim: Claim, run: Callable[[Any, Any], Any], cache: Any,
           chosen: list[Any], given: bool, baseline: object,
           progress: Callable[[Iterable[Any], int], Iterable[Any]] | None,
           first: bool = False) -> Verdict:
    from betweencut.proofs.privacy.audit.mechanism import audit_pairs, worse

    subject: dict[str, object] = {"mechanism": user.name, "kind": user.kind,
                                  "tree": tree.description}
    if params is not None:
        subject["parameters"] = {"tau": params.tau, "lambda": params.lam,
                                 "R": params.R.exact_str()}
        if cal is not None:
            subject["parameters"]["calibrated"] = (  # type: ignore[index]
                f"({cal.epsilon}, {cal.delta}) by the {cal.accountant} accountant")
    results = []
    holds, refutation, audited = True, None, 0
    for name in claim.on:
        shown_pairs = progress(chosen, len(chosen)) if progress else chosen
        verdict = audit_pairs(run, shown_pairs, list(claim.points), on=name, cache=cache,
                              keep=True, first=first)
        results.extend(verdict.results)
        audited = max(audited, verdict.pairs)
        found = verdict.refutation
        if found is not None and (refutation is None or worse(found, refutation)):
            holds, refutation = False, found
        if not holds and first:
            break
    out = Verdict("mechanism", subject, claim, holds, pairs=audited, first=first)
    if refutation is not None:
        out.refutation = refutation.refutation(claim.text)
    out.rows = _rows(results, given, claim, _pair_epsilons(cache, results)
                     if len(claim.points) > 1 else None, refutation)
    checked = chosen[:audited]
    if len(claim.points) == 1:
        from betweencut.proofs.privacy.divergence.components import NoExactCurve

        try:
            _epsilon_at_delta(out, cache, checked, claim)
        except NoExactCurve:  # a released continuous value: certified laws, no exact curve
            out.facts["epsilon_at_delta_note"] = ("no exact curve: a released continuous or "
                                                  "discrete Gaussian value moves between the "
                                                  "databases (its profile is certified)")
    if baseline is not None:
        out.regressions = _regressions(user, baseline, tree, params, checked, claim)
    return out


def _pair_epsilons(cache: Any, results: list[Any]) -> Callable[[Any], dict[str, Any]]:
    """For a claim of several points on given pairs: beside each row, the exact curve's
    smallest `ε` at the row's claimed `δ` (a certified lower bound on the `ε` the pair needs
    there), one curve per pair and release."""
    from betweencut.proofs.privacy.audit.mechanism import pair_curve

    curves: dict[tuple[Any, Any, str], Any] = {}

    def facts(res: Any) -> dict[str, Any]:
        key = (*res.key, res.on)
        if key not in curves:
            curves[key] = (cache.neighbour_curve(res.pair, res.on) if res.pair is not None
                           else pair_curve(cache, res.db, res.z, res.on))
        eps = curves[key].epsilon_at_delta(res.bound)
        return {"epsilon_at_delta": None if eps is None else eps.display(),
                "epsilon_at_delta_exact": "inf" if eps is None else eps.exact_str(),
                **_certified(curves[key], res.bound)}

    return facts


def _rows(results: list[Any], given: bool, claim: Claim,
          more: Callable[[Any], dict[str, Any]] | None = None, refuting: Any = None
          ) -> list[Row]:
    """Every row for given pairs; for an exhaustive or searched audit the worst pair's (the
    refuting point's `refuting`, else the tightest); each row carries its point's label (`r`
    for Theorem 5.4's points) and `more(result)`."""
    labels: dict[tuple[Fraction, int], dict[str, Any]] = {  # the audit passes the points on
        (Fraction(e), id(d)): dict(label) for (e, d), label in zip(
            claim.points, claim.labels or [{}] * len(claim.points), strict=True)}
    if given or not results:
        return [res.row(**labels.get((res.eps, id(res.bound)), {}),
                        **(more(res) if more else {})) for res in results]
    from betweencut.proofs.privacy.audit.mechanism import tighter

    worst = refuting if refuting is not None else results[0]
    if refuting is None:
        for res in results[1:]:
            if tighter(res, worst):
                worst = res
    return [res.row(**labels.get((res.eps, id(res.bound)), {}),
                    **(more(res) if more else {}))
            for res in results if res.key == worst.key]


def _epsilon_at_delta(out: Verdict, cache: Any, pairs: list[Any], claim: Claim) -> None:
    """The largest `ε_at_δ` over the pairs audited (a certified lower bound on the mechanism's
    ε at the claimed δ), its pair and its exact curve."""
    from betweencut.notation import database_text, record_text
    from betweencut.proofs.privacy.audit.search import epsilon_lower_bound

    dlt = claim.points[0][1]
    bound = epsilon_lower_bound(cache, pairs, dlt, claim.on[0])
    if bound is None:
        return
    eps = bound.epsilon
    out.facts.update(epsilon_facts(eps, dlt, database_text(bound.db), record_text(bound.z),
                                   claim.on[0], bound.pair, bound.curve))
    out.curve = bound.curve


def epsilon_facts(eps: Any, delta: object, D: str, z: str, on: str,
                  pair: Any = None, curve: Any = None) -> dict[str, object]:
    """`epsilon_at_delta` (a float, null: no finite ε), `epsilon_at_delta_exact` (exact text,
    `inf`) and the pair that attains it (`epsilon_at_delta_pair`; a replace-one `pair` as `D`,
    `D_prime` and its move `x->y` in `z`); with the pair's `curve`, the curve too: `curve` (exact)
    or, for a pair whose probabilities are enclosures, `curve_certified` (its two bounding
    curves) and `epsilon_at_delta_certified` (the enclosure of the pair's own ε at δ)."""
    where: dict[str, object] = {"D": D, "z": z, "on": on, "delta_exact": str(delta)}
    if pair is not None and pair.replaced is not None:
        from betweencut.notation import database_text, replacement_text

        where.update(D=database_text(pair.first), z=replacement_text(*pair.replaced),
                     D_prime=database_text(pair.second))
    out: dict[str, object] = {
        "epsilon_at_delta": None if eps is None else eps.display(),
        "epsilon_at_delta_exact": "inf" if eps is None else eps.exact_str(),
        "epsilon_at_delta_pair": where}
    if getattr(curve, "certified", False):
        out.update(_certified(curve, delta), curve_certified=curve.to_json())
    elif curve is not None:
        out["curve"] = curve.to_json()
    return out


def _certified(curve: Any, delta: object) -> dict[str, object]:
    """For a certified curve (enclosed probabilities: Gaussian laws), the enclosure of the
    pair's own ε at δ (`epsilon_at_delta` is then its certified lower end); else nothing."""
    if not getattr(curve, "certified", False):
        return {}
    lo, hi = curve.epsilon_at_delta_in(delta)
    return {"epsilon_at_delta_certified": {
        "bits": curve.bits, "in": [None if e is None else e.display() for e in (lo, hi)],
        "in_exact": ["inf" if e is None else e.exact_str() for e in (lo, hi)]}}


def _regressions(user: UserMechanism, baseline: object, tree: PublicTree,
                 params: Params | None, pairs: list[Any], claim: Claim) -> list[Any]:
    from betweencut.proofs.privacy.audit.regression import find_regressions

    other = resolve(baseline, "baseline")
    if other.kind != user.kind:
        raise ParameterError("baseline", other.name, f"a mechanism of the same kind as "
                             f"{user.name} ({user.kind})")
    run_base, _ = _run(other, tree, params)
    run_mine, _ = _run(user, tree, params)
    found: list[Any] = []
    for name in claim.on:
        found += find_regressions(run_mine, run_base, pairs, name, {name: _projection(name)})
    return found
