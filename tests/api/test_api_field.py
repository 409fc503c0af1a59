"""A user's mechanism written with the field's primitives (`examples/my_field_mechanism.py`),
audited from the command line, the API and `assert_private`: one verdict shape and one JSON
schema, the same verdict each way; and `audit corpus --published` in the corpus schema."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import jsonschema
import pytest
from cli_runs import run_script
from example_modules import load_example

from betweencut import audit_mechanism
from betweencut.schemas import schema
from betweencut.testing import assert_private

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ARGS = ["audit", "privacy", "--mechanism", "my_field_mechanism:busiest_branch", "--height", "3",
        "--exhaustive", "1", "--delta", "0", "--json"]


@pytest.mark.parametrize(("epsilon", "holds"), [("2", True), ("1", False)])
def test_field_mechanism_same_verdict_from_cli_api_and_assert_private(
        epsilon: str, holds: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    ran = run_script([*ARGS, "--epsilon", epsilon], cwd=str(EXAMPLES))
    ran.contract()
    assert ran.status == (0 if holds else 1)
    cli = json.loads(ran.out)
    jsonschema.validate(cli, schema("verdict"))
    monkeypatch.syspath_prepend(str(EXAMPLES))
    api = audit_mechanism("my_field_mechanism:busiest_branch", height=3, exhaustive=1,
                          epsilon=Fraction(epsilon), delta=0).as_json()
    jsonschema.validate(api, schema("verdict"))
    keep = ("holds", "pairs", "worst", "refutation", "claim", "epsilon_at_delta_exact")
    assert {k: api.get(k) for k in keep} == {k: cli.get(k) for k in keep}
    mechanism = load_example("my_field_mechanism").busiest_branch
    if holds:
        assert assert_private(mechanism, Fraction(epsilon), 0, exhaustive=1, height=3).holds
    else:
        with pytest.raises(AssertionError, match="REFUTED") as failed:
            assert_private(mechanism, Fraction(epsilon), 0, exhaustive=1, height=3)
        assert "P_D" in str(failed.value)


def test_randomized_response_user_mechanism_is_eps_dp() -> None:
    verdict = audit_mechanism(load_example("my_field_mechanism").any_record, height=2, exhaustive=2,
                              epsilon=1, delta=0)
    assert verdict.holds and verdict.facts["epsilon_at_delta_exact"] == "1"


def test_published_corpus_json_validates_and_cites_every_report() -> None:
    ran = run_script(["audit", "corpus", "--published", "--name", "opendp-2911-permute-and-flip",
                      "--name", "opendp-2911-exponential", "--json"])
    ran.contract()
    out = json.loads(ran.out)
    jsonschema.validate(out, schema("corpus"))
    assert ran.status == 0 and out["holds"]
    first = out["rows"][0]
    assert first["refutation"]["order"] == "2" and first["report"]["date"] == "2026-08-26"
    bad = run_script(["audit", "corpus", "--published", "--queries", "3"])
    bad.contract()
    assert bad.status == 2 and "--published" in bad.err


def test_zcdp_and_rdp_claims_of_a_field_mechanism_from_the_api_and_cli() -> None:
    from betweencut.errors import ParameterError

    run = load_example("my_field_mechanism").busiest_branch
    holds = audit_mechanism(run, height=3, exhaustive=1, claim="zcdp:1")
    assert holds.holds and holds.facts["argument"] and holds.rows[0].order == 2
    refuted = audit_mechanism(run, height=3, exhaustive=1, claim="zcdp:1/4")
    assert not refuted.holds and refuted.refutation is not None
    assert refuted.refutation.order == 2  # D_2 = 0.797... > 2 * 1/4
    jsonschema.validate(refuted.as_json(), schema("verdict"))
    assert audit_mechanism(run, height=3, exhaustive=1, claim="rdp:2:1").holds
    for bad in ({"claim": "zcdp:0"}, {"claim": "rdp:1:1"}, {"claim": "zcdp:1", "epsilon": 1},
                {"claim": "zcdp:1", "on": "heavy"}):
        with pytest.raises(ParameterError):
            audit_mechanism(run, height=3, exhaustive=1, **bad)
    ran = run_script(["audit", "privacy", "--mechanism", "my_field_mechanism:busiest_branch",
                      "--height", "3", "--exhaustive", "1", "--zcdp", "1/4", "--json"],
                     cwd=str(EXAMPLES))
    ran.contract()
    assert ran.status == 1 and json.loads(ran.out)["refutation"]["order"] == "2"


def test_a_released_laplace_value_is_audited_without_an_exact_curve() -> None:
    from betweencut.noise import Noise, NoisyValue

    def laplace_count(db: object, test: object) -> object:
        return test(NoisyValue(len(db), Noise.laplace(1)))  # type: ignore[arg-type, operator]

    exact = audit_mechanism(laplace_count, height=2, exhaustive=1, epsilon=1, delta=0)
    assert exact.holds and "epsilon_at_delta_note" in exact.facts
    refuted = audit_mechanism(laplace_count, height=2, exhaustive=1, epsilon=Fraction(1, 2),
                              delta=0)
    assert not refuted.holds and refuted.refutation is not None
    jsonschema.validate(refuted.as_json(), schema("verdict"))
