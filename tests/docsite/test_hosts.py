"""No tag loads anything from another host: no web fonts, no CDN, no external scripts or images."""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

import pytest
from site_html import html_pages, parse

pytestmark = pytest.mark.site

CSS_URL = re.compile(r"""url\(\s*['"]?([^'")\s]+)""")
CSS_IMPORT = re.compile(r"""@import\s+['"]([^'"]+)""")


def foreign(base_url: str, page_url: str, url: str) -> bool:
    absolute = urljoin(page_url, url)
    parts = urlsplit(absolute)
    return parts.scheme not in ("data", "blob") and parts.netloc != urlsplit(base_url).netloc


def test_no_tag_loads_from_another_host(built_site):
    site_dir, base_url = built_site.site_dir, built_site.base_url
    offenders = []
    for path in html_pages(site_dir):
        page_url = base_url + path.relative_to(site_dir).as_posix()
        for tag, attr, url in parse(path).loads:
            if foreign(base_url, page_url, url):
                offenders.append(f"{path.relative_to(site_dir)}: <{tag} {attr}={url!r}>")
    assert offenders == []


def test_no_stylesheet_loads_from_another_host(built_site):
    site_dir, base_url = built_site.site_dir, built_site.base_url
    offenders = []
    for css in site_dir.rglob("*.css"):
        text = css.read_text("utf-8", errors="replace")
        page_url = base_url + css.relative_to(site_dir).as_posix()
        for url in CSS_URL.findall(text) + CSS_IMPORT.findall(text):
            if foreign(base_url, page_url, url):
                offenders.append(f"{css.relative_to(site_dir)}: {url}")
    assert offenders == []


def test_no_google_fonts(built_site):
    for path in html_pages(built_site.site_dir):
        html = path.read_text("utf-8")
        assert "fonts.googleapis.com" not in html and "fonts.gstatic.com" not in html, path


def test_detector_flags_a_cdn_script():
    base = "http://127.0.0.1:1/nfg/"
    assert foreign(base, base + "index.html", "https://cdn.example.org/x.js")
    assert foreign(base, base + "index.html", "//fonts.googleapis.com/css")
    assert not foreign(base, base + "ja/index.html", "../assets/x.js")
    assert not foreign(base, base + "index.html", "data:image/png;base64,AAAA")
