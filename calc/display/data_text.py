"""Data text in the page language: the one lookup for every English string in data/ that reaches
a page (notes, "not published" reasons, interconnect texts, labels; issue 13).

Convention (ARCHITECTURE.md §1): a display string `<field> = "English"` has siblings
`<field>_ja` and `<field>_es` right after it; a per-entry table (`dense_tflops_missing = {bf16 =
"..."}`) has sibling tables (`dense_tflops_missing_ja = {bf16 = "..."}`). English is the fallback
only where a sibling is missing (tests/data/test_data_text.py lists the fields that must have
them); the caller then marks the text lang="en" using `text_lang`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .numbers import DEFAULT_LANG

Record = Mapping[str, Any]


def _raw(record: Record, key: str, entry: str | None) -> Any:
    value = record.get(key)
    if entry is None:
        return value
    return value.get(entry) if isinstance(value, Mapping) else None


def _split(field: str) -> tuple[str, str | None]:
    key, dot, entry = field.partition(".")
    return key, (entry if dot else None)


def localized(record: Record, field: str, lang: str) -> tuple[str, str]:
    """(text, language of the text) of `field` (`key` or `key.entry`) in `lang`: the `<key>_<lang>`
    sibling when present, else the English text; ("", lang) when the record has neither."""
    key, entry = _split(field)
    if lang != DEFAULT_LANG:
        found = _raw(record, f"{key}_{lang}", entry)
        if isinstance(found, str) and found:
            return found, lang
    english = _raw(record, key, entry)
    if not isinstance(english, str) or not english:
        return "", lang
    return english, DEFAULT_LANG


def text(record: Record, field: str, lang: str) -> str:
    """`field` of `record` as text in `lang` (English where no sibling exists)."""
    return localized(record, field, lang)[0]


def text_lang(record: Record, field: str, lang: str) -> str:
    """The language `text(record, field, lang)` is written in."""
    return localized(record, field, lang)[1]


def has_translation(record: Record, field: str, lang: str) -> bool:
    return lang == DEFAULT_LANG or text_lang(record, field, lang) == lang


def missing(record: Record, path: str, lang: str) -> tuple[str, str]:
    """(reason, its language) why `path` is not published: `<field>_missing` or, for a per-dtype
    entry `table.dtype`, the entry of `<table>_missing`; ("", lang) when no reason is given."""
    head, entry = _split(path)
    return localized(record, f"{head}_missing" + (f".{entry}" if entry else ""), lang)
