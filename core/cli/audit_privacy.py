"""`betweencut audit privacy`: exact privacy profiles on neighbouring pairs.

Parsing and printing only: the work is `betweencut.audit_mechanism` (a user's mechanism with
`--mechanism MODULE:CALLABLE`, or BetweenCut itself against Theorem 5.4's points on a small
tree) and, with no flags, the registered privacy cases of `betweencut.audit`. Exit 0 holds,
1 refuted (or a privacy regression against `--baseline`), 2 bad usage or a failing mechanism,
3 undecided.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from betweencut.boundary.seal import sealing
from betweencut.cli._common import (
    UsageError,
    add_accountant_flag,
    add_command,
    add_run_flags,
    add_strict_flag,
    positive_int,
    print_verdict,
    rational,
    report_time,
    tracker_of,
)
from betweencut.progress import tracking

PLOT_FORMATS = ("png", "pdf", "svg", "jpg", "jpeg")
MECHANISM_HELP = (
    "audit your own mechanism: MODULE:CALLABLE, either a builder (a class such as a BetweenCut "
    "subclass, or a function whose first parameter is named `tree`), called once as "
    "CALLABLE(tree, params) and whose result has run(leaves, test); or any other callable, "
    "used as a function (db, test) -> output. It may ask BTQuery tests or the shared-noise "
    "primitives of betweencut.noise.noisy_queries (SVT, noisy max). A callable without parameters "
    "returning a PrivTree is audited on PrivTree databases (--db 4*2 --add 4; --exhaustive N "
    "and --search N are sizes). --epsilon/--delta are then the claim audited (0 <= delta < 1)"
)


def add_parser(groups: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = add_command(
        groups, "privacy",
        "Exact privacy profiles by transcript enumeration (Theorem 5.4, Lemma C.1, Theorem "
        "5.5), or of your own mechanism (--mechanism).",
        "betweencut audit privacy --arity 2 --height 3 --lam 0.5 --R 2 --tau 2 "
        "--db 0/0,0/1 --add 0/0 --json",
    )
    p.add_argument("--arity", type=positive_int("arity", 1, 15), default=2,
                   help="k of the k-ary tree")
    p.add_argument("--height", type=positive_int("height", 1, 15), help="public tree height h")
    p.add_argument("--lam", type=rational("lam"), help="lambda (0 < lambda <= 1)")
    p.add_argument("--R", type=rational("R"), dest="R", help="guard width R >= 1")
    p.add_argument("--epsilon", type=rational("epsilon"),
                   help="calibrate (Theorem 5.5) to eps; with --mechanism, the claimed eps")
    p.add_argument("--delta", type=rational("delta"), help="... and delta")
    p.add_argument("--zcdp", type=rational("zcdp"), metavar="RHO",
                   help="with --mechanism: claim rho-zCDP (D_alpha <= rho*alpha at every order "
                        "alpha > 1) instead of --epsilon/--delta")
    p.add_argument("--rdp", metavar="ALPHA:EPS",
                   help="with --mechanism: claim (alpha, eps)-RDP at one order instead")
    p.add_argument("--tau", type=rational("tau"), help="public threshold tau >= 0")
    p.add_argument("--db", help="database D: records such as 0/1,1/1 (0/1*2: two copies; '' = "
                   "empty)")
    p.add_argument("--add", help="the added record z, such as 0/0")
    p.add_argument("--other", metavar="DB",
                   help="with --neighbours replace-one: the other database D' (D with one "
                        "record replaced), such as 0/0,1/1")
    p.add_argument("--neighbours", default="add-remove", metavar="RELATION",
                   help="add-remove (default), replace-one (pairs --db D --other D'; "
                        "--exhaustive N: every pair of databases of at most N + 1 records) or "
                        "add-remove-bounded:N (a public bound N on every database's size); "
                        "stated in the verdict")
    p.add_argument("--on", choices=("transcript", "heavy", "output"),
                   help="only the transcript or the Heavy set (with --mechanism also 'output', "
                        "the default there: the callable's whole return value)")
    p.add_argument("--exhaustive", type=positive_int("exhaustive", 0, 1000), metavar="N",
                   help="every database of size <= N and every added record (a PrivTree: "
                        "every database of at most N points)")
    add_accountant_flag(p)
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.add_argument("--mechanism", metavar="MODULE:CALLABLE", help=MECHANISM_HELP)
    add_strict_flag(p)
    p.add_argument("--baseline", metavar="MODULE:CALLABLE",
                   help="regression mode (with --mechanism): report every pair and eps range "
                        "where the mechanism's delta exceeds this baseline's (same kind)")
    p.add_argument("--search", type=positive_int("search", 1, 10**6), metavar="N",
                   help="with --mechanism: search N pairs (Hypothesis, derandomised) for the "
                        "largest delta(eps)")
    p.add_argument("--max-size", type=positive_int("max-size", 0, 64), dest="max_size",
                   help="with --search on tree leaves: largest |D| the search draws (default 3)")
    p.add_argument("--first", action="store_true",
                   help="stop at the first refuting pair (CI: exit 1 sooner); by default a "
                        "refuted audit goes on over every pair (or its whole search) and "
                        "reports the worst: the largest delta at the claim and the largest "
                        "epsilon_at_delta, each with its pair")
    p.add_argument("--plot", metavar="FILE",
                   help="draw the worst pair's curve delta(eps) against the claim (" +
                        ", ".join(PLOT_FORMATS) + "; needs betweencut[plot])")
    add_run_flags(p)
    p.set_defaults(handler=run, group="privacy")


@sealing
def run(args: argparse.Namespace) -> int:
    flags = [args.height, args.lam, args.R, args.epsilon, args.delta, args.tau, args.db,
             args.add, args.on, args.exhaustive, args.plot, args.search, args.max_size,
             args.baseline, args.other, args.zcdp, args.rdp]
    replace_one = args.neighbours.strip().startswith("replace-one")
    if args.mechanism is None and all(f is None for f in flags):
        from betweencut.cli.audit import run as run_group

        return int(run_group(args))
    if args.mechanism is None and (args.baseline is not None or args.search is not None):
        raise UsageError("--baseline and --search go with --mechanism MODULE:CALLABLE")
    if args.mechanism is None and args.strict:
        raise UsageError("--strict goes with --mechanism MODULE:CALLABLE (the package's own "
                         "mechanism is the code the proofs check)")
    if args.mechanism is None and args.on == "output":
        raise UsageError("--on output goes with --mechanism (BetweenCut: transcript or heavy)")
    second = args.other if replace_one else args.add
    if replace_one and args.add is not None:
        raise UsageError("--add goes with add/remove neighbours; replace-one: --db D --other D'")
    if not replace_one and args.other is not None:
        raise UsageError("--other goes with --neighbours replace-one")
    if (args.db is not None and second is None) or (second is not None and args.db is None):
        raise UsageError("give --db and --other together" if replace_one else
                         "give --db and --add together")
    check_plot(args.plot)
    from betweencut.api import audit_mechanism
    from betweencut.api.load import resolve

    mechanism: Any = args.mechanism
    tree_flags: dict[str, Any] = {"height": args.height, "arity": args.arity, "tau": args.tau,
                                  "lam": args.lam, "R": args.R}
    claim: Any = None
    if args.zcdp is not None or args.rdp is not None:
        if args.mechanism is None or (args.zcdp is not None and args.rdp is not None):
            raise UsageError("--zcdp RHO or --rdp ALPHA:EPS goes with --mechanism (one of them)")
        if args.epsilon is not None or args.delta is not None or args.plot is not None:
            raise UsageError("--zcdp/--rdp are the claim: no --epsilon, --delta or --plot")
        claim = f"zcdp:{args.zcdp}" if args.zcdp is not None else f"rdp:{args.rdp}"
    if mechanism is None:
        from betweencut.mechanism.betweencut import BetweenCut

        mechanism = BetweenCut
        if args.height is None or args.tau is None:
            raise UsageError("audit privacy needs --height and --tau (or no flags at all)")
        if (args.lam is None) == (args.epsilon is None):
            raise UsageError("give either --lam and --R, or --epsilon and --delta")
        claim = "theorem-5.4"
    if sum(mode is not None for mode in (args.db, args.exhaustive, args.search)) != 1:
        raise UsageError("give exactly one of --db D " + ("--other D'" if replace_one else
                         "--add z") + ", --exhaustive N or --search N")
    pairs = None if args.db is None else [(args.db, second)]
    tracker = tracker_of(args, "audit privacy")

    def bar(items: Any, total: int) -> Any:
        return tracker.items(items, total, "pair")

    with tracking(tracker):  # the user's module is imported within the budget (issue 40)
        if args.mechanism is not None:
            mechanism = resolve(mechanism, "--mechanism", strict=args.strict)
            tree_flags = _tree_flags(mechanism, tree_flags, args.max_size)
        verdict = audit_mechanism(
            mechanism, pairs, exhaustive=args.exhaustive, search=args.search,
            max_size=args.max_size, epsilon=args.epsilon, delta=args.delta, claim=claim,
            on=args.on, baseline=args.baseline, accountant=args.accountant, progress=bar,
            neighbours=args.neighbours, strict=args.strict, first=args.first,
            **{k: v for k, v in tree_flags.items() if v is not None})
    report_time(args, tracker)
    if args.plot is not None:
        plot(args.plot, verdict)
        verdict.facts["plot"] = args.plot
    return print_verdict(verdict, args.json)


def _tree_flags(user: Any, tree_flags: dict[str, Any], max_size: int | None
                ) -> dict[str, Any]:
    """The tree flags the user's mechanism takes: a PrivTree carries its own public box (no
    tree flags, no `--max-size`: a `UsageError`)."""
    from betweencut.api.load import PRIVTREE

    if user.kind != PRIVTREE:
        return tree_flags
    given = {k: v for k, v in tree_flags.items() if v is not None and k != "arity"}
    if given:
        raise UsageError(f"{user.name} builds a PrivTree, which carries its own public "
                         f"box: drop {', '.join('--' + k for k in given)}")
    if max_size is not None:
        raise UsageError("--max-size: for a PrivTree, --search N and --exhaustive N "
                         "already give the database size N")
    return {}


def check_plot(path: str | None) -> None:
    """An unknown `--plot` extension, or no matplotlib, is a usage error found before any work."""
    if path is None:
        return
    ext = os.path.splitext(path)[1].lstrip(".").lower()
    if ext not in PLOT_FORMATS:
        raise UsageError(f"--plot {path}: unknown extension {ext!r}, use one of "
                         f"{', '.join(PLOT_FORMATS)}")
    try:
        import matplotlib
    except ImportError:
        raise UsageError("--plot needs matplotlib: pip install 'betweencut[plot]'") from None
    # the drawing's imports happen now, before the user's module is imported and the audit
    # sealed: a library they load may add an import hook (python-dateutil 2.x loads six,
    # which appends a finder), which the seal would read as the user's rewrite
    matplotlib.use("Agg")
    import matplotlib.backends.backend_agg
    import matplotlib.pyplot


def plot(path: str, verdict: Any) -> None:
    """The worst pair's exact curve `δ(ε)` (floats, for display only) with the claimed points
    and `epsilon_at_delta`."""
    import matplotlib

    matplotlib.use("Agg")
    from fractions import Fraction

    import matplotlib.pyplot as plt

    from betweencut.proofs.verdict import approx

    curve = verdict.curve
    if curve is None:
        raise UsageError("--plot: this audit has no single curve to draw (a claim of one "
                         "(eps, delta) point draws the worst pair's)")
    points = verdict.claim.points
    at = verdict.facts.get("epsilon_at_delta")
    top = max(Fraction(2) * max(max(e for e, _ in points), Fraction(1, 2)),
              Fraction(0) if at is None else Fraction(at) * Fraction(5, 4))
    xs, ys = zip(*curve.samples(top), strict=True)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(xs, ys, label="delta(eps), worst pair (exact)")
    ax.plot([float(e) for e, _ in points], [approx(d) for _, d in points], "o", label="claim")
    if at is not None:
        ax.axvline(at, linestyle=":", label=f"epsilon_at_delta = {at:.4g}")
    ax.set_xlabel("eps")
    ax.set_ylabel("delta")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
