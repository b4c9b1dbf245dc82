"""Unit checks of the hooks and the macro formatting (no site build)."""

from __future__ import annotations

import datetime
import logging
from types import SimpleNamespace

import pytest

from hooks import glossary, page_meta, sitemaps
from site_macros import formatting, units

pytestmark = pytest.mark.site


def _page(meta, src="en/guide/x.md", locale="en"):
    return SimpleNamespace(meta=meta, file=SimpleNamespace(src_uri=src, locale=locale))


def test_missing_description_is_a_warning(caplog):
    with caplog.at_level(logging.WARNING, logger="mkdocs.hooks.page_meta"):
        page_meta.on_page_markdown("# x", _page({}), None, None)
    assert any("description" in r.getMessage() for r in caplog.records)


def test_present_description_is_quiet(caplog):
    with caplog.at_level(logging.WARNING, logger="mkdocs.hooks.page_meta"):
        page_meta.on_page_markdown("# x", _page({"description": "A page."}), None, None)
    assert caplog.records == []


@pytest.mark.parametrize(("link", "expected"), [
    ("ja/guide/memory/", "http://h:1/nfg/ja/guide/memory/"),
    ("/nfg/ja/", "http://h:1/nfg/ja/"),
    ("./", "http://h:1/nfg/"),
    ("https://other/x/", "https://other/x/"),
])
def test_alternates_become_absolute(link, expected):
    assert page_meta.absolute("http://h:1/nfg/", link) == expected


def test_glossary_lines_follow_the_language():
    import calc.data

    terms = calc.data.records("glossary")
    assert terms
    for lang in ("en", "ja", "es"):
        text = glossary.on_page_markdown("body", _page({}, locale=lang), None, None)
        first = terms[0]
        assert f"*[{first['abbr']}]: {' '.join(str(first[lang]).split())}" in text


def test_language_sitemap_lists_that_language(tmp_path):
    for rel in ("ja/index.html", "ja/guide/memory/index.html", "guide/memory/index.html"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    urls = sitemaps.page_urls(tmp_path, "ja", "http://h/nfg/")
    assert sorted(urls) == ["http://h/nfg/ja/", "http://h/nfg/ja/guide/memory/"]
    assert "<loc>http://h/nfg/ja/</loc>" in sitemaps.sitemap_xml(urls)


@pytest.mark.parametrize(("lang", "expected"), [("en", "$21.50"), ("ja", "$21.50"),
                                                ("es", "21,50\u00a0US$")])
def test_usd_in_locale(lang, expected):
    assert formatting.usd(21.5, lang) == expected


def test_numbers_and_dates_in_locale():
    assert formatting.number(1234567, "en") == "1,234,567"
    assert formatting.number(1234567, "es") == "1.234.567"
    assert formatting.date(datetime.date(2025, 12, 1), "ja") == "2025/12/01"
    assert formatting.percent(-0.125, "en", 1) == "-12.5%"


@pytest.mark.parametrize(("field", "unit"), [
    ("accelerator_memory_gib", "gib"), ("memory_gb", "gb"), ("dense_tflops.bf16", "tflops"),
    ("interconnect_gib_per_s_per_chip", "gib_per_s"), ("output_tokens_per_s", "tokens_per_s"),
    ("network_gbps", "gbit_per_s"), ("tpot_s", "s"), ("vcpu", ""),
])
def test_units_from_field_names(field, unit):
    assert units.unit_key(field) == unit
