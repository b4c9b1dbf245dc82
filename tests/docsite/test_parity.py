"""Every EN page has JA and ES pages with the same heading ids, tables, code blocks and links."""

from __future__ import annotations

import pytest
from site_html import en_pages, parse, translation

pytestmark = pytest.mark.site


def _pairs(site_dir):
    return [(en, lang) for en in en_pages(site_dir) for lang in ("ja", "es")]


def test_there_are_pages(built_site):
    assert len(en_pages(built_site.site_dir)) >= 22  # the page tree in mkdocs.yml nav


def test_every_page_is_translated(built_site):
    missing = [f"{lang}: {en.relative_to(built_site.site_dir)}"
               for en, lang in _pairs(built_site.site_dir)
               if not translation(built_site.site_dir, en, lang).is_file()]
    assert missing == []


@pytest.mark.parametrize("aspect", ["heading_ids", "tables", "code_blocks", "content_links"])
def test_same_structure(built_site, aspect):
    site_dir = built_site.site_dir
    differences = []
    for en, lang in _pairs(site_dir):
        other = translation(site_dir, en, lang)
        if not other.is_file():
            continue
        en_value, other_value = getattr(parse(en), aspect), getattr(parse(other), aspect)
        if aspect == "content_links":
            en_value, other_value = len(en_value), len(other_value)
        if en_value != other_value:
            where = f"{en.relative_to(site_dir)} {lang}"
            differences.append(f"{where}: {en_value!r} != {other_value!r}")
    assert differences == []


def test_every_heading_has_an_explicit_ascii_id(built_site):
    bad = []
    for path in en_pages(built_site.site_dir):
        for heading_id in parse(path).heading_ids:
            if not heading_id or not heading_id.isascii():
                bad.append(f"{path.relative_to(built_site.site_dir)}: {heading_id!r}")
    assert bad == []
