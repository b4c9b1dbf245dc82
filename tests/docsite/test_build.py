"""The site builds strictly, in every language, with no template syntax left in the output."""

from __future__ import annotations

import re

import pytest
from site_html import LANGS, html_pages, parse

pytestmark = pytest.mark.site


def test_strict_build_has_no_warnings(built_site):
    warnings = [line for line in built_site.log.splitlines() if line.startswith("WARNING")]
    assert warnings == []


def test_every_language_is_built(built_site):
    for lang in LANGS:
        home = built_site.site_dir / ("" if lang == "en" else lang) / "index.html"
        assert home.is_file(), f"{lang} home page missing"
        assert parse(home).html_lang == lang


@pytest.mark.parametrize("marker", ["{{", "{%", "{#"])
def test_no_template_syntax_left(built_site, marker):
    leftovers = []
    for path in html_pages(built_site.site_dir):
        text = parse(path).text
        if marker in text:
            at = text.index(marker)
            leftovers.append(f"{path.relative_to(built_site.site_dir)}: {text[at - 40: at + 40]!r}")
    assert leftovers == []


def test_no_macro_error_pages(built_site):
    """mkdocs-macros renders errors into the page when on_error_fail is off; never ship one."""
    pattern = re.compile(r"Macro (Rendering|Syntax) Error")
    bad = [str(p) for p in html_pages(built_site.site_dir) if pattern.search(parse(p).text)]
    assert bad == []
