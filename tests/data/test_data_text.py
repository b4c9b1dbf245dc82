"""Issue 13 item 3: every data text that reaches a page has its Japanese and Spanish siblings
(`<field>_ja`, `<field>_es`, read by calc.display.data_text); English is shown (marked
lang="en") only for names (NeuronLink-v2, NVLink 5 (NVSwitch), 128x128) and for the texts of
data/measurements.toml, which the measurements research owns (see tests/docsite/
test_page_language.py)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import calc.data
from calc import display

DATA_DIR = Path(__file__).resolve().parents[2] / "data"
LANGS = tuple(lang for lang in display.LANGS if lang != "en")  # the one list (mkdocs.yml)
Record = dict[str, Any]

# Fields shown on pages (site_macros tables, fact(), provenance marks) besides `*_missing`
SHOWN = ("interconnect", "topology", "neuronlink", "systolic_array", "sparse_note",
         "compute_dtypes_note", "tp_degrees_flagged_note", "publisher", "component", "note")
VALUE_LABELS = set(calc.data.i18n("en", "site")["value"])  # already translated labels
ENGLISH_WORD = re.compile(r"(?<![\w-])[a-z]{2,}(?![\w-])")  # a lower-case word: not a name


def _shown(key: str, file: str) -> bool:
    if key.endswith(tuple(f"_{lang}" for lang in LANGS)):
        return False
    if key.endswith(("_missing", "_alt")):
        return True
    if key == "note":  # notes reach pages only in the support matrix
        return file == "support_matrix"
    return key in SHOWN


# A publisher is a name ("AWS Neuron documentation") unless it explains how it was read
PUBLISHER_PHRASE = re.compile(
    r"\b(?:the|of|and|through|from|at|by|for|with|other|via|translation|file)\b")


def _is_name(text: str, key: str = "") -> bool:
    if key == "publisher":
        return not PUBLISHER_PHRASE.search(text)
    return text in VALUE_LABELS or not ENGLISH_WORD.search(text)


def problems(record: Record, file: str) -> list[str]:
    found = []
    for key, value in record.items():
        if not _shown(key, file):
            continue
        texts = ({"": value} if isinstance(value, str) else
                 {k: v for k, v in value.items() if isinstance(v, str)}
                 if isinstance(value, dict) else {})
        for entry, text in texts.items():
            if _is_name(text, key):
                continue
            for lang in LANGS:
                sibling = record.get(f"{key}_{lang}")
                if isinstance(sibling, dict):
                    sibling = sibling.get(entry)
                if not isinstance(sibling, str) or not sibling.strip():
                    found.append(f"{file} {record.get('id', record.get('instance'))}: "
                                 f"{key}{'.' + entry if entry else ''}_{lang}")
    return found


def _records(file: str) -> list[Record]:
    if file == "support_matrix":
        return list(calc.data.document("support_matrix.toml")["row"])
    return [dict(r) for r in calc.data.records(file)]


@pytest.mark.parametrize("file", ["chips", "cores", "instances", "prices", "sources",
                                  "support_matrix", "api_prices"])
def test_every_shown_data_text_has_japanese_and_spanish(file: str) -> None:
    assert [p for rec in _records(file) for p in problems(rec, file)] == []


def test_the_check_can_fail() -> None:
    rec = {"id": "x", "interconnect": "NeuronLink-v2, ring", "interconnect_ja": "…",
           "efa_missing": "Not stated.", "dense_tflops_missing": {"bf16": "Not supported."},
           "dense_tflops_missing_ja": {"bf16": "対応していません。"},
           "dense_tflops_missing_es": {}, "neuronlink": "NeuronLink-v2", "topology": "ring"}
    assert problems(rec, "chips") == [
        "chips x: interconnect_es", "chips x: efa_missing_ja", "chips x: efa_missing_es",
        "chips x: dense_tflops_missing.bf16_es"]
