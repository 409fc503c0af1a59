"""The audit of a mechanism on pairs, orchestrated in one function (`audit_run`): the claim,
the law cache and its projections, the pairs, the budget, the rows, the pairs' `ε` at the
claimed `δ`, the facts, the regressions and what the verdict rests on.

`betweencut.audit_mechanism` (`betweencut.api`) only resolves the user's input (the mechanism
loaded, the public tree, the parameters, the accountant chosen) and calls `audit_run`; the
accountant comes in as a value (`Accountant` below: the claimed points are asked of it), so
this module never names one.

May import: everything below it in `proofs`, `divergence`, `enumeration` and this package.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol

from betweencut.boundary.isolation import one_audit
from betweencut.boundary.seams import check_unchanged, overrides, own_code, refusal
from betweencut.data.notation import parse_database, parse_record
from betweencut.data.tree import PublicTree
from betweencut.errors import ParameterError, shown
from betweencut.mechanism.betweencut import SEAMS, BetweenCut
from betweencut.mechanism.calibration import Calibration, path_query_bound
from betweencut.mechanism.params import Params
from betweencut.proofs import assumes as a
from betweencut.proofs.assumes import Assumes
from betweencut.proofs.exact.arith import exact_str
from betweencut.proofs.privacy.enumeration import release_path
from betweencut.proofs.privacy.enumeration.transcripts import MechanismNotReplayable
from betweencut.proofs.verdict import (
    Claim,
    ClaimedEpsilon,
    Relation,
    Release,
    Row,
    Verdict,
    certified,
    claim_point,
    dp_point,
    projection,
)

__all__ = ["THEOREM_5_4", "Accountant", "Audited", "Pairs", "audit_run", "claim_of",
           "epsilon_facts"]

THEOREM_5_4 = "theorem-5.4"
Progress = Callable[[Iterable[Any], int], Iterable[Any]]


class Accountant(Protocol):
    """The accountant chosen (`betweencut.proofs.privacy.accountants.Chosen`), as this module
    asks it: the claim's words and its points `(rλ, δ_r)`, `r = 1..L`."""

    @property
    def claim_text(self) -> str: ...

    def points(self, L: int, params: Params) -> list[tuple[Fraction, Any]]: ...


@dataclass(frozen=True)
class Audited:
    """The mechanism audited, resolved by the API: its name and kind (as the verdict states
    them), the user's object (`target`), what a builder built (else None), the run the
    enumeration calls (`run(db, test)`, guarded), and whether strict mode verified it pure;
    `baseline`: the runs `(mine, baseline's)` for regressions, built afresh, or None."""

    name: str
    kind: str
    target: Any
    built: Any
    run: Callable[[Any, Any], Any]
    pure: bool = False
    baseline: tuple[Callable[[Any, Any], Any], Callable[[Any, Any], Any]] | None = None


@dataclass(frozen=True)
class Pairs:
    """Which pairs: exactly one of `given` (listed), `exhaustive=N` and `search=N` (with
    `max_size` and `seed`), checked by the API."""

    given: Iterable[tuple[object, object]] | None = None
    exhaustive: int | None = None
    search: int | None = None
    max_size: int | None = None
    seed: int | None = None


def audit_run(mechanism: Audited, tree: PublicTree, pairs: Pairs, claim: Claim,
              params: Params | None = None, cal: Calibration | None = None,
              renyi: Any = None, progress: Progress | None = None, first: bool = False,
              relation: Relation | None = None) -> Verdict:
    """The audit of `mechanism` on `pairs` against `claim` (`claim_of`), or the Renyi claim
    `renyi` (`audit.renyi.RenyiClaim`): the law cache, the pairs, the budget
    (`enumeration.cost`), the audit of every pair (`audit.mechanism.audit_pairs`), the rows,
    `epsilon_at_delta` and the regressions, and what the verdict rests on
    (`betweencut.proofs.assumes`). Returns a `Verdict`; raises `MechanismNotReplayable` naming
    the mechanism, `ParameterError`, `Undecided`."""
    relation = Relation.of(relation)
    built = mechanism.built
    seams = overrides(built, SEAMS) if issubclass(type(built), BetweenCut) else None
    cache = _cache(mechanism.run, built, claim.on)
    if seams is not None:  # checked where the runs run (a child, for your code) and here
        cache.after = lambda: check_unchanged(built, SEAMS, seams, mechanism.name)
    leaves = sorted(tree.level(tree.height - 1))
    replay = release_path.Pending(None, "a Renyi claim (the field's primitives)")
    try:
        with one_audit():  # the children's results reused within this audit only
            chosen = _pairs(pairs, leaves, tree, cache, claim, relation, first)
            if renyi is None and pairs.search is None:
                _afford(cache, chosen, claim, pairs.exhaustive is None)
            if renyi is None:  # the release path, replayed while the audit runs
                replay = release_path.begin(mechanism.name, mechanism.target, built, tree,
                                            params, claim.on, chosen, cache)
            _prefetch(cache, chosen, pairs.search is None and not first)
            if renyi is not None:
                verdict = _audit_renyi(mechanism, tree, claim, renyi, cache, chosen, first)
            else:
                verdict = _audit(mechanism, tree, params, cal, claim, cache, chosen,
                                 pairs.exhaustive is None and pairs.search is None, progress,
                                 first)
            released = release_path.finish(replay, cache, chosen[:verdict.pairs])
    except MechanismNotReplayable as exc:
        raise MechanismNotReplayable(
            f"the mechanism {mechanism.name} is not replayable: {exc}") from None
    finally:
        replay.kill()
    if seams is not None:  # the structure the shared outcome tree read at the start
        check_unchanged(built, SEAMS, seams, mechanism.name)
    verdict.assumes = a.strict(_assumes(mechanism, cache, verdict, pairs, relation, len(chosen),
                                        renyi is not None, released), mechanism.pure)
    verdict.first = first  # a Renyi audit too: its worst witness unless first
    return verdict


def claim_of(claim: object, epsilon: object, delta: object, params: Params | None,
             cal: Calibration | None, accountant: Accountant, tree: PublicTree,
             on: tuple[Release, ...] | None, relation: Relation, renyi: Any = None) -> Claim:
    """The claim audited, built once: Theorem 5.4's points at a builder's parameters (asked
    of `accountant`; with Theorem 5.5's `(ε, δ)` too when calibrated), a list of `(ε, δ)`
    points, `(epsilon, delta)`, or the Renyi claim `renyi` on the whole output; stated for
    the pairs of `relation`, on the releases `on` (read by `Release.several`; `None`: the
    claim's default, the transcript and the Heavy set for Theorem 5.4, else the output)."""
    if renyi is not None:
        return Claim(renyi.text, (), (Release.OUTPUT,),
                     parameters=renyi.parameters()).under(relation)
    return _claim(claim, epsilon, delta, params, cal, accountant, tree, on).under(relation)


def _assumes(mechanism: Audited, cache: Any, verdict: Verdict, pairs: Pairs,
             relation: Relation, listed: int, renyi: bool = False,
             released: a.Item | None = None) -> Assumes:
    """What this verdict rests on (`betweencut.proofs.assumes`): whose code, what is checked
    of it, the structure the shared outcome tree models, the arithmetic and the pairs."""
    from betweencut.proofs.privacy.enumeration.outcome_tree import SharedTreeCache

    built, exhaustive = mechanism.built, pairs.exhaustive
    own = own_code(mechanism.target, built, SEAMS if issubclass(type(built), BetweenCut) else None)
    kind = getattr(cache, "other", None) or cache  # the enumeration kind the audit used
    items = [*a.code_items(own, isolated=getattr(kind, "isolates", True), release=released)]
    if isinstance(cache, SharedTreeCache):
        items.append(a.SHARED_SEAMS if cache.shared else a.direct(
            refusal(cache.unshared, type(built).__name__)))
    items.append(a.ARITHMETIC_RENYI if renyi else a.arithmetic(certified(verdict.rows)))
    if exhaustive is not None:
        scope = (f"every (D, D') of at most {exhaustive + 1} records" if relation.is_replace
                 else f"every (D, z) with |D| <= {relation.largest(exhaustive)}")
        items.append(a.pairs_every(scope + " on the public tree's leaves", verdict.pairs,
                                   listed))
    elif pairs.search is not None:
        items.append(a.pairs_searched(verdict.pairs, listed, pairs.seed))
    else:
        items.append(a.pairs_given(verdict.pairs, listed))
    return Assumes.of(items, a.OTHER_PAIRS)


def _audit_renyi(user: Audited, tree: PublicTree, claim: Claim, renyi: Any, cache: Any,
                 chosen: list[Any], first: bool = False) -> Verdict:
    """A Renyi or zCDP claim on every pair, both directions (`audit.renyi.audit_renyi`)."""
    from betweencut.proofs.privacy.audit.renyi_claims import (
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


def _claim(claim: object, epsilon: object, delta: object,
           params: Params | None, cal: Calibration | None, accountant: Accountant,
           tree: PublicTree, on: tuple[Release, ...] | None) -> Claim:
    if claim is None and (epsilon is None or delta is None or cal is not None):
        claim = THEOREM_5_4 if (params is not None and cal is None) else None
    if claim == THEOREM_5_4:
        if params is None:
            raise ParameterError("claim", claim, "Theorem 5.4's points need a builder's "
                                 "parameters (tau, lam, R)")
        if params.lam > 1:
            raise ParameterError("lambda", shown(params.lam), "0 < lambda <= 1 (Theorem 5.4)")
        # each claimed ε checked once, here (`ClaimedEpsilon`): the route takes them as they are
        points: list[tuple[Fraction, Any]] = [
            (ClaimedEpsilon(e, "epsilon"), d)
            for e, d in accountant.points(path_query_bound(tree.height), params)]
        labels: list[dict[str, object]] = [{"r": r} for r in range(1, len(points) + 1)]
        text = f"{accountant.claim_text}: (r*lambda, delta_r)-DP for r = 1..L"
        if cal is not None:
            points.append((ClaimedEpsilon(cal.epsilon, "epsilon"), cal.delta))
            labels.append({"promised": f"Theorem 5.5: ({cal.epsilon}, {cal.delta})-DP"})
            text += f"; Theorem 5.5: ({cal.epsilon}, {cal.delta})-DP"
        facts: dict[str, object] = {"lambda": params.lam, "R": params.R.exact_str(),
                                    "L": path_query_bound(tree.height),
                                    "accountant": str(accountant)}
        return Claim(text, tuple(points), on or (Release.TRANSCRIPT, Release.HEAVY),
                     parameters=facts, labels=tuple(labels))
    if claim is not None:
        if isinstance(claim, str) or not isinstance(claim, Sequence):
            raise ParameterError("claim", claim, f"(eps, delta) points or {THEOREM_5_4!r}")
        points = [claim_point(p) for p in claim]
        if not points:
            raise ParameterError("claim", "[]", "at least one (eps, delta) point")
        text = "; ".join(f"({e}, {exact_str(d)})-DP" for e, d in points)
        return Claim(text, tuple(points), on or (Release.OUTPUT,))
    eps, dlt = dp_point(epsilon, delta)
    return Claim.dp(eps, dlt, on or (Release.OUTPUT,))


def _cache(run: Callable[[Any, Any], Any], built: Any, on: Sequence[Release]) -> Any:
    """The law cache: BetweenCut and its variants, on the transcript or the Heavy set, through
    the shared outcome tree (equal to direct enumeration of the real code,
    `betweencut.proofs.privacy.enumeration.outcome_tree`); anything else by direct
    enumeration."""
    from betweencut.proofs.privacy.enumeration.cache import LawCache

    projections = {name: projection(name) for name in on}
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
            from betweencut.data.validate import check_leaves

            check_leaves(tree, [*records, *other], "pairs")
        return tuple(records), tuple(other)
    record = parse_record(z, "z") if isinstance(z, str) else z
    if tree is not None:
        from betweencut.data.validate import check_leaves

        check_leaves(tree, [*records, record], "pairs")
    return tuple(records), record


def _pairs(which: Pairs, leaves: list[Any], tree: PublicTree, cache: Any, claim: Claim,
           relation: Relation, first: bool = False) -> list[Any]:
    from betweencut.proofs.privacy.enumeration.cache import (
        Neighbour,
        as_database,
        as_node,
        neighbouring_pairs,
        replace_pairs,
    )

    pairs, exhaustive, search, max_size, seed = (which.given, which.exhaustive, which.search,
                                                 which.max_size, which.seed)
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


def _audit(user: Audited, tree: PublicTree, params: Params | None,
           cal: Calibration | None, claim: Claim, cache: Any, chosen: list[Any], given: bool,
           progress: Progress | None, first: bool = False) -> Verdict:
    from betweencut.proofs.privacy.audit.pairs import audit_pairs, worse

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
        verdict = audit_pairs(user.run, shown_pairs, list(claim.points), on=name, cache=cache,
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
    if user.baseline is not None:
        out.regressions = _regressions(user, checked, claim)
    return out


def _pair_epsilons(cache: Any, results: list[Any]) -> Callable[[Any], dict[str, Any]]:
    """For a claim of several points on given pairs: beside each row, the exact curve's
    smallest `ε` at the row's claimed `δ` (a certified lower bound on the `ε` the pair needs
    there), one curve per pair and release."""
    from betweencut.proofs.privacy.audit.pairs import pair_curve

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
    from betweencut.proofs.privacy.audit.pairs import tighter

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
    from betweencut.data.notation import database_text, record_text
    from betweencut.proofs.privacy.audit.search import epsilon_lower_bound

    dlt = claim.points[0][1]
    bound = epsilon_lower_bound(cache, pairs, dlt, claim.on[0])
    if bound is None:
        return
    eps = bound.epsilon
    out.facts.update(epsilon_facts(eps, dlt, database_text(bound.db), record_text(bound.z),
                                   claim.on[0], bound.pair, bound.curve))
    out.curve = bound.curve


def epsilon_facts(eps: Any, delta: object, D: str, z: str, on: Release,
                  pair: Any = None, curve: Any = None) -> dict[str, object]:
    """`epsilon_at_delta` (a float, null: no finite ε), `epsilon_at_delta_exact` (exact text,
    `inf`) and the pair that attains it (`epsilon_at_delta_pair`; a replace-one `pair` as `D`,
    `D_prime` and its move `x->y` in `z`); with the pair's `curve`, the curve too: `curve` (exact)
    or, for a pair whose probabilities are enclosures, `curve_certified` (its two bounding
    curves) and `epsilon_at_delta_certified` (the enclosure of the pair's own ε at δ)."""
    where: dict[str, object] = {"D": D, "z": z, "on": on, "delta_exact": str(delta)}
    if pair is not None and pair.replaced is not None:
        from betweencut.data.notation import database_text, replacement_text

        where.update(D=database_text(pair.first), z=replacement_text(*pair.replaced),
                     D_prime=database_text(pair.second))
    out: dict[str, object] = {
        "epsilon_at_delta": None if eps is None else eps.display(),
        "epsilon_at_delta_exact": "inf" if eps is None else eps.exact_str(),
        "epsilon_at_delta_pair": where}
    if getattr(curve, "certified", False):
        out.update(_certified(curve, delta), curve_certified=curve.as_json())
    elif curve is not None:
        out["curve"] = curve.as_json()
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


def _regressions(mechanism: Audited, pairs: list[Any], claim: Claim) -> list[Any]:
    """Every pair and `ε` range where the mechanism's `δ` exceeds the baseline's
    (`audit.regression.find_regressions`), per release."""
    from betweencut.proofs.privacy.audit.regression import find_regressions

    if mechanism.baseline is None:
        return []
    run_mine, run_base = mechanism.baseline
    found: list[Any] = []
    for name in claim.on:
        found += find_regressions(run_mine, run_base, pairs, name, {name: projection(name)})
    return found
