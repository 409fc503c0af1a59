"""`betweencut audit privacy`: exact privacy profiles of one neighbouring pair (or all of them).

With no flags it runs the registered default cases (`betweencut.proofs.privacy.claims.checkers`).
With a tree,
parameters and a pair `(D, D + z)` it prints, for each `r = 1..L`, the exact `δ(rλ)` of the full
transcript and of the Heavy set, Theorem 5.4's bound and the verdict; `--exhaustive N` audits
every database of size `<= N` with every added leaf. Exit 1 when a claim is refuted.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from fractions import Fraction
from typing import Any

from betweencut.cli._accountant import add_accountant_flag, calibrate_with
from betweencut.cli._common import (
    EXIT_OK,
    EXIT_REFUTED,
    UsageError,
    add_command,
    positive_int,
    progress,
    rational,
)
from betweencut.errors import shown
from betweencut.params import Params
from betweencut.tree import Node, PublicTree, kary_tree

PROJECTIONS = ("transcript", "heavy")
# Enumeration sizes that finish in reasonable time (measured: binary h = 4, every pair with
# |D| <= 2, 360 pairs, about 17 s; one pair on the 4-ary tree of height 3, 21 nodes, > 40 s).
MAX_AUDIT_NODES = 15
MAX_AUDIT_PAIRS = 400
MIN_AUDIT_LAMBDA = Fraction(1, 1000)  # exact weights e^(-lambda*x) grow with 1/lambda and R
MAX_AUDIT_R = 1000
MAX_AUDIT_TAU = 10**6
MAX_EXHAUSTIVE = 64  # --exhaustive N for a tree mechanism; a PrivTree takes up to 1000


def add_parser(groups: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = add_command(
        groups, "privacy",
        "Exact privacy profiles by transcript enumeration (Theorem 5.4, Lemma C.1, Theorem 5.5).",
        "betweencut audit privacy --arity 2 --height 3 --lam 0.5 --R 2 --tau 2 "
        "--db 0/0,0/1 --add 0/0 --json",
    )
    p.add_argument("--arity", type=positive_int("arity", 1, MAX_AUDIT_NODES), default=2,
                   help="k of the k-ary tree")
    p.add_argument("--height", type=positive_int("height", 1, MAX_AUDIT_NODES),
                   help="public tree height h")
    p.add_argument("--lam", type=rational("lam"), help="lambda (0 < lambda <= 1)")
    p.add_argument("--R", type=rational("R"), dest="R", help="guard width R >= 1")
    p.add_argument("--epsilon", type=rational("epsilon"), help="calibrate (Theorem 5.5) to eps")
    p.add_argument("--delta", type=rational("delta"), help="... and delta")
    p.add_argument("--tau", type=rational("tau"), help="public threshold tau >= 0")
    p.add_argument("--db", help="database D: comma-separated leaves such as 0/1,1/1 ('' = empty)")
    p.add_argument("--add", help="the added record z, one leaf such as 0/0")
    p.add_argument("--on", choices=(*PROJECTIONS, "output"),
                   help="only the transcript or the Heavy set (with --mechanism also 'output', "
                        "the default there: the callable's whole return value)")
    p.add_argument("--exhaustive", type=positive_int("exhaustive", 0, 1000), metavar="N",
                   help="every database of size <= N and every added leaf (a PrivTree: every "
                        "database of at most N points)")
    add_accountant_flag(p)
    p.add_argument("--json", action="store_true", help="one JSON object")
    from betweencut.cli.audit_mechanism import add_arguments

    add_arguments(p)
    p.set_defaults(handler=run, group="privacy")


def parse_leaf(text: str, tree: PublicTree) -> Node:
    """`0/1` -> `(0, 1)`, checked to be a leaf of `tree`."""
    try:
        node = tuple(int(part) for part in text.strip().split("/")) if text.strip() else ()
    except ValueError:
        raise UsageError(f"leaf {text!r} is not child indices such as 0/1") from None
    ok = len(node) == tree.height - 1 and all(
        0 <= c < tree.arity(node[:i]) for i, c in enumerate(node))
    if not ok:
        raise UsageError(f"leaf {text!r} is not a leaf of the {tree.description}")
    return node


def _audit_tree(arity: int, height: int, exhaustive: int | None) -> PublicTree:
    """The k-ary tree, refused up front when its enumeration cannot finish in reasonable time."""
    nodes = sum(arity**d for d in range(height))
    if nodes > MAX_AUDIT_NODES:
        raise UsageError(
            f"the {arity}-ary tree of height {height} has {nodes} nodes: exact enumeration "
            f"runs on trees of at most {MAX_AUDIT_NODES} nodes (e.g. binary h <= 4, ternary "
            "h <= 3)")
    if exhaustive is not None:
        leaves = arity ** (height - 1)
        pairs = sum(math.comb(leaves + n - 1, n) for n in range(exhaustive + 1)) * leaves
        if pairs > MAX_AUDIT_PAIRS:
            raise UsageError(
                f"--exhaustive {exhaustive} on this tree means {pairs} neighbouring pairs: at "
                f"most {MAX_AUDIT_PAIRS} run in reasonable time (binary h = 4: N <= 2)")
    return kary_tree(arity, height)


def _check_sizes(params: Params) -> None:
    if params.lam < MIN_AUDIT_LAMBDA:
        raise UsageError(f"lambda = {shown(params.lam)}: enumeration needs lambda >= 1/1000")
    if params.R.compare(MAX_AUDIT_R) > 0:
        raise UsageError(f"R = {shown(params.R)}: enumeration needs R <= {MAX_AUDIT_R}")
    if params.tau > MAX_AUDIT_TAU:
        raise UsageError(f"tau = {shown(params.tau)}: enumeration needs tau <= {MAX_AUDIT_TAU}")


def _setup(args: argparse.Namespace) -> tuple[PublicTree, Params, dict[str, Any]]:
    if args.height is None or args.tau is None:
        raise UsageError("audit privacy needs --height and --tau (or no flags at all)")
    tree = _audit_tree(args.arity, args.height, args.exhaustive)
    manual = args.lam is not None or args.R is not None
    calibrated = args.epsilon is not None or args.delta is not None
    if manual == calibrated:
        raise UsageError("give either --lam and --R, or --epsilon and --delta")
    if manual:
        if args.lam is None or args.R is None:
            raise UsageError("--lam and --R go together")
        return tree, Params.of(args.tau, args.lam, args.R), {}
    if args.epsilon is None or args.delta is None:
        raise UsageError("--epsilon and --delta go together")
    cal = calibrate_with(args.accountant, args.height, args.epsilon, args.delta)
    return tree, cal.params(args.tau), {"epsilon": cal.epsilon, "delta": cal.delta, "cal": cal}


def run(args: argparse.Namespace) -> int:
    if args.mechanism is not None:
        from betweencut.cli import audit_privtree

        privtree = audit_privtree.privtree_of(args.mechanism)
        if privtree is not None:  # a zero-parameter callable building a PrivTree
            return audit_privtree.run(args, privtree)
    if args.exhaustive is not None and args.exhaustive > MAX_EXHAUSTIVE:
        raise UsageError(f"--exhaustive {args.exhaustive}: at most {MAX_EXHAUSTIVE} (sizes up "
                         "to 1000 are for a PrivTree, audited by its count DP)")
    if args.mechanism is not None:
        from betweencut.cli.audit_mechanism import run as run_mechanism

        return run_mechanism(args)
    if args.baseline is not None or args.search is not None:
        raise UsageError("--baseline and --search go with --mechanism MODULE:CALLABLE")
    if args.on == "output":
        raise UsageError("--on output goes with --mechanism (BetweenCut: transcript or heavy)")
    flags = [args.height, args.lam, args.R, args.epsilon, args.delta, args.tau, args.db,
             args.add, args.on, args.exhaustive, args.plot]
    if all(f is None for f in flags):
        from betweencut.cli.audit import run as run_group

        return int(run_group(args))
    from betweencut.cli.audit_mechanism import check_plot_path
    from betweencut.proofs.privacy.claims.checkers import betweencut_cache, pair_report

    check_plot_path(args.plot)
    tree, params, promised = _setup(args)
    if params.lam > 1:
        raise UsageError(f"lambda = {shown(params.lam)}: Theorem 5.4 needs 0 < lambda <= 1")
    _check_sizes(params)
    on = [args.on] if args.on else list(PROJECTIONS)
    points = _accountant_points(args.accountant, tree, params)
    if args.exhaustive is not None:
        return _exhaustive(args, tree, params, on, points)
    if args.db is None or args.add is None:
        raise UsageError("give --db and --add (or --exhaustive N)")
    texts = [x for x in args.db.split(",") if x.strip()]
    if len(texts) > MAX_AUDIT_NODES:
        raise UsageError(f"--db has {len(texts)} records: enumeration takes at most "
                         f"{MAX_AUDIT_NODES}")
    db = tuple(sorted(parse_leaf(x, tree) for x in texts))
    z = parse_leaf(args.add, tree)
    cache = betweencut_cache(tree, params)
    report = pair_report(cache, tree, params, db, z, points)
    out: dict[str, Any] = {
        "accountant": args.accountant,
        "tree": tree.description, "tau": str(params.tau), "lambda": str(params.lam),
        "R": params.R.exact_str(), "D": ["/".join(map(str, u)) for u in db],
        "z": "/".join(map(str, z)), "transcripts": cache.transcripts,
    }
    holds = True
    all_rows: list[dict[str, Any]] = []
    for name in on:
        rows = report.rows(name)
        out[name] = {"rows": rows}
        all_rows.extend({**row, "on": name} for row in rows)
        holds = holds and all(row["holds"] for row in rows)
    out["rows"] = all_rows
    if promised:
        holds = _promised(out, promised, cache, db, z, on) and holds
    out["holds"] = holds
    _curves(args, out, cache, db, z, on, report)
    if args.json:
        print(json.dumps(out))
    else:
        _print_pair(out, on)
    return EXIT_OK if holds else EXIT_REFUTED


def _accountant_points(name: str, tree: PublicTree, params: Params) -> list[Any] | None:
    """`(rλ, bound)` for `r = 1..L` under the tight accountant; None: Theorem 5.4 (paper)."""
    if name == "paper":
        return None
    from betweencut.proofs.privacy.accountants.accountant import accountant

    L = tree.height.bit_length()
    acc = accountant(name, L=L, lam=params.lam, R=params.R)
    return [(r * params.lam, acc.delta_upper(r * params.lam)) for r in range(1, L + 1)]


def _curves(args: argparse.Namespace, out: dict[str, Any], cache: Any, db: tuple[Node, ...],
            z: Node, on: list[str], report: Any) -> None:
    """Beside each claimed `(rλ, δ_r)`: the exact curve's `ε_at_δ_r` (a certified lower bound
    on the `ε` the pair needs at `δ_r`); `--plot` draws the first projection's curve."""
    from betweencut.cli.audit_mechanism import plot
    from betweencut.proofs.privacy.audit.mechanism import pair_curve

    for name in on:
        curve = pair_curve(cache, db, z, name)
        results = report.transcript if name == "transcript" else report.heavy
        for row, res in zip(out[name]["rows"], results, strict=True):
            eps = curve.epsilon_at_delta(res.bound)
            row["epsilon_at_delta"] = None if eps is None else eps.display()
            row["epsilon_at_delta_exact"] = "inf" if eps is None else eps.exact_str()
        out[name]["curve"] = curve.to_json()
        if args.plot is not None and name == on[0]:
            plot(args.plot, curve, [(r.eps, r.bound) for r in results], None)
            out["plot"] = args.plot


def _promised(out: dict[str, Any], promised: dict[str, Any], cache: Any, db: tuple[Node, ...],
              z: Node, on: list[str]) -> bool:
    """Theorem 5.5: `δ(ε) <= δ` at the calibrated `(ε, δ)`."""
    from betweencut.proofs.exact.arith import exact_str
    from betweencut.proofs.privacy.audit.mechanism import check_point, display

    ok = True
    for name in on:
        res = check_point(cache, db, z, name, promised["epsilon"], promised["delta"])
        out[name]["promised"] = {
            "eps": display(res.eps), "delta": display(res.delta),
            "delta_exact": exact_str(res.delta), "bound": display(promised["delta"]),
            "holds": res.holds,
        }
        ok = ok and res.holds
    return ok


def _print_pair(out: dict[str, Any], on: list[str]) -> None:
    print(f"{out['tree']}, tau = {out['tau']}, lambda = {out['lambda']}, R = {out['R']}: "
          f"D = {{{', '.join(out['D'])}}}, z = {out['z']} ({out['transcripts']} transcripts)")
    for name in on:
        print(f"  {name}:")
        print(f"    {'r':>2} {'eps':>8} {'delta(eps)':>12} {'bound':>12}  verdict  tightness")
        for row in out[name]["rows"]:
            verdict = "holds" if row["holds"] else "REFUTED"
            print(f"    {row['r']:>2} {row['eps']:>8.4g} {row['delta']:>12.6g} "
                  f"{row['bound']:>12.6g}  {verdict:<7}  {row['tightness'][1]:.4g}")
            print(f"         delta = {row['delta_exact']}; epsilon_at_delta(bound) = "
                  f"{row['epsilon_at_delta_exact']}")
        promised = out[name].get("promised")
        if promised:
            verdict = "holds" if promised["holds"] else "REFUTED"
            print(f"    Theorem 5.5: delta({promised['eps']:.4g}) = {promised['delta']:.6g} "
                  f"<= {promised['bound']:.6g}: {verdict}")


def _exhaustive(args: argparse.Namespace, tree: PublicTree, params: Params, on: list[str],
                points: list[Any] | None) -> int:
    from betweencut.proofs.privacy.claims.checkers import exhaustive

    def bar(items: Any, total: int) -> Any:
        return progress(items, total, "pairs")

    result = exhaustive(tree, params, args.exhaustive, on, bar, points)
    out: dict[str, Any] = {"accountant": args.accountant, "tree": tree.description,
                           "size": args.exhaustive, "pairs": result["pairs"],
                           "transcripts": result["transcripts"]}
    holds = True
    for name, verdict in result["verdicts"].items():
        entry: dict[str, Any] = {"holds": verdict.holds, "pairs": verdict.pairs}
        if verdict.refutation is not None:
            entry["counterexample"] = {k: str(v) for k, v in
                                       verdict.refutation.counterexample().items()}
        elif verdict.tightest is not None:
            lo, hi = verdict.tightest.tightness()
            at = verdict.epsilon_at_delta()
            entry["worst_pair"] = {"D": [list(u) for u in verdict.tightest.db],
                                   "z": list(verdict.tightest.z),
                                   "eps": str(verdict.tightest.eps),
                                   "tightness": [float(lo), float(hi)],
                                   "epsilon_at_delta": None if at is None else at.display(),
                                   "epsilon_at_delta_exact": "inf" if at is None else str(at)}
        out[name] = entry
        holds = holds and verdict.holds
    out["holds"] = holds
    if args.json:
        print(json.dumps(out))
    else:
        print(f"{out['tree']}: {out['pairs']} neighbouring pairs (|D| <= {args.exhaustive}), "
              f"{out['transcripts']} transcripts enumerated")
        for name in on:
            entry = out[name]
            print(f"  {name}: {'holds' if entry['holds'] else 'REFUTED'}")
            if "worst_pair" in entry:
                w = entry["worst_pair"]
                print(f"    tightest: D = {w['D']}, z = {w['z']}, eps = {w['eps']}, "
                      f"delta/bound in [{w['tightness'][0]:.4g}, {w['tightness'][1]:.4g}], "
                      f"epsilon_at_delta(bound) = {w['epsilon_at_delta_exact']}")
            if "counterexample" in entry:
                print(f"    {entry['counterexample']}")
    sys.stdout.flush()
    return EXIT_OK if holds else EXIT_REFUTED
