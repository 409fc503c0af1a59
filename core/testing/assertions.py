"""`assert_private`, `assert_no_regression` and `assert_heavy_private`: a privacy claim as a test
assertion, decided exactly by `betweencut.audit_mechanism` (never a second audit).

A failure raises `AssertionError` whose message is self-contained: what was audited, the
counterexample (`Refutation.lines()`: the pair, the event, exact `P` and `Q`, the excess) or
every pair and exact `ε` range of a regression, and one line that replays it (a `betweencut
audit privacy ...` command when the mechanism is importable by name and the options have
flags, else a Python call). A budget exceeded fails with "too large for the budget" and how far
the audit got (`betweencut.testing.budget`).
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from betweencut.boundary.seal import sealing
from betweencut.errors import ParameterError
from betweencut.proofs.verdict import Release
from betweencut.testing.budget import Budget, check_budget
from betweencut.testing.curves import excesses, pair_curves, pair_text

__all__ = ["DEFAULT_HEAVY_TAU", "assert_heavy_private", "assert_no_regression",
           "assert_private", "replay_line"]

CLI_FLAGS = {"height": "--height", "arity": "--arity", "tau": "--tau", "lam": "--lam",
             "R": "--R", "accountant": "--accountant"}
DEFAULT_HEAVY_TAU = Fraction(2)
DEFAULT_HEAVY_SIZE = 1  # every database of at most one record, every added record


def _mechanism_spec(target: object) -> str | None:
    """`MODULE:QUALNAME` when importing it gives `target` back (so a command can name it)."""
    module = getattr(target, "__module__", None)
    name = getattr(target, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(name, str) or "<" in name or \
            module == "__main__":
        return None
    found: Any = sys.modules.get(module)
    for part in name.split("."):
        found = getattr(found, part, None)
    return f"{module}:{name}" if found is target else None


def _module_root(spec: str) -> Path | None:
    """The folder a command must run from to import `spec`'s module (None: importable from
    anywhere, an installed package)."""
    import sysconfig

    name = spec.partition(":")[0]
    file = getattr(sys.modules.get(name), "__file__", None)
    if not isinstance(file, str):
        return None
    root = Path(file).resolve().parents[name.count(".")]
    top = name.split(".")[0]
    installed = {Path(sysconfig.get_path(k)).resolve() for k in ("purelib", "platlib")}
    if root in installed or not ((root / top).is_dir() or (root / f"{top}.py").is_file()):
        return None
    return root


def _flag_value(value: object, name: str = "") -> str | None:
    """`value` as the command line's flag reads it (a rational; an accountant's name), else
    None: the replay is then a Python call."""
    if name == "accountant":
        return value if isinstance(value, str) and value.isidentifier() else None
    if isinstance(value, bool):
        return None
    if isinstance(value, int | Fraction):
        return str(value)
    if isinstance(value, str):
        from betweencut.numbers.exact_text import read_rational

        try:
            read_rational(value, "value")
        except ParameterError:
            return None
        return value
    return None


def replay_line(user: Any, pair: tuple[str, str], epsilon: object, delta: object, on: Release,
                options: dict[str, Any]) -> str:
    """One line that replays the audit of `pair`: the command line where it can say it all,
    else the Python call (`assert_private`)."""
    spec = _mechanism_spec(user.target)
    flags: list[str] | None = [] if spec is not None else None
    for name, value in options.items():
        text = _flag_value(value, name)
        if flags is None or name not in CLI_FLAGS or text is None:
            flags = None
            break
        flags += [CLI_FLAGS[name], text]
    eps, dlt = _flag_value(epsilon), _flag_value(delta)
    if flags is not None and spec is not None and eps is not None and dlt is not None:
        from betweencut.api.load import PRIVTREE

        on_flag = [] if user.kind == PRIVTREE else ["--on", on]
        words = ["betweencut", "audit", "privacy", "--mechanism", spec, *flags, "--db",
                 pair[0], "--add", pair[1], "--epsilon", eps, "--delta", dlt, *on_flag]
        root = _module_root(spec)
        cd = f"cd {shlex.quote(str(root))} && " if root is not None and root != Path.cwd() \
            else ""
        return f"replay: {cd}{shlex.join(words)}"
    name = spec.replace(":", ".") if spec is not None else user.name
    args = ", ".join([f"{k}={_py(v)}" for k, v in options.items()])
    return (f"replay: betweencut.testing.assert_private({name}, epsilon={_py(epsilon)}, "
            f"delta={_py(delta)}, pairs=[({pair[0]!r}, {pair[1]!r})], on={on!r}"
            f"{', ' + args if args else ''})")


def _py(value: object) -> str:
    """A value as Python text (a tree by its description: the same tree object is meant)."""
    if isinstance(value, Fraction):
        return repr(str(value))
    if isinstance(value, int | str) or value is None:
        return repr(value)
    description = getattr(value, "description", None)
    return f"<{description}>" if isinstance(description, str) else repr(value)


def _subject_line(verdict: Any) -> str:
    from betweencut.proofs.exact.certificate import jsonable

    subject = jsonable(verdict.subject)
    parts = [f"{k} = {v}" for k, v in subject.items() if k in ("mechanism", "tree")]
    params = subject.get("parameters")
    if isinstance(params, dict):
        parts.append("parameters: " + ", ".join(f"{k} = {v}" for k, v in params.items()))
    return "; ".join(parts)


@sealing
def assert_private(
    mechanism: object, epsilon: object, delta: object,
    pairs: Iterable[tuple[object, object]] | None = None, exhaustive: int | None = None,
    search: int | None = None, on: str | Sequence[str] | None = None,
    budget_s: object = None, seed: int | None = None, first: bool = False,
    **tree_and_params: Any,
) -> Any:
    """Claim: the mechanism is `(epsilon, delta)`-DP on the pairs audited (given, every
    database up to `exhaustive` records, or `search` pairs found by a Hypothesis search).
    A failure names the worst pair audited (the largest `δ_pair(ε)`), or with `first=True` the
    first refuting pair, where the audit stops (faster in CI; issue 35, item 4).

    Preconditions (checked by `betweencut.audit_mechanism`, `ParameterError`): exactly one of
    `pairs`, `exhaustive`, `search`; the public tree and parameters in `tree_and_params`
    (`tree` or `height`/`arity`; a builder's `tau` with `lam` and `R`, or calibrated from
    `(epsilon, delta)`); `budget_s` seconds or None. The search is derandomised (the same
    pairs on every run) unless a seed is given, as `seed=` or `$BETWEENCUT_SEED` (the seed
    handling of `betweencut.properties.check`): then it is seeded (other pairs, the same for
    that seed), and a failure names the seed.
    Checks: every pair and release by exact enumeration of the real code.
    Returns: the `Verdict` (holds). Raises: `AssertionError` with the counterexample and a
    replay line; `OverBudget` (an `AssertionError`) "too large for the budget"; what the audit
    raises on bad input or a failing mechanism.
    """
    __tracebackhide__ = True  # pytest shows the caller's line and the message
    from betweencut.api.load import resolve

    for name in ("claim", "baseline", "progress"):
        if name in tree_and_params:
            raise ParameterError(name, "given", "assert_private audits (epsilon, delta); "
                                 "use assert_no_regression for a baseline")
    user = resolve(mechanism, strict=tree_and_params.get("strict") is True)  # before any run

    def replay(pair: tuple[str, str], release: Release) -> str:
        return replay_line(user, pair, epsilon, delta, release, tree_and_params)

    releases = None if on is None else Release.several(on)  # `on` read once
    return _check(user, epsilon, delta, pairs, exhaustive, search, releases, budget_s,
                  {**tree_and_params, **({"first": True} if first else {})}, replay, seed)


def search_seed(user: Any, search: int | None, seed: object) -> int | None:
    """The seed of a seeded search for `audit_mechanism` (`seed=`, else `$BETWEENCUT_SEED`),
    else None: derandomised. A PrivTree draws nothing (no seed)."""
    from betweencut.api.load import PRIVTREE
    from betweencut.properties.check import choose_seed

    if search is None or (user.kind == PRIVTREE and seed is None):
        if seed is not None:
            raise ParameterError("seed", seed, "only with search=N (nothing else is drawn)")
        return None
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise ParameterError("seed", repr(seed), "an integer (or None: derandomised)")
    return choose_seed(seed, derandomize=True)  # given, else $BETWEENCUT_SEED, else None


def _searched(search: int | None, drawn: int | None) -> list[str]:
    """The line saying how the pairs were searched (a searched audit only)."""
    from betweencut.properties.check import SEED_ENV

    if search is None:
        return []
    if drawn is None:
        return [f"pairs: search={search}, derandomised (the same pairs on every run)"]
    s = drawn
    return [f"pairs: search={search} seeded with {s} (seed={s}, or {SEED_ENV}={s} pytest ..., "
            "repeats the search)"]


def _check(user: Any, epsilon: object, delta: object,
           pairs: Iterable[tuple[object, object]] | None, exhaustive: int | None,
           search: int | None, on: tuple[Release, ...] | None, budget_s: object,
           options: dict[str, Any], replay: Any, seed: object = None) -> Any:
    """The audit of `assert_private`, and its failure message (`replay(pair, release)`)."""
    __tracebackhide__ = True
    from betweencut.api import audit_mechanism

    drawn = search_seed(user, search, seed)
    budget = Budget(check_budget(budget_s), pair_text)
    verdict = budget.run(lambda progress: audit_mechanism(
        user, pairs, exhaustive=exhaustive, search=search, epsilon=epsilon, delta=delta, on=on,
        progress=progress, seed=drawn, **options))
    if verdict.holds:
        return verdict
    lines = [f"privacy assertion failed: {_subject_line(verdict)}"]
    refutation = verdict.refutation
    if refutation is None:  # pragma: no cover - a refuted verdict carries its refutation
        lines.append(verdict.text())
    else:
        lines += refutation.lines()
        lines.append("the first refuting pair (first=True): not the worst" if verdict.first
                     else f"the worst of the {verdict.pairs} pair(s) audited")
        lines += _searched(search, drawn)
        lines.append(replay((refutation.D, refutation.z), refutation.on))
    raise AssertionError("\n".join(lines))


@sealing
def assert_no_regression(
    candidate: object, baseline: object,
    pairs: Iterable[tuple[object, object]] | None = None, exhaustive: int | None = None,
    search: int | None = None, on: str | Sequence[str] | None = None,
    budget_s: object = None, seed: int | None = None, **tree_and_params: Any,
) -> None:
    """Claim: on every pair audited, the candidate's exact `δ(ε)` never exceeds the
    baseline's, at any `ε >= 0` (decided exactly).

    Preconditions: both mechanisms of the same kind, on the same public tree and parameters;
    exactly one of `pairs`, `exhaustive`, `search` (a PrivTree: `pairs` only; a search is
    derandomised unless seeded, as in `assert_private`).
    Checks: fresh- and shared-noise functions and builders by the regression mode of
    `betweencut.audit_mechanism` (`baseline=`: both exact curves per pair, each range
    witnessed and cross-checked against the direct hockey-stick divergence); a PrivTree by
    both pairs' exact curves (`betweencut.testing.curves`).
    Returns: None. Raises: `AssertionError` listing every pair and exact `ε` range where the
    candidate exceeds, with a replay line; `OverBudget`; what the audit raises.
    """
    __tracebackhide__ = True
    from betweencut.api import audit_mechanism
    from betweencut.api.load import PRIVTREE, resolve

    for name in ("claim", "progress", "baseline"):
        if name in tree_and_params:
            raise ParameterError(name, "given", "assert_no_regression compares two curves: "
                                 "no claim")
    user, base = resolve(candidate), resolve(baseline, "baseline")
    releases = None if on is None else Release.several(on)  # `on` read once
    budget = Budget(check_budget(budget_s), pair_text)
    drawn = search_seed(user, search, seed)
    if user.kind == PRIVTREE or base.kind == PRIVTREE:
        if user.kind != base.kind:
            raise ParameterError("baseline", base.name, f"a mechanism of the same kind as "
                                 f"{user.name} ({user.kind})")
        if pairs is None or exhaustive is not None or search is not None:
            raise ParameterError("pairs", "not given", "pairs= for a PrivTree (its regression "
                                 "check compares the curves of the pairs given)")
        chosen = list(pairs)
        mine = pair_curves(user, chosen, on=releases, budget=budget, **tree_and_params)
        theirs = pair_curves(base, chosen, on=releases, budget=budget, **tree_and_params)
        ranges = [e for key, curve in mine.curves.items()
                  for e in excesses(key, curve, theirs.curves[key])]
        found = [e.line("candidate", "baseline") for e in ranges]
        keys = [e.key for e in ranges]
    else:
        verdict = budget.run(lambda progress: audit_mechanism(
            user, pairs, exhaustive=exhaustive, search=search, claim=[(0, 1)], on=releases,
            baseline=base, progress=progress, seed=drawn, **tree_and_params))
        found = [_regression_line(r) for r in verdict.regressions]
        keys = [(_db(r), _z(r), str(r.on)) for r in verdict.regressions]
    if not found:
        return
    D, z, release = keys[0]
    lines = [f"privacy regression: {user.name} leaks more than {base.name} "
             f"({len(found)} range{'s' if len(found) > 1 else ''}):",
             *("  " + line for line in found),
             f"replay: betweencut.testing.assert_no_regression({_name(user)}, {_name(base)}, "
             f"pairs=[({D!r}, {z!r})], on={release!r}"
             + "".join(f", {k}={_py(v)}" for k, v in tree_and_params.items()) + ")"]
    raise AssertionError("\n".join(lines))


def _name(user: Any) -> str:
    spec = _mechanism_spec(user.target)
    return spec.replace(":", ".") if spec is not None else user.name


def _db(r: Any) -> str:
    from betweencut.data.notation import database_text

    return database_text(r.db)


def _z(r: Any) -> str:
    from betweencut.data.notation import record_text

    return record_text(r.z)


def _regression_line(r: Any) -> str:
    from betweencut.proofs.privacy.audit.pairs import display
    from betweencut.testing.curves import eps_range, exact_text

    return (f"D = {_db(r)}, z = {_z(r)}, on {r.on}: candidate delta(eps) > baseline "
            f"delta(eps) for {eps_range(r.eps_from, r.eps_to)}; at eps = {r.witness}: "
            f"{display(r.candidate_delta):.6g} > {display(r.baseline_delta):.6g} (exact: "
            f"{exact_text(r.candidate_delta)} > {exact_text(r.baseline_delta)})")


def heavy_mechanism(heavy_fn: Any, tree: Any, params: Any) -> Any:
    """A classifier `heavy_fn(tree, leaves, params, test) -> Heavy set` as a mechanism
    `(db, test) -> frozenset of nodes` on the public `tree` with public `params`."""

    def heavy(db: Any, test: Any) -> frozenset[tuple[int, ...]]:
        out = heavy_fn(tree, list(db), params, test)
        if isinstance(out, str | bytes) or not isinstance(out, Iterable):
            raise ParameterError("heavy_fn result", type(out).__name__, "an iterable of nodes")
        return frozenset(tuple(u) for u in out)

    heavy.__qualname__ = heavy.__name__ = getattr(heavy_fn, "__name__", "heavy_fn")
    return heavy


@sealing
def assert_heavy_private(
    heavy_fn: Any, epsilon: object, delta: object, *, tree: Any = None, tau: object = None,
    params: Any = None, pairs: Iterable[tuple[object, object]] | None = None,
    exhaustive: int | None = None, budget_s: object = None,
) -> Any:
    """Claim: a heavy-node classifier written against the noisy-test interface is
    `(epsilon, delta)`-DP on what it releases (its Heavy set), on a small public tree.

    `heavy_fn(tree, leaves, params, test)` is what `betweencut_heavy_check` takes. Defaults:
    the binary tree of height 3, `tau = 2`, the parameters Theorem 5.5 calibrates for
    `(epsilon, delta)` (`0 < epsilon <= 1`, `0 < delta < 1/10`; or give `params`), every
    database of at most one record with every added record (or `pairs`/`exhaustive`).
    Returns: the `Verdict`. Raises: as `assert_private` (the counterexample and a replay line).
    """
    __tracebackhide__ = True
    from betweencut.data.tree import PublicTree, kary_tree
    from betweencut.mechanism.calibration import calibrate
    from betweencut.mechanism.params import Params
    from betweencut.numbers.exact import as_rational

    if not callable(heavy_fn):
        raise ParameterError("heavy_fn", repr(heavy_fn), "a callable (tree, leaves, params, "
                             "test) -> Heavy set")
    public = kary_tree(2, 3) if tree is None else tree
    given = params
    if not isinstance(public, PublicTree):
        raise ParameterError("tree", repr(tree), "a PublicTree (kary_tree, prefix_tree)")
    if params is None:
        threshold = DEFAULT_HEAVY_TAU if tau is None else as_rational(tau, "tau")
        params = calibrate(public.height, epsilon, delta).params(threshold)
    elif tau is not None:
        raise ParameterError("tau", tau, "not with params= (params carries tau)")
    if not isinstance(params, Params):
        raise ParameterError("params", repr(params), "a betweencut.mechanism.params.Params")
    if pairs is None and exhaustive is None:
        exhaustive = DEFAULT_HEAVY_SIZE
    from betweencut.api.load import resolve

    user = resolve(heavy_mechanism(heavy_fn, public, params))
    spec = _mechanism_spec(heavy_fn)
    options = [f"{k}={v}" for k, v in (("tree", _py(tree)), ("tau", _py(tau)),
                                        ("params", repr(given))) if v != "None"]

    def replay(pair: tuple[str, str], release: str) -> str:
        name = spec.replace(":", ".") if spec is not None else user.name
        more = "".join(f", {o}" for o in options)
        return (f"replay: betweencut.testing.assert_heavy_private({name}, epsilon="
                f"{_py(epsilon)}, delta={_py(delta)}, pairs=[({pair[0]!r}, {pair[1]!r})]"
                f"{more})")

    return _check(user, epsilon, delta, pairs, exhaustive, None, None, budget_s,
                  {"tree": public}, replay)
