"""What a classification may show: the release (public) and the diagnostics (data holder only).

The release holds the private Heavy set and public inputs only: the tree, `tau`, `eps`,
`delta`, the calibration and its accountant, `E`, which implementation ran (a function of `tau`
and `E`) and what follows from the Heavy set (the numbers of Heavy and Light nodes). Every key
is on the allow-list `PUBLIC_KEYS` (`release_dict` refuses any other), so two runs whose Heavy
sets agree print the same bytes, whatever the records. Values that depend on the data (record
count, noisy draws, time) go to stderr only with `--diagnostics`, under `DIAGNOSTICS_HEADER`.
Any command that classifies (whatever engine reads the records) builds its output here, and so
do the library's `Classification.as_json()`, `str()` and `repr()` (issue 36, item 1): printing or
logging a result shows the release, never the diagnostics unless asked for by name.
"""

from __future__ import annotations

from collections.abc import Set
from typing import TYPE_CHECKING, Any, Protocol

from betweencut.errors import BetweenCutError
from betweencut.schemas import header

if TYPE_CHECKING:  # the CLI's parser reads TERMS: no mechanism imported to build it
    from betweencut.data.tree import Node, PublicTree
    from betweencut.mechanism.calibration import AccountantKind, Calibration
    from betweencut.mechanism.params import Params


class Run(Protocol):
    """What a release reads of one run (`mechanism.classifier.Classification` is one): the
    private Heavy set and public inputs. No diagnostics: the type does not offer them."""

    @property
    def tree(self) -> PublicTree: ...
    @property
    def heavy(self) -> Set[Node]: ...
    @property
    def calibration(self) -> Calibration: ...
    @property
    def params(self) -> Params: ...
    @property
    def implementation(self) -> str: ...
    @property
    def seeded(self) -> bool: ...
    @property
    def accountant(self) -> AccountantKind: ...

PUBLIC_KEYS = frozenset({
    "schema", "version", "heavy", "heavy_count", "light_count", "nodes", "tree", "height",
    "tau", "epsilon", "epsilon_exact", "delta_exact",
    "delta", "accountant", "calibration", "E", "E_exact", "implementation", "seeded",
    "guarantee",
})
DIAGNOSTIC_KEYS = frozenset({"records", "noisy_draws", "seconds"})
DIAGNOSTICS_HEADER = (
    "diagnostics (NOT differentially private: they depend on the records; for the data holder "
    "only, never publish them):"
)
GUARANTEE = (
    "(eps, delta)-differential privacy for adding or removing one record (Theorem 5.5, or the "
    "tight accountant's certified bound when accountant = tight); "
    "with probability 1 every node with count >= tau + E is Heavy and every node with count "
    "<= tau - E is Light (Theorem 5.6); nodes in between may go either way"
)
TIGHT_TERMS = (
    "lambda: the rate of each noisy test's Laplace noise; w = 1/lambda the half-width of its band "
    "[tau - w, tau + w] (Eq. (13)); lambda and R minimise E subject to the tight accountant's "
    "certified delta(eps) <= delta (docs/explanation/accountant.md)",
    "R = 1 + ln(1/(2 delta0))/lambda: the guard width (delta0 the guards' share of delta); a "
    "count <= tau - w - R is Light and one >= tau + w + R is Heavy without noise (Alg. 1); "
    "E = w + R",
)
TERMS = (
    "r = min(L, r0): the noisy queries charged per root-to-leaf path (L = ceil(log2(h + 1)), "
    "Eq. (14); r0 = ceil(ln(2/delta)/ln(5/4)), Theorem 5.5)",
    "w = r/eps = 1/lambda: the half-width of the noisy test's band [tau - w, tau + w] "
    "(Eq. (13)); each test adds Laplace noise of scale 1/lambda",
    "R = 1 + w*ln(L/delta): the guard width; a count <= tau - w - R is Light and one "
    ">= tau + w + R is Heavy without noise (Alg. 1); E = w + R",
)


class ReleaseLeak(BetweenCutError):
    """A key outside the public allow-list was about to be released (a programming error)."""


def release_dict(result: Run) -> dict[str, Any]:
    """The public release of one run as a JSON-ready dict, every key on `PUBLIC_KEYS`."""
    tree, cal = result.tree, result.calibration
    names = [tree.name(u) for u in sorted(result.heavy, key=lambda u: (len(u), u))]
    nodes = tree.node_count()
    data: dict[str, Any] = {
        **header("classify"), "heavy": names, "heavy_count": len(names),
        "light_count": nodes - len(names),
        "nodes": nodes, "tree": tree.description, "height": tree.height,
        "tau": str(result.params.tau), "epsilon": float(cal.epsilon),
        "epsilon_exact": str(cal.epsilon), "delta": float(cal.delta),
        "delta_exact": str(cal.delta),
        "accountant": result.accountant.value, "calibration": cal.as_json(with_header=False),
        "E": cal.as_json(with_header=False)["E"], "E_exact": cal.E.exact_str(),
        "implementation": result.implementation, "seeded": result.seeded,
        "guarantee": GUARANTEE,
    }
    leaked = set(data) - PUBLIC_KEYS
    if leaked:
        raise ReleaseLeak(f"keys outside the public allow-list: {sorted(leaked)}")
    return data


def release_text(result: Run) -> list[str]:
    """The release as text lines: the same public fields, and the guarantee in words."""
    d = release_dict(result)
    from betweencut.mechanism.calibration import AccountantKind

    cal = result.calibration
    paper = result.accountant is AccountantKind.PAPER
    e_shown = d["E"] if isinstance(d["E"], str) else f"{d['E']:.6g}"
    lines = [
        f"BetweenCut release: {d['tree']} ({d['nodes']} nodes); implementation: "
        f"{d['implementation']}",
        f"public inputs: tau = {d['tau']}, eps = {d['epsilon_exact']}, delta = "
        f"{d['delta_exact']}; "
        f"accountant: {d['accountant']}",
        "guarantee: (eps, delta)-differential privacy for adding or removing one record "
        + ("(Theorem 5.5)." if paper
           else "(certified by the tight accountant, docs/explanation/accountant.md)."),
        f"margin E = {d['E_exact']} ~ {e_shown} (Theorem 5.6): with probability 1, every node "
        "with count >= tau + E is Heavy and every node with count <= tau - E is Light; nodes "
        "in between may go either way.",
        f"calibration ({'Theorem 5.5' if paper else 'tight accountant'}): "
        f"L = {cal.L}, r0 = {cal.r0}, r = {cal.r}, lambda = {cal.lam}, w = {cal.w}, "
        f"R = {cal.R.exact_str()}",
        *(f"  {term}" for term in (TERMS if paper else TIGHT_TERMS)),
        f"Heavy nodes: {d['heavy_count']} of {d['nodes']} (Light: {d['light_count']})"
        + (" [seeded run: not for release]" if d["seeded"] else ""),
        *(f"  {name}" for name in d["heavy"]),
    ]
    return lines
