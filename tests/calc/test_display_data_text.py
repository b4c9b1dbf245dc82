"""calc.display.data_text: the one lookup of data texts in the page language (issue 13)."""

from __future__ import annotations

from calc.display import data_text

RECORD = {
    "interconnect": "NeuronLink-v2, ring", "interconnect_ja": "NeuronLink-v2、リング",
    "interconnect_es": "NeuronLink-v2, anillo",
    "dense_tflops_missing": {"bf16": "Not supported.", "fp32": "Not documented."},
    "dense_tflops_missing_ja": {"bf16": "対応していません。"},
    "efa_missing": "Not stated.",
}


def test_sibling_in_the_page_language() -> None:
    assert data_text.text(RECORD, "interconnect", "ja") == "NeuronLink-v2、リング"
    assert data_text.text(RECORD, "interconnect", "es") == "NeuronLink-v2, anillo"
    assert data_text.localized(RECORD, "interconnect", "en") == ("NeuronLink-v2, ring", "en")


def test_entry_of_a_per_dtype_table() -> None:
    assert data_text.missing(RECORD, "dense_tflops.bf16", "ja") == ("対応していません。", "ja")
    assert data_text.missing(RECORD, "dense_tflops.fp32", "ja") == ("Not documented.", "en")


def test_english_fallback_says_so() -> None:
    assert data_text.localized(RECORD, "efa_missing", "es") == ("Not stated.", "en")
    assert data_text.text_lang(RECORD, "efa_missing", "es") == "en"
    assert not data_text.has_translation(RECORD, "efa_missing", "es")
    assert data_text.has_translation(RECORD, "interconnect", "es")


def test_absent_field_is_empty() -> None:
    assert data_text.missing(RECORD, "network_gbps", "ja") == ("", "ja")
    assert data_text.text(RECORD, "dense_tflops_missing", "ja") == ""  # a table, not a text


def test_calculator_shows_the_price_reason_in_the_page_language() -> None:
    import calc.api
    import calc.data
    from calc.display import presenter

    record = next(p for p in calc.data.records("prices")
                  if "usd_per_hour" not in p and p.get("usd_per_hour_missing_ja")
                  and p["region"] == "us-east-1")
    response = calc.api.run({"schema_version": 1, "kind": "price",
                             "params": {"instance": record["instance"], "region": "us-east-1"}})
    for lang in ("ja", "es"):
        text = presenter.missing_text(response, lang)
        assert text is not None and record[f"usd_per_hour_missing_{lang}"] in text
        assert record["usd_per_hour_missing"] not in text
