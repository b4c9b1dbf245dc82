"""Per-language sitemaps, page-relative hreflang alternates, a meta description on every page."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from urllib.parse import urljoin, urlsplit

import pytest
from site_html import LANGS, en_pages, html_pages, lang_of, parse

pytestmark = pytest.mark.site

SITEMAP_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def _url_lang(base_url: str, url: str) -> str:
    first = url[len(base_url):].split("/", 1)[0]
    return first if first in ("ja", "es") else "en"


@pytest.mark.parametrize("lang", LANGS)
def test_sitemap_in_each_language(built_site, lang):
    folder = built_site.site_dir / ("" if lang == "en" else lang)
    tree = ET.parse(folder / "sitemap.xml")
    locs = [loc.text or "" for loc in tree.getroot().iter(f"{SITEMAP_NS}loc")]
    assert all(loc.startswith(built_site.base_url) for loc in locs)
    # the root sitemap (mkdocs-static-i18n) lists every language; the others only their own
    own = [loc for loc in locs if _url_lang(built_site.base_url, loc) == lang]
    assert len(own) == len(en_pages(built_site.site_dir))
    if lang != "en":
        assert own == locs
    for loc in locs:  # every URL in the sitemap is a built page
        relative = loc[len(built_site.base_url):]
        assert (built_site.site_dir / relative / "index.html").is_file(), loc


def _page_url(site_dir, base_url, path):
    relative = path.parent.relative_to(site_dir).as_posix()
    return base_url + ("" if relative == "." else relative + "/")


# page-relative (issue 12): served from another host, the page names no host (Material fetches
# <alternate>/sitemap.xml from the host that served the page)
def test_hreflang_links_are_relative_and_resolve(built_site):
    site_dir, base_url = built_site.site_dir, built_site.base_url
    bad = []
    for path in html_pages(site_dir):
        if path.name == "404.html":
            continue
        page_url = _page_url(site_dir, base_url, path)
        alternates = dict(parse(path).alternates)
        if set(alternates) != {*LANGS, "x-default"}:
            bad.append(f"{path.relative_to(site_dir)}: hreflang {sorted(alternates)}")
            continue
        resolved = {lang: urljoin(page_url, href) for lang, href in alternates.items()}
        for lang, href in alternates.items():
            target = resolved[lang]
            if urlsplit(href).scheme or href.startswith("/"):
                bad.append(f"{path.relative_to(site_dir)}: {lang} -> {href} is not page-relative")
            elif not target.startswith(base_url):
                bad.append(f"{path.relative_to(site_dir)}: {lang} -> {href} leaves the site")
            elif not (site_dir / target[len(base_url):] / "index.html").is_file():
                bad.append(f"{path.relative_to(site_dir)}: {lang} -> {href} does not exist")
            elif not (site_dir / target[len(base_url):] / "sitemap.xml").is_file():
                bad.append(f"{path.relative_to(site_dir)}: {target}sitemap.xml missing")
        own = resolved[lang_of(site_dir, path)]
        home = base_url + ("" if lang_of(site_dir, path) == "en" else lang_of(site_dir, path) + "/")
        if own != home:  # language homes: Material fetches <alternate>/sitemap.xml
            bad.append(f"{path.relative_to(site_dir)}: own alternate {own} is not {home}")
    assert bad == []


def test_every_page_has_its_own_meta_description(built_site):
    site_dir = built_site.site_dir
    missing = []
    for path in html_pages(site_dir):
        if path.name == "404.html":
            continue
        description = parse(path).meta_description
        if not description or len(description) < 10:
            missing.append(str(path.relative_to(site_dir)))
    assert missing == []
