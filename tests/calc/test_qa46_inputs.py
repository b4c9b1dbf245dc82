"""QA report G, findings 13 and 14: compare's instance list (an empty item is refused under the
field "instances", in the list and the comma-string form alike; a repeated id is kept once) and
messages that said something else than meant (schema_version "1", Python reprs of the accepted
booleans, "between 0 and" where 0 is refused), in every language."""

import tomllib
from pathlib import Path
from typing import Any

import pytest
from calc_helpers import error, run

from calc import api, inputs
from calc.display import LANGS
from calc.display.presenter import error_message
from calc.errors import CalcError

I18N = Path(__file__).resolve().parents[2] / "data" / "i18n"
NEW_KEYS = ("out_of_range_above", "list_item_empty", "hf_unsupported_quantization_setting")


@pytest.mark.parametrize("instances", [
    ["inf2.xlarge", ""], ["inf2.xlarge", "  "], "inf2.xlarge,,", "inf2.xlarge, ,trn1.2xlarge",
    "inf2.xlarge,",
])
def test_an_empty_item_is_refused_under_instances(instances: Any) -> None:
    failure = error("compare", instances=instances)
    assert (failure["field"], failure["key"], failure["params"]["value"]) == (
        "instances", "list_item_empty", 2)
    assert failure["message"].startswith("instances: item 2 of the list is empty")


def test_an_unknown_item_is_named_under_instances() -> None:
    for instances in (["inf2.xlarge", "inf9.huge"], "inf2.xlarge,inf9.huge"):
        failure = error("compare", instances=instances)
        assert (failure["field"], failure["key"]) == ("instances", "unknown_instance")
        assert "inf9.huge" in failure["message"]


@pytest.mark.parametrize("instances", [
    ["inf2.xlarge", "trn1.2xlarge", "inf2.xlarge"], "inf2.xlarge,trn1.2xlarge, inf2.xlarge",
])
def test_a_repeated_instance_is_one_row_first_order_kept(instances: Any) -> None:
    rows = run("compare", instances=instances)["rows"]
    assert [row["instance"] for row in rows] == ["inf2.xlarge", "trn1.2xlarge"]


def test_the_list_bound_counts_what_was_sent() -> None:
    assert error("compare", instances=["inf2.xlarge"] * 65)["key"] == "out_of_range"


def test_schema_version_message_says_a_number_is_needed() -> None:
    message = api.run({"schema_version": "1", "kind": "price",
                       "params": {"instance": "inf2.xlarge"}})["error"]["message"]
    assert "not a string" in message and "number 1" in message


def test_a_bad_flag_lists_the_accepted_spellings() -> None:
    failure = error("price", instance="trn1.32xlarge", price_fallback="maybe")
    assert failure["message"] == (
        "price_fallback: maybe is not one of true, false, yes, no, 1, 0")
    for spelling in inputs.FLAG_WORDS:
        run("price", instance="trn1.32xlarge", price_fallback=spelling.upper())


def test_a_number_above_its_range_does_not_say_between_zero() -> None:
    failure = error("price", instance="trn1.32xlarge", hours=1e30)
    assert (failure["field"], failure["key"]) == ("hours", "out_of_range_above")
    assert failure["message"] == (
        "hours must be greater than 0 and at most 10000000 (got 1e+30)")
    for lang in LANGS:
        shown = error_message(failure, lang)
        assert "10" in shown and "{" not in shown, (lang, shown)
    # an integer's minimum is inclusive: "between 1 and" stays right there
    assert error("memory", model="llama-3.2-1b", instance="trn1.32xlarge", seq_len=16,
                 batch=10**7)["key"] == "out_of_range"


def load(lang: str) -> dict[str, str]:
    with (I18N / lang / "errors.toml").open("rb") as handle:
        table: dict[str, str] = tomllib.load(handle)["error"]
    return table


def test_the_new_messages_are_translated() -> None:
    english = load("en")
    for lang in LANGS[1:]:
        table = load(lang)
        for key in (*NEW_KEYS, "bad_schema_version"):
            assert table[key] != english[key], (lang, key)
    assert all(load("ja")[key].endswith("。") for key in NEW_KEYS)
    assert "indique" in load("es")["bad_schema_version"]


def test_every_new_message_is_one_line_with_its_params() -> None:
    for key in NEW_KEYS:
        message = str(CalcError("instances", key, {"value": 2, "min": 0.0, "max": 10.0,
                                                   "allowed": [1]}))
        assert "{" not in message and "\n" not in message, key
