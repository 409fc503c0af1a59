"""One database's law of the user's mechanism, enumerated in two fresh child processes in two
orders, and checked to agree answer sequence by answer sequence (issue 34, "Purity checked, not
assumed"; the children: `betweencut.boundary.isolation`).

The enumeration (`transcripts.enumerate_mechanism`) is a law only when the mechanism's output
is a function of the database and the answers of its noisy tests. `enumerate_isolated` checks
that instead of assuming it: each database is enumerated in a child forked from the audit's
process (no state the user's code kept from another database, or from an earlier run of this
one, is there), and again in a second fresh child whose depth-first search explores the
outcomes of every noisy test in the reverse order (`reverse=True`: every answer sequence is
reached after other runs than in the first). State carried between runs (a memo per database,
a call counter, a default-argument list, a function attribute, `functools.lru_cache`, a module
global, an environment variable set by the code) then gives some answer sequence two different
outputs (or other noisy tests), which is refused (`MechanismNotReplayable`, a
`MechanismError`): "the output depends on something besides the database and the answers",
naming the database, the answer sequence and the two outputs. What this cannot see (state
outside the process: a file; randomness that repeats under fork) is in
`betweencut.proofs.assumes.HIDDEN_STATE`.

What crosses the pipe is JSON (`encode`/`decode`): the factors of each answer sequence's
probability by their exact keys, its steps `(node, answer)`, and each projected output as its
canonical bytes (`betweencut.boundary.encoding`: the one encoder deciding whether two outputs
are the same release). The parent's enumeration holds `Outputs`: per projection a `ReleaseKey`
rebuilt from those bytes, shown from them. Nothing the child sends is executed or unpickled.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from betweencut.boundary.encoding import OutputRefused, ReleaseKey, release_of
from betweencut.boundary.isolation import UserCode, remembered, start
from betweencut.errors import BetweenCutError, MechanismError, ParameterError
from betweencut.noise.noisy_test import NoisyTest, Outcome
from betweencut.proofs.laws.factors import factor_id, factor_key, make_bag
from betweencut.proofs.privacy.enumeration.cache import ISOLATED
from betweencut.proofs.privacy.enumeration.cache import where as where_text
from betweencut.proofs.privacy.enumeration.shared_noise import BranchingQueries, QueryLaw
from betweencut.proofs.privacy.enumeration.transcripts import (
    Enumeration,
    ForeignQuery,
    MechanismNotReplayable,
    enumerate_mechanism,
)
from betweencut.proofs.verdict import Release

__all__ = ["Outputs", "decode", "differ", "encode", "enumerate_isolated",
           "enumerate_whole", "first_difference", "identity", "keyed", "prefetch",
           "probe_isolated", "release", "released"]

WHY = "the output depends on something besides the database and the answers"


@dataclass(frozen=True)
class Outputs:
    """One answer sequence's output under every projection (`keyed(on)` reads one)."""

    keys: dict[str, ReleaseKey] = field(hash=False)

    def __hash__(self) -> int:
        return hash(tuple(self.keys.values()))


def keyed(on: Release) -> Callable[[object], Hashable]:
    """The parent's projection `on` of an `Outputs` (the child projected the real output)."""

    def project(o: object) -> Hashable:
        if not isinstance(o, Outputs):
            raise ParameterError("output", type(o).__name__, "an output released by a child")
        return o.keys[on]

    return project


def identity(output: object) -> bytes:
    """The identity of an output: its canonical bytes (`betweencut.boundary.encoding`), equal
    exactly when two outputs are the same release; the one place isolation decides it."""
    return release_of(output).data


def released(data: str) -> ReleaseKey:
    """A release as the child sent it (hex of its canonical bytes): the parent's law key,
    shown from its bytes (`ReleaseKey.shown`), never by running anything."""
    return ReleaseKey(bytes.fromhex(data))


def _node(node: object) -> object:
    """A step's node for JSON: a tuple of ints as a list, None as None, else its text."""
    if node is None:
        return None
    if isinstance(node, tuple) and all(type(c) is int for c in node):
        return list(node)
    return repr(node)


def _unnode(node: object) -> object:
    return tuple(node) if isinstance(node, list) else node


def _fraction(text: str) -> Fraction:
    return Fraction(text)


def release(output: object, project: Callable[[object], Hashable], where: str, who: str = ""
            ) -> tuple[bytes, ReleaseKey]:
    """The canonical bytes and key of `project(output)` (in the child): an output the encoder
    refuses is one `MechanismError` naming the mechanism `who` and `where`, as in the audit's
    own process (`api.load.guarded`)."""
    try:
        key = release_of(project(output))
    except OutputRefused as exc:  # its output, not its code: the encoder's refusal
        raise MechanismError(f"the mechanism {who} {where}: {exc}") from None
    return key.data, key


def encode(found: Enumeration[object], projections: dict[Release, Callable[[object], Hashable]],
           where: str = "", who: str = "") -> bytes:
    """An enumeration as JSON (run in the child): factor keys, projected outputs, steps."""
    local: dict[int, int] = {}
    factors: list[list[str]] = []
    names = list(projections)
    tables: dict[str, dict[bytes, int]] = {on: {} for on in names}
    leaves = []
    for (output, bag), steps in zip(found.leaves, found.steps, strict=True):
        ids = []
        for fid in bag:
            if fid not in local:
                local[fid] = len(factors)
                d_a, d_b, lam, s = factor_key(fid)
                factors.append([str(d_a), str(d_b), str(lam), str(s)])
            ids.append(local[fid])
        outs = []
        for on in names:
            ident, _ = release(output, projections[on], where, who)
            table = tables[on]
            if ident not in table:
                table[ident] = len(table)
            outs.append(table[ident])
        leaves.append([ids, outs, [[_node(node), str(s)] for node, s in steps]])
    keys = {on: [ident.hex() for ident in tables[on]] for on in names}
    return json.dumps({"factors": factors, "names": names, "keys": keys, "leaves": leaves},
                      separators=(",", ":")).encode()


def decode(payload: bytes) -> dict[str, Any]:
    """The child's JSON, checked for shape (a `ParameterError` naming it otherwise)."""
    try:
        return _shaped(json.loads(payload))
    except ValueError:
        raise ParameterError("child result", "malformed", "the JSON of an enumeration") \
            from None


def _shaped(data: object) -> dict[str, Any]:
    """`data` if it has the keys of an enumeration's JSON (`ValueError` otherwise)."""
    if not isinstance(data, dict) or not ({"factors", "names", "keys", "leaves"} <= set(
            data) or {"names", "keys", "seen", "values", "transcripts"} <= set(data)):
        raise ValueError("keys")
    return data


def _sequences(data: dict[str, Any]) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """Each answer sequence (as text) with its factor keys and its outputs' identities."""
    factors = ["/".join(f) for f in data["factors"]]
    idents = [list(data["keys"][on]) for on in data["names"]]
    out = {}
    for ids, outs, steps in data["leaves"]:
        answers = "".join(s for _, s in steps)
        out[answers] = (tuple(sorted(factors[i] for i in ids)),
                        tuple(idents[k][o] for k, o in enumerate(outs)))
    return out


def first_difference(a: dict[str, Any], b: dict[str, Any]) -> str | None:
    """Where two enumerations of one database (decoded) disagree, in words, or None: the same
    answer sequences, each with the same probability factors and the same outputs."""
    return differ(_sequences(a), _sequences(b))


def differ(first: dict[str, tuple[tuple[str, ...], tuple[str, ...]]],
           second: dict[str, tuple[tuple[str, ...], tuple[str, ...]]]) -> str | None:
    """The one comparison of two fresh processes' runs of one database: each answer sequence
    (as text) with what fixes its probability (the factors, or the queries asked) and its
    outputs' identities (`identity`); the first difference in words, or None."""
    for answers in sorted(first.keys() | second.keys()):
        shown = answers or "(none)"
        if answers not in first or answers not in second:
            return (f"the answers {shown} were met in one fresh process and not in the other "
                    f"(which explored the answers in the other order)")
        (fa, oa), (fb, ob) = first[answers], second[answers]
        if fa != fb:
            return (f"on the answers {shown} it asked other noisy tests in two fresh "
                    f"processes (one explored the answers in the other order)")
        if oa != ob:
            x, y = next((p, q) for p, q in zip(oa, ob, strict=True) if p != q)
            return (f"the answers {shown} gave {released(x)!r} in one fresh process and "
                    f"{released(y)!r} in another (which explored the answers in the other "
                    f"order)")
    return None


SMALL = 1024  # answer sequences of a result kept for reuse (`isolation.remembered`)


def _small(results: list[dict[str, Any]]) -> bool:
    return all(len(r.get("leaves", r.get("seen", ()))) <= SMALL for r in results)


def both(first: Callable[[], bytes], second: Callable[[], bytes], user: UserCode, where: str
         ) -> list[dict[str, Any]]:
    """`first()` and `second()` run at once in two fresh children, their JSON decoded (a
    `ForeignQuery` of a child rebuilt with a stand-in of the query's kind: `foreign`)."""
    children = [start(first, user.name, where), start(second, user.name, where)]
    try:
        return [decode(child.result()) for child in children]
    except ForeignQuery as asked:
        raise foreign(asked) from None
    finally:
        for child in children:
            child.kill()


def foreign(asked: ForeignQuery) -> ForeignQuery:
    """A child's `ForeignQuery`, its query sent as the name `module:qualname` of the cache
    class of its kind (`cache.kind_for`), rebuilt with that class as its `factory` (the cache
    switches to it, `LawCache.switch`); only a `LawCache` class of the package's is looked up,
    among the modules already imported: nothing the child sent is run."""
    import sys

    from betweencut.proofs.privacy.enumeration.cache import LawCache

    name = asked.query
    if not isinstance(name, str):
        return asked
    module, _, qualname = name.partition(":")
    cls = getattr(sys.modules.get(module), qualname, None) if module.startswith(
        "betweencut.") else None
    if not (isinstance(cls, type) and issubclass(cls, LawCache)):
        raise ParameterError("query", name,
                             "a BTQuery (betweencut.noise.noisy_test) or a primitive "
                             "of betweencut.noise.noisy_queries (DrawNoise, AboveThreshold, "
                             "NoisyMax)")
    out = ForeignQuery(None, int(getattr(asked, "position", 0)))
    out.factory = cls  # type: ignore[attr-defined]
    return out


def rebuild(data: dict[str, Any]) -> Enumeration[object]:
    """The parent's enumeration: factors interned here, outputs as `Outputs` of `Released`."""
    fids = [factor_id((_fraction(d_a), _fraction(d_b), _fraction(lam), Outcome(s)))
            for d_a, d_b, lam, s in data["factors"]]
    names = list(data["names"])
    keys = [[released(ident) for ident in data["keys"][on]] for on in names]
    found: Enumeration[object] = Enumeration()
    for ids, outs, steps in data["leaves"]:
        outputs = {on: keys[k][o] for k, (on, o) in enumerate(zip(names, outs, strict=True))}
        found.leaves.append((Outputs(outputs), make_bag([fids[i] for i in ids])))
        found.steps.append(tuple((_unnode(node), Outcome(s)) for node, s in steps))
    return found


def _fresh_key(db: Any, projections: dict[Release, Callable[[object], Hashable]], limit: int
               ) -> Hashable:
    """Where `remembered` keeps one database's two children's results (`enumerate_isolated`
    reads it, `prefetch` fills it)."""
    return ("fresh", db, tuple(projections), limit)


def _enumerated(run: Callable[[Any, NoisyTest], object], db: Any, where: str, user: UserCode,
                projections: dict[Release, Callable[[object], Hashable]], limit: int,
                after: Callable[[], None] | None, reverse: bool) -> bytes:
    """One database's enumeration as JSON (`encode`), run in a child (`reverse`: the outcomes
    of every noisy test explored in the other order)."""
    try:
        found = enumerate_mechanism(lambda test: run(db, test), limit, reverse=reverse)
    except ForeignQuery as asked:  # sent back with its kind's name (`foreign`)
        from betweencut.proofs.privacy.enumeration.cache import kind_for

        kind = kind_for(asked.query)
        asked.query = f"{kind.__module__}:{kind.__qualname__}"
        raise
    if after is not None:
        after()
    return encode(found, projections, where, user.name)


def enumerate_isolated(
    run: Callable[[Any, NoisyTest], object], db: Any, where: str, user: UserCode,
    projections: dict[Release, Callable[[object], Hashable]], limit: int,
    after: Callable[[], None] | None = None,
) -> Enumeration[object]:
    """`enumerate_mechanism(run(db, .))` in two fresh children, in two orders (module doc).

    Checks: both children end with a complete result (`betweencut.boundary.isolation`:
    exits, signals, hangs are a `MechanismError`), and agree on every answer sequence
    (`first_difference`).
    Returns: the enumeration, its outputs as `Outputs` (read with `keyed`).
    `after()`, when given, runs in each child after its enumeration (the audit's check that
    the object's seams did not change while it ran: they change in the child).
    Raises: `MechanismNotReplayable` ("the output depends on something besides the database
    and the answers") naming `where`; what either child raised."""

    def work(reverse: bool) -> Callable[[], bytes]:
        return lambda: _enumerated(run, db, where, user, projections, limit, after, reverse)

    results = remembered(user, _fresh_key(db, projections, limit),
                         lambda: both(work(False), work(True), user, where), _small)
    why = first_difference(*results)
    if why is not None:
        raise MechanismNotReplayable(f"{where}, {why}: {WHY}")
    return rebuild(results[0])


def enumerate_whole(cache: Any, db: Any) -> Any:
    """A shared-noise cache's (`shared_noise.WholeLawCache` with `isolates`) whole law of `db`,
    enumerated in two fresh children in two orders (`answer_sequences(reverse=True)`) and
    checked to agree answer sequence by answer sequence (`differ`), as `enumerate_isolated`
    does for fresh noise. Returns: the kind's `QueryLaw`, its outputs `Outputs`."""
    from betweencut.proofs.exact.arith import ExpPoly

    run, projections, where = cache.query_run, cache.given, where_text(db)
    names = list(projections)

    def work(reverse: bool) -> Callable[[], bytes]:
        def enumerate_here() -> bytes:
            seen: dict[str, list[str]] = {}
            keys: dict[str, None] = {}  # the identities met, in order

            def ident(output: object) -> list[str]:
                out = []
                for on in names:
                    text = release(output, projections[on], where, user.name)[0].hex()
                    keys.setdefault(text)
                    out.append(text)
                return out

            def recording(test: Any) -> Any:
                output = run(db, test)
                if isinstance(test, BranchingQueries):
                    seen["|".join(repr(a) for _, a in test.log)] = ident(output)
                return output

            law = cache.enumerate(recording, cache.limit, reverse=reverse)
            values = [[ident(law.outputs.get(o, o)), [[str(x), str(c)] for x, c in v.terms.items()]]
                      for o, v in law.values.items()]
            return json.dumps({"names": names, "keys": list(keys), "seen": seen,
                               "values": values, "transcripts": law.transcripts},
                              separators=(",", ":")).encode()

        return enumerate_here

    user = cache.user
    results = remembered(user, ("whole", type(cache).__name__, db, tuple(names), cache.limit),
                         lambda: both(work(False), work(True), user, where), _small)
    none: tuple[str, ...] = ()
    first, second = ({str(k): (none, tuple(v)) for k, v in data["seen"].items()}
                     for data in results)
    why = differ(first, second)
    if why is not None:
        raise MechanismNotReplayable(f"{where}, {why}: {WHY}")
    data = results[0]
    law = QueryLaw(transcripts=int(data["transcripts"]))
    for idents, terms in data["values"]:
        output = Outputs({on: released(i) for on, i in zip(names, idents, strict=True)})
        value = ExpPoly.of_fractions({Fraction(x): Fraction(c) for x, c in terms})
        law.values[output] = law.values[output] + value if output in law.values else value
        law.outputs[output] = output
    return law


def probe_isolated(run: Callable[[Any, NoisyTest], object], db: Any, where: str,
                   user: UserCode, probes: int) -> Any:
    """`transcripts.probe_sequences` of `run(db, .)` (the cost estimate's random walks) in a
    fresh child: the walks run the user's code too. Returns: the `Probe`, its bags interned
    here."""
    from betweencut.boundary.isolation import in_child
    from betweencut.proofs.privacy.enumeration.transcripts import Probe, probe_sequences

    def work() -> bytes:
        found = probe_sequences(lambda test: run(db, test), probes)
        bags = [[[str(v) for v in factor_key(f)] for f in bag] for bag in found.bags]
        return json.dumps({"sequences": found.sequences, "seconds": found.seconds,
                           "bags": bags}).encode()

    try:
        data = json.loads(in_child(work, user.name, where))
        bags = frozenset(make_bag([factor_id((_fraction(a), _fraction(b), _fraction(lam),
                                              Outcome(s))) for a, b, lam, s in bag])
                         for bag in data["bags"])
        return Probe(int(data["sequences"]), bags, float(data["seconds"]))
    except (ValueError, KeyError, TypeError):
        raise ParameterError("child result", "malformed", "the JSON of a probe") from None


def prefetch(cache: Any, databases: Iterable[Any]) -> int:
    """An accelerator of `enumerate_isolated` for an audit that knows its databases up front
    (issue 34, cost): TWO fresh children instead of two per database. Child A enumerates every
    database in the given order (forward search), child B every database in the reverse order
    (`reverse=True`), each sending the per-database JSON (`encode`) of each. Only when both
    end well and agree on every database (`first_difference`), each database's two results
    are kept where `enumerate_isolated` finds them (`remembered`, small results only, as it
    keeps them), so it forks nothing for them. On ANY failure or difference nothing is kept,
    and the per-database path runs as before: its refusal names the database. Nothing here
    decides a law or a verdict.

    What it adds to what the per-database path can miss: the second and later databases of a
    child run after others in the same process; state carried across databases that makes
    both children agree on a database yet differ from a fresh process (a state the same after
    two disjoint histories) is not seen (`betweencut.proofs.assumes.HIDDEN_STATE`).
    Only a plain `LawCache` of the user's code, fresh noise, at most `REMEMBERED` databases,
    without a deadline (its overrun names the pair it stopped in: the per-database path; a
    deadline's own exception is never caught here).
    Without one, a child that hangs is waited for twice (`HANG_SECONDS`: here, then there).
    Returns: how many databases were kept (0: the per-database path does all)."""
    from betweencut.boundary.isolation import REMEMBERED
    from betweencut.progress import current
    from betweencut.proofs.privacy.enumeration.cache import LawCache
    from betweencut.proofs.privacy.enumeration.cache import where as where_of

    user = getattr(cache, "user", None)
    if type(cache) is not LawCache or user is None or cache.other is not None:
        return 0
    if current().budget is not None or signal.getitimer(signal.ITIMER_REAL) != (0.0, 0.0):
        return 0  # a deadline (--budget, budget_s): the batch would spend it before the first
    # pair, and the overrun would not name the pair it stopped in
    dbs = list(dict.fromkeys(databases))
    if len(dbs) < 2 or len(dbs) > REMEMBERED:
        return 0
    run, given, limit, after = cache.run, cache.given, cache.limit, cache.after

    def work(order: list[Any], reverse: bool) -> Callable[[], bytes]:
        def enumerate_all() -> bytes:
            return b"[" + b",".join(_enumerated(run, db, where_of(db), user, given, limit,
                                                after, reverse) for db in order) + b"]"

        return enumerate_all

    where = f"on {len(dbs)} databases"
    children = [start(work(dbs, False), user.name, where),
                start(work(dbs[::-1], True), user.name, where)]
    try:
        sent = [json.loads(child.result()) for child in children]
        forward, backward = sent[0], sent[1][::-1]
        if len(forward) != len(dbs) or len(backward) != len(dbs):
            return 0
        results = [[_shaped(a), _shaped(b)] for a, b in zip(forward, backward, strict=True)]
        if any(not _small(r) or first_difference(*r) is not None for r in results):
            return 0
    except (BetweenCutError, ValueError, KeyError, TypeError, IndexError):
        return 0  # a child's exit, error (a foreign query...) or malformed result: the
        # per-database path says it (Ctrl-C and other BaseExceptions are not caught)
    finally:
        for child in children:
            child.kill()
    for db, result in zip(dbs, results, strict=True):
        remembered(user, _fresh_key(db, given, limit), _constant(result), _small)
    return len(dbs)


def _constant(result: list[dict[str, Any]]) -> Callable[[], list[dict[str, Any]]]:
    return lambda: result


ISOLATED.update(fresh=enumerate_isolated, whole=enumerate_whole, keyed=keyed)
