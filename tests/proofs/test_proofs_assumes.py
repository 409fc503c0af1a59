"""Every verdict states its trust (issue 34): `assumes` (`betweencut.proofs.assumes`), filled by
each entry point with the items that apply, shown in `text()`, `as_json()` and snapshot headers.

Each case checks what an entry point says against what it did: the package's own code or
yours (and then what is checked of it), the structure a fast path models and whether it was
kept, the arithmetic, the pairs. A wrong item (a user's mechanism stated as the package's own,
a shared tree stated where every pair was enumerated directly) fails it.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from example_modules import load_example

from betweencut.api import audit_depth, audit_mechanism
from betweencut.mechanism.betweencut import BetweenCut
from betweencut.noise.noisy_test import BTQuery, Outcome
from betweencut.proofs import assumes as a
from betweencut.proofs.assumes import Assumes, Item
from betweencut.proofs.verdict import Verdict


def flag(db: Any, test: Any) -> Outcome:
    return test(BTQuery(Fraction(len(db)), Fraction(1), Fraction(3), Fraction(1, 2)))  # type: ignore[no-any-return]


class RunOnInstance(BetweenCut):
    def __init__(self, tree: Any, params: Any) -> None:
        super().__init__(tree, params)
        plain = BetweenCut(tree, params)
        self.run = lambda leaves, test=None: plain.run(leaves, test)  # type: ignore[method-assign]


def _keys(verdict: Any) -> dict[str, Item]:
    items = verdict.assumes.items
    keys = [i.key for i in items]
    assert len(keys) == len(set(keys)), keys  # one item per kind of fact
    return {i.key: i for i in items}


def _shown(verdict: Verdict) -> None:
    """Text and JSON state every item, each once, in order."""
    text = verdict.text()
    assert "\n  assumes:\n" in text
    for item in verdict.assumes.items:
        assert f"    {item.line()}" in text.splitlines()
    assert verdict.as_json()["assumes"] == verdict.assumes.as_json()


def test_items_and_their_lines() -> None:
    item = Item("replay", "each run's output is a function of its answers", "replayed", True)
    assert item.line() == "checked: each run's output is a function of its answers"
    assert a.HIDDEN_STATE.line().startswith("checked: no state carried")
    assert a.HIDDEN_STATE_IN_PROCESS.line().startswith("assumed, not checked: no state carried")
    assert item.line(how=True).endswith("; how: replayed")
    assert item.as_json() == {"item": "replay", "what": item.what, "how": "replayed",
                              "status": "checked"}
    both = Assumes.of(a.code_items(False), a.OTHER_PAIRS)
    assert both.with_(a.pairs_given(3)).items[-1] == a.pairs_given(3)
    assert both.with_(a.OWN_CODE).items[0] is a.OWN_CODE and not Assumes()
    assert Assumes.common([both, Assumes.of(a.OWN_CODE, a.OTHER_PAIRS)]).items == (
        a.OTHER_PAIRS,)
    assert Assumes.of(a.OWN_CODE, a.OTHER_PAIRS).without(both).items == (a.OWN_CODE,)


def test_the_package_own_betweencut_through_the_shared_tree() -> None:
    verdict = audit_mechanism(BetweenCut, [("{}", "0/0")], height=3, tau=0, lam=1, R=4)
    keys = _keys(verdict)
    assert keys["code"] is a.OWN_CODE and "replay" not in keys and "hidden_state" not in keys
    assert keys["seams"] is a.SHARED_SEAMS and keys["arithmetic"] is a.ARITHMETIC_EXACT
    assert keys["pairs"] == a.pairs_given(1) and keys["other_pairs"] is a.OTHER_PAIRS
    _shown(verdict)


def test_your_function_states_what_is_checked_of_it_and_what_is_not() -> None:
    verdict = audit_mechanism(flag, exhaustive=1, height=3, epsilon=1, delta=0)
    keys = _keys(verdict)
    assert keys["code"] is a.USER_CODE and keys["replay"] is a.REPLAY
    assert keys["release_path"] == a.release_path(8, 15, 15)  # replayed in a fresh interpreter
    assert keys["release_path_unseen"] is a.RELEASE_PATH_UNSEEN and not keys[
        "release_path_unseen"].checked
    assert keys["hidden_state"] is a.HIDDEN_STATE and keys["hidden_state"].checked  # issue 34
    assert keys["outside_randomness"].checked  # issue 34: refused as drawn (the sandbox)
    assert not keys["deployed"].checked and keys["outputs"] is a.OUTPUTS and keys["outputs"].checked
    assert "seams" not in keys  # a function: enumerated directly, no structure modelled
    assert keys["pairs"].what.startswith("every (D, z) with |D| <= 1 on the public tree's")
    assert f"({verdict.pairs} pairs)" in keys["pairs"].what
    searched = audit_mechanism(flag, search=3, height=3, epsilon=1, delta=0)
    assert "found by a search (derandomised" in _keys(searched)["pairs"].what
    _shown(verdict)
    refuted = audit_mechanism(flag, exhaustive=1, height=3, epsilon=Fraction(1, 4), delta=0)
    assert _keys(refuted)["pairs"].what.endswith(f"({verdict.pairs} pairs)")  # all: the worst
    first = audit_mechanism(flag, exhaustive=1, height=3, epsilon=Fraction(1, 4), delta=0,
                            first=True)
    assert _keys(first)["pairs"].what.endswith(f"({verdict.pairs} pairs): {first.pairs} of "
                                               "them, up to the first refutation (first: the "
                                               "worst pair not sought)")


def test_a_builder_whose_run_is_not_modelled_says_it_was_enumerated_directly() -> None:
    verdict = audit_mechanism(RunOnInstance, [("{}", "0/0")], height=3, tau=0, lam=1, R=4)
    keys = _keys(verdict)
    assert keys["code"] is a.USER_CODE
    seams = keys["seams"]
    assert "run is set on the instance" in seams.how and "enumerated directly" in seams.how


def test_a_package_variant_is_own_code_a_user_subclass_is_not() -> None:
    from betweencut.proofs.privacy.claims.gallery import TopDownOrder

    own = audit_mechanism(TopDownOrder, [("{}", "0/0")], height=3, tau=0, lam=1, R=4)
    assert _keys(own)["code"] is a.OWN_CODE

    class Mine(TopDownOrder):
        pass

    mine = audit_mechanism(Mine, [("{}", "0/0")], height=3, tau=0, lam=1, R=4)
    assert _keys(mine)["code"] is a.USER_CODE


def test_depth_verdicts_state_the_path_grouping_and_its_premises() -> None:
    verdict = audit_depth(7, tau=4, lam=Fraction(1, 2), R=2, count=2)
    keys = _keys(verdict)
    assert keys["code"] is a.OWN_CODE and keys["seams"] is a.DEPTH_SEAMS
    assert keys["offpath"] is a.OFFPATH and keys["other_pairs"] is a.OTHER_PROFILES
    assert keys["pairs"] == a.profiles_audited(1, None)
    family = audit_depth(7, tau=4, lam=Fraction(1, 2), R=2, search=2)
    assert "a derandomised search that tried" in _keys(family)["pairs"].what

    class Mine(BetweenCut):
        pass

    mine = audit_depth(7, tau=4, lam=Fraction(1, 2), R=2, count=2, variant=Mine)
    assert [i.key for i in mine.assumes.items[:5]] == ["code", "deployed", "sealed",
                                                       "hidden_state", "outside_randomness"]
    assert _keys(mine)["code"] is a.USER_VARIANT
    _shown(verdict)


def test_privtree_verdicts() -> None:
    from betweencut.baselines.privtree import PrivTree, box_of

    own = audit_mechanism(PrivTree.of(box_of((0, 4)), 1), exhaustive=1, epsilon=1, delta=0)
    keys = _keys(own)
    assert keys["code"] is a.OWN_CODE and keys["seams"] is a.PRIVTREE_SEAMS
    assert "every database of at most 1 points" in keys["pairs"].what

    def odd(point: tuple[int, ...], box: Any) -> bool:
        return all(lo <= x < hi for x, (lo, hi) in zip(point, box, strict=True))

    mine = audit_mechanism(PrivTree.of(box_of((0, 4)), 1, member=odd), [("{}", "1")],
                           epsilon=1, delta=0)
    keys = _keys(mine)
    assert keys["code"] is a.USER_CODE_IN_PROCESS and keys["replay"] is a.PRIVTREE_NOT_REPLAYED


def test_corpus_rows_and_the_reduction_premise() -> None:
    from betweencut.api import audit_corpus
    from betweencut.noise.noisy_queries import AboveThreshold, DrawNoise

    rows = audit_corpus(0, ["svt-alg1"])
    (row,) = rows.rows
    assert _keys(row)["code"] is a.OWN_CODE

    def svt(q: Any, test: Any) -> tuple[bool, ...]:
        rho = test(DrawNoise(Fraction(2)))
        return tuple(test(AboveThreshold(v, Fraction(0), Fraction(4), rho)) for v in q)

    reduced = audit_corpus(0, mechanism=svt, queries=2, method="reduction")
    keys = _keys(reduced.rows[0])
    assert keys["code"] is a.USER_CODE and keys["premise"].what == a.REDUCTION_PREMISE
    assert not keys["premise"].checked
    assert "assumed, not checked: the mechanism reads its query answers" in reduced.text()
    listed = audit_corpus(0, mechanism=svt, queries=2, method="listing")
    assert "premise" not in _keys(listed.rows[0])


def test_the_registered_claims() -> None:
    from betweencut.api import audit

    verdict = audit("calibration")
    keys = _keys(verdict)
    assert keys["code"] is a.OWN_CODE and keys["pairs"] is a.CLAIMS_GRID
    assert ("sampled" in keys) == any("property" in r.method for r in verdict.rows)
    assert verdict.as_json()["assumes"] == verdict.assumes.as_json()
    lines = verdict.text().splitlines()
    assert lines[-len(verdict.assumes.items) - 2] == "assumes:"
    assert lines[-1].endswith("claims hold")  # the tally stays the last line
    from betweencut.api.claims import NOT_CHECKED, ClaimRow, ClaimsVerdict

    row = ClaimRow("gaussian", "a claim", NOT_CHECKED, "", 0, "", "needs fast", extra="fast")
    missing = _keys(ClaimsVerdict([row]))["not_checked"]
    assert not missing.checked and "pip install 'betweencut[fast]'" in missing.how


def test_snapshot_headers_state_the_items_and_read_back(tmp_path: Path) -> None:
    from betweencut.testing import check_snapshot, pair_curves
    from betweencut.testing.snapshot import read_snapshot

    curves = pair_curves(flag, [("{}", "0/0"), ("{0/0}", "0/1")], height=3)
    assert curves.assumes.items[-2] == a.pairs_given(2)
    path = tmp_path / "flag.txt"
    check_snapshot(path, curves)
    text = path.read_text(encoding="utf-8")
    for line in curves.assumes.lines(how=True):
        assert f"\nassumes: {line}\n" in text
    back = read_snapshot(text, "flag.txt")
    assert back.subject["assumes"] == curves.assumes.lines(how=True)


@pytest.mark.parametrize("item", [i for i in vars(a).values() if isinstance(i, Item)],
                         ids=lambda i: i.key)
def test_every_named_item_is_one_line_of_words(item: Item) -> None:
    assert item.key.isidentifier() and item.what and item.how
    assert "\n" not in item.what + item.how and "#" not in item.what + item.how


def test_renyi_claims_and_published_rows() -> None:
    from betweencut.proofs.baselines.corpus_checks.published import audit_published
    from betweencut.proofs.baselines.corpus_checks.published_rows import PUBLISHED

    module = load_example("my_field_mechanism")
    zcdp = audit_mechanism(module.busiest_branch, exhaustive=1, height=3, claim="zcdp:1")
    keys = _keys(zcdp)
    assert keys["arithmetic"] is a.ARITHMETIC_RENYI
    assert keys["replay"] is a.REPLAY_IN_PROCESS  # the field kind: a child first, then here
    assert keys["pairs"].what.startswith("every (D, z) with |D| <= 1")
    row = audit_published(PUBLISHED[0])
    keys = _keys(row)
    assert keys["code"] is a.OWN_CODE and keys["transcribed"] is a.TRANSCRIBED
    assert keys["pairs"].what.startswith("the ") and row.as_json()["assumes"]
