"""QA pass E (report /tmp/qa-e/report.md), the calculator pages' presenter (calc.display):
item 1, a suggestion keeps the pasted config.json; item 2, no suggestion the page cannot apply;
item 5, a placeholder for outputs an input error left uncomputed, and the "no framework runs
here" error next to the instance when no framework was chosen; item 6, broken JSON said so, with
its position; item 8, every bad value of a link named at once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from calc.display import LANGS, present, strings, trust

CONFIG = (Path(__file__).parent / "hf_configs" / "qwen3-30b-a3b.json").read_text(
    encoding="utf-8")
NO_FIT = {"instance": "trn2.48xlarge", "batch": "14", "input_len": "1000",
          "output_len": "100000"}


def _shown(calculator: str, values: dict[str, str], lang: str) -> dict[str, Any]:
    return present({"calculator": calculator, "values": values}, lang)


def _fields(shown: dict[str, Any]) -> list[tuple[str, str]]:
    return [(str(e["field"]), str(e["key"])) for e in shown["errors"]]


# ---- item 1: a suggestion keeps the pasted config.json ---------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_a_suggestion_never_rewrites_the_pasted_config(lang: str) -> None:
    shown = _shown("performance", {"model": "custom", "hf_config": CONFIG, **NO_FIT}, lang)
    verdict = shown["verdict"]
    assert verdict and verdict["suggestions"], verdict
    for suggestion in verdict["suggestions"]:
        values = suggestion["values"]
        assert "hf_config" not in values, values   # the textarea keeps the reader's JSON
        assert "model" not in values               # still the custom model
        assert all(isinstance(v, str) and "{'" not in v for v in values.values()), values
        # applying it (the widget writes values into the form, the rest stays) computes
        applied = _shown("performance", {"model": "custom", "hf_config": CONFIG, **NO_FIT,
                                         **values}, lang)
        assert not applied["errors"], applied["errors"]
        assert applied["verdict"] is None, suggestion


@pytest.mark.parametrize("lang", LANGS)
def test_suggested_numbers_are_written_plain(lang: str) -> None:
    # the reader's "1000" stayed "1000", not "1,000" (en) after a suggestion was applied
    shown = _shown("performance", {"model": "qwen3-30b-a3b", **NO_FIT}, lang)
    values = shown["verdict"]["suggestions"][0]["values"]
    assert values["input_len"] == "1000" and values["output_len"] == "100000"


# ---- item 2: no suggestion of a field the page does not have ---------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_no_suggestion_the_page_cannot_apply(lang: str) -> None:
    shown = _shown("performance", {"model": "qwen3-30b-a3b", **NO_FIT}, lang)
    suggestions = shown["verdict"]["suggestions"]
    assert suggestions
    fields = {"mode", *shown["values"]}
    for suggestion in suggestions:
        assert suggestion["change"] in fields, suggestion    # kv_dtype was offered
        applied = _shown("performance", {"model": "qwen3-30b-a3b", **NO_FIT,
                                         **suggestion["values"]}, lang)
        # never a link that recomputes the same setup
        assert applied["verdict"] is None, suggestion


def test_a_suggestion_that_changes_no_field_of_the_page_is_dropped() -> None:
    result = {"fits": False, "fit_reason": None, "suggestions": [
        {"change": "batch", "value": 2, "reason_key": "suggest_batch",
         "params": {"model": "m", "batch": 2}},
        {"change": "kv_dtype", "value": "fp8", "reason_key": "suggest_kv_dtype",
         "params": {"model": "m", "batch": 4, "kv_dtype": "fp8"}},
        # a field of the page, but the same setup as computed: nothing to apply
        {"change": "batch", "value": 4, "reason_key": "suggest_batch",
         "params": {"model": "m", "batch": 4}},
    ]}
    verdict = trust.verdict({"main": {"ok": True, "result": result}}, {"main"},
                            ("model", "batch"), "en", {"main": {"model": "m", "batch": 4}})
    assert verdict is not None
    assert [s["values"] for s in verdict["suggestions"]] == [{"model": "m", "batch": "2"}]


# ---- item 5: placeholders, and the error next to the input that caused it --------------------

CASES = [
    ("performance", {"instance": "inf1.xlarge"}),
    ("performance", {"mode": "training", "instance": "trn3-gen2-ultraserver"}),
    ("memory", {"model": "gpt-5"}),
    ("performance", {"model": "custom"}),
]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("calculator", "values"), CASES)
def test_refused_outputs_show_a_placeholder(lang: str, calculator: str,
                                            values: dict[str, str]) -> None:
    shown = _shown(calculator, values, lang)
    assert not shown["ok"] and shown["errors"]
    placeholder = trust.text(lang, "not_computed")
    assert placeholder != "not_computed" and placeholder.startswith("—")
    assert {o["text"] for o in shown["outputs"]} == {placeholder}
    assert all(o["value"] is None for o in shown["outputs"])


@pytest.mark.parametrize("lang", LANGS)
def test_no_framework_on_the_instance_is_the_instance_s_error(lang: str) -> None:
    labels = strings.field_labels(lang)
    serving = _shown("performance", {"instance": "inf1.xlarge"}, lang)
    assert _fields(serving) == [("instance", "no_inference_framework")]
    assert serving["errors"][0]["message"].startswith(labels["instance"])
    training = _shown("performance", {"mode": "training", "instance": "trn3-gen2-ultraserver"},
                      lang)
    assert _fields(training) == [("instance", "no_training_framework")]
    message = training["errors"][0]["message"]
    assert labels["framework"] not in message and message.startswith(labels["instance"])
    # a framework the reader chose stays the framework's error
    chosen = _shown("performance", {"instance": "inf1.xlarge", "framework": "vllm-neuron"}, lang)
    assert _fields(chosen) == [("framework", "no_inference_framework")]


# ---- item 6: broken JSON is not "not an object" ----------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_broken_json_says_where(lang: str) -> None:
    broken = _shown("performance", {"model": "custom",
                                    "hf_config": '{"hidden_size": 4096,\n "num_hidden_layers": '},
                    lang)
    assert _fields(broken) == [("hf_config", "config_bad_json")]
    message = broken["errors"][0]["message"]
    # line 2, column 22: where the text stops (the form text is read stripped)
    assert "2" in message and "22" in message and "{" not in message
    listed = _shown("performance", {"model": "custom", "hf_config": "[1, 2]"}, lang)
    assert _fields(listed) == [("hf_config", "config_not_json")]
    assert message != listed["errors"][0]["message"]


def test_the_position_is_json_s_own() -> None:
    text = '{"a": 1,\n  "b": }'
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        line, column = error.lineno, error.colno
    shown = _shown("memory", {"model": "custom", "hf_config": text}, "en")
    assert f"line {line}, column {column}" in shown["errors"][0]["message"]


# ---- item 8: every bad value of a link at once -----------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("values", "expected"), [
    ({"model": "gpt-5", "instance": "inf9.huge"},
     [("model", "unknown_model"), ("instance", "unknown_instance")]),
    ({"batch": "1e400", "seq_len": "9" * 60},
     [("batch", "number_too_large"), ("seq_len", "number_too_long")]),
    ({"batch": "abc", "instance": "inf9.huge", "tp": "0"},
     [("batch", "number_malformed"), ("instance", "unknown_instance"),
      ("tp", "must_be_positive_int")]),
])
def test_every_bad_value_is_named(lang: str, values: dict[str, str],
                                  expected: list[tuple[str, str]]) -> None:
    shown = _shown("memory", values, lang)
    assert sorted(_fields(shown)) == sorted(expected)
    assert len({e["field"] for e in shown["errors"]}) == len(shown["errors"])   # one per field
    labels = strings.field_labels(lang)
    for error in shown["errors"]:
        assert error["message"] and "{" not in error["message"]
        if error["key"].startswith("number_"):
            assert error["message"].startswith(labels[error["field"]])


def test_a_good_value_next_to_a_bad_one_is_not_named() -> None:
    shown = _shown("memory", {"model": "gpt-5", "instance": "inf2.48xlarge", "batch": "4"}, "en")
    assert _fields(shown) == [("model", "unknown_model")]
