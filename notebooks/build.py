"""Writes both editions of the teaching notebooks (without outputs) from the cell texts below.

Run `python notebooks/build.py` after editing a cell here. Each exercise is written once, with
its reference answer, and comes out in two editions:

* the instructor edition, `notebooks/*.ipynb`: each exercise cell holds the reference solution
  and its explanation; CI executes it (`python -m pytest --nbmake notebooks/`);
* the student edition, `notebooks/student/*.ipynb`: the same notebooks with every answer left
  as `...`; the checker call stays in place, and run on `...` it raises `WrongAnswer` saying
  that the answer is missing and what kind of value it expects
  (`tests/project/test_notebook_editions.py` executes the student edition and checks that message).

The notebooks define no logic of their own: every helper they call lives in
`betweencut.properties.teaching` (`basics`, `privacy`, `margins`) and every exercise checker in
`betweencut.properties.teaching.exercises`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent
EDITIONS = {"instructor": HERE, "student": HERE / "student"}
Exercise = tuple[int, str, list[tuple[str, str]], str]
Cell = tuple[str, "str | Exercise"]


def md(text: str) -> Cell:
    return ("md", text.strip("\n"))


def code(text: str) -> Cell:
    return ("code", text.strip("\n"))


def exercise(number: int, why: str, answers: list[tuple[str, str]], checks: str) -> Cell:
    """One exercise cell: `answers` are (variable, reference answer) pairs, `checks` the checker
    calls that read those variables; `why` explains the reference answer."""
    return ("exercise", (number, why.strip("\n"), answers, checks.strip("\n")))


# What the exercises' introduction says the cells below hold, in each edition (issue 36 item 8:
# the student edition's text matches its cells, which hold `...`).
INSTRUCTOR_NOTE = ("The cells below hold the\nreference solutions, which CI runs through the "
                   "same checkers.")
STUDENT_NOTE = ("In this edition the cells\nbelow hold `...` where your answers go; the "
                "instructor edition holds the reference solutions.")


def render(kind: str, cell: str | Exercise, edition: str) -> str:
    if isinstance(cell, str):
        return cell.replace(INSTRUCTOR_NOTE, STUDENT_NOTE) if edition == "student" else cell
    number, why, answers, checks = cell
    if edition == "student":
        head = [f"# Exercise {number}: replace each ... with your answer, then run the cell."]
        lines = [f"{name} = ..." for name, _ in answers]
    else:
        head = [f"# Reference solution {number}: " + why.replace("\n", "\n# ")]
        lines = [f"{name} = {value}" for name, value in answers]
    return "\n".join([*head, *lines, checks])


def render_notebook(name: str, cells: list[Cell], edition: str) -> str:
    """The notebook file's text, byte for byte (stable cell ids, so a rebuild of an unchanged
    notebook rewrites nothing)."""
    nb = new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    nb.cells = [new_markdown_cell(render(kind, c, edition)) if kind == "md"
                else new_code_cell(render(kind, c, edition)) for kind, c in cells]
    for i, cell in enumerate(nb.cells):
        cell.id = f"{Path(name).stem[:40]}-{i:03d}"
    nbformat.validate(nb)
    return nbformat.writes(nb) + "\n"


def write(name: str, cells: list[Cell], edition: str) -> Path:
    folder = EDITIONS[edition]
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(render_notebook(name, cells, edition), encoding="utf-8")
    return path


NOTEBOOKS: dict[str, list[Cell]] = {}

NOTEBOOKS["1_guarded_bt.ipynb"] = [
    md("""
# 1. GuardedBT: three outcomes, exactly

**What you will learn.**

* the output law of BT(c; a, b, λ) (Alg. 4) and GuardedBT(c; a, b, R, λ) (Alg. 1) as the count `c`
  moves across the thresholds `a`, `b` and the guards `a − R`, `b + R`: exact values (sums of
  rational multiples of `e^x`) beside a plot;
* the q-target decomposition of Lemma 5.2 (BT) and Lemma 5.3 (GuardedBT): the laws `P_0` at
  count `c` and `P_1` at `c + 1` are written as one mixture (the paper's Def. 5.1),
  `P_b = (1 − κ)·(p·C + (1 − p)·N_b) + κ·F_b`: with probability `κ` (a small slack) the answer
  comes from some law `F_b` we do not control; otherwise, with weight `p`, from a **common** law
  `C` that is the same for both counts (so it reveals nothing), and with weight `1 − p` from a
  **residual** law `N_b` whose two versions differ by at most a factor `e^λ` on every outcome
  (`N_0 ≈_λ N_1`, "λ-indistinguishable");
* why every residual puts probability at least `q_λ = (1 − e^{−2})/(1 + e^λ)` on the answer `B`
  (the paper's Eq. (16) defines `q_λ`; Eq. (99) shows the bound): the privacy proof charges its
  budget against these `B` answers.

All numbers come from `betweencut.proofs` (exact arithmetic, `ExpPoly` / `ExpRational`); the
decimals printed are *certified*: every digit shown is guaranteed by an interval enclosure, and
`…` means the value continues. The plots use floats made from those enclosures, for display only.
"""),
    code("""
from fractions import Fraction

import matplotlib.pyplot as plt

from betweencut.mechanism.guarded_bt import BT, GuardedBT
from betweencut.noise.noisy_test import Outcome
from betweencut.numbers.exact import LogReal
from betweencut.proofs.laws.models import exact_model
from betweencut.proofs.laws.targets import sweep_lemma_5_2
from betweencut.properties.teaching import basics, exercises
"""),
    md("""
## The setting

`τ = 4`, `λ = 1/2`: the thresholds sit one noise scale `w = 1/λ` either side of `τ` (the paper's
Eq. (13)): `a = τ − 1/λ = 2` and `b = τ + 1/λ = 6`.
The guard width is `R = 2`, so GuardedBT answers `L` without noise when `c ≤ a − R = 0` and `H` when
`c ≥ b + R = 8`. The noise is `Z ~ Lap(1/λ)`, and for the noisy branch
`P(L) = P(c + Z < a)`, `P(H) = P(c + Z > b)`, `P(B) = 1 − P(L) − P(H)`.
"""),
    code("""
tau, lam, R = Fraction(4), Fraction(1, 2), 2
a, b = tau - 1 / lam, tau + 1 / lam
guarded = GuardedBT.of(a, b, LogReal.of(R), lam)
plain = BT(a, b, lam)
print(f"a = {a}, b = {b}, guards: L for c <= {guarded.lower_cut}, H for c >= {guarded.upper_cut}")
"""),
    md("""
## The law as the count moves

Exact forms (`(1/2)*exp(-1)` is `½·e^{−1}`) and certified decimals for GuardedBT at every count
from 0 to 10, computed by `betweencut.proofs.laws.bt_laws.guarded_exact_law` (the guard is decided
by the
mechanism's own code).
"""),
    code("""
counts = range(0, 11)
guarded_rows = basics.law_rows(guarded, counts)
print(basics.format_law_rows(guarded_rows))
"""),
    md("""
Left: plain BT, whose every answer is noisy; a count far below `a` still answers `H` with a tiny
but positive probability. Right: GuardedBT, where the shaded guard regions are point masses. The
guards cost privacy only through the pairs of neighbouring counts that straddle a guard cut:
that is the `κ` of Lemma 5.3 below.
"""),
    code("""
fig, axes = plt.subplots(1, 2, figsize=(12, 4), sharey=True)
basics.plot_law(axes[0], basics.law_rows(plain, counts), plain)
axes[0].set_title("BT (Alg. 4)")
basics.plot_law(axes[1], guarded_rows, guarded)
axes[1].set_title("GuardedBT (Alg. 1), R = 2")
fig.tight_layout()
plt.show()
"""),
    md("""
## The q-target decomposition (Lemmas 5.2 and 5.3)

Adding one record to a database changes the count of every node on that record's root-to-leaf
path by exactly one, and no other count (the paper's Eq. (4)), so the proof looks at the laws
`P_0` at `c` and `P_1` at `c + 1`. Lemma 5.2 writes both as a mixture with a **common part**
`p·C` (the same in both, so it reveals nothing), and **residual parts** `(1 − p)·N_b` that are
λ-indistinguishable: `N_0(y) ≤ e^λ·N_1(y)` and back, for every outcome `y`.

The witnesses (the paper's Eq. (75)-(81)) are explicit. Write `ξ = e^λ` and `ℓ_b, m_b, u_b` for
the probabilities of `L`, `B`, `H` at count `c_b`. The common part takes from each side as much
of the extreme outcomes as both laws can share after a factor `ξ`:
`α_L = (ξℓ_1 − ℓ_0)/(ξ − 1)` of `L` and `α_H = (ξu_0 − u_1)/(ξ − 1)` of `H`, so `p = α_L + α_H`
and `C = (α_L/p, 0, α_H/p)`; the residual `N_b` is what is left of `P_b`, rescaled by `1 − p`.
What the checker then verifies, exactly: the mixture gives back `P_b` (Eq. (86)); the residuals'
`L` and `H` probabilities differ by exactly the factor `ξ` (Eq. (87)), hence `N_0 ≈_λ N_1`; and
each residual puts mass at least `q_λ` on `B` (Eq. (93), (95), (98), (99)). A `B` answer is a
*target hit*, after which BetweenCut stops asking on that path (Lemma 4.3); that is what keeps
the total privacy loss along a path small (Lemma 4.1, Theorem 5.4).

Lemma 5.3 extends it to GuardedBT: when one count is guarded (answered without noise) and its
neighbour is not, the pair is written with `p = 1`, `C` = the guarded answer, and the slack `κ`
is the probability that the noisy neighbour answers anything else: `κ = ½·e^{−λd}`, where `d` is
how far the noisy count lies inside the guard, at most `δ0 = ½·e^{−λ(R−1)}` (the paper's
Eq. (105)). That slack is where the `δ` of the privacy guarantee comes from.

`basics.decomposition_rows` builds the witness of `betweencut.proofs.laws.targets.lemma_5_3_witness`
for each pair and has it checked exactly by `check_lemma_5_3` (which raises if anything fails:
the mixture identity, `N_0 ≈_λ N_1`, `N_b(B) ≥ q_λ`, `κ ≤ δ0`).
"""),
    code("""
model = exact_model(tau, lam, R)
pairs = basics.decomposition_rows(model, range(0, 9))
print(basics.format_decomposition(pairs, lam))
"""),
    md("""
Lemma 5.2 on its own (plain BT, no guards, `κ = 0`): `sweep_lemma_5_2` builds the witnesses
above for every pair `(c, c)` and `(c, c + 1)` of counts around the thresholds and checks each
exactly with `check_lemma_5_2`, including that the `B` mass bound `γ/(1 + ξ)` of the proof, with
`γ = 1 − e^{−λ(b − a)}`, equals `q_λ` when `b − a = 2/λ` (Eq. (99)).
"""),
    code("""
certificates = sweep_lemma_5_2(exact_model(tau, lam))
print(f"{len(certificates)} pairs checked:", {c.claim for c in certificates},
      {c.verdict for c in certificates})
"""),
    md("""
The stacked bars: for each pair, the left bar is `P_0` (count `c`) and the right bar `P_1`
(count `c + 1`). Between the thresholds `p = 0`: both laws are entirely residual and already
λ-indistinguishable. Solid blue/red is the common part `p·C` (equal heights in both bars of a pair),
hatched is the residual `(1 − p)·N_b` split by outcome, green is the B mass, grey hatched is the
guard slack `κ·F_b` of Lemma 5.3 (only in the pairs `0|1` and `7|8` that straddle a guard cut).
"""),
    code("""
fig, ax = plt.subplots(figsize=(12, 4))
basics.plot_decomposition(ax, pairs)
ax.set_title("Lemma 5.2 / 5.3: P_b = (1 - κ)(p·C + (1 - p)·N_b) + κ·F_b")
fig.tight_layout()
plt.show()
"""),
    md("""
## Exercises

Check each answer with the checker named; it prints `correct: ...` or raises `WrongAnswer`.
Exact numbers can be given as strings such as `"1 - exp(-1)/2"` (sympy syntax), as `Fraction`s,
or as `ExpPoly` values; floats are refused.

1. With the setting above (`a = 2`, `b = 6`, `λ = 1/2`), what is the exact probability that
   GuardedBT answers `B` at `c = 4`? Check with
   `exercises.check_law_value(guarded, 4, Outcome.B, answer)`.
2. For a GuardedBT with `a = 2`, `b = 6`, `λ = 1/2` and `R = 1`, what is the largest count the
   lower guard answers `L` without noise? Check with
   `exercises.check_guard_cut(GuardedBT.of(a, b, LogReal.of(1), lam), Outcome.L, answer)`.
3. Write `q_λ` for `λ = 1/4` exactly. Check with `exercises.check_q_lambda(Fraction(1, 4), answer)`.
"""),
    exercise(1, """
c = tau, so P(L) = P(Z < -2) = exp(-1)/2 and P(H) = exp(-1)/2.""", [
        ('answer', '"1 - exp(-1)"'),
    ], """
print(exercises.check_law_value(guarded, 4, Outcome.B, answer))"""),
    exercise(2, """
the guard answers L iff c <= a - R = 1.""", [
        ('answer', '1'),
    ], """
print(exercises.check_guard_cut(GuardedBT.of(a, b, LogReal.of(1), lam), Outcome.L, answer))"""),
    exercise(3, """
Eq. (16) with b - a = 2/lambda.""", [
        ('answer', '"(1 - exp(-2)) / (1 + exp(1/4))"'),
    ], """
print(exercises.check_q_lambda(Fraction(1, 4), answer))"""),
]

NOTEBOOKS["2_betweencut_step_by_step.ipynb"] = [
    md("""
# 2. BetweenCut step by step

**What you will learn.** How BetweenCut (Alg. 3) labels every node of a public tree Heavy or
Light with as few noisy questions as possible:

* the *Depth Traversal Ordering* DepO (Alg. 2): which levels are visited, in which order;
* each query GuardedBT(c_u; a, b, R, λ) (Alg. 1), its answer L, B or H, and the labels the marking
  routines MarkUp / MarkDown (Alg. 6) propagate because of it;
* why the run asks at most `L = ⌈log2(h + 1)⌉` questions on any root-to-leaf path (Lemma 4.2,
  Eq. (14)) and gets at most one `B` answer per path (Lemma 4.3), seen on the final picture.

Everything below is computed by the package: the notebook only calls it. The run uses the exact
release sampler with a fixed seed (reproducible, so **not** for a real release).
"""),
    code("""
from fractions import Fraction

import matplotlib.pyplot as plt

from betweencut.data.tree import kary_tree
from betweencut.mechanism.betweencut import BetweenCut, path_counts
from betweencut.mechanism.depo import depo, depth_order
from betweencut.mechanism.params import Params
from betweencut.noise.bt_sampler import ExactSampler
from betweencut.noise.noisy_test import Outcome, RecordingTest, ReplayTest
from betweencut.properties.teaching import basics, exercises
"""),
    md("""
## The public tree, the data and the parameters

A complete binary tree of height `h = 5` (depths 0 to 4, 31 nodes). A node is the tuple of child
indices from the root; the pictures name it by those digits (`ε` is the root). Sixteen records
sit at leaves; the count `c_u` of a node (printed inside it) is the number of records below it.

Threshold `τ = 4`, `λ = 1/2`, so `w = 1/λ = 2`, `a = τ − w = 2`, `b = τ + w = 6` (Eq. (13)), and
guard width `R = 1`: counts `≤ a − R = 1` are answered `L` and counts `≥ b + R = 7` are answered
`H` without any noise (Alg. 1, l. 1-4).
"""),
    code("""
tree = kary_tree(2, 5)
leaves = ([(0, 0, 0, 0)] * 3 + [(0, 0, 0, 1)] * 2 + [(0, 0, 1, 0)] * 2 + [(0, 1, 1, 1)] * 2
          + [(1, 0, 0, 0)] + [(1, 1, 0, 1)] * 4 + [(1, 1, 1, 1)] * 2)
params = Params.of(4, Fraction(1, 2), 1)
counts = path_counts(leaves)
print(f"n = {len(leaves)} records, a = {params.a}, b = {params.b}, R = {params.R}")
fig, ax = plt.subplots(figsize=(10, 3))
basics.draw_tree(ax, tree, counts=counts, title="counts c_u before any query")
plt.show()
"""),
    md("""
## DepO: the order of the levels

BetweenCut does not go top-down. DepO(0, h − 1) visits the middle level first, then recursively
the lower half, then the upper half (Alg. 2). A query that answers `H` labels all ancestors Heavy
(MarkUp), one that answers `L` labels the whole subtree Light (MarkDown), so after the middle level
most of the tree is often already decided. The paper's worked value is
`DepO(0, 14) = [7, 11, 13, 14, 12, 9, 10, 8, 3, 5, 6, 4, 1, 2, 0]`.
"""),
    code("""
print("DepO(0, 14) =", depo(0, 14))
print("this tree, h = 5: levels in the order", depth_order(tree.height))
"""),
    md("""
## One run, query by query

`BetweenCut(tree, params).run(leaves, test)` returns a `Run` whose `transcript` is the sequence of
(queried node, answer) pairs `Tr(D)` (Eq. (112)) and whose `assignments` is the marking log. All
randomness goes through the noisy test `test`. So that the story below stays the same whatever
random bits a sampler draws, this run answers its noisy queries from a fixed list through
`ReplayTest`, the interface the proofs use to enumerate transcripts (guarded queries are decided
without noise and consume no answer). Every answer has positive probability, because Laplace noise
has full support; `RecordingTest` keeps the queries, so the exact probability of exactly these
answers can be printed. A release run with the exact sampler follows at the end.

`basics.query_steps` splits the marking log by query by replaying the transcript through the
mechanism's own `apply` step, and checks the replay reproduces the log exactly.

Rules (Alg. 3, l. 9-15): `L → MarkDown(u)`; `H → MarkUp(u)`; `B → MarkUp(parent(u))` and
`MarkDown(u)`. A node already labelled is skipped, never asked.
"""),
    code("""
L, B, H = Outcome.L, Outcome.B, Outcome.H
answers = RecordingTest(ReplayTest([L, H, B, L, L, H, B, L]))
run = BetweenCut(tree, params).run(leaves, answers)
steps = basics.query_steps(tree, params, leaves, run)
print(basics.format_steps(steps))
p = basics.answers_probability(answers.log)
print()
print(f"{len(answers.log)} noisy answers, {len(run.transcript) - len(answers.log)} guarded; "
      f"probability of these answers = {p} = {basics.certified_decimal(p, 8)}")
"""),
    md("""
In the pictures the fill colour is the label after the query (red Heavy, blue Light, grey
unlabelled), the current query has a thick ring, earlier queries a thin black ring with
`step:answer` beside them, and a `B` answer carries a green star.
"""),
    code("""
fig = basics.draw_steps(tree, steps, counts, ncols=3)
plt.show()
"""),
    md("""
## The end of the run: Lemmas 4.2 and 4.3 on the picture

`basics.draw_lemmas` first runs the package's predicates `check_lemma_4_2` and
`check_lemma_4_3` (`betweencut.properties.predicates`) on this run (they raise on a violation),
then draws the final labels with every query, the root-to-leaf path that holds the most queried
nodes in thick black, and the `B` answers starred.

* **Lemma 4.2**: at most `L = ⌈log2(h + 1)⌉ = 3` queried nodes on any root-to-leaf path. DepO is
  why: a query at the middle level settles either its whole subtree (answer L) or the whole path
  above it (answer H), so each path is searched like a binary search over depths.
* **Lemma 4.3**: at most one `B` per path: a `B` at `u` labels every ancestor Heavy and the
  whole subtree of `u` Light, so nothing on a path through `u` is ever asked again.
"""),
    code("""
fig, ax = plt.subplots(figsize=(11, 3.6))
view = basics.draw_lemmas(ax, tree, run, counts)
plt.show()
print("L =", view.L)
print("busiest path's queried nodes:", [basics.node_name(u) for u in view.queried_on_path])
print("B answers at:", [basics.node_name(u) for u in view.betweens])
print("Heavy set:", sorted(basics.node_name(u) for u in run.heavy))
"""),
    md("""
The lemmas hold for *every* answer sequence, so they hold on a release run too. Here the exact
sampler (`ExactSampler`, integer arithmetic only; a seed makes it reproducible and must not be
used for a real release) answers the noisy queries; its picture depends on the random bits drawn,
the two lemmas do not.
"""),
    code("""
release = BetweenCut(tree, params).run(leaves, ExactSampler(2026))
fig, ax = plt.subplots(figsize=(11, 3.6))
basics.draw_lemmas(ax, tree, release, counts)
plt.show()
"""),
    md("""
## Exercises

Each exercise has a checker in `betweencut.properties.teaching.exercises`: call it on your answer;
it
prints `correct: ...` or raises `WrongAnswer` saying what is wrong. The cells below hold the
reference solutions, which CI runs through the same checkers.

1. Compute `DepO(0, 6)` by hand (Alg. 2) and check it with `exercises.check_depo(0, 6, answer)`.
2. The paper's running example has height `h = 15`. What is the bound `L` of Lemma 4.2? Check
   with `exercises.check_path_query_bound(15, answer)`.
3. Query 5 (node `0000`) answered `B`. Using only the rules of Alg. 3 and the labels in the
   4th picture, which nodes get a label because of it? Give them as node tuples and check with
   `exercises.check_step_writes(tree, params, leaves, run, 5, answer)`.
"""),
    exercise(1, """
m = 0 + 7 // 2 = 3, then DepO(4, 6) = [5, 6, 4],
then DepO(0, 2) = [1, 2, 0].""", [
        ('answer', '[3, 5, 6, 4, 1, 2, 0]'),
    ], """
print(exercises.check_depo(0, 6, answer))"""),
    exercise(2, """
L = ceil(log2(16)) = 4.""", [
        ('answer', '4'),
    ], """
print(exercises.check_path_query_bound(15, answer))"""),
    exercise(3, """
B -> MarkUp(parent) labels 000 Heavy and stops at 00 (already Heavy);
MarkDown(0000) labels the leaf 0000 Light.""", [
        ('answer', '[(0, 0, 0), (0, 0, 0, 0)]'),
    ], """
print(exercises.check_step_writes(tree, params, leaves, run, 5, answer))"""),
]

NOTEBOOKS["3_privacy_exactly.ipynb"] = [
    md("""
# 3. Privacy, exactly

**What you will learn.**

* what the privacy curve `δ(ε)` (the literature's privacy profile) is: for neighbouring
  databases `D ~ D + z` and output laws `P`, `P'`,
  `δ(ε) = max(sup_S P(S) − e^ε·P'(S), sup_S P'(S) − e^ε·P(S))`, the smallest `δ` with which
  the pair is `(ε, δ)`-indistinguishable (Def. 2.7, both directions kept apart);
* how `betweencut.proofs` computes it **exactly** on a small instance: the real BetweenCut code
  (Alg. 3) is run on every sequence of noisy-test answers
  (`betweencut.proofs.privacy.enumeration.transcripts`), each
  transcript with its exact probability, and `δ(ε)` is an exact sum of `e^x` terms;
* that the curve stays under Theorem 5.4's bound `δ_r = (L/2)·e^{−λ(R−1)} + 1{r<L}·(1 − q_λ)^r`
  at `ε = rλ` for every `r = 1..L` (Eq. (22), (113)), and that a broken variant's curve
  crosses it, with the concrete counterexample the checker reports.
"""),
    code("""
from fractions import Fraction

import matplotlib.pyplot as plt

from betweencut.data.tree import kary_tree
from betweencut.mechanism.params import Params
from betweencut.proofs.privacy.claims.setup import betweencut_cache
from betweencut.proofs.privacy.claims.theorems import check_lemma_c_1
from betweencut.properties.broken import StructuralMutantTopDown
from betweencut.properties.teaching import basics, exercises, privacy
"""),
    md("""
## A small instance

A complete binary tree of height `h = 3` (7 nodes), so `L = ⌈log2(h + 1)⌉ = 2`. Parameters
`τ = 1`, `λ = 1`, `R = 6`: thresholds `a = 0`, `b = 2`; the guards (`c ≤ −6`, `c ≥ 8`) never fire
on such small counts, so every query is noisy. The pair: `D` holds one record at leaf `00`, and
`D + z` adds a second record there.

Theorem 5.4 gives, at `r = 1` (`ε = 1`), `δ_1 = e^{−5} + (1 − q_1)`, which is large, and at
`r = L = 2` (`ε = 2`) just the guard term `δ_2 = (L/2)·e^{−λ(R−1)} = e^{−5} ≈ 0.0067`.
"""),
    code("""
tree = kary_tree(2, 3)
params = Params.of(1, 1, 6)
D, z = [(0, 0)], (0, 0)
bound = privacy.bound_steps(tree, params)
for r, (eps, delta_r) in enumerate(bound, start=1):
    print(f"r = {r}: eps = {eps}, delta_r = {basics.certified_decimal(delta_r)}")
"""),
    md("""
## The enumerated curve of BetweenCut, and of a broken variant

The broken variant `StructuralMutantTopDown` (`betweencut.properties.broken`) changes one step of
Alg. 3: it visits the levels top-down instead of in DepO order. Then a path can hold `h = 3 > L`
queried nodes, each costing up to `λ`, and the loss is no longer bounded by `rλ` with the small
`δ` of Theorem 5.4.

Both curves are computed exactly on the grid `ε = 0, 1/4, ..., 3` (about 250 transcripts per
database).
"""),
    code("""
grid = [Fraction(k, 4) for k in range(0, 13)]
curves = {
    "BetweenCut (Alg. 3)": privacy.delta_curve(tree, params, D, z, grid),
    "top-down variant (broken)": privacy.delta_curve(tree, params, D, z, grid,
                                                        StructuralMutantTopDown),
}
print(privacy.format_bound_check(curves, bound))
"""),
    code("""
fig, axes = plt.subplots(1, 2, figsize=(12, 4))
privacy.plot_curves(axes[0], curves, bound)
axes[0].set_title("delta(eps), linear scale")
privacy.plot_curves(axes[1], curves, bound, log=True)
axes[1].set_title("delta(eps) > 0, log scale")
fig.tight_layout()
plt.show()
"""),
    md("""
## The checkers: a certificate, and a refutation

`check_lemma_c_1` (claim "Lemma C.1", Eq. (113)) compares the exact transcript curve with the
bound at every `r` through the exact comparison gate and returns a `Certificate`. Handed the
broken variant's laws, it raises `ClaimRefuted` with a concrete counterexample: the two databases,
the violating event `S` (transcripts), both exact probabilities and the violated inequality.
"""),
    code("""
certificate = check_lemma_c_1(tree, params, D, z)
print(certificate.claim, certificate.method, certificate.verdict)
for name, value in certificate.quantities.items():
    print(f"  {name} = {value}")
"""),
    code("""
broken = betweencut_cache(tree, params, StructuralMutantTopDown)
counterexample = privacy.expect_refuted(check_lemma_c_1, tree, params, D, z, broken)
for name, value in counterexample.items():
    print(f"  {name}: {value}")
"""),
    md("""
## Exercises

1. Write Theorem 5.4's `δ_2` for `L = 2`, `λ = 1`, `R = 6` exactly and check it with
   `exercises.check_theorem_5_4_delta(2, Fraction(1), 6, 2, answer)`.
2. The table above prints BetweenCut's `δ(1)` on this pair only as a decimal. Find its exact
   form (the certificate holds it), write it as a string such as `"1/2 - exp(-3)"`, and check
   with `exercises.check_delta_value(tree, params, D, z, Fraction(1), answer)`.
3. For the top-down variant, what is the least integer `r` with `δ(rλ) = 0` on this pair? Check
   with `exercises.check_pure_multiple(tree, params, D, z, answer, StructuralMutantTopDown)`.
   (Compare with BetweenCut, where it is at most `L`.)
"""),
    exercise(1, """
(L/2)*exp(-lambda*(R-1)) with L = 2 and no (1 - q)^r term at r = L.""", [
        ('answer', '"exp(-5)"'),
    ], """
print(exercises.check_theorem_5_4_delta(2, Fraction(1), 6, 2, answer))"""),
    exercise(2, """
read off certificate.quantities["delta(1)"].""", [
        ('answer', '"(1 - exp(-1))/4"'),
    ], """
print(exercises.check_delta_value(tree, params, D, z, Fraction(1), answer))"""),
    exercise(3, """
the three levels are all queried on the path to 00.""", [
        ('answer', '3'),
    ], """
print(exercises.check_pure_multiple(tree, params, D, z, answer, StructuralMutantTopDown))"""),
]

NOTEBOOKS["4_error_against_height.ipynb"] = [
    md("""
# 4. Error against height

**What you will learn.**

* the additive margin `E` of each heavy-node method as the tree height `h` grows, as computed by
  the `betweencut margins` command's module (`betweencut.baselines.margins`): BetweenCut's
  `E = 1 + (r/ε)·(1 + ln(L/δ))` (Theorem 5.6, Eq. (24)) and the simpler upper bound the paper
  quotes, `1 + (5·ln(2/δ)/ε)·(1 + ln(X/δ))` (Eq. (25), whose `X` is `L` or `log2 h` depending on
  how the extracted formula is read: both are drawn); the full-tree baselines that add Laplace or
  Gaussian noise to every node's count (margins Eq. (27), (30): the noise scale grows with `h`
  because one record touches `h` counts), Ghazi et al.'s probabilistic margin (Eq. (10), which
  needs a public bound `M` on the number of records) and a Lumberjack-style baseline;
* which margins hold on *every* run and which only except with probability `β`;
* the crossover heights: from which `h` BetweenCut's margin is the smallest (certified
  comparisons, interval arithmetic);
* measured errors on a real dataset (the Unicode Character Database), every method at several
  thresholds `τ`, against its margin.
"""),
    code("""
import matplotlib.pyplot as plt

from betweencut.baselines.margins import BASELINES, MarginSetting, crossover
from betweencut.data.datasets import unicode_leaves, unicode_tree
from betweencut.properties.teaching import depth, exercises, margins
"""),
    md("""
## Margins against the height

`ε = 1/2`, `δ = 1/20`, failure probability `β = 1/100` for the probabilistic margins, binary trees
(the node count `N` enters Eq. (27), (30)), Ghazi et al. with `τ = 1000` and public `M = 10^5`
(the command's defaults). BetweenCut's margin depends on `h` only through `L = ⌈log2(h + 1)⌉`,
doubly logarithmically; the full-tree margins grow polynomially: Laplace like `h²` (`h/ε` times
`ln N ≈ h·ln 2`), Gaussian like `h` (`σ ~ sqrt(h)` times `sqrt(ln N)`). The left plot shows
every method on a log scale for trees up to `h = 2^24` (the full-tree margins and Ghazi et al.'s
leave the frame within a few doublings of `h`); the right one shows the deterministic margins
up to `h = 2^256`, where BetweenCut's finally drops below the Lumberjack-style one.
"""),
    code("""
setting = MarginSetting.of("1/2", "1/20")
rows = margins.margin_table(setting, margins.log_spaced_heights(256, 1))
crossings = [crossover(setting, b, 256) for b in BASELINES]
print("crossover heights (least h* from which BetweenCut's margin is <= the baseline's):")
print(margins.format_crossovers(crossings))
"""),
    code("""
fig, axes = plt.subplots(1, 2, figsize=(14, 5))
margins.plot_margins(axes[0], rows, crossings, max_log2_h=24,
                      frame=["betweencut", "eq25_L", "eq25_log2h", "lumberjack"])
axes[0].set_title("every method, h up to 2^24 (log scale)")
margins.plot_margins(axes[1], rows, crossings,
                      names=["betweencut", "eq25_L", "eq25_log2h", "lumberjack"], log=False)
axes[1].set_title("deterministic margins")
fig.tight_layout()
plt.show()
"""),
    md("""
The paper notes that its constants are large: against the Lumberjack-style baseline BetweenCut's
margin is the smaller one only for astronomically deep trees (the crossover above), while against
the full-tree baselines it wins almost at once.

## A tighter privacy accountant, a smaller margin

Eq. (24)'s margin comes from calibrating with the paper's privacy bound (Theorem 5.4/5.5). The
package also has a certified accountant, `tight` (the least of the paper's bound, the optimal
composition bound of Kairouz, Oh and Viswanath for `L` rounds, and an exact envelope of the
GuardedBT laws; notebook 6 shows it against exact attacks). `calibrate_tight` picks `λ` and `R`
for the smallest `E` that `tight` still certifies at `(ε, δ)`; `betweencut margins --accountant
tight` prints it as the row `betweencut_tight`. Each height costs about a second, so a handful:
"""),
    code("""
tight_heights = [15, 2**8 - 1, 2**16 - 1, 2**32 - 1, 2**64 - 1]
pairs = depth.margin_pairs(tight_heights, setting.epsilon, setting.delta)
print(depth.format_margin_pairs(pairs))
fig, ax = plt.subplots(figsize=(9, 4.5))
depth.plot_margin_pairs(ax, pairs, margins.baseline_margins(setting, tight_heights))
ax.set_title("BetweenCut's E: Eq. (24) vs the tight accountant (eps = 1/2, delta = 1/20)")
fig.tight_layout()
plt.show()
"""),
    md("""
Under the tight accountant BetweenCut's margin shrinks to 30-56% of Eq. (24)'s, and at these
settings it falls below the Lumberjack-style margin at every height shown, where Eq. (24)'s
crossover lies near `h = 2^191`. (The crossover heights above stay Eq. (24)'s; the
Lumberjack-style baseline keeps its own calibration.)

## Measured errors on data

The embedded dataset: every assigned Unicode code point of the running Python is a record filed
under `major class / category / bidirectional class / East Asian width` (height 5, 4,706 nodes,
about 284,000 records). Each method classifies every node at each `τ`; the *worst error* is the
largest `τ − c_u` over nodes it calls Heavy or `c_u − τ` over nodes it calls Light (0 if none is
on the wrong side of `τ`). A deterministic margin must bound it on every run (Theorem C.2 for
BetweenCut); a probabilistic one may fail with probability `β`. The Gaussian baselines draw float
noise, opted in explicitly and for comparison only.
"""),
    code("""
tree = unicode_tree()
leaves = unicode_leaves(tree)
measured = margins.measured_errors(tree, leaves, [30, 300, 3000], "1/2", "1/20", "1/100",
                                           seed=1)
print(margins.format_measured(measured))
"""),
    md("""
## Exercises

1. At `h = 15`, `ε = 1`, `δ = 1/20`, what is the number `r = min(L, r0)` of Theorem 5.5?
   Check with `exercises.check_calibrated_r(15, 1, "1/20", answer)`.
2. BetweenCut's margin is constant on blocks of heights. What is the largest `h` with the same
   margin as `h = 1000` (same `ε`, `δ`)? Check with
   `exercises.check_margin_block_end(1000, answer)`.
3. Which of the methods `betweencut, eq25_L, eq25_log2h, laplace, gaussian, ghazi, lumberjack`
   have deterministic margins? Check a set of names with
   `exercises.check_deterministic_margins(answer)`.
"""),
    exercise(1, """
L = ceil(log2 16) = 4; r0 = ceil(ln 40 / ln(5/4)) = 17; r = 4.""", [
        ('answer', '4'),
    ], """
print(exercises.check_calibrated_r(15, 1, "1/20", answer))"""),
    exercise(2, """
L = 10 for 512 <= h <= 1023.""", [
        ('answer', '1023'),
    ], """
print(exercises.check_margin_block_end(1000, answer))"""),
    exercise(3, """
the full-tree baselines and Ghazi et al. fail with probability beta.""", [
        ('answer', '{"betweencut", "eq25_L", "eq25_log2h", "lumberjack"}'),
    ], """
print(exercises.check_deterministic_margins(answer))"""),
]

NOTEBOOKS["5_privtree.ipynb"] = [
    md("""
# 5. PrivTree: a private spatial decomposition

**What you will learn.**

* how PrivTree (Zhang, Xiao, Xie, SIGMOD 2016) splits a public box recursively: a node at depth
  `ℓ` with `n_v` points has the biased, clamped score `b̂_v = max(n_v − δ_PT·ℓ, θ − δ_PT)` and is
  split iff `b̂_v + Lap(λ_PT) > θ`, with `λ_PT = (2β − 1)/((β − 1)·ε)` and `δ_PT = λ_PT·ln β`;
* why the domain box must be public (bounds read off the data would leak);
* how its claim "`ε`-DP whatever the depth" is checked **exactly** on a small domain, by
  enumerating every split decision through the same noisy-test seam as BetweenCut
  (`betweencut.proofs.baselines.privtree_checks.privtree`), and that the check refutes a
  smaller, wrong `ε`.
"""),
    code("""
from fractions import Fraction

import matplotlib.pyplot as plt

from betweencut.baselines.privtree import PrivTree, box_of
from betweencut.noise.bt_sampler import ExactSampler
from betweencut.proofs.baselines.privtree_checks.privtree import check_privtree_dp, domain_points
from betweencut.properties.teaching import exercises, privacy
"""),
    md("""
## A real point set

Every assigned cased letter (general category `Lu` or `Ll`: Latin, Greek, Cyrillic, Armenian,
Georgian, Cherokee, the full-width Latin forms, ...) of the Basic Multilingual Plane, placed at
`(code point mod 256, code point div 256)`: the plane drawn as a 256 × 256 code chart. The box
`[0, 256) × [0, 256)` is public (it is the plane, not a property of the data).
"""),
    code("""
points = privacy.unicode_plane_points(("Lu", "Ll"), plane=0)
mech = PrivTree.of(box_of((0, 256), (0, 256)), 1, theta=0)
print(f"{len(points)} points; epsilon = {mech.epsilon}, theta = {mech.theta}, "
      f"lambda_PT = {mech.scale}, delta_PT = lambda_PT * {mech.ln_beta_upper} "
      f"(a certified rational >= ln 2) = {float(mech.depth_penalty):.4f}")
"""),
    md("""
The release uses the exact sampler (each split decision is a two-outcome BT query `b̂ + Z > θ`,
drawn with integer arithmetic; the seed makes the picture reproducible and must not be used for a
real release). The blocks of the scripts are split finely, the empty rows of the plane stay
coarse: the depth penalty `δ_PT·ℓ` makes a box need more and more points to be split again.
"""),
    code("""
leaves = mech.run(points, ExactSampler(5))
fig, ax = plt.subplots(figsize=(8, 8))
privacy.plot_partition(ax, leaves, points,
                        title=f"PrivTree, epsilon = {mech.epsilon}: {len(leaves)} leaf boxes")
plt.show()
"""),
    md("""
## Its exact privacy check

The picture's domain is far too large to enumerate. `check_privtree_dp` (claim "PrivTree
epsilon-DP") checks the claim on a small public domain, a `2 × 4` grid: for every database `D`
of at most one point and every added point `z`, the exact laws of the released partition under
`D` and `D + z` satisfy `P(o) ≤ e^ε·P'(o)` both ways for every output `o` (pure DP on a finite
output space), each comparison decided by the exact sign of an exponential polynomial.
"""),
    code("""
small = PrivTree.of(box_of((0, 2), (0, 4)), 1)
cells = domain_points(small)
certificate = check_privtree_dp(small, cells, max_size=2)
print(certificate.claim, certificate.method, certificate.verdict, certificate.scope,
      dict(certificate.quantities))
"""),
    md("""
A checker that cannot fail proves nothing: asked to certify the same mechanism at half the
budget, it refutes the claim with the two databases and an output whose probability ratio exceeds
`e^{ε/2}`.
"""),
    code("""
counterexample = privacy.expect_refuted(check_privtree_dp, small, cells, 2,
                                         epsilon=Fraction(1, 2))
for name in ("claim", "epsilon", "D", "D'", "output"):
    print(f"  {name}: {counterexample[name]}")
"""),
    md("""
## Exercises

1. For fanout `β = 2` and `ε = 1/2`, what is PrivTree's Laplace scale `λ_PT`? Check with
   `exercises.check_privtree_scale(Fraction(1, 2), answer)`.
2. For the mechanism `mech` above (`θ = 0`), what is the score `b̂_v` of a node at depth 3
   holding 10 points, and of one at depth 6 holding 10 points? Use the exact `δ_PT =
   mech.depth_penalty` (`λ_PT` times the printed rational), and check with
   `exercises.check_privtree_score(mech, 10, 3, answer_1)` and
   `exercises.check_privtree_score(mech, 10, 6, answer_2)`.
3. The first split of the root box `[0, 256) × [0, 256)` halves its widest side (the first on
   ties) at the integer midpoint. Which child box holds the point `(200, 17)`? Give it as
   `((x0, x1), (y0, y1))` and check with `exercises.check_first_split(mech, (200, 17), answer)`.
"""),
    exercise(1, """
(2*2 - 1) / ((2 - 1) * 1/2) = 6.""", [
        ('answer', '6'),
    ], """
print(exercises.check_privtree_scale(Fraction(1, 2), answer))"""),
    exercise(2, """
max(10 - 3 * delta_PT, 0 - delta_PT): delta_PT is about 2.08, so the
first is 10 - 3 * delta_PT; at depth 6, 10 - 6 * delta_PT < -delta_PT and the clamp holds.""", [
        ('answer_1', '10 - 3 * mech.depth_penalty'),
        ('answer_2', '-mech.depth_penalty'),
    ], """
print(exercises.check_privtree_score(mech, 10, 3, answer_1))
print(exercises.check_privtree_score(mech, 10, 6, answer_2))"""),
    exercise(3, """
both sides are 256 wide, so the first axis is halved at 128.""", [
        ('answer', '((128, 256), (0, 256))'),
    ], """
print(exercises.check_first_split(mech, (200, 17), answer))"""),
]

NOTEBOOKS["6_privacy_at_depth.ipynb"] = [
    md("""
# 6. Privacy at depth

**What you will learn.**

* why BetweenCut's privacy loss does not grow with the height `h` of the tree, only with
  `L = ⌈log2(h + 1)⌉`, the most nodes it ever queries on one root-to-leaf path (Lemma 4.2);
* three numbers at the same `(ε, δ)` as `h` grows from 15 to `2^64 − 1`: the paper's bound
  (Theorem 5.4), a certified accountant that is never larger (`tight`), and the largest exact
  `δ(ε)` an attacker gets on the pairs we can compute exactly at that depth;
* how much smaller the margin `E` becomes when the mechanism is calibrated by the tight
  accountant instead of the paper's Theorem 5.5.

Every number below is exact or certified: decimals are printed only with digits an interval
enclosure guarantees (`…` means the value continues), and every verdict (`≤`) is decided by the
package's exact comparison gate, never by a float. Floats appear only in the figures.
"""),
    code("""
from fractions import Fraction

import matplotlib.pyplot as plt

from betweencut.mechanism.params import Params
from betweencut.proofs.privacy.accountants.accountant import accountant
from betweencut.properties.teaching import basics, depth, exercises
"""),
    md("""
## The reduction, in words

Take neighbouring databases `D` and `D + z` (one added record `z`).

1. Only the counts on `z`'s root-to-leaf path differ, each by exactly one (the paper's Eq. (4));
   every other node has the same count, so its noisy test has the same law under both.
2. On any run, whatever the data, BetweenCut queries at most `L = ⌈log2(h + 1)⌉` nodes of any
   one path (Lemma 4.2, Eq. (14)): it visits the levels in the DepO order and a target hit
   (`B`) stops it on that path.
3. Each queried node on the path is a GuardedBT test at count `c` under one database and `c + 1`
   under the other, and such a pair is `(λ, δ0)`-indistinguishable, `δ0 = ½·e^{−λ(R−1)}`
   (Lemma 5.3, Eq. (105)): the probability of any set of answers changes by a factor at most
   `e^λ`, up to an additive slack `δ0` that comes from the guards.
4. So the whole transcript is at worst an adaptive composition of `L` such tests. Theorem 5.4
   bounds it with the target-hit argument (the *paper* accountant); the *KOV* accountant uses
   the optimal composition theorem of Kairouz, Oh and Viswanath for `L` rounds of
   `(λ, δ0)`; the *envelope* accountant composes the exact worst pair of GuardedBT laws; and
   *tight* takes the smallest of the three at each `ε`. Each is a certified upper bound.

The exact side: when the added record sits on one leaf and every other node's count is 0, only
that path carries information, and answer sequences along the path with the same *signature*
have the same probability. `betweencut.proofs.privacy.depth.transcript` groups them and sums
exactly, so the exact `δ(ε)` of the full transcript is computable at any height up to `2^64 − 1`
(`betweencut audit depth` on the command line). The pairs are the *single-leaf family*: `C`
records on one leaf against `C + 1`.
"""),
    md("""
## A tiny case first

Height `h = 3` (so `L = 2`), `λ = 1`, `R = 2`, `τ = 3`: the thresholds are `a = 2`, `b = 4`
and the lower guard answers `L` without noise for counts `≤ a − R = 0`. The pair `C = 0`
against `C = 1`: the accountants' bounds at `ε = λ` and `ε = 2λ`, and the exact `δ`:
"""),
    code("""
small = Params.of(3, 1, 2)
for name in ("paper", "kov", "envelope", "tight"):
    acct = accountant(name, L=2, lam=small.lam, R=small.R)
    print(f"{name:>8}:", *(f"delta({eps}) <= {basics.certified_decimal(acct.delta_upper(eps))}"
                            for eps in (Fraction(1), Fraction(2))))
exact = depth.single_leaf_delta(3, small, 0, Fraction(1))
print("   exact: delta(1) =", basics.certified_decimal(exact), "(0 vs 1 records on one leaf)")
"""),
    md("""
The paper's `δ(1)` is above 1 here (a true but empty bound: with `r = 1 < L` its term
`(1 − q_λ)^r` is large), KOV and the envelope are far better, and at `ε = 2λ` their bound
`1 − (1 − δ0)^2` agrees to six digits with the exact `δ(1)` of this pair (which is also its
`δ(2)`): this pair attains the KOV bound exactly (exercise 3 asks why).
"""),
    md("""
## As the tree grows

At `ε = 1`, `δ = 1/20`, each height gets Theorem 5.5's calibration (`λ = ε/r` with
`r = min(L, r0)`, so `ε = rλ` is one of Theorem 5.4's points; `R` from `δ`) and the smallest
integer threshold `τ ≥ E`. For `h ≤ 1023` the exact column is the largest `δ(1)` over the whole
band of single-leaf counts (both guards, both thresholds and every count between); above, over
the two pairs that straddle a guard cut (at smaller heights these were the worst ones). An
attacker might do better with other pairs, so this column is a lower bound on the true worst
`δ`; the bounds are upper bounds. The last column checks `exact ≤ tight ≤ paper` exactly.
"""),
    code("""
heights = [15, 2**6 - 1, 2**10 - 1, 2**16 - 1, 2**20 - 1, 2**32 - 1, 2**64 - 1]
points = depth.depth_points(heights, 1, "1/20")
print(depth.format_depth_table(points))
"""),
    md("""
Read the table from the top. Theorem 5.5 sets the guard term `(L/2)·e^{−λ(R−1)}` of Theorem
5.4 to `δ/2` (Eq. (119)), so the paper's bound at `ε = rλ = 1` is `0.025` when `r = L`, and a
little more when `r = r0 < L` adds the term `(1 − q_λ)^r ≤ δ/2` (Eq. (120)). The exact attack
on a pair straddling a guard cut (`C = 0`: `D`'s path is all guarded `L`, `D + z`'s is noisy)
gets within a few percent of it at every height, and the tight accountant lies between them.
The exact column moves up and down with `h` because the integer `τ` lands at a different
distance from the guard cut at each height (the slack `κ` of Lemma 5.3 is `½·e^{−λd}` for a
noisy count `d` inside the guard), not because depth helps. For `h ≥ 2^20 − 1`, `r` stops at
`r0 = 17`: the calibration no longer changes `λ`, only `R` grows (slowly, like `ln L`). At
`h = 2^64 − 1` KOV and the envelope compose `L = 64` rounds against the paper's 17 target
hits, and `tight` falls back on the paper's bound.
"""),
    code("""
fig, ax = plt.subplots(figsize=(9, 4.5))
depth.plot_depth(ax, points)
ax.set_title("delta(eps = 1) at Theorem 5.5's calibration to (1, 1/20)")
fig.tight_layout()
plt.show()
"""),
    md("""
## What the tight accountant buys: a smaller margin

`calibrate_tight` (`betweencut.proofs.privacy.accountants.tight_calibration`) searches `λ` and `R`
for the smallest margin `E = 1/λ + R` whose `tight` bound still certifies `δ(ε) ≤ δ`; Theorem 5.5's
`calibrate` uses the paper's bound. A smaller `E` means a narrower band `[τ − E, τ + E]` of
counts that may be misclassified (Theorem 5.6). The table and figure give both margins and
their ratio (`tight < paper` is certified by interval bounds).
"""),
    code("""
pairs = depth.margin_pairs([15, 2**10 - 1, 2**20 - 1, 2**64 - 1], 1, "1/20")
print(depth.format_margin_pairs(pairs))
fig, ax = plt.subplots(figsize=(9, 4.5))
depth.plot_margin_pairs(ax, pairs)
ax.set_title("margin E at (eps, delta) = (1, 1/20); the tight/paper ratio under each point")
fig.tight_layout()
plt.show()
"""),
    md("""
The gain is largest around `h = 2^20`, where the paper's `r = 17` target hits force a small
`λ = 1/17` while KOV and the envelope, composing 20 rounds, allow a much larger `λ`; at
`h = 2^64 − 1` the 64 rounds cost more and the ratio moves back towards 1.

## Exercises

1. How many nodes of one path can BetweenCut query at `h = 2^64 − 1`? Check with
   `exercises.check_path_query_bound(2**64 - 1, answer)`.
2. At `h = 2^20 − 1` (the point `points[4]` above: `L = 20`, `λ = 1/17`), which of the
   accountants `"paper"`, `"kov"`, `"envelope"` gives the smallest bound at `ε = 1`? Check with
   `exercises.check_smallest_accountant(20, p.params.lam, p.params.R, Fraction(1), answer)`.
3. In the tiny case above (`h = 3`, `λ = 1`, `R = 2`, `τ = 3`, `C = 0` vs `1`), `D`'s path
   is guarded and always answers `L`; `D + z`'s path has count 1 at each node, and each queried
   node answers `L` with probability `1 − ½e^{−1}`. Give the exact `δ(1)` and check with
   `exercises.check_single_leaf_delta(3, small, 0, Fraction(1), answer)`.
"""),
    exercise(1, """
L = ceil(log2(2^64)) = 64 (Lemma 4.2).""", [
        ('answer', '64'),
    ], """
print(exercises.check_path_query_bound(2**64 - 1, answer))"""),
    exercise(2, """
the envelope composes the exact worst GuardedBT pair, a little below
KOV's (lambda, delta0) rounds; both are below the paper's bound here (see the table).""", [
        ('answer', '"envelope"'),
    ], """
p = points[4]
print(exercises.check_smallest_accountant(20, p.params.lam, p.params.R, Fraction(1), answer))"""),
    exercise(3, """
the event "some answer is not L" has probability
1 - (1 - exp(-1)/2)^2 under D + z and 0 under D; the other direction is negative.""", [
        ('answer', '"1 - (1 - exp(-1)/2)**2"'),
    ], """
print(exercises.check_single_leaf_delta(3, small, 0, Fraction(1), answer))"""),
]

# NOTEBOOK CELLS

if __name__ == "__main__":
    wanted = set(sys.argv[1:])
    for name, cells in NOTEBOOKS.items():
        if not wanted or name in wanted:
            for edition in EDITIONS:
                print(write(name, cells, edition))
