"""Library results print the release, never more (issue 36, items 1, 3, 9).

Every public result type's `repr`, `str` and `as_json()` hold only what its command-line output
holds: a `Classification` never shows the record count, the noisy draws or the time unless
`result.diagnostics` is read by name (and then labelled as not private); every `as_json()`
validates against the schema of the CLI output it mirrors, header included.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import jsonschema
import pytest

import betweencut
from betweencut.schemas import schema

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RECORDS = 53  # a count that appears nowhere in the release of this run
LEAVES = [(0, 0)] * 40 + [(0, 1)] * 10 + [(1, 0)] * 3


def _run() -> betweencut.Classification:
    tree = betweencut.kary_tree(2, 3)
    return betweencut.classify(tree, LEAVES, tau=2, epsilon=1, delta="0.05", seed=7)


def test_a_classification_printed_or_logged_shows_the_release_only() -> None:
    result = _run()
    diag = result.diagnostics
    shown = [repr(result), str(result), f"{result}", str(result.as_json())]
    for text in shown:
        assert "records" not in text and "noisy_draws" not in text and "seconds" not in text
        assert "Diagnostics" not in text and str(RECORDS) not in text
        assert f"{diag.seconds}" not in text
    assert len(repr(result)) < 400  # a summary, not a dump
    assert str(result) == result.text() and result.text().startswith("BetweenCut release")
    # the diagnostics, asked for by name, are labelled as what they are
    assert repr(diag).startswith("Diagnostics(NOT differentially private")
    assert f"records={RECORDS}" in repr(diag)


def test_a_classification_is_the_same_release_whatever_the_record_count() -> None:
    """Two runs with the same Heavy set print the same bytes (the release's contract)."""
    tree = betweencut.kary_tree(2, 3)
    one = betweencut.classify(tree, LEAVES, tau=2, epsilon=1, delta="0.05", seed=7)
    more = betweencut.classify(tree, [*LEAVES, (1, 1)], tau=2, epsilon=1, delta="0.05", seed=7)
    if one.heavy == more.heavy:
        assert (repr(one), str(one), one.as_json()) == (repr(more), str(more), more.as_json())
    assert one.diagnostics.records != more.diagnostics.records


@pytest.mark.parametrize("accountant", ["paper", "tight"])
def test_calibrate_as_json_is_the_cli_calibrate_object(accountant: str) -> None:
    cal = betweencut.calibrate(15, 1, "1/20", accountant=accountant)
    jsonschema.validate(cal.as_json(), schema("calibrate"))
    assert cal.as_json()["schema"] == "betweencut/calibrate"
    assert "schema" not in cal.as_json(with_header=False)
    assert str(cal) == cal.text() and cal.text().splitlines()[0].endswith("delta = 1/20")


def test_classification_as_json_is_the_cli_classify_object() -> None:
    jsonschema.validate(_run().as_json(), schema("classify"))


def test_every_audit_result_prints_its_text_and_validates() -> None:
    depth = betweencut.audit_depth(7, tau=4, lam=Fraction(1, 2), R=2, count=2)
    claims = betweencut.audit("calibration")
    corpus = betweencut.audit_corpus(names=("svt-alg5",))
    for result, kind in ((depth, "verdict"), (claims, "claims"), (corpus, "corpus")):
        jsonschema.validate(result.as_json(), schema(kind))
        assert str(result) == result.text()
        assert len(repr(result)) < 300 and "\n" not in repr(result)
    margins = betweencut.margins(1, "1/20", heights=(3,))
    jsonschema.validate(margins.as_json(), schema("margins"))
    assert str(margins) == margins.text() and margins.text().startswith("Additive margins")


def test_ergonomics_dir_float_and_tree_repr() -> None:
    for name in ("calibrate", "classify", "audit", "audit_mechanism", "kary_tree"):
        assert name in dir(betweencut)
    e = betweencut.calibrate(15, 1, "1/20").E
    assert abs(float(e) - e.approx()) == 0 and 22 < float(e) < 23
    assert repr(betweencut.kary_tree(2, 3)) == (
        "PublicTree(height=3, description='complete 2-ary tree, h=3')")


def test_a_claim_not_checked_says_why_and_a_group_of_them_is_one_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 36 item 7: a claim that could not run says so (no empty `method:`, no
    `checked: 0 check`); a group none of whose claims could run is one line, exit 2."""
    import betweencut.api
    from betweencut.api.claims import NOT_CHECKED, ClaimRow, ClaimsVerdict, _checked
    from betweencut.cli import main

    assert _checked([]) == "nothing"
    row = ClaimRow("gaussian", "Eq. (30)", NOT_CHECKED, "not run: needs the 'fast' extra", 0,
                   "nothing", "needs the 'fast' extra", extra="fast")
    text = ClaimsVerdict([row], "gaussian").text()
    assert "method: not run: needs the 'fast' extra" in text and "0 check" not in text
    monkeypatch.setattr(betweencut.api, "audit",
                        lambda group, progress=None: ClaimsVerdict([row], group))
    assert main(["audit", "gaussian"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
    assert "pip install 'betweencut[fast]'" in err
    held = ClaimRow("gaussian", "Discrete", "holds", "interval", 5, "5 checks")
    monkeypatch.setattr(betweencut.api, "audit",
                        lambda group, progress=None: ClaimsVerdict([row, held], group))
    assert main(["audit", "gaussian"]) == 2  # part of the group checked: still one line
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and "the other 1 hold" in err


def test_notation_powers_in_parentheses_and_quotients_divided_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 36 item 7: `e^(1/4)`, never `e^1/4`; an exact eps with a one-term denominator is
    divided out (`log((-1)*exp(1/3) + (2)*exp(2/3))`, not `log((...) / ((1/8)*exp(...)))`)."""
    from betweencut.proofs.exact.arith import ExpPoly, ExpRational
    from betweencut.proofs.verdict import power

    assert (power("e", Fraction(9, 10)), power("e", 1), power("e", -1)) == (
        "e^(9/10)", "e^1", "e^(-1)")
    two_fifths = ExpRational(ExpPoly.const(Fraction(2, 5)), ExpPoly.exp(-1, Fraction(1, 2)))
    assert two_fifths.text() == "(4/5)*exp(1)" and ExpRational(ExpPoly.const(3)).text() == "(3)"
    monkeypatch.syspath_prepend(str(EXAMPLES))
    refuted = betweencut.audit_mechanism("my_mechanism:flag", exhaustive=1, height=3,
                                         epsilon="1/4", delta=0)
    assert "- e^(1/4) * P_" in refuted.text()
    privtree = betweencut.audit_mechanism("my_privtree:privtree_closed", exhaustive=1,
                                          epsilon=1, delta=0)
    assert privtree.facts["epsilon_at_delta_exact"] == "log((-1)*exp(1/3) + (2)*exp(2/3))"
