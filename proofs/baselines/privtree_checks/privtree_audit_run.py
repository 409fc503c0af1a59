"""The audit of a PrivTree on pairs, orchestrated in one function (`audit_privtree_run`, the
PrivTree's `audit_run`): the pairs chosen (given, `exhaustive=N`, `search=N`, replace-one), the
law cache (`privtree_audit.PrivTreeLawCache`, equal to direct enumeration of the real `run`),
the bound over every pair covered (`privtree_audit.epsilon_bound`), the audit of the decisive
pair (`audit_pairs`), the verdict, its facts and what it rests on.

`betweencut.audit_mechanism` (`betweencut.api.privtree`) only resolves the user's input
(refuses the tree arguments, reads the claim and the sizes, runs this in the user's-code
wrapping) and calls `audit_privtree_run`. `N` of `exhaustive=N` and `search=N` is a database
size:

* `exhaustive=N`: every database of at most `N` points; for a rule that partitions every box
  and a pure claim (`δ = 0`) one pair decides it: the count DP's worst pair (the largest loss
  over all of them, exactly); otherwise every database is listed (one pair per class of equal
  law), refused past a cap;
* `search=N`: every database of at most `N` points made of copies of at most two distinct
  points (one, when two would pass the cap), the count DP's worst pair first for a partition
  rule; for a pure claim on a rule the symmetric search knows (`privtree_depth`), every
  database of at most `N` copies of one point too, on boxes of any size (the listing is left
  out when it would pass the cap).

`epsilon_at_delta` is the largest `ε` at `δ` over *every* pair covered, with the pair attaining
it (`privtree_audit.epsilon_bound`); the claim holds on every pair covered iff it holds on that
pair, which is the one audited for the verdict.

May import: what `proofs/baselines` may (core, `exact`, `laws`, `privacy`, `registry`,
`verdict`, `assumes`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction
from typing import Any

from betweencut.baselines.privtree import SEAMS
from betweencut.boundary.seams import check_unchanged, overrides, own_code
from betweencut.data.notation import parse_database, parse_record
from betweencut.errors import BetweenCutError, ParameterError
from betweencut.proofs.privacy.audit.run import Pairs, epsilon_facts
from betweencut.proofs.verdict import Claim, Relation, Release, Verdict

__all__ = ["LIST_CAP", "MAX_PRIVTREE_SIZE", "audit_privtree_run", "is_own", "show_box"]

MAX_PRIVTREE_SIZE = 1000  # the count DP's table is (depth + 1)·(N + 1) exact ratios
LIST_CAP = 50000  # pairs listed (before the classes of equal law are merged)
EVENT_NOTE = ("partitions cut back to the boxes whose counts z changes (T_z): the event is "
              "every partition agreeing with one of these there")
Progress = Callable[[Iterable[Any], int], Iterable[Any]]


def show_box(box: Any) -> str:
    return "x".join(f"[{lo},{hi})" for lo, hi in box)


def is_own(mech: Any) -> bool:
    """The package's own PrivTree, with the package's membership and split rules (else your
    code runs in it: `audit_mechanism` runs the whole audit in a child first, issue 34)."""
    return own_code(None, mech, SEAMS, (mech.member, mech.split.children))


def audit_privtree_run(mech: Any, name: str, kind: str, pairs: Pairs, claim: Claim,
                       relation: Relation, progress: Progress | None = None) -> Verdict:
    """The audit of the PrivTree `mech` (named `name`, of the loader's `kind`) on `pairs`
    (`given`, `exhaustive` or `search`; see the module docstring) against `claim`, a single
    `(ε, δ)` point read by the API, stated for the pairs of `relation`. Under replace-one, a
    given pair is `(D, D')`, `exhaustive=N` lists every pair of databases of at most `N + 1`
    points (up to `LIST_CAP`), `search` is refused; the laws of a replace-one pair come from
    direct enumeration of the real `run`. Returns a `Verdict`; raises `ParameterError` (the
    pairs), `Undecided`, and whatever the user's rules raise (the API names it)."""
    from betweencut.proofs.baselines.privtree_checks.privtree_audit import (
        PrivTreeLawCache,
        epsilon_bound,
        privtree_run,
    )
    from betweencut.proofs.privacy.audit.pairs import audit_pairs, output_text

    (eps, dlt), = claim.points
    if not isinstance(dlt, Fraction | int):  # the API reads it by `dp_point`: a rational
        raise ParameterError("delta", str(dlt), "a rational delta (a PrivTree's claim)")
    seams = overrides(mech, SEAMS)
    cache = PrivTreeLawCache(mech)
    if relation.is_replace:
        chosen, covered, databases = _replace_pairs(mech, pairs.given, pairs.exhaustive,
                                                    pairs.search)
    else:
        chosen, covered, databases = _pairs(mech, pairs.given, pairs.exhaustive, pairs.search,
                                            dlt, relation)
    shown = progress(chosen, len(chosen)) if progress else chosen
    at: list[Any] = []

    def naming(pairs: Iterable[Any]) -> Iterator[Any]:  # the pair a user's seam fails on
        for pair in pairs:
            at[:] = [pair]
            yield pair

    bound: Any
    try:
        if relation.is_replace:  # every replace-one pair through the real run, each curve direct
            from betweencut.proofs.privacy.audit.search import epsilon_lower_bound

            decisive = list(shown)
            bound = epsilon_lower_bound(cache, naming(decisive), dlt, Release.OUTPUT)
        else:
            # the largest epsilon at delta over every pair covered; the claim holds on all of
            # them iff it holds on the pair attaining it (privtree_audit.epsilon_bound), audited
            bound = epsilon_bound(cache, naming(shown), dlt)
            decisive = chosen if bound is None else [(bound.db, bound.z)]
    except BaseException as exc:
        if at and not isinstance(exc, (BetweenCutError, KeyboardInterrupt)):
            exc.add_note(f"auditing the pair {_pair_text(at[0])}")
        raise
    found = audit_pairs(privtree_run(mech), decisive, [(eps, dlt)], on=Release.OUTPUT, cache=cache,
                        keep=True)
    check_unchanged(mech, SEAMS, seams, name)  # what the reduction read at the start
    subject = {
        "mechanism": name, "kind": kind,
        "tree": f"PrivTree on {show_box(mech.box)}, theta = {mech.theta}, rule "
                f"{getattr(mech.member, '__name__', repr(mech.member))}",
        "parameters": {"epsilon": mech.epsilon, "theta": mech.theta},
        "covered": covered, "databases": databases}
    out = Verdict("mechanism", subject, claim, found.holds, pairs=len(chosen))
    if found.refutation is not None:
        out.refutation = found.refutation.refutation(claim.text, EVENT_NOTE, output_text)
    worst = found.refutation or found.tightest
    if worst is not None:
        out.rows = [res.row() for res in found.results
                    if res.key == worst.key]
    from betweencut.proofs.verdict import certified

    out.assumes = _assumes(mech, cache, covered, len(chosen), certified(out.rows))
    if bound is not None:
        from betweencut.data.notation import database_text, record_text

        out.facts.update(epsilon_facts(bound.epsilon, dlt, database_text(bound.db),
                                       record_text(bound.z), Release.OUTPUT,
                                       getattr(bound, "pair", None), bound.curve))
        out.curve = bound.curve
    return out


def _assumes(mech: Any, cache: Any, covered: str, audited: int, factored: bool = False
             ) -> Any:
    """What a PrivTree verdict rests on (`betweencut.proofs.assumes`): the package's own
    PrivTree, or yours (a subclass, your membership or split rule), not replayed; the reduction
    to `T_z` where it applies; exact arithmetic (`factored`: a deep pair's event probabilities
    certified from their exact factors, `divergence.factored`); the pairs and what they
    cover."""
    from betweencut.proofs import assumes as a

    own = is_own(mech)
    return a.Assumes.of(
        a.code_items(own, replayed=False),
        a.PRIVTREE_SEAMS if cache.refusal is None else a.direct(cache.refusal),
        a.ARITHMETIC_FACTORED if factored else a.ARITHMETIC_EXACT,
        a.pairs_covered(covered, audited), a.OTHER_PAIRS)


def _box_point(text: object, mech: Any, name: str) -> tuple[int, ...]:
    point = parse_record(text, name) if isinstance(text, str) else tuple(text)  # type: ignore[arg-type]
    if len(point) != len(mech.box) or not all(
            isinstance(x, int) and lo <= x < hi for x, (lo, hi) in zip(point, mech.box,
                                                                      strict=True)):
        raise ParameterError(name, text, f"a cell of the public box {show_box(mech.box)}")
    return point


def _replace_pairs(mech: Any, pairs: Iterable[tuple[object, object]] | None,
                   exhaustive: int | None, search: int | None) -> tuple[list[Any], str, int]:
    """Replace-one pairs: given `(D, D')`, or every pair of databases of at most `N + 1`
    points (`exhaustive=N`, at most `LIST_CAP` pairs)."""
    from betweencut.proofs.baselines.privtree_checks import privtree_audit as pa
    from betweencut.proofs.privacy.enumeration.cache import Neighbour, replace_pairs

    if search is not None:
        raise ParameterError("search", search, "add/remove pairs only (replace-one: pairs= or "
                             "exhaustive=N)")
    if exhaustive is not None:
        from betweencut.baselines.privtree import volume

        width = volume(mech.box)
        count = sum(math.comb(width + n - 1, n) for n in range(exhaustive + 1)) * \
            math.comb(width, 2)
        if count > LIST_CAP:
            raise ParameterError("exhaustive", exhaustive, f"at most {LIST_CAP} replace-one "
                                 f"pairs (this box and size give {count})")
        return list(replace_pairs(pa.domain(mech), exhaustive + 1)), \
            f"every pair of databases of at most {exhaustive + 1} points (listed)", count
    if pairs is None or isinstance(pairs, str | bytes):
        raise ParameterError("pairs", repr(pairs), "an iterable of (database, other database)")
    out = []
    for given in pairs:
        if not isinstance(given, tuple | list) or len(given) != 2:
            raise ParameterError("pairs", repr(given), "(database, other database) pairs")
        dbs: list[Any] = [parse_database(db, name) if isinstance(db, str) else db
                          for db, name in zip(given, ("D", "D'"), strict=True)]
        first, second = (tuple(sorted(_box_point(p, mech, name) for p in db))
                         for db, name in zip(dbs, ("D", "D'"), strict=True))
        out.append(Neighbour.between(first, second))
    return out, "the pairs given", len(out)


def _pairs(mech: Any, pairs: Iterable[tuple[object, object]] | None, exhaustive: int | None,
           search: int | None, dlt: Any, relation: Any = None) -> tuple[list[Any], str, int]:
    """The pairs to audit, what they cover (in words) and how many databases that is."""
    from betweencut.baselines.privtree import volume
    from betweencut.proofs.baselines.privtree_checks import privtree_audit as pa
    from betweencut.proofs.baselines.privtree_checks.privtree_depth import (
        copies_worst_pair,
        symmetry_refusal,
    )
    from betweencut.proofs.baselines.privtree_checks.privtree_search import (
        MAX_DP_CELLS,
        is_partition,
    )

    partition = is_partition(mech)
    width = volume(mech.box)
    if relation is not None and relation.bound is not None:
        exhaustive = None if exhaustive is None else min(exhaustive, relation.bound - 1)
        search = None if search is None else min(search, relation.bound - 1)
    if exhaustive is not None:
        n = exhaustive
        if partition and dlt == 0:
            pair, _ = pa.dp_pair(mech, n)
            return [pair], f"every database of at most {n} points (count DP)", \
                math.comb(n + width, width)
        return pa.exhaustive_pairs(mech, n, LIST_CAP), \
            f"every database of at most {n} points (listed)", math.comb(n + width, width)
    if search is not None:
        n = search
        first = [pa.dp_pair(mech, n)[0]] if partition and width <= MAX_DP_CELLS else []
        deep = None if dlt != 0 or symmetry_refusal(mech) else copies_worst_pair(mech, n)
        if deep is not None:
            first.append((pa.as_points(deep.found.db), deep.found.z))
        try:
            listed, support = pa.multiplicity_pairs(mech, n, 2, LIST_CAP), 2
        except ParameterError:
            try:
                listed, support = pa.multiplicity_pairs(mech, n, 1, LIST_CAP), 1
            except ParameterError:
                if deep is None:
                    raise
                listed, support = [], 0
        rest = [p for p in listed if p not in first]
        parts = [f"every database of at most {n} points on at most {support} distinct "
                 f"point{'s' if support > 1 else ''}"] if support else []
        if deep is not None:
            parts.append(deep.covered())
        what = "; ".join(parts) + (" (count DP's worst pair first)"
                                   if partition and width <= MAX_DP_CELLS else "")
        dbs = 1 + width * n + (math.comb(width, 2) * n * (n - 1) // 2 if support == 2 else 0)
        return first + rest, what, dbs
    if pairs is None or isinstance(pairs, str | bytes):
        raise ParameterError("pairs", repr(pairs), "an iterable of (database, added point)")
    out = []
    given: Any
    for given in pairs:
        if not isinstance(given, tuple | list) or len(given) != 2:
            raise ParameterError("pairs", repr(given), "(database, added point) pairs")
        db_given, z_given = given
        records: Any = parse_database(db_given, "D") if isinstance(db_given, str) else db_given
        points = tuple(sorted(_box_point(p, mech, "D") for p in records))
        if len(points) > MAX_PRIVTREE_SIZE:
            raise ParameterError("D", f"{len(points)} points", f"at most {MAX_PRIVTREE_SIZE}")
        if relation is not None and relation.bound is not None and \
                len(points) + 1 > relation.bound:
            raise ParameterError("pairs", f"|D + z| = {len(points) + 1}",
                                 f"databases of at most {relation.bound} points")
        out.append((points, _box_point(z_given, mech, "z")))
    return out, "the pairs given", len(out)


def _pair_text(pair: Any) -> str:
    """The pair (add/remove `(D, z)` or a replace-one `Neighbour`) for an error note."""
    from betweencut.data.notation import neighbours_text
    from betweencut.proofs.privacy.enumeration.cache import Neighbour

    if isinstance(pair, Neighbour):
        return neighbours_text(pair.first, second=pair.second)
    return neighbours_text(pair[0], pair[1])
