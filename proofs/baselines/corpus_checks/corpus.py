"""Exact verdicts on the sparse-vector corpus and report-noisy-max (issue 16).

Each `CorpusRow` names a mechanism of `betweencut.baselines.svt_corpus`, its claimed `ε`, and the
verdict the literature proves: `private` (ε-DP), `private at` a larger `ε'` (Lee and Clifton's
SVT: `((1 + 6c)/4)·ε`, Lyu, Su and Li 2017, Theorem 6) or `private at no ε`. `audit_row` decides,
by exact enumeration of the real code (`betweencut.proofs.privacy.enumeration.shared_noise`), the
pure
`(ε, 0)` claim on every neighbouring pair `(D, D + z)` with `|D| <= size` and `z ∈ {0, 1, 2}^m`
(record `z` moves query `i` by `z_i - 1`; `moves` in the reports shows `z - 1`):

* holds: the largest loss found, decided exactly (the pair, the output, `P` and `Q`);
* refuted: the pair, the violating event `S` and the exact `P(S)`, `Q(S)`;
* for a row private at no ε: an output with `Q = 0 < P` exactly, or (Alg. 6) a family of pairs
  with `m = 2t` queries whose exact loss `ln(P/Q)` increases with `t`, is at least `4t/5` and passes
  the claim (the unbounded growth itself is the literature's theorem; we check its first terms);
* for a row private at a larger `ε'`: the `(ε', 0)` claim holds on the same pairs.

A holding claim is a statement about the pairs audited, not a proof for every input.

The Gaussian rows (`noise = GAUSSIAN`: Gaussian SVT, Gaussian report-noisy-max) state
`(ε, δ)` claims and are decided with certified enclosures by
`betweencut.proofs.baselines.corpus_checks.gaussian_corpus` (see there for what is exact and what
certified).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable
from dataclasses import replace
from fractions import Fraction
from typing import Any

from betweencut.baselines import svt_corpus as sc
from betweencut.boundary.encoding import release_of
from betweencut.data.notation import database_text, record_text, replacement_text
from betweencut.data.tree import Node
from betweencut.data.validate import positive_rational
from betweencut.errors import MechanismError, ParameterError
from betweencut.noise.noisy_queries import GAUSSIAN, LAPLACE
from betweencut.proofs.baselines.corpus_checks import corpus_rows, corpus_scale
from betweencut.proofs.baselines.corpus_checks.corpus_rows import (
    EPS,
    NOWHERE,
    PRIVATE,
    PRIVATE_AT,
    UNKNOWN,
    CorpusRow,
    RowResult,
    Run,
    moves,
    moves_of,
    pairs_scope,
)
from betweencut.proofs.baselines.corpus_checks.corpus_scale import (
    infinite_witness,
    largest_loss,
    loss_enclosure,
    loss_facts,
)
from betweencut.proofs.exact.arith import ExpPoly, exact_str, sign
from betweencut.proofs.exact.certificate import Certificate, ClaimRefuted
from betweencut.proofs.privacy.audit.pairs import (
    ClaimPoint,
    display,
)
from betweencut.proofs.privacy.enumeration.cache import Database, Neighbour
from betweencut.proofs.privacy.enumeration.every_input import ReductionRefused
from betweencut.proofs.privacy.enumeration.shared_noise import (
    QueryLawCache,
)
from betweencut.proofs.registry import claim, register_audit
from betweencut.proofs.verdict import Relation, Release

__all__ = ["CORPUS", "METHODS", "CorpusRow", "RowResult", "audit_corpus", "audit_row",
           "check_corpus_verdicts", "decide", "infinite_witness", "largest_loss", "loss_facts"]

CLAIM = "SVT corpus and report-noisy-max verdicts"
def _zeros(m: int) -> tuple[Fraction, ...]:
    return (Fraction(0),) * m


def _alg(fn: Callable[..., Hashable], c: int | None) -> Callable[[int], Run]:
    def make(m: int) -> Run:
        t = _zeros(m)
        if c is None:
            return lambda q, test: fn(q, t, EPS, test)
        return lambda q, test: fn(q, t, c, EPS, test)
    return make


def _nm(fn: Callable[..., Hashable]) -> Callable[[int], Run]:
    return lambda m: (lambda q, test: fn(q, EPS, test))


SIGMA_RHO, SIGMA_NU, SIGMA_MAX = Fraction(1, 2), Fraction(1), Fraction(3, 2)


def _gsvt(m: int) -> Run:
    t = _zeros(m)
    return lambda q, test: sc.gaussian_svt(q, t, SIGMA_RHO, SIGMA_NU, test)


def _gsvt_no_query_noise(m: int) -> Run:
    t = _zeros(m)
    return lambda q, test: sc.gaussian_svt_no_query_noise(q, t, SIGMA_RHO, test)


def _gnm(m: int) -> Run:
    return lambda q, test: sc.gaussian_noisy_max(q, SIGMA_MAX, test)


def _zhu_wang(m: int) -> tuple[ClaimPoint, ...]:
    from betweencut.proofs.baselines.corpus_checks.gaussian_corpus import zhu_wang_delta

    return tuple((e, zhu_wang_delta(e, SIGMA_RHO, SIGMA_NU, m)) for e in (Fraction(12),
                                                                          Fraction(14)))


def _bw(points: tuple[tuple[str, str], ...]) -> tuple[ClaimPoint, ...]:
    return tuple((Fraction(e), Fraction(d)) for e, d in points)


# Balle-Wang Theorem 8 at sigma = 3/2, rounded up to 5 significant digits (checked by a test):
# l2 sensitivity sqrt(2) (m = 2 answers that each move by 1), and 1 (the per-query one).
BW_SQRT2 = (("0", "0.36265"), ("1/2", "0.21562"), ("2", "0.014302"))
BW_UNIT = (("0", "0.26112"), ("1/2", "0.10875"), ("2", "0.00066003"))


CORPUS: tuple[CorpusRow, ...] = (
    CorpusRow("svt-alg1", "Lyu et al. Alg. 1 (c = 2)", _alg(sc.svt_alg1, 2), 3, PRIVATE,
              "Lyu, Su, Li 2017, Theorem 2"),
    CorpusRow("svt-alg2", "Dwork-Roth 2014 SVT (Lyu Alg. 2, c = 2)", _alg(sc.svt_alg2, 2), 3,
              PRIVATE, "Dwork, Roth 2014, Theorem 3.25; Lyu et al. Section 3"),
    CorpusRow("svt-alg4", "Lee-Clifton 2014 SVT (Lyu Alg. 4, c = 1)", _alg(sc.svt_alg4, 1), 2,
              PRIVATE_AT, "Lyu, Su, Li 2017, Section 4 ((1+6c)/4 eps-DP)",
              eps_private=Fraction(7, 4)),
    CorpusRow("svt-alg5", "Stoddard et al. 2014 SVT, no query noise (Lyu Alg. 5)",
              _alg(sc.svt_alg5, None), 2, NOWHERE, "Lyu, Su, Li 2017, Section 4 (inf-DP)"),
    CorpusRow("svt-alg6", "Chen et al. 2015 SVT, no cutoff (Lyu Alg. 6)",
              _alg(sc.svt_alg6, None), 3, NOWHERE, "Lyu, Su, Li 2017, Section 4 (inf-DP)",
              family=(1, 2, 3)),
    CorpusRow("noisy-max", "report-noisy-max, Lap(2/eps)", _nm(sc.noisy_max), 3, PRIVATE,
              "Dwork, Roth 2014, Section 3.3"),
    CorpusRow("noisy-max-small-scale", "report-noisy-max, Lap(1/(2 eps)) (scale too small)",
              _nm(sc.noisy_max_small_scale), 3, PRIVATE_AT,
              "scale 2/eps' gives eps'-DP (Dwork, Roth 2014): eps' = 4 eps",
              eps_private=Fraction(4)),
    CorpusRow("noisy-max-shared-noise", "report-noisy-max, one noise draw for every entry",
              _nm(sc.noisy_max_shared_noise), 2, NOWHERE,
              "a deterministic argmax of the answers (no noise survives)"),
    CorpusRow("gaussian-svt", "Zhu-Wang Gaussian SVT (c = 1, sigma_rho = 1/2, sigma_nu = 1)",
              _gsvt, 3, PRIVATE, "Zhu, Wang 2020, Theorem 8 (RDP); Mironov 2017, Prop. 3",
              eps=Fraction(12), noise=GAUSSIAN, claim=_zhu_wang(3)),
    CorpusRow("gaussian-svt-no-query-noise", "Gaussian SVT without query noise, no cutoff",
              _gsvt_no_query_noise, 3, NOWHERE,
              "Lyu, Su, Li 2017, Section 4 (Alg. 5's bug: an event with Q = 0 < P)",
              eps=Fraction(12), noise=GAUSSIAN, claim=_zhu_wang(3)),
    CorpusRow("gaussian-noisy-max", "report-noisy-max, N(0, (3/2)^2), m = 2", _gnm, 2, PRIVATE,
              "Balle, Wang 2018, Theorem 8 with l2 sensitivity sqrt(m), post-processing",
              eps=Fraction(0), noise=GAUSSIAN, claim=_bw(BW_SQRT2)),
    CorpusRow("gaussian-noisy-max-unit-sensitivity",
              "report-noisy-max, N(0, (3/2)^2), claimed at sensitivity 1", _gnm, 2, PRIVATE_AT,
              "Balle, Wang 2018, Theorem 8: only l2 sensitivity sqrt(m) is covered",
              eps=Fraction(0), noise=GAUSSIAN, claim=_bw(BW_UNIT), claim_private=_bw(BW_SQRT2)),
)


METHODS = ("auto", "listing", "reduction")


def _check_size_method(size: int, method: str) -> None:
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise ParameterError("size", size, "a database size >= 0")
    if method not in METHODS:
        raise ParameterError("method", method, ", ".join(METHODS))


def audit_row(row: CorpusRow, size: int = 0, *, neighbours: object = None,
              method: str = "auto", progress: Callable[[str], None] | None = None,
              first: bool = False) -> RowResult:
    """Decide `row`'s claim exactly on every pair of databases of at most `size + 1` records
    under the relation `neighbours` (default add/remove; see `corpus_rows`); a Gaussian row with
    certified enclosures (`gaussian_corpus.audit_gaussian_row`).

    `method`: "listing" enumerates every pair (refused past `MAX_LISTED` pairs); "reduction"
    decides every pair at once by the monotone-vertex reduction
    (`betweencut.proofs.privacy.enumeration.every_input`: pure claims, oblivious Laplace
    mechanisms, the pairs of the empty database or of one record); "auto" lists up to
    `AUTO_LISTED` pairs (the listing at m = 6) and reduces past that, listing when the reduction
    refuses and the listing is affordable. `progress` receives public cost estimates and
    progress lines (pair counts, answer sequences: no data). `first`: a listed row stops at
    its first refuting pair (default: every pair, the worst reported; issue 35, item 4).
    """
    _check_size_method(size, method)
    relation = Relation.of(neighbours)
    row = row.stated(relation)
    relation = row.relation or relation
    if row.literature == UNKNOWN and row.noise == LAPLACE and not row.claim and (
            row.run_db is None):
        from betweencut.boundary.isolation import in_child, user_code
        from betweencut.proofs.privacy.enumeration.gaussian_noise import asks_gaussian

        zeros = _zeros(row.m)
        user_run = row.make(row.m)
        user = user_code(user_run)

        def asks() -> bool:
            return asks_gaussian(lambda test: user_run(zeros, test))

        try:  # the user's code: one run, in a child
            gaussian = asks() if user is None else in_child(
                lambda: b"1" if asks() else b"0", user.name, "on the zero answers") == b"1"
        except MechanismError:  # the audit runs it again and names the pair it fails on
            gaussian = False
        if gaussian:  # a user's Gaussian mechanism
            row = replace(row, noise=GAUSSIAN, claim=((row.eps, Fraction(0)),))
    count = corpus_rows.pair_count(row, size, relation)
    if row.noise == GAUSSIAN:
        corpus_scale.check_listing(row, size, count, "the Gaussian rows are certified pair by pair")
        from betweencut.proofs.baselines.corpus_checks.gaussian_corpus import audit_gaussian_row

        return audit_gaussian_row(row, size, relation, first)
    evidence = corpus_scale.evidence(row, size, relation, count, method, progress, first)
    try:
        return decide(row, evidence)
    except ReductionRefused as exc:  # a reported pair the real code does not confirm
        if method == "reduction":
            raise
        corpus_scale.check_listing(row, size, count, exc.reason)
        return decide(row, corpus_scale.Listing(row, corpus_rows.pairs_for(row, size, relation),
                                                first=first))


def decide(row: CorpusRow, evidence: Any) -> RowResult:
    """The row's verdict and the evidence its literature verdict predicts (module docstring),
    from `evidence` (`corpus_scale.Listing` or `corpus_scale.Reduced`: the same questions)."""
    point = evidence.check(row.eps)
    detail: dict[str, Any] = dict(evidence.detail)
    if point.holds:
        detail["largest_loss"] = evidence.largest_loss()
        return RowResult(row, True, "holds on every pair audited",
                         row.literature in (PRIVATE, UNKNOWN), evidence.pairs, detail, point)
    pair = point.neighbour
    queries = row.run_db is None  # a tree row's records are not moves of query answers
    refutation = point.refutation(f"({row.eps}, 0)-DP",
                                  f"the pair moves the queries by {moves_of(pair)}"
                                  if queries else "")
    if queries:
        detail["moves"] = moves_of(pair)
    detail.update(_largest_epsilon(evidence))
    agrees = False
    found = "refuted"
    if row.literature == PRIVATE_AT and row.eps_private is not None:
        larger = evidence.check(row.eps_private).holds
        detail["holds_at_eps_private"] = larger
        agrees = larger
        found = f"refuted; holds at eps' = {row.eps_private} on every pair audited" \
            if larger else f"refuted; also refuted at eps' = {row.eps_private}"
    elif row.literature in (NOWHERE, UNKNOWN):
        witness = evidence.infinite(row.eps, pair)
        if witness is not None:
            refutation = witness
            agrees = row.literature == NOWHERE
            found = "refuted; private at no eps (an event with Q = 0 < P)"
        elif row.family:
            growth = _family_growth(row)
            detail["loss_family"] = growth
            agrees = growth["increasing"] and growth["exceeds_claim"] and growth["linear"]
            found = "refuted; loss grows with the number of queries" if agrees else \
                "refuted; the loss family does not grow"
    return RowResult(row, False, found, agrees, evidence.pairs, detail, point, refutation,
                     getattr(evidence, "first", False))


def _largest_epsilon(evidence: Any) -> dict[str, Any]:
    """A refuted row's worst `ε` at `δ = 0` (issue 35, item 4): the largest over every pair
    audited, each pair's exact curve (`evidence.largest_epsilon`), with its pair:
    `epsilon_at_delta_0` its enclosure `[lo, hi]` (null: no finite `ε`, an output with
    `Q = 0 < P`), `epsilon_at_delta_0_exact` its exact value (`inf`) and
    `epsilon_at_delta_0_pair`."""
    found = evidence.largest_epsilon(Fraction(0))  # with `first`: the refuting pair's
    if found is None:
        return {}
    eps = found.epsilon
    pair = found.pair if found.pair is not None else Neighbour.add(found.db, found.z)
    where = {"D": database_text(pair.first), "z": record_text(pair.z)}
    if pair.replaced is not None:
        where.update(z=replacement_text(*pair.replaced), D_prime=database_text(pair.second))
    if eps is None:
        return {"epsilon_at_delta_0": None, "epsilon_at_delta_0_exact": "inf",
                "epsilon_at_delta_0_pair": where}
    lo, hi = eps.enclose(24)
    return {"epsilon_at_delta_0": [str(lo), str(hi)], "epsilon_at_delta_0_exact": eps.exact_str(),
            "epsilon_at_delta_0_approx": eps.display(), "epsilon_at_delta_0_pair": where}


FAMILY_SLOPE = Fraction(4, 5)


def family_pair(t: int) -> tuple[Database, Node, Hashable]:
    """Alg. 6's family, `m = 2t` queries (after Lyu et al.'s counterexample): `q(D) = 0^m`,
    moves `(-1)^t (+1)^t` (record `z = 0^t 2^t`), event `⊤^t ⊥^t`: the two halves pull the
    shared `ρ` apart."""
    z = (*(0,) * t, *(2,) * t)
    return (), z, (*(True,) * t, *(False,) * t)


def _family_growth(row: CorpusRow) -> dict[str, Any]:
    """Exact `P = P_D(S)`, `Q = P_(D+z)(S)` on the family; decided exactly: `ln(P/Q)` increases
    with `t` (`P_t·Q_(t+1) < P_(t+1)·Q_t`), passes the claimed `ε` at the last member, and is
    at least `FAMILY_SLOPE·t` on every member (`P > e^(t·slope)·Q`): linear growth on the
    members checked (its growth without bound is the literature's theorem)."""
    values: list[tuple[int, ExpPoly, ExpPoly]] = []
    for t in row.family:
        db, z, event = family_pair(t)
        joint = QueryLawCache(row.mechanism(2 * t)).make_joint(db, z, Release.OUTPUT)
        key = release_of(event)  # the laws key outputs by their release
        values.append((t, joint.p.get(key, ExpPoly()), joint.q.get(key, ExpPoly())))
    increasing = all(sign(p1 * q2 - p2 * q1) < 0 for (_, p1, q1), (_, p2, q2)
                     in itertools.pairwise(values))
    _, p_last, q_last = values[-1]
    exceeds = sign(p_last - q_last * ExpPoly.exp(row.eps)) > 0
    linear = all(sign(p - q * ExpPoly.exp(t * FAMILY_SLOPE)) > 0 for t, p, q in values)
    return {"increasing": increasing, "exceeds_claim": exceeds,
            "loss_at_least": f"{FAMILY_SLOPE}*t" if linear else "not shown", "members": [
                {"t": t, "m": 2 * t, "moves": moves(family_pair(t)[1]),
                 "output": repr(family_pair(t)[2]),
                 "P": exact_str(p), "Q": exact_str(q),  # P under D, Q under D + z
                 "loss_approx": [round(x, 6) for x in loss_enclosure(p, q)]}
                for t, p, q in values], "linear": linear}


def user_row(spec: str, run: Run, m: int, eps: Fraction) -> CorpusRow:
    """A row for a user's mechanism `run(q, test)` on `m` query answers, claimed `eps`."""
    if isinstance(m, bool) or not isinstance(m, int) or not 1 <= m <= MAX_QUERIES:
        raise ParameterError("queries", m, f"an integer 1 <= m <= {MAX_QUERIES}")
    claimed = positive_rational(eps, "epsilon", text=True)
    return CorpusRow(spec, "user mechanism", lambda _m: run, m, UNKNOWN, "user", claimed)


MAX_QUERIES = 256


def at_queries(row: CorpusRow, m: int | None) -> CorpusRow:
    """`row` with `m` queries (`None`: its own m); a row whose claim is stated at its own m
    (the Gaussian rows, the tree rows) keeps it."""
    if m is None or not row.scalable or row.noise == GAUSSIAN:  # claims computed at their m
        return row
    if isinstance(m, bool) or not isinstance(m, int) or not 1 <= m <= MAX_QUERIES:
        raise ParameterError("queries", m, f"an integer 1 <= m <= {MAX_QUERIES}")
    return replace(row, m=m)


def corpus_rows_all() -> tuple[CorpusRow, ...]:
    """The sparse-vector rows and the tree rows (`tree_corpus`: heavy hitters, BinAgg)."""
    from betweencut.proofs.baselines.corpus_checks.tree_corpus import TREE_ROWS

    return CORPUS + TREE_ROWS


def audit_corpus(size: int = 0, names: tuple[str, ...] = (), *, queries: int | None = None,
                 neighbours: object = None, method: str = "auto",
                 progress: Callable[[str], None] | None = None, first: bool = False
                 ) -> list[RowResult]:
    """Every row (or those named), audited exactly on the pairs of databases of at most
    `size + 1` records under `neighbours`; `queries` sets m for the rows that scale."""
    rows = corpus_rows_all()
    known = {row.name for row in rows}
    unknown = set(names) - known
    if unknown:
        raise ParameterError("name", sorted(unknown)[0], f"one of {sorted(known)}")
    relation = Relation.of(neighbours)
    chosen = [at_queries(row, queries) for row in rows if not names or row.name in names]
    _check_size_method(size, method)
    for row in chosen:  # a row that cannot be decided is refused before the others run
        stated = row.stated(relation)
        under = stated.relation or relation
        corpus_scale.precheck(stated, size, under, corpus_rows.pair_count(stated, size, under),
                              method)
    return [audit_row(row, size, neighbours=relation, method=method, progress=progress,
                      first=first) for row in chosen]


@claim(CLAIM, "Lyu, Su, Li 2017, Fig. 1 and Table 1")
def check_corpus_verdicts(rows: tuple[CorpusRow, ...] = CORPUS, size: int = 0
                          ) -> list[Certificate]:
    """Claim: the literature's verdicts on the SVT corpus (Lyu, Su, Li 2017: Alg. 1, 2 are
    ε-DP, Alg. 4 is ((1+6c)/4)·ε-DP but not ε-DP, Alg. 5 and 6 are private at no ε) and on
    report-noisy-max (Lap(2/ε) is ε-DP; a smaller scale or one shared draw is not).

    Preconditions: each row's mechanism is written against `betweencut.noise.noisy_queries`.
    Checks: each row's claimed `(ε, 0)` on every pair `(D, D + z)`, `|D| <= size`,
    `z ∈ {0, 1, 2}^m` (moves `z - 1`), by exact enumeration of the real code; a refuted row
    must carry the evidence its literature verdict predicts (holds at `ε'`; `Q = 0 < P`; a
    growing loss).
    Returns: one `Certificate` per row (`verdict` holds: exact verdict = literature's), stating
    the row's claim (`eps`, `delta = 0`, the literature's verdict and every `(ε, δ)` point
    decided: the claimed one, and `ε'` for a row private at a larger `ε'`).
    Raises: `ClaimRefuted` naming the first row whose exact verdict disagrees.
    """
    out = []
    for row in rows:
        result = audit_row(row, size)
        if not result.agrees:
            raise ClaimRefuted(CLAIM, f"{row.name}: exact verdict '{result.verdict}' against "
                               f"the literature's '{row.literature}'", result.as_json())
        claimed = [{"eps": row.eps, "delta": Fraction(0)}]
        if row.literature == PRIVATE_AT and row.eps_private is not None:
            claimed.append({"eps": row.eps_private, "delta": Fraction(0)})
        out.append(Certificate(CLAIM, {"row": row.name, "eps": row.eps, "delta": Fraction(0),
                                       "m": row.m, "literature": row.literature,
                                       "claimed": claimed},
                               "enumerated", {"verdict": result.verdict},
                               scope=pairs_scope(size, row.m)))
    return out


@register_audit("corpus", CLAIM)
def audit_corpus_default() -> list[Certificate]:
    return check_corpus_verdicts()


def approx(x: ExpPoly) -> float:
    """A float near `x`, for display only."""
    return display(x)
