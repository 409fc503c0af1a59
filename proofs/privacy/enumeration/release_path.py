"""The audit's enumeration against the release path: the user's code, run as deployed in a
fresh interpreter with the release sampler (`betweencut.boundary.release_replay`), must give
the outputs the audit enumerated for the same answers.

The enumeration runs the user's code in children forked from the audit's process, which see
the audit's modules, stack and test objects: code that looks for them can behave privately
only when audited, and the audit's "holds" would speak of code that is never deployed. So, for
the databases of the audit (the first `MAX_DATABASES` in the audit's order), `RUNS` seeded
runs each on the release path: every run's answer sequence must be one the enumeration of that
database met, and its output's canonical bytes, under each release audited, the enumerated
output's for that sequence; otherwise `ReleasePathDiffers` (a `MechanismError`: the command
line exits 2 with one line).

Scope: a function `(db, test) -> output` and a builder's `run(leaves, test)` asking BT noisy
tests (fresh noise). Not replayed, and stated so in the verdict (`assumes.release_path_not_done`):
a mechanism the audit's enumeration handed to another kind (shared noise, the field's
primitives, Gaussian noise), a Renyi claim, a callable a fresh interpreter cannot import by
name (defined in `__main__` or inside a function, an instance, a partial), a baseline's runs.

May import: `betweencut.boundary`, `betweencut.proofs.assumes`, this package's `cache`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

from betweencut.boundary.encoding import ReleaseKey
from betweencut.boundary.release_replay import (
    PATH,
    ReleasePathDiffers,
    Replay,
    ReplaySpec,
    enabled,
    locate,
    params_json,
    start,
    tree_json,
)
from betweencut.errors import MechanismError
from betweencut.proofs import assumes as a
from betweencut.proofs.assumes import Item

__all__ = ["MAX_DATABASES", "Pending", "begin", "compare", "databases_of", "finish"]

MAX_DATABASES = 64  # databases replayed per audit, the first in the audit's order
WHY = ("the code behaves differently when audited (or this process changed it after its "
       "import, a patch or a module global, which a fresh interpreter does not see)")


def databases_of(chosen: Iterable[Any]) -> list[Any]:
    """The databases of the audit's pairs (`(D, z)` or `Neighbour`), in the audit's order,
    each once."""
    from betweencut.proofs.privacy.enumeration.cache import Neighbour, with_record

    out: dict[Any, None] = {}
    for pair in chosen:
        if isinstance(pair, Neighbour):
            out.setdefault(pair.first)
            out.setdefault(pair.second)
        else:
            out.setdefault(pair[0])
            out.setdefault(with_record(pair[0], pair[1]))
    return list(out)


class Pending:
    """A replay started for an audit (`replay` None: not replayed, `why` says why)."""

    def __init__(self, replay: Replay | None, why: str, listed: int = 0) -> None:
        self.replay = replay
        self.why = why
        self.listed = listed

    def kill(self) -> None:
        if self.replay is not None:
            self.replay.kill()


def begin(name: str, target: Any, built: Any, tree: Any, params: Any, ons: Sequence[str],
          chosen: Sequence[Any], cache: Any) -> Pending:
    """The replay of the audit's first `MAX_DATABASES` databases, started (it runs while the
    audit does), or why it is not: the package's own code (`seams.packaged`), a callable a
    fresh interpreter cannot import by name. Isolation off (`isolation.isolating(False)`, the
    bench's baseline) replays too: the comparison keys the in-process outputs itself."""
    from betweencut.boundary.seams import packaged

    if packaged(target):
        return Pending(None, "the package's own code")
    module = getattr(target, "__module__", None)
    if isinstance(module, str) and module.split(".")[0] == "betweencut":
        return Pending(None, "the package's own class, changed in this process (a patched "
                       "method): a fresh interpreter would run it unchanged")
    if not enabled():
        return Pending(None, "switched off (release_replay.replaying(False): a benchmark's "
                       "baseline)")
    found = locate(target)
    if found is None:
        return Pending(None, "your callable cannot be imported by name in a fresh interpreter "
                       "(defined in __main__ or inside a function, an instance, a partial)")
    module, file, qualname = found
    dbs = databases_of(chosen)
    builder = built is not None
    made = params_json(params) if builder else None
    if builder and made is None:
        return Pending(None, "the builder's parameters cannot be rebuilt by name")
    spec = ReplaySpec(
        who=name, module=module, file=file, qualname=qualname, builder=builder,
        ons=tuple(ons), databases=tuple(dbs[:MAX_DATABASES]),
        tree=tree_json(tree) if builder else None, params=made)
    return Pending(start(spec), "", len(dbs))


def finish(pending: Pending, cache: Any, audited: Sequence[Any]) -> Item:
    """The replay's runs compared with the audit's enumeration of each database it audited
    (`audited`: the pairs audited), or the item saying it was not done.

    Checks: every replayed run's answers are an answer sequence the enumeration of its
    database met, asked of the same noisy tests, and its releases' canonical bytes are the
    enumerated output's (`compare`).
    Returns: the verdict's `release_path` item (`assumes.release_path` when checked).
    Raises: `ReleasePathDiffers` naming the database, the answers and both outputs;
    `MechanismError` when the child failed (`Replay.runs`)."""
    replay = pending.replay
    if replay is None:
        return a.release_path_not_done(pending.why)
    if getattr(cache, "other", None) is not None:  # another kind enumerated it
        pending.kill()
        return a.release_path_not_done("the mechanism asks shared-noise, Gaussian or the "
                                       "field's primitives: only BT noisy tests are replayed")
    runs = replay.runs()
    spec = replay.spec
    wanted = set(databases_of(audited))
    checked = [i for i, db in enumerate(spec.databases) if db in wanted]
    by_db: dict[int, list[Any]] = {}
    for run in runs:
        by_db.setdefault(run.db, []).append(run)
    for index in checked:
        db = spec.databases[index]
        compare(spec.who, db, cache.enumeration(db), by_db.get(index, []), spec.ons,
                cache.given)
    return a.release_path(spec.runs, len(checked), len(wanted))


def compare(who: str, db: Any, found: Any, runs: Sequence[Any], ons: Sequence[str],
            given: dict[str, Callable[[object], Hashable]] | None = None) -> None:
    """One database's release-path runs against the audit's enumeration of it.

    Preconditions: `found` is the enumeration the audit used for `db` (an `Enumeration` of
    the user's code, its outputs `isolated.Outputs`, or the outputs themselves when the audit
    ran them in its process: `given`, the cache's keyed projections, keys them), `runs` the
    `ReplayRun`s of `db`, `ons` the releases audited, in the order of each run's `outputs`.
    Checks: each run's answers are an answer sequence `found` holds, asked of the same noisy
    tests (the multiset of `(a - c, b - c, λ, answer)`: the sequence's probability), and each
    release's canonical bytes are the enumerated output's for that sequence.
    Returns: None.
    Raises: `ReleasePathDiffers` naming `who`, the database, the answers and both outputs."""
    from betweencut.data.notation import database_text
    from betweencut.noise.noisy_test import BTQuery, Outcome
    from betweencut.proofs.laws.factors import factor_key, law_key

    met: dict[str, Any] = {}
    laws: dict[str, list[Any]] = {}
    for (output, bag), steps in zip(found.leaves, found.steps, strict=True):
        met["".join(str(s) for _, s in steps)] = output
        laws["".join(str(s) for _, s in steps)] = sorted(factor_key(f) for f in bag)
    shown_db = database_text(db)
    for run in runs:
        answers = run.answers or "(none)"
        if run.answers not in met:
            shown = ", ".join(repr(ReleaseKey(data)) for data in run.outputs)
            raise ReleasePathDiffers(
                f"the mechanism {who}: {PATH} a run on D = {shown_db} (seed {run.seed}) drew "
                f"the answers {answers} and released {shown}; the audit enumerated no such "
                f"answer sequence: {WHY}")
        if len(run.queries) != len(run.answers) or len(run.outputs) != len(ons):
            raise MechanismError(f"the replay of {who} sent a malformed run on D = {shown_db}")
        asked = sorted((*law_key(BTQuery(c, a, b, lam)), Outcome(s))
                       for (c, a, b, lam), s in zip(run.queries, run.answers, strict=True))
        if asked != laws[run.answers]:
            raise ReleasePathDiffers(
                f"the mechanism {who}: {PATH} a run on D = {shown_db} (seed {run.seed}) asked "
                f"other noisy tests for the answers {answers} than the audit enumerated "
                f"({_laws(asked)} against {_laws(laws[run.answers])}): {WHY}")
        output = met[run.answers]
        for on, data in zip(ons, run.outputs, strict=True):
            keys = getattr(output, "keys", None)
            expected = keys.get(on) if isinstance(keys, dict) else (
                given[on](output) if given is not None and on in given else None)
            if not isinstance(expected, ReleaseKey):
                raise ReleasePathDiffers(f"the mechanism {who}: the audit's enumeration of "
                                         f"D = {shown_db} holds no release {on!r} to compare")
            if expected.data != data:
                raise ReleasePathDiffers(
                    f"the mechanism {who}: {PATH} the output for D = {shown_db}, answers "
                    f"{answers} was {ReleaseKey(data)!r}; the audit enumerated {expected!r}"
                    f"{'' if on == 'output' else f' (release {on})'}: {WHY}")


def _laws(keys: Sequence[Any]) -> str:
    """Noisy tests as `BT(a - c, b - c, λ) = answer`, for a refusal's line."""
    return ", ".join(f"BT({d_a}, {d_b}, {lam}) = {s}" for d_a, d_b, lam, s in keys) or "none"
