"""`audit_mechanism` for a PrivTree (the baseline, a subclass overriding a seam, or one built
with another membership or split rule): the pairs are databases of points given as
multiplicities, the exact laws come from the reachable decomposition
(`betweencut.proofs.baselines.privtree_audit.PrivTreeLawCache`, equal to direct enumeration of
the real `run`), and the answer is the same `Verdict` as for any mechanism.

The PrivTree carries its own public box, so the tree arguments are refused; the claim is the
`(epsilon, delta)` given (never read off the mechanism object: the audited code does not choose
its own claim). `N` of `exhaustive=N` and `search=N` is a database size:

* `exhaustive=N`: every database of at most `N` points; for a rule that partitions every box
  and a pure claim (`δ = 0`) one pair decides it: the count DP's worst pair (the largest loss
  over all of them, exactly); otherwise every database is listed (one pair per class of equal
  law), refused past a cap;
* `search=N`: every database of at most `N` points made of copies of at most two distinct
  points (one, when two would pass the cap), the count DP's worst pair first for a partition
  rule; for a pure claim on a rule the symmetric search knows
  (`betweencut.proofs.baselines.privtree_depth`), every database of at most `N` copies of one
  point too, on boxes of any size (the listing is left out when it would pass the cap).

`epsilon_at_delta` is the largest `ε` at `δ` over *every* pair covered, with the pair attaining
it (`privtree_audit.epsilon_bound`); the claim holds on every pair covered iff it holds on that
pair, which is the one audited for the verdict.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from betweencut.api.load import UserMechanism, raised_line
from betweencut.baselines.privtree import SEAMS
from betweencut.boundary.seams import check_unchanged, overrides, own_code
from betweencut.data.notation import parse_database, parse_record
from betweencut.errors import BetweenCutError, MechanismError, ParameterError
from betweencut.proofs.privacy.audit.run import epsilon_facts
from betweencut.proofs.verdict import Claim, Release, Verdict, dp_point

MAX_PRIVTREE_SIZE = 1000  # the count DP's table is (depth + 1)·(N + 1) exact ratios
LIST_CAP = 50000  # pairs listed (before the classes of equal law are merged)
EVENT_NOTE = ("partitions cut back to the boxes whose counts z changes (T_z): the event is "
              "every partition agreeing with one of these there")


def show_box(box: Any) -> str:
    return "x".join(f"[{lo},{hi})" for lo, hi in box)


def audit_privtree(
    user: UserMechanism, pairs: Iterable[tuple[object, object]] | None, *,
    exhaustive: int | None, search: int | None, epsilon: object, delta: object,
    claim: object, on: tuple[Release, ...] | None, baseline: object, tree: object,
    height: object, tau: object, lam: object, R: object,
    progress: Callable[[Iterable[Any], int], Iterable[Any]] | None,
    relation: Any = None,
) -> Verdict:
    """The PrivTree kind of `betweencut.audit_mechanism` (see the module docstring). Under
    replace-one (`relation`), a given pair is `(D, D')`, `exhaustive=N` lists every pair of
    databases of at most `N + 1` points (up to `LIST_CAP`), `search` is refused; the laws of a
    replace-one pair come from direct enumeration of the real `run`."""
    from betweencut.proofs.verdict import Relation

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

    mech = user.built
    own = own_code(None, mech, SEAMS, (mech.member, mech.split.children))
    try:
        with in_user_code(refuse=not own):  # your rules and seams: outside randomness refused
            return _audit(user, pairs, exhaustive, search, eps, dlt, progress, relation)
    except OutsideRandomness as exc:
        raise MechanismError(f"the PrivTree of {user.name} {exc}") from None
    except (BetweenCutError, KeyboardInterrupt):
        raise
    except BaseException as exc:  # the user's membership rule, split rule or run
        raise MechanismError(f"the PrivTree of {user.name} raised {raised_line(exc)}") from None


def _audit(user: UserMechanism, pairs: Iterable[tuple[object, object]] | None,
           exhaustive: int | None, search: int | None, eps: Any, dlt: Any,
           progress: Callable[[Iterable[Any], int], Iterable[Any]] | None,
           relation: Any) -> Verdict:
    from betweencut.proofs.baselines.privtree_audit import (
        PrivTreeLawCache,
        epsilon_bound,
        privtree_run,
    )
    from betweencut.proofs.privacy.audit.pairs import audit_pairs

    mech = user.built
    seams = overrides(mech, SEAMS)
    cache = PrivTreeLawCache(mech)
    if relation.is_replace:
        chosen, covered, databases = _replace_pairs(mech, pairs, exhaustive, search)
    else:
        chosen, covered, databases = _pairs(mech, pairs, exhaustive, search, dlt, relation)
    claim = Claim.dp(eps, dlt).under(relation)
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
    check_unchanged(mech, SEAMS, seams, user.name)  # what the reduction read at the start
    subject = {
        "mechanism": user.name, "kind": user.kind,
        "tree": f"PrivTree on {show_box(mech.box)}, theta = {mech.theta}, rule "
                f"{getattr(mech.member, '__name__', repr(mech.member))}",
        "parameters": {"epsilon": mech.epsilon, "theta": mech.theta},
        "covered": covered, "databases": databases}
    out = Verdict("mechanism", subject, claim, found.holds, pairs=len(chosen))
    if found.refutation is not None:
        out.refutation = found.refutation.refutation(claim.text, EVENT_NOTE, _output_text)
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


def is_own(mech: Any) -> bool:
    """The package's own PrivTree, with the package's membership and split rules (else your
    code runs in it: `audit_mechanism` runs the whole audit in a child first, issue 34)."""
    return own_code(None, mech, SEAMS, (mech.member, mech.split.children))


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


def _output_text(o: object) -> str:
    """A (reduced) partition as `{[0,2), [2,4), ...}`, written from its release
    (`proofs.privacy.audit.pairs.output_text`)."""
    from betweencut.proofs.privacy.audit.pairs import output_text

    return output_text(o)


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
    from betweencut.proofs.baselines import privtree_audit as pa
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
    from betweencut.proofs.baselines import privtree_audit as pa
    from betweencut.proofs.baselines.privtree_depth import copies_worst_pair, symmetry_refusal
    from betweencut.proofs.baselines.privtree_search import MAX_DP_CELLS, is_partition

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
