"""calc.display.trust and the presenter's trust fields (issues 9, 17): fit gate, suggestions as
form values, TP notes, error band and basis, number limits, link checks, validated exports."""

from __future__ import annotations

import json

import pytest

from calc.display import LANGS, present, present_json, strings, trust

NO_FIT = {"model": "llama-3.1-70b", "instance": "inf2.xlarge", "batch": "32"}


@pytest.mark.parametrize("lang", LANGS)
def test_no_fit_hides_speed_and_cost_everywhere(lang: str) -> None:
    shown = present({"calculator": "performance", "values": NO_FIT}, lang)
    assert shown["verdict"] is not None and shown["verdict"]["fits"] is False
    assert shown["verdict"]["text"] == trust.text(lang, "does_not_fit")
    for out in shown["outputs"]:
        if out["field"] in trust.SPEED_COST_FIELDS:
            assert out["value"] is None and out["text"] == trust.text(lang, "not_shown_no_fit")
    result = shown["responses"]["main"]["result"]
    assert all(result.get(f) is None for f in trust.SPEED_COST_FIELDS)
    assert all(row["unit"] == "B" for row in shown["derivation"])


def test_fitting_setup_has_no_verdict() -> None:
    shown = present({"calculator": "performance"}, "en")
    assert shown["ok"] and shown["verdict"] is None
    assert any(o["value"] is not None for o in shown["outputs"] if o["field"] == "tpot_s")


def test_suggestions_become_form_values_in_the_page_language() -> None:
    responses = {"main": {"ok": True, "result": {
        "fits": False, "fit_reason": {"key": "does_not_fit_any_tp", "params": {
            "tp": 2, "per_core_bytes": 3 * 2**30, "capacity_per_core_bytes": 2**30}},
        "suggestions": [{"change": "batch", "value": 1500, "reason_key": "suggest_batch",
                         "params": {"model": "m", "instance": "inf2.48xlarge", "batch": 1500}}],
    }}}
    verdict = trust.verdict(responses, {"main"}, ("model", "instance", "batch", "tp"), "es")
    assert verdict is not None
    (suggestion,) = verdict["suggestions"]
    assert suggestion["values"] == {"model": "m", "instance": "inf2.48xlarge", "batch": "1500",
                                    "tp": ""}
    assert "1500" in suggestion["text"]
    assert verdict["reason"] and "{" not in verdict["reason"]


@pytest.mark.parametrize("lang", LANGS)
def test_band_and_basis_text(lang: str) -> None:
    result = {"error_band": {"tpot_s": [0.009, 0.016]}, "basis": "modelled"}
    text, basis = trust.band_text("12 ms", result, "tpot_s", "s", lang)
    assert text.startswith("12 ms") and text != "12 ms"
    assert basis == trust.text(lang, "basis_modelled")
    assert trust.band_text("12 ms", {}, "tpot_s", "s", lang) == ("12 ms", None)


@pytest.mark.skipif("tp_fastest" not in strings.table("en", "steps", "reason"),
                    reason="engine labels of the TP choice (steps.toml [reason]) not merged yet")
def test_tp_notes() -> None:
    responses = {"main": {"ok": True, "result": {
        "tp_reason": {"key": "tp_fastest", "params": {"tp": 32, "candidates": [8, 16, 32]}},
        "tp_other_objective": {"objective": "cost", "tp": 8}}}}
    notes = {n["key"]: n["text"] for n in trust.notes(responses, set(), "en")}
    assert "32" in notes["tp_reason"] and "8, 16, 32" in notes["tp_reason"]
    assert notes["tp_other_objective"] == trust.text(
        "en", "tp_other", objective="Lowest cost", tp="8")


@pytest.mark.parametrize("text", ["1e999", "9" * 309, "9" * 100_000, "1" + "0" * 30])
@pytest.mark.parametrize("lang", LANGS)
def test_huge_numbers_refused_with_a_message(text: str, lang: str) -> None:
    shown = json.loads(present_json(json.dumps(
        {"calculator": "price", "values": {"hours": text}}), lang))
    assert not shown["ok"]
    (error,) = [e for e in shown["errors"] if e["field"] == "hours"]
    assert error["key"] in ("number_too_long", "number_too_large")
    assert "{" not in error["message"] and len(error["message"]) < 200


def test_link_checks_name_what_was_ignored() -> None:
    shown = present({"calculator": "memory", "values": {"mode": "quantum"},
                     "unknown": ["utm_source"]}, "en")
    assert not shown["ok"] and shown["errors"][0]["field"] == "mode"
    assert "quantum" in shown["errors"][0]["message"]
    assert any("utm_source" in n["text"] for n in shown["notes"])
    assert shown["export_values"] == {}
    unknown = present({"calculator": "memory", "values": {"model": "gpt-9"}}, "ja")
    assert not unknown["ok"] and "gpt-9" in unknown["errors"][0]["message"]


def test_exports_hold_only_checked_and_used_values() -> None:
    shown = present({"calculator": "memory",
                     "values": {"batch": "+4", "count": "=HYPERLINK(1)"}}, "en")
    assert shown["ok"]
    assert shown["export_values"]["batch"] == "+4"
    assert "count" not in shown["export_values"]


def test_dtype_choices_start_with_automatic() -> None:
    shown = present({"calculator": "memory", "values": {"instance": "g4dn.xlarge"}}, "en")
    options = shown["choices"]["dtype"]
    assert options[0]["value"] == "" and len(options) > 1


def test_a_note_two_requests_share_is_shown_once() -> None:
    """QA pass D finding 14: the price page said its price fallback twice (the price and the
    tokens request both fell back to us-east-1)."""
    shown = present({"calculator": "price", "values": {"region": "eu-west-2"}}, "en")
    keys = [note["key"] for note in shown["notes"]]
    assert keys.count("price_fallback") == 1, keys
