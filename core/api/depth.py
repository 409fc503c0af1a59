"""`audit_depth`: Theorem 5.4 at any height up to `2^64 - 1` by path grouping (issue 13).

For the public height and parameters it decides, for each audited neighbouring pair and each
`r = 1..L`, the exact `δ(rλ)` of the full transcript (or, `on="heavy"`, of the released Heavy
set) against the chosen accountant's bound at the claim's `ε = rλ`: the single-leaf pairs
`C` vs `C + 1` across the band, the two-segment profiles and a derandomised search over
profiles, or one pair (`count=C`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from betweencut.api.load import in_user_code
from betweencut.boundary.seal import sealing
from betweencut.boundary.seams import check_unchanged, overrides, own_code
from betweencut.data.tree import kary_tree
from betweencut.errors import ParameterError, shown
from betweencut.mechanism.betweencut import SEAMS, BetweenCut
from betweencut.mechanism.calibration import AccountantKind, path_query_bound
from betweencut.mechanism.params import Params
from betweencut.proofs import assumes as a
from betweencut.proofs.assumes import Assumes
from betweencut.proofs.verdict import Claim, Release, Row, Verdict

MAX_HEIGHT = (1 << 64) - 1


@sealing
def audit_depth(
    height: int,
    *,
    tau: object,
    params: Params | None = None,
    epsilon: object = None,
    delta: object = None,
    lam: object = None,
    R: object = None,
    on: str | Release = Release.TRANSCRIPT,
    accountant: str | AccountantKind = AccountantKind.PAPER,
    count: int | None = None,
    search: int = 20,
    arity: int = 2,
    variant: type[BetweenCut] = BetweenCut,
    progress: Callable[[list[Any]], Iterable[Any]] | None = None,
    each: Callable[[list[Row]], None] | None = None,
    strict: bool = False,
) -> Verdict:
    """Theorem 5.4 (Eq. (22)) at depth for `variant` (default BetweenCut itself).

    Preconditions (checked): `1 <= height <= 2^64 - 1`; the claimed parameters: `params`, or
    `tau` with `lam` and `R`, or `tau` with `epsilon` and `delta` (calibrated by
    `accountant`); `0 < λ <= 1`; `τ >= E` (off-path nodes guarded Light); `on` "transcript" or
    "heavy"; `variant` keeps Alg. 3's `level_order`, `apply` and `run`.
    Returns: a `Verdict` whose rows (one per pair and `r`, each `δ` at the claim's `ε = rλ`)
    are every row audited (`each(rows)` hears each pair's rows as they are decided, e.g. to
    stream them out); `facts`: the profiles refused (a variant's unguarded sibling) and the
    number of profiles the search tried. `strict=True` (issue 34): `variant`'s source, and
    every function of your modules it reaches, is first verified pure
    (`betweencut.boundary.purity`) before it is built; the verdict states "pure: verified".
    Raises: `ParameterError`, `Undecided`, `NotPure` (a `MechanismError`) under strict mode.
    """
    from betweencut.proofs.privacy.accountants import Chosen
    from betweencut.proofs.privacy.depth.depth_audit import (
        audit_profiles,
        claimed_points,
        single_leaf_band,
        step_profiles,
    )
    from betweencut.proofs.privacy.depth.heavy import check_on
    from betweencut.proofs.privacy.depth.paths import PathProfile, check_seams

    chosen = Chosen.of(accountant)  # the accountant's name read once, on this route
    if isinstance(height, bool) or not isinstance(height, int) or not 1 <= height <= MAX_HEIGHT:
        raise ParameterError("height", height, "an integer 1 <= h <= 2^64 - 1")
    release = check_on(on)  # read once: a Release on
    if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count < 0):
        raise ParameterError("count", count, "an integer C >= 0")
    if isinstance(search, bool) or not isinstance(search, int) or search < 0:
        raise ParameterError("search", search, "an integer >= 0 (0: no search)")
    info: dict[str, object] = {}
    promise: tuple[Any, Any] | None = None
    if params is None:
        manual, calibrated = lam is not None or R is not None, (
            epsilon is not None or delta is not None)
        if manual == calibrated:
            raise ParameterError("lam", lam, "either lam and R, or epsilon and delta")
        if manual:
            if lam is None or R is None:
                raise ParameterError("lam" if lam is None else "R", None, "lam and R go together")
            params = Params.of(tau, lam, R)
        else:
            if epsilon is None or delta is None:
                raise ParameterError("epsilon" if epsilon is None else "delta", None,
                                     "epsilon and delta go together")
            cal = chosen.calibrate(height, epsilon, delta)
            params = cal.params(tau)
            info["calibrated"] = f"({cal.epsilon}, {cal.delta}) by the {chosen} accountant"
            promise = (cal.epsilon, cal.delta)
    if params.lam > 1:
        raise ParameterError("lambda", shown(params.lam), "0 < lambda <= 1 (Theorem 5.4)")
    if params.margin.compare(params.tau) > 0:
        raise ParameterError("tau", shown(params.tau), f"tau >= E = {params.margin.exact_str()} "
                             f"~ {params.margin.approx():.6g} (off-path nodes guarded Light)")
    L = path_query_bound(height)
    bounds = chosen.depth_bounds(L, params)
    tree = kary_tree(arity, height)
    if not isinstance(strict, bool):
        raise ParameterError("strict", strict, "True or False")
    if strict:
        from betweencut.boundary.purity import check_pure

        check_pure(variant, getattr(variant, "__qualname__", repr(variant)))
    from betweencut.api.load import packaged_code, user_first

    def build() -> Any:
        with in_user_code(refuse=not own_code(variant)):
            return variant(tree, params)

    if not packaged_code(variant):  # a user's subclass is built in a child first
        user_first(build, getattr(variant, "__qualname__", "variant"), "while building it")
    mechanism = build()
    check_seams(mechanism)  # on the constructed object, before any of its code is read
    if mechanism.tree is not tree:
        raise ParameterError("variant", variant.__name__, "a BetweenCut on the public tree it "
                             f"is built with ({tree.description})")
    seams = overrides(mechanism, SEAMS)
    single = count is not None
    profiles = ([PathProfile.single_leaf(height, count)] if single  # type: ignore[arg-type]
                else single_leaf_band(mechanism, params) + step_profiles(mechanism))

    def rows_of(found: list[Any]) -> None:
        if each is not None:
            each([row.to_row(release) for row in found])
            for row in found:  # streamed out: each pair's exact values are dropped once written
                row.forget()

    audit = audit_profiles(mechanism, profiles, bounds, exact=single, skip_refused=not single,
                           progress=progress, on=release, each=rows_of if each else None)
    tried = 0
    if not single and search:
        from betweencut.proofs.privacy.depth.path_search import search_profiles

        found = search_profiles(mechanism, bounds, max_examples=search, on=release)
        audit.rows.extend(found.rows)
        rows_of(found.rows)
        tried = found.tried
    text = f"{chosen.depth_text}: (r*lambda, delta_r)-DP for r = 1..L"
    points = [(b.eps, b.exact) for b in bounds]
    promised_rows: list[Any] = []
    if promise is not None:  # the calibration's own (ε, δ), which need not be any rλ
        from betweencut.proofs.privacy.depth.transcript import ClaimedBound

        label = f"Theorem 5.5: ({promise[0]}, {promise[1]})-DP"
        text += f"; {label}"
        points.append(promise)
        kept = audit_profiles(mechanism, sorted({row.profile for row in audit.rows},
                                                key=lambda p: p.steps),
                              [ClaimedBound.of(1, *promise)], exact=single, skip_refused=True,
                              on=release)
        promised_rows = [row.to_row(release, label) for row in kept.rows]
        if each is not None:
            each(promised_rows)
        audit.rows.extend(kept.rows)
    claim = Claim(text, tuple(points), (release,),
                  parameters={"L": L, "lambda": params.lam, "R": params.R.exact_str(),
                              "accountant": str(chosen), "points": claimed_points(bounds)})
    subject: dict[str, object] = {
        "mechanism": variant.__name__, "tree": f"complete {arity}-ary tree, h = {height}",
        "parameters": {"tau": params.tau, "lambda": params.lam, "R": params.R.exact_str(),
                       **info}}
    theorem_rows = [row.to_row(release) for row in audit.rows[:len(audit.rows)
                                                          - len(promised_rows)]]
    verdict = Verdict("depth", subject, claim, audit.holds, theorem_rows + promised_rows,
                      pairs=len({row.profile for row in audit.rows}))
    worst = audit.worst
    if worst is not None and not worst.holds:
        verdict.refutation = worst.refutation(
            f"({worst.eps}, delta_{worst.r})-DP ({text.split(':')[0]} at r = {worst.r})", release)
    verdict.facts["refused"] = [{"profile": p.describe(), "why": why} for p, why in audit.refused]
    check_unchanged(mechanism, SEAMS, seams, variant.__name__)
    if tried:
        verdict.facts["search"] = {"tried": tried}
    verdict.assumes = a.strict(Assumes.of(
        a.code_items(own_code(variant, mechanism, SEAMS), replayed=None), a.DEPTH_SEAMS,
        a.OFFPATH, a.ARITHMETIC_EXACT,
        a.profiles_audited(verdict.pairs, None if single else tried), a.OTHER_PROFILES),
        strict)
    return verdict
