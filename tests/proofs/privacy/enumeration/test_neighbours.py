"""Issue 27, item 3: the neighbour relation is a parameter of every audit that takes pairs
(add/remove, the default; replace-one; add/remove with a public bound on n), stated in every
output; and item 5: the heavy-hitter and BinAgg rows with their exact verdicts."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from betweencut import audit_corpus, audit_mechanism
from betweencut.baselines.hhh import hhh_threshold
from betweencut.errors import ParameterError
from betweencut.noise.noisy_queries import AboveThreshold, DrawNoise, ExactQuerySampler
from betweencut.proofs.baselines.corpus_checks.corpus import NOWHERE, PRIVATE, audit_row
from betweencut.proofs.baselines.corpus_checks.tree_corpus import HHH_TREE, TREE_ROWS
from betweencut.proofs.privacy.enumeration.cache import Neighbour, replace_pairs
from betweencut.proofs.verdict import Neighbours, Relation
from betweencut.schemas import schema

EXAMPLES = Path(__file__).resolve().parents[4] / "examples"
TREE = {row.name: row for row in TREE_ROWS}


def test_a_relation_is_read_from_text_and_refused_otherwise() -> None:
    assert Relation.of(None) == Relation() == Relation.of("add-remove")
    assert Relation.of("replace-one").is_replace
    bounded = Relation.of("add-remove-bounded:5")
    assert (bounded.kind, bounded.bound, bounded.largest(9)) == (
        Neighbours.ADD_REMOVE_BOUNDED, 5, 4)
    for bad in ("swap", "add-remove-bounded", "add-remove-bounded:x", "replace-one:3",
                "add-remove-bounded:0", 3):
        with pytest.raises(ParameterError, match="neighbours"):
            Relation.of(bad)


def test_replace_one_pairs_are_two_databases_differing_in_one_record() -> None:
    pair = Neighbour.between(((0,), (1,)), ((1,), (2,)))
    assert pair.replaced == ((0,), (2,)) and pair.second == ((1,), (2,))
    with pytest.raises(ParameterError):
        Neighbour.between(((0,),), ((0,), (1,)))  # an added record: not replace-one
    with pytest.raises(ParameterError):
        Neighbour.between(((0,), (1,)), ((2,), (3,)))  # two replaced
    pairs = list(replace_pairs([(0,), (1,), (2,)], 2))
    assert len(pairs) == 3 + 3 * 3 and all(len(p.first) == len(p.second) for p in pairs)


def _svt(db: Any, test: Any) -> tuple[bool, ...]:
    rho = test(DrawNoise(Fraction(2)))
    counts = [sum(1 for r in db if r == leaf) for leaf in ((0, 0), (0, 1))]
    return tuple(test(AboveThreshold(Fraction(c), Fraction(1), Fraction(0), rho))
                 for c in counts)


def test_audit_mechanism_states_and_uses_its_relation() -> None:
    added = audit_mechanism(_svt, exhaustive=0, height=3, epsilon=1, delta=0)
    assert added.claim.neighbours is Neighbours.ADD_REMOVE
    replaced = audit_mechanism(_svt, exhaustive=0, height=3, epsilon=1, delta=0,
                               neighbours="replace-one")
    out = replaced.as_json()
    jsonschema.validate(out, schema("verdict"))
    assert out["claim"]["neighbours"] == "replace-one"
    ref = out["refutation"]  # no query noise: an answer sequence impossible on one side
    assert not replaced.holds and ref["D_prime"] and "->" in ref["z"]
    assert ref["direction"] in ("D||D'", "D'||D") and ref["Q"] == "0"
    given = audit_mechanism(_svt, [("{0/0}", "{0/1}")], height=3, epsilon=1, delta=0,
                            neighbours="replace-one")
    assert given.rows[0].D_prime == "{0/1}" and given.pairs == 1
    with pytest.raises(ParameterError):
        audit_mechanism(_svt, [("{0/0}", "{0/1, 1/0}")], height=3, epsilon=1, delta=0,
                        neighbours="replace-one")
    with pytest.raises(ParameterError, match="search"):
        audit_mechanism(_svt, search=3, height=3, epsilon=1, delta=0, neighbours="replace-one")
    bounded = audit_mechanism(_svt, exhaustive=2, height=3, epsilon=1, delta=0,
                              neighbours="add-remove-bounded:1")
    assert bounded.pairs <= 4 and bounded.as_json()["claim"]["neighbours_bound"] == 1
    with pytest.raises(ParameterError, match="at most 1"):
        audit_mechanism(_svt, [("{0/0}", "0/1")], height=3, epsilon=1, delta=0,
                        neighbours="add-remove-bounded:1")


def test_the_privtree_audit_takes_the_relation() -> None:
    sys.path.insert(0, str(EXAMPLES))
    try:
        verdict = audit_mechanism("my_privtree:privtree_closed", [("4*2", "4,5")], epsilon=1,
                                  delta=0, neighbours="replace-one")
    finally:
        sys.path.remove(str(EXAMPLES))
    out = verdict.as_json()
    jsonschema.validate(out, schema("verdict"))
    assert out["claim"]["neighbours"] == "replace-one" and out["rows"][0]["D_prime"] == "{4, 5}"
    assert out["epsilon_at_delta_pair"]["D_prime"] == "{4, 5}"
    assert "on D = {4*2}, D' = {4, 5} (4->5)" in verdict.text()


def test_hhh_with_one_shared_gamma_is_refuted_and_fresh_gammas_hold() -> None:
    """The PODS 2025 threshold as its erratum describes it, on the binary tree of height 3."""
    shared = audit_row(TREE["hhh-shared-gamma"])
    assert not shared.holds and shared.agrees and shared.refutation is not None
    assert shared.refutation.Q == 0 and shared.refutation.event == ("{0/0}",)
    fresh = audit_row(TREE["hhh-fresh-gamma"])
    assert fresh.holds and fresh.agrees
    under_replace = audit_row(TREE["hhh-fresh-gamma"], neighbours="replace-one")
    assert not under_replace.holds and under_replace.agrees  # 2 eps: two paths change
    assert under_replace.detail["holds_at_eps_private"] is True
    wrong = replace(TREE["hhh-fresh-gamma"], literature=NOWHERE)
    assert not audit_row(wrong).agrees  # a wrong literature verdict is rejected
    heavy = hhh_threshold(HHH_TREE, [(0, 0)] * 6, 1, 1, ExactQuerySampler(seed=3), shared=False)
    assert all(len(node) <= 2 for node in heavy)
    with pytest.raises(ParameterError):
        hhh_threshold(HHH_TREE, [(0, 0, 0)], 1, 1, ExactQuerySampler(seed=3), shared=True)


def test_binagg_privtree_holds_under_replace_one_and_not_under_add_remove() -> None:
    added = audit_row(TREE["binagg-privtree-add-remove"], neighbours="replace-one")
    assert added.row.relation == Relation()  # a row stated under one relation keeps it
    assert not added.holds and added.agrees and added.refutation is not None
    assert added.refutation.Q == 0 and "total=0" in added.refutation.event[0]
    replaced = audit_row(TREE["binagg-privtree-replace-one"])
    assert replaced.holds and replaced.agrees and replaced.row.literature == PRIVATE
    assert replaced.as_json()["claim"]["neighbours"] == "replace-one"


def _cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "betweencut", *argv], capture_output=True,
                          text=True, check=False, cwd=EXAMPLES, timeout=900)


def test_audit_corpus_under_replace_one_states_it_everywhere() -> None:
    done = _cli("audit", "corpus", "--neighbours", "replace-one", "--json", "--name",
                "svt-alg1", "--name", "hhh-shared-gamma", "--name", "binagg-privtree-add-remove")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    jsonschema.validate(out, schema("corpus"))
    assert out["neighbours"] == "replace-one"
    assert [r["claim"]["neighbours"] for r in out["rows"]] == [
        "replace-one", "replace-one", "add-remove"]
    bad = _cli("audit", "corpus", "--neighbours", "swap")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1


def test_every_corpus_row_is_in_the_default_json() -> None:
    verdict = audit_corpus(names=[row.name for row in TREE_ROWS])
    out = verdict.as_json()
    jsonschema.validate(out, schema("corpus"))
    rows = {r["name"]: r for r in out["rows"]}
    assert rows["hhh-shared-gamma"]["refutation"]["Q"] == "0"
    assert rows["hhh-fresh-gamma"]["holds"] is True
    assert {rows[n]["claim"]["neighbours"] for n in (
        "binagg-privtree-add-remove", "binagg-privtree-replace-one")} == {
        "add-remove", "replace-one"}
    assert verdict.holds  # every row agrees with its literature verdict
    # m is the most noisy tests: 7 nodes of the HHH tree, 7 splittable cells of [0, 8); the
    # records are leaves or points, not moves of query answers
    assert {r["queries"] for r in rows.values()} == {7}
    assert all("moves" not in r and "moves" not in r.get("largest_loss", {})
               and "moves" not in (r["refutation"] or {}).get("note", "") for r in rows.values())
