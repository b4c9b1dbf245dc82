"""The search index has the words of the generated tables (hooks/html_blocks.py gives the search
plugin their text), and every page ships the tables themselves, not that text."""

from __future__ import annotations

import json

import pytest
from site_html import LANGS, html_pages, parse

import calc.data

pytestmark = pytest.mark.site


def _docs(built_site, lang, page):
    """Search entries of one page in one language (one index per language: hooks/search_lang.py)."""
    folder = "" if lang == "en" else f"{lang}/"
    index = json.loads((built_site.site_dir / folder / "search" / "search_index.json")
                       .read_text("utf-8"))
    location = folder + page
    return " ".join(d["text"] for d in index["docs"] if d["location"].startswith(location))


@pytest.mark.parametrize("lang", LANGS)
def test_search_index_has_the_table_words(built_site, lang):
    instances = _docs(built_site, lang, "reference/instances/")
    missing = [r["id"] for r in calc.data.records("instances") if r["id"] not in instances]
    assert missing == []
    sources = _docs(built_site, lang, "reference/sources/")
    assert all(s["id"] in sources for s in calc.data.records("sources"))


def test_pages_carry_tables_not_their_search_text(built_site):
    leftovers = [str(p) for p in html_pages(built_site.site_dir)
                 if "nfg-text:" in p.read_text("utf-8")]
    assert leftovers == []
    page = built_site.site_dir / "reference" / "instances" / "index.html"
    assert parse(page).tables >= len({r["family"] for r in calc.data.records("instances")})
