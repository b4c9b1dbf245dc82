"""data/i18n/<lang>/data.toml (calc.data_lang): the non-English data texts live in the language's
own file; every key must name a data file, a record and an English field of that record, and the
loader puts each text back on its record as the `<field>_<lang>` sibling."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from calc import data, data_lang
from calc.data_check import check_dir, documents_dir

DATA = Path(__file__).resolve().parents[2] / "data"
NON_ENGLISH = sorted(p.name for p in (DATA / "i18n").iterdir()
                     if p.is_dir() and p.name != data_lang.ENGLISH)


def test_no_record_holds_a_translation() -> None:
    """English only in the records: no `<field>_<lang>` or `<lang>` key in any data file."""
    found = []
    for path in [*DATA.glob("*.toml"), *DATA.glob("sources/*.toml")]:
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            key = line.split("=", 1)[0].strip()
            if "=" in line and any(key == lang or key.endswith(f"_{lang}") for lang in NON_ENGLISH):
                found.append(f"{path.relative_to(DATA)}:{number}: {key}")
    assert found == []


def test_texts_reach_their_records() -> None:
    docs = documents_dir(str(DATA))
    chip = next(c for c in docs["chips.toml"]["chip"] if c["id"] == "inferentia2")
    assert chip["compute_dtypes_note_ja"] != chip["compute_dtypes_note"]
    term = docs["glossary.toml"]["term"][0]
    assert term["ja"] and term["es"] and term["es"] != term["en"]
    claim = docs["claims.toml"]["claim"][0]
    assert claim["explanation_ja"] and claim["topic_es"]
    assert data.document("support_matrix.toml")["status"]["beta"]["ja"]


def test_sibling_key_round_trip() -> None:
    rec = {"note": "x", "explanation_en": "y", "en": "z"}
    for key in ("note_fr", "explanation_fr", "fr"):
        field = data_lang.english_field(rec, key, "fr")
        assert field is not None and data_lang.sibling_key(field, "fr") == key


@pytest.mark.parametrize(("old", "new", "record", "field"), [
    ('[chips.chip."inferentia2"]', '[chips.chip."inferentia-2"]',
     'chips.chip "inferentia-2"', "-"),
    ('\ncompute_dtypes_note = ', '\ncompute_dtypes_notes = ', "chips.chip", "compute_dtypes_notes"),
    ('[chips.chip."inferentia2"]', '[chipz.chip."inferentia2"]', "data.toml", "chipz"),
])
def test_a_typo_is_a_data_fault(tmp_path: Path, old: str, new: str, record: str,
                                 field: str) -> None:
    copy = tmp_path / "data"
    shutil.copytree(DATA, copy)
    target = copy / "i18n" / "ja" / "data.toml"
    text = target.read_text("utf-8")
    assert old in text
    target.write_text(text.replace(old, new, 1), "utf-8")
    faults = check_dir(str(copy))
    assert faults, "the typo was not caught"
    message = faults[0].message()
    assert faults[0].file == "data/i18n/ja/data.toml"
    assert record in message and (field == "-" or f"field {field}" in message), message
