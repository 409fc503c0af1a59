"""Exhaustive privacy audit (issue 4): every database of size <= 2 on the complete binary tree of
height 4, every added leaf, transcript and Heavy set, every r = 1..L (Theorem 5.4 / Lemma C.1).

Prints wall and CPU seconds, transcripts per second (answer sequences whose exact probability
was computed, per database, summed), the number of real mechanism runs (one per answer sequence
of each guard pattern; the other databases re-weight that outcome tree exactly, see
`betweencut.proofs.reweight`), and a baseline measured in the same run: direct enumeration of
the same databases with no sharing, timed on a sample of them and extrapolated. Then it
estimates from the measured per-transcript cost the largest complete binary / ternary tree that
could be audited exhaustively (|D| <= 2) in 10 minutes. Goal: under 60 s wall on this machine.

Run: python bench/privacy_exhaustive.py [--height 4] [--arity 2] [--size 2]
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction
from math import comb

from betweencut.betweencut import BetweenCut
from betweencut.params import Params
from betweencut.proofs.enumerate import enumerate_mechanism
from betweencut.proofs.privacy import exhaustive
from betweencut.tree import kary_tree

GOAL_SECONDS = 60.0
BUDGET_SECONDS = 600.0
PARAMS = (Fraction(2), Fraction(1, 2), Fraction(2))  # tau, lambda, R: no guard fires, worst case


def transcripts_per_database(arity: int, height: int) -> int:
    """Answer sequences of Alg. 3 on the empty database when no guard fires (every node noisy)."""
    tree = kary_tree(arity, height)
    bc = BetweenCut(tree, Params.of(*PARAMS))
    return enumerate_mechanism(lambda test: bc.run((), test)).transcripts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--height", type=int, default=4)
    parser.add_argument("--arity", type=int, default=2)
    parser.add_argument("--size", type=int, default=2)
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
    print(f"  wall {wall:.1f} s, cpu {cpu:.1f} s (goal {GOAL_SECONDS:.0f} s wall): "
          f"{transcripts / wall:,.0f} transcripts/s")

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

    # Largest tree in 10 minutes, from the measured cost per transcript (same parameters).
    per_transcript = wall / max(transcripts, 1)
    for arity, heights in ((2, range(3, 7)), (3, range(2, 5))):
        for h in heights:
            n_leaves = arity ** (h - 1)
            dbs = sum(comb(n_leaves + n - 1, n) for n in range(args.size + 2))
            if (arity == 2 and h <= 4) or (arity == 3 and h <= 3):
                per_db = transcripts_per_database(arity, h)
                estimate = per_transcript * per_db * dbs
                fits = "yes" if estimate <= BUDGET_SECONDS else "no"
                print(f"  {arity}-ary h = {h}: {dbs} databases x {per_db} transcripts "
                      f"-> ~{estimate:,.0f} s ({fits} within 10 min)")
            else:
                print(f"  {arity}-ary h = {h}: {dbs} databases, transcripts per database "
                      f"not enumerated (grows as the product over levels): no")


if __name__ == "__main__":
    main()
