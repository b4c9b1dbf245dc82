"""calc.display.present: the calculator specs come from calc's one schema, typed text is parsed
in the page language, errors are typed and localized, the result is display-ready."""

from __future__ import annotations

import json
import re

import pytest

from calc import data, inputs, serving, serving_band
from calc.display import LANGS, calculators, present, present_json, strings, trust


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


@pytest.mark.parametrize("name", tuple(calculators.CALCULATORS))
def test_every_mode_opens_on_an_answer(name: str) -> None:
    # a default that fits one mode only (inf2.48xlarge: no training framework runs there) would
    # open the other mode on an error
    for mode in calculators.calculator(name).modes:
        shown = present({"calculator": name, "values": {"mode": mode.id}}, "en")
        assert shown["ok"] and not shown["errors"], (name, mode.id, shown["errors"])


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
    # (QA pass E, item 7) a decimal point in Spanish: refused, saying Spanish uses a comma
    assert [(e["field"], e["key"]) for e in shown["errors"]] == [("tokens", "number_decimal_sign")]
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
# Symbols and functions (η_comp, Σ_layers, s_in, ceil), the data's ids (nxd-inference, us-east-1,
# trainium/*/decode, neuron-v2) and the frameworks' own names stay; every other English word of a
# formula has its phrase in data/i18n/<lang>/formulas.toml (the same keys in every language, so
# Spanish gets them too). The browser test checks one calculator; this one every calculator and
# mode, at the defaults and at inputs that bring other steps (GPU, Trn2 and its thin families, a
# large batch, every price kind, a region without the asked price).
FORMULA_FUNCTIONS = {"ceil", "max", "min", "floor", "mod"}
SHOW_THE_MATH_INPUTS = (
    {}, {"instance": "p5.48xlarge"}, {"instance": "g5.48xlarge"}, {"instance": "trn2.48xlarge"},
    {"batch": "64", "input_len": "8000"}, {"price_kind": "capacity-block"},
    {"price_kind": "ri-effective", "instance": "trn2.48xlarge"}, {"region": "eu-west-1"},
)


def _ids() -> list[str]:
    """Every id a formula may quote, longest first."""
    found = {str(r["id"]) for name in ("frameworks", "instances", "models", "chips",
                                       "assumptions") for r in data.records(name)}
    found |= {str(r["region"]) for r in data.records("prices")}
    found |= {str(f["family"]) for f in serving_band.stored_families()}
    found |= {str(b.family) for b in serving_band.stored()}
    found |= set(serving.GROUPS)
    return sorted(found, key=len, reverse=True)


def _english_left(formula: str, ids: list[str], names: list[str]) -> set[str]:
    for text in (*names, *ids):
        formula = formula.replace(text, " ")
    formula = re.sub(r"\w*_\w+", " ", formula)          # symbols with a subscript: s_in, η_comp
    return {w for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", formula)
            if w.islower() and len(w) > 1 and not re.search(r"\d", w)
            and w not in FORMULA_FUNCTIONS}


@pytest.mark.parametrize("name", tuple(calculators.CALCULATORS))
def test_japanese_show_the_math_has_no_english_words(name: str) -> None:
    ids = _ids()
    names = [str(r["name"]) for r in data.records("frameworks") if str(r.get("name") or "")]
    basis = {trust.text("ja", "basis_measured"), trust.text("ja", "basis_modelled")}
    spec = calculators.calculator(name)
    left: dict[str, set[str]] = {}
    for mode in spec.mode_ids():
        for values in SHOW_THE_MATH_INPUTS:
            shown = present({"calculator": name, "values": {"mode": mode, **values}}, "ja")
            for step in shown["derivation"]:
                words = _english_left(step["formula"], ids, names)
                if step["key"] == "basis":
                    assert step["text"] in basis, step["text"]
                if words:
                    left[f"{mode}/{step['key']}: {step['formula']}"] = words
    assert not left, left


def test_every_widening_reason_has_its_phrase() -> None:
    """The reasons an error band can give (calc.serving_band.widen, perf, flops) are words of the
    band step's formula: each is a phrase in every language (the Japanese test above cannot see
    them, being ids with an underscore)."""
    features = {name for band in serving_band.stored() for name in band.ranges}
    assert {"params", "batch", "input_len", "output_len", "tp", "seq_len", "count"} <= features
    reasons = {"thin_family", "framework_not_calibrated"}
    reasons |= {f"family_level_{level}" for level in serving_band.LEVELS
                if level not in serving_band.EXACT_LEVELS}
    reasons |= {f"outside_range_{name}" for name in features}
    for lang in LANGS:
        phrases = strings.table(lang, "formulas", "phrase")
        assert reasons <= set(phrases), (lang, sorted(reasons - set(phrases)))



def test_an_emptied_field_the_page_fills_is_required_never_the_engines_default() -> None:
    # (hardening) price hours "" used to be computed at the engine's 1 h while the page's
    # default (and a share link without the field) is 730 h
    shown = present({"calculator": "price", "values": {"hours": ""}}, "en")
    assert not shown["ok"]
    assert [(e["field"], e["key"]) for e in shown["errors"]] == [("hours", "value_required")]
    # an emptied mode (read by no request) is refused too, never the first mode unannounced
    shown = present({"calculator": "price", "values": {"mode": ""}}, "en")
    assert not shown["ok"]
    assert [(e["field"], e["key"]) for e in shown["errors"]] == [("mode", "value_required")]
    for spec in calculators.CALCULATORS.values():
        defaults = spec.defaults()
        for mode in spec.modes:
            for field in spec.fields:
                if defaults[field.name] == "" or field.name in ("dtype", "mode"):
                    continue
                if field.modes and mode.id not in field.modes:
                    continue
                if all(field.name not in req.params for req in mode.requests):
                    continue   # a field this mode's requests do not read
                shown = present({"calculator": spec.name,
                                 "values": {"mode": mode.id, field.name: ""}}, "ja")
                assert (field.name, "value_required") in {
                    (e["field"], e["key"]) for e in shown["errors"]}, (
                    spec.name, mode.id, field.name, shown["errors"])
