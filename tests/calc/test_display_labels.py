"""Select options and messages show labels in the page language, never raw ids (QA report
sections 5 and 7): every option of every calculator's selects has a label in every language
(calc.display.strings.CHOICE_TABLES) while its value stays the id the engine and share links use."""

from __future__ import annotations

import re

import pytest

from calc import display, inputs
from calc.display import calculators, present, strings

LANGS = display.LANGS
SELECTS = ("choice", "model", "instance", "region")


def _selects() -> list[tuple[calculators.Calculator, calculators.Field]]:
    return [(spec, field) for spec in calculators.CALCULATORS.values() for field in spec.fields
            if field.control() in SELECTS]


def test_every_select_is_translated_or_a_select_of_names():
    """A new select must say where its labels are (or that its options are names/numbers)."""
    for spec, field in _selects():
        assert (field.name in strings.CHOICE_TABLES) != (field.name in strings.NAMED_CHOICES), (
            spec.name, field.name)


@pytest.mark.parametrize("lang", LANGS)
def test_every_option_id_has_a_label_entry(lang):
    """Data-driven: each option id of a translated select has its own entry in the language's
    table(s), a non-empty label that is not the raw id."""
    for spec, field in _selects():
        if field.name not in strings.CHOICE_TABLES:
            continue
        table = strings.choice_labels(field.name, lang)
        for option in field.choices(spec.mode_ids(), lang):
            value = option["value"]
            assert value in table, (lang, spec.name, field.name, value)
            assert option["label"] == table[value] and option["label"].strip()
            assert option["label"] != value, (lang, spec.name, field.name, value)


@pytest.mark.parametrize("lang", LANGS)
def test_option_values_stay_the_ids(lang):
    for spec, field in _selects():
        values = [o["value"] for o in field.choices(spec.mode_ids(), lang)]
        assert values == [o["value"] for o in field.choices(spec.mode_ids())]
        if field.name == "mode":
            assert values == list(spec.mode_ids())
        elif field.name == "framework":   # serving pages: automatic, then the inference ones
            from calc import frameworks

            assert values == ["", *frameworks.ids("inference")]
        elif field.control() == "choice" and inputs.PARAMS[field.name].type == "choice":
            assert values == [str(c) for c in inputs.PARAMS[field.name].choices()]


def _labels(calculator: str, name: str, lang: str) -> dict[str, str]:
    spec = calculators.calculator(calculator)
    field = calculators.field(spec, name)
    return {o["value"]: o["label"] for o in field.choices(spec.mode_ids(), lang)}


def test_the_labels_the_qa_pass_found_raw():
    assert _labels("performance", "price_kind", "ja") == {
        "on-demand": "オンデマンド", "ri-effective": "リザーブド (実効)",
        "capacity-block": "キャパシティブロック"}
    assert _labels("advisor", "price_kind", "en")["ri-effective"] == "Reserved (effective)"
    assert _labels("advisor", "family", "ja")["all"] == "すべて"
    assert _labels("advisor", "family", "es") == {
        "all": "Todas", "neuron": "AWS Neuron", "gpu": "GPU de NVIDIA"}
    assert _labels("memory", "recompute", "ja") == {
        "none": "なし", "selective": "選択的", "full": "完全"}
    assert _labels("memory", "recompute", "es")["selective"] == "Selectiva"
    assert _labels("memory", "recipe", "en")["llm_analysis"] == "llm-analysis"
    assert _labels("memory", "recipe", "es")["adam_8bit"] == "Adam de 8 bits"
    assert _labels("memory", "mode", "ja") == {"inference": "推論", "training": "学習"}
    assert _labels("price", "mode", "es")["serving"] == "Servicio (inferencia)"


@pytest.mark.parametrize(("lang", "label"), [("en", "Mode"), ("ja", "モード"), ("es", "Modo")])
def test_a_bad_mode_names_the_mode_field_by_its_label(lang, label):
    shown = present({"calculator": "memory", "values": {"mode": "bogus"}}, lang)
    [error] = shown["errors"]
    assert error["field"] == "mode"
    assert error["message"].startswith(label), error["message"]
    assert not error["message"].startswith("mode")


def _note(calculator: str, key: str, lang: str) -> str:
    shown = present({"calculator": calculator}, lang)
    return next(n["text"] for n in shown["notes"] if n["key"] == key)


def test_the_tp_choice_note_has_one_colon_style_in_japanese():
    text = _note("performance", "tp_reason", "ja")
    assert ":" not in text, text
    assert text.startswith("選択：TP ") and text.count("：") == 1, text


def test_the_tp_choice_note_reads_as_one_sentence_in_spanish():
    text = _note("performance", "tp_reason", "es")
    assert text.startswith("Se eligió TP "), text
    assert text.count(":") == 1, text


def test_the_spanish_tp_not_allowed_message_starts_upper_case():
    shown = present({"calculator": "performance", "values": {"tp": "10"}}, "es")
    message = next(e["message"] for e in shown["errors"] if e["key"] == "tp_not_allowed")
    assert message.startswith("El grado de paralelismo tensorial 10 "), message


def test_the_spanish_required_message_agrees_with_any_field():
    """'Longitud de salida (tokens) es obligatorio': the template is generic, so it must not
    agree in gender with one field."""
    template = strings.table("es", "errors", "error")["missing_field"]
    assert "{field}" in template
    assert not re.search(r"\bes obligatori[oa]\b", template), template


@pytest.mark.parametrize(("lang", "label"), [("ja", "オンデマンド"), ("es", "Bajo demanda")])
def test_the_advisor_api_price_names_the_offer_by_its_label(lang, label):
    api = present({"calculator": "advisor"}, lang)["advisor"]["api"]
    assert api, "the default model has a per-token API price in the data"
    assert label in api["text"] and "on-demand" not in api["text"], api["text"]


@pytest.mark.parametrize(("lang", "expected"), [
    ("en", "Mode: bogus is not one of Inference, Training"),
    ("ja", "モード：bogus は選択肢（推論、学習）にありません。"),
    ("es", "Modo: bogus no es una de las opciones (Inferencia, Entrenamiento)"),
])
def test_a_refused_choice_lists_the_options_by_their_labels(lang: str, expected: str) -> None:
    # (QA pass) the options were listed by their ids: "inference, training"
    shown = present({"calculator": "memory", "values": {"mode": "bogus"}}, lang)
    assert shown["errors"][0]["message"] == expected


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("params", "field", "with_field", "with_choice"), [
    ({"model": "llama-3.1-8b", "expert_dtype": "fp8"}, "expert_dtype", "experts", None),
    ({"layers": 32, "hidden": 4096, "heads": 32, "intermediate": 11008, "vocab": 32000,
      "kv_lora_rank": 512}, "kv_lora_rank", "attention", "mla"),
])
def test_needs_field_names_the_other_field_by_its_label(lang, params, field, with_field,
                                                        with_choice):
    """needs_field showed the other field's raw id ("experts", "attention = mla") on ja/es
    pages."""
    from calc.api import run
    from calc.display.presenter import error_message

    response = run({"kind": "memory", "params": {**params, "instance": "inf2.xlarge",
                                                 "seq_len": 128}})
    assert not response["ok"] and response["error"]["field"] == field
    shown = error_message(response["error"], lang)
    label = strings.field_labels(lang)[with_field]
    assert label in shown and label != with_field, shown
    rest = shown.replace(label, "")
    if with_choice:
        choice = strings.choice_label(with_field, with_choice, lang)
        assert choice in shown
        rest = rest.replace(choice, "")
    assert with_field not in rest
