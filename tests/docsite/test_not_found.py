"""Review (Stop 46): the site's only 404 page was Spanish (mkdocs-static-i18n renders 404.html
once per language, each time to the root, so the last language built won). hooks/not_found.py
writes the default language's page to /404.html and each other language's to /<lang>/404.html."""

from __future__ import annotations

import re
from urllib.parse import urlparse

import pytest

pytestmark = pytest.mark.site

HTML_LANG = re.compile(r'<html lang="([a-z]+)"')
NAV_LINK = re.compile(r'<a href="(/[^"]*)"(?![^>]*hreflang)')


@pytest.mark.parametrize(("path", "lang"), [("404.html", "en"), ("ja/404.html", "ja"),
                                            ("es/404.html", "es")])
def test_each_language_has_its_own_404(built_site, path, lang):
    page = (built_site.site_dir / path).read_text("utf-8")
    assert HTML_LANG.search(page).group(1) == lang
    assert 'http-equiv="Content-Security-Policy"' in page   # csp.py ran first
    links = NAV_LINK.findall(page)
    assert links, path
    base = urlparse(built_site.base_url).path   # e.g. /nfg/
    others = [other for other in ("en", "ja", "es") if other != lang]
    for link in links:   # navigation stays in the page's language (the switcher aside)
        assert link.startswith(base), link
        first = link[len(base):].split("/")[0]
        if lang == "en":
            assert first not in others, link
        else:
            assert first in (lang, "assets"), link
