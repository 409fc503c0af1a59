"""Exhaustive privacy audit (issue 4): every database of size <= 2 on the complete binary tree of
height 4, every added leaf, transcript and Heavy set, every r = 1..L (Theorem 5.4 / Lemma C.1).

Prints wall and CPU seconds, transcripts per second (answer sequences whose exact probability
was computed, per database and outcome tree, summed), the number of real mechanism runs (one
per answer sequence of each enumerated outcome tree; every other database re-weights one of
them exactly and pairs are compared by grouping answer sequences, see
`betweencut.proofs.privacy.enumeration.outcome_tree` and
`betweencut.proofs.privacy.enumeration.pair_classes`), and a baseline measured in the
same run: direct enumeration of the same databases with no sharing, timed on a sample of them
and extrapolated. Goal: under 60 s wall on this machine.

Then the largest trees: the exhaustive audit (|D| <= 2) is run and timed on the complete binary
trees h = 3, 4 and ternary h = 2, 3. With `--probe`, the next trees (binary h = 5, ternary
h = 4, quaternary h = 3) are probed: the outcome tree of the empty database alone is enumerated
up to `--probe-limit` answer sequences, which bounds from below what one guard pattern costs.
(By the structure of Alg. 3 they cannot fit: with DepO's first level all answering H, every
leaf below stays open and answers on its own, so one database has at least 3^16 ≈ 4.3·10^7
answer sequences on the binary tree h = 5 and the quaternary h = 3, 3^27 on the ternary h = 4.)

Run: python bench/privacy_exhaustive.py [--height 4] [--arity 2] [--size 2] [--probe]
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction
from math import comb

from betweencut.data.tree import kary_tree
from betweencut.errors import ParameterError
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.mechanism.params import Params
from betweencut.proofs.privacy.claims.theorems import exhaustive
from betweencut.proofs.privacy.enumeration.transcripts import enumerate_mechanism

GOAL_SECONDS = 60.0
BUDGET_SECONDS = 600.0
PARAMS = (Fraction(2), Fraction(1, 2), Fraction(2))  # tau, lambda, R: no guard fires, worst case


def transcripts_per_database(arity: int, height: int, limit: int = 2_000_000) -> int:
    """Answer sequences of Alg. 3 on the empty database when no guard fires (every node noisy)."""
    tree = kary_tree(arity, height)
    bc = BetweenCut(tree, Params.of(*PARAMS))
    return enumerate_mechanism(lambda test: bc.run((), test), limit).transcripts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--height", type=int, default=4)
    parser.add_argument("--arity", type=int, default=2)
    parser.add_argument("--size", type=int, default=2)
    parser.add_argument("--probe", action="store_true")
    parser.add_argument("--probe-limit", type=int, default=100_000)
    args = parser.parse_args()
    tree = kary_tree(args.arity, args.height)
    params = Params.of(*PARAMS)

    wall, cpu = time.perf_counter(), time.process_time()
    result = exhaustive(tree, params, args.size)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    transcripts = result["transcripts"]
    print(f"complete {args.arity}-ary tree, h = {args.height}, |D| <= {args.size}: "
          f"{result['pairs']} neighbouring pairs, {transcripts} transcripts")
    for name, verdict in result["verdicts"].items():
        worst = verdict.tightest
        shown = "" if worst is None else (
            f"; tightest D = {worst.db}, z = {worst.z}, eps = {worst.eps}, "
            f"delta/bound <= {float(worst.tightness()[1]):.4g}")
        print(f"  {name}: {'holds' if verdict.holds else 'REFUTED'}{shown}")
    runs = result["runs"]
    print(f"  wall {wall:.1f} s, cpu {cpu:.1f} s (goal {GOAL_SECONDS:.0f} s wall): "
          f"{transcripts / wall:,.0f} transcripts/s, {runs} real mechanism runs")

    # Baseline: direct enumeration (one real run per answer sequence, no sharing), sampled.
    leaves = list(tree.level(tree.height - 1))
    bc = BetweenCut(tree, params)
    sample = [(), (leaves[0],), (leaves[0], leaves[-1])]
    start = time.perf_counter()
    direct = sum(enumerate_mechanism(lambda test, db=db: bc.run(db, test)).transcripts
                 for db in sample)
    per_run = (time.perf_counter() - start) / direct
    databases = sum(comb(len(leaves) + n - 1, n) for n in range(args.size + 2))
    print(f"  baseline: direct enumeration {per_run * 1e6:.0f} us per transcript; "
          f"{databases} databases x {direct // len(sample)} transcripts = "
          f"{per_run * direct / len(sample) * databases:.0f} s estimated "
          f"(ratio {per_run * direct / len(sample) * databases / wall:.1f}x)")

    # Largest trees in 10 minutes: measured, not extrapolated.
    for arity, height in ((2, 3), (3, 2), (2, 4), (3, 3)):
        if (arity, height) == (args.arity, args.height):
            took = wall
        else:
            took = time.perf_counter()
            exhaustive(kary_tree(arity, height), params, args.size)
            took = time.perf_counter() - took
        fits = "yes" if took <= BUDGET_SECONDS else "no"
        print(f"  {arity}-ary h = {height}, |D| <= {args.size}: {took:.1f} s "
              f"({fits} within 10 min)")
    if args.probe:
        for arity, height in ((2, 5), (3, 4), (4, 3)):
            start = time.perf_counter()
            try:
                runs = transcripts_per_database(arity, height, args.probe_limit)
                shown = f"{runs} answer sequences"
            except ParameterError:
                shown = f"more than {args.probe_limit} answer sequences"
            print(f"  {arity}-ary h = {height}: the empty database's outcome tree has {shown} "
                  f"({time.perf_counter() - start:.0f} s of real mechanism runs)")


if __name__ == "__main__":
    main()
