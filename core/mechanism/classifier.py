"""`classify`: the library entry point of one private release (Alg. 3 / Appendix D, Theorem 5.5).

It checks every public parameter and the feasibility of the run before it touches a record,
checks every record against the public tree, calibrates (Theorem 5.5), picks the implementation
from public values only (`tau >= E`: sparse, Appendix D; else dense, Alg. 3) and runs it with
the exact sampler. The result keeps the private answer (the Heavy set) apart from what depends
on the data and is not protected (`Diagnostics`: record count, noisy draws, time), which a
release must never show (see `betweencut.mechanism.public_release`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from betweencut.data.tree import Node, PublicTree
from betweencut.data.validate import MAX_RUN_HEIGHT, check_leaves, check_seed, check_tree
from betweencut.errors import ParameterError
from betweencut.mechanism.betweencut import DENSE_NODE_LIMIT, BetweenCut
from betweencut.mechanism.calibration import AccountantKind, Calibration, calibrate
from betweencut.mechanism.params import Params
from betweencut.mechanism.sparse import Encoding, sparse_between_cut
from betweencut.noise.bt_sampler import ExactSampler

#: The least epsilon a run on records takes: the padded sampler's tables (one per 12 bits of
#: w = r/eps) and the precision of their thresholds grow with log(1/eps), so a smaller epsilon
#: is refused before any work (issue 39, item 3: `--epsilon 1e-400` ran for a minute).
MIN_RUN_EPSILON = Fraction(1, 10**50)

SPARSE = "sparse (Appendix D, tau >= E)"
DENSE = "dense (Alg. 3, tau < E)"
ACCOUNTANT = AccountantKind.PAPER  # Theorem 5.5's calibration
Progress = Callable[[str], None]


@dataclass(frozen=True, repr=False)
class Diagnostics:
    """Values that depend on the data and are NOT differentially private: for the data holder
    only, never part of a release. Their `repr` says so (issue 36, item 1)."""

    records: int
    noisy_draws: int
    seconds: float
    more: Mapping[str, object] = field(default_factory=dict)  # e.g. a counting engine's own

    def __repr__(self) -> str:
        more = "".join(f", {k}={v!r}" for k, v in self.more.items())
        return (f"Diagnostics(NOT differentially private, for the data holder only: "
                f"records={self.records}, noisy_draws={self.noisy_draws}, "
                f"seconds={self.seconds:.4g}{more})")

    def as_json(self) -> dict[str, Any]:
        """The diagnostics as `--diagnostics --json` prints them (NOT differentially private)."""
        return {"records": self.records, "noisy_draws": self.noisy_draws,
                "seconds": round(self.seconds, 4), **self.more}


@dataclass(frozen=True, repr=False)
class Classification:
    """One run: the private Heavy set, the public inputs it was computed with, and (apart)
    the data holder's diagnostics.

    `repr`, `str` and `as_json()` show the release only (issue 36, item 1; the allow-list of
    `betweencut.mechanism.public_release`), so printing or logging a result publishes nothing the
    command line would not; the diagnostics are read by name (`result.diagnostics`), labelled as
    such."""

    tree: PublicTree
    heavy: frozenset[Node]
    calibration: Calibration
    params: Params
    implementation: str
    seeded: bool
    diagnostics: Diagnostics
    accountant: AccountantKind = ACCOUNTANT

    def as_json(self) -> dict[str, Any]:
        """`betweencut classify --json`'s object (schema `classify`): the release only."""
        from betweencut.mechanism.public_release import release_dict

        return release_dict(self)

    def text(self) -> str:
        """The release in words, as `betweencut classify` prints it."""
        from betweencut.mechanism.public_release import release_text

        return "\n".join(release_text(self))

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        cal = self.calibration
        return (f"Classification(tree={self.tree.description!r}, heavy={len(self.heavy)} "
                f"node(s), tau={self.params.tau}, epsilon={cal.epsilon}, delta={cal.delta}, "
                f"E={cal.E.exact_str()!r}, accountant={self.accountant.value!r}, "
                f"implementation={self.implementation!r}, seeded={self.seeded}; "
                "diagnostics: read .diagnostics, not differentially private)")


def implementation_for(cal: Calibration, params: Params) -> str:
    """Which implementation runs: a function of the public `tau` and `E` only."""
    return SPARSE if cal.E.compare(params.tau) <= 0 else DENSE


def plan(tree: object, tau: object, epsilon: object, delta: object,
         calibration: Calibration | None = None,
         ) -> tuple[PublicTree, Calibration, Params, str]:
    """Every public check of a run, before any record is read: the tree, its height (at most
    `MAX_RUN_HEIGHT`), `(eps, delta)` (Theorem 5.5's range, eps at least `MIN_RUN_EPSILON`),
    `tau`, and that the chosen implementation can run on this tree (dense: at most
    `DENSE_NODE_LIMIT` nodes; sparse: leaf paths in 62 bits). `calibration` (default: Theorem
    5.5's) is another accountant's calibration of the same public `(h, eps, delta)`, e.g. the
    tight one the CLI computes.
    Raises `ParameterError` naming what to change."""
    t = check_tree(tree)
    if t.height > MAX_RUN_HEIGHT:
        raise ParameterError("height", t.height, f"h <= {MAX_RUN_HEIGHT} for a run on records")
    cal = calibrate(t.height, epsilon, delta)
    if cal.epsilon < MIN_RUN_EPSILON:
        raise ParameterError("epsilon", cal.epsilon, "epsilon >= 1e-50 for a run on records",
                             "the noise sampler's work grows with log(1/epsilon)")
    if calibration is not None:
        if (calibration.height, calibration.epsilon, calibration.delta) != (
                cal.height, cal.epsilon, cal.delta):
            raise ParameterError(
                "calibration", f"h = {calibration.height}, eps = {calibration.epsilon}, "
                f"delta = {calibration.delta}",
                f"a calibration of h = {cal.height}, eps = {cal.epsilon}, delta = {cal.delta}")
        cal = calibration
    params = cal.params(tau)
    implementation = implementation_for(cal, params)
    if implementation == DENSE:
        if t.size(limit=DENSE_NODE_LIMIT) > DENSE_NODE_LIMIT:
            raise ParameterError(
                "tau", params.tau, f"tau >= E = {cal.E.approx():.6g} (sparse), or a public tree "
                f"of at most {DENSE_NODE_LIMIT} nodes",
                "only the dense algorithm applies below E, and this tree is larger",
            )
    else:
        Encoding.of(t)  # raises ParameterError when the leaf paths do not fit in 62 bits
    return t, cal, params, implementation


class _ReportingOrder(list[int]):
    """DepO's level order; iterating it reports each level reached (public: depths only)."""

    def __init__(self, levels: list[int], report: Progress) -> None:
        super().__init__(levels)
        self.report = report

    def __iter__(self) -> Iterator[int]:
        for step, d in enumerate(super().__iter__(), start=1):
            self.report(f"level {step} of {len(self)} (depth {d})")
            yield d


class _Reporting(BetweenCut):
    """Alg. 3 unchanged; only the iteration over DepO's levels reports progress."""

    def __init__(self, tree: PublicTree, params: Params, report: Progress) -> None:
        self.report = report
        super().__init__(tree, params)

    def level_order(self) -> list[int]:
        return _ReportingOrder(super().level_order(), self.report)


def classify(
    tree: object,
    leaves: Iterable[object],
    *,
    tau: object,
    epsilon: object,
    delta: object,
    seed: int | bytes | None = None,
    progress: Progress | None = None,
    calibration: Calibration | None = None,
) -> Classification:
    """The Heavy set of `tree` for the records `leaves` with `(epsilon, delta)`-DP (Theorem 5.5)
    and the deterministic margin `E` (Theorem 5.6).

    `tau`, `epsilon`, `delta` are exact: ints, Fractions or strings such as `"0.05"` (floats are
    refused). `seed` makes a run reproducible and must not be used for a release (the default
    draws from the operating system's CSPRNG). `progress(message)` hears about long phases.
    `calibration` replaces Theorem 5.5's by another accountant's for the same `(h, eps, delta)`
    (see `plan`).
    """
    start = time.perf_counter()
    say: Progress = progress if progress is not None else (lambda _msg: None)
    seed = check_seed(seed)
    t, cal, params, implementation = plan(tree, tau, epsilon, delta, calibration)
    test = ExactSampler(seed)
    say(f"running the {implementation} implementation on a tree of height {t.height}")
    if implementation == SPARSE:
        records = list(leaves)
        heavy = sparse_between_cut(t, records, params, test).heavy  # checks every record
    else:
        records = check_leaves(t, leaves)
        heavy = _Reporting(t, params, say).run(records, test).heavy
    diagnostics = Diagnostics(len(records), test.draws, time.perf_counter() - start)
    return Classification(t, heavy, cal, params, implementation, test.seeded, diagnostics,
                          cal.accountant)
