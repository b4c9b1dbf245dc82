"""data/i18n/<lang>/*.toml: the same files and the same keys in en, ja and es."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from calc import display
from calc.data_lang import OVERLAY_FILE

pytestmark = pytest.mark.site

I18N = Path(__file__).resolve().parents[2] / "data" / "i18n"
LANGS = display.LANGS  # the one language list (mkdocs.yml)


def keys(table: dict[str, Any], prefix: str = "") -> set[str]:
    found = set()
    for key, value in table.items():
        path = f"{prefix}{key}"
        found |= keys(value, path + ".") if isinstance(value, dict) else {path}
    return found


def test_same_files_in_every_language():
    # data.toml: the data texts of a non-English language (calc.data_lang), not a label file
    files = {lang: sorted(p.name for p in (I18N / lang).glob("*.toml") if p.name != OVERLAY_FILE)
             for lang in LANGS}
    assert files["en"], "no i18n files"
    assert files["ja"] == files["en"] and files["es"] == files["en"]


@pytest.mark.parametrize("name", sorted(p.name for p in (I18N / "en").glob("*.toml")))
@pytest.mark.parametrize("lang", ["ja", "es"])
def test_same_keys(name, lang):
    en = keys(tomllib.loads((I18N / "en" / name).read_text("utf-8")))
    other = keys(tomllib.loads((I18N / lang / name).read_text("utf-8")))
    assert sorted(en - other) == [], f"missing in {lang}/{name}"
    assert sorted(other - en) == [], f"extra in {lang}/{name}"


def _empty(node: Any, path: str) -> list[str]:
    if isinstance(node, dict):
        return [e for key, value in node.items() for e in _empty(value, f"{path}.{key}")]
    return [path] if isinstance(node, str) and not node.strip() else []


def test_no_empty_labels():
    empty = []
    for path in I18N.glob("*/*.toml"):  # keys may hold dots (record ids): walk, do not split
        empty += _empty(tomllib.loads(path.read_text("utf-8")), str(path.relative_to(I18N)))
    assert empty == []


def test_key_walker_sees_nesting():
    assert keys({"a": {"b": 1, "c": {"d": 2}}, "e": 3}) == {"a.b", "a.c.d", "e"}
