"""MkDocs hook: write sitemap.xml into each language folder.

Material's language selector fetches `<alternate>/sitemap.xml`; mkdocs-static-i18n writes only the
root one, so /ja/sitemap.xml and /es/sitemap.xml would be 404s (console errors).
Runs after mkdocs-static-i18n has built every language (its on_post_build has priority -100).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from mkdocs.plugins import event_priority

SKIP = {"404.html"}


# Page URLs of one built language folder, e.g. https://host/nfg/ja/guide/memory/
def page_urls(site_dir: Path, lang: str, site_url: str) -> list[str]:
    root = site_dir / lang
    urls = []
    for html in sorted(root.rglob("index.html")):
        relative = html.parent.relative_to(root).as_posix()
        if relative.startswith("assets") or html.name in SKIP:
            continue
        path = "" if relative == "." else relative + "/"
        urls.append(f"{site_url}{lang}/{path}")
    return urls


def sitemap_xml(urls: list[str]) -> str:
    entries = "".join(f"  <url>\n    <loc>{escape(url)}</loc>\n  </url>\n" for url in urls)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
            f"{entries}</urlset>\n")


@event_priority(-110)
def on_post_build(config: Any) -> None:
    site_dir = Path(config.site_dir)
    if not (site_dir / "sitemap.xml").exists():
        return  # a per-language inner build; the outer build writes the language sitemaps
    i18n = config.plugins.get("i18n")
    if i18n is None:
        return
    site_url = (config.site_url or "/").rstrip("/") + "/"
    for language in i18n.config.languages:
        if language.default or not (site_dir / language.locale).is_dir():
            continue
        urls = page_urls(site_dir, language.locale, site_url)
        (site_dir / language.locale / "sitemap.xml").write_text(sitemap_xml(urls), "utf-8")
