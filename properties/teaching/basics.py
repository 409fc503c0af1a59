"""Helpers for the teaching notebooks (`notebooks/`): tables and matplotlib pictures.

This module serves notebooks 1 (GuardedBT's law, Lemmas 5.2/5.3) and 2 (BetweenCut step by step)
and holds the shared number formatting; `privacy` serves notebooks 3 and 5,
`margins` notebook 4.

The notebooks define no logic of their own; everything they compute or draw comes from here,
and everything here only *reads* what the package computes: a run of the real `BetweenCut`
(Alg. 3), the exact laws of `betweencut.proofs.laws.bt_laws`, the predicates of
`betweencut.properties.predicates`. Nothing here decides a verdict with a float: floats are
made at the last moment, for plotting, from certified enclosures.

matplotlib is imported lazily (inside the drawing functions), so importing this module does not
need it; the backend is whatever the environment says (`MPLBACKEND=Agg` in CI).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from betweencut.data.tree import Node, PublicTree
from betweencut.errors import BetweenCutError, ParameterError
from betweencut.mechanism.betweencut import BetweenCut, Run, path_counts
from betweencut.mechanism.calibration import path_query_bound
from betweencut.mechanism.guarded_bt import BT
from betweencut.mechanism.marking import Assignment, Labels
from betweencut.mechanism.params import Params
from betweencut.noise.noisy_test import Outcome
from betweencut.numbers.exact import midpoint_float
from betweencut.proofs.exact.arith import ExpPoly, Number, enclose, exact_str
from betweencut.proofs.exact.certificate import Certificate
from betweencut.proofs.laws.bt_laws import OUTCOMES, guarded_exact_law
from betweencut.proofs.laws.models import Model
from betweencut.proofs.laws.targets import check_lemma_5_3, lemma_5_3_witness
from betweencut.proofs.laws.tct import q_lambda
from betweencut.proofs.laws.witness import TargetWitness
from betweencut.properties.predicates import check_lemma_4_2, check_lemma_4_3
from betweencut.properties.violation import comparable

COLOURS: dict[Outcome | None, str] = {
    Outcome.H: "#d62728", Outcome.L: "#1f77b4", Outcome.B: "#2ca02c", None: "#dddddd",
}
OUTCOME_NAMES = {Outcome.L: "L (light)", Outcome.B: "B (between)", Outcome.H: "H (heavy)"}


# -- numbers for reading ------------------------------------------------------------------------
def certified_decimal(x: Number, digits: int = 6, prec: int = 96) -> str:
    """`x` as a decimal whose every printed digit is certified: the digits of `|x|` truncated
    to `digits` places, taken from a certified enclosure at `prec` bits, followed by `…` when
    the value is not exactly the printed decimal; an interval `[lo, hi]` (rounded outward) when
    the enclosure does not fix those digits."""
    lo, hi = enclose(x, prec)
    scale = 10**digits
    interval = (f"[{_decimal(Fraction((lo * scale).__floor__(), scale), digits)}, "
                f"{_decimal(Fraction((hi * scale).__ceil__(), scale), digits)}]")
    if lo == hi == 0:
        return _decimal(Fraction(0), digits)
    if lo <= 0 <= hi:
        return interval
    a, b = (lo, hi) if lo > 0 else (-hi, -lo)
    if (a * scale).__floor__() != (b * scale).__floor__():
        return interval
    truncated = Fraction((a * scale).__floor__(), scale)
    exact = a == b and truncated == a
    return ("-" if hi < 0 else "") + _decimal(truncated, digits) + ("" if exact else "…")


def _decimal(x: Fraction, digits: int) -> str:
    sign = "-" if x < 0 else ""
    x = abs(x)
    whole = int(x)
    frac = int((x - whole) * 10**digits)
    return f"{sign}{whole}.{frac:0{digits}d}"


def midpoint(x: Number) -> float:
    """A float for plotting only: the midpoint of a certified enclosure."""
    return midpoint_float(*enclose(x, 64))


# -- GuardedBT's law (notebook 1) --------------------------------------------------------------
@dataclass(frozen=True)
class LawRow:
    """The exact law of one call `mechanism(count)`: which branch decides it and `P(L, B, H)`."""

    count: int
    branch: str
    law: Mapping[Outcome, Number]


def law_rows(mechanism: BT, counts: Iterable[int]) -> list[LawRow]:
    """The exact law of GuardedBT (Alg. 1) or BT (Alg. 4) at each integer count, from
    `betweencut.proofs.laws.bt_laws.guarded_exact_law` (guards decided by the mechanism's own
    code)."""
    rows = []
    for c in counts:
        if not isinstance(c, int) or isinstance(c, bool):
            raise ParameterError("count", c, "an integer count")
        decided = mechanism.guard(c)
        branch = "noisy BT" if decided is None else f"guard -> {decided.value}"
        rows.append(LawRow(c, branch, guarded_exact_law(mechanism, c)))
    return rows


def format_law_rows(rows: Sequence[LawRow], digits: int = 6) -> str:
    """A text table: count, branch, then each outcome's exact form and certified decimal."""
    lines = [f"{'c':>4}  {'branch':<12} exact form{'':<36} certified decimal"]
    for row in rows:
        lines.append(f"{row.count:>4}  {row.branch:<12}")
        for s in OUTCOMES:
            value = row.law[s]
            lines.append(f"{'':>6}P({s.value}) = {exact_str(value):<44} "
                         f"= {certified_decimal(value, digits)}")
    return "\n".join(lines)


def plot_law(ax: Any, rows: Sequence[LawRow], mechanism: BT | None = None) -> None:
    """The three probabilities against the count (floats from certified enclosures), with the
    thresholds `a`, `b` and, for GuardedBT, the guard cuts `⌊a - R⌋`, `⌈b + R⌉` marked."""
    xs = [row.count for row in rows]
    for s in OUTCOMES:
        ax.plot(xs, [midpoint(row.law[s]) for row in rows], "o-", color=COLOURS[s],
                label=OUTCOME_NAMES[s])
    if mechanism is not None:
        ax.axvline(float(mechanism.a), color="grey", ls=":", lw=1)
        ax.axvline(float(mechanism.b), color="grey", ls=":", lw=1)
        ax.text(float(mechanism.a), 1.03, "a", ha="center")
        ax.text(float(mechanism.b), 1.03, "b", ha="center")
        cuts = _guard_cuts(mechanism)
        if cuts is not None:
            lower, upper = cuts
            ax.axvspan(min(xs) - 0.5, lower + 0.5, color=COLOURS[Outcome.L], alpha=0.08)
            ax.axvspan(upper - 0.5, max(xs) + 0.5, color=COLOURS[Outcome.H], alpha=0.08)
            ax.text((min(xs) + lower) / 2, 0.75, "guard: L", ha="center", rotation=90,
                    va="center")
            ax.text((max(xs) + upper) / 2, 0.75, "guard: H", ha="center", rotation=90,
                    va="center")
    ax.set_xlabel("count c")
    ax.set_ylabel("probability")
    ax.set_ylim(-0.02, 1.08)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=3, fontsize="small")


def _guard_cuts(mechanism: BT) -> tuple[int, int] | None:
    lower = getattr(mechanism, "lower_cut", None)
    upper = getattr(mechanism, "upper_cut", None)
    if lower is None or upper is None:
        return None
    return int(lower), int(upper)


# -- the q-target decomposition of Lemmas 5.2 and 5.3 (notebook 1) ------------------------------
@dataclass(frozen=True)
class DecompositionRow:
    """The witness of Lemma 5.3 (Lemma 5.2's when both counts are randomized) for the pair of
    neighbouring counts `(c, c + 1)`, with the certificate the package's checker returned."""

    c0: int
    c1: int
    witness: TargetWitness[Any]
    certificate: Certificate


def decomposition_rows(model: Model[Any], counts: Iterable[int]) -> list[DecompositionRow]:
    """For each `c`, Lemma 5.3's witness for `(c, c + 1)` (`betweencut.proofs.laws.targets`),
    checked
    exactly by `check_lemma_5_3` (raises `ClaimRefuted` if it is not a witness)."""
    rows = []
    for c in counts:
        w = lemma_5_3_witness(model, c, c + 1)
        rows.append(DecompositionRow(c, c + 1, w, check_lemma_5_3(model, c, c + 1, w)))
    return rows


#: The parts of `P_b = (1 - κ)·(p·C + (1 - p)·N_b) + κ·F_b` (Def. 5.1) drawn as stacked bars.
PARTS = (
    ("common p·C(L)", "#1f77b4", ""), ("common p·C(H)", "#d62728", ""),
    ("residual N_b(L)", "#aec7e8", "//"), ("residual N_b(H)", "#ff9896", "//"),
    ("B mass N_b(B)", "#2ca02c", ""), ("guard slack κ·F_b", "#7f7f7f", "xx"),
)


def decomposition_parts(w: TargetWitness[Any], b: int) -> list[Any]:
    """The six exact parts of `P_b` in `PARTS` order; they sum to `P_b` (Eq. (86))."""
    N = w.N0 if b == 0 else w.N1
    F = w.F0 if b == 0 else w.F1
    keep = 1 - w.kappa
    total_f = F[Outcome.L] + F[Outcome.B] + F[Outcome.H]
    return [keep * w.p * w.C[Outcome.L], keep * w.p * w.C[Outcome.H],
            keep * (1 - w.p) * N[Outcome.L], keep * (1 - w.p) * N[Outcome.H],
            keep * (1 - w.p) * N[Outcome.B], w.kappa * total_f]


def plot_decomposition(ax: Any, rows: Sequence[DecompositionRow]) -> None:
    """Two stacked bars per neighbouring pair (left `P_0` at `c`, right `P_1` at `c + 1`):
    the common part `p·C` (solid, equal in both bars), the residual parts `(1 - p)·N_b(L, H)`
    (hatched), the B mass `(1 - p)·N_b(B)` and the guard slack `κ·F_b`."""
    for k, row in enumerate(rows):
        for b in (0, 1):
            x = 3 * k + b
            bottom = 0.0
            for (name, colour, hatch), value in zip(PARTS, decomposition_parts(row.witness, b),
                                                    strict=True):
                height = midpoint(value)
                ax.bar(x, height, bottom=bottom, color=colour, hatch=hatch, edgecolor="white",
                       width=0.9, label=name if k == 0 and b == 0 else None)
                bottom += height
    ax.set_xticks([3 * k + 0.5 for k in range(len(rows))],
                  [f"{r.c0}|{r.c1}" for r in rows])
    ax.set_xlabel("neighbouring counts c | c+1  (left bar P_0, right bar P_1)")
    ax.set_ylabel("probability")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")


def format_decomposition(rows: Sequence[DecompositionRow], lam: Fraction,
                         digits: int = 4) -> str:
    """Per pair: the case of the proof, `p`, `κ`, `N_b(B)` against `q_λ`, and the ratios
    `N_0(y)/N_1(y)` that `N_0 ≈_λ N_1` bounds by `e^{±λ}` (certified decimals)."""
    q = q_lambda(lam)
    lines = [f"q_lambda = {exact_str(q)} = {certified_decimal(q, digits)};  "
             f"e^lambda = {certified_decimal(ExpPoly.exp(lam), digits)}"]
    for row in rows:
        w = row.witness
        ratios = []
        for s in OUTCOMES:
            if w.N1[s] == 0:
                ratios.append(f"{s.value}: 0/0" if w.N0[s] == 0 else f"{s.value}: inf")
            else:
                ratios.append(f"{s.value}: {certified_decimal(w.N0[s] / w.N1[s], digits)}")
        lines.append(
            f"c={row.c0}|{row.c1}  {w.case:<32} p={certified_decimal(w.p, digits)} "
            f"kappa={certified_decimal(w.kappa, digits)} "
            f"N0(B)={certified_decimal(w.N0[Outcome.B], digits)} "
            f"N1(B)={certified_decimal(w.N1[Outcome.B], digits)}  N0/N1: " + ", ".join(ratios))
    return "\n".join(lines)


# -- BetweenCut step by step (notebook 2) ------------------------------------------------------
@dataclass(frozen=True)
class QueryStep:
    """One query of a BetweenCut run: the node, its count, the answer, and the labels the
    marking routines (Alg. 6) wrote because of it."""

    index: int
    node: Node
    count: int
    outcome: Outcome
    assignments: tuple[Assignment, ...]
    labels_after: Mapping[Node, Outcome]


def query_steps(
    tree: PublicTree, params: Params, leaves: Sequence[Node], run: Run,
    variant: type[BetweenCut] = BetweenCut,
) -> list[QueryStep]:
    """Split a run's marking log by query: replays `run.transcript` through the mechanism's own
    `apply` step (Alg. 3, l. 9-15) on fresh labels and checks that the concatenated writes are
    exactly `run.assignments` (raises `BetweenCutError` otherwise)."""
    counts = path_counts(leaves)
    mechanism = variant(tree, params)
    labels = Labels(tree.children)
    steps = []
    for i, (u, outcome) in enumerate(run.transcript):
        before = len(labels.log)
        mechanism.apply(labels, u, outcome)
        steps.append(QueryStep(i, u, counts.get(u, 0), outcome, tuple(labels.log[before:]),
                               dict(labels.label)))
    if tuple(labels.log) != tuple(run.assignments):
        raise BetweenCutError("replaying the transcript does not give the run's marking log")
    return steps


def node_name(u: Node) -> str:
    """A short name for a node of a k-ary tree: `ε` for the root, else its child indices."""
    return "".join(str(i) for i in u) if u else "ε"


def format_steps(steps: Sequence[QueryStep]) -> str:
    """One line per query: step, node, depth, count, answer, and the labels it wrote."""
    lines = [f"{'step':>4}  {'node':<6} {'depth':>5} {'count':>5}  answer  labels written"]
    for st in steps:
        written = ", ".join(f"{node_name(u)}:{new.value}" for u, _, new in st.assignments)
        lines.append(f"{st.index + 1:>4}  {node_name(st.node):<6} {len(st.node):>5} "
                     f"{st.count:>5}  {st.outcome.value:^6}  {written}")
    return "\n".join(lines)


def tree_layout(tree: PublicTree) -> dict[Node, tuple[float, float]]:
    """Leaves evenly spaced left to right in public order, a parent above its children's mean."""
    pos: dict[Node, tuple[float, float]] = {}
    next_x = [0.0]

    def place(u: Node) -> float:
        kids = tree.children(u)
        x = sum(place(v) for v in kids) / len(kids) if kids else next_x[0]
        if not kids:
            next_x[0] += 1.0
        pos[u] = (x, -float(len(u)))
        return x

    size = tree.size(limit=512)
    if size > 511:
        raise ParameterError("tree", tree.description, "at most 511 nodes to draw")
    place(())
    return pos


def draw_tree(
    ax: Any, tree: PublicTree, *, counts: Mapping[Node, int] | None = None,
    labels: Mapping[Node, Outcome] | None = None,
    queried: Mapping[Node, tuple[int, Outcome]] | None = None,
    current: Node | None = None, path: Sequence[Node] = (), title: str = "",
) -> None:
    """Draw `tree`: fill colour = label (H red, L blue, unlabelled grey), the count inside,
    queried nodes ringed in black with `step:answer` beside them (a `B` answer as a green
    star), the `current` query ringed thick, and the edges of `path` drawn thick."""
    pos = tree_layout(tree)
    labels = labels or {}
    queried = queried or {}
    on_path = set(path)
    for u, (x, y) in pos.items():
        for v in tree.children(u):
            xv, yv = pos[v]
            thick = u in on_path and v in on_path
            ax.plot([x, xv], [y, yv], color="black" if thick else "#999999",
                    lw=3 if thick else 0.8, zorder=1)
    for u, (x, y) in pos.items():
        ring = "black" if u in queried else "#bbbbbb"
        width = 3.0 if u == current else 1.5 if u in queried else 0.5
        ax.scatter([x], [y], s=260, color=COLOURS[labels.get(u)], edgecolors=ring,
                   linewidths=width, zorder=2)
        if counts is not None:
            ax.text(x, y, str(counts.get(u, 0)), ha="center", va="center", fontsize=7,
                    color="white" if u in labels else "black", zorder=3)
        if u in queried:
            step, outcome = queried[u]
            # A leaf's `step:answer` goes under it, one field a line, so neighbouring leaves'
            # labels never run together; an inner node's goes above right, on a white box so
            # no edge (thick path included) hides it.
            if tree.arity(u) == 0:
                ax.text(x, y - 0.3, f"{step + 1}\n{outcome.value}", ha="center", va="top",
                        fontsize=6.5, linespacing=0.9, zorder=5)
            else:
                ax.text(x + 0.14, y + 0.2, f"{step + 1}:{outcome.value}", fontsize=7, zorder=5,
                        bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none",
                              "alpha": 0.85})
            if outcome is Outcome.B:
                ax.scatter([x - 0.3], [y + 0.28], marker="*", s=110, color=COLOURS[Outcome.B],
                           edgecolors="black", linewidths=0.4, zorder=6)
    ax.set_title(title, fontsize=9)
    ax.set_axis_off()
    ax.set_ylim(-tree.height + 0.2, 0.7)


def legend_handles() -> list[Any]:
    """The colour key of `draw_tree`: fill = label, ring = queried, star = a `B` answer."""
    from matplotlib.lines import Line2D

    def dot(colour: str, ring: str, width: float, text: str) -> Any:
        return Line2D([], [], marker="o", ls="", markersize=11, markerfacecolor=colour,
                      markeredgecolor=ring, markeredgewidth=width, label=text)

    return [
        dot(COLOURS[Outcome.H], "#bbbbbb", 0.5, "Heavy (H)"),
        dot(COLOURS[Outcome.L], "#bbbbbb", 0.5, "Light (L)"),
        dot(COLOURS[None], "#bbbbbb", 0.5, "not labelled yet"),
        dot("white", "black", 1.5, "queried: step, answer beside it"),
        dot("white", "black", 3.0, "the query of this panel"),
        Line2D([], [], marker="*", ls="", markersize=12, markerfacecolor=COLOURS[Outcome.B],
               markeredgecolor="black", markeredgewidth=0.4, label="answer B"),
        Line2D([], [], color="black", lw=3, label="busiest root-to-leaf path"),
    ]


def draw_steps(
    tree: PublicTree, steps: Sequence[QueryStep], counts: Mapping[Node, int], ncols: int = 3
) -> Any:
    """One small tree picture per query: labels after the query, the queried node ringed."""
    import matplotlib.pyplot as plt

    nrows = max(1, -(-len(steps) // ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 2.6 * nrows), squeeze=False)
    queried: dict[Node, tuple[int, Outcome]] = {}
    for k, ax in enumerate(axes.flat):
        if k >= len(steps):
            ax.set_axis_off()
            continue
        st = steps[k]
        queried[st.node] = (st.index, st.outcome)
        draw_tree(ax, tree, counts=counts, labels=st.labels_after, queried=dict(queried),
                  current=st.node,
                  title=f"query {st.index + 1}: node {node_name(st.node)} (depth {len(st.node)}, "
                        f"c={st.count}) -> {st.outcome.value}, wrote {len(st.assignments)}")
    fig.legend(handles=legend_handles()[:-1], loc="upper center", ncol=6, fontsize=8,
               frameon=False, bbox_to_anchor=(0.5, 1.0))
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.35 / fig.get_figheight()))
    return fig


@dataclass(frozen=True)
class LemmaView:
    """What the final picture shows: the path with the most queried nodes (Lemma 4.2) and the
    `B` answers (Lemma 4.3), after both predicates accepted the run."""

    L: int
    busiest_path: tuple[Node, ...]
    queried_on_path: tuple[Node, ...]
    betweens: tuple[Node, ...]


def lemma_view(tree: PublicTree, run: Run) -> LemmaView:
    """Run the predicates of Lemma 4.2 (Eq. (14)) and Lemma 4.3 on `run` (raising
    `PropertyViolation` if either fails) and pick the root-to-leaf path with the most queries."""
    check_lemma_4_2(tree, run)
    check_lemma_4_3(run)
    queried = [u for u, _ in run.transcript]
    best: tuple[Node, ...] = ()
    best_hits: tuple[Node, ...] = ()
    for leaf in (u for u in tree.nodes() if tree.arity(u) == 0):
        hits = tuple(v for v in queried if comparable(v, leaf))
        if len(hits) > len(best_hits):
            best, best_hits = tuple(leaf[:d] for d in range(len(leaf) + 1)), hits
    betweens = tuple(u for u, s in run.transcript if s is Outcome.B)
    return LemmaView(path_query_bound(tree.height), best, best_hits, betweens)


def draw_lemmas(ax: Any, tree: PublicTree, run: Run, counts: Mapping[Node, int]) -> LemmaView:
    """The final labels with every query, the busiest path thick (Lemma 4.2: at most `L`
    queried nodes on it) and the `B` answers starred (Lemma 4.3: at most one per path)."""
    view = lemma_view(tree, run)
    queried = {u: (i, s) for i, (u, s) in enumerate(run.transcript)}
    draw_tree(ax, tree, counts=counts, labels=run.labels, queried=queried,
              path=view.busiest_path,
              title=f"Lemma 4.2: busiest path holds {len(view.queried_on_path)} queried nodes "
                    f"<= L = {view.L};  Lemma 4.3: {len(view.betweens)} B answer(s), "
                    "at most one on any path")
    keys = legend_handles()
    ax.legend(handles=keys[:4] + keys[5:], loc="upper left", fontsize=7, frameon=False)
    return view


def answers_probability(log: Sequence[tuple[Any, Outcome]]) -> ExpPoly:
    """The exact probability that the noisy tests answer as in `log` (the `(BTQuery, Outcome)`
    pairs a `RecordingTest` kept): the product of the exact BT laws (`exact_law`, Alg. 4)."""
    from betweencut.proofs.laws.bt_laws import exact_law

    out = ExpPoly.const(1)
    for query, outcome in log:
        out = out * exact_law(query)[outcome]
    return out
