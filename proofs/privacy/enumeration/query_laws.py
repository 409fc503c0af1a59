"""The answer law of one count query, observed by running the code the mechanism runs.

The shared outcome tree (`betweencut.proofs.privacy.enumeration.outcome_tree`) weighs an answer
sequence of one database with the answer laws of another. That is sound only if, at every node, the
call the mechanism makes, `count_query(c, test, u)` (for Alg. 3, `GuardedBT.__call__`, Alg. 1),
behaves
like one of two things, for the count `c` alone:

* it *decides*: returns one outcome without asking the noisy test (a guard, Alg. 1, l. 1-4), the
  same outcome whatever the test would answer; the law is a point mass; or
* it *asks once*: asks the noisy test exactly one query, at node `u`, the same query whatever the
  answer, and returns the test's answer unchanged; the law is the exact law of that query
  (Alg. 4), one factor id per outcome of non-zero probability.

`observed_law` finds out which, by running the real `__call__` with a scripted test that answers
`L`, `B` and `H` in turn and records every query; anything else (two queries, a changed answer,
a query at another node, an exception, a law that depends on the node) is reported as `None`,
and the caller then enumerates the mechanism directly. `guard()` and `query()` are never
consulted: they are documentation of what the call should do, not of what it does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from betweencut.noise.noisy_test import BTQuery, NoisyTest, Outcome
from betweencut.proofs.laws.bt_laws import OUTCOMES
from betweencut.proofs.laws.factors import query_factor_ids

__all__ = ["CountCall", "ScriptedTest", "observed_law", "observed_law_everywhere"]

CountCall = Callable[[int, NoisyTest, object], object]  # count_query(count, test, node)
ObservedLaw = dict[Outcome, int | None]  # factor id per outcome, None: probability 1


class ScriptedTest:
    """A `NoisyTest` that answers every query with `answer` and keeps the queries asked."""

    def __init__(self, answer: Outcome) -> None:
        self.answer = answer
        self.queries: list[BTQuery] = []

    def __call__(self, query: BTQuery) -> Outcome:
        self.queries.append(query)
        return self.answer


def observed_law(call: CountCall, count: int, node: object) -> ObservedLaw | None:
    """The law of `call(count, test, node)` as the shared tree weighs it, or None.

    Checks: the call is run three times, with a test answering `L`, `B`, `H`; it either asks no
    query and returns the same `Outcome` each time (point mass `{outcome: None}`), or asks the
    same single query, at `node`, each time and returns the test's answer for every outcome of
    non-zero probability (the query's exact law, as factor ids). Returns: that law, or None for
    any other behaviour (the caller must then enumerate directly).
    """
    seen: list[tuple[Outcome, tuple[BTQuery, ...], object]] = []
    for answer in OUTCOMES:
        test = ScriptedTest(answer)
        try:
            out = call(count, test, node)
        except Exception:  # any failure: not a shortcut we can vouch for
            return None
        seen.append((answer, tuple(test.queries), out))
    asked = {queries for _, queries, _ in seen}
    if len(asked) != 1:
        return None
    (queries,) = asked
    if not queries:
        outs = {out for _, _, out in seen}
        if len(outs) != 1:
            return None
        (decided,) = outs
        return {decided: None} if isinstance(decided, Outcome) else None
    if len(queries) != 1 or queries[0].node != node:
        return None
    law: ObservedLaw = dict(query_factor_ids(queries[0]))
    for answer, _, out in seen:
        if answer in law and not (isinstance(out, Outcome) and out is answer):
            return None
    return law


def observed_law_everywhere(
    call: CountCall, count: int, nodes: Iterable[object]
) -> ObservedLaw | None:
    """`observed_law` at every node of `nodes`, or None unless it is the same law at all of
    them (the shared tree weighs a count with one law, wherever it occurs)."""
    found: Mapping[Outcome, int | None] | None = None
    for node in nodes:
        law = observed_law(call, count, node)
        if law is None or (found is not None and law != found):
            return None
        found = law
    return dict(found) if found is not None else None
