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
