"""`betweencut audit privacy --mechanism MODULE:CALLABLE`: audit a user's mechanism.

The claim audited is `--epsilon E --delta D` (any `E >= 0`, `0 <= D < 1`), on the pairs chosen by
`--db/--add` (one pair), `--exhaustive N` (every `|D| <= N` and every added leaf) or `--search N`
(a derandomised Hypothesis search of `N` pairs, `|D| <= --max-size`). The report gives the
verdict, the worst pair (its exact `P(S)`, `Q(S)` and event), the exact privacy curve of the pair
with the largest `epsilon_at_delta` (a certified lower bound on the mechanism's `ε` at `D`), and,
with `--baseline MODULE:CALLABLE`, every pair and `ε` range where the mechanism's `δ` exceeds the
baseline's (privacy regressions). Exit 0: holds, no regression; 1: claim refuted or a
regression; 2: bad usage, or the user's code failed to import or raised.

The mechanism may ask fresh-noise `BTQuery` tests or the shared-noise primitives of
`betweencut.noisy_queries` (SVT, noisy max): the `LawCache` below picks the enumeration from
what the code asks (`betweencut.proofs.privacy.audit.mechanism.KINDS`), everything else is the same.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from betweencut.cli._common import EXIT_OK, EXIT_REFUTED, UsageError, progress
from betweencut.cli.load import BUILDER, FUNCTION, Loaded, load, mechanism
from betweencut.params import Params
from betweencut.tree import Node, PublicTree, kary_tree

PLOT_FORMATS = ("png", "pdf", "svg", "jpg", "jpeg")
SHOWN = 5
HELP = (
    "audit your own mechanism: MODULE:CALLABLE, either a builder (a class such as a BetweenCut "
    "subclass, or a function whose first parameter is named `tree`), called once as "
    "CALLABLE(tree, params) and whose result has run(leaves, test); or any other callable, "
    "used as a function (db, test) -> output. It may ask BTQuery tests or the shared-noise "
    "primitives of betweencut.noisy_queries (SVT, noisy max). A callable without parameters "
    "returning a PrivTree is audited on PrivTree databases (--db 4*2 --add 4; --exhaustive N "
    "and --search N are sizes). --epsilon/--delta are then the claim audited (0 <= delta < 1)"
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--mechanism", metavar="MODULE:CALLABLE", help=HELP)
    p.add_argument("--baseline", metavar="MODULE:CALLABLE",
                   help="regression mode (with --mechanism): report every pair and eps range "
                        "where the mechanism's delta exceeds this baseline's (same two kinds)")
    p.add_argument("--search", type=int, metavar="N",
                   help="with --mechanism: search N pairs (Hypothesis, derandomised) for the "
                        "largest delta(eps)")
    p.add_argument("--max-size", type=int, dest="max_size",
                   help="with --search on tree leaves: largest |D| the search draws (default 3)")
    p.add_argument("--plot", metavar="FILE",
                   help="draw the worst pair's curve delta(eps) against the claim (" +
                        ", ".join(PLOT_FORMATS) + ")")


def parse_leaf(text: str, tree: PublicTree) -> Node:
    from betweencut.cli.audit_privacy import parse_leaf as parse

    return parse(text, tree)


def _params(args: argparse.Namespace, loaded: Loaded) -> Params | None:
    if not loaded.builder:
        return None
    if args.tau is None:
        return None
    if args.lam is not None or args.R is not None:
        if args.lam is None or args.R is None:
            raise UsageError("--lam and --R go together")
        return Params.of(args.tau, args.lam, args.R)
    from betweencut.calibration import calibrate

    return calibrate(args.height, args.epsilon, args.delta).params(args.tau)


def _validate(args: argparse.Namespace) -> None:
    if args.height is None:
        raise UsageError("--mechanism needs the public tree: --height (and --arity)")
    if args.epsilon is None or args.delta is None:
        raise UsageError("--mechanism needs the claim audited: --epsilon E --delta D")
    if args.epsilon < 0 or not 0 <= args.delta < 1:
        raise UsageError(f"claim (epsilon, delta) = ({args.epsilon}, {args.delta}): "
                         "epsilon >= 0 and 0 <= delta < 1")
    modes = [args.db is not None or args.add is not None, args.exhaustive is not None,
             args.search is not None]
    if sum(modes) != 1:
        raise UsageError("choose the pairs: --db D --add Z, --exhaustive N or --search N")
    if args.max_size is not None and args.search is None:
        raise UsageError("--max-size goes with --search N")
    if args.max_size is None:
        args.max_size = 3
    if args.search is not None and (args.search < 1 or args.max_size < 0):
        raise UsageError("--search N needs N >= 1 and --max-size >= 0")
    check_plot_path(args.plot)


def run(args: argparse.Namespace) -> int:
    """The `--mechanism` mode of `audit privacy` (see the module docstring)."""
    _validate(args)
    tree = kary_tree(args.arity, args.height)
    loaded = load(args.mechanism, "--mechanism")
    params = _params(args, loaded)
    candidate = mechanism(loaded, tree, params)
    baseline_loaded = load(args.baseline, "--baseline") if args.baseline else None
    baseline = mechanism(baseline_loaded, tree, params) if baseline_loaded else None
    on = args.on or "output"
    return _report(args, tree, loaded, candidate, baseline, on)


def _projections(on: str) -> dict[str, Callable[[object], Any]]:
    if on == "output":
        return {"output": lambda o: o}  # made hashable by the audit (`as_hashable`)

    def project(o: object) -> Any:
        if not hasattr(o, on):
            raise UsageError(f"--on {on}: the mechanism's output {type(o).__name__} has no "
                             f"attribute {on!r} (use --on output)")
        return getattr(o, on)

    return {on: project}


def _pairs(args: argparse.Namespace, tree: PublicTree, cache: Any, on: str) -> list[Any]:
    from betweencut.proofs.privacy.audit.mechanism import neighbouring_pairs
    from betweencut.proofs.privacy.audit.search import search_pairs

    leaves = sorted(tree.level(tree.height - 1))
    if args.exhaustive is not None:
        return list(neighbouring_pairs(leaves, args.exhaustive))
    if args.search is not None:
        found = search_pairs(cache, leaves, args.epsilon, args.delta, on, args.max_size,
                             args.search)
        return list(dict.fromkeys(found.tried))
    if args.db is None or args.add is None:
        raise UsageError("give --db and --add together")
    db = tuple(sorted(parse_leaf(x, tree) for x in args.db.split(",") if x.strip()))
    return [(db, parse_leaf(args.add, tree))]


def _report(args: argparse.Namespace, tree: PublicTree, loaded: Loaded,
            candidate: Callable[[Any, Any], Any], baseline: Callable[[Any, Any], Any] | None,
            on: str) -> int:
    from betweencut.proofs.exact.arith import exact_str
    from betweencut.proofs.privacy.audit.mechanism import LawCache, audit_mechanism, display
    from betweencut.proofs.privacy.audit.regression import find_regressions
    from betweencut.proofs.privacy.audit.search import epsilon_lower_bound

    projections = _projections(on)
    cache = LawCache(candidate, projections)
    pairs = _pairs(args, tree, cache, on)
    claim = [(args.epsilon, args.delta)]
    shown = progress(pairs, len(pairs), "pairs")
    verdict = audit_mechanism(candidate, shown, claim, on=on, cache=cache)
    checked = pairs[:verdict.pairs]
    bound = epsilon_lower_bound(cache, checked, args.delta, on)
    regressions = []
    if baseline is not None:
        regressions = find_regressions(candidate, baseline, checked, on, projections)
    eps = None if bound is None else bound.epsilon
    out: dict[str, Any] = {
        "mechanism": loaded.spec, "kind": BUILDER if loaded.builder else FUNCTION,
        "tree": tree.description, "on": on,
        "claim": {"epsilon": str(args.epsilon), "delta": str(args.delta)},
        "pairs": verdict.pairs, "transcripts": cache.transcripts, "holds": verdict.holds,
        "epsilon_at_delta": None if eps is None else eps.display(),
        "epsilon_at_delta_exact": "inf" if eps is None else eps.exact_str(),
        "epsilon_at_delta_pair": None if bound is None else _pair_json(bound.db, bound.z),
        "worst": _worst_json(verdict.worst, exact_str, display),
        "curve": None if bound is None else bound.curve.to_json(),
        "counterexample": None if verdict.refutation is None else {
            k: str(v) for k, v in verdict.refutation.counterexample().items()},
        "baseline": args.baseline,
        "regressions": [r.to_json() for r in regressions],
    }
    if args.plot is not None and bound is not None:
        plot(args.plot, bound.curve, [(args.epsilon, args.delta)], eps)
        out["plot"] = args.plot
    if args.json:
        print(json.dumps(out))
    else:
        _print(out, regressions)
    return EXIT_OK if verdict.holds and not regressions else EXIT_REFUTED


def _pair_json(db: Any, z: Any) -> dict[str, Any]:
    return {"D": ["/".join(map(str, u)) for u in db], "z": "/".join(map(str, z))}


def _worst_json(worst: Any, exact_str: Any, display: Any) -> dict[str, Any] | None:
    if worst is None:
        return None
    from betweencut.proofs.privacy.audit.mechanism import _short, with_record

    s = worst.stick
    return {
        **_pair_json(worst.db, worst.z),
        "D + z": ["/".join(map(str, u)) for u in with_record(worst.db, worst.z)],
        "eps": str(worst.eps), "direction": s.direction,
        "delta": display(worst.delta), "delta_exact": exact_str(worst.delta),
        "event_size": s.event_size, "event": [_short(o) for o in s.event],
        "P": exact_str(s.p_event), "Q": exact_str(s.q_event),
        "P_approx": display(s.p_event), "Q_approx": display(s.q_event),
    }


def _print(out: dict[str, Any], regressions: list[Any]) -> None:
    c = out["claim"]
    print(f"{out['mechanism']} ({out['kind']}) on the {out['tree']}, output '{out['on']}': "
          f"{out['pairs']} pair(s), {out['transcripts']} answer sequences enumerated")
    print(f"  claim (eps, delta) = ({c['epsilon']}, {c['delta']}): "
          f"{'holds' if out['holds'] else 'REFUTED'}")
    w = out["worst"]
    if w:
        print(f"  worst pair: D = {{{', '.join(w['D'])}}}, z = {w['z']}: delta({w['eps']}) = "
              f"{w['delta']:.6g} ({w['direction']}), P(S) = {w['P_approx']:.6g}, "
              f"Q(S) = {w['Q_approx']:.6g}, |S| = {w['event_size']}")
    eps = out["epsilon_at_delta"]
    shown = "inf (no finite eps)" if eps is None else f"{eps:.6g}"
    print(f"  epsilon_at_delta = {shown}: the mechanism is not ({c['delta']})-DP for any "
          f"smaller eps (exact: {out['epsilon_at_delta_exact']})")
    if out["baseline"]:
        if not regressions:
            print(f"  no privacy regression against {out['baseline']}")
        for r in regressions[:SHOWN]:
            print(f"  {r.line()}")
        if len(regressions) > SHOWN:
            print(f"  ... and {len(regressions) - SHOWN} more (--json lists them all)")


def check_plot_path(path: str | None) -> None:
    """An unknown `--plot` extension is a usage error, found before any work is done."""
    if path is None:
        return
    ext = os.path.splitext(path)[1].lstrip(".").lower()
    if ext not in PLOT_FORMATS:
        raise UsageError(f"--plot {path}: unknown extension {ext!r}, use one of "
                         f"{', '.join(PLOT_FORMATS)}")


def plot(path: str, curve: Any, claim: list[tuple[Fraction, Any]], at: Any) -> None:
    """The curve `δ(ε)` (floats, for display only) with the claimed points and `ε_at_δ`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from betweencut.proofs.privacy.audit.mechanism import display

    eps_max = max(e for e, _ in claim)
    top = max(Fraction(2) * max(eps_max, Fraction(1, 2)),
              Fraction(0) if at is None else Fraction(at.display()) * Fraction(5, 4))
    xs, ys = zip(*curve.samples(top), strict=True)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(xs, ys, label="delta(eps), worst pair (exact)")
    ax.plot([float(e) for e, _ in claim], [display(d) for _, d in claim], "o",
            label="claim" if len(claim) > 1 else f"claim ({claim[0][0]}, {claim[0][1]})")
    if at is not None:
        ax.axvline(at.display(), linestyle=":", label=f"epsilon_at_delta = {at.display():.4g}")
    ax.set_xlabel("eps")
    ax.set_ylabel("delta")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
