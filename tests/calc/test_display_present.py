"""calc.display.present: the calculator specs come from calc's one schema, typed text is parsed
in the page language, errors are typed and localized, the result is display-ready."""

from __future__ import annotations

import json
import re

import pytest

from calc import data, inputs
from calc.display import LANGS, calculators, present, present_json


def test_calculator_fields_are_schema_params() -> None:
    calculators.check()
    for spec in calculators.CALCULATORS.values():
        for field in spec.fields:
            if field.name != "mode":
                assert field.name in inputs.PARAMS
    dtype = next(f for f in calculators.MEMORY.fields if f.name == "dtype")
    assert [c["value"] for c in dtype.choices(())] == list(inputs.PARAMS["dtype"].choices())


def test_a_field_the_schema_does_not_know_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = calculators.Calculator("x", (calculators.Field("gated_mlp"),),
                                    calculators.MEMORY.modes)
    monkeypatch.setitem(calculators.CALCULATORS, "x", broken)
    with pytest.raises(calculators.CalculatorSpecError):
        calculators.check()


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", tuple(calculators.CALCULATORS))
def test_defaults_present_every_output(lang: str, name: str) -> None:
    shown = present({"calculator": name}, lang)
    assert shown["ok"] and not shown["errors"]
    assert all(o["text"] and o["label"] for o in shown["outputs"])
    assert all(r["text"] and r["label"] for r in shown["derivation"])
    json.dumps(shown, allow_nan=False)


def test_english_grouping_is_never_read_as_a_decimal() -> None:
    base = {"mode": "training"}
    grouped = present({"calculator": "performance",
                       "values": {**base, "tokens": "10,000,000,000"}}, "en")
    plain = present({"calculator": "performance",
                     "values": {**base, "tokens": "10000000000"}}, "en")
    assert grouped["outputs"] == plain["outputs"]


def test_ambiguous_text_is_an_error_next_to_its_field() -> None:
    shown = present({"calculator": "performance",
                     "values": {"mode": "training", "tokens": "1.5"}}, "es")
    assert not shown["ok"]
    assert [(e["field"], e["key"]) for e in shown["errors"]] == [("tokens", "number_ambiguous")]
    assert "1.5" in shown["errors"][0]["message"]
    assert "Tokens" in shown["errors"][0]["message"]  # the localized field label


def test_error_numbers_are_formatted_in_the_language() -> None:
    shown = present({"calculator": "memory", "values": {"batch": "99999999"}}, "es")
    message = shown["errors"][0]["message"]
    assert "1.048.576" in message  # the limit, grouped the Spanish way


def test_present_json_never_raises() -> None:
    answer = json.loads(present_json('{"calculator": "nope"}', "en"))
    assert answer["ok"] is False and answer["errors"][0]["key"] == "internal_error"


# ---- show-the-math in Japanese: no English words left -------------------------------------------
# Symbols, functions, subscripts (η_comp, Σ_layers), ids (nxd-inference, trainium/*/decode,
# us-east-1) and the frameworks' own names stay; every other English word of a formula has its
# phrase in data/i18n/<lang>/formulas.toml (the same keys in every language, so Spanish gets them
# too). The browser test checks one calculator; this one every calculator and mode.
FORMULA_FUNCTIONS = {"ceil", "max", "min", "floor", "mod", "log2", "e2e"}
_IDS = re.compile(r"[\w.*]+(?:[/-][\w.*]+)+|\w*_\w+|\w+\d\w*")


def _english_left(formula: str) -> set[str]:
    for record in data.records("frameworks"):
        formula = formula.replace(str(record.get("name", "")), " ")
    formula = _IDS.sub(" ", formula)
    return {w for w in re.findall(r"[A-Za-z]+", formula)
            if w.islower() and len(w) > 1 and w not in FORMULA_FUNCTIONS}


@pytest.mark.parametrize("name", tuple(calculators.CALCULATORS))
def test_japanese_show_the_math_has_no_english_words(name: str) -> None:
    spec = calculators.calculator(name)
    left: dict[str, set[str]] = {}
    for mode in spec.mode_ids():
        shown = present({"calculator": name, "values": {"mode": mode}}, "ja")
        assert shown["derivation"], mode
        for step in shown["derivation"]:
            words = _english_left(step["formula"])
            if step["key"] == "basis":
                assert step["text"] in ("実測", "モデル推定"), step["text"]
            if words:
                left[f"{mode}/{step['key']}"] = words
    assert not left, left
