"""Issue 13 item 3: no English sentence reaches a ja/es page outside code, quotes, source titles
and names, and no space sits between two Japanese characters in running text of ja pages."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from language_scan import cjk_spaces, english_runs, scan

DATA_DIR = Path(__file__).resolve().parents[2] / "data"

pytestmark = pytest.mark.site


def test_the_check_catches_english_and_not_names():
    assert english_runs("no publicado (Not recorded in the sources used here.)")
    assert english_runs("公開されていません (the AWS price list has no on-demand rate)")
    assert not english_runs("Inferentia2 と NeuronLink-v2 で TP 24、vLLM を使います")
    assert not english_runs("NeuronLink-v4 con NeuronSwitch-v1, de todos con todos")
    assert not english_runs("Time To First Token の略です")          # an expansion (Title Case)
    assert not english_runs("conjuntos de datos en FSx for Lustre o S3")  # a product name
    assert not english_runs("la cula y permanece allí a la espera")     # Spanish, accents
    assert cjk_spaces("テンソル 並列度")
    assert not cjk_spaces("テンソル並列度と TP 24")


def pending_measurement_texts() -> set[str]:
    """English texts of data/measurements.toml that have no `_ja`/`_es` sibling yet (that file is
    edited by the measurements research; its texts are shown with lang="en" until translated)."""
    measurements = tomllib.loads((DATA_DIR / "measurements.toml").read_text("utf-8"))
    texts = set()
    for rec in measurements.get("measurement", []):
        for key, value in rec.items():
            if isinstance(value, str) and not key.endswith(("_ja", "_es")) and (
                    f"{key}_ja" not in rec or f"{key}_es" not in rec):
                texts.add(" ".join(value.split()))
    return texts


@pytest.mark.parametrize("lang", ["ja", "es"])
def test_no_english_sentence_on_translated_pages(built_site, lang):
    english, _ = scan(built_site.site_dir, lang)
    pending = pending_measurement_texts()
    leftovers = [hit for hit in english
                 if not any(hit.split(": ", 1)[1] in text for text in pending)]
    assert leftovers == []


def test_no_space_between_japanese_characters(built_site):
    _, spaces = scan(built_site.site_dir, "ja")
    assert spaces == []
