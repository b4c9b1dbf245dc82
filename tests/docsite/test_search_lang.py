"""One search index per language (hooks/search_lang.py, issue 14): each holds only its language's
pages, with its own lunr languages and separator (Japanese splits Katakana/Han compounds)."""

from __future__ import annotations

import json
import re

import pytest
from site_html import LANGS

from hooks.search_lang import SEPARATOR_JA

pytestmark = pytest.mark.site


def _index(built_site, lang):
    folder = "" if lang == LANGS[0] else f"{lang}/"
    path = built_site.site_dir / folder / "search" / "search_index.json"
    return json.loads(path.read_text("utf-8"))


@pytest.mark.parametrize("lang", LANGS)
def test_each_language_has_its_own_index(built_site, lang):
    index = _index(built_site, lang)
    assert len(index["docs"]) > 50
    others = [other for other in LANGS if other != lang and other != LANGS[0]]
    for doc in index["docs"]:
        head = doc["location"].split("/", 1)[0]
        if lang == LANGS[0]:
            assert head not in LANGS[1:], doc["location"]
        else:
            assert head == lang, doc["location"]
        assert head not in others
    assert index["config"]["lang"][0] == lang


def test_japanese_separator_splits_compounds():
    pieces = [p for p in re.split(SEPARATOR_JA, "テンソル並列と量子化、データ並列") if p]
    assert pieces == ["テンソル", "並列と量子化", "データ", "並列"]
    assert _index_config_ja_uses(SEPARATOR_JA)


def _index_config_ja_uses(separator):
    from hooks.search_lang import SEARCH
    return SEARCH["ja"]["separator"] == separator and "ja" in SEARCH["ja"]["lang"]
