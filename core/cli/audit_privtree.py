"""`betweencut audit privacy --mechanism MODULE:CALLABLE` when the callable builds a PrivTree.

A callable without positional parameters (keyword-only ones with defaults aside) cannot be a
mechanism function `(db, test)` nor a builder `(tree, params)`; it is called once, and if it
returns a `PrivTree` (the baseline, a subclass overriding a seam, or one built with another
membership or split rule) the audit runs here: the pairs are PrivTree databases given as
multiplicities, the exact laws come from the reachable decomposition
(`betweencut.proofs.baselines.privtree_audit.PrivTreeLawCache`, equal to direct enumeration of
the real `run`), and the verdict is the same `AuditVerdict` with the same JSON keys as for any
mechanism. The PrivTree carries its own public box, so the
tree flags are refused; the claim defaults to `(mech.epsilon, 0)`. N means a database size:

* `--exhaustive N`: every database of at most `N` points. For a rule that partitions every box
  and a pure claim (`δ = 0`) one pair decides it: the count DP's worst pair (largest loss over
  all of them, exactly); otherwise every database is listed (one pair per class of equal law),
  refused past a cap.
* `--search N`: every database of at most `N` points made of copies of at most two distinct
  points (one, when two would pass the cap), with the count DP's worst pair first for a
  partition rule.
* `--db 4*2,0 --add 4`: one pair (`p*k` is `k` copies of the point `p`; 2-D points `1/3`).
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
from fractions import Fraction
from typing import Any

from betweencut.baselines.privtree import Box, Point, PrivTree
from betweencut.cli._common import EXIT_OK, EXIT_REFUTED, UsageError, progress
from betweencut.cli.load import load
from betweencut.errors import BetweenCutError, ParameterError

KIND = "PrivTree factory () -> PrivTree (reachable decomposition)"
MAX_PRIVTREE_SIZE = 1000  # the count DP's table is (depth + 1)·(N + 1) exact ratios
LIST_CAP = 50000  # pairs listed (before the classes of equal law are merged)
TREE_FLAGS = ("height", "lam", "R", "tau")


def privtree_of(spec: str) -> PrivTree | None:
    """The PrivTree a zero-parameter callable builds, or None for the other two kinds."""
    loaded = load(spec, "--mechanism")
    if loaded.builder:
        return None
    try:
        params = inspect.signature(loaded.target).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
           or p.default is p.empty for p in params):
        return None  # it can take (db, test) or needs arguments: one of the other two kinds
    try:
        built = loaded.target()
    except Exception as exc:
        raise UsageError(f"{spec}() raised {type(exc).__name__}: "
                         f"{str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
                         ) from None
    if not isinstance(built, PrivTree):
        raise UsageError(f"{spec}() returned a {type(built).__name__}: a callable without "
                         "parameters must build a PrivTree (else take (db, test) or "
                         "(tree, params))")
    return built


def _validate(args: argparse.Namespace, mech: PrivTree) -> tuple[Fraction, Fraction]:
    given = [f"--{f}" for f in TREE_FLAGS if getattr(args, f, None) is not None]
    if given:
        raise UsageError(f"{args.mechanism} builds a PrivTree, which carries its own public box: "
                         f"drop {', '.join(given)}")
    if args.baseline is not None:
        raise UsageError("--baseline is not supported for a PrivTree (audit each one)")
    if args.max_size is not None:
        raise UsageError("--max-size: for a PrivTree, --search N and --exhaustive N already "
                         "give the database size N")
    if args.accountant != "paper":
        raise UsageError(f"--accountant {args.accountant} calibrates BetweenCut; a PrivTree "
                         "carries its own epsilon (give the claim with --epsilon/--delta)")
    if args.on not in (None, "output"):
        raise UsageError(f"--on {args.on}: a PrivTree releases its partition (--on output)")
    eps = mech.epsilon if args.epsilon is None else args.epsilon
    delta = Fraction(0) if args.delta is None else args.delta
    if eps < 0 or not 0 <= delta < 1:
        raise UsageError(f"claim (epsilon, delta) = ({eps}, {delta}): epsilon >= 0 and "
                         "0 <= delta < 1")
    modes = [args.db is not None or args.add is not None, args.exhaustive is not None,
             args.search is not None]
    if sum(modes) != 1:
        raise UsageError("choose the pairs: --db D --add Z, --exhaustive N or --search N")
    for flag, n in (("--exhaustive", args.exhaustive), ("--search", args.search)):
        if n is not None and not 0 <= n <= MAX_PRIVTREE_SIZE:
            raise UsageError(f"{flag} {n}: a PrivTree database size 0..{MAX_PRIVTREE_SIZE}")
    return eps, delta


def parse_point(text: str, mech: PrivTree) -> Point:
    """`4` or `1/3` -> a point of the public box."""
    try:
        point = tuple(int(part) for part in text.strip().split("/"))
    except ValueError:
        raise UsageError(f"point {text!r} is not integer coordinates such as 4 or 1/3") from None
    if len(point) != len(mech.box) or not all(
            lo <= x < hi for x, (lo, hi) in zip(point, mech.box, strict=True)) or min(point) < 0:
        raise UsageError(f"point {text!r} is not a cell of the public box {show_box(mech.box)}")
    return point


def parse_db(text: str, mech: PrivTree) -> dict[Point, int]:
    """`4*2,0` -> `{(4,): 2, (0,): 1}` (copies at most `MAX_PRIVTREE_SIZE` in all)."""
    counts: dict[Point, int] = {}
    for item in (x for x in text.split(",") if x.strip()):
        point_text, star, copies = item.partition("*")
        try:
            k = int(copies) if star else 1
        except ValueError:
            raise UsageError(f"--db {item!r}: copies after '*' must be an integer") from None
        if k < 1:
            raise UsageError(f"--db {item!r}: copies must be >= 1")
        point = parse_point(point_text, mech)
        counts[point] = counts.get(point, 0) + k
        if sum(counts.values()) > MAX_PRIVTREE_SIZE:
            raise UsageError(f"--db holds more than {MAX_PRIVTREE_SIZE} points")
    return counts


def show_point(p: Any) -> str:
    return "/".join(map(str, p))


def show_box(box: Box) -> str:
    return "x".join(f"[{lo},{hi})" for lo, hi in box)


def show_db(db: Any) -> dict[str, int]:
    from betweencut.proofs.baselines.privtree_audit import multiplicities

    return {show_point(p): k for p, k in multiplicities(db).items()}


def show_output(o: Any) -> str:
    """A (reduced) partition as `{[0,2), [2,4), ...}`; anything else by `repr`."""
    if isinstance(o, frozenset) and all(isinstance(b, tuple) for b in o):
        return "{" + ", ".join(show_box(b) for b in sorted(o)) + "}"
    return repr(o)


def _pairs(args: argparse.Namespace, mech: PrivTree, delta: Fraction
           ) -> tuple[list[Any], str, int]:
    """The pairs to audit, what they cover (in words) and how many databases that is."""
    from betweencut.proofs.baselines import privtree_audit as pa
    from betweencut.proofs.baselines.privtree_search import is_partition

    partition = is_partition(mech)
    try:
        if args.exhaustive is not None:
            n = args.exhaustive
            if partition and delta == 0:
                pair, _ = pa.dp_pair(mech, n)
                return [pair], f"every database of at most {n} points (count DP)", \
                    math.comb(n + len(pa.domain(mech)), len(pa.domain(mech)))
            pairs = pa.exhaustive_pairs(mech, n, LIST_CAP)
            width = len(pa.domain(mech))
            return pairs, f"every database of at most {n} points (listed)", \
                math.comb(n + width, width)
        if args.search is not None:
            n = args.search
            first = [pa.dp_pair(mech, n)[0]] if partition else []
            try:
                pairs, support = pa.multiplicity_pairs(mech, n, 2, LIST_CAP), 2
            except ParameterError:
                pairs, support = pa.multiplicity_pairs(mech, n, 1, LIST_CAP), 1
            rest = [p for p in pairs if p not in first]
            what = (f"every database of at most {n} points on at most {support} distinct "
                    f"point{'s' if support > 1 else ''}" +
                    (" (count DP's worst pair first)" if first else ""))
            return first + rest, what, len(first) + len(rest)
    except ParameterError as exc:
        raise UsageError(str(exc)) from None
    if args.db is None or args.add is None:
        raise UsageError("give --db and --add together")
    db = pa.as_points(parse_db(args.db, mech))
    return [(db, parse_point(args.add, mech))], "one pair", 1


def run(args: argparse.Namespace, mech: PrivTree) -> int:
    """The PrivTree case of `audit privacy --mechanism` (see the module docstring); an
    exception raised by the user's code (its membership rule, split rule or `run`) is one
    `UsageError` line."""
    try:
        return _run(args, mech)
    except (BetweenCutError, BrokenPipeError, KeyboardInterrupt):
        raise
    except Exception as exc:
        text = str(exc).strip().splitlines()
        raise UsageError(f"the PrivTree of {args.mechanism} raised {type(exc).__name__}: "
                         f"{text[0] if text else ''}") from None


def _run(args: argparse.Namespace, mech: PrivTree) -> int:
    from betweencut.cli.audit_mechanism import check_plot_path, plot
    from betweencut.proofs.baselines.privtree_audit import PrivTreeLawCache, privtree_run
    from betweencut.proofs.exact.arith import exact_str
    from betweencut.proofs.privacy.audit.mechanism import audit_mechanism, display, pair_curve

    eps, delta = _validate(args, mech)
    check_plot_path(args.plot)
    try:
        cache = PrivTreeLawCache(mech)
    except ParameterError as exc:
        raise UsageError(str(exc)) from None
    pairs, covered, databases = _pairs(args, mech, delta)
    claim = [(eps, delta)]
    verdict = audit_mechanism(privtree_run(mech), progress(pairs, len(pairs), "pairs"), claim,
                              on="output", cache=cache)
    worst = verdict.worst  # its curve from direct enumeration of the whole real run
    curve = None if worst is None else pair_curve(cache, worst.db, worst.z, "output")
    at = None if curve is None else curve.epsilon_at_delta(delta)
    out: dict[str, Any] = {
        "mechanism": args.mechanism, "kind": KIND,
        "tree": f"PrivTree on {show_box(mech.box)}, eps = {mech.epsilon}, theta = "
                f"{mech.theta}, rule {getattr(mech.member, '__name__', repr(mech.member))}",
        "on": "output", "claim": {"epsilon": str(eps), "delta": str(delta)},
        "pairs": verdict.pairs, "covered": covered, "databases": databases,
        "transcripts": cache.transcripts, "holds": verdict.holds,
        "epsilon_at_delta": None if at is None else at.display(),
        "epsilon_at_delta_exact": "inf" if at is None else at.exact_str(),
        "epsilon_at_delta_pair": None if worst is None else {
            "D": show_db(worst.db), "z": show_point(worst.z)},
        "worst": None if worst is None else _worst_json(worst, exact_str, display),
        "curve": None if curve is None else curve.to_json(),
        "counterexample": None if verdict.refutation is None else {
            k: str(v) for k, v in verdict.refutation.counterexample().items()},
        "baseline": None, "regressions": [],
    }
    if args.plot is not None and curve is not None:
        plot(args.plot, curve, claim, at)
        out["plot"] = args.plot
    if args.json:
        print(json.dumps(out))
    else:
        _print(out)
    return EXIT_OK if verdict.holds else EXIT_REFUTED


def _worst_json(worst: Any, exact_str: Any, display: Any) -> dict[str, Any]:
    from betweencut.proofs.privacy.audit.mechanism import with_record

    s = worst.stick
    return {
        "D": show_db(worst.db), "z": show_point(worst.z),
        "D + z": show_db(with_record(worst.db, worst.z)),
        "eps": str(worst.eps), "direction": s.direction,
        "delta": display(worst.delta), "delta_exact": exact_str(worst.delta),
        "event_size": s.event_size, "event": [show_output(o) for o in s.event],
        "event_note": "partitions cut back to the boxes whose counts z changes (T_z): the "
                      "event is every partition agreeing with one of these there",
        "P": exact_str(s.p_event), "Q": exact_str(s.q_event),
        "P_approx": display(s.p_event), "Q_approx": display(s.q_event),
    }


def _print(out: dict[str, Any]) -> None:
    c = out["claim"]
    print(f"{out['mechanism']} ({out['tree']}): {out['pairs']} pair(s) for {out['covered']}, "
          f"{out['transcripts']} answer sequences enumerated")
    print(f"  claim (eps, delta) = ({c['epsilon']}, {c['delta']}): "
          f"{'holds' if out['holds'] else 'REFUTED'}")
    w = out["worst"]
    if w:
        d = ",".join(f"{p}*{k}" if k > 1 else p for p, k in w["D"].items())
        print(f"  worst pair: D = {{{d}}}, z = {w['z']}: delta({w['eps']}) = {w['delta']:.6g} "
              f"({w['direction']}), P(S) = {w['P_approx']:.6g}, Q(S) = {w['Q_approx']:.6g}, "
              f"|S| = {w['event_size']}")
        print(f"    P(S) = {w['P']}")
        print(f"    Q(S) = {w['Q']}")
    eps = out["epsilon_at_delta"]
    shown = "inf (no finite eps)" if eps is None else f"{eps:.6g}"
    print(f"  epsilon_at_delta (worst pair) = {shown} (exact: {out['epsilon_at_delta_exact']})")
